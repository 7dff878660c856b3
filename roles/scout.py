"""The Scout: the inventory of what exists at the site (deterministic, with or without a model)."""

from __future__ import annotations

from typing import Any, Sequence

from aquascope_core.recon import assess_site
from aquascope_core.workspace import Workspace

__all__ = ["scout"]

ROLE = "scout"


def scout(ws: Workspace, *, extra_sources: Sequence[Any] = (), extra_variables: Sequence[dict[str, Any]] = ()) -> Workspace:
    """Write ``ws.inventory`` from assess_site at the workspace's site (and the user's uploads)."""
    ws.status = "scouting"
    lat, lon = ws.site.get("lat"), ws.site.get("lon")
    ws.event(ROLE, "start", {"lat": lat, "lon": lon})
    intake = (ws.brief or {}).get("intake") or {}
    recon = assess_site(lat, lon, radius_km=float(ws.request.get("radius_km") or 50.0),
                        problem=(ws.brief or {}).get("kind"), return_period=intake.get("return_period"),
                        live=bool(ws.request.get("live")), extra_sources=extra_sources,
                        extra_variables=extra_variables)
    datasets = []
    for st in recon["stations"]:
        usable = [v for v in st.get("variables", []) if v.get("usable")]
        datasets.append({
            "kind": "station", "source": st.get("source"), "station_id": st.get("station_id"), "name": st.get("name"),
            "distance_km": st.get("distance_km"), "area_km2": st.get("area_km2"),
            "variables": [{k: v.get(k) for k in ("variable", "unit", "resolution", "period_start", "period_end", "years",
                                                 "offline", "usable")} for v in st.get("variables", [])],
            "usable": bool(usable),
        })
    for v in extra_variables:
        datasets.append({"kind": "upload", **{k: v.get(k) for k in ("name", "variable", "unit", "resolution",
                                                                      "period_start", "period_end", "years")}})
    ws.inventory = {
        "site": recon["point"],
        "datasets": datasets,
        "recon": recon,
        "catchment": recon["catchment"],
        "donors": recon["context"].get("donors"),
        "notes": recon["notes"],
    }
    usable = [d for d in datasets if d.get("usable")]
    nearest = usable[0] if usable else None
    text = (f"Found {len(datasets)} station(s) within {recon['radius_km']:g} km; "
            + (f"the nearest with data is {nearest['name']} ({nearest['source']} {nearest['station_id']}) at "
               f"{nearest['distance_km']:.1f} km." if nearest else "none holds data that can be read offline."))
    ws.say(ROLE, text, kind="text")
    ws.event(ROLE, "inventory", {"stations": len(datasets), "usable": len(usable)})
    return ws
