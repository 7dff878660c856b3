"""History, forks and the sensitivity table: a fork is a new study with its parent recorded, its report
follows its fork, and each sensitivity fork replays identically with no model and no graph."""

from __future__ import annotations

import pytest

from aquascope_core.errors import InputError, StudyError
from aquascope_core.paths import get_path
from aquascope_core.runner import run_study
from aquascope_core.study import Study
from graphs.studio import Studio
from tests.answers import past_request

TEXT = "Design flow for a road crossing, 100-year"


@pytest.fixture
def finished(tmp_path):
    with Studio(41.10, -74.96, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}",
                artifact_root=tmp_path / "studies" / "base" / "artifacts") as s:
        past_request(s, s.say(TEXT))
        s.approve(by="ana")
        assert s.to_dict()["study"]["plan"]["decisions"][-1]["by"] == "ana"
        yield s


def test_history_lists_the_checkpoints_with_their_step_and_status(finished):
    rows = finished.history()
    assert [r["step"] for r in rows] == sorted(r["step"] for r in rows)
    waiting = [r for r in rows if r["waiting_for"] == "approve_plan"]
    assert len(waiting) == 1 and waiting[0]["next"] == ["review"] and waiting[0]["status"] == "review"
    assert rows[-1]["status"] == "done" and rows[-1]["next"] == []
    with pytest.raises(InputError, match="at='nope'"):
        finished.fork(at="nope")
    with pytest.raises(StudyError, match="never waited for answer questions"):
        finished.fork(at="questions")


def test_a_fork_is_a_new_study_whose_report_follows_the_fork(finished, tmp_path):
    fork = finished.fork(edits={"intake": {"return_period": 200}}, by="ana")
    assert fork.id != finished.id and fork.status == "done"
    ws = fork.workspace()
    plan = ws.study["plan"]
    assert plan["parent"]["study"] == finished.id
    assert plan["objective"].startswith("Estimate the 200-year flood")
    assert "The 200-year peak flow" in ws.report["answer"] and "200-year" in ws.report["title"] + plan["objective"]
    assert [d["kind"] for d in plan["decisions"]] == ["fork", "edit"]  # the parent's accept came after the plan
    assert plan["decisions"][0]["by"] == "ana" and plan["decisions"][0]["parent"] == finished.id
    # the parent is untouched and the fork's files are its own
    assert "The 100-year peak flow" in finished.workspace().report["answer"]
    paths = fork.export(tmp_path / "fork-out")
    assert "The 200-year peak flow" in (tmp_path / "fork-out" / "report.md").read_text()
    assert fork.id in fork.artifact_root and fork.artifact_root != finished.artifact_root and paths
    # a fork from a checkpoint that waits for nothing runs on from there
    after_plan = next(r for r in finished.history() if r["next"] == ["interpreter"])
    rerun = finished.fork(at=after_plan["checkpoint_id"])
    assert rerun.status == "done" and rerun.workspace().report["answer"] == finished.workspace().report["answer"]
    with pytest.raises(StudyError, match="waits for nothing"):
        finished.fork(at=after_plan["checkpoint_id"], edits={"drop": ["s4"]})


def test_langgraphs_own_fork_takes_the_new_answer(finished):
    """LangGraph's fork: the plan checkpoint resumed by id with a new answer. The checkpoint keeps the parent's
    accept among its pending writes; the project's savers (graphs.forks.PastAnswersStay) leave it out of a
    checkpoint the thread has moved past, so the branch runs with the edit it was sent."""
    from langgraph.types import Command

    plan = next(r for r in finished.history() if r["waiting_for"] == "approve_plan")
    at = {"configurable": {"thread_id": finished.id, "checkpoint_id": plan["checkpoint_id"]}}
    stored = finished.graph.checkpointer.get_tuple({"configurable": {"thread_id": finished.id, "checkpoint_ns": "",
                                                                     "checkpoint_id": plan["checkpoint_id"]}})
    assert all(w[1] != "__resume__" for w in stored.pending_writes)  # read without the parent's answer
    before = finished.workspace().report["answer"]
    finished.graph.invoke(Command(resume={"type": "edit", "args": {"intake": {"return_period": 200}}}), at,
                          context=finished.context)
    values = finished.graph.get_state(finished.config).values
    assert values["status"] == "done" and "The 200-year peak flow" in values["answer"]
    assert values["study"]["plan"]["objective"].startswith("Estimate the 200-year flood")
    # a branch off the plan checkpoint: the parent's report is still in the thread's history
    assert "The 100-year peak flow" in before
    old = [s for s in finished.graph.get_state_history(finished.config) if (s.values or {}).get("answer") == before]
    assert len(old) == 1 and old[0].values["status"] == "done"
    # the head itself is read as stored (a resume there needs the answers already given)
    head = finished.graph.checkpointer.get_tuple({"configurable": {"thread_id": finished.id, "checkpoint_ns": ""}})
    again = finished.graph.checkpointer.get_tuple(head.config)
    assert again.pending_writes == head.pending_writes


@pytest.mark.slow
def test_sensitivity_table_from_forks_each_replaying_identically(finished, tmp_path):
    out = finished.sensitivity(by="ana")
    rows = out["rows"]
    ran = [r for r in rows[1:] if r.get("value") is not None]
    assert len(ran) >= 4
    assert {r["choice"] for r in ran} >= {"return period", "distribution", "confidence level", "record excluded"}
    skew = next(r for r in rows if r["choice"] == "regional skew")
    assert "Bulletin 17C only" in skew["skipped"]
    by_variant = {r["variant"]: r for r in ran}
    assert by_variant["200-year"]["value"] > rows[0]["value"] > by_variant["50-year"]["value"]
    assert by_variant["95 % band"]["band"]["confidence"] == 0.95
    excluded = next(r for r in ran if r["choice"] == "record excluded")
    assert excluded["value"] < rows[0]["value"]  # leaving the largest flood out lowers the estimate
    # the table is in the report and its report.md
    ws = finished.workspace()
    section = next(s for s in ws.report["sections"] if s["id"] == "sensitivity")
    assert len(section["tables"][0]["rows"]) == len(rows)
    finished.export(tmp_path / "out")
    md = (tmp_path / "out" / "report.md").read_text()
    assert "## Sensitivity" in md and "largest annual maximum (water year" in md
    assert ws.study["plan"]["decisions"][-1]["kind"] == "sensitivity"
    # each fork replays identically from its study alone
    for fork in out["forks"]:
        fws = fork.workspace()
        decision = fws.findings["decision"]
        replay = run_study(Study.from_dict(fws.study))
        step, _, path = decision["basis"].partition(".")
        assert get_path(replay.results[step].payload, path) == pytest.approx(decision["value"], rel=1e-12)
        for sid, res in replay.results.items():
            assert res.status == fws.run["results"][sid]["status"]
