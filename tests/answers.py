"""How a test answers the crew's request for the site's basin characteristics, as a user without them does.

Flat Brook (41.10, -74.96) is a U.S. gauge with a daily record only: its design flood waits at the ``provide_data``
interrupt for the basin characteristics the USGS regression equations take (a request the plan stands without).
Tests that drive that study for something else answer it as such a user would: "continue without", after which
the plan stands as the crew made it (an indicative peak, graded C at most, "Not for design"). The request itself,
its other answers and what each gives are tested in tests/roles/test_flat_brook_peak.py and
tests/graphs/test_data_requests.py.
"""

from __future__ import annotations

from typing import Any

from langgraph.types import Command

__all__ = ["CONTINUE", "past_request", "graph_past_request", "waits_for_characteristics", "sdk_past_request",
           "roles_past_request"]

CONTINUE = {"type": "response", "args": "continue without"}  # the agent-inbox answer a face sends


def past_request(studio: Any, reply: Any) -> Any:
    """The Studio's reply after going on without the data the plan asks for (the reply itself when it asks none)."""
    while reply.kind == "data_request" and (reply.payload.get("request") or {}).get("stands_without"):
        reply = studio.say("continue without")
    return reply


def waits_for_characteristics(snap: Any) -> bool:
    """Whether a graph snapshot waits at the data request the plan stands without."""
    for intr in getattr(snap, "interrupts", ()) or ():
        value = intr.value[0] if isinstance(intr.value, list) else intr.value
        req = ((value.get("action_request") or {}).get("args") or {}).get("request") or {}
        if (value.get("action_request") or {}).get("action") == "provide_data" and req.get("stands_without"):
            return True
    return False


def graph_past_request(graph: Any, cfg: dict, ctx: Any, **stream: Any) -> list:
    """Resume a graph waiting at that request with "continue without" (as often as it asks); the chunks streamed."""
    chunks: list = []
    while waits_for_characteristics(graph.get_state(cfg)):
        chunks += list(graph.stream(Command(resume=CONTINUE), cfg, context=ctx, **stream))
    return chunks


def _stands(value: Any) -> bool:
    value = value[0] if isinstance(value, list) and value else value
    if not isinstance(value, dict):
        return False
    action = value.get("action_request") or {}
    return action.get("action") == "provide_data" and bool(((action.get("args") or {}).get("request") or {})
                                                          .get("stands_without"))


async def sdk_past_request(client: Any, thread_id: str, assistant: str = "aquascope") -> None:
    """Through a LangGraph server (the sdk): a thread waiting at that request resumed with "continue without"."""
    while any(_stands(i.get("value")) for i in (await client.threads.get_state(thread_id)).get("interrupts") or []):
        await client.runs.wait(thread_id, assistant, command={"resume": CONTINUE})


def roles_past_request(ws: Any, methodologist: Any, **kw: Any) -> Any:
    """Roles called one by one (no graph): a Methodologist that waits at that request is answered "continue
    without" as the graph's data-request node answers it, and plans again."""
    from roles.requests import apply_continue_without

    req = ws.pending_request or {}
    while ws.status == "waiting" and req.get("stands_without"):
        ws.brief = apply_continue_without(ws.brief, req)
        ws.pending_request, ws.status = None, "planning"
        methodologist(ws, **kw)
        req = ws.pending_request or {}
    return ws
