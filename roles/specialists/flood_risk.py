"""Flood risk: the key numbers of the flood tools and the design-flow decision."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from roles.specialists.common import LABELS, band, band_text, fmt, grade_for_study, kn

__all__ = ["HARVESTERS", "TABLES", "decide", "recommendations", "DATA_REQUESTS"]


def _flood_frequency(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    rps = list(p.get("return_periods") or [])
    unit = p.get("unit")
    target = ctx.get("return_period")
    rows = []
    for fid, fit in (p.get("fits") or {}).items():
        if not fit.get("ok"):
            continue
        for i, T in enumerate(rps):
            b = band(p, f"fits.{fid}.ci.lower[{i}]", f"fits.{fid}.ci.upper[{i}]", step,
                     (fit.get("ci") or {}).get("confidence"))
            row = kn(step, f"fits.{fid}.return_levels[{i}]", p, f"{T:g}-year flood, {LABELS.get(fid, fid)}", unit,
                     return_period=T, method=fid, band=b, headline=(target is not None and float(T) == float(target)))
            if row:
                rows.append(row)
    return rows


def _annual_maxima(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = [kn(step, "n_years", p, "water years of annual maxima", "years")]
    vals = p.get("values") or []
    if vals:
        i = max(range(len(vals)), key=lambda k: vals[k])
        year = (p.get("water_years") or [None] * len(vals))[i]
        rows.append(kn(step, f"values[{i}]", p, f"largest annual maximum (water year {year})", p.get("unit")))
    return [r for r in rows if r]


HARVESTERS = {"flood_frequency": _flood_frequency, "annual_maxima": _annual_maxima}


def decide(brief: Mapping[str, Any], study: Mapping[str, Any], run: Mapping[str, Any],
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


def recommendations(run: Mapping[str, Any], decision: Mapping[str, Any]) -> list[str]:
    recs: list[str] = []
    results = run.get("results") or {}
    if decision.get("value") is not None:
        recs.append("Scale the daily-mean design value to an instantaneous peak with a peak-to-daily ratio from the "
                    "gauge's annual peak record before sizing the crossing.")
    trend = [r for r in results.values() if r.get("tool") == "trend_test"]
    if trend and trend[0].get("status") != "ok":
        recs.append("The annual maxima show a trend or could not be tested: consider a non-stationary analysis "
                    "or a sensitivity check on recent decades.")
    recs.append("Check the crossing against the upper end of the band as well as the central value.")
    return recs


DATA_REQUESTS = [
    {"what": "the gauge's instantaneous annual peak record", "why": "daily-mean maxima understate instantaneous peaks",
     "effect": "a design peak rather than a design daily mean"},
    {"what": "historical flood information before the record",
     "why": "extends the sample for rare floods (Bulletin 17C EMA)", "effect": "narrower bands at long return periods"},
]


def _flood_frequency_tables(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    fits = [(k, f) for k, f in (payload.get("fits") or {}).items() if f.get("ok")]
    unit = payload.get("unit") or ""
    cols = ["Return period (years)"]
    for k, f in fits:
        conf = (f.get("ci") or {}).get("confidence")
        pct = f"{conf * 100:.0f} %" if isinstance(conf, (int, float)) else ""
        cols += [f"{LABELS.get(k, k)} ({unit})", f"{pct} band".strip()]
    rows = []
    for i, T in enumerate(payload.get("return_periods") or []):
        row: list[Any] = [fmt(T)]
        for _k, f in fits:
            ci = f.get("ci") or {}
            row += [fmt((f.get("return_levels") or [None])[i] if i < len(f.get("return_levels") or []) else None),
                    band_text({"lower": (ci.get("lower") or [None] * (i + 1))[i],
                                "upper": (ci.get("upper") or [None] * (i + 1))[i]})]
        rows.append(row)
    out = [{"columns": cols, "rows": rows, "caption": "Return levels by return period"}]
    prow = []
    for k, f in fits:
        params = ", ".join(f"{pk} {fmt(pv)}" for pk, pv in (f.get("parameters") or {}).items()
                           if isinstance(pv, (int, float)))
        prow.append([LABELS.get(k, k), params])
    if prow:
        out.append({"columns": ["Fit", "Parameters"], "rows": prow, "caption": "Fitted parameters"})
    return out


def _annual_maxima_tables(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    vals, years = payload.get("values") or [], payload.get("water_years") or []
    if vals:
        hi = max(range(len(vals)), key=lambda k: vals[k])
        lo = min(range(len(vals)), key=lambda k: vals[k])
        return [{"columns": ["Water years", "Count", "Largest", "Smallest", "Unit", "Basis"],
                 "rows": [[f"{min(years)} to {max(years)}", payload.get("n_years"), f"{fmt(vals[hi])} ({years[hi]})",
                           f"{fmt(vals[lo])} ({years[lo]})", payload.get("unit"), payload.get("label")]],
                 "caption": "Annual maxima"}]


TABLES = {"flood_frequency": _flood_frequency_tables, "annual_maxima": _annual_maxima_tables}
