"""Open-Meteo ERA5 archive and GloFAS flood adapters.

Recorded answers of both services (fixtures/README.md) at the end of the file; the tests above them use
the same envelope with the values a case needs (retries, gaps, a lists-of-different-length answer).
"""

from __future__ import annotations

import re

import httpx
import pytest

from aquascope_core.data.live.open_meteo import GlofasLive, OpenMeteoEra5Live
from aquascope_core.errors import DataNotFoundError, InputError, SourceError
from live_mock import Script, malformed, ok, status, timeout_error


def _answer(var, unit, times, values):
    """The recorded archive envelope (fixtures/open_meteo_era5_archive_bergen_mean.json) carrying one case's values."""
    from recorded_answers import recorded

    body = recorded("open_meteo_era5_archive_bergen_mean.json")
    body["daily_units"] = {"time": "iso8601", var: unit}
    body["daily"] = {"time": times, var: values}
    return body


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
    with pytest.raises(DataNotFoundError, match=r"no data: no discharge at 41.1000, -74.9600 from 1990-01-01 to "
                                                r"1990-01-01 \(the service answered 1 day\(s\), every value null\)") as err:
        src.fetch_series("41.1,-74.96", "discharge", start="1990-01-01", end="1990-01-01")
    assert "Ask for days the service covers (1984-01-01 to " in err.value.recovery


def test_404_is_data_not_found(make_source):
    """The service's 400 bodies are recorded (test_era5_archive_recorded_400s_...); a 404 body is not, so the
    transport's placeholder is served and only the status is read."""
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
    from recorded_answers import recorded

    script = Script(ok(recorded("open_meteo_flood_two_locations.json")))
    s = make_source(GlofasLive, script).fetch_series("glofas:27.6750,68.8750", "discharge", start="2026-10-08",
                                                    end="2026-10-14")
    assert s.tolist() == [3482.37, 3410.93, 3317.94, 3257.37, 3212.66, 3175.87, 3175.87]
    assert s.attrs["unit"] == "m3/s" and s.index[0] == __import__("pandas").Timestamp("2026-10-08")
    assert (s.attrs["grid_lat"], s.attrs["grid_lon"]) == (27.675003, 68.875015)  # the snapped cell, not the point
    p = script.requests[0].url.params
    assert (p["daily"], p["timezone"]) == ("river_discharge", "GMT")


def test_recorded_400_body_is_the_message(make_source):
    from recorded_answers import recorded

    body = recorded("open_meteo_400_invalid_variable.json")
    with pytest.raises(SourceError, match="Cannot initialize WeatherVariable from invalid String value river_discharge"):
        make_source(GlofasLive, Script(status(400, body))).fetch_series("27.675,68.875", "discharge",
                                                                       start="2026-10-08", end="2026-10-09")


# --- recorded ERA5 archive answers (fixtures/README.md): Bergen, 2025-01-15..17, models=era5, timezone GMT

def _era5_recorded(make_source, name, variable, start="2025-01-15", end="2025-01-17"):
    from recorded_answers import recorded

    script = Script(ok(recorded(name)))
    s = make_source(OpenMeteoEra5Live, script).fetch_series("era5:60.3900,5.3200", variable, start=start, end=end)
    return s, script.requests[0]


def test_era5_recorded_precipitation_values_unit_days_and_grid_cell(make_source):
    s, req = _era5_recorded(make_source, "open_meteo_era5_archive_bergen_max_min_precip.json", "precipitation")
    assert s.tolist() == [13.2, 5.6, 4.0] and s.attrs["unit"] == "mm/d"
    assert list(s.index) == list(__import__("pandas").date_range("2025-01-15", "2025-01-17")) and s.index.tz is None
    # the archive answers for its grid cell (60.5, 5.25; 17 m), not the point asked (60.39, 5.32)
    assert (s.attrs["grid_lat"], s.attrs["grid_lon"], s.attrs["grid_elevation_m"]) == (60.5, 5.25, 17.0)
    assert s.attrs["provenance"]["grid_lat"] == 60.5 and "ERA5" in s.attrs["provenance"]["citation"]
    p = req.url.params  # the recorded request: start_date, end_date, models=era5 (and the variable asked)
    assert (p["start_date"], p["end_date"], p["models"], p["timezone"]) == ("2025-01-15", "2025-01-17", "era5", "GMT")
    assert req.url.path == "/v1/archive" and req.url.host == "archive-api.open-meteo.com"


def test_era5_recorded_temperatures_in_degc(make_source):
    tmax, _ = _era5_recorded(make_source, "open_meteo_era5_archive_bergen_max_min_precip.json", "air_temperature_max")
    tmin, _ = _era5_recorded(make_source, "open_meteo_era5_archive_bergen_max_min_precip.json", "air_temperature_min")
    tmean, req = _era5_recorded(make_source, "open_meteo_era5_archive_bergen_mean.json", "air_temperature")
    assert tmax.tolist() == [8.3, 8.2, 8.9] and tmin.tolist() == [6.9, 7.6, 6.4] and tmean.tolist() == [7.8, 8.0, 8.0]
    assert {tmax.attrs["unit"], tmin.attrs["unit"], tmean.attrs["unit"]} == {"degC"}
    assert req.url.params["daily"] == "temperature_2m_mean"


def test_era5_recorded_fahrenheit_answer_is_refused_not_misread(make_source):
    with pytest.raises(SourceError, match="came in '°F', expected degC"):
        _era5_recorded(make_source, "open_meteo_era5_archive_bergen_mean_fahrenheit.json", "air_temperature")


def test_era5_recorded_envelope_with_a_shifted_day_or_unix_times_is_refused(make_source):
    """The recorded envelope with one field changed: days in another time zone, or times as unix seconds."""
    from recorded_answers import recorded

    shifted = recorded("open_meteo_era5_archive_bergen_mean.json")
    shifted.update(utc_offset_seconds=3600, timezone="Europe/Oslo", timezone_abbreviation="GMT+1")
    with pytest.raises(SourceError, match="not the GMT days asked for"):
        make_source(OpenMeteoEra5Live, Script(ok(shifted))).fetch_series("60.39,5.32", "air_temperature",
                                                                         start="2025-01-15", end="2025-01-17")
    unix = recorded("open_meteo_era5_archive_bergen_mean.json")
    unix["daily_units"]["time"] = "unixtime"
    unix["daily"]["time"] = [1736899200, 1736985600, 1737072000]
    with pytest.raises(SourceError, match="expected iso8601"):
        make_source(OpenMeteoEra5Live, Script(ok(unix))).fetch_series("60.39,5.32", "air_temperature",
                                                                      start="2025-01-15", end="2025-01-17")


def test_era5_recorded_answer_in_local_days_is_refused(make_source):
    """A recorded archive answer asked with ``timezone=Europe/London`` (fixtures/README.md): its December days
    come with ``utc_offset_seconds`` 3600 and "GMT+1", the offset at the time it was asked (September), not
    the days' own (GMT in winter); so an answer in a local zone cannot say where each day starts, and the
    adapter, which asks GMT days, refuses it rather than reading local days as GMT ones."""
    from recorded_answers import recorded

    body = recorded("open_meteo_archive_warleigh_europe_london_precip.json")
    assert body["daily"]["time"][0] == "2020-12-20" and body["utc_offset_seconds"] == 3600
    script = Script(ok(body))
    with pytest.raises(SourceError, match="'Europe/London' \\(UTC offset 3600 s\\), not the GMT days asked for"):
        make_source(OpenMeteoEra5Live, script).fetch_series("era5:51.3771,-2.3006", "precipitation",
                                                           start="2020-12-20", end="2021-01-02")
    assert script.requests[0].url.params["timezone"] == "GMT"


# Open-Meteo's 429 bodies as the archive sent them, byte for byte (fixtures/README.md: 94 and 95 bytes, the sizes
# their recorder measured). Whether the service also sends Retry-After was not found recorded: one case each.
def _rate_limited(which: str = "minutely", **headers: str) -> httpx.Response:
    from recorded_answers import FIXTURES

    raw = (FIXTURES / f"open_meteo_archive_429_{which}.json").read_bytes()
    return httpx.Response(429, content=raw, headers={"Content-Type": "application/json", **headers})


def test_429_with_and_without_retry_after_then_the_recorded_answer(make_source):
    from recorded_answers import recorded

    answer = recorded("open_meteo_era5_archive_bergen_max_min_precip.json")
    script = Script(_rate_limited(**{"Retry-After": "60"}), _rate_limited(), ok(answer))
    src = make_source(OpenMeteoEra5Live, script)
    s = src.fetch_series("era5:60.3900,5.3200", "precipitation", start="2025-01-15", end="2025-01-17")
    assert s.tolist() == [13.2, 5.6, 4.0] and src.sleeps == [60.0, 2.0] and len(script.requests) == 3


def test_persistent_429_says_what_the_service_said(make_source):
    for which, said in (("minutely", "Minutely API request limit exceeded. Please try again in one minute."),
                        ("hourly", "Hourly API request limit exceeded. Please try again in the next hour.")):
        src = make_source(OpenMeteoEra5Live, Script(_rate_limited(which)), retries=1, use_cache=False)
        with pytest.raises(SourceError, match=re.escape(f"failed after 2 attempt(s): HTTP 429 ({said})")) as err:
            src.fetch_series("era5:60.3900,5.3200", "precipitation", start="2025-01-15", end="2025-01-17")
        assert "aquascope data" in err.value.recovery


# --- the ERA5 archive's own 400 bodies (fixtures/README.md): an unknown daily variable (open-meteo/open-meteo
# issue #400) and a start date before the archive's first day (102 bytes, the size its recorder measured)

def test_era5_archive_recorded_400s_name_the_problem_and_the_fix(make_source):
    from recorded_answers import recorded

    cases = [("open_meteo_archive_400_unknown_daily_variable.json", "1990-01-01",
              "Cannot initialize Era5DailyWeatherVariable from invalid String value showers_sum for key"),
             ("open_meteo_archive_400_start_date_out_of_range.json", "1939-01-01",
              "Parameter 'start_date' is out of allowed range from 1940-01-01 to 2026-07-27")]
    for name, start, reason in cases:
        script = Script(status(400, recorded(name)))
        src = make_source(OpenMeteoEra5Live, script, retries=3)
        with pytest.raises(SourceError, match=re.escape(f"refused with HTTP 400: {reason}")) as err:
            src.fetch_series("era5:60.3900,5.3200", "precipitation", start=start, end="1990-01-31")
        assert len(script.requests) == 1 and src.sleeps == []  # a refusal is not retried
        q = script.requests[0].url
        assert q.host == "archive-api.open-meteo.com" and q.path == "/v1/archive" and q.params["start_date"] == start
        assert "(request: https://archive-api.open-meteo.com/v1/archive?" in str(err.value)
        assert "a date outside its range" in err.value.recovery


#: the request of open-meteo/open-meteo issue #2122, whose answer's daily block is the fixture below
NULL_DAY_ASKED = ("https://archive-api.open-meteo.com/v1/archive?latitude=60.25&longitude=11.00&start_date=2026-08-30"
                  "&end_date=2026-08-30&daily=temperature_2m_max,temperature_2m_min,temperature_2m_mean,"
                  "soil_temperature_0_to_7cm_mean&models=era5_land&timezone=GMT")


def test_era5_recorded_day_listed_with_null_values_is_no_data_not_zero(make_source):
    """The archive's answer for a day it lists but holds no value for (2026-08-30, ERA5-Land; the daily block as
    quoted in open-meteo/open-meteo issue #2122, envelope not quoted): a "no data" naming the day count and the
    nulls, never a 0 or a silent empty series. The adapter's request has the recorded request's parameter names."""
    from recorded_answers import recorded

    script = Script(ok(recorded("open_meteo_era5_land_archive_2026-08-30_null_day_daily_block.json")))
    with pytest.raises(DataNotFoundError, match=r"no data: no air_temperature at 60\.2500, 11\.0000 from 2026-08-30 "
                                                r"to 2026-08-30 \(the service answered 1 day\(s\), every value null\)"):
        make_source(OpenMeteoEra5Live, script).fetch_series("era5:60.25,11.0", "air_temperature",
                                                            start="2026-08-30", end="2026-08-30")
    sent, asked = script.requests[0].url, httpx.URL(NULL_DAY_ASKED)
    assert (sent.host, sent.path) == (asked.host, asked.path)
    assert set(sent.params) == set(asked.params)  # latitude, longitude, start/end_date, daily, models, timezone
    for k in ("start_date", "end_date", "timezone"):
        assert sent.params[k] == asked.params[k]
    assert float(sent.params["latitude"]) == 60.25 and float(sent.params["longitude"]) == 11.0
    assert sent.params["daily"] in asked.params["daily"].split(",") and sent.params["models"] == "era5"
