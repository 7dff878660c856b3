"""Hydrological signatures of a daily discharge record: mean annual flow, runoff ratio,
Richards-Baker flashiness, seasonality (monthly regime, seasonality index, half-flow date) and the
frequency and duration of high and low flows as defined for CAMELS (Addor et al. 2017, 2018).

Daily discharge is a pandas Series with a DatetimeIndex (see :mod:`aquascope_core.methods.flows`).
Missing days are never filled; each function says how it treats them.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import numpy as np
import pandas as pd

from aquascope_core.errors import InputError, InsufficientDataError, UnitError
from aquascope_core.methods.flows import _check_missing, _check_month, _daily_record
from aquascope_core.result import finish, resolved_parameters, source

__all__ = [
    "mean_annual_flow",
    "runoff_ratio",
    "richards_baker_flashiness",
    "flow_seasonality",
    "high_low_flow_events",
]

log = logging.getLogger(__name__)

DAYS_PER_YEAR = 365.25

_CITE_CAMELS = "Addor, N., Newman, A.J., Mizukami, N. & Clark, M.P. (2017) The CAMELS data set: catchment " \
               "attributes and meteorology for large-sample studies. Hydrol. Earth Syst. Sci. 21, 5293-5313; " \
               "Addor, N., Nearing, G., Prieto, C., Newman, A.J., Le Vine, N. & Clark, M.P. (2018) A ranking of " \
               "hydrological signatures based on their predictability in space. Water Resour. Res. 54, 8792-8812"
_CITE_RB = "Baker, D.B., Richards, R.P., Loftus, T.T. & Kramer, J.W. (2004) A new flashiness index: " \
           "characteristics and applications to midwestern rivers and streams. J. Am. Water Resour. Assoc. " \
           "40(2), 503-522"
_CITE_SI = "Walsh, R.P.D. & Lawler, D.M. (1981) Rainfall seasonality: description, spatial patterns and change " \
           "through time. Weather 36(7), 201-208"
_CITE_HFD = "Court, A. (1962) Measures of streamflow timing. J. Geophys. Res. 67(11), 4335-4339"

# Volumetric flow units to m3/s; "mm/d" is already a depth.
_FLOW_TO_M3S = {"m3/s": 1.0, "l/s": 1e-3, "cfs": 0.028316846592, "ft3/s": 0.028316846592, "ML/d": 1e3 / 86400.0}
_DEPTH_TO_MM = {"mm/d": 1.0, "in/d": 25.4, "m/d": 1000.0}


def _flow_to_mm_per_day(q: np.ndarray, unit: str, area_km2: float | None, argument: str = "unit") -> np.ndarray:
    """Daily flow as a depth over the catchment (mm/d)."""
    if unit in _DEPTH_TO_MM:
        return q * _DEPTH_TO_MM[unit]
    if unit not in _FLOW_TO_M3S:
        raise UnitError(f"{argument}={unit!r} is not a known flow unit: use one of "
                        + ", ".join(list(_FLOW_TO_M3S) + list(_DEPTH_TO_MM)), argument=argument, value=unit)
    if area_km2 is None:
        raise UnitError(f"{argument}={unit!r} is a volume per time: give area_km2 to express it as a depth in mm/d",
                        argument="area_km2", value=None)
    _check_area(area_km2)
    # m3/s * 86400 s/d / (km2 * 1e6 m2/km2) * 1000 mm/m = 86.4 / km2
    return q * _FLOW_TO_M3S[unit] * 86.4 / float(area_km2)


def _check_area(area_km2: Any) -> None:
    if isinstance(area_km2, bool) or not isinstance(area_km2, (int, float)) or not (area_km2 > 0 and math.isfinite(area_km2)):
        raise InputError.bad_value("area_km2", area_km2, "a catchment area in km2, greater than 0")


def _complete_years(index: pd.DatetimeIndex, q: np.ndarray, start_month: int) -> list[tuple[int, np.ndarray]]:
    """(year, daily values) for each year starting in ``start_month`` that the record covers without a gap."""
    year_of = index.year - (index.month < start_month).astype(int)
    out = []
    for y in np.unique(year_of):
        start = pd.Timestamp(year=int(y), month=start_month, day=1)
        length = (pd.Timestamp(year=int(y) + 1, month=start_month, day=1) - start).days
        qy = q[year_of == y]
        if qy.size == length and not np.isnan(qy).any():
            out.append((int(y), qy))
    return out


# --------------------------------------------------------------------------------------------


def mean_annual_flow(
    flow: pd.Series,
    *,
    year_start_month: int = 1,
    max_missing_days: int = 0,
    area_km2: float | None = None,
    unit: str = "m3/s",
) -> dict[str, Any]:
    """Mean annual flow: the mean of the annual mean flows of the complete years.

    Parameters
    ----------
    flow : daily discharge (Series with a DatetimeIndex).
    year_start_month : first month of the year (1 calendar year, 10 the US water year); a year is
        named by the calendar year it starts in.
    max_missing_days : years missing more days than this are left out (listed in ``excluded``).
    area_km2 : catchment area; with it the payload adds the mean annual runoff depth (mm/yr).
    unit : the unit of ``flow`` (m3/s, l/s, cfs, ML/d or mm/d).

    Returns
    -------
    dict with ``method`` ("mean_annual_flow"), ``ok``, ``mean_annual_flow``, ``unit``, ``years``,
    ``annual_means``, ``n_years``, ``cv_annual`` (standard deviation of the annual means over their
    mean), ``excluded``, ``mean_annual_runoff_mm`` (with ``area_km2``) and ``meta``.
    """
    params = resolved_parameters(mean_annual_flow, (flow,), {"year_start_month": year_start_month,
                                                             "max_missing_days": max_missing_days,
                                                             "area_km2": area_km2, "unit": unit})
    year_start_month = _check_month(year_start_month, "year_start_month")
    max_missing_days = _check_missing(max_missing_days)
    if area_km2 is not None:
        _check_area(area_km2)
    rec = _daily_record(flow)
    idx, q = rec["index"], rec["q"]
    year_of = idx.year - (idx.month < year_start_month).astype(int)
    years, means, excluded = [], [], []
    for y in np.unique(year_of):
        start = pd.Timestamp(year=int(y), month=year_start_month, day=1)
        length = (pd.Timestamp(year=int(y) + 1, month=year_start_month, day=1) - start).days
        qy = q[year_of == y]
        missing = length - int(np.sum(~np.isnan(qy)))
        if missing > max_missing_days:
            excluded.append({"year": int(y), "missing_days": missing})
            continue
        years.append(int(y))
        means.append(float(np.nanmean(qy)))
    payload: dict[str, Any] = {"method": "mean_annual_flow", "ok": True, "unit": unit, "years": years,
                               "annual_means": means, "n_years": len(years), "excluded": excluded,
                               "year_start_month": year_start_month}
    sources = [source("Mean annual flow", citation=_CITE_CAMELS)]
    if not years:
        payload.update(ok=False, mean_annual_flow=None, cv_annual=None,
                       reason=f"no year is complete enough (max_missing_days={max_missing_days})")
        return finish(payload, "mean_annual_flow", params, sources)
    m = float(np.mean(means))
    payload["mean_annual_flow"] = m
    payload["cv_annual"] = float(np.std(means, ddof=1) / m) if len(means) > 1 and m > 0 else None
    if area_km2 is not None:
        payload["mean_annual_runoff_mm"] = float(_flow_to_mm_per_day(np.array([m]), unit, area_km2)[0] * DAYS_PER_YEAR)
    return finish(payload, "mean_annual_flow", params, sources)


def runoff_ratio(
    flow: pd.Series,
    precipitation: pd.Series,
    *,
    area_km2: float | None = None,
    flow_unit: str = "m3/s",
    precipitation_unit: str = "mm/d",
) -> dict[str, Any]:
    """Runoff ratio: total streamflow depth over total precipitation depth on the days both hold.

    Parameters
    ----------
    flow : daily discharge (Series with a DatetimeIndex).
    precipitation : daily catchment precipitation (Series with a DatetimeIndex).
    area_km2 : catchment area, needed to turn a volumetric ``flow_unit`` into a depth.
    flow_unit : m3/s, l/s, cfs, ML/d or mm/d.
    precipitation_unit : mm/d, in/d or m/d.

    Returns
    -------
    dict with ``method`` ("runoff_ratio"), ``ok``, ``runoff_ratio``, ``mean_flow_mm_per_day``,
    ``mean_precipitation_mm_per_day``, ``n_days`` (days with both), ``period``, ``warnings`` and
    ``meta``. A ratio above 1 is returned with a warning: it points at inflow from outside the
    topographic catchment, snow storage across the period ends or an error in area or data.
    """
    params = resolved_parameters(runoff_ratio, (flow, precipitation), {
        "area_km2": area_km2, "flow_unit": flow_unit, "precipitation_unit": precipitation_unit})
    if precipitation_unit not in _DEPTH_TO_MM:
        raise UnitError(f"precipitation_unit={precipitation_unit!r} is not a known depth rate: use one of "
                        + ", ".join(_DEPTH_TO_MM), argument="precipitation_unit", value=precipitation_unit)
    fr = _daily_record(flow, "flow")
    pr = _daily_record(precipitation, "precipitation")
    q_mm = pd.Series(_flow_to_mm_per_day(fr["q"], flow_unit, area_km2, "flow_unit"), index=fr["index"])
    p_mm = pd.Series(pr["q"] * _DEPTH_TO_MM[precipitation_unit], index=pr["index"])
    both = pd.concat([q_mm.rename("q"), p_mm.rename("p")], axis=1, join="inner").dropna()
    if len(both) < 365:
        raise InsufficientDataError(f"flow and precipitation share {len(both)} days with both values; "
                                    "the runoff ratio needs at least 365", argument="precipitation", value=len(both))
    p_total = float(both["p"].sum())
    if p_total <= 0:
        raise InsufficientDataError("precipitation is zero on every shared day: the runoff ratio is undefined",
                                    argument="precipitation", value=0.0)
    ratio = float(both["q"].sum()) / p_total
    warnings = []
    if ratio > 1:
        warnings.append(f"runoff ratio {ratio:.2f} > 1: more water leaves than falls; check the area, the units and "
                        "whether the catchment receives water from outside")
    payload = {
        "method": "runoff_ratio", "ok": True, "runoff_ratio": ratio, "n_days": int(len(both)),
        "period": [both.index[0].date().isoformat(), both.index[-1].date().isoformat()],
        "mean_flow_mm_per_day": float(both["q"].mean()), "mean_precipitation_mm_per_day": float(both["p"].mean()),
        "unit": "-", "warnings": warnings,
    }
    return finish(payload, "runoff_ratio", params, [source("Runoff ratio", citation=_CITE_CAMELS)])


def richards_baker_flashiness(flow: pd.Series, *, unit: str = "m3/s") -> dict[str, Any]:
    """Richards-Baker flashiness index: the day-to-day change in flow over the total flow.

    RB = sum_i |q_i - q_{i-1}| / sum_i q_i over the days i whose previous day is also recorded
    (Baker et al. 2004), for the whole record (``flashiness_index``) and for each complete calendar
    year (``annual``). Dimensionless: 0 for a steady flow, larger the flashier the stream.
    """
    params = resolved_parameters(richards_baker_flashiness, (flow,), {"unit": unit})
    rec = _daily_record(flow)
    idx, q = rec["index"], rec["q"]
    pair = ~np.isnan(q[1:]) & ~np.isnan(q[:-1])
    dq = np.abs(np.diff(q))
    denom = float(np.sum(q[1:][pair]))
    payload: dict[str, Any] = {"method": "richards_baker_flashiness", "ok": True, "unit": "-",
                               "n_pairs": int(pair.sum()), "n_missing": rec["n_missing"]}
    sources = [source("Richards-Baker flashiness index", citation=_CITE_RB)]
    if denom <= 0:
        payload.update(ok=False, flashiness_index=None, annual={}, reason="the flow is zero on every day with a recorded previous day")
        return finish(payload, "richards_baker_flashiness", params, sources)
    annual = {}
    years = idx.year[1:]
    for y in np.unique(years):
        sel = years == y
        n_days = 366 if pd.Timestamp(year=int(y), month=1, day=1).is_leap_year else 365
        # a complete year: every day has its value and that of the day before
        if int(np.sum(pair & sel)) == n_days:
            qs = float(np.sum(q[1:][sel]))
            annual[str(int(y))] = float(np.sum(dq[sel]) / qs) if qs > 0 else None
    payload.update(flashiness_index=float(np.sum(dq[pair]) / denom), annual=annual)
    return finish(payload, "richards_baker_flashiness", params, sources)


def flow_seasonality(flow: pd.Series, *, water_year_start_month: int = 10, unit: str = "m3/s") -> dict[str, Any]:
    """The flow regime through the year.

    Returns
    -------
    dict with ``method`` ("flow_seasonality"), ``ok``, ``monthly_mean_flow`` (12 values, January
    first, each the mean of the recorded days of that calendar month over the record),
    ``month_of_max``, ``month_of_min`` (1-12), ``seasonality_index`` (Walsh & Lawler 1981, on mean
    monthly runoff volumes), ``half_flow_date_mean`` and ``half_flow_dates`` (per complete water year),
    ``unit`` and ``meta``.

    Notes
    -----
    Seasonality index SI = (1/R) sum_m |V_m - R/12|, V_m the mean volume of month m (mean flow times
    its mean number of days, February 28.25) and R = sum V_m: 0 for an even regime, 1.83 when all
    runoff comes in one month. The half-flow date (Court 1962; ``hfd_mean`` of CAMELS) is the day of
    the water year, counting its first day as 1, on which the cumulative flow since the start of
    the water year first reaches half of the year's total; it is taken over complete water years only.
    Every calendar month must hold at least one recorded day.
    """
    params = resolved_parameters(flow_seasonality, (flow,), {"water_year_start_month": water_year_start_month, "unit": unit})
    start = _check_month(water_year_start_month, "water_year_start_month")
    rec = _daily_record(flow)
    idx, q = rec["index"], rec["q"]
    s = pd.Series(q, index=idx)
    monthly = s.groupby(idx.month).mean()
    if monthly.reindex(range(1, 13)).isna().any():
        absent = [int(m) for m in range(1, 13) if pd.isna(monthly.get(m, np.nan))]
        raise InsufficientDataError(f"no recorded day in month(s) {absent}: the regime needs every month",
                                    argument="flow", value=absent)
    monthly = monthly.reindex(range(1, 13)).to_numpy()
    mean_days = np.array([31, 28.25, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
    vol = monthly * mean_days
    total = float(vol.sum())
    si = float(np.sum(np.abs(vol - total / 12.0)) / total) if total > 0 else None
    hfd = {}
    for y, qy in _complete_years(idx, q, start):
        tot = float(np.sum(qy))
        if tot > 0:
            hfd[str(y)] = int(np.argmax(np.cumsum(qy) >= 0.5 * tot)) + 1
    payload = {
        "method": "flow_seasonality", "ok": True, "unit": unit, "monthly_mean_flow": monthly,
        "month_of_max": int(np.argmax(monthly)) + 1, "month_of_min": int(np.argmin(monthly)) + 1,
        "seasonality_index": si, "water_year_start_month": start, "half_flow_dates": hfd,
        "half_flow_date_mean": float(np.mean(list(hfd.values()))) if hfd else None,
    }
    if si is None:
        payload.update(ok=False, reason="the flow is zero in every month")
    sources = [source("Seasonality index", citation=_CITE_SI), source("Half-flow date", citation=_CITE_HFD)]
    return finish(payload, "flow_seasonality", params, sources)


def _runs(mask: np.ndarray) -> np.ndarray:
    """Lengths of the runs of True in ``mask``."""
    m = np.concatenate([[False], mask, [False]])
    d = np.diff(m.astype(np.int8))
    return np.flatnonzero(d == -1) - np.flatnonzero(d == 1)


def high_low_flow_events(
    flow: pd.Series,
    *,
    high_factor: float = 9.0,
    low_factor: float = 0.2,
    unit: str = "m3/s",
) -> dict[str, Any]:
    """Frequency and duration of high and low flows (the CAMELS definitions, Addor et al. 2017).

    A high-flow day has flow above ``high_factor`` x the median daily flow; a low-flow day has flow
    below ``low_factor`` x the mean daily flow. Frequencies are in days per year (days counted over
    the recorded days / 365.25); an event is a run of consecutive such days, a missing day ending it,
    and its duration the run's length.

    Returns
    -------
    dict with ``method`` ("high_low_flow_events"), ``ok``, ``high_flow_threshold``,
    ``high_flow_frequency`` (days/yr), ``high_flow_mean_duration`` (days; ``None`` without events),
    ``n_high_flow_events``, ``low_flow_threshold``, ``low_flow_frequency``,
    ``low_flow_mean_duration``, ``n_low_flow_events``, ``zero_flow_fraction`` (share of days with
    flow 0), ``n``, ``years_of_record``, ``unit`` and ``meta``.
    """
    params = resolved_parameters(high_low_flow_events, (flow,), {"high_factor": high_factor, "low_factor": low_factor, "unit": unit})
    for name, value in (("high_factor", high_factor), ("low_factor", low_factor)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (value > 0 and math.isfinite(value)):
            raise InputError.bad_value(name, value, "a positive multiplier (9 and 0.2 in CAMELS)")
    rec = _daily_record(flow)
    q = rec["q"]
    valid = ~np.isnan(q)
    qv = q[valid]
    years = qv.size / DAYS_PER_YEAR
    hi_thr = float(high_factor * np.median(qv))
    lo_thr = float(low_factor * np.mean(qv))
    hi = np.where(valid, q > hi_thr, False)
    lo = np.where(valid, q < lo_thr, False)
    hi_runs, lo_runs = _runs(hi), _runs(lo)
    payload = {
        "method": "high_low_flow_events", "ok": True, "unit": unit, "n": int(qv.size), "n_missing": rec["n_missing"],
        "years_of_record": years, "high_factor": float(high_factor), "low_factor": float(low_factor),
        "high_flow_threshold": hi_thr, "high_flow_frequency": float(hi.sum() / years),
        "high_flow_mean_duration": float(hi_runs.mean()) if hi_runs.size else None, "n_high_flow_events": int(hi_runs.size),
        "low_flow_threshold": lo_thr, "low_flow_frequency": float(lo.sum() / years),
        "low_flow_mean_duration": float(lo_runs.mean()) if lo_runs.size else None, "n_low_flow_events": int(lo_runs.size),
        "zero_flow_fraction": float(np.mean(qv == 0)),
    }
    return finish(payload, "high_low_flow_events", params, [source("CAMELS hydrological signatures", citation=_CITE_CAMELS)])
