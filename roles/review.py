"""The reviewer's part of a study: an edit of the plan applied and explained, and every decision recorded.

- :func:`apply_review_edit` applies an edit (``{"intake": {...}}`` re-plans with the changed intake;
  ``{"study": {...}}``, ``{"steps": {...}}`` and ``{"drop": [...]}`` change the plan itself), validates the
  result against the catalogue and its gates, and regenerates the plan's text (objective, decision,
  methodology, ...) from the edited plan: the intake the edited steps carry (a gate's ``return_period``)
  re-renders the playbook's text. The methodology follows the edit through the link each line carries to the
  steps it describes (:func:`aquascope_core.methodology.follow`): a dropped step's lines go, a changed argument
  re-renders the lines that quote it, an added step gets its own line; a line recording the edit (kind
  ``review``) says what the reviewer changed. Plain-string lines of a study written before the link are
  unlinked: they stay (a playbook's plan has them regenerated, linked, from the playbook on its first edit).
- :func:`plan_changes` lists what an edit changed, field by field (the decision record's ``changes``).
- :func:`record_decision` appends {kind, by, at, changes, ...} to ``study.plan.decisions``: the study file
  carries the human choices, so a replay with no model reproduces them (:func:`replay_decisions`).
"""

from __future__ import annotations

import copy
from typing import Any, Mapping

from aquascope_core import methodology, playbooks
from aquascope_core.catalogue import validate_plan
from aquascope_core.errors import AquascopeError
from aquascope_core.result import utc_now
from aquascope_core.study import Study
from aquascope_core.workspace import Workspace

__all__ = ["apply_review_edit", "plan_changes", "record_decision", "replay_decisions", "TEXT_FIELDS"]

# the plan's words that follow the plan (regenerated after an edit)
TEXT_FIELDS = ("objective", "decision", "rationale", "methodology", "assumptions", "alternatives",
               "limitations_expected", "caveats")


def _flatten(obj: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(obj, Mapping):
        out: dict[str, Any] = {}
        for k, v in obj.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: obj}


def plan_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[dict[str, Any]]:
    """What changed from one study dict to another: steps dropped or added, step fields changed, intake changed."""
    b_steps = {s["id"]: s for s in before.get("steps") or []}
    a_steps = {s["id"]: s for s in after.get("steps") or []}
    out: list[dict[str, Any]] = []
    for sid in b_steps:
        if sid not in a_steps:
            out.append({"step": sid, "change": "dropped", "tool": b_steps[sid].get("tool")})
    for sid, st in a_steps.items():
        if sid not in b_steps:
            out.append({"step": sid, "change": "added", "tool": st.get("tool")})
            continue
        old = _flatten({k: v for k, v in b_steps[sid].items() if k != "result"})
        new = _flatten({k: v for k, v in st.items() if k != "result"})
        for key in sorted(set(old) | set(new)):
            if old.get(key) != new.get(key):
                out.append({"step": sid, "field": key, "from": old.get(key), "to": new.get(key)})
    b_int = (before.get("problem") or {}).get("params") or {}
    a_int = (after.get("problem") or {}).get("params") or {}
    for key in sorted(set(b_int) | set(a_int)):
        if b_int.get(key) != a_int.get(key):
            out.append({"intake": key, "from": b_int.get(key), "to": a_int.get(key)})
    return out


def _words(change: Mapping[str, Any], steps: Mapping[str, Mapping[str, Any]]) -> str:
    if "intake" in change:
        return f"{change['intake'].replace('_', ' ')} {change['from']} -> {change['to']}"
    title = (steps.get(change["step"]) or {}).get("title") or change.get("tool") or ""
    label = f"step {change['step']}" + (f" ({title})" if title else "")
    if change.get("change") == "dropped":
        return f"{label} dropped"
    if change.get("change") == "added":
        return f"{label} added"
    if change["field"] == "expects":
        return f"{label}: gates {len(change['from'] or [])} -> {len(change['to'] or [])}"
    return f"{label}: {change['field'].replace('arguments.', '')} {change['from']!r} -> {change['to']!r}"


def _plan_intake(study: Study, intake: Mapping[str, Any], playbook: Mapping[str, Any]) -> dict[str, Any]:
    """The intake the plan's steps carry: an intake field named by a step argument or a gate key holds the
    value the steps use when they all agree on one (a gate edited to the 200-year flood makes it 200)."""
    names = [q["name"] for q in playbook.get("intake", [])]
    found: dict[str, set] = {}
    for st in study.steps:
        for name in names:
            if name in st.arguments and not isinstance(st.arguments[name], (list, dict)):
                found.setdefault(name, set()).add(st.arguments[name])
            for g in st.expects:
                if name in g and not isinstance(g[name], (list, dict)):
                    found.setdefault(name, set()).add(g[name])
    out = dict(intake)
    for name, values in found.items():
        if len(values) == 1:
            out[name] = next(iter(values))
    return out


def _regenerate(candidate: Study, ws: Workspace, intake: Mapping[str, Any]) -> dict[str, Any] | None:
    """The playbook's text for the edited plan (None when the playbook cannot plan with that intake)."""
    plan = candidate.plan or {}
    pb_id = plan.get("playbook")
    if not pb_id:
        return None
    recon = (ws.inventory or {}).get("recon") or {}
    try:
        fresh = playbooks.plan(pb_id, recon, intake, question=candidate.question or "")
    except AquascopeError:
        return None
    if fresh.plan.get("branch") != plan.get("branch"):
        return None
    return {"plan": fresh.plan, "title": fresh.title, "problem": fresh.problem, "steps": fresh.steps}


def apply_review_edit(ws: Workspace, edits: Any) -> tuple[list[str], list[dict[str, Any]]]:
    """Apply a reviewer's edit to ``ws.study`` (and the brief's intake it implies); (errors, changes).

    With errors the workspace is unchanged. An edit may combine ``intake`` (re-plan with those intake
    values first) with ``steps``/``drop`` (then changed on the re-planned study) or give ``study`` whole."""
    from roles.methodologist import apply_edits

    if not isinstance(edits, Mapping):
        return [f"an edit must be a mapping ({{'study': ...}}, {{'steps': ...}}, {{'drop': [...]}} or "
                f"{{'intake': ...}}), got {type(edits).__name__}"], []
    before = copy.deepcopy(ws.study)
    brief = dict(ws.brief or {})
    pb_id = (before.get("plan") or {}).get("playbook") or brief.get("playbook")
    pb = playbooks.load(pb_id) if pb_id else {}
    intake = dict(brief.get("intake") or {})
    trial = Workspace.from_dict(ws.to_dict())
    if isinstance(edits.get("intake"), Mapping) and edits["intake"]:
        try:
            intake = playbooks.coerce_intake(pb, {**(brief.get("intake_stated") or intake), **edits["intake"]})
            fresh = playbooks.plan(pb_id, (ws.inventory or {}).get("recon") or {}, intake,
                                   question=before.get("question") or brief.get("problem", ""))
        except AquascopeError as exc:
            return [f"the intake edit {dict(edits['intake'])} cannot be planned: {exc.message}"], []
        fresh.id = ws.id
        trial.study = {**fresh.to_dict(), "plan": {**fresh.plan, "decisions": (before.get("plan") or {}).get("decisions", [])}}
    rest = {k: v for k, v in edits.items() if k != "intake"}
    if rest:
        errors = apply_edits(trial, rest)
        if errors:
            return errors, []
    candidate = Study.from_dict(trial.study)
    errors = validate_plan(candidate, site=candidate.plan.get("site_context")
                           or ((ws.inventory or {}).get("recon") or {}).get("context"))
    if errors:
        return errors, []
    intake = _plan_intake(candidate, intake, pb) if pb else intake
    regenerated = _regenerate(candidate, ws, intake)
    plan = dict(candidate.plan)
    if regenerated:
        for key in TEXT_FIELDS:
            if key in regenerated["plan"]:
                plan[key] = regenerated["plan"][key]
        plan["site_context"] = regenerated["plan"].get("site_context", plan.get("site_context"))
        candidate.title = regenerated["title"]
        candidate.problem = {**(candidate.problem or {}), "params": dict(intake)}
    after = {**candidate.to_dict(), "plan": plan}
    changes = plan_changes(before, after)
    steps = {s["id"]: s for s in [*(before.get("steps") or []), *(after.get("steps") or [])]}  # a dropped one too
    # the steps the edit changed beyond what the intake re-rendered say so in the methodology
    own = changes
    if regenerated:  # what the playbook would not have written for this intake is the reviewer's own change
        own = plan_changes({"steps": [st.to_dict() for st in regenerated["steps"]]}, after)
    said = [_words(c, steps) for c in own if "intake" not in c and c.get("field") != "title"]
    # the methodology follows the edited steps through its links: the playbook's lines for the new intake (or the
    # plan's own lines), without the lines of the steps gone, re-rendered from the steps' arguments; a composed
    # plan (author methodologist) keeps its own lines, which follow the edit through their links the same way
    own_lines = (before.get("plan") or {}).get("author") == "methodologist" and not {"study", "intake"} & set(edits)
    if regenerated and not own_lines:
        source, lines = [st.to_dict() for st in regenerated["steps"]], list(plan.get("methodology") or [])
    else:
        source = list(before.get("steps") or [])
        lines = list(((before.get("plan") or {}) if own_lines else plan).get("methodology") or [])
    plan["methodology"] = methodology.follow(lines, source, list(after.get("steps") or []),
                                             previous=list(before.get("steps") or []))
    if said:
        plan["methodology"].append(methodology.line("Changed at review: " + "; ".join(said) + ".", [], kind="review"))
    plan["edited_by"] = "reviewer"
    after["plan"] = plan
    ws.study = after
    if intake != (brief.get("intake") or {}):
        brief["intake"] = dict(intake)
        brief["intake_stated"] = {**(brief.get("intake_stated") or {}),
                                  **{k: v for k, v in intake.items() if (brief.get("intake") or {}).get(k) != v}}
        if pb_id == "flood_risk" and intake.get("return_period"):
            brief["quantities"] = [f"{intake['return_period']}-year peak flow"]
        brief["decision"] = intake.get("decision", brief.get("decision"))
        ws.brief = brief
    return [], changes


def record_decision(study: Mapping[str, Any], kind: str, *, by: str | None = None, **detail: Any) -> dict[str, Any]:
    """The study with one more entry in ``plan.decisions`` (kind: accept, edit, response, ignore, answer, fork)."""
    plan = dict(study.get("plan") or {})
    row = {"kind": kind, "by": by or "reviewer", "at": utc_now(), **{k: v for k, v in detail.items() if v is not None}}
    plan["decisions"] = [*(plan.get("decisions") or []), row]
    return {**study, "plan": plan}


def replay_decisions(ws: Workspace, decisions: list[Mapping[str, Any]]) -> list[str]:
    """Apply recorded edit decisions (their ``edits``) to the plan in ``ws`` in order; the errors, if any.

    With the plan the methodologist wrote and the decisions from a study file, this rebuilds the approved
    plan with no model and no person."""
    for d in decisions:
        if d.get("kind") in ("edit", "fork") and d.get("edits"):
            errors, _ = apply_review_edit(ws, d["edits"])
            if errors:
                return errors
    return []
