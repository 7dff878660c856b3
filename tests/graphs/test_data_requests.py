"""Data requests: a decline for want of data the user could bring parks the study at ``waiting``; the user brings a
table, states the value, or says "continue without" (applied where the request allows it); the graph interrupt is
in the agent-inbox shape."""

from __future__ import annotations

import pytest

from aquascope_core.data import get_source
from graphs.studio import Studio
from roles.requests import RULES, request_for

FLAT_BROOK = (41.10, -74.96)   # 79 water years of daily-mean maxima (USGS 01440000), no donors offline
ATLANTIC = (30.0, -40.0)       # nothing within reach


def well_csv() -> str:
    s = get_source("spotpy_hesse").fetch_series("schwingbach_site24", "groundwater_level")
    return "date,gwhead (m)\n" + "".join(f"{t.date()},{v}\n" for t, v in s.items())


@pytest.fixture
def studio(tmp_path):
    s = Studio(*FLAT_BROOK, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}", artifact_root=str(tmp_path / "art"))
    yield s
    s.close()


def test_a_return_period_beyond_the_record_waits_and_continues_without_at_the_largest_supported(studio):
    r = studio.say("Spillway design flood, 1000-year")
    assert r.kind == "data_request" and studio.status == "waiting" and studio.pending() == "provide_data"
    req = r.payload["request"]
    from aquascope_core import playbooks

    ws = studio.to_dict()
    cap = playbooks.scope_for(ws["inventory"]["recon"], ws["brief"]["intake"],
                              playbooks.load("flood_risk"))["derived"]["return_period_cap"]
    assert 200 < cap < 1000  # 3 x the 80-year record
    assert req["continue_without"] == {"return_period": int(cap)} and req["grade_without"] == "B"
    assert "longer flood record" in r.text and "continue without" in r.text
    snap = studio._snapshot()
    value = snap.interrupts[0].value[0]  # a one-element list, as langgraph.prebuilt emits HumanInterrupts
    assert value["action_request"]["action"] == "provide_data" and value["config"]["allow_accept"] is True
    r = studio.say("continue without")
    # the plan at the supported return period asks for the regression's basin characteristics in turn
    assert r.kind == "data_request" and r.payload["request"]["stands_without"] and "basin characteristics" in r.text
    r = studio.say("continue without")
    assert r.kind == "plan" and studio.to_dict()["brief"]["intake"]["return_period"] == int(cap)
    r = studio.approve()
    ws = studio.to_dict()
    assert r.kind == "report" and ws["findings"]["decision"]["grade"] >= "B"
    assert any("Continued without a longer flood record" in a for a in ws["brief"]["assumptions"])
    assert ws["pending_request"] is None


def test_a_table_brought_at_waiting_is_inventoried_and_planned_on(tmp_path):
    with Studio(*ATLANTIC, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}") as s:
        r = s.say("Are groundwater levels falling at our well?")
        assert r.kind == "data_request" and "well's level record" in r.text
        assert r.payload["request"]["continue_without"] is None
        s.add_table("our_well.csv", well_csv())
        r = s.reply()
        assert r.kind == "plan", r.text
        ws = s.to_dict()
        assert "our_well.csv" in ws["tables"] and any(d.get("kind") == "upload" for d in ws["inventory"]["datasets"])
        assert s.approve().kind == "report"


def test_continue_without_where_no_continuation_exists_declines_naming_what_would_help(tmp_path):
    with Studio(*ATLANTIC, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}") as s:
        s.say("Are groundwater levels falling at our well?")
        r = s.say("continue without")
        assert r.kind == "declined" and "well's level record" in r.text and "no way to continue" in r.text


def test_the_missing_value_in_words_is_read_into_the_brief(tmp_path):
    with Studio(*ATLANTIC, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}") as s:
        r = s.say("Mean flow at an ungauged site")
        assert r.kind in ("data_request", "questions")
        if r.kind == "questions":
            r = s.say("just go")
        assert r.kind == "data_request" and "catchment area" in r.text
        r = s.say("the catchment area is 120 km2")
        assert s.to_dict()["brief"]["intake"].get("area_km2") == 120
        assert r.kind in ("data_request", "declined", "plan")  # the next gap (donors) is its own request


def test_every_rule_matches_a_decline_its_playbook_can_say():
    import yaml
    from aquascope_core import playbooks

    for pid, rules in RULES.items():
        says = " ".join(d["say"] for d in playbooks.load(pid).get("declines", []))
        for rule in rules:
            assert request_for(pid, says) is not None, (pid, rule.match)
            import re
            assert re.search(rule.match, says, re.I), f"{pid}: {rule.match!r} matches none of its declines"
    assert request_for("ungauged_flow", "The site is gauged: use its record.") is None  # not a data request


@pytest.mark.slow
def test_the_basin_characteristics_the_plan_asks_for_wait_at_the_interrupt_every_face_answers(tmp_path):
    """Flat Brook's design flood: the regression's characteristics are asked for at the ``provide_data`` interrupt
    (the CLI, the Studio, the sdk and the desk answer it); the desk form's answers resume the graph: "continue
    without" -> the indicative peak, graded C at most, Not for design; the values in words -> the regression peak."""
    from langgraph.types import Command

    from graphs.desk.data_request import data_answer, data_section

    def waiting(s):
        r = s.say("Design flow for a road crossing, 100-year")
        assert r.kind == "data_request" and s.pending() == "provide_data" and s.status == "waiting"
        value = s._snapshot().interrupts[0].value[0]
        assert value["config"]["allow_accept"] is True and value["action_request"]["args"]["request"]["stands_without"]
        html = data_section(value, s.id)  # the desk's form: each characteristic with its unit, where to find them
        assert "Continue without it" in html and "<td><code>DRNAREA</code></td><td>mi^2</td>" in html
        assert "Where to find them: StreamStats" in html and "graded at most C" in html
        return r

    with Studio(*FLAT_BROOK, checkpointer=f"sqlite:///{tmp_path / 'a.sqlite'}", artifact_root=str(tmp_path / "a")) as s:
        waiting(s)
        resume, table = data_answer({"do": "continue"}, {})
        assert resume == {"type": "accept", "args": None} and table is None
        plan = s._run(Command(resume=resume))
        assert plan.kind == "plan" and plan.payload["study"]["steps"][-1]["tool"] == "indicative_peak"
        assert s.approve().kind == "report"
        d = s.to_dict()["findings"]["decision"]
        assert d["method"] == "fuller_indicative" and d["grade"] >= "C" and d["answer"].startswith("Not for design")
    with Studio(*FLAT_BROOK, checkpointer=f"sqlite:///{tmp_path / 'b.sqlite'}", artifact_root=str(tmp_path / "b")) as s:
        waiting(s)
        resume, _ = data_answer({"data_words": "DRNAREA 64.0, STORAGE 2.9, CSL10_85 20.0, POPDENS 40.0; Valley and "
                                               "Ridge region"}, {})
        plan = s._run(Command(resume=resume))
        assert plan.kind == "plan" and plan.payload["study"]["steps"][-1]["tool"] == "nss_peak_regression"
        assert s.approve().kind == "report"
        d = s.to_dict()["findings"]["decision"]
        assert d["method"] == "nss_regression" and d["value"] == pytest.approx(5004.8, rel=1e-4) and d["grade"] == "B"
