"""What the crew reads from uploads and the request, and what it derives from the site's records under "just go"."""

from __future__ import annotations

from pathlib import Path

import pytest

from aquascope_core.tools.context import table_entry
from roles import uploads
from graphs.solve import solve

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "uploads"
PEAKS = b"year,peak\n" + b"".join(f"{1930 + i},{v}\n".encode() for i, v in enumerate(
    [9100, 2060, 7820, 3220, 5580, 17000, 6740, 13800, 4270, 5940, 1680, 1200]))


def test_a_level_column_is_groundwater_when_the_request_is_about_a_well():
    t = {"levels.csv": table_entry("levels.csv", (EXAMPLES / "well_levels.csv").read_bytes())}
    assert t["levels.csv"]["variables"][0]["variable"] == "water_level"
    got = uploads.reconcile(t, "Are the levels in my well dropping?", None)
    assert got["levels.csv"]["variables"][0]["variable"] == "groundwater_level"
    assert got["levels.csv"]["read_from_request"] == {"variable": "groundwater_level"}
    assert uploads.reconcile(t, "What is the river stage trend?", "drought_status") == t  # nothing said: unchanged


def test_a_unit_the_request_states_settles_the_question_and_nothing_else_does():
    t = {"peaks.csv": table_entry("peaks.csv", PEAKS)}
    assert uploads.upload_questions(t)  # the unit of 'peak' is asked
    got = uploads.reconcile(t, "100-year flood from my annual peaks, values in cfs", "flood_risk")
    assert got["peaks.csv"]["variables"][0]["unit"] == "ft3/s" and not uploads.upload_questions(got)
    # a height is no unit for a flow: the question stays
    assert uploads.upload_questions(uploads.reconcile(t, "peaks in metres", "flood_risk"))


def test_an_unreadable_column_under_just_go_declines_naming_the_header_and_the_forms():
    r = solve("100-year flood from my annual peaks", lat=45.0, lon=-100.0, tables={"peaks.csv": PEAKS})
    assert r.declined and "column 'peak'" in r.declined_reason and "peak_cfs" in r.declined_reason


def test_a_planting_month_comes_from_the_climate_record_and_is_listed_as_an_assumption():
    """Leaf River (HOOPLA/MOPEX) holds no temperature: PET rises above its annual mean in April."""
    r = solve("Irrigation of 50 ha of maize", lat=31.7069, lon=-89.4069, execute=False)
    brief = r.workspace["brief"]
    assert brief["intake"]["planting_month"] == 4
    assert any(a.startswith("Planting month: April, derived from the season") for a in brief["assumptions"])


def test_the_pass_by_flow_is_the_records_q95_unless_stated():
    """Flat Brook (USGS 01440000), 1945-2025: Q95 0.368 m3/s (flow_duration_curve, Weibull)."""
    r = solve("Can we take 0.5 m3/s reliably for water supply?", lat=41.10, lon=-74.96, execute=False)
    brief = r.workspace["brief"]
    assert brief["intake"]["environmental_flow_m3s"] == pytest.approx(0.368)
    assert any("the Q95 of the daily flow at Flat Brook" in a for a in brief["assumptions"])
    r = solve("Can we take 0.5 m3/s with no environmental flow?", lat=41.10, lon=-74.96, execute=False)
    assert r.workspace["brief"]["intake"]["environmental_flow_m3s"] == 0.0
