"""The questions inside a request: the splitter, each part's study, help, and a low river "now"."""

from __future__ import annotations

import pytest

from roles import questions


@pytest.mark.parametrize("text,parts", [
    ("What is the 50-year flood and are we in drought?", ["What is the 50-year flood", "are we in drought"]),
    ("Give me the 100-year flood in cfs, and is the river low right now?",
     ["Give me the 100-year flood in cfs", "is the river low right now"]),
    ("Can we take 0.5 m3/s for supply? Is the catchment in drought?",
     ["Can we take 0.5 m3/s for supply", "Is the catchment in drought"]),
    ("100-year flood for the culvert; also how deep will it be at my house",
     ["100-year flood for the culvert", "also how deep will it be at my house"]),
    ("Are floods and droughts getting worse?", ["Are floods and droughts getting worse"]),
    ("Design flow for a road crossing, 100-year", ["Design flow for a road crossing, 100-year"]),
    ("Mean flow and Q95 at an ungauged site of 250 km2", ["Mean flow and Q95 at an ungauged site of 250 km2"]),
])
def test_split_questions(text, parts):
    assert questions.split_questions(text) == parts


def test_each_part_is_planned_or_named():
    got = questions.plan_parts("What is the 50-year flood and are we in drought?", "flood_risk")
    assert got == {"companions": [{"playbook": "drought_status", "question": "are we in drought"}], "not_answered": [],
                   "same_study": []}
    got = questions.plan_parts("100-year flood for the culvert; also how deep will it be at my house", "flood_risk")
    assert got["companions"] == [] and got["not_answered"][0]["question"] == "also how deep will it be at my house"
    assert "hydraulic model" in got["not_answered"][0]["why"]
    got = questions.plan_parts("What is the 100-year flood? And what colour is the sky?", "flood_risk")
    assert got["not_answered"][0]["question"] == "And what colour is the sky"
    assert questions.plan_parts("What is the 100-year flood?", "flood_risk") == {"companions": [], "not_answered": [],
                                                                               "same_study": []}
    got = questions.plan_parts("What is the 100-year flood and what is the 10-year flood?", "flood_risk")
    assert got["same_study"] == [{"playbook": "flood_risk", "question": "what is the 10-year flood"}]


def test_values_stated_for_the_study_are_its_data_not_further_questions():
    """The README's regression request: the characteristics and the region are what the flood study reads."""
    text = ("Design flow for a road crossing, 100-year. Basin characteristics: DRNAREA 64.0, STORAGE 2.9, CSL10_85 "
            "20.0, POPDENS 40.0; Valley and Ridge region.")
    assert len(questions.split_questions(text)) == 3
    assert questions.plan_parts(text, "flood_risk") == {"companions": [], "not_answered": [], "same_study": []}
    # a statement the primary study does not read stays a question of its own
    got = questions.plan_parts("Is the Leaf River in drought? Irrigation of 50 ha of maize planted in April",
                               "drought_status")
    assert got["companions"] == [{"playbook": "irrigation_feasibility",
                                  "question": "Irrigation of 50 ha of maize planted in April"}]


@pytest.mark.parametrize("text,yes", [("help", True), ("", True), ("  ", True), ("Hello!", True), ("flood", True),
                                      ("drought?", True), ("100-year flood", False), ("Is it dry?", False)])
def test_help_and_one_word(text, yes):
    assert questions.is_help(text) is yes


def test_help_lists_every_study_with_an_example():
    from aquascope_core import playbooks

    text = questions.help_text("help")
    for pb in playbooks.list_playbooks():
        assert pb["title"] in text and questions.EXAMPLES[pb["id"]] in text
    assert questions.help_text("flood").startswith('"flood" alone')
    assert questions.help_text("flood").index("Flood risk") < questions.help_text("flood").index("Drought status")


@pytest.mark.parametrize("text,yes", [("Is the river unusually low right now?", True),
                                      ("Are flows below normal at the moment?", True),
                                      ("Is the river low?", False),  # not about now
                                      ("Is the river in flood right now?", False),
                                      ("Is my well low right now?", False)])
def test_status_now(text, yes):
    assert questions.status_now(text) is yes
