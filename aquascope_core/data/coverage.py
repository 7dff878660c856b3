"""Who gauges the rivers where a site lies, when the crew holds no record of it offline.

A place with no discharge record held offline is not for that reason ungauged: in England the Environment
Agency gauges the rivers, in the United States the USGS. :func:`gauged_by` names the gauging authority of
the region a point lies in (outlines drawn coarsely, so a point near a border is named as near it), the
crew's live source for it when there is one, and where its records can be downloaded to upload;
:func:`gauged_sentence` says it in words for a decline or a data request.

The outlines are approximate polygons (lon, lat) drawn for this purpose from the national borders; they
decide only which authority to name, never a number in an answer.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AUTHORITIES", "gauged_by", "gauged_sentence"]

_ENGLAND = [(-2.03, 55.81), (-1.2, 54.6), (0.2, 53.6), (1.8, 52.9), (1.8, 51.1), (1.4, 50.8), (-1.0, 50.5),
            (-3.5, 50.2), (-5.8, 49.9), (-5.8, 50.3), (-4.2, 51.2), (-3.0, 51.35), (-2.65, 51.6), (-3.1, 52.0),
            (-3.0, 52.5), (-3.1, 53.0), (-3.1, 53.4), (-3.2, 54.0), (-3.6, 54.5), (-3.2, 54.95), (-2.6, 55.1),
            (-2.2, 55.5)]
_WALES = [(-3.0, 51.35), (-2.65, 51.6), (-3.1, 52.0), (-3.0, 52.5), (-3.1, 53.0), (-3.1, 53.45), (-4.7, 53.45),
          (-4.8, 52.8), (-4.2, 52.3), (-5.4, 51.9), (-5.2, 51.6), (-4.2, 51.5)]
_SCOTLAND = [(-2.03, 55.81), (-2.2, 55.5), (-2.6, 55.1), (-3.2, 54.95), (-5.2, 54.6), (-7.8, 56.0), (-7.8, 58.7),
             (-2.8, 59.4), (-0.7, 60.9), (-1.8, 57.5)]
_US48 = [(-124.8, 48.4), (-95.2, 49.0), (-83.0, 46.1), (-67.0, 47.3), (-66.9, 44.8), (-75.9, 35.2), (-80.0, 25.1),
         (-81.8, 24.5), (-97.2, 25.9), (-106.6, 31.8), (-117.1, 32.5), (-124.4, 40.4)]

AUTHORITIES: tuple[dict[str, Any], ...] = (
    {"region": "England", "outline": _ENGLAND, "authority": "the Environment Agency",
     "network": "its river flow gauging stations (the Hydrology Data Explorer; peak flows also in the UK National "
                "River Flow Archive)",
     "live": "ea_hydrology", "download": "the station's daily mean flow from the Environment Agency Hydrology Data "
                                          "Explorer (or the NRFA's peak flow data)"},
    {"region": "Wales", "outline": _WALES, "authority": "Natural Resources Wales",
     "network": "its river flow gauging stations (records also in the UK National River Flow Archive)", "live": None,
     "download": "the station's daily flow from the UK National River Flow Archive"},
    {"region": "Scotland", "outline": _SCOTLAND, "authority": "the Scottish Environment Protection Agency (SEPA)",
     "network": "its river flow gauging stations (records also in the UK National River Flow Archive)", "live": None,
     "download": "the station's daily flow from SEPA or the UK National River Flow Archive"},
    {"region": "the United States", "outline": _US48, "authority": "the U.S. Geological Survey",
     "network": "its streamgages (the National Water Information System)", "live": "usgs",
     "download": "the gauge's daily values or annual peaks from the National Water Information System"},
)


def _inside(lon: float, lat: float, poly: list[tuple[float, float]]) -> bool:
    """Whether (lon, lat) lies inside the polygon (even-odd rule)."""
    inside = False
    j = len(poly) - 1
    for i, (xi, yi) in enumerate(poly):
        xj, yj = poly[j]
        if (yi > lat) != (yj > lat) and lon < (xj - xi) * (lat - yi) / (yj - yi) + xi:
            inside = not inside
        j = i
    return inside


def gauged_by(lat: float | None, lon: float | None) -> dict[str, Any] | None:
    """The gauging authority of the region the point lies in ({region, authority, network, live, download}),
    or None when the crew knows none there."""
    if lat is None or lon is None:
        return None
    try:
        lat, lon = float(lat), float(lon)
    except (TypeError, ValueError):
        return None
    for a in AUTHORITIES:
        if _inside(lon, lat, a["outline"]):
            return {k: v for k, v in a.items() if k != "outline"}
    return None


def gauged_sentence(lat: float | None, lon: float | None) -> str | None:
    """The site is gauged by whom, and how to bring the record (an upload, or the live source)."""
    a = gauged_by(lat, lon)
    if a is None:
        return None
    how = f"upload {a['download']} (CSV or XLSX)"
    if a.get("live"):
        how += f", or run with the live source (--live; {a['live']}), which lists the flow stations near the site"
    return (f"The site is not ungauged for that: it lies in {a['region']}, where {a['authority']} gauges rivers with "
            f"{a['network']}; no record of theirs is held offline here. To bring the record, {how}.")
