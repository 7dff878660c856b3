"""Environment Agency hydrology adapter.

No recorded answer of the stations or readings endpoints was found (fixtures/README.md): the shapes in
``_station`` and ``_readings`` follow the service's reference documentation and do not count as recorded.
The one piece taken from the service's own output is a measure item (the last test): the daily mean flow
measure of station 052d0819-... (Ulting Sarasota), which fixes the measure the adapter reads and its unit.
"""

from __future__ import annotations

import pytest

from aquascope_core.data.live.ea import EaHydrologyLive
from aquascope_core.errors import DataNotFoundError, SourceError
from live_mock import Script, malformed, ok, status, timeout_error

GUID = "052d0819-2a32-47df-9b99-c243c9c8235b"


def _station(guid, label, lat, lon, area):
    return {"@id": f"http://environment.data.gov.uk/hydrology/id/stations/{guid}", "label": label, "notation": guid,
            "stationGuid": guid, "wiskiID": "SS92F014", "lat": lat, "long": lon, "catchmentArea": area,
            "riverName": "River Dart", "dateOpened": "1958-10-01",
            "measures": [{"@id": f"http://environment.data.gov.uk/hydrology/id/measures/{guid}-flow-m-86400-m3s-qualified",
                          "parameter": "flow", "period": 86400, "unitName": "m3/s"}]}


def _readings(rows):
    return {"meta": {"publisher": "Environment Agency", "licence": "http://www.nationalarchives.gov.uk/doc/open-government-licence/version/3/"},
            "items": [{"measure": {"@id": f"http://environment.data.gov.uk/hydrology/id/measures/{GUID}-flow-m-86400-m3s-qualified"},
                       "date": d, "dateTime": f"{d}T00:00:00", "value": v, "quality": q, "completeness": "Complete"}
                      for d, v, q in rows]}


def test_daily_flow_success_with_quality_flags_and_a_missing_day(make_source):
    script = Script(ok(_readings([("2020-01-01", 4.2, "Good"), ("2020-01-02", None, "Missing"),
                                  ("2020-01-03", 5.0, "Estimated"), ("2020-01-04", 6.5, "Good")])))
    s = make_source(EaHydrologyLive, script).fetch_series(GUID, "discharge", start="2020-01-01", end="2020-01-04")
    assert s.tolist() == [4.2, 5.0, 6.5] and s.attrs["unit"] == "m3/s" and s.attrs["gaps"]["n_missing"] == 1
    assert s.attrs["quality"] == {"Good": 2, "Missing": 1, "Estimated": 1}
    req = script.requests[0]
    assert req.url.path.endswith(f"/id/measures/{GUID}-flow-m-86400-m3s-qualified/readings.json")
    assert (req.url.params["mineq-date"], req.url.params["maxeq-date"]) == ("2020-01-01", "2020-01-04")


def test_stations_near(make_source):
    body = {"items": [_station(GUID, "Austins Bridge", 50.4781, -3.7640, 248.0),
                      _station("other", "Far Away", 51.5, -0.1, 10.0)]}
    script = Script(ok(body))
    rows = make_source(EaHydrologyLive, script).stations_near(50.48, -3.77, radius_km=10.0)
    assert [r["station_id"] for r in rows] == [GUID] and rows[0]["area_km2"] == 248.0
    p = script.requests[0].url.params
    assert (p["observedProperty"], p["dist"]) == ("waterFlow", "10")


def test_empty_answer_and_unknown_station(make_source):
    src = make_source(EaHydrologyLive, Script(ok({"items": []})))
    with pytest.raises(DataNotFoundError, match="no daily mean flow"):
        src.fetch_series(GUID, "discharge")
    with pytest.raises(DataNotFoundError, match="no station"):
        src.describe_station(GUID)
    with pytest.raises(DataNotFoundError, match="not found"):
        make_source(EaHydrologyLive, Script(status(404))).describe_station("no-such-station")


def test_500_then_success(make_source):
    script = Script(status(500), ok({"items": [_station(GUID, "Austins Bridge", 50.4781, -3.7640, 248.0)]}))
    d = make_source(EaHydrologyLive, script).describe_station(GUID)
    assert d["name"] == "Austins Bridge" and d["attributes"]["riverName"] == "River Dart" and len(script.requests) == 2


def test_timeout_and_malformed_json(make_source):
    with pytest.raises(SourceError, match="timed out"):
        make_source(EaHydrologyLive, Script(timeout_error()), retries=0).fetch_series(GUID, "discharge")
    with pytest.raises(SourceError, match="malformed JSON"):
        make_source(EaHydrologyLive, Script(malformed())).stations_near(50.5, -3.8)
    with pytest.raises(SourceError, match="no 'items' list"):
        make_source(EaHydrologyLive, Script(ok({"meta": {}}))).fetch_series(GUID, "discharge")


def test_the_measure_read_is_the_daily_mean_flow_measure_the_service_lists(make_source):
    """The measure item as the service lists it (fixtures/README.md: copied from the service's output by a
    public project, not stated as recorded): its notation is the path the adapter reads, its unit the one it
    labels, and it is the qualified daily mean."""
    from conftest import recorded

    item = recorded("ea_hydrology_measure_052d0819_daily_mean_flow_item.json")
    assert (item["periodName"], item["valueType"], item["period"], item["observationType"]["label"]) == (
        "daily", "mean", 86400, "Qualified")
    sid = item["station"]["@id"].rsplit("/", 1)[-1]
    script = Script(ok({"items": []}))
    with pytest.raises(DataNotFoundError):
        make_source(EaHydrologyLive, script).fetch_series(sid, "discharge", start="2020-01-01", end="2020-01-31")
    assert script.requests[0].url.path == f"/hydrology/id/measures/{item['notation']}/readings.json"
    assert str(script.requests[0].url).split("?")[0] == item["@id"].replace("http://", "https://") + "/readings.json"
    rows = make_source(EaHydrologyLive, Script(ok({"items": [_station(sid, "Ulting Sarasota", 51.7467, 0.6, 10.0)]}))
                       ).stations_near(51.75, 0.6, radius_km=5.0)
    assert rows[0]["variables"][0]["unit"] == item["unitName"]
