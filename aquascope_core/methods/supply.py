"""Supply reliability: reservoir behaviour simulation, sequent-peak storage, and performance measures.

All quantities are volumes per period (one value per time step, in the ``unit`` the caller states,
``hm3`` by default): convert a flow in m3/s to a volume with the length of each step before calling.

- :func:`simulate_reservoir`: the behaviour (mass-balance) simulation under the standard operating
  policy "meet demand when possible": within each period

      W = S[t-1] + Q[t] - E[t]                      (evaporation limited to the water present)
      R[t] = min(D[t], max(W - S_dead, 0))          (release, never drawing below the dead storage)
      S[t] = min(W - R[t], C),  spill = max(W - R[t] - C, 0)

- :func:`sequent_peak_storage`: the storage needed to meet a demand with no failure,
  ``K[t] = max(0, K[t-1] + D[t] + E[t] - Q[t])``, ``K[0] = 0``, the answer ``max K``; run over the
  record twice in a row (the double cycle) so that a critical period at the end of the record,
  which would otherwise never recover, is charged in full.
- :func:`supply_reliability`: reliability by time, by volume and by year, resilience and
  vulnerability (Hashimoto, Stedinger & Loucks 1982) of a supplied series against the demand.

Definitions (Hashimoto et al. 1982; McMahon, Adeloye & Zhou 2006)
-----------------------------------------------------------------
A period fails when the supply falls short of the demand by more than ``failure_tolerance`` x
demand. Reliability by time = satisfactory periods / periods; by volume = supplied / demanded
volume; by year = years without a failed period / years. Resilience = failure-to-success
transitions / failure periods (the probability that a failed period is followed by a satisfactory
one; ``None`` when nothing fails). Vulnerability = the mean over failure events (runs of
consecutive failed periods) of the largest shortfall in the event, in volume and relative to that
period's demand.

References
----------
Hashimoto, T., Stedinger, J.R. and Loucks, D.P. (1982). Reliability, resiliency, and vulnerability
criteria for water resource system performance evaluation. Water Resources Research 18(1), 14-20.
McMahon, T.A., Adeloye, A.J. and Zhou, S.L. (2006). Understanding performance measures of
reservoirs. Journal of Hydrology 324, 359-382.
Thomas, H.A. and Burden, R.P. (1963). Operations Research in Water Quality Management. Harvard
University (the sequent-peak algorithm).
Loucks, D.P. and van Beek, E. (2017). Water Resource Systems Planning and Management. Springer,
chapter 11 (storage-yield functions and the sequent-peak procedure).
"""

from __future__ import annotations

import logging
import math
from typing import Any, Sequence

import numpy as np
import pandas as pd

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.result import finish, resolved_parameters, source

__all__ = ["simulate_reservoir", "sequent_peak_storage", "supply_reliability"]

log = logging.getLogger(__name__)

_HASHIMOTO = ("Hashimoto, Stedinger & Loucks (1982) Water Resour. Res. 18(1) 14-20; "
              "McMahon, Adeloye & Zhou (2006) J. Hydrol. 324 359-382")
_SPA = ("Thomas & Burden (1963) sequent-peak algorithm; Loucks & van Beek (2017) Water Resource Systems "
        "Planning and Management, ch. 11")
_EPS = 1e-9  # relative slack so that round-off never turns a met demand into a failure
_COMPLETE_YEAR = 0.95  # a year counts when it holds at least this share of the longest year's periods

ArrayLike = Sequence[float] | np.ndarray | pd.Series


# --------------------------------------------------------------------------- input checks


def _series(values: Any, argument: str, *, allow_scalar_length: int | None = None) -> tuple[np.ndarray, pd.Index | None]:
    """A 1-D float copy of ``values`` and its DatetimeIndex when it has one; NaN and negatives refused."""
    index = None
    if np.isscalar(values) and allow_scalar_length is not None:
        arr = np.full(allow_scalar_length, _scalar(values, argument))
    else:
        if isinstance(values, pd.Series):
            if isinstance(values.index, pd.DatetimeIndex):
                index = values.index
                if not index.is_monotonic_increasing:
                    raise InputError(f"{argument} has an unsorted date index; sort it with .sort_index().", argument=argument)
                if index.has_duplicates:
                    raise InputError(f"{argument} has duplicated dates, first {index[index.duplicated()][0]}.",
                                     argument=argument)
            raw = values.to_numpy()
        else:
            raw = values
        try:
            arr = np.array(raw, dtype=float, copy=True)
        except (TypeError, ValueError):
            raise InputError.bad_value(argument, values, "a sequence of numbers (volumes per period)") from None
        if arr.ndim != 1:
            raise InputError.bad_value(argument, f"<array of shape {arr.shape}>", "a one-dimensional series")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise InputError(f"{argument} has {bad.size} missing or non-finite value(s), first at position {bad[0]}: "
                         "the simulation needs a complete series; fill the gap from a documented source or shorten "
                         "the period.", argument=argument)
    neg = np.flatnonzero(arr < 0)
    if neg.size:
        raise InputError(f"{argument} has {neg.size} negative value(s), first {arr[neg[0]]:g} at position {neg[0]}: "
                         "volumes cannot be negative.", argument=argument)
    return arr, index


def _scalar(value: Any, argument: str, *, positive: bool = False) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InputError.bad_value(argument, value, "a finite number") from None
    if not math.isfinite(x) or x < 0 or (positive and x == 0):
        raise InputError.bad_value(argument, value, "a finite number greater than 0" if positive else "a finite number of 0 or more")
    return x


def _matched(inflow: Any, demand: Any, evaporation: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, pd.Index | None]:
    q, index = _series(inflow, "inflow")
    if q.size == 0:
        raise InsufficientDataError("inflow is empty: give at least one period.", argument="inflow")
    d, d_index = _series(demand, "demand", allow_scalar_length=q.size)
    e, e_index = _series(evaporation, "evaporation", allow_scalar_length=q.size)
    for arr, name, idx in ((d, "demand", d_index), (e, "evaporation", e_index)):
        if arr.size != q.size:
            raise InputError(f"{name} has {arr.size} values and inflow {q.size}: give one value per period or a constant.",
                             argument=name)
        if index is not None and idx is not None and not idx.equals(index):
            raise InputError(f"{name} is dated differently from inflow: align the two series on the same dates.",
                             argument=name)
    return q, d, e, index


def _year_labels(n: int, index: pd.Index | None, periods_per_year: int | None, year_start_month: int) -> tuple[np.ndarray | None, str | None]:
    if not (isinstance(year_start_month, (int, np.integer)) and 1 <= year_start_month <= 12):
        raise InputError.bad_value("year_start_month", year_start_month, "a month number 1-12 (10 for a US water year)")
    if periods_per_year is not None:
        if isinstance(periods_per_year, bool) or not isinstance(periods_per_year, (int, np.integer)) or periods_per_year < 1:
            raise InputError.bad_value("periods_per_year", periods_per_year, "a whole number of periods per year (12, 365, ...)")
        return np.arange(n) // int(periods_per_year) + 1, "consecutive blocks of periods_per_year periods, numbered from 1"
    if index is not None:
        shift = 1 if year_start_month > 1 else 0
        years = index.year.to_numpy() + np.where(index.month.to_numpy() >= year_start_month, shift, 0)
        label = "calendar years" if year_start_month == 1 else f"years starting in month {year_start_month}, named by the year they end in"
        return years, label
    return None, None


# --------------------------------------------------------------------------- performance


def _performance(supplied: np.ndarray, demand: np.ndarray, tolerance: float, years: np.ndarray | None,
                 year_basis: str | None, index: pd.Index | None) -> dict[str, Any]:
    shortfall = np.maximum(demand - supplied, 0.0)
    fail = shortfall > demand * tolerance + _EPS * np.maximum(demand, 1.0)
    n = fail.size
    n_fail = int(fail.sum())
    out: dict[str, Any] = {
        "n_periods": n,
        "n_failed_periods": n_fail,
        "reliability_time": 1.0 - n_fail / n,
        "reliability_volume": float(supplied.sum() / demand.sum()) if demand.sum() > 0 else None,
        "total_demand": float(demand.sum()),
        "total_supplied": float(supplied.sum()),
        "total_shortfall": float(shortfall.sum()),
        "max_shortfall": float(shortfall.max()),
    }
    if demand.sum() == 0:
        out["reliability_volume_reason"] = "no demand over the period"
    # failure events: runs of consecutive failed periods
    starts = np.flatnonzero(fail & ~np.r_[False, fail[:-1]])
    ends = np.flatnonzero(fail & ~np.r_[fail[1:], False])
    events = []
    for s, e in zip(starts, ends):
        k = s + int(np.argmax(shortfall[s:e + 1]))
        rel = shortfall[s:e + 1] / np.where(demand[s:e + 1] > 0, demand[s:e + 1], np.nan)
        ev = {"start": int(s), "end": int(e), "duration": int(e - s + 1),
              "max_shortfall": float(shortfall[k]), "max_relative_shortfall": float(np.nanmax(rel)),
              "volume_shortfall": float(shortfall[s:e + 1].sum()), "recovered": bool(e < n - 1)}
        if index is not None:
            ev["start_date"], ev["end_date"] = index[s].isoformat(), index[e].isoformat()
        events.append(ev)
    transitions = int(np.sum(fail[:-1] & ~fail[1:]))
    out["n_failure_events"] = len(events)
    if n_fail:
        out["resilience"] = transitions / n_fail
        out["mean_failure_duration"] = n_fail / len(events)
        out["max_failure_duration"] = max(ev["duration"] for ev in events)
        out["vulnerability"] = float(np.mean([ev["max_shortfall"] for ev in events]))
        out["vulnerability_relative"] = float(np.mean([ev["max_relative_shortfall"] for ev in events]))
    else:
        reason = "no period failed: resilience and vulnerability are undefined"
        out.update(resilience=None, mean_failure_duration=None, max_failure_duration=None, vulnerability=None,
                   vulnerability_relative=None, resilience_reason=reason)
    out["failure_events"] = events
    out["reliability_annual"] = None
    out["by_year"] = None
    if years is None:
        out["reliability_annual_reason"] = ("no years: give a Series with a DatetimeIndex or periods_per_year "
                                            "for reliability by year")
        return out
    frame = pd.DataFrame({"year": years, "fail": fail, "demand": demand, "supplied": supplied})
    g = frame.groupby("year", sort=True)
    counts = g.size()
    complete = counts >= _COMPLETE_YEAR * counts.max()
    rows = []
    for year, grp in g:
        rows.append({"year": int(year), "n_periods": int(len(grp)), "complete": bool(complete[year]),
                     "n_failed_periods": int(grp["fail"].sum()),
                     "reliability_time": 1.0 - float(grp["fail"].mean()),
                     "reliability_volume": float(grp["supplied"].sum() / grp["demand"].sum()) if grp["demand"].sum() > 0 else None})
    full = [r for r in rows if r["complete"]]
    out["by_year"] = rows
    out["year_basis"] = year_basis
    out["n_complete_years"] = len(full)
    if full:
        out["reliability_annual"] = sum(r["n_failed_periods"] == 0 for r in full) / len(full)
    else:
        out["reliability_annual_reason"] = "no complete year in the record"
    return out


def supply_reliability(
    supplied: ArrayLike,
    demand: ArrayLike | float,
    *,
    failure_tolerance: float = 0.0,
    periods_per_year: int | None = None,
    year_start_month: int = 1,
    unit: str = "hm3",
) -> dict[str, Any]:
    """Reliability, resilience and vulnerability of a supplied series against its demand.

    Parameters
    ----------
    supplied : the volume supplied in each period (a Series with a DatetimeIndex gives years).
    demand : the volume demanded in each period, or a constant.
    failure_tolerance : a period fails when the shortfall exceeds this share of its demand
        (0: any shortfall is a failure).
    periods_per_year : for plain arrays, the periods in a year (12, 365); years are consecutive
        blocks from the first period.
    year_start_month : the first month of the year for dated series (10 for a US water year).

    Returns
    -------
    dict with ``reliability_time``, ``reliability_volume``, ``reliability_annual``,
    ``resilience``, ``vulnerability`` (``unit``), ``vulnerability_relative``,
    ``mean_failure_duration``, ``max_failure_duration``, ``n_failure_events``, ``failure_events``,
    ``by_year`` (years holding fewer than 95 % of the longest year's periods are listed but left out
    of ``reliability_annual``), totals and ``unit``.
    """
    params = resolved_parameters(supply_reliability, (supplied, demand), dict(
        failure_tolerance=failure_tolerance, periods_per_year=periods_per_year, year_start_month=year_start_month,
        unit=unit))
    s, index = _series(supplied, "supplied")
    if s.size == 0:
        raise InsufficientDataError("supplied is empty: give at least one period.", argument="supplied")
    d, d_index = _series(demand, "demand", allow_scalar_length=s.size)
    if d.size != s.size:
        raise InputError(f"demand has {d.size} values and supplied {s.size}: give one value per period or a constant.",
                         argument="demand")
    tol = _scalar(failure_tolerance, "failure_tolerance")
    if tol >= 1:
        raise InputError.bad_value("failure_tolerance", failure_tolerance, "a share of demand from 0 to below 1")
    over = np.flatnonzero(s > d * (1 + _EPS) + _EPS)
    if over.size:
        raise InputError(f"supplied exceeds demand in {over.size} period(s), first at position {over[0]} "
                         f"({s[over[0]]:g} > {d[over[0]]:g}): give the volume delivered against the demand, "
                         "not the release including spill.", argument="supplied")
    years, basis = _year_labels(s.size, index if index is not None else d_index, periods_per_year, year_start_month)
    perf = _performance(np.minimum(s, d), d, tol, years, basis, index)
    payload = {"method": "supply_reliability", "ok": True, "unit": unit, "failure_tolerance": tol, **perf}
    return finish(payload, "supply_reliability", params, [source("supply performance measures", citation=_HASHIMOTO)])


# --------------------------------------------------------------------------- simulation


def simulate_reservoir(
    inflow: ArrayLike,
    demand: ArrayLike | float,
    capacity: float,
    *,
    dead_storage: float = 0.0,
    initial_storage: float | None = None,
    evaporation: ArrayLike | float = 0.0,
    failure_tolerance: float = 0.0,
    periods_per_year: int | None = None,
    year_start_month: int = 1,
    unit: str = "hm3",
    return_series: bool = True,
) -> dict[str, Any]:
    """Behaviour simulation of a single reservoir that meets demand when it can.

    Parameters
    ----------
    inflow : volume entering in each period (a Series with a DatetimeIndex dates the results).
    demand : volume demanded in each period, or a constant.
    capacity : total storage at full supply level, dead storage included.
    dead_storage : storage below the lowest outlet, never released.
    initial_storage : storage at the start; full (``capacity``) by default, the usual convention.
    evaporation : net evaporation volume lost in each period, or a constant. A fixed volume: the
        dependence of the water surface on storage is not modelled (compute it beforehand when it
        matters); it is limited to the water present.
    failure_tolerance, periods_per_year, year_start_month : as in :func:`supply_reliability`.
    return_series : include the period-by-period storage, release, spill, evaporation and
        shortfall.

    Returns
    -------
    dict with ``performance`` (the measures of :func:`supply_reliability`), ``totals`` (inflow,
    demand, release, spill, evaporation, shortfall), ``final_storage``, ``min_storage``,
    ``mass_balance_error`` (S0 + inflow - release - spill - evaporation - S_end, which should be 0),
    the series when asked, and ``unit``.
    """
    params = resolved_parameters(simulate_reservoir, (inflow, demand, capacity), dict(
        dead_storage=dead_storage, initial_storage=initial_storage, evaporation=evaporation,
        failure_tolerance=failure_tolerance, periods_per_year=periods_per_year, year_start_month=year_start_month,
        unit=unit, return_series=return_series))
    q, d, e, index = _matched(inflow, demand, evaporation)
    cap = _scalar(capacity, "capacity", positive=True)
    dead = _scalar(dead_storage, "dead_storage")
    if dead >= cap:
        raise InputError.bad_value("dead_storage", dead_storage, f"a storage below the capacity {cap:g}")
    s0 = cap if initial_storage is None else _scalar(initial_storage, "initial_storage")
    if s0 > cap:
        raise InputError.bad_value("initial_storage", initial_storage, f"a storage from 0 to the capacity {cap:g}")
    tol = _scalar(failure_tolerance, "failure_tolerance")
    if tol >= 1:
        raise InputError.bad_value("failure_tolerance", failure_tolerance, "a share of demand from 0 to below 1")
    years, basis = _year_labels(q.size, index, periods_per_year, year_start_month)

    n = q.size
    storage, release, spill, evap = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    s = s0
    for t in range(n):
        water = s + q[t]
        lost = min(e[t], water)
        water -= lost
        r = min(d[t], max(water - dead, 0.0))
        water -= r
        over = max(water - cap, 0.0)
        s = water - over
        storage[t], release[t], spill[t], evap[t] = s, r, over, lost
    balance = s0 + q.sum() - release.sum() - spill.sum() - evap.sum() - s
    perf = _performance(release, d, tol, years, basis, index)
    payload: dict[str, Any] = {
        "method": "simulate_reservoir",
        "ok": True,
        "unit": unit,
        "policy": "standard operating policy: release the demand when the water above dead storage allows, spill above capacity",
        "capacity": cap,
        "dead_storage": dead,
        "active_capacity": cap - dead,
        "initial_storage": s0,
        "final_storage": float(s),
        "min_storage": float(storage.min()),
        "n_periods": n,
        "totals": {"inflow": float(q.sum()), "demand": float(d.sum()), "release": float(release.sum()),
                   "spill": float(spill.sum()), "evaporation": float(evap.sum()),
                   "shortfall": float(np.maximum(d - release, 0).sum())},
        "mass_balance_error": float(balance),
        "performance": perf,
    }
    if abs(balance) > 1e-6 * max(1.0, s0 + q.sum()):
        payload.update(ok=False, reason=f"mass balance does not close (error {balance:g} {unit})")
    if return_series:
        payload["series"] = {
            "dates": None if index is None else [ts.isoformat() for ts in index],
            "storage": storage, "release": release, "spill": spill, "evaporation": evap,
            "shortfall": np.maximum(d - release, 0.0),
        }
    log.debug("simulate_reservoir: %d periods, reliability %.3f", n, perf["reliability_time"])
    return finish(payload, "simulate_reservoir", params, [source("reservoir behaviour simulation", citation=_HASHIMOTO)])


# --------------------------------------------------------------------------- sequent peak


def sequent_peak_storage(
    inflow: ArrayLike,
    demand: ArrayLike | float,
    *,
    evaporation: ArrayLike | float = 0.0,
    double_cycle: bool = True,
    unit: str = "hm3",
    return_series: bool = False,
) -> dict[str, Any]:
    """The active storage needed to meet ``demand`` from ``inflow`` without a failure (sequent peak).

    ``K[t] = max(0, K[t-1] + D[t] + E[t] - Q[t])`` from ``K[0] = 0``; the required storage is
    ``max K``. With ``double_cycle`` (default) the record is run twice end to end, so that a
    deficit still open at the end of the record is carried into a repeat of its start.

    Returns
    -------
    dict with ``required_storage`` (``unit``), ``peak_period`` (index into the record and date, and
    whether the peak fell in the second cycle), ``critical_period`` (first period of the drawdown
    that ends at the peak, and its length), ``demand_to_inflow`` (total demand plus evaporation over
    total inflow). Refused (``ok: False``) when demand and evaporation exceed inflow over the
    record: no finite storage meets such a demand year after year.
    """
    params = resolved_parameters(sequent_peak_storage, (inflow, demand), dict(
        evaporation=evaporation, double_cycle=double_cycle, unit=unit, return_series=return_series))
    if not isinstance(double_cycle, bool):
        raise InputError.bad_value("double_cycle", double_cycle, "True or False")
    q, d, e, index = _matched(inflow, demand, evaporation)
    n = q.size
    net = d + e - q
    total_in = float(q.sum())
    ratio = float((d + e).sum() / total_in) if total_in > 0 else None
    payload: dict[str, Any] = {"method": "sequent_peak_storage", "ok": True, "reason": None, "unit": unit,
                               "n_periods": n, "double_cycle": double_cycle, "demand_to_inflow": ratio}
    if net.sum() > _EPS * max(total_in, 1.0):
        payload.update(ok=False, required_storage=None,
                       reason=(f"demand and evaporation ({float((d + e).sum()):g} {unit}) exceed the inflow "
                               f"({total_in:g} {unit}) over the record: the deficit grows with every repeat of the "
                               "record, so no finite storage meets this demand"))
        return finish(payload, "sequent_peak_storage", params, [source("sequent-peak algorithm", citation=_SPA)])
    run = np.concatenate([net, net]) if double_cycle else net
    k = np.empty(run.size)
    acc = 0.0
    for t, x in enumerate(run):
        acc = max(0.0, acc + x)
        k[t] = acc
    peak = int(np.argmax(k))
    kmax = float(k[peak])
    zero = np.flatnonzero(k[: peak + 1] <= 0.0)
    start = int(zero[-1] + 1) if zero.size else 0
    pos = peak % n
    payload.update(required_storage=kmax)
    if kmax > 0:
        payload["peak_period"] = {"index": pos, "date": None if index is None else index[pos].isoformat(),
                                  "in_second_cycle": bool(peak >= n)}
        payload["critical_period"] = {"start_index": start % n,
                                      "start_date": None if index is None else index[start % n].isoformat(),
                                      "n_periods": peak - start + 1}
    else:
        payload["peak_period"] = None
        payload["critical_period"] = None
        payload["note"] = "inflow meets demand in every period: no storage is needed"
    if return_series:
        payload["deficit_series"] = k
    return finish(payload, "sequent_peak_storage", params, [source("sequent-peak algorithm", citation=_SPA)])
