"""Regional flood tools for U.S. sites: the USGS regression equations (NSS), the indicative peak from a daily-mean
fit (Fuller 1914), Bulletin 17C chapter 8 weighting and the drainage-area-ratio transfer.

The peak tools give their numbers in the shape of ``flood_frequency``'s payload (``return_periods``,
``fits.<id>.return_levels`` and ``ci``) so the same gates and harvesters read them; each carries the flags a
report needs: ``outside_range`` (a characteristic outside the equations' fitted range) and ``indicative``
(a peak converted from daily means), with ``grade_cap``.
"""

from __future__ import annotations

from typing import Any, Sequence

from aquascope_core.errors import InputError
from aquascope_core.result import finish
from aquascope_core.toolspec import ToolSpec

__all__ = ["nss_peak_regression", "indicative_peak", "weighted_flood_estimate", "area_ratio_transfer", "SPECS"]

_CFS_PER_CMS = 35.31466672148859


def _flows_in_cfs(values: Sequence[float], unit: str | None) -> list[float]:
    u = (unit or "").strip().lower().replace("^", "").replace("³", "3")
    if u in ("m3/s", "cms", "cumecs"):
        return [float(v) * _CFS_PER_CMS for v in values]
    if u in ("ft3/s", "cfs"):
        return [float(v) for v in values]
    raise InputError.bad_value("unit", unit, "m3/s or ft3/s (the unit of the daily-mean fit)")


def nss_peak_regression(characteristics: Any, region: str | None = None, state: str | None = None,
                        return_periods: Sequence[float] = (2, 5, 10, 25, 50, 100, 200, 500),
                        prediction: float = 0.90) -> dict[str, Any]:
    """The state's USGS regression (NSS) peak flows at the site from its basin characteristics, with 90 %
    prediction intervals, each characteristic checked against the range the equations were fitted over."""
    from aquascope_core.data.streamstats import parse_characteristics
    from aquascope_core.methods.regression import nss_region, peak_flow_regression

    chars = parse_characteristics(characteristics)
    reg = nss_region(state, region)
    have = sorted({e[0] for e in reg["equations"]}, reverse=True)
    T, aeps = [], []
    for t in return_periods:
        a = 1.0 / float(t)
        hit = [h for h in have if abs(h - a) < 1e-6]
        if hit:
            T.append(float(t))
            aeps.append(hit[0])
    if not aeps:
        raise InputError.bad_value("return_periods", list(return_periods), "return periods whose AEPs the region's "
                                   f"equations give: {[round(1 / h, 6) for h in have]}")
    out = peak_flow_regression(reg["report"].split("-")[0], chars, region=reg["code"], aeps=aeps,
                               prediction=prediction)
    rows = out["quantiles"]
    fit = {"ok": True, "return_levels": [r["value"] for r in rows],
           "ci": {"lower": [r["lower"] for r in rows], "upper": [r["upper"] for r in rows],
                  "confidence": float(prediction), "kind": "prediction interval"},
           "variance_log10": [r["variance_of_prediction"] for r in rows]}
    payload = {k: v for k, v in out.items() if k != "meta"}
    payload.update(return_periods=T, fits={"nss_regression": fit}, aeps=aeps)
    params = {"state": state, "characteristics": chars, "region": region, "return_periods": list(return_periods),
              "prediction": prediction}
    return finish(payload, "nss_peak_regression", params, [r for r in out["meta"]["sources"] if r.get("name") != "aquascope"])


def indicative_peak(values: Sequence[float], return_periods: Sequence[float], area_km2: float,
                    unit: str | None = None, lower: Sequence[float] | None = None,
                    upper: Sequence[float] | None = None, confidence: float | None = None,
                    state: str | None = None) -> dict[str, Any]:
    """An indicative instantaneous peak from the maximum daily mean flow quantiles by Fuller's (1914) ratio, in
    ft3/s; the daily-mean quantiles stay what they are ("maximum daily mean flow")."""
    from aquascope_core.methods.daily_to_peak import indicative_peaks

    vals = _flows_in_cfs(values, unit)
    out = indicative_peaks(vals, area_km2, unit="ft3/s", return_periods=return_periods)
    r = out["ratio"]
    ci = None
    if lower is not None and upper is not None:
        lo, hi = _flows_in_cfs(lower, unit), _flows_in_cfs(upper, unit)
        ci = {"lower": [x * r for x in lo], "upper": [x * r for x in hi], "confidence": confidence,
              "kind": "the daily-mean fit's band times the ratio"}
    payload = {k: v for k, v in out.items() if k != "meta"}
    payload.update(return_periods=[float(t) for t in return_periods], unit="ft3/s", daily_mean_unit=unit, state=state,
                   daily_mean_given=[float(v) for v in values],
                   fits={"fuller_indicative": {"ok": True, "return_levels": out["values"], "ci": ci}})
    params = {"values": list(values), "return_periods": list(return_periods), "area_km2": area_km2, "unit": unit,
              "state": state}
    return finish(payload, "indicative_peak", params, [s for s in out["meta"]["sources"] if s.get("name") != "aquascope"])


def weighted_flood_estimate(at_site_table: Sequence[dict], regression_quantiles: Sequence[dict],
                            regression_unit: str = "ft3/s", outside_range: bool = False,
                            prediction: float = 0.90) -> dict[str, Any]:
    """Bulletin 17C chapter 8: the at-site EMA quantiles (PeakFQ's table rows, with ``variance_log10``) and the
    regression's (``nss_peak_regression``'s ``quantiles``) weighted by the inverse of their variances at the AEPs
    both give; three rows per AEP (at-site, regression, weighted)."""
    from aquascope_core.methods.weighting import weighted_estimates

    reg = {round(float(q["aep"]), 6): q for q in regression_quantiles or []}
    aeps, qs, vs, qr, vr = [], [], [], [], []
    for row in at_site_table or []:
        key = round(float(row["aep"]), 6)
        if key in reg and row.get("estimate") and row.get("variance_log10"):
            aeps.append(float(row["aep"]))
            qs.append(row["estimate"])
            vs.append(row["variance_log10"])
            qr.append(reg[key]["value"])
            vr.append(reg[key]["variance_of_prediction"])
    if not aeps:
        raise InputError.bad_value("at_site_table", len(at_site_table or []), "at-site rows (aep, estimate, "
                                   "variance_log10) at AEPs the regression also gives")
    out = weighted_estimates(aeps, qs, vs, qr, vr, unit=regression_unit, prediction=prediction)
    rows = out["rows"]
    design = [(r["weighted"] or r["at_site"]) for r in rows]
    payload = {k: v for k, v in out.items() if k != "meta"}
    payload.update(return_periods=[r["return_period"] for r in rows],
                   fits={"weighted": {"ok": True, "return_levels": [d["value"] for d in design],
                                      "ci": {"lower": [d["lower"] for d in design], "upper": [d["upper"] for d in design],
                                             "confidence": float(prediction)}}},
                   outside_range=bool(outside_range), grade_cap="C" if outside_range else None)
    params = {"at_site_table": f"<{len(at_site_table or [])} rows>",
              "regression_quantiles": f"<{len(regression_quantiles or [])} rows>", "regression_unit": regression_unit,
              "outside_range": bool(outside_range), "prediction": prediction}
    return finish(payload, "weighted_flood_estimate", params,
                  [s for s in out["meta"]["sources"] if s.get("name") != "aquascope"])


def area_ratio_transfer(values: Sequence[float], return_periods: Sequence[float], gauge_area_km2: float,
                        site_area_km2: float, state: str | None = None, region: str | None = None,
                        unit: str = "ft3/s") -> dict[str, Any]:
    """The gauge's quantiles at a site on the same stream by the drainage-area ratio, the exponent the state's
    regression for the region and AEP gives where the package holds one (else 1), within 0.5-1.5 of area."""
    from aquascope_core.methods.regression import area_exponent
    from aquascope_core.methods.transfer import drainage_area_transfer

    rows, ok_all, reason = [], True, None
    for q, t in zip(values, return_periods):
        b, src = None, None
        if state or region:
            got = area_exponent(state, region, 1.0 / float(t))
            if got["exponent"] is not None:
                b = got["exponent"]
                src = f"the drainage-area exponent of {got['region']}'s {1 / got['aep']:g}-year equation ({got['citation']})"
        out = drainage_area_transfer([q], gauge_area_km2, site_area_km2, exponent=b, exponent_source=src, unit=unit,
                                     area_unit="km2")
        ok_all = ok_all and out["ok"]
        reason = reason or out.get("reason")
        rows.append({"return_period": float(t), "gauge_value": float(q), "exponent": out["exponent"],
                     "exponent_source": out["exponent_source"], "value": (out["values"] or [None])[0]})
    payload = {"method": "drainage_area_transfer", "ok": ok_all, "unit": unit, "rows": rows,
               "ratio": float(site_area_km2) / float(gauge_area_km2), "ratio_range": [0.5, 1.5],
               "gauge_area_km2": float(gauge_area_km2), "site_area_km2": float(site_area_km2),
               "return_periods": [float(t) for t in return_periods],
               "fits": {"area_ratio": {"ok": ok_all, "return_levels": [r["value"] for r in rows], "ci": None}}}
    if not ok_all:
        payload["reason"] = reason
        payload["use_regression"] = True
    params = {"values": list(values), "return_periods": list(return_periods), "gauge_area_km2": gauge_area_km2,
              "site_area_km2": site_area_km2, "state": state, "region": region, "unit": unit}
    return finish(payload, "area_ratio_transfer", params, [])


_NSS = ("USGS National Streamflow Statistics regression equations (Ries 2007, USGS TM 4-A6), each region's "
        "report cited with its result.")
SPECS = [
    ToolSpec(
        id="nss_peak_regression",
        purpose="USGS regional regression (NSS) peak flows at a U.S. site from its basin characteristics, with 90 % "
                "prediction intervals and every characteristic checked against the equations' fitted range.",
        kind="frame",
        function="aquascope_core.tools.regression:nss_peak_regression",
        yields=("ffa",),
        methods=("nss_peak_regression",),
        gates=({"check": "ci_finite", "path": "fits.nss_regression.ci", "return_period": 100},),
        tables=("return_levels",),
        citation=_NSS,
        arguments={"state": "two-letter state code (else the region names it)", "characteristics": "basin characteristics as NSS codes and "
                   "values (CODE=value; ...), as a StreamStats report gives them",
                   "region": "the NSS region code or words of its name (where the state has several)",
                   "return_periods": "return periods in years", "prediction": "prediction-interval level"},
    ),
    ToolSpec(
        id="indicative_peak",
        purpose="An indicative instantaneous peak from maximum daily mean flow quantiles by Fuller's (1914) ratio.",
        kind="frame",
        function="aquascope_core.tools.regression:indicative_peak",
        yields=("ffa",),
        methods=("fuller_peak_ratio",),
        gates=({"check": "not_empty", "path": "values"},),
        tables=("return_levels",),
        citation="Fuller, W.E. (1914) Flood flows. Transactions ASCE 77, 564-617.",
        arguments={"values": "maximum daily mean flow quantiles", "return_periods": "their return periods",
                   "area_km2": "the catchment area (km2)", "unit": "the unit of the values",
                   "lower": "lower band of the daily-mean fit", "upper": "upper band", "confidence": "its level",
                   "state": "the U.S. state of the site (names the regression that would replace the estimate)"},
    ),
    ToolSpec(
        id="weighted_flood_estimate",
        purpose="Bulletin 17C chapter 8: at-site EMA and regression quantiles weighted by the inverse of their variances.",
        kind="frame",
        function="aquascope_core.tools.regression:weighted_flood_estimate",
        yields=("ffa",),
        methods=("weighted_estimates",),
        gates=({"check": "not_empty", "path": "rows"},),
        tables=("return_levels",),
        citation="England et al. (2019) Bulletin 17C, USGS TM 4-B5, chapter 8.",
        arguments={"at_site_table": "PeakFQ's quantile table rows of the at-site fit (aep, estimate, variance_log10)",
                   "regression_quantiles": "the nss_peak_regression result's quantiles",
                   "regression_unit": "their unit", "outside_range": "whether the regression is outside its range",
                   "prediction": "interval level"},
    ),
    ToolSpec(
        id="area_ratio_transfer",
        purpose="A gauge's quantiles at a site on the same stream by the drainage-area ratio (0.5-1.5 of area).",
        kind="frame",
        function="aquascope_core.tools.regression:area_ratio_transfer",
        yields=("ffa",),
        methods=("drainage_area_transfer",),
        gates=({"check": "not_empty", "path": "rows"},),
        tables=("return_levels",),
        citation="England et al. (2019) Bulletin 17C, USGS TM 4-B5, chapter 8; Ries (2007) USGS TM 4-A6.",
        arguments={"values": "the gauge's quantiles", "return_periods": "their return periods",
                   "gauge_area_km2": "the gauge's drainage area (km2)", "site_area_km2": "the site's (km2)",
                   "state": "the state whose regression gives the area exponent", "region": "its NSS region",
                   "unit": "unit of the values"},
    ),
]
