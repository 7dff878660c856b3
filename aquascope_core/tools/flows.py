"""Flow-statistics tools: a station's daily discharge through the flow methods.

Each tool reads a daily discharge record (``source``, ``station_id``, ``variable``, optionally a
``start``/``end`` slice) through the run's :class:`~aquascope_core.tools.context.DataContext`, calls
one method of :mod:`aquascope_core.methods.flows`, :mod:`~aquascope_core.methods.baseflow` or
:mod:`~aquascope_core.methods.signatures`, and returns its payload with the station, the unit the
record came in and a one-line ``summary``. The record is never filled: a method that cannot work
across a gap (the baseflow filters) refuses and names it, and the step can be rerun on a gap-free
``start``/``end`` slice.
"""

from __future__ import annotations

from typing import Any, Literal, Sequence

from aquascope_core.result import finish, resolved_parameters
from aquascope_core.tools.context import DataContext, provenance_rows, resolve, station_fields
from aquascope_core.tools.plotdata import plot_series
from aquascope_core.tools.station import STATION_ARGS
from aquascope_core.toolspec import ToolSpec

__all__ = [
    "flow_duration_curve",
    "annual_minimum_flows",
    "low_flow_frequency",
    "lyne_hollick_baseflow",
    "eckhardt_baseflow",
    "mean_annual_flow",
    "runoff_ratio",
    "richards_baker_flashiness",
    "flow_seasonality",
    "high_low_flow_events",
    "SPECS",
    "read_record",
]

_SLICE_ARGS = {"start": "first date to read (ISO), default the whole record",
               "end": "last date to read (ISO)"}


def read_record(data: DataContext | None, source: str, station_id: str, variable: str,
                start: str | None = None, end: str | None = None) -> tuple[Any, dict[str, Any], list[dict[str, Any]]]:
    """(series, station fields, provenance rows) of one station record, read through the run's data context."""
    ctx = resolve(data)
    desc = ctx.describe_station(source, station_id)
    s = ctx.fetch_series(source, station_id, variable, start=start, end=end)
    return s, station_fields(desc, source, station_id), provenance_rows(s)


def _unit(series: Any) -> str:
    return str(series.attrs.get("unit") or "")


def _wrap(tool: str, out: dict[str, Any], station: dict[str, Any], variable: str, provenance: list[dict[str, Any]],
          params: dict[str, Any], summary: str | None) -> dict[str, Any]:
    payload = {k: v for k, v in out.items() if k != "meta"}
    payload["station"] = station
    payload["variable"] = variable
    if summary and payload.get("ok", True):
        payload["summary"] = summary
    sources = provenance + [r for r in out.get("meta", {}).get("sources", []) if r.get("name") != "aquascope"]
    return finish(payload, tool, params, sources)


def _params(fn: Any, **kwargs: Any) -> dict[str, Any]:
    return resolved_parameters(fn, kwargs=kwargs)


def _g(x: Any) -> str:
    return "n/a" if x is None else f"{x:.4g}"


# --------------------------------------------------------------------------------------------
# duration curve and low flows


def flow_duration_curve(source: str, station_id: str, variable: str = "discharge", start: str | None = None,
                        end: str | None = None, percentiles: Sequence[float] = (1, 5, 10, 25, 50, 75, 90, 95, 99),
                        plotting_position: Literal["weibull", "gringorten", "cunnane", "hazen"] = "weibull", *,
                        data: DataContext | None = None) -> dict[str, Any]:
    """The period-of-record flow duration curve of a station and its quantiles (Q95 is exceeded 95 % of days)."""
    from aquascope_core.methods import flows

    s, station, prov = read_record(data, source, station_id, variable, start, end)
    unit = _unit(s)
    out = flows.flow_duration_curve(s, percentiles=tuple(percentiles), plotting_position=plotting_position, unit=unit)
    q = out.get("quantiles") or {}
    summary = (f"flow duration curve of {out.get('n'):,} days ({out['period'][0]} to {out['period'][1]}): "
               f"Q5 {_g(q.get('Q5'))}, Q50 {_g(q.get('Q50'))}, Q95 {_g(q.get('Q95'))} {unit}")
    params = _params(flow_duration_curve, source=source, station_id=station_id, variable=variable, start=start, end=end,
                     percentiles=list(percentiles), plotting_position=plotting_position)
    return _wrap("flow_duration_curve", out, station, variable, prov, params, summary)


def annual_minimum_flows(source: str, station_id: str, variable: str = "discharge", start: str | None = None,
                         end: str | None = None, days: int = 7, year_start_month: int = 4, max_missing_days: int = 0,
                         *, data: DataContext | None = None) -> dict[str, Any]:
    """The annual minimum of the n-day mean flow by climatic year (April-March by default), complete years only."""
    from aquascope_core.methods import flows

    s, station, prov = read_record(data, source, station_id, variable, start, end)
    unit = _unit(s)
    out = flows.annual_minimum_flows(s, days=days, year_start_month=year_start_month, max_missing_days=max_missing_days,
                                     unit=unit)
    summary = None
    if out.get("minima"):
        lo = min(range(len(out["minima"])), key=lambda i: out["minima"][i])
        summary = (f"{out['n_years']} annual {days}-day minima (climatic years {out['years'][0]} to {out['years'][-1]}); "
                   f"lowest {_g(out['minima'][lo])} {unit} in climatic year {out['years'][lo]}")
    params = _params(annual_minimum_flows, source=source, station_id=station_id, variable=variable, start=start, end=end,
                     days=days, year_start_month=year_start_month, max_missing_days=max_missing_days)
    return _wrap("annual_minimum_flows", out, station, variable, prov, params, summary)


def low_flow_frequency(source: str, station_id: str, variable: str = "discharge", start: str | None = None,
                       end: str | None = None, days: int = 7, return_period: float = 10.0,
                       distribution: Literal["log_pearson3", "weibull"] = "log_pearson3", year_start_month: int = 4,
                       max_missing_days: int = 0, *, data: DataContext | None = None) -> dict[str, Any]:
    """The n-day low flow of a given recurrence interval (7Q10 by default) from the annual n-day minima."""
    from aquascope_core.methods import flows

    s, station, prov = read_record(data, source, station_id, variable, start, end)
    unit = _unit(s)
    out = flows.low_flow_frequency(s, days=days, return_period=float(return_period), distribution=distribution,
                                   year_start_month=year_start_month, max_missing_days=max_missing_days, unit=unit)
    summary = (f"{out.get('statistic')} = {_g(out.get('value'))} {unit} ({distribution.replace('_', '-')} on "
               f"{out.get('n_years')} annual {days}-day minima)")
    params = _params(low_flow_frequency, source=source, station_id=station_id, variable=variable, start=start, end=end,
                     days=days, return_period=return_period, distribution=distribution,
                     year_start_month=year_start_month, max_missing_days=max_missing_days)
    return _wrap("low_flow_frequency", out, station, variable, prov, params, summary)


# --------------------------------------------------------------------------------------------
# baseflow

BASEFLOW_PLOT_DAYS = 730  # the last two years of the separation, daily, are kept for the figure


def _baseflow_plot(s: Any, out: dict[str, Any]) -> dict[str, Any]:
    """Replace the method's daily baseflow (when returned) by the compact window a figure draws."""
    import pandas as pd

    series = out.pop("baseflow", None)
    if not out.get("ok", True) or not isinstance(series, dict) or not series.get("values"):
        return out
    b = pd.Series(series["values"], index=pd.to_datetime(series["dates"]))
    q = s.reindex(b.index)
    window = b.index[-BASEFLOW_PLOT_DAYS:]
    out["plot"] = {"total": plot_series(q.reindex(window)), "baseflow": plot_series(b.reindex(window)),
                   "window": f"the last {len(window)} days of the record"}
    return out


def lyne_hollick_baseflow(source: str, station_id: str, variable: str = "discharge", start: str | None = None,
                          end: str | None = None, alpha: float = 0.925, passes: int = 3, reflect_days: int = 30,
                          *, data: DataContext | None = None) -> dict[str, Any]:
    """Baseflow index by the Lyne-Hollick filter (Ladson et al. 2013 form) on a gap-free daily record."""
    from aquascope_core.methods import baseflow

    s, station, prov = read_record(data, source, station_id, variable, start, end)
    out = _baseflow_plot(s, baseflow.lyne_hollick_baseflow(s, alpha=float(alpha), passes=passes,
                                                           reflect_days=reflect_days, unit=_unit(s), return_series=True))
    summary = f"baseflow index {_g(out.get('baseflow_index'))} (Lyne-Hollick, alpha {alpha:g}, {passes} passes, {out.get('n'):,} days)"
    params = _params(lyne_hollick_baseflow, source=source, station_id=station_id, variable=variable, start=start,
                     end=end, alpha=alpha, passes=passes, reflect_days=reflect_days)
    return _wrap("lyne_hollick_baseflow", out, station, variable, prov, params, summary)


def eckhardt_baseflow(source: str, station_id: str, variable: str = "discharge", start: str | None = None,
                      end: str | None = None, alpha: float = 0.98, bfi_max: float = 0.80,
                      *, data: DataContext | None = None) -> dict[str, Any]:
    """Baseflow index by the Eckhardt two-parameter filter (state BFImax: it drives the answer)."""
    from aquascope_core.methods import baseflow

    s, station, prov = read_record(data, source, station_id, variable, start, end)
    out = _baseflow_plot(s, baseflow.eckhardt_baseflow(s, alpha=float(alpha), bfi_max=float(bfi_max), unit=_unit(s),
                                                       return_series=True))
    summary = (f"baseflow index {_g(out.get('baseflow_index'))} (Eckhardt, alpha {alpha:g}, BFImax {bfi_max:g}, "
               f"{out.get('n'):,} days)")
    params = _params(eckhardt_baseflow, source=source, station_id=station_id, variable=variable, start=start, end=end,
                     alpha=alpha, bfi_max=bfi_max)
    return _wrap("eckhardt_baseflow", out, station, variable, prov, params, summary)


# --------------------------------------------------------------------------------------------
# signatures


def mean_annual_flow(source: str, station_id: str, variable: str = "discharge", start: str | None = None,
                     end: str | None = None, year_start_month: int = 1, max_missing_days: int = 0,
                     area_km2: float | None = None, *, data: DataContext | None = None) -> dict[str, Any]:
    """Mean annual flow over the complete years (with ``area_km2``, also as a runoff depth in mm/yr)."""
    from aquascope_core.methods import signatures

    s, station, prov = read_record(data, source, station_id, variable, start, end)
    unit = _unit(s)
    out = signatures.mean_annual_flow(s, year_start_month=year_start_month, max_missing_days=max_missing_days,
                                      area_km2=area_km2, unit=unit)
    summary = f"mean annual flow {_g(out.get('mean_annual_flow'))} {unit} over {out.get('n_years')} complete years"
    params = _params(mean_annual_flow, source=source, station_id=station_id, variable=variable, start=start, end=end,
                     year_start_month=year_start_month, max_missing_days=max_missing_days, area_km2=area_km2)
    return _wrap("mean_annual_flow", out, station, variable, prov, params, summary)


def runoff_ratio(source: str, station_id: str, precipitation_source: str | None = None,
                 precipitation_station_id: str | None = None, variable: str = "discharge", start: str | None = None,
                 end: str | None = None, area_km2: float | None = None, *,
                 data: DataContext | None = None) -> dict[str, Any]:
    """Runoff ratio: streamflow depth over precipitation depth on the days both records hold.

    Precipitation comes from the same station unless ``precipitation_source``/``precipitation_station_id``
    name another; a volumetric flow needs ``area_km2``.
    """
    from aquascope_core.methods import signatures

    q, station, prov = read_record(data, source, station_id, variable, start, end)
    p_src, p_id = precipitation_source or source, precipitation_station_id or station_id
    p, _, p_prov = read_record(data, p_src, p_id, "precipitation", start, end)
    out = signatures.runoff_ratio(q, p, area_km2=area_km2, flow_unit=_unit(q), precipitation_unit=_unit(p) or "mm/d")
    out = dict(out)
    out["precipitation_station"] = {"source": p_src, "station_id": p_id}
    summary = f"runoff ratio {_g(out.get('runoff_ratio'))} over {out.get('n_days'):,} days with both records"
    params = _params(runoff_ratio, source=source, station_id=station_id, precipitation_source=precipitation_source,
                     precipitation_station_id=precipitation_station_id, variable=variable, start=start, end=end,
                     area_km2=area_km2)
    return _wrap("runoff_ratio", out, station, variable, prov + [r for r in p_prov if r not in prov], params, summary)


def richards_baker_flashiness(source: str, station_id: str, variable: str = "discharge", start: str | None = None,
                              end: str | None = None, *, data: DataContext | None = None) -> dict[str, Any]:
    """Richards-Baker flashiness index of a daily record (whole record and per complete year)."""
    from aquascope_core.methods import signatures

    s, station, prov = read_record(data, source, station_id, variable, start, end)
    out = signatures.richards_baker_flashiness(s, unit=_unit(s))
    summary = f"Richards-Baker flashiness index {_g(out.get('flashiness_index'))} over {out.get('n_pairs'):,} day pairs"
    params = _params(richards_baker_flashiness, source=source, station_id=station_id, variable=variable, start=start,
                     end=end)
    return _wrap("richards_baker_flashiness", out, station, variable, prov, params, summary)


def flow_seasonality(source: str, station_id: str, variable: str = "discharge", start: str | None = None,
                     end: str | None = None, water_year_start_month: int = 10, *,
                     data: DataContext | None = None) -> dict[str, Any]:
    """The flow regime: monthly mean flows, seasonality index, half-flow date."""
    from aquascope_core.methods import signatures

    s, station, prov = read_record(data, source, station_id, variable, start, end)
    out = signatures.flow_seasonality(s, water_year_start_month=water_year_start_month, unit=_unit(s))
    summary = (f"highest mean flow in month {out.get('month_of_max')}, lowest in month {out.get('month_of_min')}; "
               f"seasonality index {_g(out.get('seasonality_index'))}")
    params = _params(flow_seasonality, source=source, station_id=station_id, variable=variable, start=start, end=end,
                     water_year_start_month=water_year_start_month)
    return _wrap("flow_seasonality", out, station, variable, prov, params, summary)


def high_low_flow_events(source: str, station_id: str, variable: str = "discharge", start: str | None = None,
                         end: str | None = None, high_factor: float = 9.0, low_factor: float = 0.2, *,
                         data: DataContext | None = None) -> dict[str, Any]:
    """Frequency and duration of high flows (> 9 x median) and low flows (< 0.2 x mean), the CAMELS definitions."""
    from aquascope_core.methods import signatures

    s, station, prov = read_record(data, source, station_id, variable, start, end)
    out = signatures.high_low_flow_events(s, high_factor=float(high_factor), low_factor=float(low_factor), unit=_unit(s))
    summary = (f"low flows (below {_g(out.get('low_flow_threshold'))} {_unit(s)}) on {_g(out.get('low_flow_frequency'))} "
               f"days a year; high flows on {_g(out.get('high_flow_frequency'))} days a year")
    params = _params(high_low_flow_events, source=source, station_id=station_id, variable=variable, start=start,
                     end=end, high_factor=high_factor, low_factor=low_factor)
    return _wrap("high_low_flow_events", out, station, variable, prov, params, summary)


# --------------------------------------------------------------------------------------------

_M = "aquascope_core.tools.flows:"
_DAILY = {**STATION_ARGS, **_SLICE_ARGS}
_CAMELS = "Addor et al. (2017) Hydrol. Earth Syst. Sci. 21, 5293-5313"

SPECS = [
    ToolSpec(
        id="flow_duration_curve",
        purpose="Period-of-record flow duration curve of a daily discharge record, with Q5, Q50, Q95 and the FDC slope.",
        kind="station", function=_M + "flow_duration_curve", yields=("flow_duration_curve", "Q95"),
        methods=("flow_duration_curve",),
        gates=({"check": "not_empty", "path": "quantiles.Q95"}, {"check": "unit_present"}),
        figures=("flow_duration_curve",), tables=("flow_quantiles",),
        citation="Vogel & Fennessey (1994) J. Water Resour. Plann. Manage. 120(4), 485-504.",
        arguments={**_DAILY, "percentiles": "exceedance percentages to report (95 gives Q95)",
                   "plotting_position": "weibull (default), gringorten, cunnane or hazen"},
    ),
    ToolSpec(
        id="annual_minimum_flows",
        purpose="Annual n-day minimum flows by climatic year (April-March), complete years only.",
        kind="station", function=_M + "annual_minimum_flows", yields=("annual_minima",),
        methods=("annual_minimum_flows",),
        gates=({"check": "min_years", "value": 10, "path": "n_years"}, {"check": "unit_present"}),
        figures=("annual_minima",), tables=("annual_minima",),
        citation="Riggs (1972) USGS TWRI book 4 ch. B1; Smakhtin (2001) J. Hydrol. 240, 147-186.",
        arguments={**_DAILY, "days": "length of the moving mean (7 for the 7-day minimum)",
                   "year_start_month": "first month of the climatic year (4 = April)",
                   "max_missing_days": "missing days a year may have and still count (0: complete years only)"},
    ),
    ToolSpec(
        id="low_flow_frequency",
        purpose="The n-day low flow of a recurrence interval (7Q10) from annual n-day minima (log-Pearson III or Weibull).",
        kind="station", function=_M + "low_flow_frequency", yields=("7Q10",),
        methods=("low_flow_frequency",),
        gates=({"check": "min_years", "value": 10, "path": "n_years"}, {"check": "not_empty", "path": "value"},
               {"check": "unit_present"}),
        figures=("low_flow_frequency",), tables=("low_flow",),
        citation="Riggs (1972) USGS TWRI book 4 ch. B1; US EPA (1986) Technical guidance manual, book VI.",
        arguments={**_DAILY, "days": "length of the moving mean (7)", "return_period": "recurrence interval in years (10)",
                   "distribution": "log_pearson3 (default) or weibull",
                   "year_start_month": "first month of the climatic year (4 = April)",
                   "max_missing_days": "missing days a year may have and still count"},
    ),
    ToolSpec(
        id="lyne_hollick_baseflow",
        purpose="Baseflow index by the Lyne-Hollick filter (alpha 0.925, 3 passes, 30 reflected days) on a gap-free record.",
        kind="station", function=_M + "lyne_hollick_baseflow", yields=("baseflow_index",),
        methods=("lyne_hollick_baseflow",),
        gates=({"check": "not_empty", "path": "baseflow_index"},),
        figures=("baseflow",),
        tables=("baseflow",),
        citation="Lyne & Hollick (1979); Ladson et al. (2013) Australasian J. Water Resour. 17(1), 25-34.",
        arguments={**_DAILY, "alpha": "filter parameter (0.925 for daily flow)", "passes": "odd number of passes (3)",
                   "reflect_days": "values reflected at each end (30)"},
    ),
    ToolSpec(
        id="eckhardt_baseflow",
        purpose="Baseflow index by the Eckhardt filter; BFImax (0.80 / 0.50 / 0.25) must be stated.",
        kind="station", function=_M + "eckhardt_baseflow", yields=("baseflow_index",),
        methods=("eckhardt_baseflow",),
        gates=({"check": "not_empty", "path": "baseflow_index"},),
        figures=("baseflow",),
        tables=("baseflow",),
        citation="Eckhardt (2005) Hydrol. Process. 19, 507-515.",
        arguments={**_DAILY, "alpha": "recession constant per day (0.98)", "bfi_max": "largest baseflow index (0.80)"},
    ),
    ToolSpec(
        id="mean_annual_flow",
        purpose="Mean annual flow over the complete years; with the catchment area, the mean annual runoff in mm.",
        kind="station", function=_M + "mean_annual_flow", yields=("mean_annual_flow",),
        methods=("mean_annual_flow",),
        gates=({"check": "min_years", "value": 10, "path": "n_years"}, {"check": "unit_present"}),
        figures=("annual_means",),
        tables=("annual_means",),
        citation=_CAMELS + " (q_mean).",
        arguments={**_DAILY, "year_start_month": "first month of the year (1 calendar, 10 water year)",
                   "max_missing_days": "missing days a year may have and still count",
                   "area_km2": "catchment area in km2, for the runoff depth"},
    ),
    ToolSpec(
        id="runoff_ratio",
        purpose="Runoff ratio: streamflow depth over precipitation depth on the days both records hold.",
        kind="station", function=_M + "runoff_ratio", yields=("runoff_ratio",),
        methods=("runoff_ratio",),
        gates=({"check": "not_empty", "path": "runoff_ratio"},),
        citation=_CAMELS + " (runoff_ratio).",
        arguments={**_DAILY, "precipitation_source": "source of the precipitation record (default: the same station)",
                   "precipitation_station_id": "station of the precipitation record (default: the same station)",
                   "area_km2": "catchment area in km2 (needed for a volumetric flow)"},
    ),
    ToolSpec(
        id="richards_baker_flashiness",
        purpose="Richards-Baker flashiness index of a daily discharge record.",
        kind="station", function=_M + "richards_baker_flashiness", yields=("flashiness",),
        methods=("richards_baker_flashiness",),
        gates=({"check": "not_empty", "path": "flashiness_index"},),
        citation="Baker et al. (2004) J. Am. Water Resour. Assoc. 40(2), 503-522.",
        arguments=dict(_DAILY),
    ),
    ToolSpec(
        id="flow_seasonality",
        purpose="The flow regime: monthly mean flows, the month of highest and lowest flow, seasonality index, half-flow date.",
        kind="station", function=_M + "flow_seasonality", yields=("regime",),
        methods=("flow_seasonality",),
        gates=({"check": "not_empty", "path": "monthly_mean_flow"}, {"check": "unit_present"}),
        figures=("regime",), tables=("regime",),
        citation="Walsh & Lawler (1981) Weather 36(7), 201-208; Court (1962) J. Geophys. Res. 67, 4335-4339.",
        arguments={**_DAILY, "water_year_start_month": "first month of the water year for the half-flow date (10)"},
    ),
    ToolSpec(
        id="high_low_flow_events",
        purpose="Frequency and duration of high flows (> 9 x median) and low flows (< 0.2 x mean), CAMELS definitions.",
        kind="station", function=_M + "high_low_flow_events", yields=("high_low_flows",),
        methods=("high_low_flow_events",),
        gates=({"check": "not_empty", "path": "low_flow_frequency"},),
        citation=_CAMELS + "; Addor et al. (2018) Water Resour. Res. 54, 8792-8812.",
        arguments={**_DAILY, "high_factor": "high flow = above this multiple of the median (9)",
                   "low_factor": "low flow = below this multiple of the mean (0.2)"},
    ),
]
