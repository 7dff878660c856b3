"""Rainfall-runoff figures: the calibration diagnostics (observed against simulated, the residuals, the calibration
and validation periods with their scores)."""

from __future__ import annotations

import math
from typing import Any, Mapping

from aquascope_core.deliverables.figures_base import (FigureDataMissing, FigureMaker, column_bars, need, numbers,
                                                      station_label)
from aquascope_core.deliverables.figures_flow import plot_dates
from aquascope_core.deliverables.style import colour

__all__ = ["MAKERS"]


def _score(part: Mapping[str, Any] | None) -> str:
    part = part or {}
    bits = [f"{k.upper()} {part[k]:.2f}" for k in ("nse", "kge") if isinstance(part.get(k), (int, float))]
    return ", ".join(bits)


def rainfall_runoff(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from datetime import date

    from aquascope_core.deliverables.style import WIDTH_IN, new_figure

    dates, obs, sim = need(payload, "plot.dates", "plot.observed", "plot.simulated", kind="rainfall-runoff")
    xs = plot_dates(dates)
    o, s = numbers(obs), numbers(sim)
    if len(o) != len(xs) or len(s) != len(xs):
        raise FigureDataMissing("the rainfall-runoff figure needs observed and simulated values on the same months",
                                argument="plot")
    plot = payload["plot"]
    unit = plot.get("unit") or payload.get("unit") or "mm/d"
    fig = new_figure(height=5.0, width=WIDTH_IN)[0]
    fig.clf()
    grid = fig.add_gridspec(2, 2, height_ratios=[1.5, 1], width_ratios=[2.2, 1])
    ax = fig.add_subplot(grid[0, :])
    axr = fig.add_subplot(grid[1, 0], sharex=ax)
    axs = fig.add_subplot(grid[1, 1])
    ax.plot(xs, o, color="black", linewidth=0.9, label="observed")
    ax.plot(xs, s, color=colour("vermilion"), linewidth=0.9, label="simulated (GR4J)")
    periods = []
    for key, name, c in (("calibration_period", "calibration", colour("sky")),
                         ("validation_period", "validation", colour("yellow"))):
        per = plot.get(key) or []
        if len(per) == 2:
            a, b = (date.fromisoformat(str(d)[:10]) for d in per)
            for axis in (ax, axr):
                axis.axvspan(a, b, color=c, alpha=0.22, linewidth=0)
            score = _score(payload.get(name))
            # the months, not only the years: a split inside a year read as overlapping periods ("1958-1972",
            # "1972-1987")
            ax.text(a, 0.98, f" {name.capitalize()}, {a:%b %Y} to {b:%b %Y}" + (f"\n {score}" if score else ""),
                    transform=ax.get_xaxis_transform(), fontsize=7, va="top")
            periods.append(name)
    shown = unit.replace('mm/d', 'mm/day')
    ax.set_ylabel(f"Monthly mean runoff\n({shown})")
    finite = [v for v in (*o, *s) if math.isfinite(v)]
    ax.set_ylim(0, max(finite) * 1.3 if finite else 1.0)  # head room for the periods' labels inside the axes
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=7.5, ncol=2, frameon=False)
    res = [b - a if math.isfinite(a) and math.isfinite(b) else math.nan for a, b in zip(o, s)]
    from matplotlib.dates import date2num

    column_bars(axr, [float(v) for v in date2num(xs)], res,
                [colour("vermilion") if math.isfinite(r) and r > 0 else colour("blue") for r in res], 25.0)
    axr.axhline(0, color="#606060", linewidth=0.6)
    axr.set_ylabel(f"Simulated − observed\n({shown})")
    axr.set_xlabel("Year")

    pairs = [(a, b) for a, b in zip(o, s) if math.isfinite(a) and math.isfinite(b)]
    axs.plot([a for a, _ in pairs], [b for _, b in pairs], "o", color=colour("blue"), markersize=2.2, alpha=0.6)
    top = max(max(a, b) for a, b in pairs) * 1.05 if pairs else 1.0
    axs.plot([0, top], [0, top], color="#606060", linewidth=0.8, linestyle="--", label="1:1 line")
    axs.legend(loc="upper left", fontsize=6.5)
    axs.set_xlim(0, top)
    axs.set_ylim(0, top)
    axs.set_aspect("equal")
    axs.set_xlabel(f"Observed ({shown})")
    axs.set_ylabel(f"Simulated ({shown})")
    fig.set_layout_engine("constrained")
    note = ", ".join(p for p in (station_label(payload), "observed and GR4J-simulated runoff as monthly means of the "
                                 "daily values, one continuous run with the calibrated parameters") if p)
    if periods:
        note += "; shaded: the " + " and ".join(periods) + " periods, each with its NSE and KGE on the daily flows"
    note += ("; below, the monthly residuals (orange where the simulation is above the observation, blue where "
             "below) and observed against simulated months with the 1:1 line")
    return fig, note


MAKERS = [FigureMaker("rainfall_runoff", "Rainfall-runoff model diagnostics", rainfall_runoff, "model")]
