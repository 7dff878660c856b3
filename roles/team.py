"""The result of a headless study (graphs.solve.solve), read from the crew's workspace.

``solve()`` itself drives the crew's compiled graph (graphs/solve.py), so every behaviour of the crew
exists once, in the graph's nodes; this module holds what that function returns, with no graph in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aquascope_core.runner import StudyRun
from aquascope_core.study import Study
from aquascope_core.workspace import Workspace

__all__ = ["SolveResult", "result_from_workspace"]


@dataclass
class SolveResult:
    study: Study | None
    run: StudyRun | None
    recon: dict[str, Any]
    answer: str
    checks: list[dict[str, Any]] = field(default_factory=list)
    timeline: list[dict[str, Any]] = field(default_factory=list)
    declined: bool = False
    declined_reason: str | None = None
    cost: dict[str, Any] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)
    workspace: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "study": self.study.to_dict() if self.study else None,
            "run": self.run.to_dict() if self.run else None,
            "recon": self.recon, "answer": self.answer, "checks": self.checks, "timeline": self.timeline,
            "declined": self.declined, "declined_reason": self.declined_reason, "cost": self.cost,
            "report": self.report,
        }


def result_from_workspace(ws: Workspace, *, declined: bool = False) -> SolveResult:
    """The SolveResult a finished (or declined, or planned) workspace reads as."""
    study = Study.from_dict(ws.study) if ws.study else None
    run = StudyRun.from_dict(ws.run) if ws.run else None
    reason = (ws.brief or {}).get("declined_reason") if declined else None
    answer = (ws.report or {}).get("answer") or (reason or "")
    cost = {role: {k: v.get(k) for k in ("calls", "prompt_tokens", "completion_tokens", "cost_usd")}
            for role, v in (ws.ledger or {}).items()}
    ws.listener = None
    return SolveResult(study=study, run=run, recon=((ws.inventory or {}).get("recon") or {}), answer=answer,
                       checks=list((ws.critique or {}).get("checks") or []),
                       timeline=[{k: e.get(k) for k in ("role", "step", "event", "detail")} for e in ws.events],
                       declined=declined, declined_reason=reason, cost=cost, report=dict(ws.report or {}),
                       workspace=ws.to_dict())
