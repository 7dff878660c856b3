"""Flood risk at U.S. sites: the peak the decision needs where only daily means are held, and Bulletin 17C chapter 8.

- a gauge with a daily record only: the USGS regression peak (NSS) when the site's basin characteristics are given,
  else an indicative peak by Fuller's (1914) ratio (``indicative: true``, graded C at most); the daily-mean fit
  supports it, named "maximum daily mean flow";
- a peak gauge with the characteristics: the at-site and regression estimates weighted by their variances (three
  rows), the weighted one the design value, transferred to a site on the gauged stream by the area ratio.

The harvesters, tables and decisions here are merged into :mod:`roles.specialists.flood_risk`.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from roles.specialists.common import LABELS, band, band_text, fmt, kn

__all__ = ["PEAK_METHODS", "WEIGHTED_METHODS", "peak_decision", "weighted_decision", "HARVESTERS", "TABLES"]


def _payload(run: Mapping[str, Any], tool: str) -> dict[str, Any] | None:
    for r in (run.get("results") or {}).values():
        if r.get("tool") == tool and r.get("status") == "ok":
            return r.get("payload") or {}
    return None


PEAK_METHODS = {"nss_regression": "the USGS regional regression equations",
                 "fuller_indicative": "Fuller's (1914) peak-to-daily ratio"}
WEIGHTED_METHODS = ("weighted", "area_ratio")


def _peak_rows(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any], fid: str, label: str) -> list[dict[str, Any]]:
    rows, target = [], ctx.get("return_period")
    fit = (p.get("fits") or {}).get(fid) or {}
    ci = fit.get("ci") or {}
    for i, T in enumerate(p.get("return_periods") or []):
        b = band(p, f"fits.{fid}.ci.lower[{i}]", f"fits.{fid}.ci.upper[{i}]", step, ci.get("confidence")) if ci else None
        row = kn(step, f"fits.{fid}.return_levels[{i}]", p, f"{T:g}-year peak flow, {label}", p.get("unit"),
                 return_period=T, method=fid, band=b, headline=(target is not None and float(T) == float(target)),
                 indicative=bool(p.get("indicative")), outside_range=bool(p.get("outside_range")))
        if row:
            rows.append(row)
    return rows


def _nss_regression(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    return _peak_rows(step, p, ctx, "nss_regression", "USGS regional regression")


def _indicative_peak(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = _peak_rows(step, p, ctx, "fuller_indicative", "indicative (Fuller 1914)")
    extra = kn(step, "ratio", p, "Fuller's (1914) ratio of the peak to the maximum daily mean flow", None)
    return rows + ([extra] if extra else [])


def _region_label(name: str | None) -> str:
    from aquascope_core.methods.regression import region_label

    return region_label(name)


def _author_year(citation: str | None) -> str:
    """"Watson, K.M.,and Schopp, R.D., 2009, ..." -> "Watson and Schopp (2009)"; else the citation's first words."""
    import re

    c = str(citation or "")
    year = re.search(r"\b(19|20)\d{2}\b", c)
    names = re.findall(r"(?:^|and\s*|,\s*)([A-Z][a-z][A-Za-z'\-]+),\s*[A-Z]\.", c[: year.start()] if year else c)
    if not names or not year:
        return c.split(",")[0]
    who = names[0] if len(names) == 1 else (f"{names[0]} and {names[1]}" if len(names) == 2 else f"{names[0]} et al.")
    return f"{who} ({year.group(0)})"


def _state_variables(state: str | None) -> str:
    """The basin characteristics the state's equations take, each with its unit, as a sentence part."""
    from aquascope_core.methods.regression import nss_regions

    try:
        regions = nss_regions(state or "")
    except Exception:  # noqa: BLE001 - a state without equations: name the characteristics generically
        return "drainage area and the other characteristics its regression equations take"
    seen: dict[str, str] = {}
    for r in regions:
        for v in r["variables"]:
            seen.setdefault(v["code"], v["unit"])
    from aquascope_core.methods.basin_characteristics import characteristics_text

    return (characteristics_text(seen)
            + f"; and the region: {', '.join(_region_label(r['name']) for r in regions)}")


def peak_decision(T: Any, rows: Sequence[Mapping[str, Any]], daily: Sequence[Mapping[str, Any]], grade: str, why: str,
                   run: Mapping[str, Any], study: Mapping[str, Any]) -> dict[str, Any]:
    """The headline is the peak; the maximum daily mean flow fit supports it."""
    pick = rows[0]
    station = ((study.get("plan") or {}).get("station") or {})
    where = station.get("name") or "the site"
    unit = pick.get("unit") or ""
    b = pick.get("band") or {}
    conf = b.get("confidence")
    conf_txt = f"{conf * 100:.0f} %" if isinstance(conf, (int, float)) else ""
    from roles.specialists.flood_text import stated, stated_band, us_study

    us, said = us_study(study, {}), []  # the daily-mean fits stated by the units rule, as every flood answer is

    def daily_text(k: Mapping[str, Any]) -> str:
        return stated(k["value"], k.get("unit") or "", us, said)

    top = max(daily, key=lambda k: k["value"]) if daily else None
    support = (f" The gauge's daily record supports it: its {T}-year maximum daily mean flow is {daily_text(top)} "
               f"by the {LABELS.get(top['method'], top['method'])} fit ("
               f"{stated_band((top.get('band') or {}).get('lower'), (top.get('band') or {}).get('upper'), top.get('unit') or '', us, said)})."
               if top else "")
    state = ((_payload(run, "nss_peak_regression") or {}).get("state")
             or ((study.get("plan") or {}).get("catchment") or {}).get("state"))
    out: dict[str, Any] = {"value": pick["value"], "unit": unit, "band": b, "basis": pick["path"],
                           "method": pick["method"], "grade": grade, "grade_reason": why, "quantity": "peak flow",
                           "indicative": bool(pick.get("indicative")), "outside_range": bool(pick.get("outside_range"))}
    if pick["method"] == "nss_regression":
        p = _payload(run, "nss_peak_regression") or {}
        reg = p.get("region") or {}
        ans = (f"The {T}-year peak flow at {where} is {stated(pick['value'], unit, us, said)} by "
               f"{PEAK_METHODS['nss_regression']} "
               f"for {p.get('state')} ({_region_label(reg.get('name'))}"
               f"{'' if 'region' in _region_label(reg.get('name')).lower() else ' region'}, "
               f"{_author_year(p.get('citation'))})"
               + (f", {conf_txt} prediction interval {stated_band(b.get('lower'), b.get('upper'), unit, us, said)}"
                  if b.get("lower") is not None else "") + ".")
        gap = {"ceiling": "B", "needs": "peak_discharge",
               "why": "a regional regression estimate: the gauge's own peak record, weighted with it (Bulletin 17C "
                      "chapter 8), would narrow it"}
        if p.get("outside_range"):
            ans += (f" {', '.join(p.get('outside') or [])} lies outside the range the equations were fitted over: the "
                    "estimate is outside the equations' range.")
            gap = {"ceiling": "C", "needs": "basin_characteristics",
                   "why": "a basin characteristic lies outside the range the regression equations were fitted over"}
        changes = ["the gauge's instantaneous annual peak record (Bulletin 17C, weighted with the regression)",
                   "basin characteristics measured for the site (a StreamStats report)"]
    else:
        p = _payload(run, "indicative_peak") or {}
        state = p.get("state") or state
        if p.get("daily_mean_unit"):
            out["record_unit"] = p["daily_mean_unit"]  # the peak in ft3/s rests on the daily record's unit
        i = (p.get("return_periods") or []).index(float(T)) if float(T) in (p.get("return_periods") or []) else None
        base = (f", {fmt(p['daily_mean_values'][i])} ft3/s ({fmt(p['daily_mean_given'][i])} {p.get('daily_mean_unit')})"
                if i is not None and p.get("daily_mean_given") else "")
        gev = [k for k in daily if k.get("method") == "gev_lmoments"]
        top = gev[0] if gev else top
        support = ""
        for o in daily:
            if o is not top:
                support += (f" The {LABELS.get(o['method'], o['method'])} fit gives a {T}-year maximum daily mean flow "
                            f"of {daily_text(o)}.")
        ans = (f"The {T}-year peak flow at {where} is indicatively {stated(pick['value'], unit, us, said)}"
               + (f" (band {stated_band(b.get('lower'), b.get('upper'), unit, us, said)})" if b.get("lower") is not None
                  else "")
               + f": the GEV (L-moments) fit's {T}-year maximum daily mean flow of the gauge's daily record{base}, "
               f"times {PEAK_METHODS['fuller_indicative']}, {fmt(p.get('ratio'))} for {fmt(p.get('area_km2'))} km2. ")
        chars_given = bool(((study.get("problem") or {}).get("params") or {}).get("basin_characteristics"))
        wanted = (f"the site's USGS regression region of {state} (its basin characteristics are given; the region "
                  f"picks the equations: {_state_variables(state).split('and the region: ')[-1]})" if chars_given else
                  f"the site's basin characteristics for the USGS regression equations of {state} "
                  f"({_state_variables(state)}), in a StreamStats basin-characteristics report or in words")
        ans += f"It is indicative (graded C at most): {wanted}, or the gauge's annual peak record would firm it up."
        gap = {"ceiling": "C", "needs": "peak_discharge",
               "why": "the peak is indicative: Fuller's (1914) average peak-to-daily ratio on the maximum daily mean flow"}
        changes = [f"the site's basin characteristics for the USGS regression equations of {state} (a StreamStats "
                   "basin-characteristics report)", "the gauge's instantaneous annual peak record (Bulletin 17C)"]
        out["data_requests"] = [{
            "what": wanted if chars_given else (
                f"the site's basin characteristics for the USGS regression equations of {state} "
                f"({_state_variables(state)}; a StreamStats basin-characteristics report, its CSV export, or the "
                "values in words)"),
            "why": "the regression gives the instantaneous peak itself, where the daily record gives only an "
                   "indicative one (Fuller 1914)",
            "effect": f"the {T}-year peak from the USGS regression equations, with its 90 % prediction interval, in "
                      "place of the indicative peak (graded B rather than C at most)"}]
    am = _payload(run, "annual_maxima") or {}
    wy = am.get("water_years") or []
    period = None
    if wy:
        st = am.get("station") or {}
        period = {"start": min(wy), "end": max(wy), "variable": "discharge",
                  "station": st.get("station_id") if isinstance(st, Mapping) else None}
        support += (f" The daily-mean fits rest on the {am.get('n_years')} water-year maxima of the daily mean flow, "
                    f"{min(wy)} to {max(wy)}.")
    # the regression's limit caps the grade and names the data to bring, but the estimate is the peak the decision
    # needs (its Not-for-design reasons, an out-of-range characteristic, come from the step's flags); the indicative
    # peak is not yet that quantity
    limit = {"grade_limit": gap} if pick["method"] == "nss_regression" else {"quantity_gap": gap}
    out["record"] = {"stated_in_report_units": said}
    out.update(answer=ans + support, **limit, what_would_change_it=changes, record_period=period,
               conditions=["the gauge's catchment represents the site", "the annual floods are stationary"]
               + (["Fuller's average ratio holds for this catchment"] if pick["method"] == "fuller_indicative" else
                  ["the site lies in the region the equations were fitted for"]))
    return out


def _nss_tables(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = [[fmt(q["return_period"]), fmt(q["aep"]), fmt(q["value"]), band_text(q), fmt(q.get("sep_log"))]
            for q in payload.get("quantiles") or []]
    chars = [[c["code"], fmt(c["value"]), c["unit"], f"{fmt(c['minimum'])} to {fmt(c['maximum'])}",
              "outside" if c["outside_range"] else "within"] for c in payload.get("characteristics") or []]
    reg = payload.get("region") or {}
    return [{"columns": ["Return period (years)", "AEP", "Peak flow (ft3/s)", "90 % prediction interval",
                         "SEP (log10)"], "rows": rows,
             "caption": f"USGS regression peak flows, {payload.get('state')} {reg.get('name')} ({payload.get('citation')})"},
            {"columns": ["Characteristic", "Value", "Unit", "Fitted range", "In range"], "rows": chars,
             "caption": "Basin characteristics and the range the equations were fitted over"}]


def _indicative_tables(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    fit = (payload.get("fits") or {}).get("fuller_indicative") or {}
    rows = [[fmt(T), fmt(d), fmt(v)] for T, d, v in zip(payload.get("return_periods") or [],
                                                       payload.get("daily_mean_values") or [],
                                                       fit.get("return_levels") or [])]
    return [{"columns": ["Return period (years)", "Maximum daily mean flow (ft3/s)", "Indicative peak flow (ft3/s)"],
             "rows": rows, "caption": f"Indicative peaks by Fuller's (1914) ratio {fmt(payload.get('ratio'))}"}]





# -- Bulletin 17C chapter 8: the at-site and regression estimates weighted, and transferred to the site (items 4, 6) --
def _weighted(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    return _peak_rows(step, p, ctx, "weighted", "Bulletin 17C weighted (at-site and regression)")


def _transfer(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    return _peak_rows(step, p, ctx, "area_ratio", "transferred to the site by the drainage-area ratio") \
        if p.get("ok") else []


def weighted_decision(T: Any, at_T: Sequence[Mapping[str, Any]], grade: str, why: str, run: Mapping[str, Any],
                       study: Mapping[str, Any]) -> dict[str, Any] | None:
    """The weighted estimate (or its transfer to the site) is the design value; the three rows are named."""
    w = _payload(run, "weighted_flood_estimate") or {}
    row = next((r for r in w.get("rows") or [] if T is not None and abs(r["return_period"] - float(T)) < 1e-6), None)
    if not row or not row.get("weighted"):
        return None
    station = ((study.get("plan") or {}).get("station") or {})
    where = station.get("name") or "the gauge"
    unit = w.get("unit") or "ft3/s"
    i = [r["return_period"] for r in w["rows"]].index(row["return_period"])
    wsteps = [k for k in at_T if k.get("method") == "weighted"]
    moved = [k for k in at_T if k.get("method") == "area_ratio"]
    pick = moved[0] if moved else (wsteps[0] if wsteps else None)
    if pick is None:
        return None
    a, r_, x = row["at_site"], row["regression"], row["weighted"]
    ans = (f"The {T}-year peak flow at {where} is {fmt(x['value'])} {unit}, the Bulletin 17C (chapter 8) weighting of "
           f"the at-site estimate, {fmt(a['value'])} {unit} (variance of its log {fmt(a['variance_log10'])}), and the "
           f"USGS regional regression's, {fmt(r_['value'])} {unit} (variance of prediction "
           f"{fmt(r_['variance_log10'])}), by the inverse of their variances (90 % interval {fmt(x['lower'])} to "
           f"{fmt(x['upper'])} {unit}).")
    tr = _payload(run, "area_ratio_transfer")
    if moved and tr:
        ans = (f"The {T}-year peak flow at the site is {fmt(pick['value'])} {unit}: the gauge's weighted estimate "
               f"transferred by the drainage-area ratio {fmt(tr.get('ratio'))} (within 0.5-1.5), the site assumed to "
               f"lie on the gauged stream. " + ans)
    elif tr and not tr.get("ok"):
        ans += f" It is not transferred to the site: {tr.get('reason')}."
    out = {"answer": ans, "value": pick["value"], "unit": unit, "band": pick.get("band") or {}, "basis": pick["path"],
           "method": pick["method"], "grade": grade, "grade_reason": why, "quantity": "peak flow",
           "outside_range": bool(w.get("outside_range")), "indicative": False,
           "conditions": ["the systematic and historical peaks come from one stationary population",
                          "the site lies in the region the regression equations were fitted for"]
           + (["the site lies on the gauged stream"] if moved else []),
           "what_would_change_it": ["another regional skew (a newer regional study)",
                                    "basin characteristics measured for the site (a StreamStats report)"],
           "weighting": {"at_site": a, "regression": r_, "weighted": x, "row": i}}
    if w.get("outside_range"):  # the weighted peak is the decision's quantity; the step's flag says Not for design
        out["grade_limit"] = {"ceiling": "C", "needs": "basin_characteristics",
                              "why": "a basin characteristic lies outside the range the regression equations were "
                                     "fitted over"}
    return out


def _weighted_tables(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for r in payload.get("rows") or []:
        for key in ("at_site", "regression", "weighted"):
            e = r.get(key)
            if e:
                rows.append([fmt(r["return_period"]), e["estimate"], fmt(e["value"]), fmt(e.get("variance_log10")),
                             f"{fmt(e.get('lower'))} to {fmt(e.get('upper'))}" if e.get("lower") else ""])
    return [{"columns": ["Return period (years)", "Estimate", f"Peak flow ({payload.get('unit') or 'ft3/s'})",
                         "Variance (log10)", "90 % interval"], "rows": rows,
             "caption": "At-site, regression and weighted estimates (Bulletin 17C chapter 8)"}]


def _transfer_tables(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = [[fmt(r["return_period"]), fmt(r["gauge_value"]), fmt(r["exponent"]), fmt(r.get("value"))]
            for r in payload.get("rows") or []]
    return [{"columns": ["Return period (years)", "At the gauge", "Area exponent", "At the site"], "rows": rows,
             "caption": f"Drainage-area-ratio transfer (ratio {fmt(payload.get('ratio'))}, accepted within 0.5-1.5)"}]


HARVESTERS = {"nss_peak_regression": _nss_regression, "indicative_peak": _indicative_peak,
              "weighted_flood_estimate": _weighted, "area_ratio_transfer": _transfer}
TABLES = {"nss_peak_regression": _nss_tables, "indicative_peak": _indicative_tables,
          "weighted_flood_estimate": _weighted_tables, "area_ratio_transfer": _transfer_tables}
