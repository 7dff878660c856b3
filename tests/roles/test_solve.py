"""solve(): the headless entry point, keyless by default, with a review callback and a plan-only mode."""

from __future__ import annotations

import pytest

from aquascope_core.errors import InputError, PlanValidationError
from aquascope_core.runner import run_study
from aquascope_core.study import Study
from roles.model import ScriptedModel
from graphs.solve import solve

SITE = dict(lat=41.10, lon=-74.96)


def test_solve_keyless_end_to_end():
    r = solve("Design flow for a road crossing, 100-year", **SITE)
    assert not r.declined and r.run.ok and r.study.version == 3
    assert "100-year peak flow at Flat Brook near Flatbrookville NJ is indicatively" in r.answer  # Fuller (1914)
    # the crew asked for the site's basin characteristics (the provide_data interrupt); nobody is there to bring
    # them, so solve went on without them, as "continue without" does, and the study says so
    assert r.answer.startswith("Not for design")
    assert r.workspace["brief"]["asks_answered"] == ["s6"]
    said = [a for a in r.workspace["brief"]["assumptions"] if a.startswith("Continued without the data the plan")]
    assert said == ["Continued without the data the plan asked for: the site's basin characteristics for the USGS "
                    "regression equations of NJ (the study will carry out the plan as it stands, which gives an "
                    "indicative peak (Fuller 1914), marked \"Not for design\")"]
    assert any(e["event"] == "data_request" and e["role"] == "methodologist" for e in r.timeline)
    assert {c["check"] for c in r.checks} >= {"numbers_in_results", "findings_resolve"}
    assert all(c["passed"] for c in r.checks)
    roles = [e["role"] for e in r.timeline]
    assert roles.index("consultant") < roles.index("scout") < roles.index("methodologist") < roles.index("analysts") \
        < roles.index("interpreter") < roles.index("critic") < roles.index("author")
    assert r.cost == {}  # no model, no calls
    # the executed study replays with no model to the same numbers
    again = run_study(Study.from_dict(r.study.to_dict()))
    assert again.results["s3"].payload["fits"] == r.run.results["s3"].payload["fits"]


def test_plan_only_and_the_intake_form():
    r = solve({"text": "flood at the culvert", "playbook": "flood_risk", "intake": {"return_period": 25}}, **SITE,
              execute=False)
    assert r.run is None and r.study.plan["branch"] == "at_site"
    assert r.study.steps[2].expects[0]["return_period"] == 25


def test_review_callback_edits_declines_or_is_refused():
    def drop_trend(study):
        study.steps = [s for s in study.steps if s.tool != "trend_test"]
        return study

    r = solve("Design flow for a road crossing, 50-year", **SITE, review=drop_trend)
    assert list(r.run.results) == ["s1", "s2", "s3", "s6"] and r.run.ok
    r = solve("Design flow for a road crossing, 50-year", **SITE, review=lambda s: None)
    assert r.declined and r.declined_reason == "The plan was not approved." and r.run is None

    def break_it(study):
        study.steps[2].arguments["n_boot"] = 5
        return study

    with pytest.raises(PlanValidationError, match="step s3: flood_frequency does not take 'n_boot'"):
        solve("Design flow for a road crossing, 50-year", **SITE, review=break_it)


def test_declines_and_bad_input():
    r = solve("Design flow for a bridge, 100-year", lat=30.0, lon=-40.0)
    assert r.declined and "No discharge record" in r.declined_reason and r.answer == r.declined_reason
    with pytest.raises(InputError):
        solve("", **SITE)
    with pytest.raises(InputError, match="lat"):
        solve("flood", lat=123, lon=0)


def test_a_model_is_used_only_when_asked_and_its_cost_is_per_role():
    model = ScriptedModel([{"intake": {"return_period": 20}},
                           "no plan", "still no plan",                 # the methodologist: the tree is used
                           {"findings": [], "answer": ""}, {"sections": {}}, {"issues": []}],
                          cost_usd=0.001)
    r = solve("Design flow for a road crossing", **SITE, client=model)
    assert r.study.plan["playbook"] == "flood_risk" and r.study.steps[2].expects[0]["return_period"] == 20
    assert r.study.plan["author"] == "playbook" and r.workspace["request"]["plan_used"] == "tree"
    assert set(r.cost) == {"consultant", "methodologist", "interpreter", "author", "critic"}
    assert r.cost["consultant"]["calls"] == 1 and r.cost["consultant"]["cost_usd"] == 0.001
