"""The Scout: the inventory of what exists at the site (deterministic, with or without a model)."""

from __future__ import annotations

from typing import Any, Sequence

from aquascope_core.recon import assess_site
from roles.naming import name_uploads
from aquascope_core.tools.context import DataContext
from aquascope_core.workspace import Workspace

__all__ = ["scout"]

ROLE = "scout"


def scout(ws: Workspace, *, data: DataContext | None = None, extra_sources: Sequence[Any] = ()) -> Workspace:
    """Write ``ws.inventory`` from assess_site at the workspace's site and the user's uploads (``ws.tables``)."""
    ws.status = "scouting"
    data = data or DataContext.from_tables(ws.tables, ws.site, live=bool(ws.request.get("live")))
    extra = [*extra_sources, *([data.uploads] if data.uploads is not None else [])]
    lat, lon = ws.site.get("lat"), ws.site.get("lon")
    ws.event(ROLE, "start", {"lat": lat, "lon": lon})
    intake = (ws.brief or {}).get("intake") or {}
    recon = assess_site(lat, lon, radius_km=float(ws.request.get("radius_km") or 50.0),
                        problem=(ws.brief or {}).get("kind"), return_period=intake.get("return_period"),
                        live=bool(ws.request.get("live")), extra_sources=extra,
                        live_options=data.live_options)
    name_uploads(recon)  # an upload is named after the place, not its file
    datasets = []
    for st in recon["stations"]:
        usable = [v for v in st.get("variables", []) if v.get("usable")]
        datasets.append({
            "kind": "upload" if st.get("source") == "upload" else "station", "source": st.get("source"), "station_id": st.get("station_id"), "name": st.get("name"),
            "distance_km": st.get("distance_km"), "area_km2": st.get("area_km2"),
            "variables": [{k: v.get(k) for k in ("variable", "unit", "resolution", "period_start", "period_end", "years",
                                                 "offline", "usable")} for v in st.get("variables", [])],
            "usable": bool(usable),
        })
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
    from roles.derive import derive_intake

    derive_intake(ws, data)  # intake items the site's records can give (a planting month, a pass-by flow)
    return ws
