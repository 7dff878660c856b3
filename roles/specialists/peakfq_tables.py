"""Report tables of a Bulletin 17C step laid out as PeakFQ 8.1.0 prints them (its .PRT output)."""

from __future__ import annotations

from typing import Any, Mapping

from roles.specialists.common import fmt

__all__ = ["peakfq_tables"]


def _num(x: Any, digits: int = 4) -> str:
    return "" if x is None else f"{float(x):.{digits}f}"


def _flow(x: Any) -> str:
    return "" if x is None else f"{float(x):,.0f}" if float(x) >= 100 else f"{float(x):.3g}"


def peakfq_tables(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    """EMA parameters, skews and their MSEs, the multiple Grubbs-Beck result, the frequency table with its limits,
    and the peaks the qualification codes left out."""
    pq = payload.get("peakfq") or {}
    st = pq.get("statistics") or {}
    table = pq.get("table") or {}
    if not st:
        return []
    unit = payload.get("unit") or ""
    log_unit = f"log10 {unit}".strip()  # the moments of the logs are in log10 of the flow's unit
    out = [{
        "columns": ["", f"Mean ({log_unit})", f"Standard deviation ({log_unit})", "Skew (log10, dimensionless)"],
        "rows": [["EMA without regional skew", _num(st.get("at_site_mean_log")), _num(st.get("at_site_sd_log")),
                  _num(st.get("at_site_skew"), 3)],
                 ["EMA with regional skew" if st.get("skew_option") != "station" else "EMA (station skew)",
                  _num(st.get("mean_log")), _num(st.get("sd_log")), _num(st.get("skew_log"), 3)]],
        "caption": "Annual frequency curve parameters, log-Pearson type III (EMA, Bulletin 17C)"}]
    out.append({
        "columns": ["Station skew", "MSE station skew", "MSE rule", "Regional skew", "MSE regional skew",
                    "Weighted skew", "MSE weighted skew", "Skew option", "Weighting", "Weight factor"],
        "rows": [[_num(st.get("at_site_skew"), 3), _num(st.get("at_site_skew_mse")), st.get("at_site_skew_mse_rule"),
                  _num(st.get("regional_skew"), 3), _num(st.get("regional_skew_mse")), _num(st.get("skew_log"), 3),
                  _num(st.get("weighted_skew_mse")), st.get("skew_option"), st.get("skew_weighting"),
                  _num(st.get("skew_weight_factor"), 3)]],
        "caption": "Skews and their mean square errors"})
    lo = ((payload.get("fits") or {}).get("lp3_ema") or {}).get("low_outliers") or {}
    pv = lo.get("p_values") or []
    k = st.get("n_low_outliers") or 0
    out.append({
        "columns": ["Low-outlier test", "Low-outlier threshold", "Low outliers", "Zero flows", "p-value of the last",
                    "p-value of the next"],
        "rows": [[{"mgbt": "Multiple Grubbs-Beck", "grubbs_beck": "Grubbs-Beck (over half the peaks zero)",
                   "fixed": "threshold given", "none": "none"}.get(st.get("low_outlier_test"), st.get("low_outlier_test")),
                  _flow(st.get("low_outlier_threshold")) or "none", k, st.get("n_zero") or 0,
                  _num(pv[k - 1]) if 0 < k <= len(pv) else "", _num(pv[k]) if k < len(pv) else ""]],
        "caption": "Potentially influential low floods"})
    rows = table.get("rows") or []
    if rows:
        conf = table.get("confidence") or 0.9
        lo_pct, hi_pct = f"{(1 - conf) / 2 * 100:g} %", f"{(1 + conf) / 2 * 100:g} %"
        out.append({
            "columns": ["Annual exceedance probability", "Return period (years)", f"EMA estimate ({unit})",
                        "Log variance of estimate", f"{lo_pct} lower ({unit})", f"{hi_pct} upper ({unit})"],
            "rows": [[f"{r['aep']:.4f}", fmt(r["return_period"]), _flow(r["estimate"]), f"{r['variance_log10']:.4f}",
                      _flow(r["lower"]), _flow(r["upper"])] for r in rows],
            "caption": f"Annual frequency curve: discharges at PeakFQ's exceedance probabilities, with "
                       f"{conf * 100:g} % confidence limits"})
    gone = pq.get("excluded") or []
    if gone:
        out.append({"columns": ["Water year", f"Peak ({unit})", "Codes", "Why left out"],
                    "rows": [[e["water_year"], _flow(e.get("value")), e.get("codes"), e.get("why")] for e in gone],
                    "caption": "Peaks left out by their qualification codes (as PeakFQ 8.1.0)"})
    return out
