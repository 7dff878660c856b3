"""The graph's nodes: each role as a node over the workspace, and the two places the user speaks.

A role node rebuilds the Workspace from the state, runs the role, streams its events through the
stream writer (``stream_mode="custom"``) and returns the fields that changed.

``clarify`` and ``review`` are the interrupt nodes. Each does nothing with side effects before
``interrupt()`` (it re-runs from its start on resume) and has no static out-edge: every branch
returns ``Command(goto=...)``. Their payloads follow the agent-inbox HumanInterrupt shape
(``action_request``, ``config`` with ``allow_*``, ``description``) so LangGraph Studio and inbox UIs
can answer: ``{"type": "accept"}``, ``{"type": "edit", "args": {...}}``, ``{"type": "response",
"args": "text"}`` or ``{"type": "ignore"}`` (a list of one such response is accepted too).
"""

from __future__ import annotations

import logging
from typing import Any, Literal, Mapping

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt

from aquascope_core.workspace import ArtifactStore, Workspace
from graphs.context import CrewContext
from graphs.state import STATE_KEYS, CrewState

__all__ = ["consultant", "clarify", "scout", "methodologist", "review", "analysts", "interpreter", "critic", "author",
           "follow_up", "route_start", "plan_interrupt", "questions_interrupt", "normalise_response"]

log = logging.getLogger(__name__)


def _context(runtime: Runtime | None) -> CrewContext:
    ctx = getattr(runtime, "context", None) if runtime is not None else None
    if isinstance(ctx, CrewContext):
        return ctx
    if isinstance(ctx, Mapping):
        return CrewContext.from_mapping(ctx)
    return CrewContext()


def _workspace(state: Mapping[str, Any]) -> Workspace:
    ws = Workspace.from_dict({k: v for k, v in state.items() if k in STATE_KEYS and v is not None})
    try:
        writer = get_stream_writer()
    except Exception:  # outside a graph run (unit tests call nodes directly)
        writer = None
    if writer is not None:
        ws.listener = lambda row: writer({"type": "event", **row})
    return ws


def _delta(before: Mapping[str, Any], ws: Workspace) -> dict[str, Any]:
    after = ws.to_dict()
    return {k: v for k, v in after.items() if before.get(k) != v}


def _store(ws: Workspace, ctx: CrewContext) -> ArtifactStore:
    """The artifact store is the host's configuration (the run context), never a folder named by the input state."""
    return ArtifactStore(ctx.artifact_root) if ctx.artifact_root else ArtifactStore.for_study(ws.id)


# -- role nodes -----------------------------------------------------------------------------------

def consultant(state: CrewState, runtime: Runtime[CrewContext]) -> dict[str, Any]:
    """The brief from the problem text (and the answers to earlier questions)."""
    from roles import consultant as role

    ws = _workspace(state)
    answers = ws.request.get("answers")
    role(ws, answers=answers, model=_context(runtime).model_for("consultant"))
    ws.request = {k: v for k, v in ws.request.items() if k != "answers"}
    return _delta(state, ws)


def scout(state: CrewState, runtime: Runtime[CrewContext]) -> dict[str, Any]:
    from roles import scout as role

    ws = _workspace(state)
    ctx = _context(runtime)
    if ctx.live is not None:
        ws.request["live"] = ctx.live_enabled()
    role(ws, data=ctx.data_for(ws))
    return _delta(state, ws)


def methodologist(state: CrewState, runtime: Runtime[CrewContext]) -> dict[str, Any]:
    from roles import methodologist as role

    ws = _workspace(state)
    role(ws, model=_context(runtime).model_for("methodologist"))
    return _delta(state, ws)


def analysts(state: CrewState, runtime: Runtime[CrewContext]) -> dict[str, Any]:
    from roles import analysts as role

    ws = _workspace(state)
    role(ws, data=_context(runtime).data_for(ws))
    return _delta(state, ws)


def interpreter(state: CrewState, runtime: Runtime[CrewContext]) -> dict[str, Any]:
    from roles import interpreter as role

    ws = _workspace(state)
    role(ws, model=_context(runtime).model_for("interpreter"))
    return _delta(state, ws)


def critic(state: CrewState, runtime: Runtime[CrewContext]) -> dict[str, Any]:
    from roles import critic as role

    ws = _workspace(state)
    role(ws, model=_context(runtime).model_for("critic"))
    return _delta(state, ws)


def author(state: CrewState, runtime: Runtime[CrewContext]) -> dict[str, Any]:
    from roles import author as role

    ws = _workspace(state)
    ctx = _context(runtime)
    role(ws, model=ctx.model_for("author"), store=_store(ws, ctx), formats=ctx.formats_wanted())
    return _delta(state, ws)


def follow_up(state: CrewState, runtime: Runtime[CrewContext]) -> Command[Literal["methodologist", "author"]]:
    """A follow-up after the report: a change the brief can express is planned again and goes to review."""
    from roles.consultant import read_intake
    from aquascope_core import playbooks

    ws = _workspace(state)
    text = ws.request.get("follow_up") or ""
    brief = dict(ws.brief or {})
    change = read_intake(brief["playbook"], text) if brief.get("playbook") else {}
    ws.follow_ups.append({"text": text, "change": change})
    ws.request = {k: v for k, v in ws.request.items() if k != "follow_up"}
    if change:
        stated = {**(brief.get("intake_stated") or {}), **change}
        brief["intake_stated"] = stated
        brief["intake"] = playbooks.coerce_intake(brief["playbook"], stated)
        brief["problem"] = f"{brief.get('problem', '')} (follow-up: {text})"
        ws.brief = brief
        ws.event("consultant", "follow_up", {"text": text, "change": change})
        return Command(goto="methodologist", update=_delta(state, ws))
    ws.say("consultant", "The follow-up names no change the crew can plan (a return period, a decision); the report stands.",
           kind="answer")
    return Command(goto="author", update=_delta(state, ws))


# -- the interrupt nodes ----------------------------------------------------------------------------

def questions_interrupt(state: Mapping[str, Any]) -> dict[str, Any]:
    qs = (state.get("brief") or {}).get("questions") or []
    text = "\n".join(f"- {q['question']}" + (f" (options: {', '.join(map(str, q['options']))})" if q.get("options") else "")
                     for q in qs)
    return {
        "action_request": {"action": "answer_questions", "args": {"questions": qs}},
        "config": {"allow_accept": True, "allow_edit": True, "allow_respond": True, "allow_ignore": True},
        "description": ("The consultant needs a few answers before planning. Reply with the answers as text, "
                        "edit the fields, or accept to take the defaults.\n\n" + text),
    }


def plan_interrupt(state: Mapping[str, Any]) -> dict[str, Any]:
    study = state.get("study") or {}
    plan_msg = next((m for m in reversed(state.get("messages") or []) if m.get("kind") == "plan"), None)
    return {
        "action_request": {"action": "approve_plan", "args": {"study": study}},
        "config": {"allow_accept": True, "allow_edit": True, "allow_respond": True, "allow_ignore": True},
        "description": ((plan_msg or {}).get("text") or "Approve the plan.") +
                       "\n\nAccept to run it, edit the study (args.study or args.steps), respond with a change in "
                       "words, or ignore to decline.",
    }


def normalise_response(resp: Any) -> dict[str, Any]:
    """An inbox response (or a list of one), a bare string (a response) or True (accept) as {type, args}."""
    if isinstance(resp, list) and resp:
        resp = resp[0]
    if resp is True or resp is None:
        return {"type": "accept", "args": None}
    if isinstance(resp, str):
        return {"type": "response", "args": resp}
    if isinstance(resp, Mapping) and resp.get("type") in ("accept", "edit", "response", "ignore"):
        return {"type": resp["type"], "args": resp.get("args")}
    return {"type": "invalid", "args": resp}


def clarify(state: CrewState) -> Command[Literal["consultant", "scout", "author"]]:
    """Ask the consultant's questions (an interrupt), or pass on when the brief is ready or declined."""
    status = state.get("status")
    brief = state.get("brief") or {}
    if status == "declined":
        return Command(goto="author")
    if brief.get("ready"):
        return Command(goto="scout")
    resp = normalise_response(interrupt(questions_interrupt(state)))
    request = dict(state.get("request") or {})
    if resp["type"] == "ignore":
        return Command(goto="author", update={"status": "declined",
                                              "brief": {**brief, "declined_reason": "The user declined to answer."}})
    if resp["type"] == "accept":
        request["answers"] = "just go"
    elif resp["type"] == "edit" and isinstance(resp["args"], Mapping):
        request["answers"] = dict(resp["args"].get("intake") or resp["args"])
    else:
        request["answers"] = str(resp["args"] or "just go")
    return Command(goto="consultant", update={"request": request})


def review(state: CrewState) -> Command[Literal["analysts", "consultant", "review", "author"]]:
    """The user approves the plan (an interrupt); edits are validated; words re-open the brief."""
    if state.get("status") == "declined" or not state.get("study"):
        return Command(goto="author")
    resp = normalise_response(interrupt(plan_interrupt(state)))
    kind = resp["type"]
    if kind == "accept":
        return Command(goto="analysts", update={"status": "running", "study": {
            **state["study"], "plan": {**(state["study"].get("plan") or {}), "approved": True}}})
    if kind == "ignore":
        brief = {**(state.get("brief") or {}), "declined_reason": "The plan was not approved."}
        return Command(goto="author", update={"status": "declined", "brief": brief})
    if kind == "edit":
        from roles.methodologist import apply_edits

        ws = Workspace.from_dict({k: v for k, v in state.items() if k in STATE_KEYS and v is not None})
        errors = apply_edits(ws, resp["args"] or {})
        if errors:
            ws.say("methodologist", "The edited plan does not validate; the plan is unchanged: " + "; ".join(errors),
                   kind="plan_errors", payload={"errors": errors})
            return Command(goto="review", update={"messages": ws.to_dict()["messages"]})
        from aquascope_core.deliverables.report_md import plan_markdown

        ws.say("methodologist", plan_markdown(ws.study), kind="plan", payload={"edited": True})
        return Command(goto="analysts", update={"study": {**ws.study, "plan": {**ws.study["plan"], "approved": True}},
                                                "messages": ws.to_dict()["messages"], "status": "running"})
    if kind == "response":
        request = dict(state.get("request") or {})
        request["answers"] = str(resp["args"] or "")
        brief = {k: v for k, v in (state.get("brief") or {}).items() if k not in ("ready", "questions")}
        brief["feedback"] = [*(brief.get("feedback") or []), request["answers"]]
        return Command(goto="consultant", update={"request": request, "brief": brief})
    return Command(goto="review")


def route_start(state: CrewState) -> Literal["consultant", "follow_up"]:
    """A new study starts with the consultant; a follow-up after the report goes to its own node."""
    if (state.get("request") or {}).get("follow_up") and state.get("status") in ("done", "declined"):
        return "follow_up"
    return "consultant"
