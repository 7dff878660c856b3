"""The Analysts: run the approved study step by step through the catalogue, a gate on every step.

A failed gate fails its step; the step's fallback runs once; what still fails is recorded as not
established and the run goes on (dependent steps are skipped with the reason). With a playbook
branch fallback, the bounded replan asks the playbook for the other branch's steps.
"""

from __future__ import annotations

from typing import Any, Mapping

from aquascope_core import playbooks
from aquascope_core.catalogue import callables
from aquascope_core.errors import AquascopeError
from aquascope_core.runner import run_study
from aquascope_core.study import Step, Study
from aquascope_core.tools.context import DataContext
from aquascope_core.workspace import Workspace

__all__ = ["analysts"]

ROLE = "analysts"


def analysts(ws: Workspace, *, data: DataContext | None = None, extra: Mapping[str, Any] | None = None,
             max_replans: int = 1, model: Any = None) -> Workspace:
    """Write ``ws.run`` (results with payloads and gates) and the study's ``results``.

    With ``model``, a step that fails with no fallback of its own gets a replacement proposed by the model
    for the problem kind (roles.fallbacks), validated like any composed step, at most ``max_replans`` times.
    """
    ws.status = "running"
    study = Study.from_dict(ws.study)
    data = data or DataContext.from_tables(ws.tables, ws.site, live=bool(ws.request.get("live")))
    ws.event(ROLE, "start", {"steps": [s.id for s in study.steps]})

    def relay(event: dict[str, Any]) -> None:
        detail = {k: v for k, v in event.items() if k not in ("role", "step", "event")}
        ws.event(ROLE, event["event"], detail, step=event.get("step"))

    recon = (ws.inventory or {}).get("recon") or {}
    intake = (ws.brief or {}).get("intake") or {}

    def replan(step: Step, result: Any, current: Study) -> list[Step]:
        """A step whose fallback names a branch: that branch's steps, prefixed, run in its place."""
        branch = step.fallback.get("branch")
        try:
            steps = playbooks.plan_branch(current.plan.get("playbook"), recon, intake, branch, prefix=f"{step.id}_{branch}")
        except AquascopeError as exc:
            ws.event(ROLE, "replan_refused", {"branch": branch, "reason": exc.message}, step=step.id)
            return []
        current.plan.setdefault("notes", []).append(
            f"step {step.id} failed ({result.failed_reason}); the {branch} branch ran in its place")
        return steps

    propose = None
    if model is not None:
        from roles.fallbacks import proposer

        propose = proposer(ws, model)
    run = run_study(study, callables=callables(data=data, extra=extra), on_event=relay, replan=replan,
                    max_replans=max_replans, propose=propose)
    ws.run = run.to_dict()
    ws.study = study.to_dict()
    s = run.summary
    ws.say(ROLE, f"Ran {s['ran']} of {s['planned']} steps: {s['ok']} established, {s['failed']} not established, "
                 f"{s['skipped']} skipped.", kind="text", payload={"summary": s})
    return ws
