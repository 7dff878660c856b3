"""The conversation a chat UI or an inbox has with the crew's graph (run here over an in-memory checkpointer,
the same graph langgraph.json serves): a chat message to a finished thread is a follow-up, answered from the
results or planned again, never a wipe; a follow-up sent alone as ``{"request": {"follow_up": ...}}``; every
state message also in the LangChain form (type, content, id); LangChain v1 ``{"decisions": [...]}`` answers;
edit args as a JSON string; the questions form's ``default``; a refused edit asked again with its reason."""

from __future__ import annotations

import json
import re

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from graphs.graph import compile_graph
from tests.answers import graph_past_request

TEXT = "Design flow for a road crossing, 100-year, at 41.10, -74.96"


@pytest.fixture()
def graph(tmp_path, monkeypatch):
    monkeypatch.setenv("AQUASCOPE_HOME", str(tmp_path / "home"))
    return compile_graph(InMemorySaver())


def _cfg(tid: str) -> dict:
    return {"configurable": {"thread_id": tid}}


def _interrupt(graph, cfg) -> dict:
    value = graph.get_state(cfg).interrupts[0].value
    return value[0] if isinstance(value, list) else value


def _finished(graph, tid: str) -> dict:
    cfg = _cfg(tid)
    graph.invoke({"messages": [{"type": "human", "content": TEXT, "id": "m-1"}]}, cfg)
    graph_past_request(graph, cfg, None)  # the basin characteristics the crew asks for: gone on without them
    graph.invoke(Command(resume={"decisions": [{"type": "approve"}]}), cfg)
    return graph.get_state(cfg).values


@pytest.mark.slow
def test_a_chat_message_to_a_finished_thread_is_a_follow_up(graph):
    cfg = _cfg("t-chat")
    done = _finished(graph, "t-chat")
    assert done["status"] == "done"
    before = done["messages"]
    graph.invoke({"messages": [{"type": "human", "content": "What is the 100-year flow?", "id": "m-2"}]}, cfg)
    snap = graph.get_state(cfg)
    after = snap.values["messages"]
    assert after[: len(before)] == before and len(after) == len(before) + 2  # the question and its answer
    question, answer = after[-2:]
    assert question["role"] == "user" and question["content"] == "What is the 100-year flow?" and question["id"] == "m-2"
    assert answer["kind"] == "answer" and answer["payload"]["answered"] is True
    numbers = re.findall(r"\d+(?:\.\d+)? m3/s", answer["text"])
    assert numbers and all(n in json.dumps(snap.values["run"]) or n.split()[0] in json.dumps(snap.values["run"])
                           for n in numbers)
    assert snap.next == () and snap.values["status"] == "done"
    assert snap.values["request"]["text"] == TEXT  # the study's request kept
    for m in after:  # every message also as a LangChain message
        assert m["type"] in ("human", "ai") and isinstance(m["content"], str) and m["id"], m

    # a change in words is planned again for review, the conversation kept
    graph.invoke({"messages": [{"type": "human", "content": "Redo it for the 200-year flood", "id": "m-3"}]}, cfg)
    snap = graph.get_state(cfg)
    assert snap.next == ("review",) and len(snap.values["messages"]) > len(after)
    assert _interrupt(graph, cfg)["action_request"]["args"]["study"]["problem"]["params"]["return_period"] == 200


@pytest.mark.slow
def test_a_follow_up_sent_alone_keeps_the_request(graph):
    cfg = _cfg("t-req")
    before = _finished(graph, "t-req")
    graph.invoke({"request": {"follow_up": "What is the 100-year flow?"}}, cfg)
    values = graph.get_state(cfg).values
    assert values["request"]["text"] == TEXT and "follow_up" not in values["request"]
    assert values["request"]["decisions"] == before["request"]["decisions"]
    assert values["messages"][-1]["kind"] == "answer" and len(values["messages"]) == len(before["messages"]) + 1


@pytest.mark.slow
def test_decisions_string_args_and_a_refused_edit_asked_again_with_its_reason(graph):
    cfg = _cfg("t-edit")
    graph.invoke({"site": {"lat": 41.10, "lon": -74.96}, "request": {"text": "Design flow, 100-year"}}, cfg)
    graph_past_request(graph, cfg, None)
    plan = _interrupt(graph, cfg)
    assert plan["action_request"]["action"] == "approve_plan"
    # a refused edit: the same plan asked again, the reason leading the description
    graph.invoke(Command(resume={"decisions": [{"type": "edit", "edited_action": {
        "name": "approve_plan", "args": {"drop": ["s-nope"]}}}]}), cfg)
    again = _interrupt(graph, cfg)
    assert again["description"].startswith("Your edit was not applied") and "s-nope" in again["description"]
    # an edit sent as a JSON string (as inbox UIs send it) is applied
    study = again["action_request"]["args"]["study"]
    next(s for s in study["steps"] if s["id"] == "s3")["arguments"]["n_bootstrap"] = 200
    graph.invoke(Command(resume=[{"type": "edit", "args": json.dumps({"action": "approve_plan",
                                                                      "args": {"study": study}})}]), cfg)
    values = graph.get_state(cfg).values
    assert values["status"] == "done"
    assert values["run"]["results"]["s3"]["payload"]["fits"]["gev_lmoments"]["ci"]["n_resamples"] == 200
    assert [d["kind"] for d in values["request"]["decisions"]] == ["edit"]


@pytest.mark.slow
def test_questions_default_and_a_reject(graph):
    cfg = _cfg("t-q")
    graph.invoke({"site": {"lat": 41.10, "lon": -74.96}, "request": {"text": "flood risk at the culvert"}}, cfg)
    asked = _interrupt(graph, cfg)
    assert asked["action_request"]["action"] == "answer_questions"
    questions = asked["action_request"]["args"]["questions"]
    for q in questions:  # the form sends the questions back with their default edited
        if q.get("field") == "return_period":
            q["default"] = 50
    assert any(q.get("field") == "return_period" for q in questions)
    graph.invoke(Command(resume={"type": "edit", "args": {"questions": questions}}), cfg)
    graph_past_request(graph, cfg, None)
    plan = _interrupt(graph, cfg)
    assert plan["action_request"]["action"] == "approve_plan"
    assert graph.get_state(cfg).values["brief"]["intake"]["return_period"] == 50
    graph.invoke(Command(resume={"decisions": [{"type": "reject"}]}), cfg)
    assert graph.get_state(cfg).values["status"] == "declined"
