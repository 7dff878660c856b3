"""run_study: execute a study's steps through the tool catalogue, with a gate on every step.

The rules, in the order they apply to each step:

1. A step whose ``depends_on`` names a step that was not established is skipped, with the reason;
   so is a step whose arguments or gates refer (``{{ result.sN.path }}``) to a result that is not
   there.
2. With ``prior=`` (an earlier run), a step that succeeded there with the same tool and the same
   resolved arguments and gates is reused, not run again.
3. The tool runs; an error it raises, or a payload with ``ok: false`` (an honest null), fails the
   step; otherwise the gates are evaluated and any failed gate fails the step.
4. A failed step runs its fallback once: ``{"step": {...}}`` runs that step in its place (with the
   failed step's gates unless it names its own); ``{"branch": id}`` asks the ``replan`` callback for
   replacement steps (at most ``max_replans`` times per failed step); ``"stop"`` ends the run.
5. A step still failed is recorded as not established (``failed_reason``) and the run goes on.

A study replays with no model: ``run_study(Study.from_yaml(text))`` gives the same numbers.
"""

from __future__ import annotations

import copy
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from aquascope_core.errors import AquascopeError, StudyError
from aquascope_core.gates import evaluate
from aquascope_core import limits
from aquascope_core.paths import PathError, references_in, resolve_references
from aquascope_core.result import copy_tree, jsonsafe, utc_now
from aquascope_core.study import Step, Study

__all__ = ["StepResult", "StudyRun", "run_study"]

log = logging.getLogger(__name__)

EventSink = Callable[[dict[str, Any]], None]
Replan = Callable[[Step, "StepResult", "Study"], Sequence[Step | Mapping[str, Any]] | None]


@dataclass
class StepResult:
    """What one step produced: its payload, its gate rows, and whether it is established."""

    id: str
    tool: str
    status: str  # ok | failed | skipped | not_run
    arguments: dict[str, Any] = field(default_factory=dict)
    payload: dict[str, Any] | None = None
    gates: list[dict[str, Any]] = field(default_factory=list)
    summary: str = ""
    fallback_used: bool = False
    failed_reason: str | None = None
    error: dict[str, Any] | None = None
    reused: bool = False
    optional: bool = False
    seconds: float = 0.0
    replaced_by: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tool": self.tool,
            "status": self.status,
            "ok": self.ok,
            "arguments": copy_tree(self.arguments),
            "payload": copy_tree(self.payload),
            "gates": copy_tree(self.gates),
            "summary": self.summary,
            "fallback_used": self.fallback_used,
            "failed_reason": self.failed_reason,
            "error": copy_tree(self.error),
            "reused": self.reused,
            "optional": self.optional,
            "seconds": round(self.seconds, 4),
            "replaced_by": list(self.replaced_by),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "StepResult":
        return cls(
            id=d["id"], tool=d["tool"], status=d["status"], arguments=copy_tree(d.get("arguments") or {}),
            payload=copy_tree(d.get("payload")), gates=copy_tree(d.get("gates") or []),
            summary=d.get("summary", ""), fallback_used=bool(d.get("fallback_used")),
            failed_reason=d.get("failed_reason"), error=copy_tree(d.get("error")),
            reused=bool(d.get("reused")), optional=bool(d.get("optional")), seconds=float(d.get("seconds") or 0.0),
            replaced_by=list(d.get("replaced_by") or []),
        )

    def study_entry(self) -> dict[str, Any]:
        """The compact form a study's ``results`` holds (the payload stays in the run)."""
        out = {"ok": self.ok, "status": self.status, "gates": copy.deepcopy(self.gates), "summary": self.summary,
               "fallback_used": self.fallback_used}
        if self.failed_reason:
            out["failed_reason"] = self.failed_reason
        return out


@dataclass
class StudyRun:
    """The outcome of run_study: results per step, in order, and the tallies."""

    results: dict[str, StepResult] = field(default_factory=dict)
    stopped_at: str | None = None
    stop_reason: str | None = None
    started: str = ""
    finished: str = ""

    @property
    def failed_steps(self) -> list[str]:
        return [k for k, r in self.results.items() if r.status == "failed"]

    @property
    def ok(self) -> bool:
        """True when no required step failed or was skipped and the run was not stopped."""
        if self.stopped_at:
            return False
        return all(r.ok or r.optional or r.replaced_by for r in self.results.values())

    @property
    def summary(self) -> dict[str, int]:
        rs = list(self.results.values())
        return {
            "planned": len(rs),
            "ran": sum(r.status in ("ok", "failed") for r in rs),
            "ok": sum(r.status == "ok" for r in rs),
            "failed": sum(r.status == "failed" for r in rs),
            "skipped": sum(r.status in ("skipped", "not_run") for r in rs),
        }

    def payloads(self) -> dict[str, Any]:
        """Payloads of the steps that are established, by step id (what references resolve against)."""
        return {k: r.payload for k, r in self.results.items() if r.ok and r.payload is not None}

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "results": {k: r.to_dict() for k, r in self.results.items()},
            "failed_steps": self.failed_steps,
            "summary": self.summary,
            "stopped_at": self.stopped_at,
            "stop_reason": self.stop_reason,
            "started": self.started,
            "finished": self.finished,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "StudyRun":
        return cls(
            results={k: StepResult.from_dict(v) for k, v in (d.get("results") or {}).items()},
            stopped_at=d.get("stopped_at"), stop_reason=d.get("stop_reason"),
            started=d.get("started", ""), finished=d.get("finished", ""),
        )


def _is_stop(fallback: Any) -> bool:
    return fallback == "stop" or (isinstance(fallback, Mapping) and fallback.get("stop") is True)


def _summarise(payload: Mapping[str, Any] | None) -> str:
    if not payload:
        return ""
    if isinstance(payload.get("summary"), str):
        return payload["summary"]
    return ""


def run_study(
    study: Study | Mapping[str, Any] | list,
    *,
    callables: Mapping[str, Callable[..., Any]] | None = None,
    on_event: EventSink | None = None,
    prior: StudyRun | Mapping[str, Any] | None = None,
    replan: Replan | None = None,
    max_replans: int = 1,
    role: str = "analysts",
    propose: Replan | None = None,
) -> StudyRun:
    """Run every step of ``study``; see the module docstring for the rules.

    ``callables`` maps tool ids to functions (default: the tool catalogue's). The study's
    ``results`` are written back (version 2 and 3 only). ``propose`` is asked for replacement steps
    after a step fails with no fallback of its own (or after its fallback failed too), at most
    ``max_replans`` times per step, under the same rule as a branch replan: the steps it returns are
    inserted after the failed step and run like any other. Returns a :class:`StudyRun`.
    """
    study = study if isinstance(study, Study) else Study.from_dict(study)
    if callables is None:
        from aquascope_core.catalogue import callables as default_callables

        callables = default_callables()
    if isinstance(prior, Mapping):
        prior = StudyRun.from_dict(prior)
    run = StudyRun(started=utc_now())
    replans_used: dict[str, int] = {}

    def emit(event: str, step: str | None, **detail: Any) -> None:
        if on_event is not None:
            try:
                on_event({"role": role, "step": step, "event": event, **jsonsafe(detail)})
            except Exception:  # a faulty listener must not break the run
                log.exception("on_event listener failed")

    queue: list[Step] = list(study.steps)
    i = 0
    while i < len(queue):
        step = queue[i]
        i += 1
        if run.stopped_at:
            run.results[step.id] = StepResult(step.id, step.tool, "not_run", arguments=step.arguments,
                                              optional=step.optional,
                                              failed_reason=f"not run: the run stopped at {run.stopped_at}")
            continue
        result = _run_one(step, study, run, callables, prior, emit)
        if result.status == "failed" and step.fallback is not None:
            if _is_stop(step.fallback):
                run.results[step.id] = result
                run.stopped_at, run.stop_reason = step.id, f"{step.id} failed and its fallback is stop: {result.failed_reason}"
                emit("stopped", step.id, reason=run.stop_reason)
                continue
            if isinstance(step.fallback, Mapping) and isinstance(step.fallback.get("step"), Mapping):
                spec = dict(step.fallback["step"])
                spec.setdefault("id", step.id)
                spec.setdefault("expects", step.expects)
                spec.setdefault("depends_on", step.depends_on)
                alt = Step.from_dict({k: v for k, v in spec.items() if k != "fallback"})
                emit("fallback", step.id, tool=alt.tool, reason=result.failed_reason)
                second = _run_one(alt, study, run, callables, None, emit)
                second.fallback_used = True
                second.optional = step.optional
                if not second.ok:
                    second.failed_reason = f"{result.failed_reason}; the fallback ({alt.tool}) failed too: {second.failed_reason}"
                result = second
            elif isinstance(step.fallback, Mapping) and step.fallback.get("branch") and replan is not None:
                used = replans_used.get(step.id, 0)
                if used < max_replans:
                    replans_used[step.id] = used + 1
                    emit("replan", step.id, branch=step.fallback.get("branch"), reason=result.failed_reason)
                    new = [s if isinstance(s, Step) else Step.from_dict(s) for s in (replan(step, result, study) or [])]
                    taken = {s.id for s in queue}
                    fresh = [s for s in new if s.id not in taken]
                    if fresh:
                        result.replaced_by = [s.id for s in fresh]
                        queue[i:i] = fresh
                        study.steps[study.steps.index(step) + 1:study.steps.index(step) + 1] = fresh
        if result.status == "failed" and propose is not None and not result.replaced_by and \
                not (isinstance(step.fallback, Mapping) and step.fallback.get("branch")) and not _is_stop(step.fallback):
            used = replans_used.get(step.id, 0)
            if used < max_replans:
                replans_used[step.id] = used + 1
                new = [s if isinstance(s, Step) else Step.from_dict(s) for s in (propose(step, result, study) or [])]
                taken = {s.id for s in queue}
                fresh = [s for s in new if s.id not in taken]
                if fresh:
                    emit("proposed", step.id, steps=[s.id for s in fresh], reason=result.failed_reason)
                    result.replaced_by = [s.id for s in fresh]
                    queue[i:i] = fresh
                    study.steps[study.steps.index(step) + 1:study.steps.index(step) + 1] = fresh
        run.results[step.id] = result
    run.finished = utc_now()
    if study.version >= 2:
        study.results = {k: r.study_entry() for k, r in run.results.items()}
    emit("run_done", None, summary=run.summary, ok=run.ok)
    return run


def _run_one(step: Step, study: Study, run: StudyRun, callables: Mapping[str, Callable[..., Any]],
             prior: StudyRun | None, emit: Callable[..., None]) -> StepResult:
    res = StepResult(step.id, step.tool, "failed", arguments=copy.deepcopy(step.arguments), optional=step.optional)
    # 1. dependencies and references
    for dep in step.depends_on:
        got = run.results.get(dep)
        if got is None or not (got.ok or got.replaced_by):
            why = "did not run" if got is None else (got.failed_reason or got.status)
            res.status, res.failed_reason = "skipped", f"depends on {dep}, which was not established ({why})"
            emit("skipped", step.id, reason=res.failed_reason)
            return res
    payloads = run.payloads()
    try:
        args = resolve_references(step.arguments, payloads)
        expects = resolve_references(step.expects, payloads)
    except PathError as exc:
        res.status, res.failed_reason = "skipped", f"refers to a result that is not available: {exc}"
        emit("skipped", step.id, reason=res.failed_reason)
        return res
    res.arguments = args
    # 2. reuse a prior run's established step
    if prior is not None:
        old = prior.results.get(step.id)
        if old is not None and old.ok and old.tool == step.tool and old.arguments == jsonsafe(args) and old.payload is not None:
            gates = evaluate(expects, old.payload)
            if all(g["passed"] for g in gates):
                res.status, res.payload, res.gates, res.reused = "ok", old.payload, gates, True
                res.summary = old.summary
                emit("reused", step.id, tool=step.tool)
                return res
    # 3. run the tool
    fn = callables.get(step.tool)
    if fn is None:
        res.failed_reason = f"unknown tool {step.tool!r}"
        res.error = {"type": "StudyError", "error": res.failed_reason}
        emit("failed", step.id, reason=res.failed_reason)
        return res
    emit("start", step.id, tool=step.tool)
    t0 = time.perf_counter()
    try:
        limits.check_arguments(step.tool, args)  # the resolved values too: a bound no study file can lift
        payload = fn(**args)
    except AquascopeError as exc:
        res.seconds = time.perf_counter() - t0
        res.failed_reason, res.error = exc.message, exc.to_dict()
        emit("failed", step.id, reason=res.failed_reason)
        return res
    except TypeError as exc:
        res.seconds = time.perf_counter() - t0
        res.failed_reason = f"the arguments do not fit {step.tool}: {exc}"
        res.error = {"type": "TypeError", "error": str(exc)}
        emit("failed", step.id, reason=res.failed_reason)
        return res
    except Exception as exc:  # a defect in a tool must not lose the rest of the study
        log.exception("tool %s failed in step %s", step.tool, step.id)
        res.seconds = time.perf_counter() - t0
        res.failed_reason = f"{type(exc).__name__}: {exc}"
        res.error = {"type": type(exc).__name__, "error": str(exc), "defect": True}
        emit("failed", step.id, reason=res.failed_reason)
        return res
    res.seconds = time.perf_counter() - t0
    if not isinstance(payload, Mapping):
        raise StudyError(f"tool {step.tool} returned a {type(payload).__name__}, not a payload dict")
    res.payload = jsonsafe(payload)
    res.summary = _summarise(res.payload)
    if res.payload.get("ok") is False:
        res.failed_reason = res.payload.get("reason") or f"{step.tool} returned no result"
        res.gates = evaluate(expects, res.payload)
        emit("failed", step.id, reason=res.failed_reason)
        return res
    # 4. gates
    res.gates = evaluate(expects, res.payload)
    failed = [g for g in res.gates if not g["passed"]]
    if failed:
        res.failed_reason = "; ".join(f"gate {g['check']} failed: {g['detail']}" for g in failed)
        emit("failed", step.id, reason=res.failed_reason, gates=res.gates)
        return res
    res.status = "ok"
    emit("done", step.id, tool=step.tool, gates=res.gates, seconds=round(res.seconds, 3))
    return res


def referenced_steps(step: Step) -> list[str]:
    """The step ids a step's arguments and gates refer to."""
    return sorted({sid for sid, _ in references_in([step.arguments, step.expects])})
