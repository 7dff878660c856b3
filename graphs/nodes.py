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
import re
from typing import Any, Literal, Mapping

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt

from aquascope_core.workspace import ArtifactStore, Workspace
from graphs.context import CrewContext
from graphs.state import STATE_KEYS, CrewState

__all__ = ["consultant", "clarify", "scout", "methodologist", "review", "analysts", "interpreter", "critic", "author",
           "follow_up", "route_start", "plan_interrupt", "questions_interrupt", "normalise_response",
           "mirror_decisions"]

log = logging.getLogger(__name__)


def _context(runtime: Runtime | None) -> CrewContext:
    ctx = getattr(runtime, "context", None) if runtime is not None else None
    if isinstance(ctx, CrewContext):
        return ctx
    if isinstance(ctx, Mapping):  # a host's context dict (unknown keys refused, by name)
        return CrewContext.from_mapping(ctx)
    return CrewContext()


def _config() -> Mapping[str, Any]:
    try:
        from langgraph.config import get_config

        return get_config()
    except Exception:  # outside a graph run
        return {}


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
    from graphs.inputs import start_update
    from roles import consultant as role

    ctx = _context(runtime)
    start = start_update(state, _config(), ctx) if not state.get("brief") else {}
    ws = _workspace({**state, **start})
    answers = ws.request.get("answers")
    role(ws, answers=answers, model=ctx.model_for("consultant"), proposed=ws.request.get("proposed_brief"))
    ws.request = {k: v for k, v in ws.request.items() if k not in ("answers", "proposed_brief")}
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
    ws.study = mirror_decisions(ws.study, ws.request)
    return _delta(state, ws)


def analysts(state: CrewState, runtime: Runtime[CrewContext]) -> dict[str, Any]:
    from aquascope_core.deliverables import build, workers
    from roles import analysts as role

    ctx = _context(runtime)
    if build.draws_pixels(ctx.formats_wanted()):
        workers.warm()  # the Author's figure and document workers import while the steps run
    ws = _workspace(state)
    role(ws, data=ctx.data_for(ws), max_replans=ctx.max_replans, model=ctx.model_for("analysts"))
    build.prefetch_figures(ws, ctx.formats_wanted())  # the workers draw the figures while the crew writes
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
    ws.study = mirror_decisions(ws.study, ws.request)
    role(ws, model=ctx.model_for("author"), critic_model=ctx.model_for("critic"), store=_store(ws, ctx),
         formats=ctx.formats_wanted())
    return {**_delta(state, ws), "answer": (ws.report or {}).get("answer", ""), "title": (ws.report or {}).get("title", "")}


def follow_up(state: CrewState, runtime: Runtime[CrewContext]) -> Command[Literal["methodologist", "author", "__end__"]]:
    """A follow-up after the report: a question is answered from the results (every number checked); a
    change the brief can express is planned again and goes to review."""
    from aquascope_core import playbooks
    from roles.follow_up import answer, classify

    from graphs.inputs import as_workspace_messages

    ws = _workspace(state)
    text = ws.request.get("follow_up") or _chat_follow_up(state)
    ws.messages = as_workspace_messages(ws.messages)  # the chat message joins the conversation
    brief = dict(ws.brief or {})
    verdict = classify(ws, text)
    ws.follow_ups.append({"text": text, "kind": verdict["kind"], "change": verdict["change"], "why": verdict["why"]})
    ws.request = {k: v for k, v in ws.request.items() if k != "follow_up"}
    if verdict["kind"] == "change" and verdict["change"]:
        change = verdict["change"]
        stated = {**(brief.get("intake_stated") or {}), **change}
        brief["intake_stated"] = stated
        brief["intake"] = playbooks.coerce_intake(brief["playbook"], stated)
        brief["problem"] = f"{brief.get('problem', '')} (follow-up: {text})"
        ws.brief = brief
        ws.event("consultant", "follow_up", {"text": text, "kind": "change", "change": change})
        return Command(goto="methodologist", update=_delta(state, ws))
    if verdict["kind"] == "question":
        reply = answer(ws, text)
        ws.event("consultant", "follow_up", {"text": text, "kind": "question", "answered": reply["answered"]})
        ws.say("consultant", reply["text"], kind="answer", payload={"follow_up": text, "basis": reply["basis"],
                                                                   "answered": reply["answered"]})
        return Command(goto="__end__", update=_delta(state, ws))
    ws.say("consultant", "The follow-up names no change the crew can plan (a return period, a decision); the report stands.",
           kind="answer", payload={"follow_up": text, "answered": False})
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
    plan_msg = refused = None
    for m in reversed(state.get("messages") or []):
        if m.get("kind") == "plan":
            plan_msg = m
            break
        if m.get("kind") == "plan_errors" and refused is None:
            refused = m  # an edit refused since the plan was last shown: the reason leads the question
    lead = f"Your edit was not applied: {refused.get('text')}\n\n" if refused else ""
    return {
        "action_request": {"action": "approve_plan", "args": {"study": study}},
        "config": {"allow_accept": True, "allow_edit": True, "allow_respond": True, "allow_ignore": True},
        "description": lead + ((plan_msg or {}).get("text") or "Approve the plan.") +
                       "\n\nAccept to run it, edit the study (args.study or args.steps), respond with a change in "
                       "words, or ignore to decline.",
    }


def _decoded(args: Any) -> Any:
    """Edit args sent as a JSON string (as inbox UIs send them) decoded; anything else unchanged."""
    if isinstance(args, str) and args.strip()[:1] in ("{", "["):
        import json

        try:
            return json.loads(args)
        except ValueError:
            return args
    return args


def _from_decision(d: Mapping[str, Any]) -> dict[str, Any]:
    """A LangChain v1 human-in-the-loop decision as an inbox response: approve -> accept, edit (its
    ``edited_action.args``) -> edit, reject with a message -> a response in words, reject without -> ignore."""
    kind = d.get("type")
    if kind == "approve":
        return {"type": "accept"}
    if kind == "edit":
        action = _decoded(d.get("edited_action"))
        args = action.get("args") if isinstance(action, Mapping) and "args" in action else action
        return {"type": "edit", "args": args}
    if kind == "reject":
        return {"type": "response", "args": d["message"]} if d.get("message") else {"type": "ignore"}
    if kind == "respond":
        return {"type": "response", "args": d.get("message") or d.get("args")}
    return {"type": kind}


def normalise_response(resp: Any) -> dict[str, Any]:
    """Any answer to an interrupt as {type, args, by}.

    An agent-inbox HumanResponse (or a list of one, as langgraph.prebuilt sends them): accept, ignore,
    response (text) or edit, whose ``args`` is the inbox's ActionRequest ``{"action": ..., "args": {...}}``
    (the edited values are its ``args``) or the project's own edit mapping, either of them also as a JSON
    string; LangChain v1's ``{"decisions": [{"type": "approve" | "edit" | "reject", ...}]}``; a bare string
    (a response); True or None (accept). ``by`` is who answered, when the response names them."""
    if isinstance(resp, Mapping) and isinstance(resp.get("decisions"), list) and resp["decisions"]:
        first = resp["decisions"][0]
        resp = {**_from_decision(first), "by": resp.get("by") or (first.get("by") if isinstance(first, Mapping)
                                                                  else None)} if isinstance(first, Mapping) else first
    if isinstance(resp, list) and resp:
        resp = resp[0]
    if resp is True or resp is None:
        return {"type": "accept", "args": None, "by": None}
    if isinstance(resp, str):
        return {"type": "response", "args": resp, "by": None}
    if isinstance(resp, Mapping) and resp.get("type") in ("accept", "edit", "response", "ignore"):
        args = resp.get("args")
        if resp["type"] == "edit":
            args = _decoded(args)
            if isinstance(args, Mapping) and "action" in args:
                inner = _decoded(args.get("args"))
                if isinstance(inner, Mapping):
                    args = inner  # the inbox shape: the edited ActionRequest
        by = resp.get("by") or resp.get("user")
        return {"type": resp["type"], "args": args, "by": str(by) if by else None}
    return {"type": "invalid", "args": resp, "by": None}


def _who(resp: Mapping[str, Any]) -> str:
    import os

    conf = (_config().get("configurable") or {})
    return (resp.get("by") or conf.get("reviewer") or conf.get("user_id") or os.environ.get("AQUASCOPE_REVIEWER")
            or "reviewer")


def _decided(request: Mapping[str, Any], kind: str, resp: Mapping[str, Any], **detail: Any) -> dict[str, Any]:
    """The request with the decision appended to its ``decisions`` (mirrored into the study's plan)."""
    from aquascope_core.result import utc_now

    row = {"kind": kind, "by": _who(resp), "at": utc_now(), **{k: v for k, v in detail.items() if v is not None}}
    return {**request, "decisions": [*(request.get("decisions") or []), row]}


def mirror_decisions(study: Mapping[str, Any] | None, request: Mapping[str, Any]) -> dict[str, Any]:
    """The study with the decisions (and the parent of a fork) in its plan, so the study file carries them."""
    if not study:
        return dict(study or {})
    plan = dict(study.get("plan") or {})
    if request.get("decisions"):
        plan["decisions"] = list(request["decisions"])
    if request.get("parent"):
        plan["parent"] = dict(request["parent"])
    return {**study, "plan": plan}


def _answers_from_edit(args: Mapping[str, Any]) -> dict[str, Any]:
    """The intake values of an edit of the questions: {field: value}, {"answers"|"intake": {...}}, or the
    questions list with an ``answer`` (or ``value``) filled in."""
    for key in ("answers", "intake"):
        if isinstance(args.get(key), Mapping):
            return dict(args[key])
    out = {k: v for k, v in args.items() if k != "questions"}
    for q in args.get("questions") or []:
        if isinstance(q, Mapping) and q.get("field"):
            value = next((q[k] for k in ("answer", "value", "default") if q.get(k) not in (None, "")), None)
            if value is not None and value != "":
                out[q["field"]] = value
    return out


def clarify(state: CrewState) -> Command[Literal["consultant", "scout", "author"]]:
    """Ask the consultant's questions (an interrupt), or pass on when the brief is ready or declined."""
    status = state.get("status")
    brief = state.get("brief") or {}
    if status == "declined":
        return Command(goto="author")
    if brief.get("ready"):
        return Command(goto="scout")
    resp = normalise_response(interrupt([questions_interrupt(state)]))
    request = dict(state.get("request") or {})
    if resp["type"] == "ignore":
        return Command(goto="author", update={"status": "declined", "request": _decided(request, "ignore", resp),
                                              "brief": {**brief, "declined_reason": "The user declined to answer."}})
    if resp["type"] == "accept":
        request["answers"] = "just go"
    elif resp["type"] == "edit" and isinstance(resp["args"], Mapping):
        request["answers"] = _answers_from_edit(resp["args"]) or "just go"
    else:
        request["answers"] = str(resp["args"] or "just go")
    request = _decided(request, "answer" if resp["type"] != "accept" else "accept", resp, point="questions",
                       answers=request["answers"])
    return Command(goto="consultant", update={"request": request})


def review(state: CrewState) -> Command[Literal["analysts", "consultant", "review", "author"]]:
    """The user approves the plan (an interrupt); edits are validated; words re-open the brief."""
    if state.get("status") == "declined" or not state.get("study"):
        return Command(goto="author")
    resp = normalise_response(interrupt([plan_interrupt(state)]))
    kind = resp["type"]
    request = dict(state.get("request") or {})
    if kind == "accept":
        request = _decided(request, "accept", resp, point="plan")
        study = mirror_decisions(state["study"], request)
        return Command(goto="analysts", update={"status": "running", "request": request, "study": {
            **study, "plan": {**(study.get("plan") or {}), "approved": True}}})
    if kind == "ignore":  # a reason given with the decline (args in words) is kept with the decision
        reason = resp["args"].strip() if isinstance(resp["args"], str) and resp["args"].strip() else None
        brief = {**(state.get("brief") or {}), "declined_reason": "The plan was not approved."
                 + (f" The reviewer's reason: {reason}" if reason else "")}
        request = _decided(request, "ignore", resp, point="plan", reason=reason)
        return Command(goto="author", update={"status": "declined", "brief": brief, "request": request,
                                              "study": mirror_decisions(state["study"], request)})
    if kind == "edit":
        from roles.review import apply_review_edit

        ws = Workspace.from_dict({k: v for k, v in state.items() if k in STATE_KEYS and v is not None})
        errors, changes = apply_review_edit(ws, resp["args"] if resp["args"] is not None else {})
        if errors:
            ws.say("methodologist", "The edited plan does not validate; the plan is unchanged: " + "; ".join(errors),
                   kind="plan_errors", payload={"errors": errors})
            return Command(goto="review", update={"messages": ws.to_dict()["messages"]})
        from aquascope_core.deliverables.report_md import plan_markdown
        from aquascope_core.study import Study

        request = _decided(request, "edit", resp, point="plan", edits=resp["args"], changes=changes)
        ws.study = mirror_decisions({**ws.study, "plan": {**ws.study["plan"], "approved": True}}, request)
        ws.say("methodologist", plan_markdown(Study.from_dict(ws.study)), kind="plan",
               payload={"edited": True, "changes": changes})
        ws.event("methodologist", "plan", {"edited": True, "changes": len(changes)})
        return Command(goto="analysts", update={"study": ws.study, "brief": ws.brief, "request": request,
                                                "messages": ws.to_dict()["messages"], "status": "running"})
    if kind == "response":
        request["answers"] = str(resp["args"] or "")
        request = _decided(request, "response", resp, point="plan", text=request["answers"])
        brief = {k: v for k, v in (state.get("brief") or {}).items() if k not in ("ready", "questions")}
        brief["feedback"] = [*(brief.get("feedback") or []), request["answers"]]
        return Command(goto="consultant", update={"request": request, "brief": brief})
    return Command(goto="review")


def data_request_interrupt(state: Mapping[str, Any]) -> dict[str, Any]:
    from roles.methodologist import request_text
    from roles.requests import can_continue

    req = state.get("pending_request") or {}
    return {
        "action_request": {"action": "provide_data", "args": {"request": req}},
        "config": {"allow_accept": can_continue(req), "allow_edit": True, "allow_respond": True,
                   "allow_ignore": True},
        "description": request_text(req) + "\n\nAdd the table (Studio.add_table, or --data with --resume) and respond "
                       "\"table added\", respond with the missing value in words, respond \"continue without\""
                       + (" (or accept)" if can_continue(req) else "") + ", or ignore to end the study.",
    }


def await_data(state: CrewState) -> Command[Literal["review", "methodologist", "scout", "author"]]:
    """A data request waits for the user (an interrupt); a plan passes straight on to review."""
    req = state.get("pending_request")
    if state.get("status") != "waiting" or not req:
        return Command(goto="review")
    from roles.consultant import read_intake
    from roles.methodologist import request_text
    from roles.requests import apply_continue_without, can_continue, is_continue_without

    resp = normalise_response(interrupt([data_request_interrupt(state)]))
    brief = dict(state.get("brief") or {})
    kind, args = resp["type"], resp["args"]
    if kind == "edit" and isinstance(args, Mapping):  # the inbox shape nests the values under args.args
        args = args.get("args") if isinstance(args.get("args"), Mapping) else args
        intake = args.get("intake") if isinstance(args.get("intake"), Mapping) else args
        stated = {**(brief.get("intake_stated") or {}), **{k: v for k, v in intake.items() if v is not None}}
        return _replan(brief, stated, "methodologist")
    text = str(args or "") if kind == "response" else ""
    if kind == "accept" or is_continue_without(text):
        if can_continue(req):
            return Command(goto="methodologist", update={"brief": apply_continue_without(brief, req),
                                                         "pending_request": None, "status": "planning"})
        reason = request_text(req) + " There is no way to continue without it."
        return Command(goto="author", update={"status": "declined", "pending_request": None,
                                              "brief": {**brief, "declined_reason": reason}})
    if kind == "response" and re.search(r"\b(table|file|data|record)s?\b.*\b(added|attached|uploaded)\b|"
                                        r"\b(added|attached|uploaded)\b", text, re.I):
        from roles.basin import intake_from_tables

        report = intake_from_tables(state.get("tables")) if req.get("stands_without") and brief.get("playbook") else {}
        if report:  # a StreamStats basin-characteristics report: the values the plan asked for, read as stated
            return _replan(brief, {**(brief.get("intake_stated") or {}), **report}, "scout")
        return Command(goto="scout", update={"pending_request": None, "status": "scouting"})
    if kind == "response" and brief.get("playbook"):
        change = read_intake(brief["playbook"], text)
        if change:
            return _replan(brief, {**(brief.get("intake_stated") or {}), **change}, "methodologist")
        return Command(goto="await_data")  # words the crew cannot read: ask again
    return Command(goto="author", update={"status": "declined", "pending_request": None,
                                          "brief": {**brief, "declined_reason": request_text(req)}})


def _replan(brief: dict[str, Any], stated: dict[str, Any], goto: str) -> Command:
    from aquascope_core import playbooks

    intake = playbooks.coerce_intake(brief["playbook"], stated)
    return Command(goto=goto, update={"brief": {**brief, "intake_stated": stated, "intake": intake},
                                      "pending_request": None, "status": "planning"})


def _chat_follow_up(state: Mapping[str, Any]) -> str:
    """The text of the chat messages a host added after the conversation (LangChain form, no ``kind``)."""
    from graphs.inputs import chat_text

    tail = []
    for msg in reversed(state.get("messages") or []):
        if not isinstance(msg, Mapping) or "kind" in msg:
            break
        tail.insert(0, msg)
    return chat_text(tail)


def route_start(state: CrewState) -> Literal["consultant", "follow_up"]:
    """A new study starts with the consultant; after the report a follow-up (``request.follow_up``, or a chat
    message sent to the finished thread) goes to its own node."""
    if state.get("status") in ("done", "declined") and ((state.get("request") or {}).get("follow_up")
                                                         or _chat_follow_up(state)):
        return "follow_up"
    return "consultant"
