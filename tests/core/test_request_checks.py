"""Values a request states that no study can take, each kind named with its valid range."""

from __future__ import annotations

import pytest

from aquascope_core.request_checks import describe, meaningless_values

TODAY = "2026-12-01"


@pytest.mark.parametrize("text,kind", [
    ("What is the -100 year flood?", "return_period"),
    ("Design flow for the minus 50 ... no, the −50-year flood", "return_period"),
    ("the 0-year flood at the culvert", "return_period"),
    ("a 1-year design flood", "return_period"),
    ("the 1 in 0 flood", "return_period"),
    ("a return period of 0 years", "return_period"),
    ("the flood with a probability of 1.5", "probability"),
    ("the 150 % AEP flood", "probability"),
    ("the 0 % annual chance flood", "probability"),
    ("mean flow at an ungauged site of 0 km2", "area"),
    ("Was the catchment in drought in March 2031?", "date"),
    ("drought status on 2027-06-01", "date"),
])
def test_each_bad_value_kind(text, kind):
    got = meaningless_values(text, TODAY)
    assert [p["kind"] for p in got] == [kind], got
    assert got[0]["valid"] and got[0]["stated"]
    assert got[0]["stated"] in describe(got)


@pytest.mark.parametrize("text", [
    "What is the 100-year flood?", "1 in 50 year flood for a culvert", "the 1 % AEP flood", "the 2 % annual chance flood",
    "a 0.01 annual exceedance probability flood", "Mean flow at an ungauged site of 250 km2", "Was it a drought in 2019?",
    "the design flood by 2080 under climate change", "Is the catchment in drought right now?", "", "help"])
def test_valid_values_are_not_questioned(text):
    assert meaningless_values(text, TODAY) == []
