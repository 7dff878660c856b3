"""Flood risk: the key numbers of the flood tools and the design-flow decision."""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from roles.specialists.common import LABELS, band, band_text, fmt, given, grade_for_study, kn
from aquascope_core.report_units import area_text
from roles.specialists.flood_text import skew_clause, stated, stated_band, table_units, us_payload, us_study

__all__ = ["HARVESTERS", "TABLES", "decide", "recommendations", "DATA_REQUESTS"]


# A fit's parameters as a hydrologist reads them: each distribution's own letters (Coles' for the maximum-likelihood
# GEV, Hosking's for the L-moment fits), log-space moments in words. Names stay words and letters only, so the
# workbook can split a "name value, name value" cell into one column per parameter.
PARAMETER_NAMES = {
    "mu": "location μ", "sigma": "scale σ", "xi_coles": "shape ξ", "k": "shape k",
    "xi": "location ξ", "alpha": "scale α",
    "mean_log": "mean of logs", "sd_log": "standard deviation of logs", "skew_log": "skew of logs",
    "mean_log10": "mean of logs", "sd_log10": "standard deviation of logs", "skew_log10": "skew of logs",
}
_NOT_PARAMETERS = {"log_base"}  # a setting of the fit (logs to base 10), not an estimate
# what each estimate is measured in: the flow's unit (location, scale), the logs' (the log-space mean and standard
# deviation), none (a shape, a skew)
_IN_FLOW_UNIT = {"mu", "sigma", "xi", "alpha"}
_IN_LOG_UNIT = {"mean_log", "sd_log", "mean_log10", "sd_log10"}


def parameter_unit(key: str, params: Mapping[str, Any], unit: Any) -> str:
    """The unit of one estimate: ``ft3/s`` for a location or scale, ``log10 ft3/s`` for a moment of the logs, ``""``
    (dimensionless) for a shape or a skew; ``""`` for all of them when the flow's unit is not known."""
    if key in _IN_FLOW_UNIT:
        return str(unit or "")
    if key in _IN_LOG_UNIT:
        base = params.get("log_base", 10.0 if key.endswith("10") else None)
        log = "log10" if isinstance(base, (int, float)) and abs(base - 10.0) < 1e-9 else "ln"
        return f"{log} {unit}" if unit else ""
    return ""


def parameter_text(params: Mapping[str, Any], unit: Any = None) -> str:
    """``location μ 54.3 m3/s, scale σ 20.1 m3/s, shape ξ -0.05``: a fit's estimates with their units (``unit`` the
    flow's), its shape once (a GEV fit carries both Coles' ξ and Hosking's k = -ξ; the one of the fit's own notation
    is printed)."""
    skip = set(_NOT_PARAMETERS)
    if "xi_coles" in params and "k" in params:
        skip.add("k" if "mu" in params else "xi_coles")
    return ", ".join(f"{PARAMETER_NAMES.get(pk, pk.replace('_', ' '))} {fmt(pv)} "
                     f"{parameter_unit(pk, params, unit)}".rstrip()
                     for pk, pv in params.items()
                     if isinstance(pv, (int, float)) and not isinstance(pv, bool) and pk not in skip)


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
            row = kn(step, f"fits.{fid}.return_levels[{i}]", p,
                     f"{T:g}-year {QUANTITY.get(ctx.get('branch'), 'flood')}, {LABELS.get(fid, fid)}", unit,
                     return_period=T, method=fid, band=b, headline=(target is not None and float(T) == float(target)))
            if row:
                rows.append(row)
    return rows


def _annual_maxima(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = [kn(step, "n_years", p, "water years of annual maxima", "years", summary=True)]
    vals = p.get("values") or []
    if vals:
        i = max(range(len(vals)), key=lambda k: vals[k])
        year = (p.get("water_years") or [None] * len(vals))[i]
        rows.append(kn(step, f"values[{i}]", p, f"largest annual maximum (water year {year})", p.get("unit"),
                       summary=True))
    return [r for r in rows if r]


def _bulletin17c(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = _flood_frequency(step, p, ctx)
    extra = [kn(step, "fits.lp3_ema.parameters.skew_log", p, "weighted skew of the log peaks (Bulletin 17C)", None),
             kn(step, "fits.lp3_ema.at_site_skew", p, "at-site skew of the log peaks", None),
             kn(step, "regional_skew_used.skew", p, "regional skew weighted in", None),
             kn(step, "record_years", p, "years of record including the historical period", "years"),
             kn(step, "fits.lp3_ema.low_outliers.n_low", p, "low floods censored by the multiple Grubbs-Beck test", None)]
    return rows + [r for r in extra if r]


def _annual_maximum_series(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = [kn(step, "n_years", p, "annual maxima in the series", "years"),
            kn(step, "largest.value", p, f"largest annual maximum ({(p.get('largest') or {}).get('year')})", p.get("unit"))]
    return [r for r in rows if r]


def _regional_index_flood(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    T = p.get("return_period")
    target = ctx.get("return_period")
    rows = [kn(step, "return_level", p, f"{fmt(T)}-year flood, regional index flood x growth factor", p.get("unit"),
               return_period=T, method="regional_index_flood",
               band=band(p, "envelope.low", "envelope.high", step, None),
               headline=(target is not None and T is not None and float(T) == float(target))),
            kn(step, "index_flood.estimate", p, "index flood (mean annual flood) at the site", p.get("unit"),
               band=band(p, "index_flood.band.low", "index_flood.band.high", step, None)),
            kn(step, "growth_factor.estimate", p, f"{fmt(T)}-year growth factor", None,
               band=band(p, "growth_factor.band.low", "growth_factor.band.high", step, None)),
            kn(step, "index_flood.skill.median_factor_error", p, "leave-one-out median factor error of the index flood",
               None),
            kn(step, "growth_factor.skill.median_factor_error", p,
               "leave-one-out median factor error of the growth factor", None),
            kn(step, "n_donors", p, "donor catchments", None)]
    return [r for r in rows if r]


HARVESTERS = {"flood_frequency": _flood_frequency, "annual_maxima": _annual_maxima, "bulletin17c_ema": _bulletin17c,
              "annual_maximum_series": _annual_maximum_series, "regional_index_flood": _regional_index_flood}

# What the answer assumes, and what would move it, by branch (at_site is the default).
_CONDITIONS = {
    "at_site": ["the annual maxima are stationary", "the gauge's catchment represents the site",
                "daily-mean maxima stand in for instantaneous peaks"],
    "short_record": ["the few years of record represent the flood regime", "the annual maxima are stationary",
                     "daily-mean maxima stand in for instantaneous peaks"],
    "bulletin17c": ["the systematic and historical peaks come from one stationary population",
                    "the perception thresholds are right", "the regional skew applies to the catchment"],
    "published_maxima": ["the published maxima are stationary and complete for their years",
                         "the gauge's catchment represents the site"],
    "regional": ["the donors' floods, scaled by area, are the site's", "the growth curve is shared by the donors and the site",
                 "daily-mean maxima stand in for instantaneous peaks"],
}
_CHANGES = {
    "at_site": ["the instantaneous annual peak record (peaks exceed daily means)",
                "historical floods before the record (Bulletin 17C EMA)", "a Mann-Kendall trend in the annual maxima (p below 0.05)"],
    "short_record": ["a longer record (each added year narrows the bands)", "regional information (donor catchments)",
                     "the instantaneous annual peak record"],
    "bulletin17c": ["another regional skew (a newer regional study)", "further historical flood information",
                    "a Mann-Kendall trend in the systematic peaks (p below 0.05)"],
    "published_maxima": ["the years since the series was published", "historical floods before it (Bulletin 17C EMA)"],
    "regional": ["a record at the site, even a short one", "donors closer in size and climate (live USGS records)",
                 "instantaneous peaks at the donors"],
}


def trend_found(run: Mapping[str, Any]) -> str | None:
    """The trend test's finding when it found a trend (its gate's words: the p-value, Sen's slope, the direction),
    None when it found none or did not run to a result."""
    for r in (run.get("results") or {}).values():
        if r.get("tool") != "trend_test" or r.get("status") == "ok":
            continue
        for g in r.get("gates") or []:
            if g.get("check") == "trend_on_series" and g.get("passed") is False and g.get("detail"):
                m = re.search(r"Mann-Kendall (p = [^,]+), Sen's slope (.+?): (increasing|decreasing)", str(g["detail"]))
                return (f"a significant {m.group(3)} trend, Mann-Kendall {m.group(1)}, Sen's slope {m.group(2)}" if m
                        else str(g["detail"]).rstrip("."))
    return None


def decide(brief: Mapping[str, Any], study: Mapping[str, Any], run: Mapping[str, Any],
           kns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    T = (brief.get("intake") or {}).get("return_period")
    at_T = [k for k in kns if k.get("return_period") is not None and T is not None and float(k["return_period"]) == float(T)]
    steps = sorted({k["step"] for k in at_T})
    grade, why = grade_for_study(run, steps)
    found = trend_found(run)
    if grade == "B" and found and why.startswith("optional check"):  # the check ran: say what it found
        why = f"the annual maxima show {found}, which the stationary fit assumes away"
    station = ((study.get("plan") or {}).get("station") or {})
    where = station.get("name") or "the site"
    if not at_T or grade == "not established":
        failed = [r for r in (run.get("results") or {}).values() if r.get("tool") == "flood_frequency"]
        reason = failed[0].get("failed_reason") if failed else "no flood frequency result"
        return {"answer": f"The {T}-year flood at {where} is not established: {reason}.", "value": None, "unit": None,
                "band": None, "grade": "not established", "grade_reason": reason, "basis": None, "conditions": [],
                "what_would_change_it": ["a longer or more complete record", "regional information"]}
    branch = (study.get("plan") or {}).get("branch") or "at_site"
    if branch == "regional":
        return _regional_decision(T, at_T[0], grade, why, run, brief, us_study(study, brief))
    if branch == "bulletin17c" and any(k.get("method") in _WEIGHTED_METHODS for k in at_T):
        weighted = _weighted_decision(T, at_T, grade, why, run, study)
        if weighted is not None:
            return weighted
    peaks = [k for k in at_T if k.get("method") in _PEAK_METHODS]  # a U.S. peak beside a daily-mean fit
    if peaks and branch in _DAILY and not _needs_daily(brief):
        peaks.sort(key=lambda k: list(_PEAK_METHODS).index(k["method"]))
        return _peak_decision(T, peaks, [k for k in at_T if k not in peaks], grade, why, run, study)
    # the design value: the larger central estimate of the fits that passed (conservative for design)
    pick = max(at_T, key=lambda k: k["value"])
    others = [k for k in at_T if k is not pick]
    unit = pick.get("unit") or ""
    band = pick.get("band") or {}
    conf = band.get("confidence")
    conf_txt = f"{conf * 100:.0f} %" if isinstance(conf, (int, float)) else "the"
    quantity = QUANTITY.get(branch, "flood")
    us = us_study(study, brief)
    said: list[float] = []
    value_txt = stated(pick["value"], unit, us, said)
    ans = (f"The {T}-year {quantity} at {where} is {value_txt} by the "
           f"{LABELS.get(pick['method'], pick['method'])} fit ({conf_txt} band "
           f"{stated_band(band.get('lower'), band.get('upper'), unit, us, said)})")
    for o in others:
        ob = o.get("band") or {}
        ans += (f"; the {LABELS.get(o['method'], o['method'])} fit gives {stated(o['value'], unit, us, said)} "
                f"({stated_band(ob.get('lower'), ob.get('upper'), unit, us, said)})")
    ans += "." if not others else ". The design value is the larger of the fits' estimates."
    basis, period, gap = _basis(branch, run, brief, T)
    ans += basis
    if branch == "published_maxima" or branch == "bulletin17c_published":
        series = _payload(run, "annual_maximum_series") or {}
        if series.get("unit_meaning"):
            ans += f" The series is in {unit} ({series['unit_meaning']}), as published."
    return {
        "answer": ans,
        "value": pick["value"],
        "unit": unit,
        "band": band,
        "basis": pick["path"],
        "method": pick["method"],
        "grade": grade,
        "grade_reason": why,
        "conditions": list(_CONDITIONS.get(branch, _CONDITIONS["at_site"])),
        "what_would_change_it": list(_CHANGES.get(branch, _CHANGES["at_site"])),
        "quantity": quantity,
        "record_period": period,
        "quantity_gap": gap,
        "record": {"stated_in_report_units": said},
    }


# What each branch estimates, named as the answer names it.
QUANTITY = {"at_site": "maximum daily-mean flow", "short_record": "maximum daily-mean flow",
            "regional": "maximum daily-mean flow", "bulletin17c": "peak flow",
            "bulletin17c_published": "annual maximum flow", "published_maxima": "annual maximum flow"}
_DAILY = ("at_site", "short_record", "regional")


def _needs_daily(brief: Mapping[str, Any]) -> bool:
    """Whether the question itself asks for a daily-mean flood (otherwise a design flood is a peak)."""
    return "daily" in str(brief.get("problem") or "").lower()


def _basis(branch: str, run: Mapping[str, Any], brief: Mapping[str, Any], T: Any) -> tuple[str, Any, Any]:
    """(the sentences naming what was fitted, the record period, the quantity gap or None)."""
    gap = None
    period = None
    text = ""
    am = _payload(run, "annual_maxima")
    if branch in _DAILY and am and am.get("water_years"):
        wy = am["water_years"]
        st = am.get("station") or {}
        period = {"start": min(wy), "end": max(wy), "variable": "discharge",
                  "station": st.get("station_id") if isinstance(st, Mapping) else None}
        text = (f" It is fitted to the {am.get('n_years')} water-year maxima of the daily mean flow, {min(wy)} to "
                f"{max(wy)}.")
    if branch in _DAILY and not _needs_daily(brief):
        text += (f" The instantaneous {T}-year peak is higher than the maximum daily mean (by how much depends on how "
                 "fast the catchment responds); the gauge's annual peak record would give it, with the live source "
                 "or as an upload, by Bulletin 17C.")
        gap = {"ceiling": "B", "needs": "peak_discharge",
               "why": "the decision needs the instantaneous peak and the estimate is a maximum daily-mean flow"}
    b17 = _payload(run, "bulletin17c_ema")
    if branch.startswith("bulletin17c") and b17:
        fit = (b17.get("fits") or {}).get("lp3_ema") or {}
        hist = (b17.get("historical") or {}).get("peaks") or []
        sysb = b17.get("systematic") or {}
        yrs = sysb.get("years") or []
        low = (fit.get("low_outliers") or {}).get("n_low")
        starts = [int(t["start"]) for t in (b17.get("historical") or {}).get("perception_thresholds") or []
                  if t.get("start") is not None] + [int(y) for y in yrs] + [int(h["year"]) for h in hist]
        if starts and yrs:
            period = {"start": min(starts), "end": max(yrs), "variable": b17.get("variable"),
                      "station": (b17.get("station") or {}).get("station_id")}
        span = (f" over the {b17.get('record_years')}-year record, water years {period['start']} to {period['end']}"
                if period else "")
        text += (f" Bulletin 17C: the expected moments algorithm{span}, on {b17.get('n_systematic')} systematic peaks"
                 + (f" and {len(hist)} historical peak{'s' if len(hist) != 1 else ''}" if hist else
                    ", with no historical peaks")
                 + (f", the multiple Grubbs-Beck test ({low} low flood{'s' if low != 1 else ''} censored)"
                    if low is not None else "")
                 + ", and " + skew_clause(b17) + ".")
        spec_from = (b17.get("peakfq") or {}).get("spec_from")
        if spec_from:  # an uploaded peak file without its .psf: what was assumed, said
            text += f" {spec_from[:1].upper()}{spec_from[1:]}."
        if any(r.get("origin") == "manual_example" for r in b17.get("skew_sensitivity") or []):
            text += (" The record is the worked example of the PeakfqSA manual (Cohn 2012), kept as a demonstration of "
                     "the method.")
    return text, period, gap


def _payload(run: Mapping[str, Any], tool: str) -> dict[str, Any] | None:
    for r in (run.get("results") or {}).values():
        if r.get("tool") == tool and r.get("status") == "ok":
            return r.get("payload") or {}
    return None


def _regional_decision(T: Any, pick: Mapping[str, Any], grade: str, why: str, run: Mapping[str, Any],
                       brief: Mapping[str, Any], us: bool) -> dict[str, Any]:
    p = _payload(run, "regional_index_flood") or {}
    unit = pick.get("unit") or ""
    idx, growth = p.get("index_flood") or {}, p.get("growth_factor") or {}
    env = pick.get("band") or {}
    area = (brief.get("intake") or {}).get("area_km2")
    names = ", ".join(d.get("name") or d.get("id") for d in p.get("donors") or [])

    def skill(part: Mapping[str, Any]) -> str:
        f = (part.get("skill") or {}).get("median_factor_error")
        return f"; leave-one-out median factor error {fmt(f)}" if f is not None else "; leave-one-out skill not established"

    said: list[float] = []
    area_txt, area_nums = area_text(area, us) if area is not None else (f"{given(area)} km2", [])
    said.extend(area_nums)
    ans = (f"The {T}-year maximum daily-mean flow at the site ({area_txt}) is {stated(pick['value'], unit, us, said)} "
           f"by the regional index-flood "
           f"method (donor envelope {stated_band(env.get('lower'), env.get('upper'), unit, us, said)}): an index flood "
           f"of {stated(idx.get('estimate'), unit, us, said)} (donor range "
           f"{stated_band((idx.get('band') or {}).get('low'), (idx.get('band') or {}).get('high'), unit, us, said)}"
           f"{skill(idx)}) times a growth factor of "
           f"{fmt(growth.get('estimate'))} (donor range {fmt((growth.get('band') or {}).get('low'))} to "
           f"{fmt((growth.get('band') or {}).get('high'))}{skill(growth)}), from {fmt(p.get('n_donors'))} donor "
           f"catchments ({names}). It is a maximum of the daily mean flow, not an instantaneous peak.")
    gap = None
    if not _needs_daily(brief):
        ans += (f" The instantaneous {T}-year peak is higher; a peak record at the site or at the donors would give "
                "it.")
        gap = {"ceiling": "B", "needs": "peak_discharge",
               "why": "the decision needs the instantaneous peak and the estimate is a maximum daily-mean flow"}
    return {"answer": ans, "value": pick["value"], "unit": unit, "band": env, "basis": pick["path"],
            "method": "regional_index_flood", "grade": grade, "grade_reason": why,
            "conditions": list(_CONDITIONS["regional"]), "what_would_change_it": list(_CHANGES["regional"]),
            "quantity": QUANTITY["regional"], "quantity_gap": gap, "record": {"stated_in_report_units": said}}


def recommendations(run: Mapping[str, Any], decision: Mapping[str, Any]) -> list[str]:
    recs: list[str] = []
    results = run.get("results") or {}
    daily = any(r.get("tool") in ("annual_maxima", "regional_index_flood") for r in results.values())
    if decision.get("method") == "fuller_indicative":
        recs.append("Bring the site's basin characteristics (a StreamStats basin-characteristics report) or the gauge's "
                    "annual peak record before sizing the crossing: the indicative peak is not for design.")
    elif decision.get("method") == "nss_regression":
        recs.append("Bring the gauge's annual peak record: Bulletin 17C weights its estimate with the regression's "
                    "(chapter 8), which narrows the interval.")
    elif decision.get("value") is not None and daily:
        recs.append("Scale the daily-mean design value to an instantaneous peak with a peak-to-daily ratio from the "
                    "gauge's annual peak record before sizing the crossing.")
    if decision.get("method") == "regional_index_flood":
        recs.append("Look for any flood record at the site (a crest-stage gauge, flood marks, local accounts): even a "
                    "few years test the regional estimate.")
    trend = [r for r in results.values() if r.get("tool") == "trend_test"]
    found = trend_found({"results": results})
    if found:
        recs.append(f"The annual maxima show {found}: the frequency curve assumes none, so check the design value "
                    "with a non-stationary analysis or a fit to the recent decades.")
    elif trend and trend[0].get("status") != "ok":
        recs.append("The trend test on the annual maxima did not run to a result: test them before relying on a "
                    "stationary fit.")
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
    first, second, k1, k2 = table_units(payload.get("unit"), payload)
    scale = lambda v, k: None if v is None or k is None else v * k  # noqa: E731
    cols = ["Return period (years)"]
    for k, f in fits:
        conf = (f.get("ci") or {}).get("confidence")
        pct = f"{conf * 100:.0f} %" if isinstance(conf, (int, float)) else ""
        cols += [f"{LABELS.get(k, k)} ({first or ''})", f"{pct} band".strip()]
        if second:
            cols.append(f"{LABELS.get(k, k)} ({second})")
    rows = []
    for i, T in enumerate(payload.get("return_periods") or []):
        row: list[Any] = [fmt(T)]
        for _k, f in fits:
            ci = f.get("ci") or {}
            levels = f.get("return_levels") or []
            v = levels[i] if i < len(levels) else None
            row += [fmt(scale(v, k1)),
                    band_text({"lower": scale((ci.get("lower") or [None] * (i + 1))[i], k1),
                               "upper": scale((ci.get("upper") or [None] * (i + 1))[i], k1)})]
            if second:
                row.append(fmt(scale(v, k2)))
        rows.append(row)
    out = [{"columns": cols, "rows": rows, "caption": "Return levels by return period"}]
    prow = []
    for k, f in fits:
        params = parameter_text(f.get("parameters") or {}, payload.get("unit"))
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


def _bulletin17c_tables(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    out = _flood_frequency_tables(payload)
    fit = (payload.get("fits") or {}).get("lp3_ema") or {}
    skew = payload.get("regional_skew_used") or {}
    lo = fit.get("low_outliers") or {}
    out.append({"columns": ["At-site skew", "Regional skew", "Its MSE", "Weighted skew", "Source", "Low floods censored",
                            "Historical peaks", "Record years"],
                "rows": [[fmt(fit.get("at_site_skew")), fmt(skew.get("skew")), fmt(skew.get("mse")),
                          fmt((fit.get("parameters") or {}).get("skew_log")), skew.get("source"), lo.get("n_low"),
                          len((payload.get("historical") or {}).get("peaks") or []), payload.get("record_years")]],
                "caption": "Skew weighting, low outliers and historical information"})
    sens = payload.get("skew_sensitivity") or []
    if sens:
        first, _second, k1, _k2 = table_units(payload.get("unit"), payload)
        rps = payload.get("return_periods") or []
        used = [["the design value: " + str(skew.get("source") or "at-site skew"), fmt(skew.get("skew")),
                 fmt(skew.get("mse")), fmt((fit.get("parameters") or {}).get("skew_log"))]
                + [fmt(x * k1) for x in fit.get("return_levels") or []]]
        rows = used + [[f"sensitivity: {r['label']}", fmt(r.get("skew")), fmt(r.get("mse")), fmt(r.get("weighted_skew"))]
                       + [fmt(x * k1) for x in r.get("return_levels") or []] for r in sens]
        out.append({"columns": ["Skew", "Regional skew", "Its MSE", "Weighted skew"]
                    + [f"{fmt(T)}-year ({first or ''})" for T in rps], "rows": rows,
                    "caption": "Sensitivity of the return levels to the skew (the design value is the one so named)"})
    from roles.specialists.peakfq_tables import peakfq_tables

    out.extend(peakfq_tables(payload))
    return out


def _annual_maximum_series_tables(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    vals, years = payload.get("values") or [], payload.get("years") or []
    if not vals:
        return []
    lo = min(range(len(vals)), key=lambda k: vals[k])
    big = payload.get("largest") or {}
    return [{"columns": ["Years", "Count", "Largest", "Smallest", "Unit", "Unit meaning"],
             "rows": [[f"{min(years)} to {max(years)}", payload.get("n_years"), f"{fmt(big.get('value'))} ({big.get('year')})",
                       f"{fmt(vals[lo])} ({years[lo]})", payload.get("unit"), payload.get("unit_meaning") or ""]],
             "caption": "Annual maxima as published"}]


def _regional_index_flood_tables(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    first, second, k1, k2 = table_units(payload.get("unit"), payload)
    first = first or ""
    x = lambda v, k=k1: fmt(None if v is None else v * k)  # noqa: E731
    rows = []
    for name, part, u in (("index flood", payload.get("index_flood") or {}, first),
                          ("growth factor", payload.get("growth_factor") or {}, "")):
        b, sk = part.get("band") or {}, part.get("skill") or {}
        k = k1 if u else 1.0
        rows.append([name, x(part.get("estimate"), k), u, f"{x(b.get('low'), k)} to {x(b.get('high'), k)}",
                     fmt(sk.get("median_factor_error")), part.get("n_donors")])
    env = payload.get("envelope") or {}
    rows.append([f"{fmt(payload.get('return_period'))}-year flood", x(payload.get("return_level")), first,
                 f"{x(env.get('low'))} to {x(env.get('high'))}", "", payload.get("n_donors")])
    cols = ["Quantity", "Estimate", "Unit", "Donor range", "Leave-one-out median factor", "Donors"]
    if second:
        cols.append(f"Estimate ({second})")
        rows[0].append(x((payload.get("index_flood") or {}).get("estimate"), k2))
        rows[1].append("")
        rows[2].append(x(payload.get("return_level"), k2))
    out = [{"columns": cols, "rows": rows, "caption": "Regional index-flood estimate"}]
    drows = [[d.get("name"), fmt(d.get("distance_km")), fmt(d.get("area_ratio")), x(d.get("value")),
              x(d.get("scaled_value"))] for d in (payload.get("index_flood") or {}).get("donors") or []]
    if drows:
        out.append({"columns": ["Donor", "Distance (km)", "Area / site's", f"Mean annual flood ({first})",
                                f"Scaled to the site ({first})"], "rows": drows, "caption": "Donors of the index flood"})
    return out


TABLES = {"flood_frequency": _flood_frequency_tables, "annual_maxima": _annual_maxima_tables,
          "bulletin17c_ema": _bulletin17c_tables, "annual_maximum_series": _annual_maximum_series_tables,
          "regional_index_flood": _regional_index_flood_tables}



# -- U.S. peaks (issue 19): the regression, the indicative peak, the Bulletin 17C ch. 8 weighting (flood_peaks) --
from roles.specialists import flood_peaks as _peaks  # noqa: E402 - its helpers read this module's LABELS

_PEAK_METHODS, _WEIGHTED_METHODS = _peaks.PEAK_METHODS, _peaks.WEIGHTED_METHODS
_peak_decision, _weighted_decision = _peaks.peak_decision, _peaks.weighted_decision
HARVESTERS.update(_peaks.HARVESTERS)
TABLES.update(_peaks.TABLES)
