"""Reading a problem text: word forms, synonyms, units, scope limits, trend and "now" questions."""

from __future__ import annotations

import pytest

from roles import reading
from roles.consultant import choose_playbook, read_intake


@pytest.mark.parametrize("word,stem", [("floods", "flood"), ("flooding", "flood"), ("flooded", "flood"),
                                       ("supplies", "supply"), ("wells", "well"), ("levels", "level"),
                                       ("dropping", "drop"), ("analysis", "analysis"), ("spring", "spring"),
                                       ("crosses", "cross"), ("is", "is")])
def test_stems(word, stem):
    assert reading.stem(word) == stem


@pytest.mark.parametrize("text,playbook", [
    ("Are floods here getting larger?", "flood_risk"),
    ("Is the spring freshet getting bigger?", "flood_risk"),
    ("How big is the 1-in-50 spate at the footbridge?", "flood_risk"),
    ("Is the Leaf River drying up?", "drought_status"),
    ("Are low flows falling at the gauge?", "drought_status"),
    ("Are the levels in my well dropping?", "groundwater_decline"),
    ("Irrigating 30 hectares of tomatoes", "irrigation_feasibility"),
    ("Can we abstract 20 Ml/d for the town?", "supply_reliability"),
    ("Is this water potable?", "water_quality"),
])
def test_word_forms_and_trend_questions_choose_the_playbook(text, playbook):
    assert choose_playbook(text)[0] == playbook


@pytest.mark.parametrize("text,T", [("100-year", 100), ("the 1-in-50 flood", 50), ("1 in 200", 200),
                                    ("2 % annual chance", 50), ("0.5% AEP", 200), ("a 50 yr event", 50),
                                    ("1 % annual exceedance probability", 100), ("a 30 year record", None),
                                    ("flood in my street", None)])
def test_return_periods(text, T):
    assert reading.return_period(text) == T


@pytest.mark.parametrize("text,value,unit", [("take 0.5 cumecs", 0.5, "m3/s"), ("take 20 cfs", 0.566, "m3/s"),
                                             ("20 Ml/d", 20.0, "Ml/d"), ("5,000 acre-feet a year", 6.17, "hm3/year"),
                                             ("2 mgd", 7.57, "Ml/d"), ("35 l/s", 35.0, "l/s"),
                                             ("3 million m3 per year", 3.0, "hm3/year")])
def test_flows_and_units(text, value, unit):
    got = reading.flow_in_text(text)
    assert got["unit"] == unit and got["value"] == pytest.approx(value, rel=1e-3)


def test_a_converted_demand_is_read_and_stated_as_an_assumption():
    got = read_intake("supply_reliability", "Can we take 20 cfs reliably, leaving 100 l/s in the river?")
    assert got["demand"] == pytest.approx(0.566) and got["demand_unit"] == "m3/s"
    assert got["environmental_flow_m3s"] == pytest.approx(0.1)
    assert read_intake("supply_reliability", "0.2 m3/s with no environmental flow")["environmental_flow_m3s"] == 0.0


@pytest.mark.parametrize("text,topic", [
    ("Which streets will flood in a 100-year event?", "which streets or buildings flood"),
    ("How deep will the water be at my house in the 1 in 100 flood?", "flood depth"),
    ("Map the inundation extent of the 100-year flood", "inundation extent"),
    ("How high will the water get at the bridge deck?", "water levels at a structure"),
    ("What is the freeboard of the culvert in a 50-year flood?", "water levels at a structure"),
    ("Sediment load into the reservoir", "sediment"),
    ("Bridge scour in the design flood", "sediment"),
    ("How far will the spill travel downstream?", "contaminant transport"),
])
def test_questions_no_study_answers(text, topic):
    assert reading.out_of_scope(text)["topic"] == topic


@pytest.mark.parametrize("text", ["Design flow for a road crossing, 100-year", "100-year flood for a bridge",
                                  "Is the Leaf River catchment in drought?", "Nitrate exceedances in the samples"])
def test_answerable_questions_are_in_scope(text):
    assert reading.out_of_scope(text) is None


def test_trend_and_now_words():
    assert reading.trend_asked("Are floods here getting larger?")["series"] == "floods"
    assert reading.trend_asked("Is the river drying up?")["series"] == "low flows"
    assert reading.trend_asked("Has nitrate been rising?")["series"] == "water quality"
    assert reading.trend_asked("Design flow for a bridge, 100-year") is None
    assert reading.trend_asked("The 100-year flood increased by 20 % for climate change") is None
    assert reading.trend_asked("Is the 100-year flood getting bigger?")["series"] == "floods"
    assert reading.trend_asked("Are floods increasing?")["series"] == "floods"
    assert reading.now_words("Is the catchment in drought right now, this summer?") == ["right now", "this summer"]
    assert reading.now_words("Drought status in August 1987") == []


def test_one_text_read_once_for_many_keywords():
    from roles.reading import text_matcher

    named = text_matcher("Are the freshets at the Flat Brook getting bigger? 20 cfs is our intake.")
    assert [named(k) for k in ("spring flood", "flood", "ft3/s", "flat brook", "drought", "intake", "bigger", "brooks", "lake")] \
        == [True, True, True, True, False, True, True, True, False]
    assert [reading.matches(k, "Flooding downstream") for k in ("flood", "floods", "flooded", "downstream", "stream")] == \
        [True, True, True, True, False]
