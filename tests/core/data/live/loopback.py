"""A real HTTP server on 127.0.0.1 standing in for the USGS services, with their paths and query strings.

- ``/ogcapi/v1/collections/monitoring-locations/items?bbox=..&site_type_code=ST&limit=..&f=json`` and
  ``/ogcapi/v1/collections/monitoring-locations/items?id=USGS-<site>&f=json``: the stand-in gauges, each a feature
  with the recorded answer's property names (fixtures/usgs_ogc_monitoring_locations_ct.json), its place, name,
  state, HUC and drainage area from the embedded USGS catalogue;
- ``/ogcapi/v1/collections/daily/items?monitoring_location_id=USGS-<site>&parameter_code=00060&statistic_id=00003
  [&datetime=<lo>/<hi>]&limit=<n>&f=json`` (the period as the recorded requests send it; ``time``, which the
  service's documentation also lists, is answered alike, and both at once is refused): pages of the recorded
  ``daily`` envelope (property names, ``ft^3/s`` text values, ``next`` links with a ``cursor``) holding the
  embedded real daily record of Flat Brook (01440000), the last 365 days marked ``Provisional`` (the scenario
  fixtures/README.md describes);
- ``/ogcapi/v1/collections/peaks/items?...``: the recorded peaks answer of 02238500; for other sites (and the
  daily collection's other sites) the recorded empty answer;
- ``/nwis/peak?site_no=<site>&agency_cd=USGS&format=rdb``: the recorded RDB peak file of 01594440 as sent; for
  other sites NWISWeb's "No sites/data found" answer.

A request whose query differs from the service's (a missing or different parameter, a daily ``limit`` outside the
1..10000 the service's recorded OpenAPI document allows) gets HTTP 400, so the tests prove the adapters send what
the real service expects. ``requests`` logs every path and query.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import pandas as pd

FIXTURES = Path(__file__).parent / "fixtures"
EMPTY = "usgs_ogc_v1_daily_02196000_ended_series_empty.json"  # the service's empty answer, recorded
M3S_TO_CFS = 1.0 / 0.028316846592
DAILY_SITE, PEAK_SITE, OGC_PEAK_SITE = "01440000", "01594440", "02238500"
DAILY_FROM = "1990-10-01"


def _cfs(v: float) -> str:
    return (f"{v * M3S_TO_CFS:.2f}").rstrip("0").rstrip(".")


def _site_feature(site: str) -> dict[str, Any]:
    from aquascope_core.data import store

    rec = store.usgs_catalogue().loc[site]
    template = json.loads((FIXTURES / "usgs_ogc_monitoring_locations_ct.json").read_text())["features"][0]
    props = {k: None for k in template["properties"]}
    props.update({"agency_code": "USGS", "agency_name": "U.S. Geological Survey", "id": f"USGS-{site}",
                  "monitoring_location_number": site, "monitoring_location_name": str(rec["site_name"]).upper(),
                  "site_type": "Stream", "site_type_code": "ST", "state_name": None,
                  "hydrologic_unit_code": str(rec["huc8"]), "drainage_area": float(rec["drainage_area_sqmi"]),
                  "country_code": "US", "country_name": "United States of America"})
    return {"type": "Feature", "id": f"USGS-{site}", "properties": props,
            "geometry": {"type": "Point", "coordinates": [float(rec["longitude"]), float(rec["latitude"])]}}


class StandIn:
    """The stand-in service; ``url`` is its root (``http://127.0.0.1:<port>``)."""

    def __init__(self) -> None:
        from aquascope_core.data import store

        q = store.delaware_daily()[DAILY_SITE].dropna()
        q = q[q.index >= DAILY_FROM]
        last = q.index[-1] - pd.Timedelta(days=364)
        self.daily = [(d.date().isoformat(), _cfs(v), "Provisional" if d >= last else "Approved") for d, v in q.items()]
        self.sites = {s: _site_feature(s) for s in (DAILY_SITE, PEAK_SITE)}
        self.requests: list[str] = []
        self.page_size: int | None = None  # the server's own cap on a page, below the client's limit
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:  # noqa: N802
                outer.requests.append(self.path)
                status, ctype, body = outer.answer(self.path)
                data = body.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "StandIn":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    # -- the service

    @staticmethod
    def _need(q: dict[str, str], **want: str) -> str | None:
        for k, v in want.items():
            if q.get(k) != v:
                return f"{k}={q.get(k)!r}, expected {v!r}"
        return None

    def _fc(self, feats: list[dict[str, Any]], links: list[dict[str, Any]] | None = None) -> str:
        return json.dumps({"type": "FeatureCollection", "features": feats, "numberReturned": len(feats),
                           "links": links or [], "timeStamp": "2026-12-01T00:00:00Z"})

    def answer(self, raw: str) -> tuple[int, str, str]:
        u = urlparse(raw)
        q = {k: v[0] for k, v in parse_qs(u.query, keep_blank_values=True).items()}
        geo, js = "application/geo+json", "application/json"
        base = "/ogcapi/v1/collections/"
        if u.path == base + "monitoring-locations/items" and "id" in q:  # one location, asked by id
            site = q["id"].removeprefix("USGS-")
            if q.get("f") != "json":
                return 400, js, json.dumps({"code": "InvalidParameterValue", "description": "f"})
            return 200, geo, self._fc([self.sites[site]]) if site in self.sites else (FIXTURES / EMPTY).read_text()
        if u.path == base + "monitoring-locations/items":
            bad = self._need(q, site_type_code="ST", f="json")
            if bad or "bbox" not in q or "limit" not in q:
                return 400, js, json.dumps({"code": "InvalidParameterValue", "description": bad or "bbox and limit"})
            x0, y0, x1, y1 = (float(x) for x in q["bbox"].split(","))
            feats = [f for f in self.sites.values()
                     if x0 <= f["geometry"]["coordinates"][0] <= x1 and y0 <= f["geometry"]["coordinates"][1] <= y1]
            return 200, geo, self._fc(feats)
        if u.path == base + "daily/items":
            return self._daily(q)
        if u.path == base + "peaks/items":
            bad = self._need(q, parameter_code="00060", f="json")
            if bad or "limit" not in q:
                return 400, js, json.dumps({"code": "InvalidParameterValue", "description": bad or "limit"})
            if q.get("monitoring_location_id") == f"USGS-{OGC_PEAK_SITE}":
                return 200, geo, (FIXTURES / "usgs_ogc_peaks_02238500.json").read_text()
            return 200, geo, (FIXTURES / EMPTY).read_text()  # the recorded empty answer
        if u.path == "/nwis/peak":
            bad = self._need(q, agency_cd="USGS", format="rdb")
            if bad:
                return 400, "text/plain", bad
            if q.get("site_no") == PEAK_SITE:
                return 200, "text/plain", (FIXTURES / "nwis_peaks_01594440.rdb").read_text()
            return 200, "text/plain", (FIXTURES / "nwis_no_sites_data_found.txt").read_text()  # NWISWeb's "no data"
        return 404, js, ""

    def _daily(self, q: dict[str, str]) -> tuple[int, str, str]:
        js = "application/json"
        bad = self._need(q, parameter_code="00060", statistic_id="00003", f="json")
        if bad or "limit" not in q or "monitoring_location_id" not in q or ("datetime" in q and "time" in q):
            return 400, js, json.dumps({"code": "InvalidParameterValue",
                                        "description": bad or "limit, location, one of datetime and time"})
        if not q["limit"].isdigit() or not 1 <= int(q["limit"]) <= 10000:  # the service's OpenAPI: 1..10000
            return 400, js, json.dumps({"code": "InvalidParameterValue", "description": "limit"})
        if q["monitoring_location_id"] != f"USGS-{DAILY_SITE}":
            return 200, "application/geo+json", (FIXTURES / EMPTY).read_text()
        lo, hi = (q.get("datetime") or q.get("time") or "../..").split("/")
        rows = [r for r in self.daily if (lo == ".." or r[0] >= lo) and (hi == ".." or r[0] <= hi)]
        size = min(int(q["limit"]), self.page_size or 10**9)
        start = int(q.get("cursor") or 0)
        page = rows[start:start + size]
        coords = self.sites[DAILY_SITE]["geometry"]
        feats = [{"type": "Feature", "id": f"d-{DAILY_SITE}-{t}", "geometry": coords,
                  "properties": {"approval_status": st, "last_modified": "2026-07-30T15:43:16.002990+00:00",
                                 "monitoring_location_id": f"USGS-{DAILY_SITE}", "parameter_code": "00060",
                                 "qualifier": None, "statistic_id": "00003", "time": t,
                                 "time_series_id": "stand-in", "unit_of_measure": "ft^3/s", "value": v}}
                 for t, v, st in page]
        links = []
        if start + size < len(rows):
            # as the service writes its next link (fixtures/usgs_ogc_v1_daily_02196000_limit5_page1.json): the
            # cursor first, then the query as asked with ``f`` last
            rest = {k: v for k, v in q.items() if k not in ("cursor", "f")}
            nq = {"cursor": str(start + size)} | rest | {"f": q["f"]}
            links.append({"rel": "next", "type": "application/geo+json", "title": "Items (next)",
                          "href": f"{self.url}/ogcapi/v1/collections/daily/items?{urlencode(nq)}"})
        return 200, "application/geo+json", self._fc(feats, links)
