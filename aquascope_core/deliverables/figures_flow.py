"""Flow figures: the gauge record (hydrograph with gaps), flow duration curve, baseflow separation, annual minima,
low-flow frequency, the flow regime and annual means."""

from __future__ import annotations

import math
from datetime import date
from typing import Any, Mapping, Sequence

from aquascope_core.deliverables.figures_base import (FigureDataMissing, FigureMaker, counted, date_axis, legend_outside,
                                                      month_labels,
                                                      need, numbers, plain_log, station_label,
                                                      unit_label)
from aquascope_core.deliverables.style import colour

__all__ = ["MAKERS", "plot_dates", "series_dates", "draw_record", "gap_spans"]


def plot_dates(dates: Sequence[str]) -> list[date]:
    """ISO dates ('1945-01-31') or months ('1945-01', drawn mid-month) as dates."""
    out = []
    for d in dates:
        parts = str(d)[:10].split("-")
        y, m = int(parts[0]), int(parts[1]) if len(parts) > 1 else 7
        out.append(date(y, m, int(parts[2]) if len(parts) > 2 else 15))
    return out


def series_dates(plot: Mapping[str, Any]) -> list[date]:
    """The dates of a payload's compact series: its ``dates``, or one a day (daily form) or a month (monthly form)
    from ``start``."""
    from datetime import timedelta

    if plot.get("dates"):
        return plot_dates(plot["dates"])
    start = plot.get("start")
    n = len(plot.get("mean") or plot.get("values") or [])
    if not start or not n:
        raise FigureDataMissing("the figure needs the series' dates ('dates', or 'start' and its values)",
                                argument="plot.dates")
    if plot.get("form") == "daily":
        (d0,) = plot_dates([start])
        return [d0 + timedelta(days=k) for k in range(n)]
    y, m = (int(p) for p in str(start).split("-")[:2])
    return [date(y + (m - 1 + k) // 12, (m - 1 + k) % 12 + 1, 15) for k in range(n)]


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
                log_ok: bool = True, bars: bool = False) -> tuple[list[date], str]:
    """Draw a payload's compact series on ``ax``; the gaps as shaded spans. Returns the x dates and a period note.

    ``bars`` draws monthly means as bars without the daily range (for precipitation, whose daily range is
    mostly dry days and storms and would hide the means)."""
    xs = series_dates(plot)
    if plot.get("form") == "monthly" and bars:
        ys = numbers(plot.get("mean") or [])
        if not any(math.isfinite(v) for v in ys):
            raise FigureDataMissing("the record figure needs values; every month of the series is empty",
                                    argument="plot.mean")
        lw = max(0.25, 0.92 * 72 * 5.4 / max(len(xs), 1))  # a bar a month, as one line collection
        ax.vlines(xs, 0, [v if math.isfinite(v) else 0.0 for v in ys], colors=colour("blue"), linewidth=lw,
                  label=f"monthly mean {label}".strip())
    elif plot.get("form") == "monthly":
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
    date_axis(ax)
    ax.margins(x=0.01)
    n_gap = len(spans)
    note = f"{xs[0].year}-{xs[-1].year}" + (f"; {counted(n_gap, 'gap')} in the record {'is' if n_gap == 1 else 'are'} shaded" if n_gap else "; no gaps")
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
                              log_ok=variable in ("discharge", ""), bars=variable == "precipitation")
    legend_outside(ax)
    who = station_label(payload)
    res = payload.get("resolution") or "daily"
    form = (f"monthly means of the {res} values" if monthly and variable == "precipitation" else
            f"{res} values summarised by month" if monthly else f"{res} values as recorded")
    return fig, ", ".join(p for p in (who, period) if p) + f" ({form})"


MAKERS = [
    FigureMaker("series", "The gauge record", series, "flow"),
]


# -- flow duration, low flows, baseflow, regime ------------------------------------------------------------------

_PROB_TICKS = (0.1, 1, 5, 10, 20, 50, 80, 90, 95, 99, 99.9)


def probability_axis(ax: Any, pcts: Sequence[float], label: str = "Exceedance probability (%), normal scale") -> Any:
    """The normal-probability x axis of the frequency curve (figures_prob), over these percentages, increasing to
    the right as a duration curve is read; returns the function taking percentages to the axis' data (fractions)."""
    import numpy as np

    from aquascope_core.deliverables.figures_prob import SCALE, ensure_scale

    def tf(p: Any) -> Any:
        return np.clip(np.asarray(p, dtype=float), 0.01, 99.99) / 100.0

    ensure_scale()
    ax.set_xscale(SCALE)
    lo, hi = float(tf(min(pcts))), float(tf(max(pcts)))
    ticks = [t for t in _PROB_TICKS if lo * 80 <= t <= min(99.99, hi * 105 + 0.5)]
    ax.set_xticks([t / 100.0 for t in ticks])
    ax.set_xticklabels([f"{t:g}" for t in ticks])
    ax.set_xlim(lo * 0.8, 1 - (1 - hi) * 0.8)
    ax.set_xlabel(label)
    return tf


def flow_duration_curve(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    pct, flow = need(payload, "curve.exceedance_pct", "curve.flow", kind="flow duration curve")
    pct, flow = numbers(pct), numbers(flow)
    fig, ax = new_figure()
    tf = probability_axis(ax, pct)
    ax.plot(tf(pct), flow, color=colour("blue"), linewidth=1.6, label="flow duration curve")
    q = payload.get("quantiles") or {}
    for name in ("Q5", "Q50", "Q95"):
        v = q.get(name)
        if isinstance(v, (int, float)) and v > 0:
            p = float(name[1:])
            ax.plot([float(tf(p))], [v], "o", color=colour("orange"), markersize=5, zorder=5)
            ax.annotate(f"{name} {v:.3g}", xy=(float(tf(p)), v), xytext=(5, 4), textcoords="offset points",
                        fontsize=7.5)
    needv = payload.get("flow_needed_m3s")
    if isinstance(needv, (int, float)) and needv > 0:
        share = payload.get("days_flow_reaches_need_pct")
        ax.axhline(needv, color=colour("vermilion"), linestyle="--", linewidth=1.1,
                   label=f"flow needed {needv:.3g} {unit_label(payload.get('unit'))}"
                   + (f" (reached on {share:.1f} % of days)" if isinstance(share, (int, float)) else ""))
    if min(v for v in flow if math.isfinite(v)) > 0:
        plain_log(ax)
    ax.set_ylabel(unit_label(payload.get("unit"), "Daily flow"))
    legend_outside(ax)
    period = payload.get("period") or []
    span = f"{str(period[0])[:4]}-{str(period[1])[:4]}" if len(period) == 2 else ""
    pp = payload.get("plotting_position")
    note = ", ".join(p for p in (station_label(payload), span, f"{payload.get('n'):,} days" if payload.get("n") else "")
                     if p)
    if pp:
        note += f"; {str(pp)[:1].upper()}{str(pp)[1:]} plotting positions on a normal-probability scale"
    return fig, note


def annual_minima(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    years, minima = need(payload, "years", "minima", kind="annual minima")
    ys = numbers(minima)
    fig, ax = new_figure()
    ax.bar(years, ys, color=colour("sky"), edgecolor=colour("blue"), linewidth=0.4, width=0.8,
           label=f"annual {payload.get('days', '')}-day minimum".replace(" -day", " "))
    value, stat = payload.get("value"), payload.get("statistic")
    if isinstance(value, (int, float)) and stat:
        ax.axhline(value, color=colour("vermilion"), linestyle="--", linewidth=1.2,
                   label=f"{stat} = {value:.3g} {unit_label(payload.get('unit'))}")
    ax.set_ylabel(unit_label(payload.get("unit"), f"{payload.get('days', 7)}-day minimum flow"))
    start = payload.get("year_start_month")
    ax.set_xlabel("Climatic year" + (f" (starting month {start})" if start else ""))
    legend_outside(ax)
    return fig, ", ".join(p for p in (station_label(payload), f"{min(years)}-{max(years)}", f"{len(ys)} years") if p)


def low_flow_frequency(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    minima, value = need(payload, "minima", "value", kind="low-flow frequency")
    vals = sorted(v for v in numbers(minima) if math.isfinite(v))
    n = len(vals)
    if n < 2:
        raise FigureDataMissing("the low-flow frequency figure needs at least two annual minima", argument="minima")
    # non-exceedance probability of each minimum (Weibull i/(n+1)), drawn on a normal-probability axis
    pct = [100.0 * (i + 1) / (n + 1) for i in range(n)]
    fig, ax = new_figure()
    tf = probability_axis(ax, pct + [1.0], label="Non-exceedance probability (%), normal scale")
    ax.plot(tf(pct), vals, "o", color=colour("blue"), markersize=3.5, markerfacecolor="white",
            label=f"annual {payload.get('days', 7)}-day minima (Weibull plotting positions)")
    p = payload.get("non_exceedance_probability")
    stat = payload.get("statistic") or "design low flow"
    if isinstance(p, (int, float)):
        ax.plot([float(tf(100 * p))], [value], "D", color=colour("vermilion"), markersize=7, markeredgecolor="black",
                markeredgewidth=0.5, zorder=6, label=f"{stat} = {value:.3g} {unit_label(payload.get('unit'))} "
                f"({str(payload.get('distribution') or '').replace('_', '-')})")
    if vals[0] > 0:
        plain_log(ax)
    ax.set_ylabel(unit_label(payload.get("unit"), f"{payload.get('days', 7)}-day minimum flow"))
    legend_outside(ax)
    return fig, ", ".join(p for p in (station_label(payload), f"{n} annual minima") if p) + \
        "; Weibull plotting positions on a normal-probability scale"


def baseflow(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    total, base = need(payload, "plot.total", "plot.baseflow", kind="baseflow separation")
    fig, ax = new_figure()
    xs = series_dates(total)
    q = numbers(total.get("values") or [])
    b = numbers(base.get("values") or [])
    if len(q) != len(xs) or len(b) != len(xs):
        raise FigureDataMissing("the baseflow figure needs streamflow and baseflow on the same days", argument="plot")
    ax.plot(xs, q, color=colour("blue"), linewidth=0.9, label="streamflow")
    ax.fill_between(xs, 0, b, color=colour("orange"), alpha=0.55, linewidth=0, label="baseflow")
    ax.set_ylabel(unit_label(payload.get("unit"), "Daily flow"))
    ax.set_xlabel("Date")
    date_axis(ax)
    ax.set_ylim(bottom=0)
    ax.margins(x=0.01)
    legend_outside(ax)
    bfi = payload.get("baseflow_index")
    method = {"lyne_hollick_baseflow": "Lyne-Hollick filter", "eckhardt_baseflow": "Eckhardt filter"}.get(
        str(payload.get("method")), str(payload.get("method") or "filter"))
    note = ", ".join(p for p in (station_label(payload), (payload.get("plot") or {}).get("window")) if p)
    note += f"; {method}" + (f", baseflow index {bfi:.2f} over the whole record" if isinstance(bfi, (int, float)) else "")
    return fig, note


def regime(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    (monthly,) = need(payload, "monthly_mean_flow", kind="flow regime")
    vals = numbers(monthly)
    if len(vals) != 12:
        raise FigureDataMissing("the flow regime figure needs 12 calendar-month means", argument="monthly_mean_flow")
    fig, ax = new_figure(height=3.2)
    simulated = payload.get("model") is not None
    ax.bar(range(1, 13), vals, color=colour("sky"), edgecolor=colour("blue"), linewidth=0.5,
           label="simulated monthly mean flow" if simulated else "monthly mean flow")
    estimate = (payload.get("estimates") or {}).get("mean_flow") or {}
    mean = payload.get("mean_flow") or estimate.get("estimate")
    unit = payload.get("unit") or estimate.get("unit")
    mean_text = ""
    if isinstance(mean, (int, float)):
        from aquascope_core.verify import sig_text

        mean_text = f"mean flow {sig_text(float(mean), 3)} {unit_label(unit)}".strip()
        ax.axhline(mean, color=colour("vermilion"), linestyle="--", linewidth=1.1, label=mean_text)
    month_labels(ax)
    ax.set_ylabel(unit_label(unit, "Mean flow"))
    legend_outside(ax)
    period = payload.get("period")
    span = f"{str(period[0])[:4]}-{str(period[1])[:4]}" if isinstance(period, list) and len(period) == 2 else ""
    who = station_label(payload) or ("GR4J simulation at the site" if simulated else "")
    note = ", ".join(p for p in (who, span) if p)
    return fig, note + (f"; the dashed line is the {mean_text}" if mean_text else "")


def annual_means(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    years, means = need(payload, "years", "annual_means", kind="annual mean flows")
    fig, ax = new_figure()
    ax.plot(years, numbers(means), "o-", color=colour("blue"), markersize=3, linewidth=0.8, label="annual mean flow")
    m = payload.get("mean_annual_flow")
    if isinstance(m, (int, float)):
        ax.axhline(m, color=colour("vermilion"), linestyle="--", linewidth=1.1, label=f"mean {m:.3g}")
    ax.set_ylabel(unit_label(payload.get("unit"), "Annual mean flow"))
    ax.set_xlabel("Year")
    legend_outside(ax)
    return fig, ", ".join(p for p in (station_label(payload), f"{min(years)}-{max(years)}") if p)


MAKERS += [
    FigureMaker("flow_duration_curve", "Flow duration curve", flow_duration_curve, "flow"),
    FigureMaker("annual_minima", "Annual minimum flows", annual_minima, "flow"),
    FigureMaker("low_flow_frequency", "Low-flow frequency", low_flow_frequency, "flow"),
    FigureMaker("baseflow", "Baseflow separation", baseflow, "flow"),
    FigureMaker("regime", "Monthly flow regime", regime, "flow"),
    FigureMaker("annual_means", "Annual mean flows", annual_means, "flow"),
]
