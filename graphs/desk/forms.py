"""The desk's forms read back into the interrupts' answers (the agent-inbox forms graphs.nodes takes).

- the questions form: ``answer.<field>`` per question -> an ``answer_questions`` edit with the answers given
  (none given: accept, the defaults);
- the plan form: ``intake.<name>`` for the brief's intake and ``arg.<step>.<name>`` for each literal step
  argument (a ``{{ result... }}`` reference is wiring, shown, not editable), ``keep.<step>`` for optional
  steps -> an ``approve_plan`` edit holding only what the reviewer changed (nothing changed: accept).

A value is read by the type of the value it replaces (a number stays a number, a list is JSON or
comma-separated); one that cannot be read is an error naming the field, what was typed and what fits.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

__all__ = ["FormError", "shown", "editable", "read_value", "answers_from_form", "plan_edit_from_form"]


class FormError(ValueError):
    """A form value the desk cannot read, in words."""


def editable(value: Any) -> bool:
    """Whether a step argument is a literal a reviewer may change (not a reference to another step's result)."""
    text = json.dumps(value) if not isinstance(value, str) else value
    return "{{" not in text


def shown(value: Any) -> str:
    """A value as the text of its form field."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return repr(value)
    return json.dumps(value)


def read_value(text: str, like: Any, label: str) -> Any:
    """``text`` read as a value of the type of ``like``; FormError naming ``label`` otherwise."""
    text = (text or "").strip()
    if like is None:
        if not text:
            return None
        try:
            return json.loads(text)
        except ValueError:
            return text
    if isinstance(like, bool):
        low = text.lower()
        if low in ("true", "yes", "1", "on"):
            return True
        if low in ("false", "no", "0", "off"):
            return False
        raise FormError(f"{label}: {text!r} is not yes or no (write true or false).")
    if isinstance(like, (int, float)):
        try:
            number = float(text.replace(",", ""))
        except ValueError:
            raise FormError(f"{label}: {text!r} is not a number (write digits, for example "
                            f"{shown(like)}).") from None
        if number != number or number in (float("inf"), float("-inf")):
            raise FormError(f"{label}: {text!r} is not a finite number.")
        return int(number) if isinstance(like, int) and number.is_integer() else number
    if isinstance(like, (list, dict)):
        try:
            value = json.loads(text)
        except ValueError:
            if isinstance(like, dict):
                raise FormError(f"{label}: {text!r} is not a JSON object (write it as {shown(like)}).") from None
            items = [t.strip() for t in text.split(",") if t.strip()]
            value = [read_value(t, like[0], label) if like else t for t in items]
        if not isinstance(value, type(like)):
            kind = "a list (for example [2, 5, 10] or 2, 5, 10)" if isinstance(like, list) else "a JSON object"
            raise FormError(f"{label}: {text!r} is not {kind}.")
        return value
    return text


def answers_from_form(form: Mapping[str, str], questions: list[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The answer to the questions interrupt: an edit with the answers typed, or accept when none was typed."""
    answers = {}
    for q in questions:
        field = q.get("field")
        text = (form.get(f"answer.{field}") or "").strip()
        if field and text:
            answers[field] = text
    if not answers:
        return {"type": "accept", "args": None}
    return {"type": "edit", "args": {"action": "answer_questions", "args": {"answers": answers}}}


def plan_edit_from_form(form: Mapping[str, str], study: Mapping[str, Any],
                        intake: Mapping[str, Any]) -> dict[str, Any]:
    """The edit the plan form asks for: {"intake": ..., "steps": ..., "drop": [...]} with what changed only."""
    edit: dict[str, Any] = {}
    changed_intake = {}
    for name, old in intake.items():
        key = f"intake.{name}"
        if key not in form:
            continue
        new = read_value(form[key], old, f"Study setting '{name}'")
        if new != old and not (old is None and new in (None, "")):
            changed_intake[name] = new
    if changed_intake:
        edit["intake"] = changed_intake
    steps: dict[str, Any] = {}
    drop = []
    for st in study.get("steps") or []:
        sid = st.get("id")
        changed = {}
        for name, old in (st.get("arguments") or {}).items():
            key = f"arg.{sid}.{name}"
            if key not in form or not editable(old):
                continue
            new = read_value(form[key], old, f"Step {sid} ({st.get('title') or st.get('tool')}), argument '{name}'")
            if new != old:
                changed[name] = new
        if changed:
            steps[sid] = {"arguments": changed}
        if st.get("optional") and f"keep.{sid}" not in form and form.get("plan_form") == "1":
            drop.append(sid)
    if steps:
        edit["steps"] = steps
    if drop:
        edit["drop"] = drop
    return edit
