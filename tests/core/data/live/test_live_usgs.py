"""USGS Water Data OGC API adapter on answers the service really sent (fixtures/README.md names each source)."""

from __future__ import annotations

import copy

import httpx
import pandas as pd
import pytest

from aquascope_core.data.live.usgs import UsgsLive
from aquascope_core.errors import DataNotFoundError, SourceError
from recorded_answers import recorded
from live_mock import Script, malformed, ok, timeout_error

EMPTY = "usgs_ogc_v1_daily_02196000_ended_series_empty.json"  # an empty answer recorded byte for byte
RATE_LIMIT = {"error": {"code": "OVER_RATE_LIMIT", "message": recorded("usgs_429_rate_limit.txt").strip()}}


def test_daily_values_units_dates_and_provisional_status_per_value(make_source):
    script = Script(ok(recorded("usgs_ogc_daily_05427718.json")))
    s = make_source(UsgsLive, script).fetch_series("05427718", "discharge", start="2025-10-01", end="2026-09-30")
    assert s.tolist() == [20.2, 27.1] and s.attrs["unit"] == "ft3/s"
    # the service's days are the gauge's calendar days: no time zone, no shift
    assert s.index.tolist() == [pd.Timestamp("2025-12-26"), pd.Timestamp("2026-03-19")] and s.index.tz is None
    assert s.attrs["approval_status"] == {"Provisional": 2}
    assert s.attrs["approval_runs"] == [["2025-12-26", "2026-03-19", "Provisional"]]
    assert s.attrs["provisional"] == {"n": 2, "first": "2025-12-26", "last": "2026-03-19"}
    assert "provisional data, subject to revision" in s.attrs["note"]
    assert s.attrs["provenance"]["provisional"] == 2 and s.attrs["provenance"]["accessed"].endswith("Z")
    q = script.requests[0].url
    assert q.path == "/ogcapi/v1/collections/daily/items"
    assert (q.params["monitoring_location_id"], q.params["parameter_code"], q.params["statistic_id"],
            q.params["datetime"], q.params["f"]) == ("USGS-05427718", "00060", "00003", "2025-10-01/2026-09-30", "json")


def test_paging_follows_the_recorded_next_cursor_and_drops_other_locations(make_source):
    page1 = recorded("usgs_ogc_daily_page_with_next.json")
    page2 = recorded("usgs_ogc_daily_05427718.json")
    script = Script(ok(page1), ok(page2))
    s = make_source(UsgsLive, script).fetch_series("05427718", "discharge")
    assert len(script.requests) == 2
    nxt = script.requests[1].url
    assert nxt.params["cursor"] == "MDAwMDAwMGMtN2VmNC00N2U0LWE1NzctNjc3ZmU5NzNjZmIw" and nxt.params["limit"] == "2"
    # page 1 of an unfiltered query holds two other gauges: they are dropped and counted, never mixed in
    assert s.tolist() == [20.2, 27.1] and s.attrs["dropped"] == {"other location": 2}
    # the whole record: no period at all (``../..`` is not an OGC interval), nor the property form ``time``
    assert "datetime" not in script.requests[0].url.params and "time" not in script.requests[0].url.params


def test_null_approval_status_is_kept_as_unknown(make_source):
    body = copy.deepcopy(recorded("usgs_ogc_daily_page_with_next.json"))
    body["links"] = []
    s = make_source(UsgsLive, Script(ok(body))).fetch_series("02289019", "discharge")
    assert s.tolist() == [489.0] and s.attrs["approval_status"] == {"unknown": 1} and s.attrs["provisional"]["n"] == 0


def test_peaks_drop_gage_height_and_keep_the_qualifier_list(make_source):
    script = Script(ok(recorded("usgs_ogc_peaks_02238500.json")))
    s = make_source(UsgsLive, script).fetch_series("USGS-02238500", "peak_discharge")
    assert s.tolist() == [1060.0] and s.index.tolist() == [pd.Timestamp("1954-01-01")]  # water year 1954
    assert s.attrs["unit"] == "ft3/s" and s.attrs["resolution"] == "annual"
    assert s.attrs["dropped"] == {"parameter 00065": 1}
    assert s.attrs["qualifiers"] == {"1954-01-01": ["REGULATED"]} and s.attrs["qualifiers_not_applied"] == ["REGULATED"]
    assert s.attrs["peakfq"]["format"] == "ogcapi" and script.requests[0].url.params["parameter_code"] == "00060"


def test_peaks_fall_back_to_the_nwis_peak_file(make_source):
    rdb = recorded("nwis_peaks_01594440.rdb")
    script = Script(ok(recorded(EMPTY)), httpx.Response(200, text=rdb, headers={"Content-Type": "text/plain"}))
    s = make_source(UsgsLive, script).fetch_series("01594440", "peak_discharge")
    assert len(s) == 20 and s.index[0] == pd.Timestamp("2000-01-01") and s.index[-1] == pd.Timestamp("2019-01-01")
    assert s.loc["2012-01-01"] == 4900.0 and s.loc["2011-01-01"] == 16800.0  # 2011-12-08 is water year 2012
    assert s.attrs["peakfq"]["format"] == "rdb" and s.attrs["provenance"]["format"] == "rdb"
    q = script.requests[1].url
    assert q.path == "/nwis/peak" and (q.params["site_no"], q.params["format"]) == ("01594440", "rdb")


def test_stations_near_skips_wells_and_placeless_rows(make_source):
    body = recorded("usgs_ogc_monitoring_locations_ct.json")
    script = Script(ok(body))
    assert make_source(UsgsLive, script).stations_near(41.05, -73.5, radius_km=20) == []  # two wells (GW)
    p = script.requests[0].url.params
    assert p["site_type_code"] == "ST" and len(p["bbox"].split(",")) == 4


def test_describe_station_from_the_recorded_answer_to_a_query_by_id(make_source):
    """``monitoring-locations/items?id=USGS-01646500`` as the service answered it on 2026-10-07 (a FeatureCollection
    of one; fixtures/README.md). The adapter asks that form; a location the service does not hold is "no data"."""
    script = Script(ok(recorded("usgs_ogc_v1_monitoring_locations_by_id_01646500.json")))
    d = make_source(UsgsLive, script).describe_station("01646500")
    q = script.requests[0].url
    assert q.path == "/ogcapi/v1/collections/monitoring-locations/items"
    assert (q.params["id"], q.params["f"]) == ("USGS-01646500", "json")
    assert d["name"] == "POTOMAC RIVER NEAR WASH, DC LITTLE FALLS PUMP STA" and d["state"] == "Maryland"
    assert d["huc8"] == "02070008" and d["drainage_area_sqmi"] == 11560.0
    assert d["area_km2"] == pytest.approx(11560.0 * 2.589988, abs=0.1) and (d["lat"], d["lon"]) == (38.949777777777776,
                                                                                                 -77.12763888888888)
    assert d["attributes"]["time_zone_abbreviation"] == "EST" and d["attributes"]["vertical_datum"] == "NAVD88"
    assert d["datasets"][0]["accessed"]
    with pytest.raises(DataNotFoundError, match="no data: the USGS holds no monitoring location USGS-99999999") as err:
        make_source(UsgsLive, Script(ok(recorded(EMPTY)))).describe_station("99999999")
    assert "aquascope assess" in err.value.recovery


def test_v1_daily_values_three_recorded_days(make_source):
    """USGS 01646500's daily means of 2026-09-28..30 as the v1 service sent them (values as text, Provisional)."""
    s = make_source(UsgsLive, Script(ok(recorded("usgs_ogc_v1_daily_01646500_three_days.json")))).fetch_series(
        "01646500", "discharge", start="2026-09-28", end="2026-09-30")
    assert s.tolist() == [3800.0, 3330.0, 2840.0] and s.attrs["unit"] == "ft3/s"
    assert s.index.tolist() == list(pd.date_range("2026-09-28", "2026-09-30")) and s.attrs["provisional"]["n"] == 3


def test_recorded_empty_answer_says_no_data_for_the_station_and_period_and_what_to_do(make_source):
    """The daily collection's answer for a period outside a series, recorded whole on 2026-09-22
    (``numberReturned: 0``, no features, no ``next`` link): a "no data" naming the gauge and the period, with a fix."""
    body = recorded(EMPTY)
    assert body["numberReturned"] == 0 and body["features"] == [] and all(x["rel"] != "next" for x in body["links"])
    with pytest.raises(DataNotFoundError) as err:
        make_source(UsgsLive, Script(ok(body))).fetch_series("02196000", "discharge", start="2023-12-30",
                                                             end="2024-01-09")
    msg = err.value.message
    assert msg.startswith("usgs_live: no data: the USGS daily collection holds no daily mean discharge (00060, "
                          "statistic 00003) at USGS-02196000 for 2023-12-30 to 2024-01-09")
    assert "https://waterdata.usgs.gov/monitoring-location/USGS-02196000/" in err.value.recovery
    assert "aquascope assess" in err.value.recovery and err.value.value == "02196000"


def test_recorded_days_without_values_are_named_not_silently_empty(make_source):
    """USGS 11465200's daily answer recorded 2026-09-22: 11 days listed with ``value: null``, Provisional, qualifier
    ``DISCONTINUED`` (trimmed to two features, envelope as sent). The user is told the days exist but hold no value,
    and why, rather than that the gauge has nothing."""
    body = recorded("usgs_ogc_v1_daily_11465200_null_values_discontinued_trimmed.json")
    with pytest.raises(DataNotFoundError) as err:
        make_source(UsgsLive, Script(ok(body))).fetch_series("11465200", "discharge", start="2023-12-30",
                                                             end="2024-01-09")
    assert ("lists daily mean discharge (00060, statistic 00003) at USGS-11465200 for 2023-12-30 to 2024-01-09 but "
            "every day has no value: 2 day(s) from 2024-01-04 to 2024-01-05 with no value (qualifier DISCONTINUED) "
            "(DISCONTINUED: the gauge no longer records discharge)") in err.value.message
    # a record with some values keeps the count of the days without one (one recorded day given a value here)
    mixed = copy.deepcopy(body)
    mixed["features"][0]["properties"]["value"] = "12.0"
    s = make_source(UsgsLive, Script(ok(mixed)), use_cache=False).fetch_series("11465200", "discharge")
    assert s.tolist() == [12.0] and s.attrs["null_values"] == {
        "DISCONTINUED": {"n": 1, "first": "2024-01-04", "last": "2024-01-04"}}


def test_nwis_no_data_answer_is_a_clear_no_peaks(make_source):
    """NWISWeb's whole answer when it holds nothing, ``No sites/data found using the selection criteria specified``
    (fixtures/README.md), after an empty peaks collection: "no data" for the gauge with what to do, whether NWIS
    sends it with 200 or, as its instantaneous service does, with a 400."""
    nodata = recorded("nwis_no_sites_data_found.txt")
    for code in (200, 400):
        script = Script(ok(recorded(EMPTY)), httpx.Response(code, text=nodata, headers={"Content-Type": "text/plain"}))
        src = make_source(UsgsLive, script, use_cache=False)
        with pytest.raises(DataNotFoundError) as err:
            src.fetch_series("01594449", "peak_discharge")
        assert err.value.message.startswith("usgs_live: no data: no annual peak discharge at USGS-01594449 (neither "
                                            "the USGS peaks collection nor the NWIS peak file holds any")
        assert "No sites/data found using the selection criteria specified" in err.value.message
        assert "upload the gauge's peak file" in err.value.recovery and len(script.requests) == 2


def test_recorded_two_series_of_one_gauge_are_kept_once_a_day_or_refused_when_they_disagree(make_source):
    """USGS 02196000's daily answer for 1999-12-30..2000-01-09 recorded byte for byte on 2026-09-22: 22 features for
    11 days, a current and an ended series (``time_series_id``) with equal values. Kept once a day, both ids named;
    when the series disagree on a day (one recorded value changed here, a derivation) the answer is refused."""
    body = recorded("usgs_ogc_v1_daily_02196000_two_series.json")
    ids = {f["properties"]["time_series_id"] for f in body["features"]}
    assert body["numberReturned"] == 22 and len(ids) == 2
    s = make_source(UsgsLive, Script(ok(body))).fetch_series("02196000", "discharge", start="1999-12-30",
                                                             end="2000-01-09")
    assert len(s) == 11 and s.index.tolist() == list(pd.date_range("1999-12-30", "2000-01-09"))
    by_day = {f["properties"]["time"]: float(f["properties"]["value"]) for f in body["features"]}
    assert s.tolist() == [by_day[str(d.date())] for d in s.index]
    assert s.attrs["time_series"] == {i: 11 for i in ids} and "sent 2 series" in s.attrs["note"]
    bad = copy.deepcopy(body)
    other = next(f for f in bad["features"] if f["properties"]["time"] == "2000-01-06"
                 and f["properties"]["time_series_id"].startswith("4d18"))
    other["properties"]["value"] = "99.0"
    with pytest.raises(SourceError, match=r"sends 2 series .* that disagree on 1 day\(s\): 2000-01-06: (21 vs 99|99 vs 21)"):
        make_source(UsgsLive, Script(ok(bad)), use_cache=False).fetch_series("02196000", "discharge")


def test_recorded_v1_pages_are_followed_through_their_cursors(make_source):
    """The same query with ``limit=5``, recorded page by page on 2026-09-22 (five answers, byte for byte: 5+5+5+5+2
    features, a ``next`` link with its cursor on the first four, none on the last). Every ``next`` link is asked as
    written; the 22 features make the same 11 days as the one-page answer."""
    pages = [recorded(f"usgs_ogc_v1_daily_02196000_limit5_page{k}.json") for k in range(1, 6)]
    nexts = [next((x["href"] for x in p["links"] if x["rel"] == "next"), None) for p in pages]
    assert [p["numberReturned"] for p in pages] == [5, 5, 5, 5, 2] and nexts[-1] is None

    def answer(request: httpx.Request) -> httpx.Response:
        cursor = request.url.params.get("cursor")
        k = 0 if cursor is None else 1 + [n and httpx.URL(n).params["cursor"] for n in nexts].index(cursor)
        return ok(pages[k])

    script = Script(answer)
    s = make_source(UsgsLive, script).fetch_series("02196000", "discharge", start="1999-12-30", end="2000-01-09")
    assert [str(r.url) for r in script.requests[1:]] == nexts[:4]  # each link as the service wrote it
    one_page = make_source(UsgsLive, Script(ok(recorded("usgs_ogc_v1_daily_02196000_two_series.json"))),
                           use_cache=False).fetch_series("02196000", "discharge", start="1999-12-30", end="2000-01-09")
    assert s.tolist() == one_page.tolist() and len(s) == 11 and s.attrs["time_series"] == one_page.attrs["time_series"]
    src = make_source(UsgsLive, Script(answer), use_cache=False)
    src.max_pages = 4
    with pytest.raises(SourceError, match="more than 4 pages; ask for a shorter period"):
        src.fetch_series("02196000", "discharge", start="1999-12-30", end="2000-01-09")


def _self_link(name: str) -> str:
    return next(x["href"] for x in recorded(name)["links"] if x["rel"] == "self")


@pytest.mark.parametrize("name, site, period, page_limit", [
    ("usgs_ogc_v1_daily_02196000_two_series.json", "02196000", ("1999-12-30", "2000-01-09"), 10000),
    ("usgs_ogc_v1_daily_02196000_limit5_page1.json", "02196000", ("1999-12-30", "2000-01-09"), 5),
    ("usgs_ogc_v1_daily_11465200_null_values_discontinued_trimmed.json", "11465200", ("2023-12-30", "2024-01-09"),
     10000),
])
def test_daily_request_is_the_recorded_request_as_the_service_echoed_it(make_source, name, site, period, page_limit):
    """The service writes the request it answered into the answer's ``self`` link: the adapter's request is that
    URL, character for character (path, parameter names, order, ``datetime=<start>%2F<end>``, ``f=json``)."""
    script = Script(ok(recorded(name)), ok(recorded(EMPTY)))
    src = make_source(UsgsLive, script)
    src.page_limit = page_limit
    try:
        src.fetch_series(site, "discharge", start=period[0], end=period[1])
    except DataNotFoundError:
        assert site == "11465200"  # the discontinued gauge's days hold no value
    assert str(script.requests[0].url) == _self_link(name)


def test_station_request_by_id_is_the_recorded_request(make_source):
    script = Script(ok(recorded("usgs_ogc_v1_monitoring_locations_by_id_01646500.json")))
    make_source(UsgsLive, script).describe_station("01646500")
    assert str(script.requests[0].url) == _self_link("usgs_ogc_v1_monitoring_locations_by_id_01646500.json")


def test_429_with_retry_after_then_success(make_source):
    script = Script(httpx.Response(429, json=RATE_LIMIT, headers={"Retry-After": "3"}),
                    ok(recorded("usgs_ogc_daily_05427718.json")))
    src = make_source(UsgsLive, script)
    assert src.fetch_series("05427718", "discharge").tolist() == [20.2, 27.1] and src.sleeps == [3.0]


def test_persistent_429_says_what_the_service_said(make_source):
    src = make_source(UsgsLive, Script(httpx.Response(429, json=RATE_LIMIT, headers={"Retry-After": "1"})), retries=1)
    with pytest.raises(SourceError, match="OVER_RATE_LIMIT: You have exceeded your rate limit") as err:
        src.fetch_series("05427718", "discharge")
    assert "aquascope data" in err.value.recovery


def test_429_asking_for_a_long_wait_ends_at_once_and_names_it(make_source):
    """Retry-After in whole seconds as the USGS sends it: 2619 s, the value DOI-USGS/dataretrieval-python's
    ``waterdata/utils/http.py`` (``_parse_retry_after``) gives as seen from the service."""
    script = Script(httpx.Response(429, json=RATE_LIMIT, headers={"Retry-After": "2619"}))
    src = make_source(UsgsLive, script)
    with pytest.raises(SourceError, match="asks to wait 2619 s .about 44 min.") as err:
        src.fetch_series("05427718", "discharge")
    assert len(script.requests) == 1 and src.sleeps == [] and "API key" in err.value.recovery


def test_recorded_403_body_of_the_api_gateway_and_a_gateway_html_502(make_source):
    """The 403 body is the API gateway's answer to an invalid key, recorded 2026-10-06 (fixtures/README.md; the
    gateway, API Umbrella, documents API_KEY_INVALID as HTTP 403). A 502 body of this API was not found recorded: the
    USGS client's maintainers read a 502 as a gateway's HTML page (dataretrieval-python ``_error_body``), so a
    minimal HTML page is served and only what is read is checked."""
    body = recorded("usgs_api_403_api_key_invalid.json")
    with pytest.raises(SourceError, match=r"refused with HTTP 403: API_KEY_INVALID: An invalid api_key was supplied. "
                                          r"Get one at https://api.waterdata.usgs.gov/signup/ \(request: ") as err:
        make_source(UsgsLive, Script(httpx.Response(403, json=body))).fetch_series("05427718", "discharge")
    assert "fewer sites or a shorter period" in err.value.recovery and "check the key" in err.value.recovery
    page = "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>"
    src = make_source(UsgsLive, Script(httpx.Response(502, text=page, headers={"Content-Type": "text/html"})), retries=1)
    with pytest.raises(SourceError, match=r"HTTP 502 \(502 Bad Gateway\)$"):
        src.fetch_series("05427718", "discharge")


def _printed_ogc_error(name: str) -> tuple[int, dict[str, str]]:
    """(status, body) of an OGC error printed by the USGS client: ``"<status>: <code>. <description>."``, the form its
    ``_json_error_detail`` gives the service's ``{"code", "description"}`` envelope (the body itself was not printed)."""
    status, rest = recorded(name).strip().split(": ", 1)
    code, description = rest.split(". ", 1)
    return int(status), {"code": code, "description": description.rstrip(".")}


def test_recorded_400_from_the_daily_collection_names_the_problem_and_the_fix(make_source):
    """HTTP 400 the live ``daily`` collection answered in June 2026 to a ``properties`` list naming ``id``
    (DOI-USGS/dataretrieval-python pull request #323, fixtures/README.md). Not retried; the service's code and
    description reach the user with the request and what to do."""
    code, body = _printed_ogc_error("usgs_ogc_400_unknown_properties.txt")
    assert (code, body) == (400, {"code": "InvalidParameterValue", "description": "unknown properties specified"})
    script = Script(httpx.Response(code, json=body))
    src = make_source(UsgsLive, script, retries=3)
    with pytest.raises(SourceError, match=r"refused with HTTP 400: InvalidParameterValue: unknown properties "
                                          r"specified \(request: https://api.waterdata.usgs.gov/ogcapi/v1/collections/"
                                          r"daily/items\?") as err:
        src.fetch_series("05427718", "discharge", start="2025-10-01", end="2025-10-31")
    assert len(script.requests) == 1 and src.sleeps == []
    assert "Change what it names" in err.value.recovery and "aquascope data" in err.value.recovery


@pytest.mark.parametrize("name, description", [
    ("usgs_ogc_v1_400_unknown_property.json", "At least one requested property wasn't found"),
    ("usgs_ogc_v1_400_time_envelope_too_large.json", "The requested time envelope is too large, the query must be "
                                                     "limited to 1100 day(s) or less for this collection.")])
def test_recorded_raw_ogc_400_bodies_reach_the_user(make_source, name, description):
    """Two raw OGC error bodies of the v1 API as sent on 2026-10-06 (``{"code", "type", "description"}``, code
    ``InvalidQuery``; fixtures/README.md): not retried, the code and description quoted with the request."""
    body = recorded(name)
    assert body["code"] == body["type"] == "InvalidQuery"
    script = Script(httpx.Response(400, json=body))
    src = make_source(UsgsLive, script, retries=3)
    with pytest.raises(SourceError) as err:
        src.fetch_series("01646500", "discharge", start="2020-01-01", end="2026-09-30")
    assert f"refused with HTTP 400: InvalidQuery: {description} (request: https://api.waterdata.usgs.gov/ogcapi/v1/" \
        in err.value.message
    assert len(script.requests) == 1 and src.sleeps == [] and "Change what it names" in err.value.recovery


def test_recorded_nwis_503_error_report_is_retried_and_its_heading_named(make_source):
    """The 503 page the NWIS host (nwis.waterdata.usgs.gov/nwis/, the peak file's host) sent in August 2024
    (DOI-USGS/dataretrieval-python issue #154, trimmed after its heading; fixtures/README.md). Its title is only
    "Error report": the heading, which says what happened and whom to contact, is what the user is shown."""
    page = recorded("nwis_503_error_report_trimmed.html")
    script = Script(ok(recorded(EMPTY)),
                    httpx.Response(503, text=page, headers={"Content-Type": "text/html;charset=utf-8"}))
    src = make_source(UsgsLive, script, retries=1)
    with pytest.raises(SourceError, match=r"failed after 2 attempt\(s\): HTTP 503 \(Error report: HTTP Status 503 - "
                                          r"Service unavailable please try again later or contact "
                                          r"gs-w_support_nwisweb@usgs.gov. server=\[caas01\]\)") as err:
        src.fetch_series("01594440", "peak_discharge")
    assert [r.url.path for r in script.requests] == ["/ogcapi/v1/collections/peaks/items", "/nwis/peak", "/nwis/peak"]
    assert src.sleeps == [1.0] and "Try again later" in err.value.recovery


def test_5xx_then_success_timeout_and_malformed(make_source):
    script = Script(httpx.Response(503, text=""), ok(recorded("usgs_ogc_daily_05427718.json")))
    src = make_source(UsgsLive, script)
    assert src.fetch_series("05427718", "discharge").tolist() == [20.2, 27.1] and src.sleeps == [1.0]
    with pytest.raises(SourceError, match="timed out"):
        make_source(UsgsLive, Script(timeout_error()), retries=1, use_cache=False).fetch_series("05427718", "discharge")
    with pytest.raises(SourceError, match="malformed JSON"):
        make_source(UsgsLive, Script(malformed()), use_cache=False).fetch_series("05427718", "peak_discharge")
    bad = copy.deepcopy(recorded("usgs_ogc_daily_05427718.json"))
    bad["features"][0]["properties"]["value"] = "Ice"
    with pytest.raises(SourceError, match="not a number"):
        make_source(UsgsLive, Script(ok(bad)), use_cache=False).fetch_series("05427718", "discharge")


def test_base_url_from_the_environment(monkeypatch, make_source):
    monkeypatch.setenv("AQUASCOPE_USGS_URL", "http://127.0.0.1:9/ogcapi/v1")
    script = Script(ok(recorded("usgs_ogc_daily_05427718.json")))
    make_source(UsgsLive, script).fetch_series("05427718", "discharge")
    assert str(script.requests[0].url).startswith("http://127.0.0.1:9/ogcapi/v1/collections/daily/items?")
