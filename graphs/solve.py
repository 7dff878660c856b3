"""solve: a problem at a place, planned, reviewed, run and answered in one call, through the same graph as Studio.

    result = solve("Design flow for a road crossing, 100-year", lat=41.10, lon=-74.96)
    result.answer          # the report's answer (numbers from gated results only)
    result.study           # the executed Study (version 3), replayable with run_study
    result.declined        # True with result.declined_reason when the crew declines
    plan = solve(..., execute=False).study   # the plan only (what a reviewer sees)

There is no conversation: the compiled crew graph runs with an in-memory checkpointer and this function
answers its interrupts. The consultant takes the defaults (and lists them); a data request is declined,
its reason naming what would help, except one for data the plan stands without (the site's basin characteristics
for a regression peak), which goes on without it as "continue without" would, the brief's assumptions saying so;
the plan interrupt is answered by ``review`` (a callback given the planned Study, returning the Study to run,
edited or not, or None to decline) or accepted. Every behaviour
of the crew therefore exists once, in the graph's nodes.

Keyless unless a model is asked for (``model=`` or ``client=``): a key in the environment alone never
switches one on. The timeline lists who did what, in order; ``cost`` is per role.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from aquascope_core.data.base import validate_point
from aquascope_core.errors import InputError, PlanValidationError
from aquascope_core.study import Study
from aquascope_core.tools.context import table_entry
from aquascope_core.workspace import Workspace, aquascope_home, new_study_id
from graphs.context import CrewContext
from graphs.state import STATE_KEYS
from roles.team import SolveResult, result_from_workspace

__all__ = ["solve", "SolveResult"]

_MAX_INTERRUPTS = 12  # questions, a data request, a plan and a few edits: a loop beyond this is a defect


_COMPILED: list[Any] = []


def _compiled(compile_graph: Callable[..., Any]) -> Any:
    """The crew's graph, compiled once per process (each call copies it with a checkpointer of its own)."""
    if not _COMPILED:
        _COMPILED.append(compile_graph(None))
    return _COMPILED[0]


def solve(problem: str | Mapping[str, Any], *, lat: float, lon: float, playbook: str | None = None,
          intake: Mapping[str, Any] | None = None, model: Any = None, client: Any = None, api_key: str | None = None,
          base_url: str | None = None, timeout: float | None = None, review: Callable[[Study], Study | None] | None = None,
          on_event: Callable[[dict[str, Any]], None] | None = None, max_replans: int = 1, execute: bool = True,
          tables: Mapping[str, Any] | None = None, radius_km: float = 50.0, live: bool = False,
          artifact_root: str | None = None, max_usd: float | None = None, formats: Any = None) -> SolveResult:
    """Plan (and unless ``execute=False``, run and report) a study of ``problem`` at (lat, lon); see the module doc.

    ``problem`` is the text, or a dict ``{"text", "playbook", "intake"}`` (the intake form of a face).
    ``tables`` are the user's uploads (name -> path, bytes, text or DataFrame). ``formats`` are the report formats
    the Author writes (e.g. ``"md"``; default every format, or AQUASCOPE_FORMATS).
    """
    from aquascope_core.limits import check_brief

    if isinstance(problem, Mapping):
        text = problem.get("text") or problem.get("question") or ""
        playbook = playbook or problem.get("playbook")
        intake = {**dict(problem.get("intake") or {}), **dict(intake or {})}
    else:
        text = problem
    if not isinstance(text, str) or not text.strip():
        raise InputError("The problem text is empty: describe the question, for example "
                         "\"Design flow for a road crossing, 100-year\".", argument="problem", value=text)
    check_brief(text, what="the problem text")  # before anything is imported or compiled
    la, lo = validate_point(lat, lon)
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    from graphs.graph import compile_graph
    from graphs.nodes import normalise_response  # noqa: F401 - the responses below use its forms

    study_id = new_study_id()
    from roles.model import hold_key, is_key_reference

    if api_key and not is_key_reference(api_key):
        api_key = hold_key(api_key)  # the key stays in this process's memory; the context names it
    ctx = CrewContext(model=client if client is not None else model, key_ref=api_key, base_url=base_url,
                      timeout=timeout, live=bool(live), max_replans=int(max_replans), formats=formats,
                      artifact_root=str(artifact_root or aquascope_home() / "studies" / study_id / "artifacts"))
    request = {"text": text, "radius_km": radius_km, "live": bool(live), "assume_defaults": True,
               **({"playbook": playbook} if playbook else {}), **({"intake": dict(intake)} if intake else {}),
               **({"max_usd": float(max_usd)} if max_usd is not None else {})}
    state = {"id": study_id, "site": {"lat": la, "lon": lo}, "request": request, "status": "intake",
             "tables": {name: table_entry(name, content) for name, content in (tables or {}).items()},
             "messages": [{"role": "user", "kind": "text", "text": text}]}
    graph = _compiled(compile_graph).copy(update={"checkpointer": InMemorySaver()})  # one graph, a saver a call
    config = {"configurable": {"thread_id": study_id}}
    inp: Any = state
    reviewed = False
    for _ in range(_MAX_INTERRUPTS):
        for chunk in graph.stream(inp, config, context=ctx, stream_mode="custom"):
            if on_event is not None and isinstance(chunk, Mapping) and chunk.get("type") == "event":
                on_event({k: v for k, v in chunk.items() if k != "type"})
        snap = graph.get_state(config)
        action = _pending(snap)
        if action is None:
            break
        values = snap.values or {}
        if action == "answer_questions":
            inp = Command(resume={"type": "accept"})
        elif action == "provide_data":  # nobody here can bring it: the decline names what would help, or, for data
            # the plan stands without (its asks), it goes on without it, as a user saying "continue without" would
            stands = (values.get("pending_request") or {}).get("stands_without")
            inp = Command(resume={"type": "accept" if stands else "ignore"})
        elif action == "approve_plan":
            if reviewed:  # the reviewed plan did not validate in the graph: say so, as a face would
                msgs = [m for m in values.get("messages") or [] if m.get("kind") == "plan_errors"]
                errors = ((msgs[-1].get("payload") or {}).get("errors") if msgs else None) or ["the plan does not validate"]
                raise PlanValidationError(errors, recovery="Fix the steps named, or return the plan unchanged.")
            if not execute and review is None:
                return _result(values, planned_only=True)
            inp = _review(review, values)
            reviewed = review is not None
            if not execute and inp is not None and not _declines(inp):
                # the reviewed plan is recorded as the one that would run; nothing runs
                ws = Workspace.from_dict({k: v for k, v in values.items() if k in STATE_KEYS and v is not None})
                edited = (inp.resume.get("args") or {}).get("study")
                if edited is not None:
                    ws.study = edited
                ws.event("reviewer", "approved", {"steps": [s["id"] for s in (ws.study or {}).get("steps", [])]})
                return _result(ws.to_dict(), planned_only=True)
        else:  # an action this face cannot answer
            break
    return _result(graph.get_state(config).values or {})


def _pending(snap: Any) -> str | None:
    for intr in getattr(snap, "interrupts", ()) or ():
        value = intr.value[0] if isinstance(intr.value, list) else intr.value
        return (value.get("action_request") or {}).get("action")
    return None


def _declines(cmd: Any) -> bool:
    return isinstance(getattr(cmd, "resume", None), Mapping) and cmd.resume.get("type") == "ignore"


def _review(review: Callable[[Study], Study | None] | None, values: Mapping[str, Any]) -> Any:
    from langgraph.types import Command

    if review is None:
        return Command(resume={"type": "accept"})
    out = review(Study.from_dict(values["study"]))
    if out is None:
        return Command(resume={"type": "ignore"})
    study = out if isinstance(out, Study) else Study.from_dict(out)
    if study.to_dict() == Study.from_dict(values["study"]).to_dict():
        return Command(resume={"type": "accept"})
    from aquascope_core.catalogue import validate_plan

    plan = values["study"].get("plan") or {}
    errors = validate_plan(study, site=plan.get("site_context")
                           or (((values.get("inventory") or {}).get("recon") or {}).get("context")))
    if errors:
        raise PlanValidationError(errors, recovery="Fix the steps named, or return the plan unchanged.")
    return Command(resume={"type": "edit", "args": {"study": study.to_dict()}})


def _result(values: Mapping[str, Any], *, planned_only: bool = False) -> SolveResult:
    ws = Workspace.from_dict({k: v for k, v in values.items() if k in STATE_KEYS and v is not None})
    return result_from_workspace(ws, declined=ws.status == "declined")
