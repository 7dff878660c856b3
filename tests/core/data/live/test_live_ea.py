"""Environment Agency hydrology adapter.

Recorded: a readings CSV answer as the service sent it (the daily mean flow of 585e49e0-..., River Avon at
Bradford-on-Avon, kept as a public project's raw download; rows trimmed), the adapter's main input.
Taken from the service's own output: a measure item (the daily mean flow measure of 052d0819-...,
Ulting Sarasota), and readings as an R client printed them from live answers (``_printed_rows``: each
printed row transcribed to a CSV row under the recorded answer's header, ``<NA>`` meaning an empty cell).
Recorded since: one station's answer with its ``meta`` envelope (Ulting Sarasota) and a JSON readings answer
(fixtures/README.md). The station *list* answer was not found recorded: the station item of ``_station`` follows
the service's reference documentation and does not count as recorded; nor were the service's error bodies
found (the 404/500 here carry the transport's placeholder body).
"""

from __future__ import annotations

import pytest

from aquascope_core.data.live.ea import EaHydrologyLive
from aquascope_core.errors import DataNotFoundError, SourceError
from live_mock import Script, malformed, ok, status, timeout_error
from recorded_answers import recorded

import httpx

RECORDED_CSV = "ea_hydrology_readings_585e49e0_bradford_on_avon.csv"
HEADER = recorded(RECORDED_CSV).splitlines()[0]


def csv_answer(text: str) -> httpx.Response:
    return httpx.Response(200, text=text, headers={"Content-Type": "text/csv"})

GUID = "052d0819-2a32-47df-9b99-c243c9c8235b"


def _station(guid, label, lat, lon, area):
    return {"@id": f"http://environment.data.gov.uk/hydrology/id/stations/{guid}", "label": label, "notation": guid,
            "stationGuid": guid, "wiskiID": "SS92F014", "lat": lat, "long": lon, "catchmentArea": area,
            "riverName": "River Dart", "dateOpened": "1958-10-01",
            "measures": [{"@id": f"http://environment.data.gov.uk/hydrology/id/measures/{guid}-flow-m-86400-m3s-qualified",
                          "parameter": "flow", "period": 86400, "unitName": "m3/s"}]}


def test_stations_near(make_source):
    body = {"items": [_station(GUID, "Austins Bridge", 50.4781, -3.7640, 248.0),
                      _station("other", "Far Away", 51.5, -0.1, 10.0)]}
    script = Script(ok(body))
    rows = make_source(EaHydrologyLive, script).stations_near(50.48, -3.77, radius_km=10.0)
    assert [r["station_id"] for r in rows] == [GUID] and rows[0]["area_km2"] == 248.0
    p = script.requests[0].url.params
    assert (p["observedProperty"], p["dist"]) == ("waterFlow", "10")


def test_empty_answer_and_unknown_station(make_source):
    # the recorded answer's header with no rows (an empty answer recorded in full was not found)
    with pytest.raises(DataNotFoundError) as err:
        make_source(EaHydrologyLive, Script(csv_answer(HEADER + "\n"))).fetch_series(GUID, "discharge",
                                                                                    start="1950-01-01", end="1950-12-31")
    assert (f"no data: the Environment Agency hydrology service holds no daily mean flow (measure {GUID}-flow-m-86400-"
            f"m3s-qualified) at station {GUID} from 1950-01-01 to 1950-12-31: it sent no readings") in err.value.message
    assert f"https://environment.data.gov.uk/hydrology/station/{GUID}" in err.value.recovery
    with pytest.raises(DataNotFoundError, match="no station"):
        make_source(EaHydrologyLive, Script(ok({"items": []}))).describe_station(GUID)
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
    # a row whose value is not a number is refused before the answer is cached: the next call (same URL, same
    # cache) asks the service again and gets the next answer
    first_row = recorded(RECORDED_CSV).splitlines()[1]
    with pytest.raises(SourceError, match="value 'n/a' on 2021-01-01 is not a number"):
        make_source(EaHydrologyLive, Script(csv_answer(HEADER + "\n" + first_row.replace('"22.451"', '"n/a"') + "\n"))
                    ).fetch_series(GUID, "discharge")
    with pytest.raises(SourceError, match="not the readings CSV"):
        make_source(EaHydrologyLive, Script(ok({"meta": {}}))).fetch_series(GUID, "discharge")
    with pytest.raises(SourceError, match="no 'items' list"):
        make_source(EaHydrologyLive, Script(ok({"meta": {}}))).stations_near(50.5, -3.8)


def test_the_measure_read_is_the_daily_mean_flow_measure_the_service_lists(make_source):
    """The measure item as the service lists it (fixtures/README.md: copied from the service's output by a
    public project, not stated as recorded): its notation is the path the adapter reads, its unit the one it
    labels, and it is the qualified daily mean."""
    item = recorded("ea_hydrology_measure_052d0819_daily_mean_flow_item.json")
    assert (item["periodName"], item["valueType"], item["period"], item["observationType"]["label"]) == (
        "daily", "mean", 86400, "Qualified")
    sid = item["station"]["@id"].rsplit("/", 1)[-1]
    script = Script(csv_answer(HEADER + "\n"))
    with pytest.raises(DataNotFoundError):
        make_source(EaHydrologyLive, script).fetch_series(sid, "discharge", start="2020-01-01", end="2020-01-31")
    assert script.requests[0].url.path == f"/hydrology/id/measures/{item['notation']}/readings.csv"
    assert str(script.requests[0].url).split("?")[0] == item["@id"].replace("http://", "https://") + "/readings.csv"
    rows = make_source(EaHydrologyLive, Script(ok({"items": [_station(sid, "Ulting Sarasota", 51.7467, 0.6, 10.0)]}))
                       ).stations_near(51.75, 0.6, radius_km=5.0)
    assert rows[0]["variables"][0]["unit"] == item["unitName"]


def _printed_items(block: int) -> list[dict]:
    """Items transcribed from a printed block of fixtures/ea_hydrology_readings_printed_simonmoulds_ea_readme.txt.

    The columns printed are transcribed under their own names (``dateTime`` from its two printed halves, with
    the ``T`` of ISO 8601); ``measure`` is left out (printed truncated); ``<NA>``/``NA`` cells are absent fields.
    Values are as printed (rounded to three significant figures by the printer)."""
    text = recorded("ea_hydrology_readings_printed_simonmoulds_ea_readme.txt").split("\n# ---\n")[block]
    lines = [ln[2:].rstrip() for ln in text.splitlines() if ln.startswith("#>") and not ln.startswith("#> #")]
    header = lines[0].split()
    assert header[:4] == ["measure", "date", "dateTime", "value"], header
    items = []
    for ln in lines[2:]:
        cells = ln.split()
        _, _, date, dt_day, dt_time, *rest = cells
        row = dict(zip(header[3:], rest))
        item = {"date": date, "dateTime": f"{dt_day}T{dt_time}"}
        item.update({k: (float(v) if k == "value" else v) for k, v in row.items() if v not in ("NA", "<NA>")})
        items.append(item)
    return items


def _printed_rows(items: list[dict]) -> httpx.Response:
    """The transcribed items as rows of a readings CSV under the recorded answer's header (plus the count
    columns when the printout has them); an absent field is an empty cell."""
    import csv
    import io

    fields = [f.strip('"') for f in HEADER.split(",")]
    fields += [k for k in ("valid", "invalid", "missing") if any(k in it for it in items)]
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=fields, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writeheader()
    for it in items:
        w.writerow({k: ("" if it.get(k) is None else it[k]) for k in fields})
    return csv_answer(out.getvalue())


def test_recorded_readings_csv(make_source):
    """The recorded answer: values as sent (m3/s), the date column as the index, the water day starting at
    09:00 GMT as its dateTime says, quality and completeness counted, the request on the CSV path."""
    script = Script(csv_answer(recorded(RECORDED_CSV)))
    sid = "585e49e0-7070-4d85-9c52-ccd18a5a1e65"
    s = make_source(EaHydrologyLive, script).fetch_series(sid, "discharge", start="2021-01-01", end="2025-12-31")
    req = script.requests[0]
    assert req.url.path == f"/hydrology/id/measures/{sid}-flow-m-86400-m3s-qualified/readings.csv"
    assert (req.url.params["mineq-date"], req.url.params["maxeq-date"]) == ("2021-01-01", "2025-12-31")
    # the query as the service's own Hydrology Data Explorer writes its Download link (quoted in a public project's
    # gauge script: ".../readings.csv?_limit=2000000&mineq-date=2024-01-16&maxeq-date=2024-02-13"): same names,
    # same order, same limit
    explorer = httpx.URL("https://environment.data.gov.uk/hydrology/id/measures/e7b37054-c060-4ba6-b550-04d0d39c3557"
                         "-level-i-900-m-qualified/readings.csv?_limit=2000000&mineq-date=2024-01-16&maxeq-date=2024-02-13")
    assert [k for k, _ in req.url.params.multi_items()] == [k for k, _ in explorer.params.multi_items()]
    assert req.url.params["_limit"] == explorer.params["_limit"] and req.url.host == explorer.host
    assert len(s) == 62 and s.attrs["unit"] == "m3/s" and s.attrs["day_start_gmt"] == "09:00:00"
    assert s.index[0] == __import__("pandas").Timestamp("2021-01-01") and s.iloc[0] == 22.451
    assert s["2021-01-29"] == 89.616 and s.index[-1] == __import__("pandas").Timestamp("2025-12-31") and s.iloc[-1] == 9.085
    assert s.attrs["quality"] == {"Good": 62} and s.attrs["completeness"] == {"Complete": 62}
    assert "incomplete days" not in s.attrs["note"]
    # the same answer with its rows reversed (the service does not always send date order) reads the same
    head, *rows = recorded(RECORDED_CSV).splitlines()
    rev = make_source(EaHydrologyLive, Script(csv_answer("\n".join([head, *rows[::-1]]) + "\n"))).fetch_series(
        sid, "discharge", start="2021-01-01", end="2025-12-31")
    assert rev.equals(s)


def test_printed_live_readings_unsorted_with_a_missing_incomplete_day(make_source):
    items = _printed_items(0)
    assert len(items) == 10 and [it["date"] for it in items][4:7] == ["2024-04-30", "2024-04-28", "2024-04-29"]
    script = Script(_printed_rows(items))
    s = make_source(EaHydrologyLive, script).fetch_series(
        "b0713e87-cab3-46e4-bfb3-f0bbb91cedf6", "discharge", start="2024-04-18", end="2024-05-28")
    req = script.requests[0]
    assert req.url.path == "/hydrology/id/measures/b0713e87-cab3-46e4-bfb3-f0bbb91cedf6-flow-m-86400-m3s-qualified/readings.csv"
    assert (req.url.params["mineq-date"], req.url.params["maxeq-date"]) == ("2024-04-18", "2024-05-28")
    assert s.index.is_monotonic_increasing and len(s) == 9 and "2024-05-28" not in s.index
    assert s["2024-04-28":"2024-04-30"].tolist() == [53.1, 64.8, 57.8] and s.attrs["unit"] == "m3/s"
    assert s.attrs["quality"] == {"Good": 9, "Missing": 1}
    assert s.attrs["completeness"] == {"Complete": 9, "Incomplete": 1}
    assert "incomplete days" not in s.attrs["note"]  # the incomplete day had no value


def test_printed_live_readings_with_valid_invalid_missing_counts(make_source):
    items = _printed_items(1)
    assert items[1] == {"date": "2024-06-23", "dateTime": "2024-06-23T00:00:00", "value": 1.12, "valid": "8229",
                        "invalid": "0", "missing": "1770"}
    s = make_source(EaHydrologyLive, Script(_printed_rows(items))).fetch_series(
        "052d0819-2a32-47df-9b99-c243c9c8235b", "discharge", start="2024-05-31", end="2024-06-23")
    assert s.tolist() == [1.47, 1.32, 1.15, 1.11, 1.12, 1.12] and s.index[0] == __import__("pandas").Timestamp("2024-05-31")
    # quality and completeness were not printed for these rows, so they are counted as unknown, not as Good
    assert s.attrs["quality"] == {"unknown": 6} and s.attrs["completeness"] == {"unknown": 6}


def test_429_with_retry_after_then_the_recorded_answer(make_source):
    """No 429 of this service was found recorded (fixtures/README.md): the status and Retry-After are the
    HTTP rule, the body left empty; what is proven is that the adapter waits as asked, then reads the answer."""
    script = Script(httpx.Response(429, headers={"Retry-After": "5"}), csv_answer(recorded(RECORDED_CSV)))
    src = make_source(EaHydrologyLive, script)
    s = src.fetch_series("585e49e0-7070-4d85-9c52-ccd18a5a1e65", "discharge", start="2021-01-01", end="2025-12-31")
    assert len(s) == 62 and src.sleeps == [5.0] and len(script.requests) == 2


RECORDED_STATION = "ea_hydrology_station_052d0819_ulting_sarasota.json"  # /id/stations/<id> as the service sent it


def test_describe_station_from_the_recorded_station_answer(make_source):
    """The station answer of Ulting Sarasota recorded by a public client (fixtures/README.md): its ``meta`` envelope
    (publisher, licenseName "OGL 3", version 2.0.0) and one item listing four flow measures, no catchmentArea."""
    body = recorded(RECORDED_STATION)
    assert body["meta"]["licenseName"] == "OGL 3" and body["meta"]["version"] == "2.0.0"
    script = Script(ok(body))
    d = make_source(EaHydrologyLive, script).describe_station(GUID)
    assert script.requests[0].url.path == f"/hydrology/id/stations/{GUID}.json"
    assert d["name"] == "Ulting Sarasota" and (d["lat"], d["lon"]) == (51.746683, 0.624437)
    assert d["aliases"] == ["037048U"] and d["area_km2"] is None  # the answer has no catchmentArea
    assert d["attributes"]["riverName"] == "River Chelmer" and d["attributes"]["dateOpened"] == "2008-10-31"
    assert d["attributes"]["daily_mean_flow_measure"] == f"{GUID}-flow-m-86400-m3s-qualified"
    assert f"measure {GUID}-flow-m-86400-m3s-qualified, listed by the station" in d["variables"][0]["note"]


def test_a_station_whose_measures_lack_daily_means_is_not_offered(make_source):
    """The recorded station item, once with its measures as sent and once with the daily mean one removed (a
    derivation): near the point only the first is offered, and describe says the second has no daily mean flow."""
    import copy

    body = recorded(RECORDED_STATION)
    rows = make_source(EaHydrologyLive, Script(ok(body))).stations_near(51.75, 0.62, radius_km=5.0)
    assert [r["station_id"] for r in rows] == [GUID] and rows[0]["distance_km"] < 1.0
    without = copy.deepcopy(body)
    item = without["items"][0]
    item["measures"] = [m for m in item["measures"] if not m["notation"].endswith("-flow-m-86400-m3s-qualified")]
    assert len(item["measures"]) == 3
    src = make_source(EaHydrologyLive, Script(ok(without)), use_cache=False)
    assert src.stations_near(51.75, 0.62, radius_km=5.0) == []
    d = src.describe_station(GUID)
    assert d["variables"] == [] and d["attributes"]["daily_mean_flow_measure"] is False


def test_recorded_json_readings_of_daily_means_read_through_the_csv_form(make_source):
    """Readings of Ulting Sarasota as the service sent them as JSON (``readings.json?station=...``, recorded by a
    public client, trimmed; fixtures/README.md): daily means at 09:00 (the water day), ``Unchecked``, one day
    ``Incomplete`` (missing 18 of 100), some rows without ``completeness``, not in date order, mixed with 15-min
    rows. The adapter reads the CSV form, so each daily-mean item is transcribed to a row under the recorded CSV
    header (a derivation: the values, dates and flags are the recorded ones)."""
    body = recorded("ea_hydrology_readings_json_052d0819_ulting_trimmed.json")
    assert body["meta"]["limit"] == 100000 and body["meta"]["licenseName"] == "OGL 3"
    daily = [i for i in body["items"] if i["measure"]["@id"].endswith("-flow-m-86400-m3s-qualified")]
    assert len(daily) < len(body["items"])  # the answer mixes measures
    rows = [",".join(f'"{v}"' for v in (i["measure"]["@id"], i["dateTime"], i["date"], i["value"],
                                         i.get("completeness", ""), i["quality"], "")) for i in daily]
    s = make_source(EaHydrologyLive, Script(csv_answer("\n".join([HEADER, *rows]) + "\n"))).fetch_series(GUID, "discharge")
    want = sorted((i["date"], float(i["value"])) for i in daily)
    assert [(str(d.date()), v) for d, v in s.items()] == want and s.index.is_monotonic_increasing
    assert s.attrs["day_start_gmt"] == "09:00:00" and s.attrs["quality"] == {"Unchecked": len(daily)}
    assert s.attrs["completeness"] == {"Complete": 5, "Incomplete": 1, "unknown": 2}
    assert "1 value(s) from incomplete days" in s.attrs["note"]
