"""Uploads as European owners keep them: day-first dates, semicolons, decimal commas, a units row, German
abbreviations and a legend row (the tables of tests/roles/cases/uploads, made by
scripts/make_european_uploads.py from real records; values checked against the records they were cut from)."""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

import pytest

from aquascope_core.data.ingest import ingest
from aquascope_core.errors import InputError

ROOT = Path(__file__).resolve().parents[3]
UP = ROOT / "tests" / "roles" / "cases" / "uploads"


def _read(name: str) -> dict:
    return ingest(name, UP / name)


def _vars(d: dict) -> list[tuple[str, str, str]]:
    return [(v["column"], v["variable"], v["unit"]) for v in d["variables"]]


def test_german_header_with_units_row_and_decimal_commas():
    d = _read("schwingbach_gw_de.csv")
    assert ("NS", "precipitation", "mm") in _vars(d) and ("TM", "air_temperature", "degC") in _vars(d)
    assert ("Grundwasserstand", "groundwater_level", "m a.s.l.") in _vars(d)
    assert d["period"]["start"].startswith("2014-01-01") and d["period"]["end"].startswith("2016-12-31")
    with gzip.open(ROOT / "tests/reference/spotpy_schwingbach_site24_daily_gwhead_2014_2016.csv.gz", "rt") as f:
        first = next(csv.DictReader(f))
    head = d["series"]["Grundwasserstand"]
    assert float(head.iloc[0]) == pytest.approx(float(first["gwhead_m"]))
    assert float(d["series"]["NS"].iloc[0]) == pytest.approx(float(first["rain_mm"]))
    assert not d.get("questions")


def test_a_legend_row_between_names_and_units():
    d = _read("fulda_1979_1988_legend.csv")
    assert _vars(d) == [("Prec", "precipitation", "mm/d"), ("Tmax", "air_temperature_max", "degC"),
                        ("Tmin", "air_temperature_min", "degC"), ("Q", "discharge", "m3/s")]
    assert any("legend" in w for w in d.get("warnings") or [])
    assert d["period"]["start"].startswith("1979-01-01") and d["period"]["end"].startswith("1988-12-31")


def test_abfluss_with_slashed_day_first_dates_and_a_one_letter_rainfall():
    assert _vars(_read("flat_brook_abfluss_de.csv")) == [("Abfluss", "discharge", "m3/s")]
    assert _vars(_read("leaf_river_n_mm.csv")) == [("N", "precipitation", "mm")]


def test_a_header_that_names_nothing_is_asked_naming_it():
    d = _read("flat_brook_wert.csv")
    assert any("'Wert'" in q for q in d["questions"])


def test_n_without_a_depth_unit_is_not_rainfall():
    d = ingest("n.csv", "Datum;N\n01.01.2000;3\n02.01.2000;4\n03.01.2000;5\n")
    assert d["variables"][0]["variable"] != "precipitation" and d["questions"]


def test_ambiguous_day_first_dates_are_still_refused_or_asked():
    text = "Datum;Abfluss\n;m3/s\n" + "".join(f"0{m}/0{m}/2000;1,{m}\n" for m in range(1, 10))
    try:
        d = ingest("ambiguous.csv", text)
    except InputError as exc:
        assert "day" in str(exc).lower() or "month" in str(exc).lower()
    else:
        assert d.get("questions") or any("day" in w.lower() for w in d.get("warnings") or [])


def test_three_header_rows_without_a_units_row_are_still_refused():
    text = "Date;Prec\nDatum;Niederschlag\nfoo;bar\n01.01.2000;1,0\n02.01.2000;2,0\n03.01.2000;0,0\n"
    with pytest.raises(InputError, match="3 header rows"):
        ingest("three.csv", text)
