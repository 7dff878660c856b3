"""solve: a problem at a place, planned, reviewed, run and answered in one call, with no graph.

    result = solve("Design flow for a road crossing, 100-year", lat=41.10, lon=-74.96)
    result.answer          # the report's answer (numbers from gated results only)
    result.study           # the executed Study (version 3), replayable with run_study
    result.declined        # True with result.declined_reason when the crew declines
    plan = solve(..., execute=False).study   # the plan only (what a reviewer sees)

Keyless unless a model is asked for (``model=`` or ``client=``): a key in the environment alone never
switches one on. ``review`` is a callback given the planned Study; it returns the Study to run (edited
or not) or None to decline. The timeline lists who did what, in order; ``cost`` is per role.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from aquascope_core.catalogue import validate_plan
from aquascope_core.data.base import validate_point
from aquascope_core.errors import InputError, PlanValidationError
from aquascope_core.runner import StudyRun
from aquascope_core.study import Study
from aquascope_core.tools.context import DataContext, table_entry
from aquascope_core.workspace import ArtifactStore, Workspace, aquascope_home
from roles import analysts, author, consultant, critic, interpreter, methodologist, scout
from roles.model import make_model

__all__ = ["solve", "SolveResult"]


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


def solve(problem: str | Mapping[str, Any], *, lat: float, lon: float, playbook: str | None = None,
          intake: Mapping[str, Any] | None = None, model: Any = None, client: Any = None, api_key: str | None = None,
          base_url: str | None = None, timeout: float | None = None, review: Callable[[Study], Study | None] | None = None,
          on_event: Callable[[dict[str, Any]], None] | None = None, max_replans: int = 1, execute: bool = True,
          tables: Mapping[str, Any] | None = None, radius_km: float = 50.0, live: bool = False,
          artifact_root: str | None = None) -> SolveResult:
    """Plan (and unless ``execute=False``, run and report) a study of ``problem`` at (lat, lon); see the module doc.

    ``problem`` is the text, or a dict ``{"text", "playbook", "intake"}`` (the intake form of a face).
    ``tables`` are the user's uploads (name -> path, bytes, text or DataFrame).
    """
    if isinstance(problem, Mapping):
        text = str(problem.get("text") or problem.get("question") or "")
        playbook = playbook or problem.get("playbook")
        intake = {**dict(problem.get("intake") or {}), **dict(intake or {})}
    else:
        text = problem
    if not isinstance(text, str) or not text.strip():
        raise InputError("The problem text is empty: describe the question, for example "
                         "\"Design flow for a road crossing, 100-year\".", argument="problem", value=text)
    la, lo = validate_point(lat, lon)
    the_model = client if client is not None else (make_model(model, api_key=api_key, base_url=base_url,
                                                              timeout=timeout or 60.0) if model else None)
    ws = Workspace(site={"lat": la, "lon": lo},
                   request={"text": text, "radius_km": radius_km, "live": bool(live), "assume_defaults": True,
                            **({"playbook": playbook} if playbook else {}), **({"intake": dict(intake)} if intake else {})})
    ws.tables = {name: table_entry(name, content) for name, content in (tables or {}).items()}
    ws.listener = on_event
    store = ArtifactStore(artifact_root or aquascope_home() / "studies" / ws.id / "artifacts")

    consultant(ws, model=the_model)
    data = DataContext.from_tables(ws.tables, ws.site, live=bool(live))  # as the Consultant read them
    if ws.status != "declined":
        scout(ws, data=data)
        methodologist(ws, model=the_model)
    if ws.status == "declined":
        author(ws, store=store)
        return _result(ws, declined=True)
    study = Study.from_dict(ws.study)
    if review is not None:
        reviewed = review(study)
        if reviewed is None:
            ws.brief = {**ws.brief, "declined_reason": "The plan was not approved."}
            ws.status = "declined"
            ws.event("reviewer", "declined", {"reason": "the reviewer declined the plan"})
            author(ws, store=store)
            return _result(ws, declined=True)
        reviewed = reviewed if isinstance(reviewed, Study) else Study.from_dict(reviewed)
        errors = validate_plan(reviewed, site=study.plan.get("site_context")
                               or ((ws.inventory or {}).get("recon") or {}).get("context"))
        if errors:
            raise PlanValidationError(errors, recovery="Fix the steps named, or return the plan unchanged.")
        ws.study = reviewed.to_dict()
        ws.event("reviewer", "approved", {"steps": [s.id for s in reviewed.steps]})
    if not execute:
        return _result(ws)
    ws.study = {**ws.study, "plan": {**ws.study.get("plan", {}), "approved": True}}
    analysts(ws, data=data, max_replans=max_replans)
    interpreter(ws, model=the_model)
    critic(ws, model=the_model)
    author(ws, model=the_model, store=store)
    return _result(ws)


def _result(ws: Workspace, *, declined: bool = False) -> SolveResult:
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
