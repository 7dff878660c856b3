"""Uploads: each layout ingested correctly or refused with a message naming the problem; bytes kept verbatim."""

from __future__ import annotations

import io
import json
import pathlib

import numpy as np
import pandas as pd
import pytest

from aquascope_core.data.ingest import UploadSource, dataset_json, ingest, original_bytes
from aquascope_core.errors import DataNotFoundError, InputError


def _ok(name, content, **kw):
    d = ingest(name, content, **kw)
    if not isinstance(content, pd.DataFrame):
        raw = content.read_bytes() if isinstance(content, pathlib.Path) else (
            content.encode() if isinstance(content, str) else content)
        assert original_bytes(d) == raw  # byte for byte
    json.dumps(dataset_json(d))  # the JSON part is JSON
    return d


def test_comma_csv_with_unit_in_parentheses_and_a_gap():
    d = _ok("flat", b"date,Q (m3/s)\n2020-01-01,1.5\n2020-01-02,2.5\n2020-01-04,3\n")
    v = d["variables"][0]
    assert (v["variable"], v["unit"], v["n_values"], v["offline"]) == ("discharge", "m3/s", 3, True)
    assert d["resolution"] == "daily" and d["questions"] == [] and d["unit"] == "m3/s"
    s = d["series"]["Q (m3/s)"]
    assert s.tolist() == [1.5, 2.5, 3.0] and isinstance(s.index, pd.DatetimeIndex)  # nothing filled
    assert d["gaps"]["n_missing"] == 1 and d["gaps"]["gaps"][0]["start"].startswith("2020-01-03")
    assert d["period"] == {"start": "2020-01-01T00:00:00", "end": "2020-01-04T00:00:00"}
    assert s.attrs["unit"] == "m3/s" and s.attrs["provenance"]["accessed"]


def test_semicolon_decimal_comma_cp1252_two_value_columns():
    raw = "Datum;Abfluss [m³/s];Niederschlag [mm]\n01.01.2020;1,5;0,2\n02.01.2020;2,5;\n03.01.2020;3,25;1,0\n".encode("cp1252")
    d = _ok("fulda", raw)
    assert d["layout"]["separator"] == ";" and d["layout"]["decimal"] == ","
    q, p = d["variables"]
    assert (q["variable"], q["unit"], p["variable"], p["unit"]) == ("discharge", "m3/s", "precipitation", "mm")
    assert d["series"]["Abfluss [m³/s]"].tolist() == [1.5, 2.5, 3.25]
    assert d["series"]["Niederschlag [mm]"].tolist() == [0.2, 1.0] and p["gaps"]["n_empty_cells"] == 1
    assert any("Windows-1252" in w for w in d["warnings"]) and any("decimal commas" in w for w in d["warnings"])


def test_tab_separated_two_row_header_flow_cfs():
    d = _ok("tab", b"date\tflow_cfs\n\tcfs\n2020-01-01\t100\n2020-01-02\t120\n")
    assert d["layout"]["separator"] == "\t" and d["layout"]["header_rows"] == 2
    assert (d["variables"][0]["variable"], d["unit"]) == ("discharge", "ft3/s")


def test_two_row_header_names_then_units():
    d = _ok("two", "date,Q,P\n,m3/s,mm\n2020-01-01,1,2\n2020-01-02,1.1,0\n")
    assert [(v["variable"], v["unit"]) for v in d["variables"]] == [("discharge", "m3/s"), ("precipitation", "mm")]


def test_unknown_unit_and_variable_are_asked_not_guessed():
    d = _ok("mystery", b"date,value\n2020-01-01,1\n2020-02-01,2\n2020-03-01,4\n")
    assert d["unit"] is None and d["variables"][0]["unit"] == "unknown" and not d["variables"][0]["unit_known"]
    assert any("unit of column 'value'" in q for q in d["questions"])
    assert any("What does column 'value' measure" in q for q in d["questions"])
    assert d["resolution"] == "monthly"
    answered = ingest("mystery", b"date,value\n2020-01-01,1\n2020-02-01,2\n2020-03-01,4\n", unit="mm",
                      variable="precipitation")
    assert answered["questions"] == [] and answered["unit"] == "mm"


def test_header_units_in_square_brackets_and_hourly_resolution():
    d = _ok("rain", b"time,rain [mm]\n2020-01-01 00:00,0\n2020-01-01 01:00,1.2\n2020-01-01 03:00,0.4\n")
    assert (d["resolution"], d["unit"], d["variables"][0]["variable"]) == ("hourly", "mm", "precipitation")
    assert d["gaps"]["n_missing"] == 1


def test_irregular_resolution():
    d = _ok("spot", b"date,Q (l/s)\n2020-01-01,5\n2020-01-09,6\n2020-02-20,7\n2020-02-21,7.5\n")
    assert d["resolution"] == "irregular" and d["unit"] == "l/s"


def test_annual_year_column_and_year_month_day_columns():
    d = _ok("peaks", b"year,peak_cfs\n1930,9100\n1931,2060\n1933,3220\n")
    assert d["resolution"] == "annual" and d["unit"] == "ft3/s" and d["variables"][0]["variable"] == "peak_discharge"
    assert d["series"]["peak_cfs"].index[0] == pd.Timestamp("1930-01-01") and d["gaps"]["n_missing"] == 1
    d = _ok("ymd", b"Year,Month,Day,Q (m3/s)\n2001,1,30,4\n2001,1,31,5\n2001,2,1,6\n")
    assert d["resolution"] == "daily" and d["series"]["Q (m3/s)"].index[-1] == pd.Timestamp("2001-02-01")


def test_ambiguous_day_month_is_refused_then_answered():
    raw = b"date,Q (m3/s)\n01/02/2020,1\n01/03/2020,2\n01/04/2020,3\n"
    with pytest.raises(InputError, match="day-first or month-first") as err:
        ingest("amb", raw)
    assert err.value.argument == "dayfirst"
    assert ingest("amb", raw, dayfirst=True)["series"]["Q (m3/s)"].index[0] == pd.Timestamp("2020-02-01")
    assert ingest("amb", raw, dayfirst=False)["series"]["Q (m3/s)"].index[0] == pd.Timestamp("2020-01-02")
    unambiguous = ingest("us", b"date,Q (m3/s)\n12/30/2020,1\n12/31/2020,2\n")  # 30 > 12: month first
    assert unambiguous["series"]["Q (m3/s)"].index[0] == pd.Timestamp("2020-12-30")


def test_duplicated_dates_are_refused_with_the_dates():
    with pytest.raises(InputError, match=r"2020-01-02T00:00:00.*more than once|more than once: 2020-01-02") as err:
        ingest("dup", b"date,Q (m3/s)\n2020-01-01,1\n2020-01-02,2\n2020-01-02,3\n")
    assert "lines 3, 4" in str(err.value)


def test_text_in_the_value_column_is_refused_with_line_numbers():
    with pytest.raises(InputError) as err:
        ingest("text", b"date,Q (m3/s)\n2020-01-01,1\n2020-01-02,ice\n2020-01-03,3\n2020-01-04,<0.5\n")
    msg = str(err.value)
    assert "line(s) 3, 5" in msg and "'ice'" in msg and "'<0.5'" in msg


@pytest.mark.parametrize("raw, words", [
    (b"", "empty"), (b"\n\n  \n", "empty"), (b"%PDF-1.7\n%\xe2\xe3\n1 0 obj", "PDF"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "PNG"), (b'{"date": "2020-01-01", "q": 1}', "JSON"),
    (b"<html><body>flows</body></html>", "HTML"),
    (b"Dear hydrologist,\nplease find the flows attached.\nRegards\n", "separator"),
    (b"date,comment\n2020-01-01,wet\n2020-01-02,dry\n", "no column of numbers"),
    (b"a,b\nx,y\nz,w\n", "not look like a data table"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00", ".xls"),
])
def test_empty_and_non_table_files_are_refused(raw, words):
    with pytest.raises(InputError, match=words):
        ingest("bad", raw)


def test_xlsx_with_datetime_cells_round_trips():
    openpyxl = pytest.importorskip("openpyxl")
    import datetime as dt

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Station: test"])
    ws.append(["Date", "Discharge (m3/s)", "flag"])
    for i, q in enumerate([1.0, 2.0, None, 4.0]):
        ws.append([dt.datetime(2021, 3, 1) + dt.timedelta(days=i), q, "A"])
    buf = io.BytesIO()
    wb.save(buf)
    raw = buf.getvalue()
    d = _ok("xl", raw)
    assert d["format"] == "xlsx" and d["original"]["encoding"] == "base64"
    s = d["series"]["Discharge (m3/s)"]
    assert s.tolist() == [1.0, 2.0, 4.0] and d["gaps"]["n_missing"] == 1 and d["unit"] == "m3/s"
    assert {"name": "flag", "role": "ignored"} in d["columns"]
    assert any("Station: test" in w or "line(s) 1" in w for w in d["warnings"])


def test_path_and_dataframe_content(tmp_path):
    p = tmp_path / "gw.csv"
    p.write_bytes(b"date,head (m a.s.l.)\n2015-01-01,238.01\n2015-01-02,238.02\n")
    d = _ok("gw", p)
    assert (d["variables"][0]["variable"], d["unit"]) == ("groundwater_level", "m a.s.l.")
    assert d["original"]["filename"] == "gw.csv"
    frame = pd.DataFrame({"Q (m3/s)": [1.0, np.nan, 3.0]}, index=pd.date_range("2000-01-01", periods=3, name="date"))
    d = _ok("df", frame)
    assert d["format"] == "dataframe" and d["series"]["Q (m3/s)"].tolist() == [1.0, 3.0]
    with pytest.raises(InputError, match="pathlib.Path"):
        ingest("x", "flows.csv")


def test_value_column_and_date_column_by_name():
    raw = b"id,when,Q (m3/s),T (degC)\n7,2020-01-01,1,5\n7,2020-01-02,2,6\n"
    d = _ok("pick", raw, value_column="T (degC)", variable="water_temperature")
    assert [v["column"] for v in d["variables"]] == ["T (degC)"]
    assert d["variables"][0]["variable"] == "water_temperature" and d["unit"] == "degC"
    with pytest.raises(InputError) as err:
        ingest("pick", raw, value_column="nope")
    assert err.value.argument == "value_column"


def test_dates_that_do_not_increase_are_refused_with_the_rows_named_never_reordered():
    with pytest.raises(InputError, match=r"do not increase: 1 row\(s\).*line\(s\) 3, first 2020-01-01 after 2020-01-03"):
        ingest("order", b"date,Q (m3/s)\n2020-01-03,3\n2020-01-01,1\n2020-01-02,2\n")


def test_nothing_crashes_on_noise():
    rng = np.random.default_rng(0)
    pieces = [b"2020-01-0", b"1", b",", b";", b"\t", b"\n", b"abc", b"3.5", b"NA", b"\x00", b"\xff", b'"', b" "]
    for _ in range(300):
        raw = b"".join(pieces[i] for i in rng.integers(0, len(pieces), rng.integers(0, 60)))
        try:
            ingest("noise", raw)
        except InputError:
            pass  # a refusal is fine; any other exception is a defect


def test_upload_source_without_and_with_a_position():
    d = ingest("my_gauge", b"date,Q (m3/s)\n2020-01-01,1\n2020-01-02,2\n2020-01-04,4\n")
    src = UploadSource([d])
    assert src.stations_near(41.0, -75.0, radius_km=20000.0) == []  # no position given
    row = src.describe_station("my_gauge")
    assert row["lat"] is None and row["variables"][0]["variable"] == "discharge" and not row["catalogue_only"]
    src.add(d, lat=41.0, lon=-75.0, area_km2=120.0)
    near = src.stations_near(41.01, -75.0)
    assert near[0]["station_id"] == "my_gauge" and near[0]["distance_km"] == pytest.approx(1.112, abs=0.01)
    s = src.fetch_series("my_gauge", "discharge", start="2020-01-02")
    assert s.tolist() == [2.0, 4.0] and s.attrs["source"] == "upload" and s.attrs["gaps"]["n_missing"] == 1
    assert src.fetch_series("my_gauge", "Q (m3/s)").tolist() == [1.0, 2.0, 4.0]
    with pytest.raises(DataNotFoundError, match="holds no 'precipitation'"):
        src.fetch_series("my_gauge", "precipitation")
    with pytest.raises(DataNotFoundError, match="no upload called"):
        src.describe_station("other")
    with pytest.raises(InputError):
        src.add(d, lat=95.0, lon=0.0)
    assert src.find_stations("gauge")[0]["station_id"] == "my_gauge"


def test_package_exports_the_function_not_the_module():
    from aquascope_core import data

    assert callable(data.ingest) and data.ingest is ingest and data.UploadSource is UploadSource


def test_annual_peak_and_maximum_headers_are_annual_maxima():
    d = _ok("p", b"water_year,peak\n1930,9100\n1931,2060\n1932,7820\n")
    assert d["variables"][0]["variable"] == "peak_discharge" and d["resolution"] == "annual"
    assert any("unit of column 'peak'" in q and "peak_cfs" in q for q in d["questions"])
    d = _ok("m", b"water_year,annual_max_daily_mean_m3s\n1946,28.9\n1947,37.7\n1948,33.4\n")
    assert (d["variables"][0]["variable"], d["unit"]) == ("annual_max_discharge", "m3/s")


def test_a_yearly_discharge_that_does_not_say_peak_or_mean_is_asked_about():
    d = _ok("q", b"year,Q (m3/s)\n1930,91\n1931,20\n1932,78\n")
    assert not d["variables"][0]["variable_known"]
    assert any("peak (annual maximum) or the annual mean" in q for q in d["questions"])
    d = _ok("daily_peak", b"date,peak_cfs\n2020-01-01,5\n2020-01-02,6\n2020-01-03,7\n")
    assert any("one row per year" in q for q in d["questions"])


def test_well_levels_and_depths_to_water():
    d = _ok("l", b"date,level_m\n2014-01-01,238.03\n2014-01-02,238.02\n")
    assert (d["variables"][0]["variable"], d["unit"]) == ("water_level", "m")  # the request decides: a well?
    d = _ok("g", b"date,gwl (m a.s.l.)\n2014-01-01,238.03\n2014-01-02,238.02\n")
    assert (d["variables"][0]["variable"], d["unit"]) == ("groundwater_level", "m a.s.l.")
    d = _ok("d", b"date,depth_to_water_m\n2014-01-01,3.25\n2014-01-02,3.5\n")
    assert (d["variables"][0]["variable"], d["unit"]) == ("groundwater_level", "m")
    assert d["series"]["depth_to_water_m"].tolist() == [-3.25, -3.5]
    assert any("depth to water below the ground" in w for w in d["warnings"])
