"""Trend questions: the answer is the trend of the series the question names, not a T-year quantity.

When the brief's ``focus`` is ``trend`` (the Consultant read "are floods getting larger?", "is the river
drying up?"), the decision is read from the plan's Mann-Kendall step: the series it tested (annual peaks,
annual maxima of the daily mean, annual n-day minima), the years, the test's p-value against its alpha,
Sen's slope with its interval, and what was done about serial correlation. No T-year quantity is given.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from roles.specialists.common import fmt, grade_for_study

__all__ = ["is_trend_study", "is_trend_decision", "decide", "recommendations", "data_requests", "SERIES"]

# What the tool a trend step reads from produced, in words, and which years it covers.
SERIES = {
    "annual_maxima": ("annual maxima of the daily mean flow", "water_years", "water years"),
    "annual_maximum_series": ("annual peaks", "years", "years"),
    "bulletin17c_ema": ("systematic annual peaks", "systematic.years", "water years"),
    "annual_minimum_flows": ("annual {days}-day minimum flows", "years", "climatic years"),
    "drought_index": ("index values", None, None),
}
_SUBJECT = {"floods": "Floods", "low flows": "Low flows", "groundwater levels": "Groundwater levels",
            "rainfall": "Rainfall", "water quality": "The water quality", "levels": "The levels"}


def _trend_step(study: Mapping[str, Any], run: Mapping[str, Any]) -> tuple[str | None, Mapping[str, Any] | None]:
    results = run.get("results") or {}
    for st in study.get("steps") or []:
        if st.get("tool") == "trend_test" and not st.get("optional"):
            return st["id"], st
    for st in study.get("steps") or []:
        if st.get("tool") == "trend_test" and (results.get(st["id"]) or {}).get("status") == "ok":
            return st["id"], st
    return None, None


def is_trend_study(brief: Mapping[str, Any], study: Mapping[str, Any]) -> bool:
    """Whether the study answers a trend question (its brief asks one and its plan holds the trend step)."""
    return (brief.get("intake") or {}).get("focus") == "trend" and _trend_step(study, {})[0] is not None


def _source(study: Mapping[str, Any], run: Mapping[str, Any], step: Mapping[str, Any]) -> tuple[str, str]:
    """(what was tested, over which years) from the step the trend step depends on."""
    results = run.get("results") or {}
    steps = {s["id"]: s for s in study.get("steps") or []}
    for dep in step.get("depends_on") or []:
        tool = (steps.get(dep) or {}).get("tool")
        p = (results.get(dep) or {}).get("payload") or {}
        if tool in SERIES:
            words, years_key, years_word = SERIES[tool]
            words = words.format(days=p.get("days", "n"))
            holder = p.get("systematic") or {} if "." in (years_key or "") else p
            years = list(holder.get(years_key.split(".")[-1]) or []) if years_key else []
            values = holder.get("values") or holder.get("minima") or []
            if years and values and len(values) == len(years):
                years = [y for y, v in zip(years, values) if v is not None]
            span = f"{years_word} {years[0]} to {years[-1]}" if years else ""
            return words, span
    return "the series", ""


def decide(brief: Mapping[str, Any], study: Mapping[str, Any], run: Mapping[str, Any],
           kns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The decision of a trend study: the trend is the headline."""
    sid, step = _trend_step(study, run)
    station = ((study.get("plan") or {}).get("station") or {})
    where = station.get("name") or "the site"
    subject = _SUBJECT.get(((brief.get("trend") or {}).get("series")), "The series")
    res = (run.get("results") or {}).get(sid or "") or {}
    grade, why = grade_for_study(run, [sid] if sid else [])
    if res.get("status") != "ok" or grade == "not established":
        reason = res.get("failed_reason") or "the trend test did not pass its gates"
        return {"answer": f"Whether {subject.lower()} at {where} are changing is not established: {reason}.",
                "value": None, "unit": None, "band": None, "grade": "not established", "grade_reason": reason,
                "basis": None, "conditions": [], "what_would_change_it": ["a longer or more complete record"]}
    p = res.get("payload") or {}
    tr = p.get("trend") or {}
    what, span = _source(study, run, step or {})
    n, pval, alpha = tr.get("n"), tr.get("p_value"), tr.get("alpha", 0.05)
    slope, ci, unit = tr.get("sen_slope"), tr.get("sen_slope_ci") or [], tr.get("slope_unit") or ""
    if tr.get("significant"):
        verdict = (f"show a {tr.get('trend')} trend that is significant by the Mann-Kendall test "
                   f"(p = {fmt(pval)}, below alpha = {fmt(alpha)})")
    else:
        verdict = (f"show no trend the Mann-Kendall test can tell from chance (p = {fmt(pval)}, not below "
                   f"alpha = {fmt(alpha)})")
    ans = (f"{subject} at {where} {verdict}, on {fmt(n)} {what}" + (f" ({span})" if span else "") + ". "
           f"Sen's slope is {fmt(slope)} {unit}".rstrip())
    if len(ci) == 2 and ci[0] is not None:
        ans += f" (95 % interval {fmt(ci[0])} to {fmt(ci[1])})"
    ans += "."
    serial = p.get("serial_correlation") or {}
    if serial.get("checked"):
        r1 = serial.get("lag1_autocorrelation")
        ans += (f" The lag-1 autocorrelation of the detrended series ({fmt(r1)}) lies outside the two-sided "
                f"{fmt(float(alpha) * 100)} % bounds for a serially independent series, so the test was made on the "
                "trend-free pre-whitened series." if serial.get("significant") else
                f" The lag-1 autocorrelation of the detrended series ({fmt(r1)}) lies inside the two-sided "
                f"{fmt(float(alpha) * 100)} % bounds for a serially independent series, so no correction for serial "
                "correlation was needed.")
    elif serial.get("reason"):
        ans += f" Note: {serial['reason']}."
    import re

    years = re.findall(r"\b(\d{4})\b", span or "")
    # flood series: the water years tested are the record period, stated once
    period = ({"start": years[0], "end": years[-1]} if len(years) >= 2 and str(span).startswith("water years")
              else None)
    return {**({"record_period": period} if period else {}), "answer": ans, "value": slope, "unit": unit, "band": ({"lower": ci[0], "upper": ci[1],
                                                                   "confidence": 1 - float(alpha)}
                                                                  if len(ci) == 2 else None),
            "basis": f"{sid}.trend.sen_slope", "method": "mann_kendall", "grade": grade, "grade_reason": why,
            "conditions": ["the series was measured consistently through the record",
                           "a trend over the record describes the past; it is not a forecast"],
            "what_would_change_it": ["further years of record", "a change of gauge, rating or regulation in the record"]}


def is_trend_decision(decision: Mapping[str, Any]) -> bool:
    """Whether a decision is a trend study's (its basis is a trend step's Sen's slope)."""
    return decision.get("method") == "mann_kendall" and str(decision.get("basis") or "").endswith(".trend.sen_slope")


def recommendations(run: Mapping[str, Any], decision: Mapping[str, Any]) -> list[str]:
    """What a reader of a trend answer should do next."""
    recs = ["Extend the record to the present (the gauge's recent years, or a live source) and test again: a trend "
            "over the record says nothing of the years after it."]
    band = decision.get("band") or {}
    lo, hi = band.get("lower"), band.get("upper")
    if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and lo < 0 < hi:
        recs.append("The slope's interval spans zero: plan on the record's range of values rather than on a "
                    "rising or falling line.")
    elif isinstance(lo, (int, float)) and isinstance(hi, (int, float)):
        recs.append("Before acting on the trend, look for a cause (a change of gauge, rating, regulation, abstraction "
                    "or land use in the record) and test the recent decades on their own.")
    recs.append("For a design value under change, a non-stationary frequency analysis (a trend in the location "
                "parameter) can be set against the stationary one.")
    return recs


def data_requests() -> list[dict[str, Any]]:
    """The data that would firm up a trend answer."""
    return [{"what": "the record up to the present", "why": "a trend over the record says nothing of the years after it",
             "effect": "a trend that includes the recent years"},
            {"what": "the gauge's history (site moves, rating changes, regulation and abstraction over the years)",
             "why": "a change in how or what was measured makes a trend of its own",
             "effect": "a trend that can be read as a change in the river"}]
