"""Drought figures: the index strip (SPI/SPEI/SSI/SGI by month in the WMO class colours), drought events,
propagation from meteorological to hydrological drought, and groundwater levels with their trend."""

from __future__ import annotations

import math
from typing import Any, Mapping

from aquascope_core.deliverables.figures_base import (FigureDataMissing, FigureMaker, column_bars, date_axis,
                                                      legend_outside, need, numbers)
from aquascope_core.deliverables.figures_flow import plot_dates
from aquascope_core.deliverables.style import DROUGHT_CLASSES, colour
from aquascope_core.tools.context import summary_number as _summary_number  # the slope as its table prints it
from aquascope_core.verify import sig_text

__all__ = ["MAKERS", "class_colour"]


def class_colour(value: float) -> str:
    for lo, hi, _label, c in DROUGHT_CLASSES:
        if lo <= value < hi or (hi == float("inf") and value >= lo):
            return c
    return "#FFFFFF"


def _class_bars(ax: Any, points: list[tuple[Any, float]], width_days: float = 28.0) -> None:
    """A bar a month coloured by its class (one compound path per class, see column_bars)."""
    from matplotlib.dates import date2num

    if not points:
        return
    xs = [float(v) for v in date2num([x for x, _ in points])]
    column_bars(ax, xs, [v for _, v in points], [class_colour(v) for _, v in points], width_days)
    half = width_days / 2
    ax.set_xlim(min(xs) - 3 * half, max(xs) + 3 * half)


def _class_legend(ax: Any) -> None:
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=c, edgecolor="#808080", linewidth=0.3,
                     label=f"{label} ({'≥ 2' if hi == float('inf') else ('< -2' if lo == float('-inf') else f'{lo:g} to {hi:g}')})")
               for lo, hi, label, c in DROUGHT_CLASSES]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.32), ncol=4, fontsize=7)


def drought_strip(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import WIDTH_IN, new_figure

    (series,) = need(payload, "series", kind="drought index")
    rows = [s for s in series if isinstance(s, Mapping) and s.get("ok", True) and s.get("dates") and s.get("values")]
    if not rows:
        raise FigureDataMissing("the drought index figure needs at least one index series with dates and values",
                                argument="series")
    rows = rows[:4]
    fig, axes = new_figure(len(rows), 1, height=1.25 + 1.05 * len(rows), width=WIDTH_IN, sharex=True, squeeze=False)
    status_month = payload.get("status_month")
    for ax, s in zip(axes[:, 0], rows):
        xs = plot_dates(s["dates"])
        vals = numbers(s["values"])
        keep = [(x, v) for x, v in zip(xs, vals) if math.isfinite(v)]
        _class_bars(ax, keep)
        ax.axhline(0, color="#606060", linewidth=0.5)
        for y in (-1, -1.5, -2):
            ax.axhline(y, color="#A0A0A0", linewidth=0.4, linestyle=":")
        ax.set_ylim(-3.5, 3.5)
        ax.set_yticks([-3, -2, -1, 0, 1, 2, 3])
        ax.set_ylabel(f"{s.get('index')}\n(–)", fontsize=8)
        ax.grid(axis="x", visible=False)
        latest = s.get("latest") or {}
        if status_month and latest.get("date") == status_month and isinstance(latest.get("value"), (int, float)):
            (xl,) = plot_dates([status_month])
            ax.plot([xl], [latest["value"]], "v", color="black", markersize=5)
            ax.text(0.995, 0.95, f"{s.get('index')} at {status_month}: {sig_text(latest['value'])}", transform=ax.transAxes,
                    ha="right", va="top", fontsize=7.5,
                    bbox={"boxstyle": "round,pad=0.25", "fc": "white", "ec": "#BFBFBF", "lw": 0.5})
    axes[-1, 0].set_xlabel("Month")
    _class_legend(axes[-1, 0])
    index = payload.get("index") or "index"
    period = payload.get("period") or {}
    note = (f"{index} at {', '.join(str(s.get('scale_months')) for s in rows)}-month time scales, "
            f"{period.get('first_month', '')} to {period.get('last_month', '')}; bars coloured by the WMO (2012) "
            f"classes; {payload.get('distribution') or ''}").rstrip("; ")
    return fig, note


def drought_events(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from datetime import timedelta

    from aquascope_core.deliverables.style import new_figure

    (by_index,) = need(payload, "by_index", kind="drought events")
    rows = [r for r in by_index if isinstance(r, Mapping) and r.get("events") is not None]
    if not rows or not any(r.get("events") for r in rows):
        raise FigureDataMissing("the drought events figure needs at least one event in 'by_index[].events'",
                                argument="by_index")
    fig, ax = new_figure(height=1.2 + 0.55 * len(rows))
    sev_max = max((float(e.get("severity") or 0) for r in rows for e in r["events"]), default=1.0) or 1.0
    for i, r in enumerate(rows):
        for e in r["events"]:
            (a,) = plot_dates([e["onset"]])
            (b,) = plot_dates([e["end"]])
            width = (b - a) + timedelta(days=30)
            shade = 0.25 + 0.75 * min(1.0, float(e.get("severity") or 0) / sev_max)
            ax.barh(i, width, left=a - timedelta(days=15), height=0.6, color=colour("vermilion"), alpha=shade,
                    edgecolor="none")
        longest = r.get("most_severe") or {}
        if longest.get("onset"):
            (a,) = plot_dates([longest["onset"]])
            ax.annotate(f"most severe: {longest['onset']} to {longest.get('end')}", xy=(a, i - 0.32), fontsize=7,
                        xytext=(0, 1.5), textcoords="offset points", va="bottom")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([str(r.get("index")) for r in rows])
    ax.set_ylim(len(rows) - 0.5, -0.8)
    ax.set_xlabel("Month")
    ax.grid(axis="y", visible=False)
    thr = payload.get("threshold")
    note = (f"each bar is a drought event (index at or below {thr:g})" if isinstance(thr, (int, float))
            else "each bar is a drought event")
    note += "; darker bars are more severe (cumulative deficit, index-months)"
    return fig, note


def propagation(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    scales, lags, corr = need(payload, "scales", "lags", "correlation", kind="drought propagation")
    grid = [numbers(row) for row in corr]
    if len(grid) != len(scales) or any(len(row) != len(lags) for row in grid):
        raise FigureDataMissing("the propagation figure needs a correlation for every time scale and lag",
                                argument="correlation")
    fig, ax = new_figure(height=3.4, width=5.6)
    im = ax.imshow([list(r) for r in zip(*grid)], aspect="auto", origin="lower", cmap="viridis",
                   extent=(min(scales) - 0.5, max(scales) + 0.5, min(lags) - 0.5, max(lags) + 0.5))
    cb = fig.colorbar(im, ax=ax, pad=0.02)
    cb.set_label(f"{str(payload.get('correlation_type') or 'pearson').capitalize()} correlation (–)")
    best = payload.get("best") or {}
    if best.get("scale_months") is not None:
        ax.plot([best["scale_months"]], [best.get("lag_months", 0)], "*", color="white", markersize=13,
                markeredgecolor="black", markeredgewidth=0.7)
        ax.annotate(f"strongest: SPI-{best['scale_months']}, lag {best.get('lag_months', 0)} months, "
                    f"r = {best.get('r', float('nan')):.2f}", xy=(best["scale_months"], best.get("lag_months", 0)),
                    xytext=(8, 6), textcoords="offset points", fontsize=7.5, color="white",
                    bbox={"boxstyle": "round,pad=0.2", "fc": "#00000088", "ec": "none"})
    ax.set_xlabel("SPI time scale (months)")
    ax.set_ylabel("Lag of the response (months)")
    ax.grid(False)
    resp = payload.get("response_index") or "the response index"
    return fig, f"correlation of {resp} with SPI by time scale and lag; the star marks the strongest"


def groundwater_levels(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    dates, values = need(payload, "monthly.dates", "monthly.values", kind="groundwater levels")
    xs = plot_dates(dates)
    ys = numbers(values)
    fig, ax = new_figure()
    ax.plot(xs, ys, "o-", color=colour("blue"), markersize=3, linewidth=0.9, label="monthly mean level")
    missing = [x for x, y in zip(xs, ys) if not math.isfinite(y)]
    for i, x in enumerate(missing):
        ax.axvspan(x, x, color=colour("vermilion"), alpha=0.15, linewidth=6, label="month without data" if i == 0 else None)
    slope = payload.get("sen_slope")
    good = [(x, y) for x, y in zip(xs, ys) if math.isfinite(y)]
    note = ""
    if isinstance(slope, (int, float)) and len(good) >= 2:
        # Sen's line drawn through the median date and the median level, with the payload's slope (per year)
        import statistics

        x_mid = sorted(x for x, _ in good)[len(good) // 2]
        y_mid = statistics.median(y for _, y in good)
        x0, x1 = good[0][0], good[-1][0]
        y0 = y_mid + slope * (x0 - x_mid).days / 365.25
        y1 = y_mid + slope * (x1 - x_mid).days / 365.25
        word = payload.get("trend") or ""
        p = payload.get("p_value")
        ax.plot([x0, x1], [y0, y1], "--", color=colour("vermilion"), linewidth=1.3,
                label=f"Sen's slope {'+' if slope > 0 else ''}{_summary_number(slope)} {payload.get('slope_unit') or ''} ({word}"
                      + (f", p = {p:.3g})" if isinstance(p, (int, float)) else ")"))
        note = f"the dashed line has Sen's slope, drawn through the median month and level ({payload.get('basis')} test)"
    ax.set_ylabel(f"Groundwater level ({payload.get('unit') or ''})")
    ax.set_xlabel("Month")
    date_axis(ax)
    legend_outside(ax)
    period = payload.get("period") or {}
    return fig, "; ".join(p for p in (f"{period.get('first_month', '')} to {period.get('last_month', '')}", note) if p)


MAKERS = [
    FigureMaker("drought_strip", "Drought index by month", drought_strip, "drought"),
    FigureMaker("drought_events", "Drought events", drought_events, "drought"),
    FigureMaker("propagation", "Drought propagation", propagation, "drought"),
    FigureMaker("groundwater_levels", "Groundwater levels and their trend", groundwater_levels, "drought"),
]

