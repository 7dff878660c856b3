"""Water-quality figures: the samples of each parameter against its guideline, the CCME index (by year when there
are several) against its categories with the failed share of each parameter, and the trend of each parameter."""

from __future__ import annotations

import math
import re
import textwrap
from typing import Any, Mapping

from aquascope_core.deliverables.figures_base import (FigureDataMissing, FigureMaker, counted, dependent, need, numbers,
                                                      unit_label)
from aquascope_core.deliverables.figures_flow import plot_dates
from aquascope_core.deliverables.style import colour

__all__ = ["MAKERS", "MAX_PANELS", "WQI_CATEGORIES"]

MAX_PANELS = 12

# CCME (2001) Water Quality Index 1.0, the categories of the index.
WQI_CATEGORIES = ((0, 44, "Poor", "#8C510A"), (45, 64, "Marginal", "#DFC27D"), (65, 79, "Fair", "#E0E0E0"),
                  (80, 94, "Good", "#80CDC1"), (95, 100, "Excellent", "#01665E"))


def _limits(payload: Mapping[str, Any], context: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Each parameter's (lower, upper) objective: the exceedance step's (guidelines resolved) over the table's."""
    out: dict[str, tuple[Any, Any]] = {}
    for source in (payload, dependent(context, "water_quality_exceedances") or {}):
        rows = source.get("by_parameter") or source.get("parameters") or []
        for r in rows:
            if isinstance(r, Mapping) and (r.get("lower") is not None or r.get("upper") is not None):
                out[str(r.get("parameter"))] = (r.get("lower"), r.get("upper"))
    return out


def samples_by_parameter(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import WIDTH_IN, new_figure

    (params,) = need(payload, "plot.parameters", kind="water-quality samples")
    names = [p for p, v in params.items() if isinstance(v, Mapping) and v.get("dates")][:MAX_PANELS]
    if not names:
        raise FigureDataMissing("the samples figure needs at least one parameter with samples", argument="plot")
    limits = _limits(payload, context)
    ncol = 1 if len(names) == 1 else (2 if len(names) <= 4 else 3)
    nrow = -(-len(names) // ncol)
    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter

    fig, axes = new_figure(nrow, ncol, height=0.6 + 1.55 * nrow, width=WIDTH_IN, squeeze=False)
    all_x = [x for p in names for x in plot_dates(params[p]["dates"])]
    span = (min(all_x), max(all_x))
    n_lines = 0
    for k, ax in enumerate(axes.flat):
        if k >= len(names):
            ax.set_visible(False)
            continue
        p = names[k]
        d = params[p]
        xs = plot_dates(d["dates"])
        ys = numbers(d.get("values") or [])
        lo, hi = limits.get(p, (None, None))
        bad = [(x, y) for x, y in zip(xs, ys) if math.isfinite(y) and ((hi is not None and y > hi)
                                                                     or (lo is not None and y < lo))]
        # markers on the zero line drawn whole, not cut by the axis
        ax.plot(xs, ys, "o", color=colour("blue"), markersize=2.6 if len(xs) > 60 else 3.5, clip_on=False)
        if bad:
            ax.plot([x for x, _ in bad], [y for _, y in bad], "o", color=colour("vermilion"), markersize=4.5)
        for v, style in ((hi, "--"), (lo, ":")):
            if isinstance(v, (int, float)):
                ax.axhline(v, color=colour("vermilion"), linestyle=style, linewidth=1.0)
                n_lines += 1
        unit = unit_label(d.get("unit"))
        finite = [y for y in ys if math.isfinite(y)]
        if _concentration(d.get("unit")) and finite and min(finite) >= 0:
            # a concentration's axis starts at 0 (a linear axis about a flat line of zeros read as negative values)
            top = max([*finite, *(v for v in (hi, lo) if isinstance(v, (int, float)) and v > 0)])
            ax.set_ylim(0, top * 1.08 if top > 0 else 1.0)
            if top == 0:
                ax.text(0.5, 0.55, f"all {len(finite)} samples read 0", transform=ax.transAxes, ha="center",
                        fontsize=7, color=colour("grey"))
        ax.set_title(f"{p} ({unit})" if unit and unit != p else p, fontsize=8, loc="left", fontweight="normal")
        ax.tick_params(labelsize=7)
        locator = AutoDateLocator(minticks=2, maxticks=4)
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))
        if span[0] != span[1]:
            pad = (span[1] - span[0]) * 0.04
            ax.set_xlim(span[0] - pad, span[1] + pad)
    fig.supylabel("Concentration or value (unit in each panel's title)", fontsize=8)
    left = len(params) - len(names)
    note = "samples of each parameter; the dashed line is the upper objective, the dotted line the lower, red points "
    note += "fail it" if n_lines else "(no objective applies)"
    if left > 0:
        note += f"; {counted(left, 'further parameter')} not shown"
    return fig, note


_CONCENTRATION = re.compile(r"^\s*[munpµ]?g\s*/\s*(m?L|l|m3|kg)\s*$|^\s*(cfu|mpn|count)s?\s*/\s*\d*\s*m?L\s*$", re.I)


def _concentration(unit: Any) -> bool:
    """Whether a unit is a concentration (mass or count per volume or mass: mg/L, ug/L, cfu/100 mL)."""
    return bool(unit) and bool(_CONCENTRATION.match(str(unit).replace("μ", "µ")))


def _category(v: float) -> tuple[str, str]:
    for lo, hi, name, c in WQI_CATEGORIES:
        if lo <= round(v) <= hi:
            return name, c
    return "", "#FFFFFF"


def wqi(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    (value,) = need(payload, "wqi", kind="water quality index")
    by_year = [r for r in payload.get("by_year") or [] if isinstance(r, Mapping)
               and isinstance(r.get("wqi"), (int, float))]
    by_param = [r for r in payload.get("by_parameter") or [] if isinstance(r, Mapping)]
    fig, (ax, ax2) = new_figure(1, 2, height=3.4, gridspec_kw={"width_ratios": [1, 1.25]})
    for lo, hi, name, c in WQI_CATEGORIES:
        ax.axhspan(lo - 0.5 if lo else 0, hi + 0.5 if hi < 100 else 100, color=c, alpha=0.55, linewidth=0)
        ax.text(1.01, (lo + hi) / 2, name, transform=ax.get_yaxis_transform(), fontsize=7, va="center")
    if len(by_year) > 1:
        ax.plot([r["year"] for r in by_year], [r["wqi"] for r in by_year], "o-", color="black", markersize=4)
        ax.set_xlabel("Year")
        what = f"by year, {by_year[0]['year']}-{by_year[-1]['year']}"
    else:
        year = (payload.get("period") or {}).get("year")
        ax.bar([0], [value], width=0.5, color="white", edgecolor="black", linewidth=1.0)
        ax.set_xticks([0])
        ax.set_xticklabels([str(year) if year else "index"])
        ax.set_xlim(-1, 1)
        what = f"for {year}" if year else "for the period"
    if len(by_year) <= 1:
        ax.annotate(f"{value:.0f} ({payload.get('category') or _category(value)[0]})", xy=(0, value),
                    xytext=(0, 3), textcoords="offset points", ha="center", va="bottom", fontsize=8.5,
                    fontweight="bold", bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.85})
    ax.set_ylim(0, 100)
    ax.set_ylabel("CCME Water Quality Index (0-100)")
    ax.grid(False)
    if by_param:
        names = [str(r.get("parameter")) for r in by_param]
        frac = [100 * float(r.get("failed_fraction") or 0) for r in by_param]
        ax2.barh(range(len(names)), frac, color=[colour("vermilion") if f > 0 else colour("grey") for f in frac])
        ax2.set_yticks(range(len(names)))
        ax2.set_yticklabels(names, fontsize=7.5)
        ax2.invert_yaxis()
        ax2.set_xlabel("Tests failing the objective (%)")
        ax2.set_xlim(0, max(10.0, max(frac) * 1.15))
        ax2.grid(axis="y", visible=False)
    else:
        ax2.set_visible(False)
    f1, f2, f3 = (payload.get(k) for k in ("f1_scope", "f2_frequency", "f3_amplitude"))
    note = f"the index {what} against the CCME categories"
    if all(isinstance(f, (int, float)) for f in (f1, f2, f3)):
        note += f"; scope F1 {f1:.1f}, frequency F2 {f2:.1f}, amplitude F3 {f3:.1f}"
    return fig, note


def wq_trends(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    (rows,) = need(payload, "trends", kind="water-quality trends")
    rows = [r for r in rows if isinstance(r, Mapping) and r.get("ok") and isinstance(r.get("sen_slope"), (int, float))]
    if not rows:
        raise FigureDataMissing("the trends figure needs at least one parameter with a Sen's slope", argument="trends")
    fig, axes = new_figure(1, len(rows), height=2.9, squeeze=False)
    for ax, r in zip(axes[0], rows):
        ci = r.get("sen_slope_ci") or [None, None]
        c = colour("vermilion") if r.get("significant") else colour("blue")
        if all(isinstance(v, (int, float)) for v in ci):
            ax.plot([0, 0], ci, color=c, linewidth=5, alpha=0.35, solid_capstyle="butt")
        ax.plot([0], [r["sen_slope"]], "D", color=c, markersize=6, markeredgecolor="black", markeredgewidth=0.5)
        ax.axhline(0, color="#606060", linewidth=0.7)
        ax.set_xticks([0])
        ax.set_xticklabels([textwrap.fill(str(r.get("parameter")), 14, break_long_words=False)], fontsize=7.5)
        ax.set_xlim(-1, 1)
        ax.set_ylabel(str(r.get("slope_unit") or "per year").replace("degC", "°C"), fontsize=7.5)
        ax.set_title(f"{r.get('trend')}, p = {r.get('p_value', float('nan')):.2g}", fontsize=7.5, fontweight="normal")
        ax.grid(axis="x", visible=False)
    conf = rows[0].get("sen_slope_confidence")
    note = "Sen's slope of each parameter"
    if isinstance(conf, (int, float)):
        note += f" with its {conf:.0%} confidence interval"
    return fig, note + "; red where the trend is significant"


MAKERS = [
    FigureMaker("samples_by_parameter", "Water-quality samples by parameter", samples_by_parameter, "quality",
                folds={"water_quality_exceedances": None}),
    FigureMaker("wqi", "CCME Water Quality Index", wqi, "quality"),
    FigureMaker("wq_trends", "Trend of each parameter", wq_trends, "quality"),
]
