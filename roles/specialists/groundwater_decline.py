"""Groundwater decline: the key numbers of the level-trend tool and the answer to "is the level falling?".

The answer is the Sen's slope of the basis the plan's branch chose (annual means on a long record, the
seasonal Kendall slope of monthly means on a short one), with its interval and the test's verdict at
the plan's significance level. A significant negative slope is a decline; a short record's slope is
called a screening figure whatever it says.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from roles.specialists.common import band, fmt, grade_for_study, kn

__all__ = ["HARVESTERS", "TABLES", "decide", "recommendations", "DATA_REQUESTS"]


def _trend(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    basis = p.get("basis")
    what = "annual mean levels" if basis == "annual" else "monthly mean levels (seasonal Kendall)"
    b = band(p, "sen_slope_ci[0]", "sen_slope_ci[1]", step, p.get("confidence"))
    rows = [kn(step, "sen_slope", p, f"Sen's slope of the {what}", p.get("slope_unit"), band=b, headline=True,
               method="groundwater_level_trend"),
            kn(step, "p_value", p, f"trend test p-value ({'Mann-Kendall' if basis == 'annual' else 'seasonal Kendall'})",
               None),
            kn(step, "annual.n_years", p, "complete years of monthly means", "years"),
            kn(step, "seasonal.n_years", p, "calendar years with monthly means", "years"),
            kn(step, "latest.level", p, f"latest monthly mean level ({(p.get('latest') or {}).get('month')})", p.get("unit"))]
    return [r for r in rows if r]


HARVESTERS = {"groundwater_level_trend": _trend}


def _step(run: Mapping[str, Any], tool: str) -> tuple[str | None, Mapping[str, Any] | None]:
    for sid, r in (run.get("results") or {}).items():
        if r.get("tool") == tool:
            return sid, r
    return None, None


def decide(brief: Mapping[str, Any], study: Mapping[str, Any], run: Mapping[str, Any],
           kns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    sid, res = _step(run, "groundwater_level_trend")
    where = ((study.get("plan") or {}).get("station") or {}).get("name") or "the well"
    grade, why = grade_for_study(run, [sid] if sid else [])
    if res is None or res.get("status") != "ok" or grade == "not established":
        reason = (res or {}).get("failed_reason") or "no level-trend result"
        return {"answer": f"Whether the groundwater level at {where} is declining is not established: {reason}.",
                "value": None, "unit": None, "band": None, "grade": "not established", "grade_reason": reason,
                "basis": None, "conditions": [],
                "what_would_change_it": ["a longer record of the same well", "a record without long gaps"]}
    p = res.get("payload") or {}
    slope, ci, unit = p["sen_slope"], p.get("sen_slope_ci") or [None, None], p.get("slope_unit") or ""
    conf = f"{p['confidence'] * 100:.0f} %"
    short = p.get("basis") == "seasonal"
    if short:
        what = f"the seasonal Kendall slope of the monthly mean levels over {p['seasonal']['n_years']} calendar years"
        test = "the seasonal Kendall test"
    else:
        what = f"Sen's slope of {p['annual']['n_years']} annual mean levels"
        test = "the Mann-Kendall test"
    if p.get("significant") and slope < 0:
        verdict = "is falling"
        finding = f"{test} finds the decline significant (p = {fmt(p['p_value'])})"
    elif p.get("significant"):
        verdict = "is rising, not declining"
        finding = f"{test} finds the rise significant (p = {fmt(p['p_value'])})"
    else:
        level = f"{p.get('alpha', 0.05):g}"
        verdict = f"shows no trend at the {level} level"
        finding = (f"{test} finds no trend at the {level} level (p = {fmt(p['p_value'])}), so a decline is not "
                   "established")
    answer = (f"The groundwater level at {where} {verdict}: {what} is {fmt(slope)} {unit} "
              f"({conf} interval {fmt(ci[0])} to {fmt(ci[1])}), and {finding}.")
    if short:
        answer = (f"Screening only: {answer[0].lower()}{answer[1:]} With so few years, one wet or dry year decides the sign; a decline rate "
                  "for a licensing decision needs ten years or more of the same well.")
    return {
        "answer": answer,
        "value": slope,
        "unit": unit,
        "band": band(p, "sen_slope_ci[0]", "sen_slope_ci[1]", sid, p.get("confidence")),
        "basis": f"{sid}.sen_slope",
        "method": "groundwater_level_trend",
        "declining": bool(p.get("significant") and slope < 0),
        "grade": grade,
        "grade_reason": why + ("; a short record gives a screening figure only" if short else ""),
        "conditions": ["the well's levels represent the aquifer (no local pumping drawdown)",
                       "the levels are heads above a fixed datum",
                       "a monotonic trend describes the change over the period"],
        "what_would_change_it": ["more years of the same well", "the abstraction record near the well",
                                 "a step change in the record (a new datum, a new pump) that a trend test misreads"],
    }


def recommendations(run: Mapping[str, Any], decision: Mapping[str, Any]) -> list[str]:
    if decision.get("value") is None:
        return ["Bring the well record (dates and levels) and, where it exists, the abstraction record near the well."]
    recs = []
    if decision.get("declining"):
        recs.append("Compare the decline with the abstraction record and with recharge (rainfall) over the same years "
                    "before attributing it to pumping.")
    recs.append("Keep reading the well at least monthly and on a fixed datum; a change of datum or of measuring point "
                "must be recorded, or a trend test will take it for a change in the aquifer.")
    _, sgi = _step(run, "standardized_groundwater_index")
    if sgi is None:
        recs.append("With 15 years or more of monthly levels the standardised groundwater index can say how low the "
                    "level is for the time of year.")
    return recs


DATA_REQUESTS = [
    {"what": "a longer record of the same well (ten years or more of monthly or more frequent levels)",
     "why": "annual means are needed to separate a decline from a run of dry years",
     "effect": "a decline rate that can be defended for licensing"},
    {"what": "the abstraction record of wells near the site", "why": "a trend says nothing about its cause",
     "effect": "an attribution of the decline to pumping or to recharge"},
    {"what": "the well's construction and datum history", "why": "a new datum or measuring point looks like a step change",
     "effect": "confidence that the record is homogeneous"},
]


def _trend_table(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for name, key, n_key in (("Mann-Kendall, annual means", "annual_trend", ("annual", "n_years")),
                             ("Seasonal Kendall, monthly means", "seasonal_trend", ("seasonal", "n_years"))):
        t = p.get(key) or {}
        years = (p.get(n_key[0]) or {}).get(n_key[1])
        if not t.get("ok", True) or t.get("sen_slope") is None:
            rows.append([name, years, "", "", "not made", t.get("reason") or "", ""])
            continue
        ci = t.get("sen_slope_ci") or [None, None]
        rows.append([name, years, t.get("S"), fmt(t.get("p_value")), t.get("trend"),
                     f"{fmt(t.get('sen_slope'))} {p.get('slope_unit') or ''}".strip(), f"{fmt(ci[0])} to {fmt(ci[1])}"])
    out = [{"columns": ["Test", "Years", "S", "p-value", "Trend", "Sen's slope", "Interval"], "rows": rows,
            "caption": f"Trend tests ({p.get('basis')} basis carries the answer)"}]
    ann = p.get("annual") or {}
    if ann.get("years"):
        out.append({"columns": ["Year", f"Annual mean level ({p.get('unit')})"],
                    "rows": [[y, fmt(m)] for y, m in zip(ann["years"], ann["means"])], "caption": "Annual mean levels"})
    return out


TABLES = {"groundwater_level_trend": _trend_table}
