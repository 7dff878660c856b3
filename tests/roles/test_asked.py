"""Reading a request as a hydrologist would: the asked unit, storage and demand in US units, a stage or level out
of scope, help, meaningless values, a low river now, a compound request (roles.asked, roles.consultant)."""

from __future__ import annotations

import pytest

from aquascope_core.workspace import Workspace
from roles import reading
from roles.asked import in_asked_unit
from roles.consultant import consultant, read_intake

FLOOD = {"answer": "The 50-year maximum daily-mean flow at X is 68.2 mm/d.", "value": 68.2, "unit": "mm/d",
         "band": {"lower": 42.2, "upper": 110.0, "confidence": 0.9}}
STUDY = {"plan": {"station": {"station_id": "02472000"}}}
INVENTORY = {"datasets": [{"station_id": "02472000", "area_km2": 1924.0}]}


def test_a_depth_record_becomes_a_discharge_with_the_area():
    got = in_asked_unit(dict(FLOOD), {"answer_unit": None}, STUDY, INVENTORY)
    assert got["conversion"]["value"] == pytest.approx(68.2 * 1924e6 * 1e-3 / 86400)
    assert got["answer"].startswith("In m3/s: 1,520 m3/s") and "times the catchment area of 1,920 km2" in got["answer"]


def test_the_asked_unit_leads():
    got = in_asked_unit(dict(FLOOD), {"answer_unit": "ft3/s"}, STUDY, INVENTORY)
    # 68.2 mm/d over 1,924 km2 = 1,519 m3/s = 53,630 ft3/s (1 ft3/s = 0.3048**3 m3/s)
    assert got["answer"].startswith("In ft3/s, as asked: 53,600 ft3/s")
    same = in_asked_unit({**FLOOD, "unit": "m3/s"}, {"answer_unit": "m3/s"}, STUDY, INVENTORY)
    assert "conversion" not in same  # already in the unit asked


def test_no_area_no_discharge_and_it_says_so():
    got = in_asked_unit(dict(FLOOD), {"answer_unit": "ft3/s"}, STUDY, {})
    assert "conversion" not in got and "no catchment area is held" in got["answer"]


def test_storage_and_demand_in_us_units():
    got = read_intake("supply_reliability", "Will a 5,000 acre-foot reservoir meet a demand of 10 cfs?")
    assert got["storage_hm3"] == pytest.approx(6.167, abs=1e-3)
    assert got["demand"] == pytest.approx(0.283) and got["demand_unit"] == "m3/s"


@pytest.mark.parametrize("text", ["What water level will the 100-year flood reach under the bridge deck?",
                                  "What stage does the 100-year flood reach at the gauge?",
                                  "How high will the river get in a 50-year flood?", "flood stage at Bruceton"])
def test_stage_and_water_level_are_out_of_scope(text):
    assert reading.out_of_scope(text)["needs"].startswith(("a stage-discharge rating", "a stage-discharge"))


@pytest.mark.parametrize("text", ["Are the levels in my well falling?", "Is the groundwater level falling?",
                                  "Is the water table dropping?"])
def test_groundwater_levels_stay_in_scope(text):
    assert reading.out_of_scope(text) is None


def _brief(text: str, monkeypatch) -> dict:
    monkeypatch.setenv("AQUASCOPE_TODAY", "2026-12-01")
    ws = Workspace(site={"lat": 41.1, "lon": -74.96}, request={"text": text, "assume_defaults": True})
    return consultant(ws, text).brief


def test_help_bad_values_now_and_compound(monkeypatch):
    assert "The crew can study" in _brief("help", monkeypatch)["declined_reason"]
    bad = _brief("What is the -100 year flood?", monkeypatch)
    assert bad["bad_values"][0]["kind"] == "return_period" and "greater than 1" in bad["declined_reason"]
    assert _brief("Is the river unusually low right now?", monkeypatch)["playbook"] == "drought_status"
    b = _brief("What is the 50-year flood and are we in drought?", monkeypatch)
    assert b["playbook"] == "flood_risk" and "drought_status" in b["companions"]
    assert b["intake"]["return_period"] == 50
    b = _brief("What is the 100-year flow at the culvert, and how high will the water get there?", monkeypatch)
    assert b["playbook"] == "flood_risk" and b["not_answered"][0]["question"] == "how high will the water get there"
    assert _brief("How many cfs is the 50-year flood?", monkeypatch)["answer_unit"] == "ft3/s"
