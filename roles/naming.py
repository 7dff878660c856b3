"""Studies are named after the station or the place, never after an upload's file name.

An upload sits at the site; :func:`name_uploads` gives its station entry in the reconnaissance a place name
(the nearest catalogued gauge within :data:`PLACE_KM`, or the site's coordinates) with "the user's record",
and keeps the file name as the station id (which the steps read the data by) and as ``file``.
"""

from __future__ import annotations

from typing import Any, MutableMapping

__all__ = ["name_uploads", "place_name", "PLACE_KM"]

PLACE_KM = 5.0


def place_name(recon: MutableMapping[str, Any]) -> str:
    """The place of the site: the nearest catalogued gauge within PLACE_KM, else its coordinates."""
    gauges = [s for s in recon.get("stations") or [] if s.get("source") != "upload"
              and isinstance(s.get("distance_km"), (int, float)) and s["distance_km"] <= PLACE_KM]
    if gauges:
        return min(gauges, key=lambda s: s["distance_km"])["name"]
    p = recon.get("point") or {}
    lat, lon = p.get("lat"), p.get("lon")
    if lat is None or lon is None:
        return "the site"
    return f"the site at latitude {lat:g}, longitude {lon:g}"


def name_uploads(recon: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """Rename the upload stations of ``recon`` in place (see the module doc); returns ``recon``."""
    place = None
    for st in recon.get("stations") or []:
        if st.get("source") == "upload" and st.get("name") == st.get("station_id"):
            place = place or place_name(recon)
            st["file"] = st["station_id"]
            st["name"] = f"{place} (the user's record)"
    ctx = recon.get("context") or {}
    for where in (ctx.get("station_by_variable") or {}).values():
        if isinstance(where, MutableMapping) and where.get("source") == "upload" and where.get("name") == where.get("station_id"):
            where["name"] = f"{place or place_name(recon)} (the user's record)"
    return recon
