"""The Consultant: turns the user's words into a brief the crew can plan from.

Keyless: keyword rules choose the playbook, intake hints are read from the text (a return period
such as "100-year", "1 in 50" or "1 % AEP"; the decision the text names), defaults fill the rest
and are listed as assumptions, and the gaps become at most three questions. "just go" (or an
approval with no answers) takes the defaults. With a model, the brief is read from the text by
one call whose reply is coerced through the playbook's intake; the keyless questions still cover
what the model left out.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from aquascope_core import playbooks
from aquascope_core.errors import InputError
from aquascope_core.workspace import Workspace

__all__ = ["consultant", "choose_playbook", "read_intake", "JUST_GO"]

ROLE = "consultant"
JUST_GO = ("just go", "go ahead", "use the defaults", "defaults", "proceed", "go")

# Words that name the decision behind a flood question, mapped to the playbook's options.
_DECISION_WORDS = {
    "design flow": ("design flow", "design flood", "road crossing", "crossing", "culvert", "bridge", "spillway",
                    "design"),
    "risk screening": ("screening", "screen", "risk"),
    "insurance": ("insurance", "insurer", "premium"),
}


def choose_playbook(text: str) -> tuple[str | None, dict[str, int]]:
    """The playbook whose keywords the text names most (ties: the first listed), with the scores."""
    low = text.lower()
    scores: dict[str, int] = {}
    for pb in playbooks.list_playbooks():
        score = 0
        for kw in pb.get("keywords", []):
            kw = str(kw).lower()
            if re.search(r"(?<![a-z])" + re.escape(kw) + r"(?![a-z])", low):
                score += 2 if " " in kw else 1
        if score:
            scores[pb["id"]] = score
    if not scores:
        return None, {}
    best = max(scores.values())
    return next(pid for pid, s in scores.items() if s == best), scores


def _return_period(text: str) -> int | None:
    low = text.lower().replace(",", "")
    m = re.search(r"(\d+(?:\.\d+)?)\s*-?\s*(?:years?|yrs?|y)\b", low)
    if m:
        return int(float(m.group(1)))
    m = re.search(r"\b1\s*(?:in|/)\s*(\d+)\b", low)
    if m:
        return int(m.group(1))
    m = re.search(r"(\d+(?:\.\d+)?)\s*%\s*(?:aep|annual exceedance|chance)", low)
    if m and float(m.group(1)) > 0:
        return int(round(100.0 / float(m.group(1))))
    return None


def read_intake(playbook_id: str, text: str) -> dict[str, Any]:
    """The intake fields the text itself states (nothing else: defaults are applied later)."""
    pb = playbooks.load(playbook_id)
    low = text.lower()
    out: dict[str, Any] = {}
    for q in pb.get("intake", []):
        name = q["name"]
        if name == "return_period":
            T = _return_period(text)
            if T is not None:
                out[name] = T
        elif q["type"] == "choice":
            for opt in q.get("options", []):
                if str(opt).lower() in low:
                    out[name] = opt
                    break
            else:
                if name == "decision":
                    for opt, words in _DECISION_WORDS.items():
                        if opt in q.get("options", []) and any(w in low for w in words):
                            out[name] = opt
                            break
    return out


def _questions(pb: Mapping[str, Any], stated: Mapping[str, Any]) -> list[dict[str, Any]]:
    qs = []
    for q in pb.get("intake", []):
        name = q["name"]
        if name in stated:
            continue
        if q.get("default") is None or name == "return_period":
            options = q.get("options")
            text = q.get("label", name)
            if q.get("default") is not None:
                text += f" (default {q['default']})"
            qs.append({"field": name, "question": text, "options": options, "default": q.get("default")})
    return qs[:3]


def consultant(ws: Workspace, text: str | None = None, *, answers: Mapping[str, Any] | str | None = None,
               model: Any = None) -> Workspace:
    """Write ``ws.brief`` from the problem text (and any answers to earlier questions)."""
    text = text if text is not None else ws.request.get("text", "")
    if not isinstance(text, str) or not text.strip():
        raise InputError("The problem text is empty: describe the question, for example "
                         "\"Design flow for a road crossing, 100-year\".", argument="problem", value=text,
                         recovery="Give the problem as a sentence.")
    ws.status = "intake"
    ws.event(ROLE, "start", {"text": text})
    prior = dict(ws.brief or {})
    playbook_id = prior.get("playbook") or ws.request.get("playbook")
    scores: dict[str, int] = {}
    if not playbook_id:
        playbook_id, scores = choose_playbook(text)
    if playbook_id is None:
        names = ", ".join(p["id"] for p in playbooks.list_playbooks())
        ws.brief = {"problem": text, "ready": False, "playbook": None, "source": "keyless",
                    "declined_reason": ("The question does not match any study the crew can do; name one of: "
                                        f"{names} (for example \"design flood\", \"drought status\").")}
        ws.status = "declined"
        ws.say(ROLE, ws.brief["declined_reason"], kind="declined")
        ws.event(ROLE, "declined", {"reason": ws.brief["declined_reason"]})
        return ws
    pb = playbooks.load(playbook_id)
    stated = {**(prior.get("intake_stated") or {}), **read_intake(playbook_id, text), **dict(ws.request.get("intake") or {})}
    just_go = False
    if isinstance(answers, str):
        if answers.strip().lower() in JUST_GO:
            just_go = True
        else:
            stated.update(read_intake(playbook_id, answers))
    elif isinstance(answers, Mapping):
        stated.update({k: v for k, v in answers.items() if v is not None})
    source = "keyless"
    if model is not None:
        proposed = _model_brief(ws, model, text, pb)
        if proposed:
            stated = {**proposed, **stated}
            source = "model"
    intake = playbooks.coerce_intake(pb, stated)
    questions = [] if just_go else _questions(pb, stated)
    assumed = [f"{q.get('label', q['name'])}: {intake.get(q['name'])} (default)" for q in pb.get("intake", [])
               if q["name"] not in stated and intake.get(q["name"]) is not None]
    ready = not questions or bool(ws.request.get("assume_defaults"))
    ws.brief = {
        "problem": text,
        "kind": pb.get("problem", playbook_id),
        "playbook": playbook_id,
        "playbook_scores": scores,
        "decision": intake.get("decision"),
        "quantities": _quantities(playbook_id, intake),
        "intake": intake,
        "intake_stated": stated,
        "assumptions": assumed,
        "questions": [] if ready else questions,
        "ready": ready,
        "source": source,
        "companions": playbooks.companions(text, playbook_id),
    }
    if prior.get("feedback"):
        ws.brief["feedback"] = list(prior["feedback"])
    if ready:
        ws.say(ROLE, f"Brief: {pb.get('title')}. " + (" ".join(f"{a}." for a in assumed) if assumed else ""),
               kind="text", payload={"brief": ws.brief})
    else:
        ws.status = "intake"
        ws.say(ROLE, "Before planning, a few questions: " + " ".join(q["question"] + "?" for q in questions),
               kind="questions", payload={"questions": questions})
    ws.event(ROLE, "brief", {"playbook": playbook_id, "ready": ready, "questions": len(ws.brief["questions"])})
    return ws


def _quantities(playbook_id: str, intake: Mapping[str, Any]) -> list[str]:
    if playbook_id == "flood_risk" and intake.get("return_period"):
        return [f"{intake['return_period']}-year peak flow"]
    return []


def _model_brief(ws: Workspace, model: Any, text: str, pb: Mapping[str, Any]) -> dict[str, Any] | None:
    from roles.prompts import CONSULTANT_SYSTEM

    def check(obj: Any) -> dict[str, Any]:
        intake = obj.get("intake") if isinstance(obj, Mapping) else None
        if not isinstance(intake, Mapping):
            raise ValueError("the reply needs an 'intake' object")
        known = {q["name"] for q in pb.get("intake", [])}
        cleaned = {k: v for k, v in intake.items() if k in known and v is not None}
        try:
            playbooks.coerce_intake(pb, cleaned)
        except InputError as exc:
            raise ValueError(str(exc)) from None
        return cleaned

    payload = {"problem": text, "site": ws.site, "playbook": pb.get("id"),
               "intake": [{k: q.get(k) for k in ("name", "label", "type", "options", "default")} for q in pb.get("intake", [])]}
    return model.call_json(ws, ROLE, CONSULTANT_SYSTEM, payload, check)
