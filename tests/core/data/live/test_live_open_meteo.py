"""Open-Meteo ERA5 archive and GloFAS flood adapters: recorded flood API answers (end of file) and shapes from the docs."""

from __future__ import annotations

import pytest

from aquascope_core.data.live.open_meteo import GlofasLive, OpenMeteoEra5Live
from aquascope_core.errors import DataNotFoundError, InputError, SourceError
from live_mock import Script, malformed, ok, status, timeout_error


def _answer(var, unit, times, values):
    return {"latitude": 41.1, "longitude": -74.95, "generationtime_ms": 0.5, "utc_offset_seconds": 0,
            "timezone": "GMT", "timezone_abbreviation": "GMT", "elevation": 120.0,
            "daily_units": {"time": "iso8601", var: unit}, "daily": {"time": times, var: values}}


def test_era5_precipitation_success(make_source):
    script = Script(ok(_answer("precipitation_sum", "mm", ["2020-01-01", "2020-01-02", "2020-01-03"], [0.0, 12.4, None])))
    src = make_source(OpenMeteoEra5Live, script)
    s = src.fetch_series("era5:41.1000,-74.9600", "precipitation", start="2020-01-01", end="2020-01-03")
    assert s.tolist() == [0.0, 12.4] and s.attrs["unit"] == "mm/d" and s.attrs["gaps"]["n_missing"] == 0
    assert s.attrs["grid_lat"] == 41.1 and "ERA5" in s.attrs["provenance"]["citation"]
    p = script.requests[0].url.params
    assert (p["daily"], p["models"], p["start_date"], p["end_date"]) == ("precipitation_sum", "era5", "2020-01-01", "2020-01-03")


def test_point_row_needs_no_request_and_lists_model_variables(make_source):
    script = Script(ok({}))
    rows = make_source(OpenMeteoEra5Live, script).stations_near(41.1, -74.96)
    assert rows[0]["station_id"] == "era5:41.1000,-74.9600" and rows[0]["distance_km"] == 0.0
    assert {v["variable"] for v in rows[0]["variables"]} >= {"precipitation", "potential_evapotranspiration"}
    assert all(not v["offline"] and "model" in v["note"].lower() or "ERA5" in v["note"] for v in rows[0]["variables"])
    assert script.requests == []
    with pytest.raises(InputError):
        make_source(OpenMeteoEra5Live, script).describe_station("era5:95,0")


def test_glofas_discharge_success_and_unit_check(make_source):
    s = make_source(GlofasLive, Script(ok(_answer("river_discharge", "m³/s", ["2019-03-01", "2019-03-02"], [55.1, 60.3])))
                    ).fetch_series("glofas:41.1000,-74.9600", "discharge", start="2019-03-01", end="2019-03-02")
    assert s.tolist() == [55.1, 60.3] and s.attrs["unit"] == "m3/s" and "model" in s.attrs["note"]
    with pytest.raises(SourceError, match="expected m3/s"):
        make_source(GlofasLive, Script(ok(_answer("river_discharge", "ft³/s", ["2019-03-01"], [1.0])))
                    ).fetch_series("41.1,-74.96", "discharge", start="2019-03-01", end="2019-03-01")


def test_empty_answer(make_source):
    src = make_source(GlofasLive, Script(ok(_answer("river_discharge", "m³/s", ["1990-01-01"], [None]))))
    with pytest.raises(DataNotFoundError, match="no discharge"):
        src.fetch_series("41.1,-74.96", "discharge", start="1990-01-01", end="1990-01-01")


def test_bad_request_and_404(make_source):
    with pytest.raises(SourceError, match="Parameter 'daily' is invalid"):
        make_source(OpenMeteoEra5Live, Script(status(400, {"error": True, "reason": "Parameter 'daily' is invalid"}))
                    ).fetch_series("41.1,-74.96", "precipitation", start="2020-01-01", end="2020-01-02")
    with pytest.raises(DataNotFoundError):
        make_source(GlofasLive, Script(status(404))).fetch_series("41.1,-74.96", "discharge", start="2020-01-01",
                                                                  end="2020-01-02")


def test_500_then_success(make_source):
    script = Script(status(500), status(502), ok(_answer("temperature_2m_mean", "°C", ["2020-07-01"], [22.5])))
    src = make_source(OpenMeteoEra5Live, script)
    s = src.fetch_series("41.1,-74.96", "air_temperature", start="2020-07-01", end="2020-07-01")
    assert s.tolist() == [22.5] and s.attrs["unit"] == "degC" and src.sleeps == [1.0, 2.0]


def test_timeout_and_malformed_json(make_source):
    with pytest.raises(SourceError, match="timed out"):
        make_source(GlofasLive, Script(timeout_error()), retries=2).fetch_series("41.1,-74.96", "discharge",
                                                                               start="2020-01-01", end="2020-01-02")
    with pytest.raises(SourceError, match="malformed JSON"):
        make_source(OpenMeteoEra5Live, Script(malformed())).fetch_series("41.1,-74.96", "precipitation",
                                                                        start="2020-01-01", end="2020-01-02")
    with pytest.raises(SourceError, match="differ in length"):
        make_source(OpenMeteoEra5Live, Script(ok(_answer("precipitation_sum", "mm", ["2020-01-01"], [1.0, 2.0])))
                    ).fetch_series("41.1,-74.96", "precipitation", start="2020-01-01", end="2020-01-01")


# --- recorded answers (fixtures/README.md): the flood API's two-point answer and its 400 body

def test_glofas_recorded_answer_values_unit_and_grid_cell(make_source):
    from conftest import recorded

    script = Script(ok(recorded("open_meteo_flood_two_locations.json")))
    s = make_source(GlofasLive, script).fetch_series("glofas:27.6750,68.8750", "discharge", start="2026-10-08",
                                                    end="2026-10-14")
    assert s.tolist() == [3482.37, 3410.93, 3317.94, 3257.37, 3212.66, 3175.87, 3175.87]
    assert s.attrs["unit"] == "m3/s" and s.index[0] == __import__("pandas").Timestamp("2026-10-08")
    assert (s.attrs["grid_lat"], s.attrs["grid_lon"]) == (27.675003, 68.875015)  # the snapped cell, not the point
    p = script.requests[0].url.params
    assert (p["daily"], p["timezone"]) == ("river_discharge", "GMT")


def test_recorded_400_body_is_the_message(make_source):
    from conftest import recorded

    body = recorded("open_meteo_400_invalid_variable.json")
    with pytest.raises(SourceError, match="Cannot initialize WeatherVariable from invalid String value river_discharge"):
        make_source(GlofasLive, Script(status(400, body))).fetch_series("27.675,68.875", "discharge",
                                                                       start="2026-10-08", end="2026-10-09")


def test_era5_reads_the_same_envelope_and_refuses_a_wrong_unit(make_source):
    """No recorded archive answer was found (README): the flood API's recorded envelope, renamed, is read the same."""
    from conftest import recorded

    body = recorded("open_meteo_flood_two_locations.json")[0]
    body["daily_units"] = {"time": "iso8601", "precipitation_sum": body["daily_units"]["river_discharge"]}
    body["daily"] = {"time": body["daily"]["time"], "precipitation_sum": body["daily"]["river_discharge"]}
    with pytest.raises(SourceError, match="came in 'm³/s', expected mm/d"):
        make_source(OpenMeteoEra5Live, Script(ok(body))).fetch_series("27.675,68.875", "precipitation",
                                                                      start="2026-10-08", end="2026-10-14")
