"""A plan declined with a reason (the desk's decline: an agent-inbox ``ignore`` whose args are the reason in
words) keeps the reason with the decision in the study file and in the brief's declined reason."""

from __future__ import annotations

import sqlite3

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command

from graphs.context import CrewContext
from graphs.graph import compile_graph
from tests.answers import graph_past_request


def test_a_decline_keeps_its_reason(tmp_path):
    conn = sqlite3.connect(str(tmp_path / "cp.sqlite"), check_same_thread=False)
    saver = SqliteSaver(conn)
    saver.setup()
    graph, ctx = compile_graph(saver), CrewContext(artifact_root=str(tmp_path / "art"))
    try:
        for tid, args, reason in (("t-reason", "the gauge is regulated upstream", "the gauge is regulated upstream"),
                                  ("t-none", None, None)):
            cfg = {"configurable": {"thread_id": tid}}
            list(graph.stream({"site": {"lat": 41.10, "lon": -74.96},
                               "request": {"text": "Design flow for a road crossing, 100-year"}}, cfg, context=ctx))
            graph_past_request(graph, cfg, ctx)
            assert graph.get_state(cfg).next == ("review",)
            list(graph.stream(Command(resume=[{"type": "ignore", "args": args, "by": "ana"}]), cfg, context=ctx))
            graph_past_request(graph, cfg, ctx)
            values = graph.get_state(cfg).values
            decision = values["study"]["plan"]["decisions"][-1]
            assert values["status"] == "declined" and decision["kind"] == "ignore" and decision["by"] == "ana"
            assert decision.get("reason") == reason
            said = values["brief"]["declined_reason"]
            assert said.startswith("The plan was not approved.") and ((reason or "<none>") in said) == bool(reason)
    finally:
        conn.close()
