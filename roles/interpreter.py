"""The Interpreter: findings anchored at result paths, the consistency of the methods, the decision.

Keyless: one finding per key number (its claim, the path its value sits at, a grade), the
consistency read from the comparison gates, the decision from the brief and the headline number
with its band, the grade from the run, and the data requests of the problem kind. With a model,
one call proposes the claims and the answer; a finding whose basis does not resolve, or whose
claim states a number not at its basis, is dropped; the decision keeps the keyless value.
"""

from __future__ import annotations

from typing import Any, Mapping

from aquascope_core.paths import PathError, get_path
from aquascope_core.verify import matches, numbers_in
from aquascope_core.workspace import Workspace
from roles import asked
from roles.specialists import data_requests, decide, key_numbers
from roles.specialists.common import fmt
from roles.specialists.record import annotate
from roles.specialists.trend import data_requests as trend_requests

__all__ = ["interpreter", "resolve_basis"]

ROLE = "interpreter"


def resolve_basis(run: Mapping[str, Any], basis: str) -> Any:
    """The value at a basis path ``sN.path`` in the run's payloads (PathError when it does not resolve)."""
    step, _, path = basis.partition(".")
    res = (run.get("results") or {}).get(step)
    if not res or res.get("status") != "ok":
        raise PathError(f"step {step} is not established")
    return get_path(res.get("payload") or {}, path)


def _claim(kn: Mapping[str, Any]) -> str:
    unit = f" {kn['unit']}" if kn.get("unit") else ""
    text = f"{kn['label'][0].upper()}{kn['label'][1:]}: {fmt(kn['value'])}{unit}"
    band = kn.get("band")
    if band and band.get("lower") is not None:
        conf = band.get("confidence")
        text += (f" ({conf * 100:.0f} % band {fmt(band['lower'])} to {fmt(band['upper'])}{unit})"
                 if isinstance(conf, (int, float)) else f" (band {fmt(band['lower'])} to {fmt(band['upper'])})")
    return text + "."


def interpreter(ws: Workspace, *, model: Any = None) -> Workspace:
    """Write ``ws.findings``: findings, consistency, decision, data requests, and the draft the Critic reads."""
    ws.status = "critique"
    brief, run, study = ws.brief or {}, ws.run or {}, ws.study or {}
    trend = (brief.get("intake") or {}).get("focus") == "trend"  # a trend question: no T-year headline
    ctx = {"return_period": None if trend else (brief.get("intake") or {}).get("return_period"),
           "branch": (study.get("plan") or {}).get("branch"), "focus": "trend" if trend else None}
    kns = key_numbers(run, ctx)
    ws.event(ROLE, "start", {"key_numbers": len(kns)})
    decision = annotate(decide(brief.get("kind"), brief, study, run, kns), brief, study, run, ws.inventory or {})
    ceiling = brief.get("grade_ceiling")  # set when the study went on without data it asked for
    if ceiling and decision.get("grade") and decision["grade"] < ceiling:
        decision = {**decision, "grade": ceiling,
                    "grade_reason": f"{decision.get('grade_reason', '')}; held to {ceiling}: the study went on "
                                    "without data it asked for".lstrip("; ")}
    decision = asked.companion_answers(asked.in_asked_unit(decision, brief, study, ws.inventory or {}),
                                       brief, study, run, ws.inventory or {})
    grade = decision.get("grade")
    findings = []
    for kn in kns:
        findings.append({"claim": _claim(kn), "basis": kn["path"], "value": kn["value"], "unit": kn.get("unit"),
                         "band": kn.get("band"), "label": kn["label"], "step": kn["step"],
                         "headline": bool(kn.get("headline")), "summary": bool(kn.get("summary")),
                         "return_period": kn.get("return_period"),
                         "method": kn.get("method"), "grade": grade if kn.get("headline") else None})
    consistency = []
    for sid, res in (run.get("results") or {}).items():
        for g in res.get("gates") or []:
            if g.get("check") in ("spread_within", "cross_check_ratio"):
                consistency.append({"step": sid, "check": g["check"], "passed": g["passed"], "detail": g.get("detail")})
    written_by = "keyless"
    dropped: list[dict[str, Any]] = []
    answer = decision["answer"]
    if model is not None:
        proposed = _model_findings(ws, model, kns, run, brief)
        if proposed is not None:
            extra, dropped = proposed
            for f in extra:
                findings.append({"claim": f["claim"], "basis": f["basis"], "value": f["value"], "source": "model"})
            written_by = "model"
    headline = [f for f in findings if f.get("headline")]
    draft = {"answer": answer, "claims": [f["claim"] for f in (headline or findings[:5])]}
    ws.findings = {
        "findings": findings,
        "key_numbers": kns,
        "consistency": consistency,
        "decision": decision,
        # the decision's own requests (the data its grade waits for) first, then the kind's
        "data_requests": trend_requests() if trend else _merged_requests(decision.get("data_requests"),
                                                                           data_requests(brief.get("kind"))),
        "assumptions": list((study.get("plan") or {}).get("assumptions") or []),
        "draft": draft,
        "written_by": written_by,
        "dropped": dropped,
    }
    ws.event(ROLE, "findings", {"findings": len(findings), "grade": grade})
    return ws


def _model_findings(ws: Workspace, model: Any, kns: list[dict[str, Any]], run: Mapping[str, Any],
                    brief: Mapping[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
    from roles.prompts import INTERPRETER_SYSTEM

    dropped: list[dict[str, Any]] = []

    def check(obj: Any) -> list[dict[str, Any]]:
        items = obj.get("findings") if isinstance(obj, Mapping) else None
        if not isinstance(items, list):
            raise ValueError("the reply needs a 'findings' list")
        kept = []
        for f in items:
            if not isinstance(f, Mapping) or not isinstance(f.get("claim"), str) or not isinstance(f.get("basis"), str):
                continue
            try:
                value = resolve_basis(run, f["basis"])
            except PathError as exc:
                dropped.append({"claim": f.get("claim"), "reason": f"basis does not resolve: {exc}"})
                continue
            nums = numbers_in(f["claim"])
            if not isinstance(value, (int, float)) or not nums or not all(matches(n, {float(value)}) or
                                                                          matches(n, _other_numbers(kns)) for n in nums):
                dropped.append({"claim": f["claim"], "reason": "states a number not at its basis"})
                continue
            kept.append({"claim": f["claim"], "basis": f["basis"], "value": value})
        return kept

    payload = {"brief": {k: brief.get(k) for k in ("problem", "decision", "intake")},
               "key_numbers": [{k: kn.get(k) for k in ("label", "value", "unit", "path", "band")} for kn in kns]}
    from roles.knowledge import with_knowledge

    kept = model.call_json(ws, ROLE, with_knowledge(INTERPRETER_SYSTEM, brief.get("playbook"), "interpretation"),
                           payload, check)
    return None if kept is None else (kept, dropped)


def _other_numbers(kns: list[dict[str, Any]]) -> set[float]:
    out: set[float] = set()
    for kn in kns:
        out.add(float(kn["value"]))
        if kn.get("return_period") is not None:
            out.add(float(kn["return_period"]))
    return out


def _merged_requests(own: Any, kind: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The decision's data requests, then the kind's that name other data."""
    first = [dict(r) for r in own or [] if isinstance(r, dict) and r.get("what")]
    seen = {str(r["what"]).lower() for r in first}
    return first + [r for r in kind if str(r.get("what") or "").lower() not in seen]
