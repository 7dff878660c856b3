"""How a host starts the crew and answers it: the input and output schemas, a chat message, a site from the
run's settings, every agent-inbox response form, edits that regenerate the plan's text, gates that must read
what their step produces, and the reviewer's decisions in the study file."""

from __future__ import annotations

import copy
import sqlite3

import pytest
import yaml
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command

from aquascope_core.errors import InputError
from graphs.context import CrewContext
from graphs.graph import compile_graph, graph as module_graph
from graphs.inputs import chat_text, site_from_text, start_update
from graphs.nodes import normalise_response
from aquascope_core.methodology import texts
from tests.answers import graph_past_request

TEXT = "Design flow for a road crossing, 100-year"


@pytest.fixture
def crew(tmp_path):
    conn = sqlite3.connect(str(tmp_path / "cp.sqlite"), check_same_thread=False)
    saver = SqliteSaver(conn)
    saver.setup()
    yield compile_graph(saver), CrewContext(artifact_root=str(tmp_path / "art"))
    conn.close()


def test_schemas_render_input_and_output():
    inp = module_graph.get_input_jsonschema()
    out = module_graph.get_output_jsonschema()
    assert {"messages", "site", "request"} <= set(inp["properties"])
    assert {"answer", "title", "artifacts", "status"} <= set(out["properties"])


def test_chat_forms_and_sites_in_words():
    assert chat_text([{"type": "human", "content": "a"}, {"type": "ai", "content": "b"}]) == "a"
    assert chat_text([{"role": "user", "content": [{"type": "text", "text": "flood at the bridge"}]}]) == "flood at the bridge"
    assert site_from_text("Design flow, 100-year, at 41.10, -74.96") == {"lat": 41.10, "lon": -74.96}
    assert site_from_text("the culvert at 41.10 N, 74.96 W") == {"lat": 41.10, "lon": -74.96}
    assert site_from_text("lat 46.2 lon 7.3 please") == {"lat": 46.2, "lon": 7.3}
    assert site_from_text("a 100-year flood, 2 km upstream") is None
    with pytest.raises(InputError, match="needs a site"):
        start_update({"messages": [{"type": "human", "content": TEXT}]}, {"configurable": {"thread_id": "t"}})
    up = start_update({"messages": [{"type": "human", "content": TEXT}]},
                      {"configurable": {"thread_id": "t1", "site": {"lat": 41.1, "lon": -74.96}}})
    assert up["site"] == {"lat": 41.1, "lon": -74.96} and up["request"]["text"] == TEXT and up["id"] == "t1"
    (msg,) = up["messages"]  # the workspace form, and the LangChain form chat UIs render
    assert {k: msg[k] for k in ("role", "kind", "text", "type", "content")} == {
        "role": "user", "kind": "text", "text": TEXT, "type": "human", "content": TEXT} and msg["id"]
    up = start_update({"request": {"text": TEXT}}, {}, CrewContext(site={"lat": 41.1, "lon": -74.96}))
    assert up["site"] == {"lat": 41.1, "lon": -74.96}


def test_a_chat_message_starts_a_study(crew):
    graph, ctx = crew
    cfg = {"configurable": {"thread_id": "t-chat"}}
    list(graph.stream({"messages": [{"type": "human", "content": TEXT + ", at 41.10, -74.96"}]}, cfg, context=ctx))
    graph_past_request(graph, cfg, ctx)
    snap = graph.get_state(cfg)
    assert snap.next == ("review",) and snap.values["id"] == "t-chat"
    assert snap.values["site"] == {"lat": 41.1, "lon": -74.96}
    assert snap.values["brief"]["intake"]["return_period"] == 100
    out = graph.invoke(Command(resume=[{"type": "accept", "args": None}]), cfg, context=ctx)
    assert set(out) <= {"id", "status", "answer", "title", "artifacts", "report", "messages"}
    assert out["status"] == "done" and "100-year peak flow at Flat Brook" in out["answer"] and out["title"].startswith("Design flood")


def test_response_forms():
    inbox = {"type": "edit", "args": {"action": "approve_plan", "args": {"study": {"x": 1}}}}
    assert normalise_response([inbox]) == {"type": "edit", "args": {"study": {"x": 1}}, "by": None}
    assert normalise_response({"type": "edit", "args": {"drop": ["s4"]}, "by": "ana"})["by"] == "ana"
    assert normalise_response("50 years")["type"] == "response"
    assert normalise_response(None)["type"] == "accept"
    assert normalise_response({"type": "nonsense"})["type"] == "invalid"


def test_inbox_edit_of_the_study_changes_the_run_and_its_text(crew):
    graph, ctx = crew
    cfg = {"configurable": {"thread_id": "t-inbox-edit", "reviewer": "ana"}}
    list(graph.stream({"site": {"lat": 41.10, "lon": -74.96}, "request": {"text": TEXT}}, cfg, context=ctx))
    graph_past_request(graph, cfg, ctx)
    intr = graph.get_state(cfg).interrupts[0].value[0]
    study = copy.deepcopy(intr["action_request"]["args"]["study"])
    s3 = next(s for s in study["steps"] if s["id"] == "s3")
    for g in s3["expects"]:  # the reviewer asks for the 200-year flood in the gates
        if "return_period" in g:
            g["return_period"] = 200
    s3["arguments"]["n_bootstrap"] = 300
    edit = {"type": "edit", "args": {"action": "approve_plan", "args": {"study": study}}}
    list(graph.stream(Command(resume=[edit]), cfg, context=ctx))
    graph_past_request(graph, cfg, ctx)
    values = graph.get_state(cfg).values
    assert values["status"] == "done"
    assert values["run"]["results"]["s3"]["payload"]["fits"]["gev_lmoments"]["ci"]["n_resamples"] == 300
    plan = values["study"]["plan"]
    assert plan["objective"].startswith("Estimate the 200-year flood") and plan["edited_by"] == "reviewer"
    lines = texts(plan["methodology"])
    assert any("n_bootstrap 1000 -> 300" in m for m in lines)
    # the line that quotes the step's resamples reads the edited value (its template follows the step)
    assert any(m.startswith("Estimate return levels") and "(300 resamples" in m for m in lines), lines
    assert values["brief"]["intake"]["return_period"] == 200
    assert "The 200-year peak flow" in values["report"]["answer"]
    edits = [d for d in plan["decisions"] if d["kind"] == "edit"]
    assert edits and edits[0]["by"] == "ana" and edits[0]["at"]
    assert any(c.get("field") == "arguments.n_bootstrap" and c["to"] == 300 for c in edits[0]["changes"])
    # the study file carries the decisions
    from aquascope_core.workspace import ArtifactStore

    ref = next(a for a in values["artifacts"] if a["name"] == "study.yaml")
    doc = yaml.safe_load(ArtifactStore(ctx.artifact_root).get(ref).decode())
    assert [d["kind"] for d in doc["plan"]["decisions"]] == ["edit"]


def test_an_edit_that_drops_what_a_gate_reads_is_refused(crew):
    graph, ctx = crew
    cfg = {"configurable": {"thread_id": "t-gate"}}
    list(graph.stream({"site": {"lat": 41.10, "lon": -74.96}, "request": {"text": TEXT}}, cfg, context=ctx))
    graph_past_request(graph, cfg, ctx)
    bad = {"type": "edit", "args": {"action": "approve_plan",
                                    "args": {"steps": {"s3": {"arguments": {"distributions": ["lp3_moments"]}}}}}}
    list(graph.stream(Command(resume=[bad]), cfg, context=ctx))
    graph_past_request(graph, cfg, ctx)
    snap = graph.get_state(cfg)
    assert snap.next == ("review",)
    msg = snap.values["messages"][-1]
    assert msg["kind"] == "plan_errors" and "reads fits.gev_lmoments.ci, which the step does not produce" in msg["text"]


def test_questions_answered_in_each_form(crew):
    graph, ctx = crew
    forms = {
        "edit-inbox": ({"type": "edit", "args": {"action": "answer_questions", "args": {"return_period": 50}}}, 50),
        "edit-questions": (None, 25),
        "response": ({"type": "response", "args": "200-year please"}, 200),
        "accept": ({"type": "accept", "args": None}, 100),
    }
    for name, (resp, want) in forms.items():
        cfg = {"configurable": {"thread_id": f"t-q-{name}"}}
        list(graph.stream({"site": {"lat": 41.10, "lon": -74.96}, "request": {"text": "flood risk at the culvert"}},
                          cfg, context=ctx))
        graph_past_request(graph, cfg, ctx)
        intr = graph.get_state(cfg).interrupts[0].value[0]
        assert intr["action_request"]["action"] == "answer_questions"
        if resp is None:  # the questions list itself, with an answer filled in
            qs = copy.deepcopy(intr["action_request"]["args"]["questions"])
            next(q for q in qs if q["field"] == "return_period")["answer"] = 25
            resp = {"type": "edit", "args": {"action": "answer_questions", "args": {"questions": qs}}}
        list(graph.stream(Command(resume=[resp]), cfg, context=ctx))
        graph_past_request(graph, cfg, ctx)
        snap = graph.get_state(cfg)
        assert snap.next == ("review",), name
        assert snap.values["brief"]["intake"]["return_period"] == want, name
        assert snap.values["study"]["plan"]["decisions"][0]["point"] == "questions"
    cfg = {"configurable": {"thread_id": "t-q-ignore"}}
    list(graph.stream({"site": {"lat": 41.10, "lon": -74.96}, "request": {"text": "flood risk at the culvert"}},
                      cfg, context=ctx))
    graph_past_request(graph, cfg, ctx)
    list(graph.stream(Command(resume=[{"type": "ignore", "args": None}]), cfg, context=ctx))
    graph_past_request(graph, cfg, ctx)
    assert graph.get_state(cfg).values["status"] == "declined"


def test_the_recorded_decisions_replay_the_reviewers_choices(crew):
    """With the plan as the methodologist wrote it and the decisions from the study file, the approved plan is
    rebuilt with no model and no person, and it runs to the same numbers."""
    from aquascope_core.runner import run_study
    from aquascope_core.study import Study
    from aquascope_core.workspace import Workspace
    from graphs.state import STATE_KEYS
    from roles.review import replay_decisions

    graph, ctx = crew
    cfg = {"configurable": {"thread_id": "t-replay"}}
    list(graph.stream({"site": {"lat": 41.10, "lon": -74.96}, "request": {"text": TEXT}}, cfg, context=ctx))
    graph_past_request(graph, cfg, ctx)
    edit = {"type": "edit", "args": {"intake": {"return_period": 50},
                                     "steps": {"s3": {"arguments": {"confidence": 0.8}}}, "drop": ["s4"]}}
    list(graph.stream(Command(resume=edit), cfg, context=ctx))
    graph_past_request(graph, cfg, ctx)
    final = graph.get_state(cfg).values
    at_plan = next(s for s in graph.get_state_history(cfg) if s.next == ("review",))
    ws = Workspace.from_dict({k: v for k, v in at_plan.values.items() if k in STATE_KEYS and v is not None})
    assert replay_decisions(ws, final["study"]["plan"]["decisions"]) == []
    assert ws.study["steps"] == final["study"]["steps"]
    assert ws.study["plan"]["objective"] == final["study"]["plan"]["objective"]
    replay = run_study(Study.from_dict(ws.study))
    assert replay.results["s3"].payload["fits"]["gev_lmoments"]["return_levels"] == \
        final["run"]["results"]["s3"]["payload"]["fits"]["gev_lmoments"]["return_levels"]
    assert "s4" not in replay.results
    # the dropped trend test is no longer described: its methodology line went with it, the rest stayed
    methodology = texts(final["study"]["plan"]["methodology"])
    assert not any("Mann-Kendall" in m for m in methodology), methodology
    assert any("step s4 (Trend in the annual maxima) dropped" in m for m in methodology)
    assert sum(m.startswith(("Read the daily", "Take the maximum", "Fit a generalized", "Estimate return levels",
                             "Accept the 50-year")) for m in methodology) == 5
    section = next(s for s in final["report"]["sections"] if s["id"] == "methodology")
    assert "Mann-Kendall" not in section["text"] and "50-year" in section["text"]
    assert texts(ws.study["plan"]["methodology"]) == methodology  # the replay rewrites it the same way


@pytest.mark.slow
def test_a_plan_edit_that_drops_spei_rewrites_the_reports_methods(crew):
    """Through the graph at the Leaf River: the plan interrupt, an edit dropping the SPEI step, then the report's
    Methods section, which no longer describes SPEI (its P - PET, log-logistic line) and still describes SPI."""
    graph, ctx = crew
    cfg = {"configurable": {"thread_id": "t-drought-drop"}}
    list(graph.stream({"site": {"lat": 31.7069, "lon": -89.4069}, "request": {"text": "Is the catchment in drought?"}},
                      cfg, context=ctx))
    graph_past_request(graph, cfg, ctx)
    snap = graph.get_state(cfg)
    intr = snap.interrupts[0].value[0]
    assert snap.next == ("review",) and intr["action_request"]["action"] == "approve_plan"
    assert "log-logistic" in intr["description"] or "log-logistic" in str(intr["action_request"]["args"])
    edit = {"type": "edit", "args": {"action": "approve_plan", "args": {"drop": ["s3"]}}}
    list(graph.stream(Command(resume=[edit]), cfg, context=ctx))
    graph_past_request(graph, cfg, ctx)
    values = graph.get_state(cfg).values
    assert values["status"] == "done" and "s3" not in values["run"]["results"]
    section = next(s for s in values["report"]["sections"] if s["id"] == "methodology")["text"]
    assert "log-logistic" not in section and "P - PET" not in section and "(SPEI)" not in section, section
    assert "two-parameter gamma distribution" in section and "(SSI)" in section
    assert "step s3 (Standardized Precipitation Evapotranspiration Index) dropped" in section


def test_a_dropped_steps_methodology_goes_with_it_and_only_its():
    """On the flood plan each optional step dropped alone takes the lines linked to it and only those; the
    indicative peak, which no line describes, takes none."""
    from aquascope_core import playbooks
    from aquascope_core.recon import assess_site
    from aquascope_core.workspace import Workspace
    from roles.review import apply_review_edit

    recon = assess_site(41.10, -74.96, problem="flood_risk", return_period=100)
    study = playbooks.plan("flood_risk", recon, {"return_period": 100}, question=TEXT)
    study.id = "w"
    lines = texts(study.plan["methodology"])

    def without(sid):
        ws = Workspace(id="w", brief={"playbook": "flood_risk", "intake": {"return_period": 100}},
                       inventory={"recon": recon}, study=study.to_dict())
        assert apply_review_edit(ws, {"drop": [sid]})[0] == []
        return [m for m in texts(ws.study["plan"]["methodology"]) if not m.startswith("Changed at review")]

    assert [m for m in lines if m not in without("s4")] == [m for m in lines if "Mann-Kendall" in m]
    optional = [s.id for s in study.steps if s.optional and s.id != "s4"]
    for sid in optional:  # the indicative peaks have no line of their own in this branch
        assert without(sid) == lines, sid
