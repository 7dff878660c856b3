"""USGS Water Data OGC API adapter against answers in the service's GeoJSON format."""

from __future__ import annotations

import pandas as pd
import pytest

from aquascope_core.data.live.usgs import UsgsLive
from aquascope_core.errors import DataNotFoundError, SourceError
from live_mock import Script, malformed, ok, status, timeout_error


def _daily(values, next_href=None):
    feats = [{"type": "Feature", "id": f"d{i}", "geometry": {"type": "Point", "coordinates": [-74.9525, 41.106111]},
              "properties": {"time_series_id": "ts1", "monitoring_location_id": "USGS-01440000", "parameter_code": "00060",
                             "statistic_id": "00003", "time": t, "value": v, "unit_of_measure": "ft^3/s",
                             "approval_status": "Approved", "qualifier": None}} for i, (t, v) in enumerate(values)]
    links = [{"rel": "next", "href": next_href}] if next_href else []
    return {"type": "FeatureCollection", "features": feats, "numberReturned": len(feats), "links": links}


def _site(site, name, lon, lat, area):
    return {"type": "Feature", "id": f"USGS-{site}", "geometry": {"type": "Point", "coordinates": [lon, lat]},
            "properties": {"monitoring_location_number": site, "monitoring_location_name": name, "agency_code": "USGS",
                           "state_name": "New Jersey", "hydrologic_unit_code": "020401040504", "drainage_area": area,
                           "site_type": "Stream", "site_type_code": "ST"}}


def test_daily_discharge_success_follows_pages(make_source):
    page2 = "https://api.waterdata.usgs.gov/ogcapi/v0/collections/daily/items?offset=2"
    script = Script(ok(_daily([("2020-01-01", "157"), ("2020-01-02", "160")], next_href=page2)),
                    ok(_daily([("2020-01-04", "171")])))
    src = make_source(UsgsLive, script)
    s = src.fetch_series("01440000", "discharge", start="2020-01-01", end="2020-01-31")
    assert s.tolist() == [157.0, 160.0, 171.0] and s.attrs["unit"] == "ft3/s"
    assert s.attrs["gaps"]["n_missing"] == 1 and s.attrs["approval_status"] == {"Approved": 3}
    q = script.requests[0].url.params
    assert (q["monitoring_location_id"], q["parameter_code"], q["statistic_id"], q["time"]) == \
        ("USGS-01440000", "00060", "00003", "2020-01-01/2020-01-31")
    assert s.attrs["provenance"]["accessed"] and s.attrs["provenance"]["name"] == "usgs_live"


def test_peaks_indexed_by_water_year(make_source):
    feats = [{"type": "Feature", "properties": {"water_year": "1955", "time": "1955-08-19", "value": "14200",
                                                "unit_of_measure": "ft^3/s", "qualifier": None}},
             {"type": "Feature", "properties": {"water_year": "1956", "time": None, "value": "3210",
                                                "unit_of_measure": "ft^3/s", "qualifier": "6"}}]
    src = make_source(UsgsLive, Script(ok({"type": "FeatureCollection", "features": feats, "links": []})))
    s = src.fetch_series("USGS-01440000", "peak_discharge")
    assert s.index.tolist() == [pd.Timestamp("1955-01-01"), pd.Timestamp("1956-01-01")] and s.iloc[0] == 14200.0
    assert s.attrs["resolution"] == "annual" and s.attrs["qualifiers"] == {"1956-01-01": "6"}


def test_stations_near_from_monitoring_locations(make_source):
    body = {"type": "FeatureCollection", "links": [], "features": [
        _site("01440000", "FLAT BROOK NEAR FLATBROOKVILLE, NJ", -74.9525, 41.106111, 64.0),
        _site("01439500", "BUSH KILL AT SHOEMAKERS, PA", -75.0377, 41.0882, 117.0),
        _site("01463500", "DELAWARE RIVER AT TRENTON NJ", -74.778, 40.2217, 6780.0)]}  # outside 50 km
    script = Script(ok(body))
    rows = make_source(UsgsLive, script).stations_near(41.10, -74.96)
    assert [r["station_id"] for r in rows] == ["01440000", "01439500"]
    assert rows[0]["distance_km"] == pytest.approx(0.93, abs=0.01) and rows[0]["area_km2"] == pytest.approx(165.8, abs=0.1)
    assert all(v["offline"] is False and v["live"] == "usgs_live" for v in rows[0]["variables"])
    assert script.requests[0].url.params["site_type_code"] == "ST" and "bbox" in script.requests[0].url.params


def test_empty_answer_is_data_not_found(make_source):
    src = make_source(UsgsLive, Script(ok({"type": "FeatureCollection", "features": [], "links": []})))
    with pytest.raises(DataNotFoundError, match="no discharge at USGS-01440000"):
        src.fetch_series("01440000", "discharge", start="1800-01-01", end="1800-12-31")
    assert src.stations_near(30.0, -40.0) == []


def test_unknown_station_404(make_source):
    src = make_source(UsgsLive, Script(status(404, {"code": "NotFound", "description": "not found"})))
    with pytest.raises(DataNotFoundError, match="not found"):
        src.describe_station("99999999")


def test_500_then_success(make_source):
    script = Script(status(500), ok(_site("01440000", "FLAT BROOK NEAR FLATBROOKVILLE, NJ", -74.9525, 41.106111, 64.0)))
    src = make_source(UsgsLive, script)
    d = src.describe_station("01440000")
    assert d["name"] == "FLAT BROOK NEAR FLATBROOKVILLE, NJ" and d["huc8"] == "02040104" and len(script.requests) == 2
    assert src.sleeps == [1.0]


def test_timeout_and_malformed_json_raise_source_error(make_source):
    with pytest.raises(SourceError, match="timed out"):
        make_source(UsgsLive, Script(timeout_error()), retries=1).fetch_series("01440000", "discharge")
    with pytest.raises(SourceError, match="malformed JSON"):
        make_source(UsgsLive, Script(malformed())).fetch_series("01440000", "peak_discharge")
    with pytest.raises(SourceError, match="not a GeoJSON FeatureCollection"):
        make_source(UsgsLive, Script(ok({"features": "nope"}))).fetch_series("01440000", "discharge")
    with pytest.raises(SourceError, match="not a number"):
        make_source(UsgsLive, Script(ok(_daily([("2020-01-01", "Ice")])))).fetch_series("01440000", "discharge")
