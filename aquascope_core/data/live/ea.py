"""UK Environment Agency hydrology API (England): flow stations near a point, daily mean flow.

``https://environment.data.gov.uk/hydrology``:

- ``/id/stations.json?observedProperty=waterFlow&lat=..&long=..&dist=<km>``: items with ``notation``
  (the station id used here), ``label``, ``lat``, ``long``, ``catchmentArea`` (km2), ``riverName``;
- ``/id/stations/<id>.json``: one station, in the same ``{"meta": {...}, "items": [...]}`` envelope (recorded:
  fixtures/ea_hydrology_station_052d0819_ulting_sarasota.json); a station item lists its ``measures`` nested,
  so a station whose list lacks the daily mean flow measure is said to have none (and is not offered near a
  point) rather than failing later with a 404 on its readings;
- ``/id/measures/<id>-flow-m-86400-m3s-qualified/readings.csv?mineq-date=..&maxeq-date=..&_limit=..``: the
  readings as CSV, a header line ``"measure","dateTime","date","value","completeness","quality","qcode"``
  (on some measures also ``valid``/``invalid``/``missing`` counts) then one quoted row a day; ``value`` in
  m3/s, empty when there is none; ``quality`` Good, Estimated, Suspect, Unchecked, Missing; ``completeness``
  Complete, Incomplete. The CSV form is read (not ``readings.json``): it is the form whose answers are on
  record (tests/core/data/live/fixtures/README.md), and it is the smaller of the two for a long record.

``dateTime`` carries no zone: the service's times are GMT, and a daily mean flow's ``dateTime`` is the start
of its water day (09:00 in the recorded answer): the value dated D covers D 09:00 to D+1 09:00 GMT. The
series is indexed by ``date``; the time of day the days start is kept in ``attrs["day_start_gmt"]``.
The service does not always send the rows in date order (seen in its printed answers): they are sorted
here. Readings without a value or with quality ``Missing`` are gaps (dropped, counted); the quality flags
are counted in ``attrs["quality"]`` and the days' completeness in ``attrs["completeness"]`` (a value kept
from an incomplete day is said in the note). Open Government Licence v3.0.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import numpy as np
import pandas as pd

from aquascope_core.data.base import haversine_km, station_row, validate_query, variable_entry
from aquascope_core.data.live.common import LiveSource
from aquascope_core.data.stations import finish_series
from aquascope_core.errors import DataNotFoundError, InputError, SourceError

__all__ = ["EaHydrologyLive"]


def _items(body: Any, what: str) -> list[dict[str, Any]]:
    if not isinstance(body, dict) or not isinstance(body.get("items"), list):
        raise SourceError(f"ea_hydrology: {what}: the answer has no 'items' list")
    return body["items"]


def _readings(text: Any, what: str) -> list[dict[str, str]]:
    """The rows of a readings CSV answer (a header line, then one row a reading)."""
    if not isinstance(text, str):
        raise SourceError(f"ea_hydrology: {what}: the answer is not text")
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    fields = reader.fieldnames or []
    if not fields and not text.strip():
        return []
    if "value" not in fields or not ({"date", "dateTime"} & set(fields)):
        first = text.splitlines()[0][:120] if text.strip() else ""
        raise SourceError(f"ea_hydrology: {what}: the answer is not the readings CSV (its first line is {first!r}; "
                          "expected date, dateTime and value columns)")
    return list(reader)


def _flow_rows(text: Any, what: str, sid: str) -> list[tuple[str | None, float | None, str, str, str]]:
    """(date, value or None, quality, completeness, dateTime) of each row of a readings CSV answer."""
    rows = []
    for it in _readings(text, what):
        v = (it.get("value") or "").strip()
        stamp = (it.get("dateTime") or "").strip()
        day = (it.get("date") or "").strip() or (stamp[:10] if stamp else None)
        try:
            value = float(v) if v else None
        except ValueError:
            raise SourceError(f"ea_hydrology: flow at {sid}: value {v!r} on {day} is not a number") from None
        rows.append((day, value, str(it.get("quality") or "unknown"), str(it.get("completeness") or "unknown"), stamp))
    return rows


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


DAILY_MEAN_FLOW = "-flow-m-86400-m3s-qualified"


def _daily_mean_measure(item: dict[str, Any]) -> str | None | bool:
    """The daily mean flow measure a station item lists (its notation), False when it lists measures but not
    that one, None when the item lists no measures (the recorded station answer lists them, nested)."""
    measures = item.get("measures")
    if not isinstance(measures, list) or not measures:
        return None
    for m in measures:
        ref = m.get("notation") or m.get("@id") if isinstance(m, dict) else m
        if isinstance(ref, str) and ref.endswith(DAILY_MEAN_FLOW):
            return ref.rsplit("/", 1)[-1]
    return False


class EaHydrologyLive(LiveSource):
    """Environment Agency hydrology data (see the module docstring)."""

    name = "ea_hydrology"
    title = "Environment Agency Hydrology Data Explorer API (daily mean flow)"
    base_url = "https://environment.data.gov.uk/hydrology"
    base_url_env = "AQUASCOPE_EA_URL"
    citation = "Environment Agency, Hydrology Data Explorer API, https://environment.data.gov.uk/hydrology (OGL v3.0)."
    licence = "Open Government Licence v3.0"

    @staticmethod
    def _station_id(station_id: Any) -> str:
        if not isinstance(station_id, str) or not station_id.strip() or "/" in station_id:
            raise InputError.bad_value("station_id", station_id, "an EA station notation (a GUID from stations_near)")
        return station_id.strip()

    def _row(self, item: dict[str, Any], distance_km: float | None) -> dict[str, Any]:
        sid = str(_first(item.get("notation")) or str(item.get("@id", "")).rsplit("/", 1)[-1])
        area = _first(item.get("catchmentArea"))
        lat, lon = _first(item.get("lat")), _first(item.get("long"))
        measure = _daily_mean_measure(item)
        variables = [] if measure is False else [
            variable_entry("discharge", "m3/s", "daily", source=self.name, offline=False, live=self.name,
                           note=f"daily mean flow (measure {measure}, listed by the station)" if measure
                           else "daily mean flow (measure <id>-flow-m-86400-m3s-qualified)")]
        return station_row(source=self.name, station_id=sid, name=str(_first(item.get("label")) or sid),
                           lat=float(lat) if lat is not None else None, lon=float(lon) if lon is not None else None,
                           distance_km=distance_km, area_km2=float(area) if area not in (None, "") else None,
                           regulation=None, variables=variables,
                           url=f"https://environment.data.gov.uk/hydrology/station/{sid}")

    def stations_near(self, lat: float, lon: float, *, radius_km: float = 50.0, limit: int | None = 20,
                      variable: str | None = None) -> list[dict[str, Any]]:
        lat, lon, radius_km, limit = validate_query(lat, lon, radius_km, limit)
        if variable not in (None, "discharge"):
            return []
        body, _ = self.http.get_json(f"{self.base_url}/id/stations.json",
                                     {"observedProperty": "waterFlow", "lat": f"{lat:.5f}", "long": f"{lon:.5f}",
                                      "dist": f"{radius_km:g}", "_limit": 500}, what=f"flow stations within {radius_km:g} km",
                                     check=lambda b: _items(b, "stations"))
        rows = []
        for item in _items(body, "stations"):
            la, lo = _first(item.get("lat")), _first(item.get("long"))
            if la is None or lo is None:
                continue
            d = float(haversine_km(lat, lon, float(la), float(lo)))
            if d <= radius_km and _daily_mean_measure(item) is not False:  # a flow station without daily means
                rows.append(self._row(item, d))
        rows.sort(key=lambda r: (r["distance_km"], r["station_id"]))
        return rows[:limit] if limit is not None else rows

    def describe_station(self, station_id: str) -> dict[str, Any]:
        sid = self._station_id(station_id)
        url = f"{self.base_url}/id/stations/{sid}.json"
        body, accessed = self.http.get_json(url, None, what=f"station {sid}", check=lambda b: _items(b, f"station {sid}"))
        items = _items(body, f"station {sid}")
        if not items:
            raise DataNotFoundError(f"ea_hydrology has no station {sid!r}", argument="station_id", value=station_id)
        item = items[0]
        row = self._row(item, None)
        return {**row, "aliases": [str(_first(item.get("wiskiID")))] if item.get("wiskiID") else [], "state": None,
                "huc8": None, "drainage_area_sqmi": None, "drainage_area_km2": row["area_km2"], "citation": self.citation,
                "datasets": [self.provenance(url, accessed, station_id=sid)],
                "attributes": {**{k: _first(item.get(k)) for k in ("riverName", "wiskiID", "dateOpened", "stationGuid")
                                  if k in item},
                               **({"daily_mean_flow_measure": _daily_mean_measure(item)}
                                  if _daily_mean_measure(item) is not None else {})}}

    def fetch_series(self, station_id: str, variable: str, *, start: Any = None, end: Any = None) -> pd.Series:
        sid = self._station_id(station_id)
        if variable != "discharge":
            raise DataNotFoundError(f"ea_hydrology serves daily mean 'discharge' only, not {variable!r}",
                                    argument="variable", value=variable)
        measure = f"{sid}-flow-m-86400-m3s-qualified"
        url = f"{self.base_url}/id/measures/{measure}/readings.csv"
        params: dict[str, Any] = {"_limit": 2000000}
        if start is not None:
            params["mineq-date"] = pd.Timestamp(start).date().isoformat()
        if end is not None:
            params["maxeq-date"] = pd.Timestamp(end).date().isoformat()
        what = f"daily mean flow at {sid}"
        # the rows are read in the check, so an answer with an unreadable value is refused before it is cached
        text, accessed = self.http.get_text(url, params, what=what, check=lambda t: _flow_rows(t, what, sid))
        dates, values, quality, completeness = [], [], {}, {}
        incomplete_kept = 0
        day_starts: set[str] = set()
        for day, v, q, c, stamp in _flow_rows(text, what, sid):
            quality[q] = quality.get(q, 0) + 1
            completeness[c] = completeness.get(c, 0) + 1
            if v is None or q == "Missing" or day is None:
                continue
            values.append(v)
            dates.append(pd.Timestamp(day))
            if len(stamp) > 10:
                day_starts.add(stamp[11:19])
            incomplete_kept += c == "Incomplete"
        if not values:
            period = (f"from {params.get('mineq-date', 'the start')} to {params.get('maxeq-date', 'today')}"
                      if start is not None or end is not None else "over its whole record")
            rows = sum(quality.values())
            said = (f"it sent {rows} row(s), none with a value (quality " + ", ".join(
                f"{k} {n}" for k, n in sorted(quality.items())) + ")") if rows else "it sent no readings"
            raise DataNotFoundError(
                f"ea_hydrology: no data: the Environment Agency hydrology service holds no daily mean flow (measure "
                f"{measure}) at station {sid} {period}: {said}", argument="station_id", value=station_id,
                recovery=f"Ask for a period the station recorded (its page https://environment.data.gov.uk/hydrology/"
                         f"station/{sid} shows its record), choose another station nearby (aquascope assess <lat> "
                         "<lon>), or bring the record as a file.")
        s = pd.Series(np.asarray(values, float), index=pd.DatetimeIndex(dates)).sort_index()
        if s.index.has_duplicates:
            raise SourceError(f"ea_hydrology: flow at {sid} repeats dates: "
                              + ", ".join(str(d.date()) for d in s.index[s.index.duplicated()][:5]))
        return finish_series(s, variable="discharge", unit="m3/s", resolution="daily", source=self.name, station_id=sid,
                             name=sid, provenance=self.provenance(url, accessed, station_id=sid, measure=measure),
                             start=start, end=end,
                             note="EA daily mean flow (qualified); quality flags and day completeness counted"
                                  + (f"; {incomplete_kept} value(s) from incomplete days" if incomplete_kept else ""),
                             extra={"quality": quality, "completeness": completeness,
                                    "day_start_gmt": day_starts.pop() if len(day_starts) == 1 else None})
