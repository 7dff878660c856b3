"""USGS Water Data (OGC API): monitoring locations, daily values and annual peaks, live.

Collections used (``https://api.waterdata.usgs.gov/ogcapi/v0``, GeoJSON with ``f=json``):

- ``monitoring-locations``: stream sites (``site_type_code=ST``) in a bounding box, or one by id
  (``USGS-01440000``); properties ``monitoring_location_name``, ``state_name``,
  ``hydrologic_unit_code``, ``drainage_area`` (sq mi); geometry a GeoJSON point [lon, lat];
- ``daily``: ``parameter_code=00060`` (discharge), ``statistic_id=00003`` (mean), ``time=start/end``;
  properties ``time``, ``value`` (text), ``unit_of_measure``, ``approval_status``, ``qualifier``;
- ``peaks``: ``parameter_code=00060``; properties ``water_year``, ``time``, ``value``, ``qualifier``.

Pages are followed through the ``next`` link. Values are returned in the service's unit (ft3/s).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from aquascope_core.data.base import haversine_km, station_row, validate_query, variable_entry
from aquascope_core.data.live.common import LiveSource, bbox_around
from aquascope_core.data.stations import finish_series, normalise_id
from aquascope_core.data.store import SQMI_TO_KM2
from aquascope_core.errors import DataNotFoundError, SourceError

__all__ = ["UsgsLive"]

_UNITS = {"ft^3/s": "ft3/s", "ft3/s": "ft3/s", "cfs": "ft3/s", "m^3/s": "m3/s"}


def _features(body: Any, what: str) -> list[dict[str, Any]]:
    if not isinstance(body, dict) or not isinstance(body.get("features", []), list):
        raise SourceError(f"usgs_live: {what}: the answer is not a GeoJSON FeatureCollection")
    return body.get("features", [])


def _next(body: dict[str, Any]) -> str | None:
    for link in body.get("links") or []:
        if isinstance(link, dict) and link.get("rel") == "next" and link.get("href"):
            return link["href"]
    return None


class UsgsLive(LiveSource):
    """USGS Water Data OGC API (see the module docstring)."""

    name = "usgs_live"
    title = "USGS Water Data API (OGC API collections monitoring-locations, daily, peaks)"
    base_url = "https://api.waterdata.usgs.gov/ogcapi/v0"
    citation = "U.S. Geological Survey, USGS Water Data API, https://api.waterdata.usgs.gov (U.S. public domain)."
    licence = "U.S. public domain"
    page_limit = 10000
    max_pages = 50

    def _items(self, collection: str, params: dict[str, Any], what: str) -> tuple[list[dict[str, Any]], str, str]:
        url = f"{self.base_url}/collections/{collection}/items"
        check = lambda b: _features(b, what)  # noqa: E731
        body, accessed = self.http.get_json(url, {**params, "f": "json"}, what=what, check=check)
        feats = list(_features(body, what))
        pages = 1
        nxt = _next(body)
        while nxt and pages < self.max_pages:
            body, accessed = self.http.get_json(nxt, None, what=f"{what} (page {pages + 1})", check=check)
            feats.extend(_features(body, what))
            nxt = _next(body)
            pages += 1
        return feats, accessed, url

    def _row(self, feat: dict[str, Any], distance_km: float | None) -> dict[str, Any]:
        props = feat.get("properties") or {}
        coords = (feat.get("geometry") or {}).get("coordinates") or [None, None]
        sid = str(props.get("monitoring_location_number") or str(feat.get("id", "")).removeprefix("USGS-"))
        area = props.get("drainage_area")
        variables = [
            variable_entry("discharge", "ft3/s", "daily", source=self.name, offline=False, live=self.name,
                           note="daily mean discharge from the USGS daily collection; availability not checked"),
            variable_entry("peak_discharge", "ft3/s", "annual", source=self.name, offline=False, live=self.name,
                           note="annual instantaneous peaks from the USGS peaks collection; availability not checked"),
        ]
        return station_row(source=self.name, station_id=sid, name=props.get("monitoring_location_name") or sid,
                           lat=coords[1], lon=coords[0], distance_km=distance_km,
                           area_km2=round(float(area) * SQMI_TO_KM2, 1) if area not in (None, "") else None,
                           regulation=None, variables=variables,
                           url=f"https://waterdata.usgs.gov/monitoring-location/USGS-{sid}/")

    def stations_near(self, lat: float, lon: float, *, radius_km: float = 50.0, limit: int | None = 20,
                      variable: str | None = None) -> list[dict[str, Any]]:
        lat, lon, radius_km, limit = validate_query(lat, lon, radius_km, limit)
        box = ",".join(f"{x:.5f}" for x in bbox_around(lat, lon, radius_km))
        feats, _, _ = self._items("monitoring-locations", {"bbox": box, "site_type_code": "ST",
                                                           "limit": self.page_limit}, what=f"stream sites within {radius_km:g} km")
        rows = []
        for f in feats:
            coords = (f.get("geometry") or {}).get("coordinates")
            if not coords or len(coords) < 2 or coords[0] is None or coords[1] is None:
                continue
            d = float(haversine_km(lat, lon, float(coords[1]), float(coords[0])))
            if d <= radius_km:
                rows.append(self._row(f, d))
        if variable is not None:
            rows = [r for r in rows if any(v["variable"] == variable for v in r["variables"])]
        rows.sort(key=lambda r: (r["distance_km"], r["station_id"]))
        return rows[:limit] if limit is not None else rows

    def describe_station(self, station_id: str) -> dict[str, Any]:
        site = normalise_id(station_id)
        url = f"{self.base_url}/collections/monitoring-locations/items/USGS-{site}"
        def check(b: Any) -> None:
            if not isinstance(b, dict) or not isinstance(b.get("properties"), dict):
                raise SourceError(f"usgs_live: monitoring location USGS-{site}: the answer is not a GeoJSON Feature")

        body, accessed = self.http.get_json(url, {"f": "json"}, what=f"monitoring location USGS-{site}", check=check)
        row = self._row(body, None)
        props = body["properties"]
        area = props.get("drainage_area")
        return {**row, "aliases": [f"USGS-{site}"], "state": props.get("state_name"),
                "huc8": (props.get("hydrologic_unit_code") or "")[:8] or None,
                "drainage_area_sqmi": float(area) if area not in (None, "") else None,
                "drainage_area_km2": row["area_km2"], "citation": self.citation,
                "datasets": [self.provenance(url, accessed, station_id=site)],
                "attributes": {k: props.get(k) for k in ("site_type", "county_name", "altitude", "vertical_datum",
                                                         "hydrologic_unit_code") if k in props}}

    def fetch_series(self, station_id: str, variable: str, *, start: Any = None, end: Any = None) -> pd.Series:
        site = normalise_id(station_id)
        if variable == "discharge":
            lo = pd.Timestamp(start).date().isoformat() if start is not None else ".."
            hi = pd.Timestamp(end).date().isoformat() if end is not None else ".."
            feats, accessed, url = self._items("daily", {
                "monitoring_location_id": f"USGS-{site}", "parameter_code": "00060", "statistic_id": "00003",
                "time": f"{lo}/{hi}", "limit": self.page_limit}, what=f"daily discharge at USGS-{site}")
            resolution = "daily"

            def when(p: dict[str, Any]) -> Any:
                return p.get("time")
        elif variable == "peak_discharge":
            feats, accessed, url = self._items("peaks", {"monitoring_location_id": f"USGS-{site}", "parameter_code": "00060",
                                                         "limit": self.page_limit}, what=f"annual peaks at USGS-{site}")
            resolution = "annual"

            def when(p: dict[str, Any]) -> Any:
                wy = p.get("water_year")
                return f"{int(wy)}-01-01" if wy not in (None, "") else None
        else:
            raise DataNotFoundError(f"usgs_live serves 'discharge' (daily) and 'peak_discharge' (annual), not {variable!r}",
                                    argument="variable", value=variable)
        if not feats:
            raise DataNotFoundError(f"usgs_live: no {variable} at USGS-{site}"
                                    + (f" between {start} and {end}" if start or end else ""),
                                    argument="station_id", value=station_id)
        dates, values, units, qualifiers, approval = [], [], set(), {}, {}
        for f in feats:
            p = f.get("properties") or {}
            t, v = when(p), p.get("value")
            if t is None or v in (None, ""):
                continue
            try:
                x = float(v)
            except (TypeError, ValueError):
                raise SourceError(f"usgs_live: {variable} at USGS-{site}: value {v!r} on {t} is not a number") from None
            dates.append(pd.Timestamp(t).tz_localize(None) if pd.Timestamp(t).tzinfo else pd.Timestamp(t))
            values.append(x)
            units.add(_UNITS.get(p.get("unit_of_measure") or "ft^3/s", p.get("unit_of_measure")))
            if p.get("qualifier"):
                qualifiers[str(dates[-1].date())] = p["qualifier"]
            if p.get("approval_status"):
                approval[p["approval_status"]] = approval.get(p["approval_status"], 0) + 1
        if len(units) > 1:
            raise SourceError(f"usgs_live: {variable} at USGS-{site} mixes units {sorted(units)}")
        s = pd.Series(np.asarray(values, float), index=pd.DatetimeIndex(dates)).sort_index()
        if s.index.has_duplicates:
            raise SourceError(f"usgs_live: {variable} at USGS-{site} repeats dates: "
                              + ", ".join(str(d.date()) for d in s.index[s.index.duplicated()][:5]))
        unit = units.pop() if units else "ft3/s"
        return finish_series(s, variable=variable, unit=unit, resolution=resolution, source=self.name, station_id=site,
                             name=f"USGS {site}", provenance=self.provenance(url, accessed, station_id=site, variable=variable),
                             start=start, end=end, note="values as published by USGS (provisional values included)",
                             extra={"approval_status": approval, "qualifiers": dict(list(qualifiers.items())[:200])})
