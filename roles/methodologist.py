"""The Methodologist: the plan, as a version-3 study, for the user to approve.

Keyless: the playbook tree (``playbooks.plan``) fills the study from the inventory and the brief;
a playbook decline, or a required method the registry refuses at the site, ends the study as
declined with the playbook's sentence. The plan is validated (``validate_plan``) before anyone sees it.

With a model (or a plan a face's own model proposed), the study is composed from the catalogue
(:mod:`roles.compose`): validated, repaired once, its not-defensible steps dropped with a note; when
nothing valid remains the tree's plan is used, with a note saying why. A playbook decline stands
whatever a model proposes: it says what the site lacks. ``plan.author`` says who wrote the plan.
"""

from __future__ import annotations

import re
from typing import Any

from aquascope_core import playbooks
from aquascope_core.catalogue import fill_outputs, validate_plan
from aquascope_core.deliverables.report_md import plan_markdown
from aquascope_core.errors import DeclinedError
from aquascope_core.study import Study
from aquascope_core.workspace import Workspace

__all__ = ["methodologist", "request_text", "decline_pending"]

ROLE = "methodologist"


def methodologist(ws: Workspace, *, model: Any = None, proposed: Any = None, source: str = "model") -> Workspace:
    """Write ``ws.study`` (version 3) and a plan message; or decline with the reason.

    ``proposed`` is a plan in the Methodologist's reply shape written by a face's own model (``source`` names
    it); it is checked like the model's own plan, without a repair call.
    """
    ws.status = "planning"
    brief = ws.brief or {}
    recon = (ws.inventory or {}).get("recon") or {}
    ws.event(ROLE, "start", {"playbook": brief.get("playbook")})
    try:
        study = playbooks.plan(brief["playbook"], recon, brief.get("intake") or {}, question=brief.get("problem", ""))
    except DeclinedError as exc:
        ws.study = {}
        request = _data_request(brief, recon, exc.message)
        gauged = _gauged_elsewhere(ws, recon, exc.message)
        if request is not None and gauged:
            request = {**request, "why": f"{request['why'].rstrip('.')}. {gauged}", "gauged_elsewhere": True}
        if request is not None:  # data the user could bring: the study waits for it
            ws.status = "waiting"
            ws.pending_request = request
            ws.say(ROLE, request_text(request), kind="data_request", payload={"request": request})
            ws.event(ROLE, "data_request", {"what": request["what"], "continue_without": request["continue_without"]})
            return ws
        ws.status = "declined"
        ws.brief = {**brief, "declined_reason": exc.message}
        ws.say(ROLE, exc.message, kind="declined", payload={"recovery": exc.recovery})
        ws.event(ROLE, "declined", {"reason": exc.message})
        return ws
    for comp in brief.get("companions") or []:
        # a compound brief: the companion playbook's new steps join the plan (its declines become notes)
        comp_intake = {**(brief.get("intake_stated") or {}), **((brief.get("companion_intake") or {}).get(comp) or {})}
        try:
            comp_intake = playbooks.coerce_intake(comp, {k: v for k, v in comp_intake.items()
                                                         if k in {q["name"] for q in playbooks.part(comp, "intake", [])}})
            playbooks.add_companion(study, comp, recon, comp_intake)
        except Exception as exc:  # noqa: BLE001 - a companion never sinks the primary plan
            study.plan.setdefault("notes", []).append(f"companion {comp} not planned: {exc}")
        ws.event(ROLE, "companion", {"playbook": comp})
    study.id = ws.id
    # data the plan asks for (the site's basin characteristics for a regression peak): the study waits for it as
    # for any data request, before any model composes the plan (composed once, when the data is in or gone
    # without); a reply with the data plans again, "continue without" plans again with the asks answered, and the
    # plan, which stands without the data, goes on to review. An ask is known by its step: a plan made again for
    # another return period, or a fork of it, asks no more.
    answered = set(brief.get("asks_answered") or [])
    waiting = [a for a in study.plan.get("asks") or [] if a.get("text") and a.get("step") not in answered]
    if waiting:
        from roles.requests import plan_request

        request = plan_request(brief.get("playbook"), waiting)
        ws.study = {}
        ws.status = "waiting"
        ws.pending_request = request
        ws.say(ROLE, request_text(request), kind="data_request", payload={"request": request})
        ws.event(ROLE, "data_request", {"what": request["what"], "steps": request["steps"],
                                        "continue_without": "the plan as it stands"})
        return ws
    errors = validate_plan(study, site=study.plan.get("site_context") or recon.get("context"))
    plan_used, model_errors = "tree", []
    if model is not None or proposed is not None:
        composed = _compose(ws, model, proposed, source, brief, recon, study)
        model_errors = composed.errors
        if composed.study is not None:
            composed.study.id, study, errors, plan_used = ws.id, composed.study, [], "proposed"
        else:
            study.plan.setdefault("notes", []).append(
                "The composed plan was not used (" + "; ".join(composed.errors[:5]) + "); the playbook's plan is used.")
    ws.request = {**ws.request, "plan_used": plan_used, "plan_errors": model_errors}
    if errors:  # a playbook defect: say so rather than run a plan that does not hold
        ws.status = "declined"
        reason = "The plan does not validate: " + "; ".join(errors + model_errors)
        ws.brief = {**brief, "declined_reason": reason}
        ws.say(ROLE, reason, kind="declined")
        ws.event(ROLE, "declined", {"reason": reason})
        return ws
    asks = [a for a in study.plan.get("asks") or [] if a.get("text")]
    for a in asks:  # the asks the user went on without, so marked in the plan
        if a.get("step") in set(brief.get("asks_answered") or []):
            a["continued_without"] = True
    ws.study = study.to_dict()
    ws.status = "review"
    ws.say(ROLE, plan_markdown(study), kind="plan", payload={"study_id": ws.id, "steps": len(study.steps),
                                                             **({"data_requests": asks} if asks else {})})
    ws.event(ROLE, "plan", {"playbook": study.plan.get("playbook"), "branch": study.plan.get("branch"),
                            "steps": [s.id for s in study.steps], "author": study.plan.get("author"),
                            "plan_used": plan_used})
    return ws


def _gauged_elsewhere(ws: Workspace, recon: dict, reason: str) -> str | None:
    """Who gauges the site's region, when the decline is for want of a record and none is held in reach."""
    from aquascope_core.data.coverage import gauged_sentence

    if not re.search(r"\bno (?:daily )?discharge record|\bno (?:precipitation or )?streamflow record", reason, re.I):
        return None
    site = ws.site or recon.get("site") or {}
    return gauged_sentence(site.get("lat"), site.get("lon"))


def _data_request(brief: dict, recon: dict, reason: str) -> dict | None:
    from roles.requests import request_for

    try:
        scope = playbooks.scope_for(recon, brief.get("intake") or {}, playbooks.load(brief["playbook"]))
    except Exception:  # noqa: BLE001 - the scope only refines the continuation
        scope = {}
    return request_for(brief.get("playbook"), reason, scope)


def request_text(request: dict) -> str:
    """The request as the user reads it: why, what would help, and what continuing without it means."""
    if request.get("stands_without"):  # the plan's own words say what the data gives and what going on without it does
        return str(request["why"])
    text = f"{request['why'].rstrip('.')}. The crew can go on with {request['what']} ({request['effect']})."
    if request.get("continue_without"):
        text += (f" Or say \"continue without\" to {request['without']}"
                 + (f" (graded at most {request['grade_without']})" if request.get("grade_without") else "") + ".")
    else:
        text += " Without it the study cannot go on."
    return text


def decline_pending(ws: Workspace, why: str = "") -> Workspace:
    """End a study that waits for data as declined, the request's words (what would help) as the reason."""
    reason = request_text(ws.pending_request or {}) + (f" {why}" if why else "")
    ws.brief = {**(ws.brief or {}), "declined_reason": reason}
    ws.pending_request = None
    ws.status = "declined"
    ws.event(ROLE, "declined", {"reason": reason})
    return ws


def _compose(ws: Workspace, model: Any, proposed: Any, source: str, brief: dict, recon: dict, tree: Study):
    from roles.compose import compose
    from roles.prompts import METHODOLOGIST_SYSTEM

    from roles.knowledge import with_knowledge

    system = with_knowledge(METHODOLOGIST_SYSTEM, brief.get("playbook"), "planning")
    composed = compose(model, ws, role=ROLE, system=system, brief=brief, recon=recon,
                       inventory=ws.inventory or {}, tree=tree, reply=proposed,
                       source=source if proposed is not None else "model")
    ws.event(ROLE, "composed" if composed.study is not None else "composed_rejected",
             {"errors": composed.errors, "notes": composed.notes, "dropped": len(composed.dropped)})
    return composed


def apply_edits(ws: Workspace, edits: Any) -> list[str]:
    """Apply a reviewer's edits to the plan: ``{"study": {...}}`` replaces it, ``{"steps": {id: {field: value}}}``
    changes fields of named steps, ``{"drop": [ids]}`` removes optional steps. Returns validation errors (the
    plan is kept unchanged when there are any)."""
    study = Study.from_dict(ws.study)
    if isinstance(edits, dict) and isinstance(edits.get("study"), dict):
        candidate = Study.from_dict(edits["study"])
    else:
        data = study.to_dict()
        by_id = {s["id"]: s for s in data["steps"]}
        for sid, change in ((edits or {}).get("steps") or {}).items():
            if sid not in by_id:
                return [f"edit names step {sid!r}, which is not in the plan ({', '.join(by_id)})"]
            if not isinstance(change, dict):
                return [f"edit of step {sid} must be a mapping of fields"]
            for k, v in change.items():
                if k == "arguments" and isinstance(v, dict):
                    by_id[sid].setdefault("arguments", {}).update(v)
                else:
                    by_id[sid][k] = v
        drop = set((edits or {}).get("drop") or [])
        for sid in drop:
            if sid not in by_id:
                return [f"edit drops step {sid!r}, which is not in the plan ({', '.join(by_id)})"]
            if sid in by_id and not by_id[sid].get("optional"):
                return [f"step {sid} is required by the methodology and cannot be dropped"]
        data["steps"] = [s for s in data["steps"] if s["id"] not in drop]
        try:
            candidate = Study.from_dict(data)
        except Exception as exc:  # noqa: BLE001
            return [str(exc)]
    fill_outputs(candidate)  # an edited or replaced plan names what it will draw, as a playbook's does
    errors = validate_plan(candidate, site=study.plan.get("site_context")
                           or ((ws.inventory or {}).get("recon") or {}).get("context"))
    if errors:
        return errors
    candidate.id = ws.id
    candidate.plan = {**candidate.plan, "edited_by": "reviewer"}
    ws.study = candidate.to_dict()
    return []
