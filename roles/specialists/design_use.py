"""Whether a design value may be used for design ("Not for design" and why), and the grade legend of every report.

A design value is "Not for design" when any of these holds, and the reasons open the report's first page:

- the record it rests on ends more than :data:`RECORD_AGE_YEARS` years before today;
- the quantity is not the one the decision needs (``decision["quantity_gap"]``: a maximum daily-mean flow for a
  decision about the instantaneous peak);
- a step's result says so. Any tool may set these flags in its payload (at the top level, or in a ``flags`` dict
  or list of dicts), and the reason it gives (``flag_reason``) is quoted:

  ``outside_range: true``
      an estimate outside the range of basin characteristics its equations were fitted over (regression);
  ``indicative: true``
      an indicative estimate (a peak from a daily-mean-to-peak ratio, a method outside its proven use);
  ``not_for_design: "why"`` (or a list of reasons)
      any other reason, in words.

A value out of design use is graded C at most (the legend says what C means).
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any, Iterable, Mapping

__all__ = ["RECORD_AGE_YEARS", "FLAGS", "GRADE_LEGEND", "not_for_design_reasons", "mark_not_for_design",
           "DESIGN_KINDS"]

RECORD_AGE_YEARS = 5
DESIGN_KINDS = ("flood_risk",)
FLAGS = {"outside_range": "the estimate lies outside the range of basin characteristics its equations were fitted over",
         "indicative": "the estimate is indicative"}
GRADE_LEGEND = ("Grades: A, every step passed its gates and the answer is the quantity the decision needs from a "
                "current record; B, established, with the limit named beside the grade; C, indicative (a fallback, "
                "a failed supporting step, or a value marked Not for design): for screening, not for design; not "
                "established, no defensible number.")


def _flag_reasons(payload: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    blocks: list[Mapping[str, Any]] = [payload]
    flags = payload.get("flags")
    if isinstance(flags, Mapping):
        blocks.append(flags)
    elif isinstance(flags, list):
        blocks.extend(f for f in flags if isinstance(f, Mapping))
    for b in blocks:
        for key, default in FLAGS.items():
            if b.get(key) is True:
                out.append(str(b.get("flag_reason") or default))
        nfd = b.get("not_for_design")
        if isinstance(nfd, str) and nfd.strip():
            out.append(nfd.strip())
        elif isinstance(nfd, list):
            out.extend(str(x) for x in nfd if str(x).strip())
    return out


def _end_year(end: Any) -> int | None:
    text = str(end or "")
    return int(text[:4]) if text[:4].isdigit() else None


def not_for_design_reasons(decision: Mapping[str, Any], run: Mapping[str, Any], today: _dt.date) -> list[str]:
    """The reasons, in words, that a decision's value is not for design (empty: it may be used)."""
    reasons: list[str] = []
    end = _end_year((decision.get("record") or {}).get("end"))
    if end is not None and today.year - end > RECORD_AGE_YEARS:
        reasons.append(f"the record ends in {end}")
    gap = decision.get("quantity_gap")
    if gap and gap.get("why"):
        reasons.append(str(gap["why"]))
    for r in (run.get("results") or {}).values():
        if r.get("status") == "ok":
            reasons.extend(_flag_reasons(r.get("payload") or {}))
    seen: set[str] = set()
    return [x for x in reasons if not (x in seen or seen.add(x))]


def _sentence(reasons: Iterable[str]) -> str:
    items = list(reasons)
    text = items[0] if len(items) == 1 else "; ".join(items[:-1]) + "; and " + items[-1]
    return f"Not for design: {text}."


def mark_not_for_design(decision: dict[str, Any], brief: Mapping[str, Any], run: Mapping[str, Any],
                        today: _dt.date) -> dict[str, Any]:
    """Open the answer with "Not for design: ..." and cap the grade at C when a reason holds."""
    from roles.specialists.record import cap_grade

    if brief.get("kind") not in DESIGN_KINDS or decision.get("value") is None:
        return decision
    if (brief.get("intake") or {}).get("focus") == "trend":
        return decision
    reasons = not_for_design_reasons(decision, run, today)
    decision["not_for_design"] = reasons
    if reasons:
        decision["answer"] = f"{_sentence(reasons)} {decision.get('answer') or ''}".strip()
        cap_grade(decision, "C", "not for design: " + "; ".join(reasons))
        # a record that ends too long ago says so once: the lower ceiling's reason holds the held record's end
        ended = re.search(r"the record ends in (\d{4})", "; ".join(reasons))
        if ended:
            decision["grade_reason"] = re.sub(rf"; the record held ends in {ended.group(1)} while data to \d{{4}} "
                                              r"exists", "", decision.get("grade_reason") or "")
    return decision
