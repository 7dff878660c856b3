"""The crew as a LangGraph StateGraph.

    START ─► consultant ─► clarify ─► scout ─► methodologist ─► await_data ─► review ─► analysts ─► interpreter ─► critic ─► author ─► END
               ▲             │ (questions: interrupt)    ▲  ▲        │ (data request:  │ (plan: interrupt)
               └─────────────┘                           │  └────────┘  interrupt)     │
                                                         └─ a table ───┘               │
               ◄──────────────────────────── "change it" ──────────────────────────────┘
    START ─► follow_up ─► methodologist (a change after the report) or author (nothing to change)

``graph`` (this module's attribute, named in langgraph.json) is compiled WITHOUT a checkpointer:
``langgraph dev`` and the platform inject theirs. :func:`compile_graph` takes one for the Python API
and the CLI (SQLite by default, Postgres for the hosted crew; see graphs.checkpoint).
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from graphs import nodes
from graphs.context import CrewContext
from graphs.state import CrewInput, CrewOutput, CrewState

__all__ = ["build_graph", "compile_graph", "graph"]


def build_graph() -> StateGraph:
    g = StateGraph(CrewState, context_schema=CrewContext, input_schema=CrewInput, output_schema=CrewOutput)
    g.add_node("consultant", nodes.consultant)
    g.add_node("clarify", nodes.clarify)          # routes by Command: consultant | scout | author
    g.add_node("scout", nodes.scout)
    g.add_node("methodologist", nodes.methodologist)
    g.add_node("await_data", nodes.await_data)    # routes by Command: review | methodologist | scout | author
    g.add_node("review", nodes.review)            # routes by Command: analysts | consultant | review | author
    g.add_node("analysts", nodes.analysts)
    g.add_node("interpreter", nodes.interpreter)
    g.add_node("critic", nodes.critic)
    g.add_node("author", nodes.author)
    g.add_node("follow_up", nodes.follow_up)      # routes by Command: methodologist | author

    # a new study starts with the brief; a follow-up after the report has its own entry
    g.add_conditional_edges(START, nodes.route_start, ["consultant", "follow_up"])
    # the brief, then its questions (or straight on when it is ready)
    g.add_edge("consultant", "clarify")
    # the inventory feeds the plan, and the plan goes to the user
    g.add_edge("scout", "methodologist")
    g.add_edge("methodologist", "await_data")  # a data request waits there; a plan passes on to review
    # after approval the run is interpreted, criticised and written up
    g.add_edge("analysts", "interpreter")
    g.add_edge("interpreter", "critic")
    g.add_edge("critic", "author")
    # the report (or the decline) ends the run
    g.add_edge("author", END)
    return g


def compile_graph(checkpointer: Any = None):
    """The graph compiled with ``checkpointer`` (None: no persistence), guarded: its input, configuration and
    updates are bounded and scrubbed of keys before any checkpointer sees them (graphs.guard)."""
    from graphs.guard import GuardedGraph

    compiled = build_graph().compile(checkpointer=checkpointer)
    compiled.__class__ = GuardedGraph  # the same object, with the guard in front of stream/astream/update_state
    return compiled


# The module-level graph for langgraph.json: no checkpointer of its own.
graph = compile_graph()
