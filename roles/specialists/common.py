"""What every study shares: the number formats, the key-number helpers, the generic harvesters and the grade.

A problem kind's module (``flood_risk.py``, ``drought_status.py``, ...) declares ``HARVESTERS`` (tool id ->
function listing the key numbers of that tool's payload, each anchored at its path), and optionally
``decide`` (the decision the kind answers), ``recommendations`` and ``DATA_REQUESTS``.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from aquascope_core.paths import PathError, get_path
from aquascope_core.verify import sig_text

__all__ = ["fmt", "given", "kn", "band", "band_text", "grade_for_study", "HARVESTERS", "TABLES", "LABELS", "generic_decision"]

LABELS = {"gev_lmoments": "GEV (L-moments)", "lp3_moments": "log-Pearson III (moments of log10)",
          "gumbel_lmoments": "Gumbel (L-moments)", "glo_lmoments": "generalized logistic (L-moments)",
          "pe3_lmoments": "Pearson III (L-moments)", "gev_ml": "GEV (maximum likelihood)",
          "gumbel_ml": "Gumbel (maximum likelihood)",
          "lp3_ema": "log-Pearson III (Bulletin 17C EMA)"}

def fmt(x: Any) -> str:
    """A number as a report writes it: a count (an int) in full with separators; a measured value (a float) to
    three significant figures ("22,900", "138", "97.5", "3.30", "0.0547"). A float that is exactly whole is written
    whole (93.0 -> "93": it may be a count held as a float); where it stands among other values of one quantity (a
    table column) report_parts.column_precision writes its trailing zeros ("93.0")."""
    if x is None:
        return "n/a"
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    if isinstance(x, int):
        return f"{x:,}"
    ax = abs(x)
    if ax >= 1000:
        return sig_text(x, 3)
    if x.is_integer():
        return f"{int(x):,}"
    if ax >= 100:
        return f"{x:.0f}"
    if ax >= 10:
        return f"{x:.1f}"
    if ax >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


def given(x: Any) -> str:
    """A number the user stated, written as they gave it (with separators), never rounded."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    return f"{x:,}" if isinstance(x, int) or not float(x).is_integer() else f"{int(x):,}"


def grade_for_study(run: Mapping[str, Any], decision_steps: Sequence[str]) -> tuple[str, str]:
    """(grade, why): A when every step is established; B when an optional check failed; C when a fallback
    was used or a required step other than the decision's failed; 'not established' when a decision step failed."""
    results = run.get("results") or {}
    if not decision_steps or any((results.get(s) or {}).get("status") != "ok" for s in decision_steps):
        return "not established", "the step that carries the answer did not pass its gates"
    failed_required = [k for k, r in results.items() if r.get("status") != "ok" and not r.get("optional")]
    failed_optional = [k for k, r in results.items() if r.get("status") != "ok" and r.get("optional")]
    if failed_required:
        return "C", f"required step(s) {', '.join(failed_required)} not established"
    if any(r.get("fallback_used") for r in results.values()):
        return "C", "a fallback method was used"
    if failed_optional:
        return "B", f"optional check(s) {', '.join(failed_optional)} not established"
    return "A", "every step passed its gates"



def band_text(b: Mapping[str, Any] | None, unit: str = "") -> str:
    """'lower to upper unit', or '' when there is no band."""
    if not b or b.get("lower") is None:
        return ""
    return f"{fmt(b['lower'])} to {fmt(b['upper'])}" + (f" {unit}" if unit else "")


def kn(step: str, path: str, payload: Mapping[str, Any], label: str, unit: str | None, **extra: Any) -> dict[str, Any] | None:
    """A key number: the value at ``path`` in a step's payload, or None when it is not a number there."""
    try:
        value = get_path(payload, path)
    except PathError:
        return None
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    row = {"id": f"{step}:{path}", "step": step, "path": f"{step}.{path}", "label": label, "value": value, "unit": unit}
    row.update(extra)
    return row


def band(payload: Mapping[str, Any], lower: str, upper: str, step: str, confidence: Any) -> dict[str, Any] | None:
    """An interval read from two paths of a payload, with their paths."""
    try:
        lo, hi = get_path(payload, lower), get_path(payload, upper)
    except PathError:
        return None
    if lo is None or hi is None:
        return None
    return {"lower": lo, "upper": hi, "lower_path": f"{step}.{lower}", "upper_path": f"{step}.{upper}",
            "confidence": confidence}


def _station_record(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [r for r in (kn(step, "years", p, "length of record", "years"),
                        kn(step, "n_values", p, f"{p.get('resolution', '')} values in the record".strip(), None),
                        kn(step, "statistics.mean", p, f"mean {p.get('variable', '')}".strip(), p.get("unit"))) if r]


def _trend_test(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    tr = p.get("trend") or {}
    headline = ctx.get("focus") == "trend"  # the trend is the answer: Sen's slope is its headline number
    ci = tr.get("sen_slope_ci") or []
    rows = [kn(step, "trend.p_value", p, "Mann-Kendall p-value", None, summary=True),
            kn(step, "trend.sen_slope", p, "Sen's slope", tr.get("slope_unit"), summary=headline, headline=headline,
               band=band(p, "trend.sen_slope_ci[0]", "trend.sen_slope_ci[1]", step, 1 - float(tr.get("alpha") or 0.05))
               if headline and len(ci) == 2 else None)]
    return [r for r in rows if r]


HARVESTERS = {"station_record": _station_record, "trend_test": _trend_test}


def generic_decision(brief: Mapping[str, Any], study: Mapping[str, Any], run: Mapping[str, Any],
                     kns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    grade, why = grade_for_study(run, [k for k, r in (run.get("results") or {}).items() if not r.get("optional")])
    return {"answer": "The study's results are listed below.", "value": None, "unit": None, "band": None,
            "grade": grade, "grade_reason": why, "basis": None, "conditions": [], "what_would_change_it": []}


def _trend_test_tables(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    tr = payload.get("trend") or {}
    return [{"columns": ["n", "S", "p-value", "Trend", "Sen's slope", "Slope interval"],
             "rows": [[tr.get("n"), tr.get("S"), fmt(tr.get("p_value")), tr.get("trend"),
                       f"{fmt(tr.get('sen_slope'))} {tr.get('slope_unit') or ''}".strip(),
                       " to ".join(fmt(x) for x in (tr.get("sen_slope_ci") or []))]],
             "caption": "Mann-Kendall test and Sen's slope"}]
    return []


def _station_record_tables(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    st = payload.get("statistics") or {}
    per = payload.get("period") or {}
    return [{"columns": ["Period", "Values", "Missing", "Years", "Mean", "Max", "Unit"],
             "rows": [[f"{per.get('start')} to {per.get('end')}", f"{payload.get('n_values'):,}",
                       payload.get("n_missing"), fmt(payload.get("years_of_values", payload.get("years"))), fmt(st.get("mean")), fmt(st.get("max")),
                       payload.get("unit")]], "caption": "The record"}]
    return []


TABLES = {"trend_test": _trend_test_tables, "station_record": _station_record_tables}
