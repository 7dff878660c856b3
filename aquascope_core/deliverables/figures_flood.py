"""Flood figures: annual maxima (with the trend line when tested), the frequency curve, the L-moment ratio diagram,
and a series with its Sen's slope (any trend test)."""

from __future__ import annotations

import functools
import math
from typing import Any, Mapping, Sequence

from aquascope_core.deliverables.figures_base import (FigureDataMissing, FigureMaker, dependent, design_return_period,
                                                      legend_outside, need, numbers, plain_log,
                                                      station_label, unit_label, year_span)
from aquascope_core.deliverables.style import colour

__all__ = ["MAKERS", "plotting_positions", "observed_maxima"]

PLOTTING_A = 0.4  # Cunnane (1978): nearly unbiased quantiles for most distributions


def plotting_positions(values: Sequence[float], *, record_years: int | None = None,
                       threshold: float | None = None, a: float = PLOTTING_A) -> list[tuple[float, float]]:
    """(value, annual exceedance probability) of each observed maximum, largest first.

    Without historical information: ``(i - a) / (n + 1 - 2a)``. With a historical period of ``record_years``
    and a perception ``threshold`` above which every flood is known, the peaks above it are ranked over the
    whole period and the rest within the remaining probability (Hirsch & Stedinger 1987).
    """
    vals = sorted((v for v in values if math.isfinite(v)), reverse=True)
    n = len(vals)
    if not record_years or threshold is None or record_years <= n:
        return [(v, (i + 1 - a) / (n + 1 - 2 * a)) for i, v in enumerate(vals)]
    above = [v for v in vals if v >= threshold]
    below = [v for v in vals if v < threshold]
    k, h = len(above), float(record_years)
    share = k / h
    out = [(v, (i + 1 - a) / (h + 1 - 2 * a)) for i, v in enumerate(above)]
    m = len(below)
    out += [(v, share + (1 - share) * (j + 1 - a) / (m + 1 - 2 * a)) for j, v in enumerate(below)]
    return out


def observed_maxima(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[list[float], list[float], str]:
    """(values, years, note) of the sample a frequency analysis fitted: the payload's own systematic and
    historical peaks (Bulletin 17C), else the values the step was given (its resolved arguments)."""
    sysm = payload.get("systematic") or {}
    if sysm.get("values"):
        return numbers(sysm["values"]), list(sysm.get("years") or []), "systematic"
    args = context.get("arguments") or {}
    vals = args.get("values")
    if isinstance(vals, list) and vals:
        return numbers(vals), list(args.get("times") or args.get("years") or []), "fitted"
    raise FigureDataMissing("the frequency curve needs the observed maxima: neither the payload's 'systematic' "
                            "peaks nor the step's 'values' argument are in the run", argument="values")


def _trend_line(ax: Any, trend: Mapping[str, Any], xs: Sequence[float]) -> str:
    slope, icpt = trend.get("sen_slope"), trend.get("sen_intercept")
    if not isinstance(slope, (int, float)) or not isinstance(icpt, (int, float)):
        return ""
    x0, x1 = min(xs), max(xs)
    word = trend.get("trend") or ("significant" if trend.get("significant") else "not significant")
    p = trend.get("p_value")
    ptxt = f", p = {p:.3g}" if isinstance(p, (int, float)) else ""
    per = f"{_slope_text(slope)} {trend.get('slope_unit') or ''}".strip()
    ax.plot([x0, x1], [icpt + slope * x0, icpt + slope * x1], color=colour("vermilion"), linestyle="--",
            linewidth=1.3, label=f"Sen's slope {per} (Mann-Kendall: {word}{ptxt})")
    return f"the dashed line is Sen's slope, {per} (Mann-Kendall: {word}{ptxt})"


def _historical_period(ax: Any, payload: Mapping[str, Any], context: Mapping[str, Any], years: Sequence[Any]) -> None:
    """The perception thresholds over their years, and the historical period shaded (from the payload, or the
    Bulletin 17C step drawn from it)."""
    hist = payload.get("historical") or (dependent(context, "bulletin17c_ema") or {}).get("historical") or {}
    spans = [t for t in hist.get("perception_thresholds") or [] if (t.get("lower") or 0) > 0
             and isinstance(t.get("start"), (int, float)) and isinstance(t.get("end"), (int, float))]
    for i, t in enumerate(spans):
        x0, x1 = float(t["start"]) - 0.5, float(t["end"]) + 0.5
        ax.axvspan(x0, x1, color=colour("grey"), alpha=0.12, linewidth=0,
                   label="historical period" if i == 0 else None)
        ax.hlines(float(t["lower"]), x0, x1, color=colour("grey"), linestyle="-.", linewidth=1.1,
                  label=f"perception threshold {t['lower']:,.0f} ({t['start']}-{t['end']})")


def annual_maxima(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    (values,) = need(payload, "values", kind="annual maxima")
    years = payload.get("water_years") or payload.get("years")
    if not years or len(years) != len(values):
        raise FigureDataMissing("the annual maxima figure needs the year of each maximum ('water_years' or "
                                "'years', as many as 'values')", argument="water_years")
    ys = numbers(values)
    fig, ax = new_figure()
    hist_years = {int(h["year"]) for h in ((payload.get("historical") or {}).get("peaks") or []) if "year" in h}
    hist_years |= {int(y) for y in payload.get("historical_years") or []}
    sx = [y for y, v in zip(years, ys) if int(y) not in hist_years]
    sy = [v for y, v in zip(years, ys) if int(y) not in hist_years]
    ax.vlines(sx, 0, sy, color=colour("sky"), linewidth=1.6)
    ax.plot(sx, sy, "o", color=colour("blue"), markersize=3.5, label="annual maximum")
    if hist_years:
        hx = [y for y in years if int(y) in hist_years]
        hy = [v for y, v in zip(years, ys) if int(y) in hist_years]
        ax.vlines(hx, 0, hy, color=colour("orange"), linewidth=1.6)
        ax.plot(hx, hy, "s", color=colour("vermilion"), markersize=4.5, label="historical peak")
    _historical_period(ax, payload, context, years)
    tested = dependent(context, "trend_test") or {}
    trend_ = tested.get("trend") if isinstance(tested.get("trend"), Mapping) else {}
    tnote = _trend_line(ax, trend_, [float(y) for y in years]) if trend_ else ""
    basis = payload.get("label") or payload.get("basis") or ""
    from aquascope_core.report_units import figure_quantity, label_flow_axis  # the one units rule

    label_flow_axis(ax, figure_quantity(payload, context, "Annual maximum flow"), payload.get("unit"), payload, context)
    ax.set_xlabel("Water year" if payload.get("water_years") else "Year")
    ax.set_ylim(bottom=0)
    legend_outside(ax)
    from aquascope_core.deliverables.flood_inputs import record_sentence

    b17c = record_sentence(dependent(context, "bulletin17c_ema") or payload)  # the one form of the record length
    parts = [station_label(payload), b17c] if b17c else [station_label(payload), year_span(years), f"{len(values)} years"]
    note = ", ".join(p for p in parts if p)
    if basis:
        note += f"; {basis}"
    if tnote:
        note += f"; {tnote}"
    return fig, note


def _rl_at(fit: Mapping[str, Any], rps: Sequence[float], T: float) -> float | None:
    rls = numbers(fit.get("return_levels") or [])
    for t, v in zip(rps, rls):
        if abs(float(t) - T) < 1e-9 and math.isfinite(v):
            return v
    return None


_SHORT = {"gev": "GEV", "lp3": "LP3", "gumbel": "Gumbel", "glo": "GLO", "pe3": "PE3", "gpa": "GPA", "gno": "GNO",
          "lognormal": "lognormal", "ln3": "LN3", "weibull": "Weibull"}
_ESTIMATOR = {"gev_lmoments": "L-moments", "lp3_moments": "moments of log10", "lp3_ema": "Bulletin 17C EMA",
              "gumbel_lmoments": "L-moments", "glo_lmoments": "L-moments", "pe3_lmoments": "L-moments",
              "gev_mle": "maximum likelihood", "gumbel_mle": "maximum likelihood"}


def _fit_label(name: str, fit: Mapping[str, Any]) -> str:
    dist = str(fit.get("distribution") or name.split("_")[0])
    est = _ESTIMATOR.get(name) or str(fit.get("estimator") or "").split("(")[0].split(",")[0].strip()
    return f"{_SHORT.get(dist, dist)} ({est})" if est else _SHORT.get(dist, dist)


def _low_outliers(fits: Mapping[str, Any]) -> tuple[float | None, str | None]:
    """(threshold, test) of the low-outlier test a fit ran (Bulletin 17C's multiple Grubbs-Beck), or (None, None)."""
    for f in fits.values():
        lo = f.get("low_outliers") if isinstance(f, Mapping) else None
        if isinstance(lo, Mapping) and lo.get("test"):
            thr = lo.get("threshold")
            return (float(thr) if isinstance(thr, (int, float)) and thr > 0 else None), str(lo["test"])
    return None, None


_TEST_NAME = {"mgbt": "multiple Grubbs-Beck", "gbt": "Grubbs-Beck"}


def _band_points(name: str, fit: Mapping[str, Any], payload: Mapping[str, Any], rps: Sequence[float]
                 ) -> tuple[list[float], list[float], list[float], Any] | None:
    """(aeps, lower, upper, confidence) of a fit's band: Bulletin 17C's own table (its AEPs, 0.995 on) when the
    payload has it, else the fit's interval at the return periods."""
    table = (payload.get("peakfq") or {}).get("table") or {}
    rows = table.get("rows") or []
    if name == "lp3_ema" and rows and all(isinstance(r, Mapping) for r in rows):
        aeps = [float(r["aep"]) for r in rows if r.get("aep")]
        if len(aeps) == len(rows):
            return aeps, numbers([r.get("lower") for r in rows]), numbers([r.get("upper") for r in rows]), \
                table.get("confidence")
    ci = fit.get("ci") or {}
    lo, hi = numbers(ci.get("lower") or []), numbers(ci.get("upper") or [])
    if ci.get("ok", True) and len(lo) == len(rps) == len(hi):
        return [1.0 / t for t in rps], lo, hi, ci.get("confidence")
    return None


def _bands_caption(bands: Sequence[tuple[str, str]]) -> str:
    """What the shaded bands are, every band drawn named: "the shaded band is the 90% confidence interval of the GEV
    fit" for one; "the shaded bands are the 90% confidence interval of the GEV fit and the 90% confidence interval
    of the LP3 fit, each in its curve's colour" for two or more."""
    words = [f"the {what}" for what in dict.fromkeys(w for w, _ in bands)]
    if len(words) == 1:
        return f"the shaded band is {words[0]}" if len(bands) == 1 else f"the shaded bands are {words[0]}"
    return ("the shaded bands are " + ", ".join(words[:-1]) + f" and {words[-1]}, each in its curve's colour"
            if words else "")


def frequency_curve(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.figures_prob import (AEP_RANGE, aep_axis, dense_aeps, dense_quantiles,
                                                          smooth_through)
    from aquascope_core.deliverables.style import new_figure

    rps, fits = need(payload, "return_periods", "fits", kind="frequency curve")
    rps = [float(t) for t in rps]
    good = {k: f for k, f in fits.items() if isinstance(f, Mapping) and f.get("ok", True)
            and len(f.get("return_levels") or []) == len(rps)}
    if not good:
        raise FigureDataMissing("the frequency curve needs at least one fit with return levels; none succeeded",
                                argument="fits")
    values, _years, _src = observed_maxima(payload, context)
    hist = payload.get("historical") or {}
    peaks = [(float(h["value"]), int(h["year"])) for h in (hist.get("peaks") or []) if h.get("value") is not None]
    thresholds = [t for t in (hist.get("perception_thresholds") or []) if (t.get("lower") or 0) > 0]
    record_years = payload.get("record_years") if peaks else None
    threshold = min(float(t["lower"]) for t in thresholds) if thresholds else None
    b17c = "lp3_ema" in good
    a = 0.0 if b17c else PLOTTING_A  # PeakFQ plots at Weibull (a = 0) Hirsch-Stedinger positions
    sample = values + [v for v, _ in peaks]
    pos = plotting_positions(sample, record_years=record_years, threshold=threshold, a=a)
    hist_vals = {v for v, _ in peaks}
    low_thr, low_test = _low_outliers(good)
    unit = payload.get("unit")
    fig, ax = new_figure(height=4.4)
    aeps = dense_aeps(*AEP_RANGE)
    bands: list[tuple[str, str]] = []  # (confidence words, whose band) of every band drawn
    for i, (name, fit) in enumerate(good.items()):
        c = colour(i)
        ys = dense_quantiles(fit, aeps)
        xs = aeps
        if ys is None:  # no parameters of a known family: the table's quantiles joined smoothly
            xs, ys = smooth_through([1.0 / t for t in rps], numbers(fit["return_levels"]))
        ax.plot(xs, ys, color=c, linewidth=1.6, label=_fit_label(name, fit))
        band = _band_points(name, fit, payload, rps)
        if band:
            bx, lo = smooth_through(band[0], band[1])
            bx2, hi = smooth_through(band[0], band[2])
            if bx and bx == bx2:
                conf = band[3]
                short = _fit_label(name, fit).split(" (")[0]
                pct = f"{conf:.0%} " if isinstance(conf, (int, float)) else ""
                ax.fill_between(bx, lo, hi, color=c, alpha=0.15, linewidth=0, label=f"{short} {pct}confidence band")
                ax.plot(bx, lo, color=c, linewidth=0.6, linestyle=":")
                ax.plot(bx, hi, color=c, linewidth=0.6, linestyle=":")
                bands.append((f"{pct}EMA confidence interval of Bulletin 17C" if name == "lp3_ema"
                              else f"{pct}confidence interval of the {short} fit", name))
    band_word = _bands_caption(bands)
    sys_pts = [(v, p) for v, p in pos if v not in hist_vals and 0 < p < 1]
    low = [(v, p) for v, p in sys_pts if low_thr is not None and v < low_thr]
    sys_pts = [q for q in sys_pts if q not in low]
    ax.plot([p for _, p in sys_pts], [v for v, _ in sys_pts], "o", color=colour("blue"), markersize=3.4,
            markeredgecolor="black", markeredgewidth=0.5, label="systematic peaks" if b17c else "observed annual maxima",
            zorder=5)
    if peaks:
        hp = [(v, p) for v, p in pos if v in hist_vals and 0 < p < 1]
        ax.plot([p for _, p in hp], [v for v, _ in hp], "s", color=colour("vermilion"), markersize=5,
                label="historical peaks", zorder=6)
    if low_test:
        test = _TEST_NAME.get(low_test, low_test)
        ax.plot([p for _, p in low], [v for v, _ in low], "o", color="black", markerfacecolor="white",
                markersize=4, markeredgewidth=0.9, zorder=6,
                label=f"low outliers ({test}, below {low_thr:,.0f})" if low else f"low outliers ({test}): none")
        if low_thr is not None:
            ax.axhline(low_thr, color=colour("grey"), linestyle=":", linewidth=0.9,
                       label=f"low-outlier threshold {low_thr:,.0f}")
    for t in thresholds:
        ax.axhline(float(t["lower"]), color=colour("grey"), linestyle="-.", linewidth=0.9,
                   label=f"perception threshold {t['lower']:,.0f} ({t.get('start')}-{t.get('end')})")
    T = design_return_period(context)
    if T is not None and AEP_RANGE[1] <= 1.0 / T <= AEP_RANGE[0]:
        ax.axvline(1.0 / T, color=colour("grey"), linestyle="--", linewidth=0.9)
        for i, fit in enumerate(good.values()):
            v = _rl_at(fit, rps, T)
            if v is not None:
                ax.plot([1.0 / T], [v], "D", color=colour(i), markersize=5, zorder=7,
                        markeredgecolor="black", markeredgewidth=0.5)
        ax.annotate(f"{T:g}-year", xy=(1.0 / T, 1.0), xycoords=("data", "axes fraction"),
                    xytext=(3, -10), textcoords="offset points", fontsize=8, color="#404040")
    plain_log(ax)
    aep_axis(ax, *AEP_RANGE)
    from aquascope_core.report_units import figure_quantity, label_flow_axis  # the one units rule

    label_flow_axis(ax, figure_quantity(payload, context, "Annual maximum flow"), unit, payload, context)
    legend_outside(ax, ncol=2)
    # named, not numbered: the formula's constant is the method's, not a result the report's checks can hold
    pp = (f"Hirsch-Stedinger plotting positions with the historical period ({'Weibull' if a == 0 else 'Cunnane'} "
          "form)" if record_years else f"{'Weibull' if a == 0 else 'Cunnane'} plotting positions")
    from aquascope_core.deliverables.flood_inputs import record_sentence

    note = ", ".join(p for p in (station_label(payload), record_sentence(payload) or f"{len(values)} annual maxima")
                     if p)
    note += f"; peaks at {pp}; the curves are evaluated at {len(aeps)} exceedance probabilities"
    if band_word:
        note += f"; {band_word}"
    if T is not None:
        note += f"; the dashed line marks the {T:g}-year design return period"
    return fig, note


# L-moment ratio curves: tau4 as a function of tau3 for the three-parameter distributions (theory, the same for
# every study: computed once per process on a grid of t3).
_T3_GRID = tuple(round(-0.2 + 0.02 * i, 2) for i in range(41))
# Pearson III tau4 as a polynomial in tau3, coefficients of t3^0..t3^8 (Hosking & Wallis 1997, Regional Frequency
# Analysis, appendix A: polynomial approximations of tau4 in terms of tau3); within 3e-4 of the exact quadrature
# (lmoments.tau4_on_curve) on this grid, far below a pixel of the diagram.
_PE3_TAU4_POLY = (0.12240, 0.0, 0.30115, 0.0, 0.95812, 0.0, -0.57488, 0.0, 0.19383)


@functools.lru_cache(maxsize=None)
def _curve(name: str) -> tuple[float, ...]:
    import numpy as np

    from aquascope_core.methods.lmoments import tau4_on_curve

    t3 = np.asarray(_T3_GRID)
    if name == "gpa":
        return tuple(t3 * (1 + 5 * t3) / (5 + t3))
    if name == "bound":
        return tuple((5 * t3 * t3 - 1) / 4)
    if name == "pe3":  # a drawn curve: the polynomial, not the quadrature (scipy's gammaincinv takes seconds on this grid)
        return tuple(float(sum(a * t3 ** k for k, a in enumerate(_PE3_TAU4_POLY))) for t3 in _T3_GRID)
    return tuple(float(v) for v in np.asarray(tau4_on_curve(name, t3), dtype=float))


def lmoment_diagram(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    lm = payload.get("sample_lmoments") or {}
    if not isinstance(lm.get("t3"), (int, float)) or not isinstance(lm.get("t4"), (int, float)):
        raise FigureDataMissing("the L-moment ratio diagram needs the sample's L-skewness and L-kurtosis "
                                "('sample_lmoments.t3' and '.t4')", argument="sample_lmoments")
    t3s, t4s = float(lm["t3"]), float(lm["t4"])
    fig, ax = new_figure(height=4.0, width=5.2)
    t = _T3_GRID
    for i, (name, label) in enumerate((("gev", "GEV"), ("glo", "generalised logistic"),
                                       ("pe3", "Pearson type III"), ("gpa", "generalised Pareto"))):
        ax.plot(t, _curve(name), color=colour(i), linewidth=1.3, label=label)
    ax.plot(t, _curve("bound"), color=colour("grey"), linewidth=0.9, linestyle=":", label="lower bound")
    ax.plot([0.1699], [0.1504], "^", color="black", markersize=5, label="Gumbel")
    ax.plot([0.0], [0.1226], "v", color="black", markersize=5, label="normal")
    ax.plot([t3s], [t4s], "*", color=colour("vermilion"), markersize=13, markeredgecolor="black",
            markeredgewidth=0.6, label=f"sample (t3 = {t3s:.3f}, t4 = {t4s:.3f})", zorder=6)
    ax.set_xlim(-0.2, 0.6)
    ax.set_ylim(-0.1, 0.5)
    ax.set_xlabel("L-skewness t3 (dimensionless)")
    ax.set_ylabel("L-kurtosis t4 (dimensionless)")
    ax.legend(loc="upper left", fontsize=7.5)
    n = payload.get("n") or payload.get("n_years")
    note = "the sample's L-moment ratios against the curves of the candidate distributions"
    if n:
        note += f" ({n} annual maxima)"
    return fig, note


def _slope_text(slope: float) -> str:
    """The slope as the step's table and summary print it (-42.0, not -42 by "%.3g")."""
    from aquascope_core.tools.context import summary_number

    return summary_number(slope)


_UNIT_QUANTITY = {"m3/s": "Discharge", "ft3/s": "Discharge", "l/s": "Discharge", "mm": "Depth", "mm/d": "Rate",
                  "m": "Level", "degC": "Temperature"}


_TREND_TITLE = "Series with Sen's slope"


def _tested_quantity(context: Mapping[str, Any], unit: Any) -> str:
    """What the tested series is, for its axis: the plan's caption names it ("Annual peaks with Sen's slope" ->
    "Annual peaks"); without one (the figure's default caption), the step's title ("Trend in the systematic peaks"
    -> "Systematic peaks"); without either, the quantity its unit measures ("Discharge")."""
    import re

    caption = str(context.get("caption") or "")
    head = caption.split(" with ")[0].strip() if caption and caption != _TREND_TITLE else ""
    if not head:
        m = re.match(r"(?i)\s*trends? (?:in|of) (?:the )?(.+)", str(context.get("title") or ""))
        head = m.group(1).strip() if m else ""
    return head[:1].upper() + head[1:] if head else _UNIT_QUANTITY.get(str(unit or ""), "Value")


def trend(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    (tr,) = need(payload, "trend", kind="trend")
    args = context.get("arguments") or {}
    values = args.get("values")
    times = args.get("times")
    if not isinstance(values, list) or not values:
        raise FigureDataMissing("the trend figure needs the tested series (the step's 'values' argument)",
                                argument="values")
    ys = numbers(values)
    if not isinstance(times, list) or len(times) != len(ys):
        times = list(range(1, len(ys) + 1))
    try:
        xs = [float(t) for t in times]
    except (TypeError, ValueError):
        xs = [float(i) for i in range(1, len(ys) + 1)]
    fig, ax = new_figure()
    quantity = _tested_quantity(context, payload.get("unit") or args.get("unit"))
    ax.plot(xs, ys, "o-", color=colour("blue"), markersize=3, linewidth=0.7, label=quantity[0].lower() + quantity[1:])
    tnote = _trend_line(ax, tr, xs)
    ax.set_ylabel(unit_label(payload.get("unit") or args.get("unit"), quantity))
    ax.set_xlabel("Year" if min(xs) > 1000 else str(tr.get("time_unit") or "Time step").capitalize())
    legend_outside(ax)
    st = payload.get("station") or context.get("station")
    who = station_label({"station": st}) if isinstance(st, Mapping) else ""
    span = f"{min(xs):.0f}-{max(xs):.0f}" if min(xs) > 1000 else ""
    what = ", ".join(p for p in (who, span, f"{len(ys)} values") if p)
    return fig, f"{what}; {tnote}" if tnote else what


def _trend_headline(context: Mapping[str, Any]) -> str:
    """'Systematic peaks with Sen's slope': the tested series named (from the step's title), not 'Series'."""
    quantity = _tested_quantity({**context, "caption": None}, None)
    return f"{quantity} with Sen's slope" if quantity not in _UNIT_QUANTITY.values() and quantity != "Value" else ""


MAKERS = [
    FigureMaker("annual_maxima", "Annual maxima", annual_maxima, "flood",
                folds={"trend_test": "trend", "bulletin17c_ema": None}),
    FigureMaker("frequency_curve", "Flood frequency curve", frequency_curve, "flood"),
    FigureMaker("lmoment_diagram", "L-moment ratio diagram", lmoment_diagram, "flood"),
    FigureMaker("trend", _TREND_TITLE, trend, "flood", headline=_trend_headline),
]
