"""Supply figures: the reliability curve of the inflow against the demand, the failures by year, and the
storage-yield curve of the sequent-peak analysis."""

from __future__ import annotations

import math
from typing import Any, Mapping

from aquascope_core.deliverables.figures_base import (FigureDataMissing, FigureMaker, legend_outside, need, numbers,
                                                      plain_log, station_label)
from aquascope_core.deliverables.style import colour

__all__ = ["MAKERS"]


def reliability_curve(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    """Monthly inflows ranked (the share of months each is reached) with the demand: the run-of-river reliability
    a demand would have without storage."""
    from aquascope_core.deliverables.figures_flow import probability_axis
    from aquascope_core.deliverables.style import new_figure

    (flows,) = need(payload, "monthly.flow_m3s", kind="reliability curve")
    vals = sorted((v for v in numbers(flows) if math.isfinite(v)), reverse=True)
    n = len(vals)
    if n < 12:
        raise FigureDataMissing("the reliability curve needs at least a year of monthly inflows", argument="monthly")
    pct = [100.0 * (i + 1) / (n + 1) for i in range(n)]
    fig, ax = new_figure()
    tf = probability_axis(ax, pct, label="Share of months the flow is reached (%), normal scale")
    ax.plot(tf(pct), vals, color=colour("blue"), linewidth=1.5, label="monthly mean inflow")
    demand = (payload.get("demand") or {}).get("demand_m3s")
    note = ", ".join(p for p in (station_label(payload), f"{n} months") if p)
    if isinstance(demand, (int, float)) and demand > 0:
        ax.axhline(demand, color=colour("vermilion"), linestyle="--", linewidth=1.2, label=f"demand {demand:.3g} m³/s")
        note += "; the dashed line is the demand"
    if vals[-1] > 0:
        plain_log(ax)
    ax.set_ylabel("Monthly mean inflow (m³/s)")
    legend_outside(ax)
    return fig, note


def failures_by_year(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    (rows,) = need(payload, "by_year", kind="failures by year")
    rows = [r for r in rows if isinstance(r, Mapping) and r.get("year") is not None]
    daily = any("failed_days" in r for r in rows)
    key = "failed_days" if daily else "failed_months"
    if not rows or not any(key in r for r in rows):
        raise FigureDataMissing(f"the failures figure needs '{key}' in each year of 'by_year'", argument="by_year")
    years = [int(r["year"]) for r in rows]
    failed = [float(r.get(key) or 0) for r in rows]
    rel = numbers([r.get("reliability_volume") for r in rows])
    fig, (ax, ax2) = new_figure(2, 1, height=4.0, sharex=True, gridspec_kw={"height_ratios": [1.3, 1]})
    ax.bar(years, failed, color=[colour("vermilion") if f > 0 else colour("grey") for f in failed], width=0.8)
    ax.set_ylabel(f"Failed {'days' if daily else 'months'}\nper year")
    ax.grid(axis="x", visible=False)
    ax2.plot(years, [100 * v for v in rel], "o-", color=colour("blue"), markersize=2.8, linewidth=0.8)
    ax2.set_ylabel("Volume reliability\nby year (%)")
    ax2.set_xlabel("Year")
    lo = min((v for v in rel if math.isfinite(v)), default=1.0)
    ax2.set_ylim(max(0.0, 100 * lo - 5), 101)
    n_fail = sum(f > 0 for f in failed)
    rt = payload.get("reliability_time_pct")
    note = f"{n_fail} of {len(years)} years with a failure"
    if isinstance(rt, (int, float)):
        note += f"; reliability by time {rt:.1f} % over the record"
    basis = payload.get("year_basis")
    if basis:
        note += f" ({basis})"
    return fig, note


def storage_yield(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    ys, ss = need(payload, "storage_yield.yield_m3s", "storage_yield.required_storage_hm3", kind="storage-yield")
    ys, ss = numbers(ys), numbers(ss)
    fig, ax = new_figure()
    ax.plot(ys, ss, "o-", color=colour("blue"), markersize=3.5, label="storage needed (sequent peak)")
    demand, need_s = payload.get("demand_m3s"), payload.get("required_storage_hm3")
    if isinstance(demand, (int, float)) and isinstance(need_s, (int, float)):
        ax.plot([demand], [need_s], "D", color=colour("vermilion"), markersize=7, markeredgecolor="black",
                markeredgewidth=0.5, zorder=5, label=f"the demand: {need_s:.3g} hm³ needed")
    avail = payload.get("storage_available_hm3")
    if isinstance(avail, (int, float)):
        ax.axhline(avail, color=colour("green"), linestyle="--", linewidth=1.2, label=f"storage available {avail:.3g} hm³")
    mean = payload.get("mean_flow_m3s")
    if isinstance(mean, (int, float)):
        top = ax.secondary_xaxis("top", functions=(lambda y: 100 * y / mean, lambda f: f * mean / 100))
        top.set_xlabel("Yield as a share of the mean flow (%)")
    ax.set_xlabel("Yield (m³/s)")
    ax.set_ylabel("Storage (hm³)")
    positive = [v for v in ss if math.isfinite(v) and v > 0]
    if positive and max(positive) / min(positive) > 50:
        plain_log(ax)  # the small storages near the demand stay readable beside the large ones
    else:
        ax.set_ylim(bottom=0)
    legend_outside(ax)
    cp = payload.get("critical_period") or {}
    note = "storage needed to supply each yield through the record"
    if cp.get("start"):
        note += f"; critical period for the demand {cp['start']} to {cp.get('end')}"
    return fig, note


MAKERS = [
    FigureMaker("reliability_curve", "Reliability of the inflow against the demand", reliability_curve, "supply"),
    FigureMaker("failures_by_year", "Supply failures by year", failures_by_year, "supply"),
    FigureMaker("storage_yield", "Storage-yield curve", storage_yield, "supply"),
]
