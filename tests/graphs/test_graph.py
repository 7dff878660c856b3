"""The LangGraph crew: interrupts and resumes with a real SQLite checkpointer, JSON-safe state, the Studio API,
and the module langgraph.json names."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command

from aquascope_core.errors import DataNotFoundError, InputError, StudyError
from graphs.context import CrewContext
from graphs.graph import compile_graph
from graphs.studio import Studio
from tests.answers import graph_past_request, past_request, waits_for_characteristics

TEXT = "Design flow for a road crossing, 100-year"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def saver(tmp_path):
    conn = sqlite3.connect(str(tmp_path / "cp.sqlite"), check_same_thread=False)
    s = SqliteSaver(conn)
    s.setup()
    yield s
    conn.close()


def start(graph, cfg, ctx, text=TEXT, site=(41.10, -74.96)):
    """Start the study; at Flat Brook the crew asks for the basin characteristics first: gone on without them."""
    chunks = list(graph.stream({"id": cfg["configurable"]["thread_id"], "site": {"lat": site[0], "lon": site[1]},
                                "request": {"text": text}, "status": "intake"}, cfg, context=ctx,
                               stream_mode=["custom", "updates"]))
    return chunks + graph_past_request(graph, cfg, ctx, stream_mode=["custom", "updates"])


def test_plan_interrupt_then_accept_runs_to_the_report(saver, tmp_path):
    graph = compile_graph(saver)
    cfg = {"configurable": {"thread_id": "t-accept"}}
    ctx = CrewContext(artifact_root=str(tmp_path / "art"))
    chunks = start(graph, cfg, ctx)
    snap = graph.get_state(cfg)
    assert snap.next == ("review",)
    intr = snap.interrupts[0].value[0]  # a one-element list, as langgraph.prebuilt emits them
    assert intr["action_request"]["action"] == "approve_plan"
    assert intr["config"] == {"allow_accept": True, "allow_edit": True, "allow_respond": True, "allow_ignore": True}
    assert "At-site flood frequency analysis" in intr["description"]
    # every role streamed its events through the custom stream
    roles = {c[1].get("role") for c in chunks if c[0] == "custom"}
    assert {"consultant", "scout", "methodologist"} <= roles
    json.dumps(snap.values)  # the state is JSON-safe
    assert snap.values["status"] == "review" and snap.values["study"]["plan"]["branch"] == "at_site"
    list(graph.stream(Command(resume=[{"type": "accept", "args": None}]), cfg, context=ctx))
    values = graph.get_state(cfg).values
    assert values["status"] == "done" and values["report"]["critique_ok"]
    assert values["study"]["plan"]["approved"] is True
    assert {a["name"] for a in values["artifacts"]} >= {"report.md", "report.docx", "workbook.xlsx", "study.yaml",
                                                        "workspace.json", "bundle.zip"}
    assert all("sha256" in a and "data" not in a for a in values["artifacts"])  # references, not bytes
    json.dumps(values)


def test_edit_with_an_invalid_step_keeps_the_plan_and_asks_again(saver, tmp_path):
    graph = compile_graph(saver)
    cfg = {"configurable": {"thread_id": "t-edit"}}
    ctx = CrewContext(artifact_root=str(tmp_path))
    start(graph, cfg, ctx)
    bad = {"type": "edit", "args": {"steps": {"s3": {"arguments": {"n_boot": 10}}}}}
    list(graph.stream(Command(resume=bad), cfg, context=ctx))
    snap = graph.get_state(cfg)
    assert snap.next == ("review",)
    assert snap.values["messages"][-1]["kind"] == "plan_errors"
    assert "step s3: flood_frequency does not take 'n_boot'" in snap.values["messages"][-1]["text"]
    good = {"type": "edit", "args": {"steps": {"s3": {"arguments": {"n_bootstrap": 200}}}, "drop": ["s4"]}}
    list(graph.stream(Command(resume=good), cfg, context=ctx))
    values = graph.get_state(cfg).values
    assert values["status"] == "done" and [s["id"] for s in values["study"]["steps"]] == ["s1", "s2", "s3", "s6"]
    assert values["run"]["results"]["s3"]["payload"]["fits"]["gev_lmoments"]["ci"]["n_resamples"] == 200


def test_ignore_declines_and_response_replans(saver, tmp_path):
    graph = compile_graph(saver)
    ctx = CrewContext(artifact_root=str(tmp_path))
    cfg = {"configurable": {"thread_id": "t-ignore"}}
    start(graph, cfg, ctx)
    list(graph.stream(Command(resume={"type": "ignore"}), cfg, context=ctx))
    assert graph.get_state(cfg).values["status"] == "declined"
    cfg = {"configurable": {"thread_id": "t-respond"}}
    start(graph, cfg, ctx)
    list(graph.stream(Command(resume={"type": "response", "args": "use 50 years instead"}), cfg, context=ctx))
    snap = graph.get_state(cfg)
    assert not waits_for_characteristics(snap)  # the request was answered (by the step that asked) in this study
    assert snap.next == ("review",) and snap.values["brief"]["intake"]["return_period"] == 50
    assert snap.values["study"]["steps"][2]["expects"][0]["return_period"] == 50


def test_questions_interrupt_then_defaults(saver, tmp_path):
    graph = compile_graph(saver)
    cfg = {"configurable": {"thread_id": "t-questions"}}
    ctx = CrewContext(artifact_root=str(tmp_path))
    start(graph, cfg, ctx, text="flood risk at the culvert")
    snap = graph.get_state(cfg)
    assert snap.next == ("clarify",)
    assert snap.interrupts[0].value[0]["action_request"]["action"] == "answer_questions"
    list(graph.stream(Command(resume={"type": "response", "args": "200-year please"}), cfg, context=ctx))
    assert waits_for_characteristics(graph.get_state(cfg))  # the plan for a 200-year flood asks for them in turn
    graph_past_request(graph, cfg, ctx)
    snap = graph.get_state(cfg)
    assert snap.next == ("review",) and snap.values["brief"]["intake"]["return_period"] == 200


def test_the_langgraph_json_graph_has_no_checkpointer_of_its_own():
    spec = json.loads((ROOT / "langgraph.json").read_text())
    path, _, attr = spec["graphs"]["aquascope"].partition(":")
    assert path == "./graphs/graph.py" and attr == "graph"
    from graphs.graph import graph

    assert graph.checkpointer is None
    assert set(graph.get_graph().nodes) >= {"consultant", "clarify", "scout", "methodologist", "review", "analysts",
                                            "interpreter", "critic", "author"}


def test_studio_api_round_trip(tmp_path):
    with Studio(41.10, -74.96, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}") as s:
        r = s.say(TEXT)
        assert r.kind == "data_request" and s.pending() == "provide_data"
        with pytest.raises(StudyError, match="waits for data, not for an approval"):
            s.approve()
        r = past_request(s, r)
        assert r.kind == "plan" and s.pending() == "approve_plan" and "Plan:" in r.text
        r = s.approve()
        assert r.kind == "report" and "138 m3/s" in r.text and r.payload["critique_ok"]
        paths = s.export(tmp_path / "out")
        assert {p.name for p in paths} >= {"report.md", "report.html", "report.docx", "study.yaml", "workspace.json"}
        ws = s.to_dict()
    with Studio.from_dict(ws, checkpointer=f"sqlite:///{tmp_path / 'other.sqlite'}") as s2:
        assert s2.status == "done" and s2.to_dict()["report"]["answer"] == ws["report"]["answer"]
    with pytest.raises(DataNotFoundError, match="no study 'st-missing'"):
        Studio.resume("st-missing", checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}")
    with pytest.raises(InputError, match="lat="):
        Studio(95, 0)
    with Studio(41.1, -74.96, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}") as s3:
        with pytest.raises(InputError, match="problem text is empty"):
            s3.say("  ")
        with pytest.raises(StudyError, match="no plan waiting"):
            s3.approve()


def test_follow_up_with_a_new_return_period_replans_for_review(tmp_path):
    with Studio(41.10, -74.96, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}") as s:
        past_request(s, s.say(TEXT))
        s.approve()
        r = s.follow_up("redo it with a 200-year return period")
        assert r.kind == "plan" and s.to_dict()["brief"]["intake"]["return_period"] == 200
        r = s.approve()
        assert r.kind == "report" and "200-year peak flow at Flat Brook near Flatbrookville NJ is indicatively" in r.text


def _python(code: str, home: Path) -> subprocess.CompletedProcess:
    env = {"AQUASCOPE_HOME": str(home), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                          timeout=300, cwd=str(ROOT))


def test_a_killed_process_loses_nothing_and_a_new_process_resumes(tmp_path):
    """Stop at the plan and kill the process hard (no clean shutdown); a second process approves it."""
    started = _python("""
        import os
        from graphs.studio import Studio
        s = Studio(41.10, -74.96)
        r = s.say("Design flow for a road crossing, 100-year")
        assert r.kind == "data_request"
        r = s.say("continue without")  # the basin characteristics the crew asks for: gone on without
        print(s.id, r.kind, flush=True)
        os._exit(9)
    """, tmp_path)
    assert started.returncode == 9, started.stderr
    study_id, kind = started.stdout.split()
    assert kind == "plan"
    resumed = _python(f"""
        from graphs.studio import Studio
        with Studio.resume({study_id!r}) as s:
            assert s.pending() == "approve_plan"
            r = s.approve()
            print(r.kind, s.to_dict()["run"]["summary"]["ok"])
    """, tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.split() == ["report", "5"]  # s1-s4 and the indicative peak (s6)
