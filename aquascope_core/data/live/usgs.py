"""USGS Water Data (OGC API): monitoring locations, daily values and annual peaks, live.

Collections used (``https://api.waterdata.usgs.gov/ogcapi/v1``, GeoJSON with ``f=json``), read as the
service sends them (see ``tests/core/data/live/fixtures``, recorded answers). Version 1 of the API (released in
September 2026) changes nothing in these three collections' JSON; the USGS redirects v0 requests to v1 and asks
clients to move (its announcement ``waterdata.usgs.gov/blog/api-v1-release/``), and ``dataretrieval`` 1.4.0 is
written against v1. The recorded answers come from both versions, with the same properties:

- ``monitoring-locations``: stream sites (``site_type_code=ST``) in a bounding box, or one by id
  (``id=USGS-01440000``, answered as a FeatureCollection of one); properties ``monitoring_location_name``,
  ``state_name``, ``hydrologic_unit_code``, ``drainage_area`` (sq mi, null for wells); geometry a GeoJSON point
  [lon, lat] or null (rows without a place are skipped);
- ``daily``: ``parameter_code=00060`` (discharge), ``statistic_id=00003`` (mean), ``datetime=start/end``
  (left out for the whole record; an open end is ``..``); properties ``time`` (a calendar day, the gauge's local
  day: no time zone), ``value`` (text),
  ``unit_of_measure`` (``ft^3/s``), ``approval_status`` (``Approved``, ``Provisional`` or null),
  ``qualifier`` (null or a list);
- ``peaks``: ``water_year`` (an integer), ``time``, ``value``, ``parameter_code`` (the collection also
  holds gage-height peaks, 00065 in ft, which are dropped here), ``qualifier`` (a list, e.g.
  ``["REGULATED"]``). When it holds no discharge peak for the site, the NWIS peak file (RDB, the same
  file PeakFQ reads) is asked instead.

An empty answer (``numberReturned: 0``, no features) and days listed with ``value: null`` (a discontinued gauge's
days carry qualifier ``DISCONTINUED``) are both recorded; either, with no value left, is a "no data" naming the
gauge, the period and what to do; days without a value next to days with one are counted in
``attrs["null_values"]`` by qualifier. NWISWeb's "No sites/data found ..." answer to the peak-file request is
read as no peaks, whatever its status.

The period is asked as ``datetime``, the OGC API's own parameter: every recorded v1 answer's ``self`` link (written by
the service, echoing the request) carries ``datetime=<start>/<end>`` and holds exactly the days of that window. The
service's documentation also lists ``time`` (the property) as taking an interval, and ``dataretrieval`` 1.4 sends
``time=``; no recorded answer shows that form, so the adapter sends the recorded one. The tests compare each request
with the recorded ``self`` link of the answer it gets.

Pages are followed through the ``next`` link as the service writes it (a ``cursor`` parameter). A
feature of another location or parameter than the one asked for is dropped and counted. Values keep
the service's unit (ft3/s). Each value's approval status is kept (as runs of equal status in
``attrs["approval_runs"]``); provisional values are counted in ``attrs["provisional"]`` so the study and
the report can say "provisional data, subject to revision".

The USGS's own client, ``dataretrieval`` (1.4.0), speaks the same collections (``waterdata.get_daily``,
``get_peaks``, ``get_monitoring_locations``) and is kept up by the USGS. ``engine="dataretrieval"`` reads
daily values through it when it is installed (an optional dependency: ``pip install aquascope[usgs]``);
the default engine is written here because the engine's contract needs what the client does not give:
no socket before the opt-in (:mod:`~aquascope_core.data.live.http`), the retrieval time of each answer for
the provenance, the on-disk cache, an injectable transport for tests, and the NWIS peak file fallback.
``tests/core/data/live/test_live_usgs_dataretrieval.py`` reads the same recorded answers both ways.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from aquascope_core.data.base import haversine_km, station_row, validate_query, variable_entry
from aquascope_core.data.live.common import LiveSource, bbox_around
from aquascope_core.data.stations import finish_series, normalise_id
from aquascope_core.data.store import SQMI_TO_KM2
from aquascope_core.errors import DataNotFoundError, InputError, SourceError

__all__ = ["UsgsLive", "approval_summary"]

_UNITS = {"ft^3/s": "ft3/s", "ft3/s": "ft3/s", "cfs": "ft3/s", "m^3/s": "m3/s"}
PROVISIONAL = "Provisional"
#: how NWISWeb says it holds nothing for a query, as the whole body (fixtures/nwis_no_sites_data_found.txt)
NWIS_NO_DATA = "No sites/data found"


def _features(body: Any, what: str) -> list[dict[str, Any]]:
    if not isinstance(body, dict) or not isinstance(body.get("features", []), list):
        raise SourceError(f"usgs_live: {what}: the answer is not a GeoJSON FeatureCollection")
    return body.get("features", [])


def _next(body: dict[str, Any]) -> str | None:
    for link in body.get("links") or []:
        if isinstance(link, dict) and link.get("rel") == "next" and link.get("href"):
            return link["href"]
    return None


def _qualifiers(q: Any) -> list[str]:
    if q in (None, "", []):
        return []
    return [str(x) for x in q] if isinstance(q, (list, tuple)) else [str(q)]


def approval_summary(dates: list[pd.Timestamp], status: list[str | None]) -> dict[str, Any]:
    """Counts, runs of equal status ``[first day, last day, status]`` and the provisional span of a record."""
    counts: dict[str, int] = {}
    runs: list[list[Any]] = []
    for d, st in sorted(zip(dates, status), key=lambda x: x[0]):
        key = st or "unknown"
        counts[key] = counts.get(key, 0) + 1
        day = str(d.date())
        if runs and runs[-1][2] == key:
            runs[-1][1] = day
        else:
            runs.append([day, day, key])
    prov = [r for r in runs if r[2] == PROVISIONAL]
    return {"approval_status": counts, "approval_runs": runs,
            "provisional": {"n": counts.get(PROVISIONAL, 0), "first": prov[0][0] if prov else None,
                            "last": prov[-1][1] if prov else None}}


def _one_value_a_day(got: dict[str, Any], site: str) -> dict[str, int]:
    """Merge what the daily collection sends for one day more than once; the days' values per series id.

    A gauge can hold two daily mean discharge series for the same days (recorded: USGS 02196000, a current and an
    ended series, 22 features for 11 days with equal values). Days whose values agree are kept once; days where
    the series disagree are refused, naming the series and days, rather than choosing between them.
    """
    counts: dict[str, int] = {}
    for sid in got["series"]:
        counts[sid or "unknown"] = counts.get(sid or "unknown", 0) + 1
    seen: dict[pd.Timestamp, float] = {}
    keep, clash = [], []
    for i, (day, v) in enumerate(zip(got["dates"], got["values"])):
        if day not in seen:
            seen[day] = v
            keep.append(i)
        elif seen[day] != v:
            clash.append(f"{day.date()}: {seen[day]:g} vs {v:g}")
    if clash:
        raise SourceError(
            f"usgs_live: discharge at USGS-{site}: the daily collection sends {len(counts)} series "
            f"({', '.join(f'{k} ({n} days)' for k, n in sorted(counts.items()))}) that disagree on {len(clash)} "
            f"day(s): {'; '.join(clash[:5])}",
            recovery="The gauge publishes more than one daily mean discharge series; compare them on its page "
                     f"(https://waterdata.usgs.gov/monitoring-location/USGS-{site}/) and bring the one to use as a file.")
    for key in ("dates", "values", "status", "series"):
        got[key] = [got[key][i] for i in keep]
    return counts


def _period(lo: str, hi: str) -> str:
    return "its whole record" if (lo, hi) == ("..", "..") else f"{lo.replace('..', 'the start')} to {hi.replace('..', 'today')}"


def _no_daily_values(site: str, station_id: str, lo: str, hi: str, got: dict[str, Any]) -> DataNotFoundError:
    """The "no data" answer of the daily collection, said plainly: what was asked, what the service answered, what to do.

    Two answers are recorded (fixtures/README.md): no feature at all (``numberReturned: 0``, a period outside the
    series) and days listed with ``value: null`` (qualifier ``DISCONTINUED``: the gauge no longer measures flow).
    """
    asked = f"daily mean discharge (00060, statistic 00003) at USGS-{site} for {_period(lo, hi)}"
    page = f"https://waterdata.usgs.gov/monitoring-location/USGS-{site}/"
    nulls = got["null_values"]
    if nulls:
        said = "; ".join(f"{v['n']} day(s) from {v['first']} to {v['last']} with no value (qualifier {k})"
                         for k, v in sorted(nulls.items()))
        msg = f"usgs_live: no data: the USGS daily collection lists {asked} but every day has no value: {said}"
        if any("DISCONTINUED" in k for k in nulls):
            msg += " (DISCONTINUED: the gauge no longer records discharge)"
    else:
        msg = f"usgs_live: no data: the USGS daily collection holds no {asked} (the service answered with no values)"
    if got["dropped"]:
        msg += "; it sent only " + ", ".join(f"{n} value(s) of {k}" for k, n in sorted(got["dropped"].items()))
    return DataNotFoundError(
        msg, argument="station_id", value=station_id,
        recovery=f"Ask for a period the gauge recorded (its page {page} shows its record), choose another gauge "
                 "nearby (aquascope assess <lat> <lon> lists them), or bring the record as a file.")


class UsgsLive(LiveSource):
    """USGS Water Data OGC API (see the module docstring)."""

    name = "usgs_live"
    title = "USGS Water Data API (OGC API collections monitoring-locations, daily, peaks)"
    base_url = "https://api.waterdata.usgs.gov/ogcapi/v1"
    base_url_env = "AQUASCOPE_USGS_URL"
    peak_file_url = "https://nwis.waterdata.usgs.gov/nwis/peak"
    peak_file_env = "AQUASCOPE_NWIS_PEAK_URL"
    citation = "U.S. Geological Survey, USGS Water Data API, https://api.waterdata.usgs.gov (U.S. public domain)."
    licence = "U.S. public domain"
    page_limit = 10000  # the largest page the service's OpenAPI document allows (``limit``: 1..10000)
    max_pages = 50

    def __init__(self, *, engine: str = "aquascope", peak_file_url: str | None = None, **kw: Any) -> None:
        import os

        super().__init__(**kw)
        if engine not in ("aquascope", "dataretrieval"):
            raise InputError.bad_value("engine", engine, "'aquascope' (default) or 'dataretrieval'")
        self.engine = engine
        url = peak_file_url or os.environ.get(self.peak_file_env, "").strip()
        if url:
            self.peak_file_url = url.rstrip("/")

    def _items(self, collection: str, params: dict[str, Any], what: str) -> tuple[list[dict[str, Any]], str, str]:
        url = f"{self.base_url}/collections/{collection}/items"
        check = lambda b: _features(b, what)  # noqa: E731
        body, accessed = self.http.get_json(url, {"f": "json", **params}, what=what, check=check)
        feats = list(_features(body, what))
        pages = 1
        nxt = _next(body)
        while nxt and pages < self.max_pages:
            body, accessed = self.http.get_json(nxt, None, what=f"{what} (page {pages + 1})", check=check)
            feats.extend(_features(body, what))
            nxt = _next(body)
            pages += 1
        if nxt:
            raise SourceError(f"usgs_live: {what}: more than {self.max_pages} pages; ask for a shorter period")
        return feats, accessed, url

    def _row(self, feat: dict[str, Any], distance_km: float | None) -> dict[str, Any]:
        props = feat.get("properties") or {}
        coords = (feat.get("geometry") or {}).get("coordinates") or [None, None]
        sid = str(props.get("monitoring_location_number")
                  or str(props.get("monitoring_location_id") or feat.get("id", "")).removeprefix("USGS-"))
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
            if (f.get("properties") or {}).get("site_type_code") not in (None, "ST"):
                continue  # the box filter is the service's; a well is not a stream gauge
            d = float(haversine_km(lat, lon, float(coords[1]), float(coords[0])))
            if d <= radius_km:
                rows.append(self._row(f, d))
        if variable is not None:
            rows = [r for r in rows if any(v["variable"] == variable for v in r["variables"])]
        rows.sort(key=lambda r: (r["distance_km"], r["station_id"]))
        return rows[:limit] if limit is not None else rows

    def describe_station(self, station_id: str) -> dict[str, Any]:
        site = normalise_id(station_id)
        # asked as a query (``items?id=USGS-<site>``), the form whose answer is on record: a FeatureCollection
        url = f"{self.base_url}/collections/monitoring-locations/items"
        what = f"monitoring location USGS-{site}"
        body, accessed = self.http.get_json(url, {"f": "json", "id": f"USGS-{site}"}, what=what,
                                            check=lambda b: _features(b, what))
        feats = [f for f in _features(body, what) if isinstance(f, dict) and isinstance(f.get("properties"), dict)
                 and f"USGS-{site}" in (f["properties"].get("monitoring_location_id") or f["properties"].get("id"),
                                        f.get("id"))]
        if not feats:
            raise DataNotFoundError(f"usgs_live: no data: the USGS holds no monitoring location USGS-{site}",
                                    argument="station_id", value=station_id,
                                    recovery="Check the gauge number (8 to 15 digits), or list the gauges near the "
                                             "site (aquascope assess <lat> <lon>).")
        body = feats[0]
        row = self._row(body, None)
        props = body["properties"]
        area = props.get("drainage_area")
        return {**row, "aliases": [f"USGS-{site}"], "state": props.get("state_name"),
                "huc8": (props.get("hydrologic_unit_code") or "")[:8] or None,
                "drainage_area_sqmi": float(area) if area not in (None, "") else None,
                "drainage_area_km2": row["area_km2"], "citation": self.citation,
                "datasets": [self.provenance(url, accessed, station_id=site)],
                "attributes": {k: props.get(k) for k in ("site_type", "county_name", "altitude", "vertical_datum",
                                                         "hydrologic_unit_code", "time_zone_abbreviation") if k in props}}

    # -- values

    def _read(self, feats: list[dict[str, Any]], site: str, variable: str) -> dict[str, Any]:
        """The features of this site and discharge, as parallel lists; others dropped and counted."""
        out: dict[str, Any] = {"dates": [], "values": [], "status": [], "qualifiers": {}, "units": set(),
                               "water_years": [], "dropped": {}, "null_values": {}, "series": []}
        for f in feats:
            p = f.get("properties") or {}
            loc, code = p.get("monitoring_location_id"), p.get("parameter_code")
            if loc not in (None, f"USGS-{site}"):
                out["dropped"]["other location"] = out["dropped"].get("other location", 0) + 1
                continue
            if code not in (None, "00060"):
                out["dropped"][f"parameter {code}"] = out["dropped"].get(f"parameter {code}", 0) + 1
                continue
            t, v = p.get("time"), p.get("value")
            if variable == "peak_discharge" and p.get("water_year") not in (None, ""):
                t = f"{int(p['water_year'])}-01-01"
            if t is None:
                continue
            if v in (None, ""):  # a day the service lists without a value (e.g. qualifier DISCONTINUED): counted
                key = ",".join(_qualifiers(p.get("qualifier"))) or "no qualifier"
                nulls = out["null_values"].setdefault(key, {"n": 0, "first": str(t)[:10], "last": str(t)[:10]})
                nulls["n"] += 1
                nulls["first"], nulls["last"] = min(nulls["first"], str(t)[:10]), max(nulls["last"], str(t)[:10])
                continue
            try:
                x = float(v)
            except (TypeError, ValueError):
                raise SourceError(f"usgs_live: {variable} at USGS-{site}: value {v!r} on {t} is not a number") from None
            day = pd.Timestamp(t)
            day = day.tz_localize(None) if day.tzinfo else day
            out["dates"].append(day)
            out["values"].append(x)
            out["status"].append(p.get("approval_status"))
            out["series"].append(p.get("time_series_id"))
            out["units"].add(_UNITS.get(p.get("unit_of_measure") or "ft^3/s", p.get("unit_of_measure")))
            if _qualifiers(p.get("qualifier")):
                out["qualifiers"][str(day.date())] = _qualifiers(p.get("qualifier"))
            if variable == "peak_discharge":
                out["water_years"].append((int(p["water_year"]) if p.get("water_year") not in (None, "") else day.year,
                                           str(p.get("time") or "")[:10], x, _qualifiers(p.get("qualifier"))))
        if len(out["units"]) > 1:
            raise SourceError(f"usgs_live: {variable} at USGS-{site} mixes units {sorted(out['units'])}")
        return out

    def fetch_series(self, station_id: str, variable: str, *, start: Any = None, end: Any = None) -> pd.Series:
        site = normalise_id(station_id)
        if variable == "discharge":
            return self._daily(site, station_id, start, end)
        if variable == "peak_discharge":
            return self._peaks(site, station_id, start, end)
        raise DataNotFoundError(f"usgs_live serves 'discharge' (daily) and 'peak_discharge' (annual), not {variable!r}",
                                argument="variable", value=variable)

    def _daily(self, site: str, station_id: str, start: Any, end: Any) -> pd.Series:
        lo = pd.Timestamp(start).date().isoformat() if start is not None else ".."
        hi = pd.Timestamp(end).date().isoformat() if end is not None else ".."
        if self.engine == "dataretrieval":
            from aquascope_core.data.live.usgs_dataretrieval import daily_features

            self.http._check_enabled()
            feats, accessed, url = daily_features(self.base_url, site, lo, hi)
        else:
            params = {"monitoring_location_id": f"USGS-{site}", "parameter_code": "00060", "statistic_id": "00003"}
            if (lo, hi) != ("..", ".."):  # ``../..`` is not an OGC interval: the whole record is asked without one
                params["datetime"] = f"{lo}/{hi}"
            feats, accessed, url = self._items("daily", {**params, "limit": self.page_limit},
                                               what=f"daily discharge at USGS-{site}")
        got = self._read(feats, site, "discharge")
        if not got["values"]:
            raise _no_daily_values(site, station_id, lo, hi, got)
        series_n = _one_value_a_day(got, site)
        s = pd.Series(np.asarray(got["values"], float), index=pd.DatetimeIndex(got["dates"])).sort_index()
        summary = approval_summary(got["dates"], got["status"])
        prov = summary["provisional"]
        note = "daily mean discharge as published by USGS"
        if len(series_n) > 1:
            note += (f"; the collection sent {len(series_n)} series for these days ("
                     + ", ".join(sorted(series_n)) + "), equal where they overlap, kept once a day")
        if prov["n"]:
            note += f"; {prov['n']} value(s) from {prov['first']} to {prov['last']} are provisional data, subject to revision"
        return finish_series(s, variable="discharge", unit=(got["units"] or {"ft3/s"}).pop(), resolution="daily",
                             source=self.name, station_id=site, name=f"USGS {site}",
                             provenance=self.provenance(url, accessed, station_id=site, variable="discharge",
                                                        engine=self.engine, provisional=prov["n"],
                                                        **({"status": f"{prov['n']} value(s) from {prov['first']} to "
                                                            f"{prov['last']}: provisional data, subject to revision"}
                                                           if prov["n"] else {})),
                             start=start, end=end, note=note,
                             extra={**summary, "qualifiers": dict(list(got["qualifiers"].items())[:500]),
                                    "dropped": got["dropped"], "null_values": got["null_values"],
                                    "time_series": series_n})

    def _peaks(self, site: str, station_id: str, start: Any, end: Any) -> pd.Series:
        from aquascope_core.data.peakfq_files import peak_series, read_peaks

        feats, accessed, url = self._items("peaks", {"monitoring_location_id": f"USGS-{site}", "parameter_code": "00060",
                                                     "limit": self.page_limit}, what=f"annual peaks at USGS-{site}")
        got = self._read(feats, site, "peak_discharge")
        fmt, unmapped = "ogcapi", sorted({q for *_, qs in got["water_years"] for q in qs})
        if got["water_years"]:
            record = {"site_no": site, "name": f"USGS {site}", "format": "ogcapi",
                      "peaks": [{"water_year": wy, "date": d or None, "value": v, "codes": "", "line": i + 1}
                                for i, (wy, d, v, _) in enumerate(sorted(got["water_years"]))]}
        else:  # the collection holds no discharge peak here: the NWIS peak file
            params = {"site_no": site, "agency_cd": "USGS", "format": "rdb"}
            no_peaks = (f"usgs_live: no data: no annual peak discharge at USGS-{site} (neither the USGS peaks "
                        "collection nor the NWIS peak file holds any")
            recovery = ("Check the gauge number (its page https://waterdata.usgs.gov/monitoring-location/USGS-"
                        f"{site}/ lists the data it has), choose another gauge nearby (aquascope assess <lat> <lon>), "
                        "or upload the gauge's peak file (WATSTORE or RDB) if you have it.")
            try:
                text, accessed = self.http.get_text(self.peak_file_url, params, what=f"NWIS peak file of {site}")
            except DataNotFoundError as exc:  # NWIS answers "No sites/data found ..." on a 4xx too
                raise DataNotFoundError(f"{no_peaks}; NWIS: {exc.message})", argument="station_id", value=station_id,
                                        recovery=recovery) from None
            url, fmt, unmapped = self.peak_file_url, "rdb", []
            if text.lstrip().startswith(NWIS_NO_DATA):
                raise DataNotFoundError(f"{no_peaks}; NWIS answered {text.strip()!r})", argument="station_id",
                                        value=station_id, recovery=recovery)
            if "#" not in text[:5] or "peak_va" not in text:
                raise DataNotFoundError(f"{no_peaks}; the NWIS answer is not a peak file: starts {text[:60]!r})",
                                        argument="station_id", value=station_id, recovery=recovery)
            stations = [r for r in read_peaks(text) if r["site_no"] == site]
            if not stations or not stations[0]["peaks"]:
                raise DataNotFoundError(f"usgs_live: the NWIS peak file of {site} holds no peak", argument="station_id",
                                        value=station_id)
            record = stations[0]
        nwis = {"citation": "U.S. Geological Survey, National Water Information System, annual peak streamflow "
                            "(peak file, RDB), https://nwis.waterdata.usgs.gov/nwis/peak (U.S. public domain).",
                "dataset": "USGS NWIS annual peak streamflow (RDB peak file)"} if fmt == "rdb" else {}
        prov = self.provenance(url, accessed, station_id=site, variable="peak_discharge", format=fmt, **nwis)
        s = peak_series(record, None, name=site, provenance=prov)
        attrs = dict(s.attrs)
        s = finish_series(s, variable="peak_discharge", unit="ft3/s", resolution="annual", source=self.name,
                          station_id=site, name=record.get("name") or f"USGS {site}", provenance=prov, start=start,
                          end=end, note=f"annual peaks as published by USGS ({fmt}); water years",
                          extra={k: attrs[k] for k in ("historical_years", "perception_thresholds", "regional_skew",
                                                        "regional_skew_sd", "peakfq")}
                          | {"qualifiers": got["qualifiers"], "qualifiers_not_applied": unmapped,
                             "dropped": got["dropped"], "peak_file": text if fmt == "rdb" else None})
        return s
