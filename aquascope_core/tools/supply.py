"""Supply tools: the inflow record, reservoir behaviour, storage-yield and run-of-river reliability.

Flows are in m3/s and monthly volumes in hm3 (1 hm3 = 10^6 m3). A record that its source gives as
a runoff depth (mm/d over the catchment, as the HOLMES catchments do) is converted to a flow with
the station's catchment area, and the payload says so under ``conversion``. Nothing is filled: a
month counts only when every one of its days has a value, and the reservoir tools run on the
longest stretch of consecutive complete months.

A demand is a number and a unit: a flow (``m3/s``, ``l/s``, ``Ml/d``), a volume per year
(``hm3/year``, spread evenly in time) or a fixed volume per month (``hm3/month``). The irrigation
playbook passes a seasonal schedule instead (``demand_schedule``: date ranges with a flow each).
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

import numpy as np
import pandas as pd

from aquascope_core import units
from aquascope_core.errors import InputError, InsufficientDataError, UnitError
from aquascope_core.result import finish, resolved_parameters
from aquascope_core.toolspec import ToolSpec
from aquascope_core.tools.context import DataContext, provenance_rows, resolve, station_fields
from aquascope_core.tools.station import STATION_ARGS

__all__ = ["inflow_record", "simulate_reservoir", "sequent_peak_storage", "run_of_river_reliability",
           "flow_duration_at_demand", "daily_flow_m3s", "demand_flow_m3s", "SPECS"]

log = logging.getLogger(__name__)

SECONDS_PER_DAY = 86_400.0
DAYS_PER_YEAR = 365.25
HM3 = 1e6  # m3
# factors from the one conversion layer (aquascope_core.units)
_FLOW_TO_M3S = {**{u: units.conversion_factor(u, "m3/s") for u in ("m3/s", "l/s", "ft3/s", "Ml/d")},
                "cfs": units.conversion_factor("ft3/s", "m3/s")}
DEMAND_UNITS = ("m3/s", "l/s", "Ml/d", "hm3/year", "hm3/month")
_WORST = 5  # failure events listed in a payload (the largest by shortfall volume)
_SPELLS = 10  # run-of-river failure spells listed (the longest)


# --------------------------------------------------------------------------- units


def demand_flow_m3s(demand: Any, demand_unit: str) -> float:
    """A demand as a mean flow in m3/s (``hm3/month`` over a mean month of 30.44 days)."""
    if demand is None:
        raise InputError("no demand was given: state it as a flow (m3/s) or a volume per year (hm3/year)",
                         argument="demand", recovery="Give demand=... and demand_unit=... .")
    if isinstance(demand, bool):
        raise InputError.bad_value("demand", demand, "a demand greater than 0")
    try:
        d = float(demand)
    except (TypeError, ValueError):
        raise InputError.bad_value("demand", demand, "a demand greater than 0") from None
    if not np.isfinite(d) or d <= 0:
        raise InputError.bad_value("demand", demand, "a demand greater than 0")
    if demand_unit in _FLOW_TO_M3S:
        return d * _FLOW_TO_M3S[demand_unit]
    if demand_unit == "hm3/year":
        return d * HM3 / (DAYS_PER_YEAR * SECONDS_PER_DAY)
    if demand_unit == "hm3/month":
        return d * HM3 / (DAYS_PER_YEAR / 12 * SECONDS_PER_DAY)
    raise UnitError.bad_value("demand_unit", demand_unit, "one of " + ", ".join(DEMAND_UNITS))


def _monthly_demand_hm3(demand: Any, demand_unit: str, months: pd.PeriodIndex) -> np.ndarray:
    """The demand of each month as a volume: a flow times the month's length, or a fixed monthly volume."""
    flow = demand_flow_m3s(demand, demand_unit)
    if demand_unit == "hm3/month":
        return np.full(len(months), float(demand))
    return flow * months.days_in_month.to_numpy() * SECONDS_PER_DAY / HM3


def daily_flow_m3s(ctx: DataContext, source: str, station_id: str, variable: str = "discharge",
                   start: str | None = None, end: str | None = None) -> tuple[pd.Series, dict[str, Any], dict[str, Any], pd.Series]:
    """A station's daily record as a flow in m3/s: (flow, station description, conversion, the series as read)."""
    desc = ctx.describe_station(source, station_id)
    s = ctx.fetch_series(source, station_id, variable, start=start, end=end)
    unit = s.attrs.get("unit")
    if s.attrs.get("resolution", "daily") != "daily":
        raise InputError.bad_value("variable", variable, f"a daily record (the {source} {station_id} record is "
                                   f"{s.attrs.get('resolution')})")
    if unit in _FLOW_TO_M3S:
        factor = _FLOW_TO_M3S[unit]
        note = "as recorded (m3/s)" if unit == "m3/s" else f"{unit} x {factor:.6g} = m3/s"
        conversion = {"from_unit": unit, "factor": factor, "note": note, "area_km2": None}
    elif unit == "mm/d":
        area = desc.get("area_km2")
        if not area:
            raise UnitError(f"the {source} {station_id} record is a runoff depth in mm/d and the station has no "
                            "catchment area to turn it into a flow", argument="variable", value=unit,
                            recovery="Give the record as a flow (m3/s), or a station with a known catchment area.")
        factor = units.conversion_factor("mm/d", "m3/s", area_km2=float(area))  # mm/d over the catchment -> m3/s
        conversion = {"from_unit": "mm/d", "factor": factor, "area_km2": float(area),
                      "note": (f"runoff depth in mm/d converted to a flow with the catchment area of {float(area):,.1f} "
                               f"km2: 1 mm/d = {factor:.4g} m3/s")}
    else:
        raise UnitError(f"the {source} {station_id} {variable} record is in {unit!r}, not a flow or a runoff depth",
                        argument="variable", value=unit, recovery="Use a discharge record in m3/s, l/s, ft3/s or mm/d.")
    values = s.to_numpy(dtype=float) * factor
    if np.any(values < 0):
        raise InputError.bad_value("variable", variable, "a discharge record without negative values")
    flow = pd.Series(values, index=s.index.normalize(), name="flow_m3s")
    return flow, desc, conversion, s


def _complete_months(flow: pd.Series) -> pd.Series:
    """Mean flow (m3/s) of every calendar month whose days all have a value; other months NaN."""
    months = flow.index.to_period("M")
    grouped = flow.groupby(months)
    full = pd.period_range(months[0], months[-1], freq="M")
    count = grouped.count().reindex(full, fill_value=0)
    mean = grouped.mean().reindex(full)
    mean[count.to_numpy() < full.days_in_month.to_numpy()] = np.nan
    return mean


def _longest_run(mask: np.ndarray) -> tuple[int, int]:
    """(start, stop) of the longest run of True in ``mask`` (stop exclusive); (0, 0) when there is none."""
    best, cur_start, best_run = (0, 0), None, 0
    for i, ok in enumerate(list(mask) + [False]):
        if ok and cur_start is None:
            cur_start = i
        elif not ok and cur_start is not None:
            if i - cur_start > best_run:
                best, best_run = (cur_start, i), i - cur_start
            cur_start = None
    return best


def _months_index(months: Sequence[str]) -> pd.PeriodIndex:
    try:
        idx = pd.PeriodIndex(list(months), freq="M")
    except (TypeError, ValueError) as exc:
        raise InputError.bad_value("months", f"<{len(months)} labels>", "months as 'YYYY-MM'") from exc
    if len(idx) and (idx != pd.period_range(idx[0], periods=len(idx), freq="M")).any():
        raise InputError.bad_value("months", f"{idx[0]}..{idx[-1]}", "consecutive months with no gap or repeat")
    return idx


def _monthly_series(inflow_hm3: Sequence[float], months: Sequence[str]) -> tuple[pd.Series, pd.PeriodIndex]:
    idx = _months_index(months)
    values = np.asarray(list(inflow_hm3), dtype=float)
    if values.size != len(idx):
        raise InputError(f"inflow_hm3 has {values.size} values and months {len(idx)}: give one volume per month",
                         argument="inflow_hm3")
    if values.size < 12:
        raise InsufficientDataError(f"{values.size} months of inflow; at least 12 are needed", argument="inflow_hm3")
    return pd.Series(values, index=idx.to_timestamp()), idx


def _pct(x: float | None) -> float | None:
    return None if x is None else 100.0 * x


def _method_sources(out: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in out.get("meta", {}).get("sources", []) if r.get("name") != "aquascope"]


# --------------------------------------------------------------------------- the inflow record


def inflow_record(source: str, station_id: str, variable: str = "discharge", demand: float | None = None,
                  demand_unit: str = "m3/s", start: str | None = None, end: str | None = None, *,
                  data: DataContext | None = None) -> dict[str, Any]:
    """The inflow a supply would draw on: mean flow, annual flows and monthly volumes of a daily record.

    The monthly volumes (hm3) cover the longest stretch of consecutive complete months; the
    months before or after a gap are listed as dropped, never filled. With a demand, the payload
    compares it with the mean flow: a demand above the mean flow cannot be met over the record by
    any storage.
    """
    params = resolved_parameters(inflow_record, (source, station_id), {
        "variable": variable, "demand": demand, "demand_unit": demand_unit, "start": start, "end": end})
    ctx = resolve(data)
    flow, desc, conversion, raw = daily_flow_m3s(ctx, source, station_id, variable, start, end)
    monthly = _complete_months(flow)
    lo, hi = _longest_run(np.isfinite(monthly.to_numpy()))
    if hi - lo < 12:
        raise InsufficientDataError(f"the {source} {station_id} record holds {hi - lo} consecutive complete months; "
                                    "a supply analysis needs at least 12", argument="station_id", value=station_id)
    used = monthly.iloc[lo:hi]
    months = used.index
    seconds = months.days_in_month.to_numpy() * SECONDS_PER_DAY
    volume = used.to_numpy() * seconds / HM3
    mean_flow = float(volume.sum() * HM3 / seconds.sum())
    years_used = len(used) / 12.0
    annual = used.groupby(months.year)
    full_years = [int(y) for y, g in annual if len(g) == 12]
    annual_flow = [float((g.to_numpy() * g.index.days_in_month.to_numpy()).sum() / g.index.days_in_month.to_numpy().sum())
                   for y, g in annual if len(g) == 12]
    span_days = (flow.index[-1] - flow.index[0]).days + 1
    payload: dict[str, Any] = {
        "ok": True,
        "station": station_fields(desc, source, station_id),
        "variable": variable,
        "unit": "m3/s",
        "volume_unit": "hm3",
        "conversion": conversion,
        "record": {"start": flow.index[0].date().isoformat(), "end": flow.index[-1].date().isoformat(),
                   "n_days": int(flow.size), "n_days_missing": int(span_days - flow.size)},
        "period_used": {"start": str(months[0]), "end": str(months[-1])},
        "n_months": int(len(used)),
        "n_years": round(years_used, 2),
        "n_complete_years": len(full_years),
        "months_dropped": int(len(monthly) - len(used)),
        "mean_flow_m3s": mean_flow,
        "mean_annual_volume_hm3": mean_flow * DAYS_PER_YEAR * SECONDS_PER_DAY / HM3,
        "annual": {"years": full_years, "mean_flow_m3s": annual_flow},
        "monthly": {"months": [str(m) for m in months], "volume_hm3": volume, "flow_m3s": used.to_numpy()},
    }
    if annual_flow:
        i = int(np.argmin(annual_flow))
        payload["driest_year"] = {"year": full_years[i], "mean_flow_m3s": annual_flow[i],
                                  "share_of_mean": annual_flow[i] / mean_flow}
    text = (f"{desc.get('name') or station_id}: mean flow {mean_flow:.3g} m3/s over {len(used)} complete months "
            f"({months[0]} to {months[-1]})")
    if demand is not None:
        d = demand_flow_m3s(demand, demand_unit)
        ratio = d / mean_flow
        payload["demand"] = {"demand": float(demand), "demand_unit": demand_unit, "demand_m3s": d,
                             "demand_to_mean_flow": ratio, "demand_to_mean_flow_pct": 100 * ratio,
                             "exceeds_mean_flow": bool(ratio >= 1.0)}
        text += f"; the demand of {d:.3g} m3/s is {100 * ratio:.0f} % of it"
    payload["summary"] = text
    return finish(payload, "inflow_record", params, provenance_rows(raw))


# --------------------------------------------------------------------------- reservoir


def simulate_reservoir(inflow_hm3: Sequence[float], months: Sequence[str], storage_hm3: float, demand: float,
                       demand_unit: str = "m3/s", dead_storage_hm3: float = 0.0,
                       initial_storage_hm3: float | None = None, evaporation_hm3_per_month: float = 0.0,
                       failure_tolerance: float = 0.0, year_start_month: int = 1) -> dict[str, Any]:
    """Monthly behaviour simulation of a reservoir of ``storage_hm3`` meeting ``demand`` when it can.

    Starts full (unless ``initial_storage_hm3``); reliability by time (months), by volume and by
    year, resilience and vulnerability (Hashimoto et al. 1982) of the releases against the demand.
    """
    from aquascope_core.methods import supply as methods

    params = resolved_parameters(simulate_reservoir, (inflow_hm3, months, storage_hm3, demand), {
        "demand_unit": demand_unit, "dead_storage_hm3": dead_storage_hm3, "initial_storage_hm3": initial_storage_hm3,
        "evaporation_hm3_per_month": evaporation_hm3_per_month, "failure_tolerance": failure_tolerance,
        "year_start_month": year_start_month})
    inflow, idx = _monthly_series(inflow_hm3, months)
    demand_hm3 = pd.Series(_monthly_demand_hm3(demand, demand_unit, idx), index=inflow.index)
    out = methods.simulate_reservoir(inflow, demand_hm3, storage_hm3, dead_storage=dead_storage_hm3,
                                     initial_storage=initial_storage_hm3, evaporation=evaporation_hm3_per_month,
                                     failure_tolerance=failure_tolerance, year_start_month=year_start_month,
                                     unit="hm3", return_series=True)
    perf = out["performance"]
    storage = np.asarray(out["series"]["storage"], dtype=float)
    events = sorted(perf["failure_events"], key=lambda e: -e["volume_shortfall"])[:_WORST]
    payload: dict[str, Any] = {
        "method": "simulate_reservoir",
        "ok": out["ok"],
        "unit": "hm3",
        "policy": out["policy"],
        "storage_hm3": out["capacity"],
        "dead_storage_hm3": out["dead_storage"],
        "demand_m3s": demand_flow_m3s(demand, demand_unit),
        "demand_hm3_per_year": float(demand_hm3.sum() / (len(idx) / 12.0)),
        "period": {"start": str(idx[0]), "end": str(idx[-1])},
        "n_months": out["n_periods"],
        "n_complete_years": perf.get("n_complete_years"),
        "reliability_time": perf["reliability_time"],
        "reliability_time_pct": _pct(perf["reliability_time"]),
        "reliability_volume": perf["reliability_volume"],
        "reliability_volume_pct": _pct(perf["reliability_volume"]),
        "reliability_annual": perf["reliability_annual"],
        "reliability_annual_pct": _pct(perf["reliability_annual"]),
        "resilience": perf["resilience"],
        "vulnerability_hm3": perf["vulnerability"],
        "vulnerability_relative": perf["vulnerability_relative"],
        "vulnerability_pct": _pct(perf["vulnerability_relative"]),
        "n_failed_months": perf["n_failed_periods"],
        "n_failure_events": perf["n_failure_events"],
        "mean_failure_duration_months": perf["mean_failure_duration"],
        "max_failure_duration_months": perf["max_failure_duration"],
        "worst_failures": [{"start": str(idx[e["start"]]), "end": str(idx[e["end"]]), "months": e["duration"],
                            "shortfall_hm3": e["volume_shortfall"], "largest_monthly_shortfall_pct": 100 * e["max_relative_shortfall"]}
                           for e in events],
        "by_year": [{"year": r["year"], "complete": r["complete"], "failed_months": r["n_failed_periods"],
                     "reliability_volume": r["reliability_volume"]} for r in perf["by_year"] or []],
        "year_basis": perf.get("year_basis"),
        "min_storage_hm3": out["min_storage"],
        "min_storage_month": str(idx[int(np.argmin(storage))]),
        "min_storage_pct": 100 * out["min_storage"] / out["capacity"],
        "totals_hm3": out["totals"],
        "mass_balance_error_hm3": out["mass_balance_error"],
        "evaporation_note": ("no net evaporation from the reservoir surface was given: losses are not modelled"
                             if not evaporation_hm3_per_month else
                             f"net evaporation taken as {evaporation_hm3_per_month:g} hm3 every month"),
    }
    for key in ("resilience_reason", "reliability_annual_reason"):
        if perf.get(key):
            payload[key] = perf[key]
    if not out["ok"]:
        payload["reason"] = out.get("reason")
    else:
        payload["summary"] = (f"a {out['capacity']:g} hm3 reservoir meets {payload['demand_m3s']:.3g} m3/s in full in "
                              f"{100 * perf['reliability_time']:.1f} % of {out['n_periods']} months "
                              f"({100 * perf['reliability_volume']:.1f} % of the volume)")
    return finish(payload, "simulate_reservoir", params, _method_sources(out))


_DEFAULT_FRACTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def sequent_peak_storage(inflow_hm3: Sequence[float], months: Sequence[str], demand: float, demand_unit: str = "m3/s",
                         storage_hm3: float | None = None, evaporation_hm3_per_month: float = 0.0,
                         yield_fractions: Sequence[float] = _DEFAULT_FRACTIONS) -> dict[str, Any]:
    """The storage the demand needs to be met in every month of the record (sequent peak, double cycle),
    and the storage-yield curve for yields from ``yield_fractions`` of the mean flow.

    An honest null (``ok: False``) when the demand exceeds the mean inflow: no storage meets it.
    """
    from aquascope_core.methods import supply as methods

    params = resolved_parameters(sequent_peak_storage, (inflow_hm3, months, demand), {
        "demand_unit": demand_unit, "storage_hm3": storage_hm3, "evaporation_hm3_per_month": evaporation_hm3_per_month,
        "yield_fractions": list(yield_fractions)})
    inflow, idx = _monthly_series(inflow_hm3, months)
    fracs = [float(f) for f in yield_fractions]
    if any(not 0 < f < 1 for f in fracs):
        raise InputError.bad_value("yield_fractions", list(yield_fractions), "shares of the mean flow strictly between 0 and 1")
    if storage_hm3 is not None and not (isinstance(storage_hm3, (int, float)) and storage_hm3 > 0):
        raise InputError.bad_value("storage_hm3", storage_hm3, "a storage greater than 0, or None")
    days = idx.days_in_month.to_numpy()
    mean_flow = float(inflow.sum() * HM3 / (days.sum() * SECONDS_PER_DAY))
    d_flow = demand_flow_m3s(demand, demand_unit)
    demand_hm3 = pd.Series(_monthly_demand_hm3(demand, demand_unit, idx), index=inflow.index)
    out = methods.sequent_peak_storage(inflow, demand_hm3, evaporation=evaporation_hm3_per_month, unit="hm3")
    curve_storage = []
    for f in fracs:
        y = pd.Series(f * mean_flow * days * SECONDS_PER_DAY / HM3, index=inflow.index)
        curve_storage.append(methods.sequent_peak_storage(inflow, y, evaporation=evaporation_hm3_per_month,
                                                          unit="hm3")["required_storage"])
    payload: dict[str, Any] = {
        "method": "sequent_peak_storage",
        "ok": out["ok"],
        "unit": "hm3",
        "demand_m3s": d_flow,
        "mean_flow_m3s": mean_flow,
        "demand_to_mean_flow": d_flow / mean_flow,
        "demand_to_inflow": out["demand_to_inflow"],
        "period": {"start": str(idx[0]), "end": str(idx[-1])},
        "n_months": int(len(idx)),
        "double_cycle": out["double_cycle"],
        "required_storage_hm3": out.get("required_storage"),
        "storage_yield": {"fraction_of_mean_flow": fracs, "yield_m3s": [f * mean_flow for f in fracs],
                          "required_storage_hm3": curve_storage},
    }
    if not out["ok"]:
        payload["reason"] = out["reason"]
        return finish(payload, "sequent_peak_storage", params, _method_sources(out))
    crit, peak = out.get("critical_period"), out.get("peak_period")
    if crit:
        n = len(idx)
        payload["critical_period"] = {"start": str(idx[crit["start_index"]]),
                                      "end": str(idx[(crit["start_index"] + crit["n_periods"] - 1) % n]),
                                      "months": crit["n_periods"], "peak_in_second_cycle": peak["in_second_cycle"]}
    if storage_hm3 is not None:
        need = out["required_storage"]
        payload["storage_available_hm3"] = float(storage_hm3)
        payload["storage_ratio"] = float(storage_hm3) / need if need > 0 else None
        payload["storage_sufficient"] = bool(float(storage_hm3) >= need)
    payload["summary"] = (f"{out['required_storage']:.4g} hm3 of active storage meets {d_flow:.3g} m3/s in every month "
                          f"of {idx[0]} to {idx[-1]} ({100 * d_flow / mean_flow:.0f} % of the mean flow)")
    return finish(payload, "sequent_peak_storage", params, _method_sources(out))


# --------------------------------------------------------------------------- run of river


def _schedule_demand(schedule: Any, days: pd.DatetimeIndex) -> tuple[np.ndarray, dict[int, int]]:
    """Daily demand (m3/s) on ``days`` from a schedule {start: [...], end: [...], m3s: [...]}; days outside 0.

    Also returns the days with a positive demand per year as scheduled, in the record or not (what a
    complete year must hold)."""
    if not isinstance(schedule, dict) or not {"start", "end", "m3s"} <= set(schedule):
        raise InputError.bad_value("demand_schedule", type(schedule).__name__,
                                   "a mapping with lists 'start', 'end' (dates) and 'm3s' (a flow each)")
    starts, ends, flows = list(schedule["start"]), list(schedule["end"]), list(schedule["m3s"])
    if not (len(starts) == len(ends) == len(flows)) or not starts:
        raise InputError.bad_value("demand_schedule", f"<{len(starts)}, {len(ends)}, {len(flows)} entries>",
                                   "start, end and m3s lists of the same non-zero length")
    demand = np.zeros(len(days))
    seen = np.zeros(len(days), dtype=bool)
    per_year: dict[int, int] = {}
    for a, b, q in zip(starts, ends, flows):
        try:
            lo, hi, flow = pd.Timestamp(a), pd.Timestamp(b), float(q)
        except (TypeError, ValueError):
            raise InputError.bad_value("demand_schedule", (a, b, q), "dates 'YYYY-MM-DD' and a flow in m3/s") from None
        if hi < lo or not np.isfinite(flow) or flow < 0:
            raise InputError.bad_value("demand_schedule", (a, b, q), "periods with end >= start and a flow >= 0")
        span = pd.date_range(lo, hi, freq="D")
        pos = days.get_indexer(span)
        inside = pos[pos >= 0]
        if seen[inside].any():
            raise InputError.bad_value("demand_schedule", (a, b), "periods that do not overlap")
        seen[inside] = True
        demand[inside] = flow
        if flow > 0:
            for y, n in pd.Series(span.year).value_counts().items():
                per_year[int(y)] = per_year.get(int(y), 0) + int(n)
    return demand, per_year


def run_of_river_reliability(source: str, station_id: str, demand: float | None = None, demand_unit: str = "m3/s",
                             demand_schedule: dict | None = None, environmental_flow_m3s: float | None = 0.0,
                             failure_tolerance: float = 0.0, variable: str = "discharge", start: str | None = None,
                             end: str | None = None, *, data: DataContext | None = None) -> dict[str, Any]:
    """How often the river's daily flow, less an environmental flow left in the river, meets a demand
    with no storage: reliability by days, by volume and by year, resilience, vulnerability and the
    failure spells.

    ``demand`` (every day of the record) or ``demand_schedule`` (date ranges with a flow each, as the
    irrigation season gives; days outside have no demand and are not counted). Days the record
    lacks carry no demand and are counted as unobserved, never filled.
    """
    from aquascope_core.methods import supply as methods

    params = resolved_parameters(run_of_river_reliability, (source, station_id), {
        "demand": demand, "demand_unit": demand_unit, "demand_schedule": demand_schedule,
        "environmental_flow_m3s": environmental_flow_m3s, "failure_tolerance": failure_tolerance,
        "variable": variable, "start": start, "end": end})
    if (demand is None) == (demand_schedule is None):
        raise InputError("give either demand (a constant) or demand_schedule (seasonal periods), not both or neither",
                         argument="demand")
    eflow = 0.0 if environmental_flow_m3s is None else float(environmental_flow_m3s)
    if not np.isfinite(eflow) or eflow < 0:
        raise InputError.bad_value("environmental_flow_m3s", environmental_flow_m3s, "a flow of 0 or more in m3/s")
    ctx = resolve(data)
    flow, desc, conversion, raw = daily_flow_m3s(ctx, source, station_id, variable, start, end)
    days = pd.date_range(flow.index[0], flow.index[-1], freq="D")
    q = flow.reindex(days).to_numpy()
    observed = np.isfinite(q)
    if demand_schedule is None:
        d_flow = demand_flow_m3s(demand, demand_unit)
        want = np.full(len(days), d_flow)
        scheduled = {int(y): 366 if pd.Timestamp(year=int(y), month=1, day=1).is_leap_year else 365
                     for y in np.unique(days.year)}
    else:
        want, scheduled = _schedule_demand(demand_schedule, days)
    n_scheduled = int((want > 0).sum())
    want = np.where(observed, want, 0.0)
    demand_days = want > 0
    n_demand = int(demand_days.sum())
    if n_demand < 30:
        raise InsufficientDataError(f"the demand falls on {n_demand} observed days of the {source} {station_id} record; "
                                    "a reliability needs at least 30", argument="demand_schedule" if demand is None else "demand")
    available = np.where(observed, np.maximum(np.nan_to_num(q) - eflow, 0.0), 0.0)
    supplied = np.minimum(available, want)
    # volumes per day in m3, so the method's volume measures are in m3
    to_m3 = SECONDS_PER_DAY
    perf = methods.supply_reliability(pd.Series(supplied * to_m3, index=days), pd.Series(want * to_m3, index=days),
                                      failure_tolerance=failure_tolerance, unit="m3")
    n_failed = perf["n_failed_periods"]
    reliability = 1.0 - n_failed / n_demand
    events = perf["failure_events"]
    spells = sorted(events, key=lambda e: (-e["duration"], e["start"]))[:_SPELLS]
    # the method's years hold every day (days without a demand never fail); count the demand days here
    failed_in = {r["year"]: r["n_failed_periods"] for r in perf["by_year"] or []}
    year = days.year.to_numpy()
    by_year = []
    for y in np.unique(year):
        sel = (year == y) & demand_days
        if not sel.any():
            continue
        fails = int(failed_in.get(int(y), 0))
        by_year.append({"year": int(y), "demand_days": int(sel.sum()), "failed_days": fails,
                        "reliability_time": 1.0 - fails / int(sel.sum()),
                        "reliability_volume": float(supplied[sel].sum() / want[sel].sum())})
    # a year counts for the reliability by year when the record holds at least 95 % of its demand days
    full_years = [r for r in by_year if r["demand_days"] >= 0.95 * scheduled.get(r["year"], 0)]
    annual = sum(r["failed_days"] == 0 for r in full_years) / len(full_years) if full_years else None
    payload: dict[str, Any] = {
        "method": "supply_reliability",
        "ok": True,
        "unit": "m3/s",
        "station": station_fields(desc, source, station_id),
        "conversion": conversion,
        "demand_basis": "constant" if demand_schedule is None else "schedule",
        "demand_m3s": float(want[demand_days].mean()) if demand_schedule is not None else float(want[demand_days][0]),
        "peak_demand_m3s": float(want.max()),
        "environmental_flow_m3s": eflow,
        "record": {"start": days[0].date().isoformat(), "end": days[-1].date().isoformat(),
                   "n_days_missing": int((~observed).sum())},
        "n_demand_days": n_demand,
        "n_demand_days_unobserved": n_scheduled - n_demand,
        "n_failed_days": n_failed,
        "reliability_time": reliability,
        "reliability_time_pct": 100 * reliability,
        "reliability_volume": perf["reliability_volume"],
        "reliability_volume_pct": _pct(perf["reliability_volume"]),
        "reliability_annual": annual,
        "reliability_annual_pct": _pct(annual),
        "n_years": len(full_years),
        "resilience": perf["resilience"],
        "vulnerability_m3s": None if perf["vulnerability"] is None else perf["vulnerability"] / to_m3,
        "vulnerability_relative": perf["vulnerability_relative"],
        "vulnerability_pct": _pct(perf["vulnerability_relative"]),
        "n_failure_spells": perf["n_failure_events"],
        "mean_spell_days": perf["mean_failure_duration"],
        "longest_spell_days": perf["max_failure_duration"],
        "longest_spells": [{"start": e["start_date"][:10], "end": e["end_date"][:10], "days": e["duration"],
                            "shortfall_hm3": e["volume_shortfall"] / HM3} for e in spells],
        "shortfall_hm3": perf["total_shortfall"] / HM3,
        "by_year": by_year,
        "notes": ["reliability by time is the share of days with a demand on which the available flow (the flow less "
                  "the environmental flow) met it in full"],
    }
    if demand_schedule is not None:
        payload["notes"].append("resilience counts the end of a season as a recovery; a spell never spans two seasons")
    if perf.get("resilience_reason"):
        payload["resilience_reason"] = perf["resilience_reason"]
    payload["summary"] = (f"the available flow met {payload['demand_m3s']:.3g} m3/s"
                          + (" (mean of the schedule)" if demand_schedule is not None else "")
                          + f" on {100 * reliability:.1f} % of {n_demand:,} days ({days[0].year}-{days[-1].year})")
    return finish(payload, "run_of_river_reliability", params, provenance_rows(raw) + _method_sources(perf))


def flow_duration_at_demand(source: str, station_id: str, demand: float, demand_unit: str = "m3/s",
                            environmental_flow_m3s: float | None = 0.0, variable: str = "discharge",
                            start: str | None = None, end: str | None = None, *,
                            data: DataContext | None = None) -> dict[str, Any]:
    """The flow duration curve of the daily record in m3/s, and where the demand (plus the
    environmental flow) sits on it: the share of days the flow reaches it."""
    from aquascope_core.methods.flows import flow_duration_curve

    params = resolved_parameters(flow_duration_at_demand, (source, station_id, demand), {
        "demand_unit": demand_unit, "environmental_flow_m3s": environmental_flow_m3s, "variable": variable,
        "start": start, "end": end})
    eflow = 0.0 if environmental_flow_m3s is None else float(environmental_flow_m3s)
    if not np.isfinite(eflow) or eflow < 0:
        raise InputError.bad_value("environmental_flow_m3s", environmental_flow_m3s, "a flow of 0 or more in m3/s")
    ctx = resolve(data)
    flow, desc, conversion, raw = daily_flow_m3s(ctx, source, station_id, variable, start, end)
    d = demand_flow_m3s(demand, demand_unit)
    out = flow_duration_curve(flow, percentiles=(1, 5, 10, 25, 50, 75, 90, 95, 99), unit="m3/s")
    payload = {k: v for k, v in out.items() if k != "meta"}
    need = d + eflow
    q = flow.to_numpy()
    payload.update({
        "station": station_fields(desc, source, station_id),
        "conversion": conversion,
        "mean_flow_m3s": float(q.mean()),
        "demand_m3s": d,
        "environmental_flow_m3s": eflow,
        "flow_needed_m3s": need,
        "days_flow_reaches_need_pct": 100.0 * float(np.mean(q >= need)),
    })
    qs = payload["quantiles"]
    payload["summary"] = (f"Q50 {qs['Q50']:.3g} m3/s, Q95 {qs['Q95']:.3g} m3/s; the flow reached {need:.3g} m3/s "
                          f"on {payload['days_flow_reaches_need_pct']:.1f} % of {payload['n']:,} days")
    return finish(payload, "flow_duration_at_demand", params, provenance_rows(raw) + _method_sources(out))


# --------------------------------------------------------------------------- catalogue

_DEMAND_ARGS = {"demand": "the demand, in demand_unit", "demand_unit": "one of " + ", ".join(DEMAND_UNITS)}
_FRAME_ARGS = {"inflow_hm3": "monthly inflow volumes (hm3), e.g. {{ result.s1.monthly.volume_hm3 }}",
               "months": "their months 'YYYY-MM', consecutive, e.g. {{ result.s1.monthly.months }}"}
_HASHIMOTO = ("Hashimoto, Stedinger & Loucks (1982) Water Resour. Res. 18(1) 14-20; McMahon, Adeloye & Zhou (2006) "
              "J. Hydrol. 324 359-382")

SPECS = [
    ToolSpec(
        id="inflow_record",
        purpose="A daily discharge record as the inflow a supply draws on: mean flow, annual flows, monthly volumes "
                "(hm3) of the longest complete stretch; the demand against the mean flow.",
        kind="station",
        function="aquascope_core.tools.supply:inflow_record",
        yields=("inflow", "monthly_volumes"),
        gates=({"check": "min_years", "value": 20, "path": "n_years"}, {"check": "unit_present"},
               {"check": "not_empty", "path": "monthly.volume_hm3"}),
        figures=("reliability_curve",),
        tables=("inflow",),
        citation="The source's own citation (see meta.sources).",
        arguments={**STATION_ARGS, **_DEMAND_ARGS, "start": "first date to read (ISO)", "end": "last date to read (ISO)"},
    ),
    ToolSpec(
        id="simulate_reservoir",
        purpose="Monthly behaviour simulation of a reservoir meeting a demand: reliability by time, volume and year, "
                "resilience, vulnerability, the worst failures.",
        kind="frame",
        function="aquascope_core.tools.supply:simulate_reservoir",
        yields=("reservoir_performance",),
        methods=("simulate_reservoir",),
        gates=({"check": "min_years", "value": 20, "path": "n_complete_years"},
               {"check": "not_empty", "path": "reliability_time"}),
        figures=("failures_by_year",),
        tables=("reservoir_performance", "worst_failures"),
        citation=_HASHIMOTO,
        arguments={**_FRAME_ARGS, **_DEMAND_ARGS, "storage_hm3": "the reservoir's storage at full supply level (hm3)",
                   "dead_storage_hm3": "storage below the lowest outlet (hm3)",
                   "initial_storage_hm3": "storage at the start (default full)",
                   "evaporation_hm3_per_month": "net evaporation lost each month (hm3)",
                   "failure_tolerance": "a month fails when the shortfall exceeds this share of its demand",
                   "year_start_month": "first month of the year for reliability by year"},
    ),
    ToolSpec(
        id="sequent_peak_storage",
        purpose="The storage a demand needs with no failure over the record (sequent peak, double cycle) and the "
                "storage-yield curve.",
        kind="frame",
        function="aquascope_core.tools.supply:sequent_peak_storage",
        yields=("required_storage", "storage_yield"),
        methods=("sequent_peak_storage",),
        gates=({"check": "not_empty", "path": "required_storage_hm3"},),
        figures=("storage_yield",),
        tables=("storage_yield",),
        citation="Thomas & Burden (1963); Loucks & van Beek (2017) Water Resource Systems Planning and Management, ch. 11.",
        arguments={**_FRAME_ARGS, **_DEMAND_ARGS, "storage_hm3": "the storage available, to compare (hm3)",
                   "evaporation_hm3_per_month": "net evaporation lost each month (hm3)",
                   "yield_fractions": "yields of the storage-yield curve, as shares of the mean flow"},
    ),
    ToolSpec(
        id="run_of_river_reliability",
        purpose="With no storage: how often the daily flow less an environmental flow meets a demand (constant or a "
                "seasonal schedule); reliability, resilience, vulnerability, failure spells.",
        kind="station",
        function="aquascope_core.tools.supply:run_of_river_reliability",
        yields=("supply_reliability",),
        methods=("supply_reliability",),
        gates=({"check": "min_years", "value": 10, "path": "n_years"}, {"check": "not_empty", "path": "reliability_time"}),
        figures=("failures_by_year",),
        tables=("run_of_river", "longest_spells"),
        citation=_HASHIMOTO,
        arguments={**STATION_ARGS, **_DEMAND_ARGS,
                   "demand_schedule": "seasonal demand {start: [dates], end: [dates], m3s: [flows]}, e.g. "
                                      "{{ result.s3.area.schedule }}",
                   "environmental_flow_m3s": "flow left in the river before any abstraction (m3/s)",
                   "failure_tolerance": "a day fails when the shortfall exceeds this share of its demand",
                   "start": "first date to read (ISO)", "end": "last date to read (ISO)"},
    ),
    ToolSpec(
        id="flow_duration_at_demand",
        purpose="The flow duration curve of a daily record in m3/s and the share of days the flow reaches the demand "
                "plus the environmental flow.",
        kind="station",
        function="aquascope_core.tools.supply:flow_duration_at_demand",
        yields=("fdc",),
        methods=("flow_duration_curve",),
        gates=({"check": "not_empty", "path": "quantiles.Q95"}, {"check": "unit_present"}),
        figures=("flow_duration_curve",),
        tables=("flow_duration",),
        citation="Vogel & Fennessey (1994) J. Water Resour. Plann. Manage. 120(4) 485-504.",
        arguments={**STATION_ARGS, **_DEMAND_ARGS,
                   "environmental_flow_m3s": "flow left in the river before any abstraction (m3/s)",
                   "start": "first date to read (ISO)", "end": "last date to read (ISO)"},
    ),
]
