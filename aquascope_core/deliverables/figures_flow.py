"""Flow figures: the gauge record (hydrograph with gaps), flow duration curve, baseflow separation, annual minima,
low-flow frequency, the flow regime and annual means."""

from __future__ import annotations

import math
from datetime import date
from typing import Any, Mapping, Sequence

from aquascope_core.deliverables.figures_base import (FigureDataMissing, FigureMaker, legend_outside, month_labels,
                                                      need, numbers, plain_log, station_label,
                                                      unit_label)
from aquascope_core.deliverables.style import colour

__all__ = ["MAKERS", "plot_dates", "draw_record", "gap_spans"]


def plot_dates(dates: Sequence[str]) -> list[date]:
    """ISO dates ('1945-01-31') or months ('1945-01', drawn mid-month) as dates."""
    out = []
    for d in dates:
        parts = str(d)[:10].split("-")
        y, m = int(parts[0]), int(parts[1]) if len(parts) > 1 else 7
        out.append(date(y, m, int(parts[2]) if len(parts) > 2 else 15))
    return out


def gap_spans(xs: Sequence[date], ys: Sequence[float]) -> list[tuple[date, date]]:
    """(first, last) of each run of missing values."""
    spans, start = [], None
    for i, (x, y) in enumerate(zip(xs, ys)):
        if not math.isfinite(y):
            start = x if start is None else start
        elif start is not None:
            spans.append((start, xs[i - 1]))
            start = None
    if start is not None:
        spans.append((start, xs[-1]))
    return spans


def _positive_log(ax: Any, values: Sequence[float]) -> bool:
    vals = [v for v in values if math.isfinite(v)]
    if vals and min(vals) > 0 and max(vals) / min(vals) > 100:
        plain_log(ax)
        return True
    return False


def draw_record(ax: Any, plot: Mapping[str, Any], *, label: str, unit: Any, quantity: str,
                log_ok: bool = True) -> tuple[list[date], str]:
    """Draw a payload's compact series on ``ax``; the gaps as shaded spans. Returns the x dates and a period note."""
    xs = plot_dates(need(plot, "dates", kind="record")[0])
    if plot.get("form") == "monthly":
        mean, lo, hi = (numbers(plot.get(k) or []) for k in ("mean", "min", "max"))
        if not any(math.isfinite(v) for v in mean):
            raise FigureDataMissing("the record figure needs values; every month of the series is empty",
                                    argument="plot.mean")
        ax.fill_between(xs, lo, hi, color=colour("sky"), alpha=0.45, linewidth=0, label="monthly minimum to maximum")
        ax.plot(xs, mean, color=colour("blue"), linewidth=0.8, label=f"monthly mean {label}".strip())
        ys = mean
        if log_ok:
            _positive_log(ax, lo + hi)
    else:
        ys = numbers(need(plot, "values", kind="record")[0])
        if not any(math.isfinite(v) for v in ys):
            raise FigureDataMissing("the record figure needs values; the series is empty", argument="plot.values")
        ax.plot(xs, ys, color=colour("blue"), linewidth=0.8, label=label or "recorded")
        if log_ok:
            _positive_log(ax, ys)
    spans = gap_spans(xs, ys)
    for i, (a, b) in enumerate(spans):
        ax.axvspan(a, b, color=colour("vermilion"), alpha=0.15, linewidth=0,
                   label="no data" if i == 0 else None)
    ax.set_ylabel(unit_label(unit, quantity))
    ax.set_xlabel("Date")
    ax.margins(x=0.01)
    n_gap = len(spans)
    note = f"{xs[0].year}-{xs[-1].year}" + (f"; {n_gap} gap(s) in the record are shaded" if n_gap else "; no gaps")
    return xs, note


_QUANTITY = {"discharge": "Discharge", "precipitation": "Precipitation", "groundwater_level": "Groundwater level",
             "air_temperature": "Air temperature", "potential_evapotranspiration": "Potential evapotranspiration",
             "stage": "Stage"}


def series(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    (plot,) = need(payload, "plot", kind="gauge record")
    variable = str(payload.get("variable") or "")
    fig, ax = new_figure()
    monthly = plot.get("form") == "monthly"
    _xs, period = draw_record(ax, plot, label="", unit=payload.get("unit"),
                              quantity=_QUANTITY.get(variable, variable.replace("_", " ").capitalize() or "Value"),
                              log_ok=variable in ("discharge", ""))
    legend_outside(ax)
    who = station_label(payload)
    res = payload.get("resolution") or "daily"
    form = f"{res} values summarised by month" if monthly else f"{res} values as recorded"
    return fig, ", ".join(p for p in (who, period) if p) + f" ({form})"


MAKERS = [
    FigureMaker("series", "The gauge record", series, "flow"),
]
