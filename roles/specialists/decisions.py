"""The decision each problem kind answers, its grade, and what would firm it up."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from roles.specialists.harvest import LABELS

__all__ = ["decide", "grade_for_study", "recommendations", "data_requests", "fmt"]


def fmt(x: Any) -> str:
    """A number as a report writes it: 3 significant figures below 1,000, whole numbers with separators above."""
    if x is None:
        return "n/a"
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e15):
        return f"{int(x):,}"
    ax = abs(x)
    if ax >= 1000:
        return f"{x:,.0f}"
    if ax >= 100:
        return f"{x:.0f}"
    if ax >= 10:
        return f"{x:.1f}"
    if ax >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


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


def _flood(brief: Mapping[str, Any], study: Mapping[str, Any], run: Mapping[str, Any],
           kns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    T = (brief.get("intake") or {}).get("return_period")
    at_T = [k for k in kns if k.get("return_period") is not None and T is not None and float(k["return_period"]) == float(T)]
    steps = sorted({k["step"] for k in at_T})
    grade, why = grade_for_study(run, steps)
    station = ((study.get("plan") or {}).get("station") or {})
    where = station.get("name") or "the site"
    if not at_T or grade == "not established":
        failed = [r for r in (run.get("results") or {}).values() if r.get("tool") == "flood_frequency"]
        reason = failed[0].get("failed_reason") if failed else "no flood frequency result"
        return {"answer": f"The {T}-year flood at {where} is not established: {reason}.", "value": None, "unit": None,
                "band": None, "grade": "not established", "grade_reason": reason, "basis": None, "conditions": [],
                "what_would_change_it": ["a longer or more complete record", "regional information"]}
    # the design value: the larger central estimate of the fits that passed (conservative for design)
    pick = max(at_T, key=lambda k: k["value"])
    others = [k for k in at_T if k is not pick]
    unit = pick.get("unit") or ""
    band = pick.get("band") or {}
    conf = band.get("confidence")
    conf_txt = f"{conf * 100:.0f} %" if isinstance(conf, (int, float)) else "the"
    ans = (f"The {T}-year flood at {where} is {fmt(pick['value'])} {unit} by the {LABELS.get(pick['method'], pick['method'])} "
           f"fit ({conf_txt} band {fmt(band.get('lower'))} to {fmt(band.get('upper'))} {unit})")
    for o in others:
        ob = o.get("band") or {}
        ans += (f"; the {LABELS.get(o['method'], o['method'])} fit gives {fmt(o['value'])} {unit} "
                f"({fmt(ob.get('lower'))} to {fmt(ob.get('upper'))})")
    ans += ". The design value is the larger of the fits' estimates."
    return {
        "answer": ans,
        "value": pick["value"],
        "unit": unit,
        "band": band,
        "basis": pick["path"],
        "method": pick["method"],
        "grade": grade,
        "grade_reason": why,
        "conditions": ["the annual maxima are stationary", "the gauge's catchment represents the site",
                       "daily-mean maxima stand in for instantaneous peaks"],
        "what_would_change_it": ["the instantaneous annual peak record (peaks exceed daily means)",
                                 "historical floods before the record (Bulletin 17C EMA)",
                                 "a significant trend in the annual maxima"],
    }


_DECIDERS = {"flood_risk": _flood}


def decide(kind: str | None, brief: Mapping[str, Any], study: Mapping[str, Any], run: Mapping[str, Any],
           kns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    fn = _DECIDERS.get(kind or "")
    if fn is None:
        grade, why = grade_for_study(run, [k for k, r in (run.get("results") or {}).items() if not r.get("optional")])
        return {"answer": "The study's results are listed below.", "value": None, "unit": None, "band": None,
                "grade": grade, "grade_reason": why, "basis": None, "conditions": [], "what_would_change_it": []}
    return fn(brief, study, run, kns)


def recommendations(kind: str | None, run: Mapping[str, Any], decision: Mapping[str, Any]) -> list[str]:
    recs: list[str] = []
    results = run.get("results") or {}
    if kind == "flood_risk":
        if decision.get("value") is not None:
            recs.append("Scale the daily-mean design value to an instantaneous peak with a peak-to-daily ratio from the "
                        "gauge's annual peak record before sizing the crossing.")
        trend = [r for r in results.values() if r.get("tool") == "trend_test"]
        if trend and trend[0].get("status") != "ok":
            recs.append("The annual maxima show a trend or could not be tested: consider a non-stationary analysis "
                        "or a sensitivity check on recent decades.")
        recs.append("Check the crossing against the upper end of the band as well as the central value.")
    for sid, r in results.items():
        if r.get("status") == "failed":
            recs.append(f"Step {sid} ({r.get('tool')}) is not established; see the limitations before relying on "
                        "what depends on it.")
    return recs


_REQUESTS = {
    "flood_risk": [{"what": "the gauge's instantaneous annual peak record",
                    "why": "daily-mean maxima understate instantaneous peaks",
                    "effect": "a design peak rather than a design daily mean"},
                   {"what": "historical flood information before the record",
                    "why": "extends the sample for rare floods (Bulletin 17C EMA)",
                    "effect": "narrower bands at long return periods"}],
}


def data_requests(kind: str | None) -> list[dict[str, Any]]:
    return [dict(r) for r in _REQUESTS.get(kind or "", [])]
