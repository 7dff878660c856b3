"""The GR4J daily rainfall-runoff model: simulation, calibration and split-sample validation.

GR4J (Perrin, Michel & Andreassian 2003) turns daily catchment precipitation P and potential
evapotranspiration E (mm/d) into discharge at the outlet (mm/d over the catchment area) with four
parameters:

===== ================================================ ======
X1    capacity of the production (soil) store           mm
X2    groundwater exchange coefficient (+ import)       mm/d
X3    capacity of the routing store (one day ahead)     mm
X4    time base of unit hydrograph UH1                  d
===== ================================================ ======

The equations are those of airGR's ``RunModel_GR4J`` (Coron et al. 2017), which this module
reproduces to better than 1e-6 on every day of the airGR reference run (tests). The daily loop is
compiled with numba on first use (``_gr4j_kernel``); nothing here loops over days in Python.

Periods
-------
The model runs from ``run_start - warmup_days`` to ``run_end``; only ``run_start..run_end`` is
reported or scored, the warm-up lets the stores forget their initial levels (airGR defaults:
production store 0.3 X1, routing store 0.5 X3, empty unit hydrographs). ``run_start`` and
``run_end`` are inclusive and are dates when the series carry dates, positions otherwise.

Inputs never get filled: a missing P or E day inside the modelled window is refused with its
date; a missing observed discharge day is skipped by the calibration criterion.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any, Literal, Mapping, Sequence

import numpy as np
import pandas as pd

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods import metrics
from aquascope_core.methods._gr4j_kernel import N_STATES, STATE_NAMES, UH1_SLOTS, UH2_SLOTS
from aquascope_core.result import finish, resolved_parameters, source

__all__ = [
    "PARAMETER_NAMES",
    "PARAMETER_UNITS",
    "DEFAULT_SEARCH_RANGES",
    "gr4j_simulation",
    "gr4j_calibration",
    "gr4j_split_sample_validation",
]

log = logging.getLogger(__name__)

Criterion = Literal["nse", "kge", "nse_sqrt", "nse_log"]

PARAMETER_NAMES = ("x1", "x2", "x3", "x4")
PARAMETER_UNITS = {"x1": "mm", "x2": "mm/d", "x3": "mm", "x4": "d"}
# Below these the stores or the unit hydrographs are degenerate (airGR's own thresholds); above
# 20 days UH1 outgrows the 20/40 slots of airGR's state vector.
_X_STORE_MIN = 0.01
_X4_MIN, _X4_MAX = 0.5, 20.0

# The calibration searches inside these (real units); a wider range is the caller's to give.
DEFAULT_SEARCH_RANGES: dict[str, tuple[float, float]] = {
    "x1": (1.0, 10000.0),
    "x2": (-20.0, 20.0),
    "x3": (1.0, 5000.0),
    "x4": (0.5, 20.0),
}
# Screening grid: the medians and 80% intervals of the calibrated parameters over 429 catchments
# in Perrin et al. (2003): X1 350 (100-1200), X2 0 (-5..3), X3 90 (20-300), X4 1.7 (1.1-2.9).
_GRID = {
    "x1": (100.0, 350.0, 1200.0),
    "x2": (-5.0, 0.0, 3.0),
    "x3": (20.0, 90.0, 300.0),
    "x4": (1.1, 1.7, 2.9),
}
MIN_OBSERVED_DAYS = 365
MIN_WARMUP_DAYS = 365
_TOLERANCE = 1e-4   # final pattern-search step, as a share of each transformed range
_MAX_RUNS = 3000
# Score of the observed mean used as the simulation: 0 for the NSEs, 1 - sqrt(2) for KGE (Knoben et
# al. 2019, Hydrol. Earth Syst. Sci. 23, 4323-4331). A calibration must beat it.
_MEAN_FLOW_SCORE = {"nse": 0.0, "nse_sqrt": 0.0, "nse_log": 0.0, "kge": 1.0 - math.sqrt(2.0)}

CITE_GR4J = "Perrin, C., Michel, C. & Andreassian, V. (2003) Improvement of a parsimonious model for streamflow " \
            "simulation. J. Hydrol. 279, 275-289, doi:10.1016/S0022-1694(03)00225-7"
CITE_AIRGR = "Coron, L., Thirel, G., Delaigue, O., Perrin, C. & Andreassian, V. (2017) The suite of lumped GR " \
             "hydrological models in an R package. Environ. Model. Softw. 94, 166-171, " \
             "doi:10.1016/j.envsoft.2017.05.002"
CITE_HJ = "Hooke, R. & Jeeves, T.A. (1961) 'Direct search' solution of numerical and statistical problems. " \
          "J. ACM 8(2), 212-229"
CITE_SPLIT = "Klemes, V. (1986) Operational testing of hydrological simulation models. Hydrol. Sci. J. 31(1), 13-24"


# --------------------------------------------------------------------------------------------
# inputs


@dataclass(frozen=True)
class _Series:
    p: np.ndarray
    e: np.ndarray
    dates: pd.DatetimeIndex | None
    observed: np.ndarray | None


_P_COLUMNS = ("precipitation", "P")
_E_COLUMNS = ("pet", "E")
_DATE_COLUMNS = ("date", "DatesR")


def _column(frame: pd.DataFrame, names: Sequence[str], what: str) -> pd.Series:
    for name in names:
        if name in frame.columns:
            return frame[name]
    raise InputError(f"the DataFrame has no {what} column; name it one of {', '.join(map(repr, names))} "
                     f"(it has {', '.join(map(str, frame.columns))})", argument="precipitation")


def _as_dates(values: Any, argument: str) -> pd.DatetimeIndex:
    try:
        idx = pd.DatetimeIndex(pd.to_datetime(values))
    except (TypeError, ValueError):
        raise InputError.bad_value(argument, values, "dates (strings, datetimes or a DatetimeIndex)") from None
    if idx.tz is not None:
        idx = idx.tz_localize(None)
    if idx.hasnans:
        raise InputError(f"{argument} holds a missing date; every day needs its date", argument=argument)
    seconds = idx.to_numpy().astype("datetime64[s]").astype(np.int64)
    bad = np.flatnonzero(np.diff(seconds) != 86_400)
    if bad.size:
        k = int(bad[0])
        raise InputError(
            f"{argument} must run day after day without gaps or repeats; {idx[k].date()} is followed by "
            f"{idx[k + 1].date()}. GR4J needs every day: supply the missing days' forcing (or cut the series)",
            argument=argument, value=str(idx[k + 1].date()),
        )
    return idx


def _as_float(values: Any, argument: str) -> np.ndarray:
    try:
        return np.array(values, dtype=float).ravel()  # a copy: the caller's data are never touched
    except (TypeError, ValueError):
        raise InputError.bad_value(argument, values, "a list, array or Series of numbers in mm/d") from None


def _read_series(precipitation: Any, pet: Any, observed: Any, dates: Any, *, need_observed: bool) -> _Series:
    """P, E (and observed Q) as float copies with their dates, from arrays, Series or a DataFrame."""
    index = None
    if isinstance(precipitation, pd.DataFrame):
        frame = precipitation
        if pet is not None:
            raise InputError("pass pet as a column of the DataFrame or pass two series, not both", argument="pet")
        p_raw, e_raw = _column(frame, _P_COLUMNS, "precipitation"), _column(frame, _E_COLUMNS, "pet")
        if isinstance(observed, str):
            observed = _column(frame, (observed,), f"observed discharge ({observed!r})")
        if dates is None:
            if isinstance(frame.index, pd.DatetimeIndex):
                index = frame.index
            else:
                date_col = next((c for c in _DATE_COLUMNS if c in frame.columns), None)
                index = frame[date_col] if date_col else None
    else:
        p_raw, e_raw = precipitation, pet
        if pet is None:
            raise InputError("pet is missing: pass daily potential evapotranspiration (mm/d) beside precipitation, "
                             "or one DataFrame with both", argument="pet")
        if isinstance(observed, str):
            raise InputError.bad_value("observed", observed,
                                       "a series of discharge (a column name only with a DataFrame)")
        if dates is None and isinstance(p_raw, pd.Series) and isinstance(p_raw.index, pd.DatetimeIndex):
            index = p_raw.index
            if isinstance(e_raw, pd.Series) and not e_raw.index.equals(p_raw.index):
                raise InputError("precipitation and pet are Series with different dates; align them first",
                                 argument="pet")
    p, e = _as_float(p_raw, "precipitation"), _as_float(e_raw, "pet")
    if p.size != e.size:
        raise InputError(f"precipitation has {p.size} days and pet {e.size}; pass both over the same days",
                         argument="pet", value=e.size)
    if p.size == 0:
        raise InsufficientDataError("precipitation is empty", argument="precipitation")
    raw_dates = dates if dates is not None else index
    stamp = _as_dates(raw_dates, "dates") if raw_dates is not None else None
    if stamp is not None and len(stamp) != p.size:
        raise InputError(f"dates has {len(stamp)} values for {p.size} days of forcing", argument="dates")
    q = None
    if observed is not None:
        if isinstance(observed, pd.Series) and isinstance(observed.index, pd.DatetimeIndex) and stamp is not None \
                and not observed.index.equals(stamp):
            raise InputError("observed is indexed by other dates than the forcing; align it first, "
                             "e.g. observed.reindex(dates) (the days it lacks become missing, and are skipped)",
                             argument="observed")
        q = _as_float(observed, "observed")
        if q.size != p.size:
            raise InputError(f"observed has {q.size} days for {p.size} days of forcing; give it over the same days "
                             "(NaN where no discharge was measured)", argument="observed", value=q.size)
        if np.isinf(q).any() or (q < 0).any():
            bad = int(np.flatnonzero(np.isinf(q) | (q < 0))[0])
            raise InputError.bad_value("observed", float(q[bad]), f"a discharge >= 0 in mm/d or NaN when missing "
                                       f"({_day(stamp, bad)})")
    elif need_observed:
        raise InputError("observed discharge (mm/d) is needed to calibrate", argument="observed")
    return _Series(p, e, stamp, q)


def _day(dates: pd.DatetimeIndex | None, i: int) -> str:
    return str(dates[i].date()) if dates is not None else f"position {i}"


def _position(value: Any, dates: pd.DatetimeIndex | None, n: int, argument: str) -> int:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if not 0 <= value < n:
            raise InputError.bad_value(argument, value, f"a position from 0 to {n - 1}")
        return int(value)
    if dates is None:
        raise InputError.bad_value(argument, value, "a position (the series carry no dates; pass dates= to use dates)")
    try:
        when = pd.Timestamp(value)
    except (TypeError, ValueError):
        raise InputError.bad_value(argument, value, "a date such as '1990-01-01'") from None
    where = dates.get_indexer([when])[0]
    if where < 0:
        raise InputError.bad_value(argument, value, f"a day between {dates[0].date()} and {dates[-1].date()}")
    return int(where)


def _window(series: _Series, run_start: Any, run_end: Any, warmup_days: int | None) -> tuple[int, int, int]:
    """(first modelled day, first reported day, one past the last reported day) as positions."""
    n = series.p.size
    if warmup_days is not None and (not isinstance(warmup_days, (int, np.integer)) or warmup_days < 0):
        raise InputError.bad_value("warmup_days", warmup_days, "a whole number of days >= 0, or None (every day "
                                   "before run_start)")
    if run_start is None:
        i1 = int(warmup_days or 0)
        if i1 >= n:
            raise InsufficientDataError(f"a warm-up of {i1} days leaves no day to run in a series of {n} days",
                                        argument="warmup_days", value=warmup_days)
    else:
        i1 = _position(run_start, series.dates, n, "run_start")
    i2 = n if run_end is None else _position(run_end, series.dates, n, "run_end") + 1
    if i2 <= i1:
        raise InputError.bad_value("run_end", run_end, f"a day after run_start ({_day(series.dates, i1)})")
    i0 = 0 if warmup_days is None else i1 - int(warmup_days)
    if i0 < 0:
        raise InsufficientDataError(
            f"a warm-up of {warmup_days} days was asked but only {i1} days precede run_start "
            f"({_day(series.dates, i1)}); start the run later or give an earlier forcing record",
            argument="warmup_days", value=warmup_days)
    for arr, name in ((series.p, "precipitation"), (series.e, "pet")):
        part = arr[i0:i2]
        gaps = np.flatnonzero(~np.isfinite(part))
        if gaps.size:
            raise InputError(
                f"{name} is missing on {_day(series.dates, i0 + int(gaps[0]))}"
                + (f" and {gaps.size - 1} more day(s)" if gaps.size > 1 else "")
                + " of the modelled period; GR4J needs every day of the warm-up and run: supply the missing "
                  "values from another record, or choose a period without gaps",
                argument=name, value=_day(series.dates, i0 + int(gaps[0])))
        neg = np.flatnonzero(part < 0)
        if neg.size:
            raise InputError.bad_value(name, float(part[neg[0]]),
                                       f"a depth >= 0 mm/d (negative on {_day(series.dates, i0 + int(neg[0]))})")
    return i0, i1, i2


def _parameters(parameters: Any) -> tuple[float, float, float, float]:
    if isinstance(parameters, Mapping):
        lowered = {str(k).lower(): v for k, v in parameters.items()}
        missing = [k for k in PARAMETER_NAMES if k not in lowered]
        extra = sorted(set(lowered) - set(PARAMETER_NAMES))
        if missing or extra:
            raise InputError.bad_value("parameters", dict(parameters), "a mapping with exactly the keys x1, x2, x3, x4")
        values = [lowered[k] for k in PARAMETER_NAMES]
    else:
        try:
            values = list(parameters)
        except TypeError:
            raise InputError.bad_value("parameters", parameters, "four numbers (x1, x2, x3, x4) or a mapping") from None
        if len(values) != 4:
            raise InputError.bad_value("parameters", parameters, "four numbers (x1, x2, x3, x4)")
    try:
        x1, x2, x3, x4 = (float(v) for v in values)
    except (TypeError, ValueError):
        raise InputError.bad_value("parameters", parameters, "four numbers (x1, x2, x3, x4)") from None
    if not all(math.isfinite(v) for v in (x1, x2, x3, x4)):
        raise InputError.bad_value("parameters", parameters, "finite numbers")
    if x1 < _X_STORE_MIN:
        raise InputError.bad_value("x1", x1, f"a production store capacity >= {_X_STORE_MIN} mm")
    if x3 < _X_STORE_MIN:
        raise InputError.bad_value("x3", x3, f"a routing store capacity >= {_X_STORE_MIN} mm")
    if not _X4_MIN <= x4 <= _X4_MAX:
        raise InputError.bad_value("x4", x4, f"a unit-hydrograph time base from {_X4_MIN} to {_X4_MAX} days")
    return x1, x2, x3, x4


def _initial_state(initial_state: Mapping[str, Any] | None, x: tuple[float, ...]):
    """[production, routing] levels and the two unit-hydrograph stores at the start of the run."""
    x1, _, x3, x4 = x
    state = dict(initial_state or {})
    unknown = sorted(set(state) - {"production_store", "routing_store", "uh1", "uh2"})
    if unknown:
        raise InputError.bad_value("initial_state", unknown,
                                   "keys among production_store, routing_store (mm), uh1, uh2 (lists of mm)")
    prod = float(state.get("production_store", 0.3 * x1))
    rout = float(state.get("routing_store", 0.5 * x3))
    if not 0.0 <= prod <= x1:
        raise InputError.bad_value("initial_state.production_store", prod, f"a level from 0 to x1 = {x1:g} mm")
    if not 0.0 <= rout <= x3:
        raise InputError.bad_value("initial_state.routing_store", rout, f"a level from 0 to x3 = {x3:g} mm")
    held = []
    for key, n_used, slots in (("uh1", math.ceil(x4), UH1_SLOTS), ("uh2", math.ceil(2 * x4), UH2_SLOTS)):
        arr = np.zeros(slots)
        if state.get(key) is not None:
            given = _as_float(state[key], f"initial_state.{key}")
            if given.size > slots or not np.all(np.isfinite(given)) or (given < 0).any() or np.any(given[n_used:] != 0):
                raise InputError.bad_value(f"initial_state.{key}", state[key],
                                           f"at most {slots} depths >= 0 (mm), zero beyond the first {n_used} "
                                           "(the days this x4 gives the unit hydrograph)")
            arr[: given.size] = given
        held.append(arr)
    return np.array([prod, rout]), held[0], held[1]


def _run(p, e, x, stores, st1, st2, *, record: bool):
    """Run the compiled loop over p, e; returns (q, states or None). stores/st1/st2 end as the end state."""
    from aquascope_core.methods._gr4j_kernel import compiled

    q = np.empty(p.size)
    states = np.empty((p.size if record else 0, N_STATES))
    compiled()(p, e, x[0], x[1], x[2], x[3], stores, st1, st2, q, states)
    return q, (states if record else None)


def _fresh_state(x: Sequence[float]):
    """airGR's default start: production store 0.3 x1, routing store 0.5 x3, empty unit hydrographs."""
    return np.array([0.3 * x[0], 0.5 * x[2]]), np.zeros(UH1_SLOTS), np.zeros(UH2_SLOTS)


def _period_dict(series: _Series, i0: int, i1: int, i2: int) -> dict[str, Any]:
    """The modelled period as ISO days, or as positions when the series carry no dates."""
    def at(i: int) -> Any:
        return str(series.dates[i].date()) if series.dates is not None else i

    return {"warmup_start": at(i0) if i0 < i1 else None, "run_start": at(i1), "run_end": at(i2 - 1)}


# --------------------------------------------------------------------------------------------
# simulation


def gr4j_simulation(
    precipitation: Any,
    pet: Any = None,
    *,
    parameters: Sequence[float] | Mapping[str, float],
    dates: Any = None,
    run_start: Any = None,
    run_end: Any = None,
    warmup_days: int | None = None,
    initial_state: Mapping[str, Any] | None = None,
    return_states: bool = False,
) -> dict[str, Any]:
    """Simulate daily discharge with GR4J.

    Parameters
    ----------
    precipitation, pet : daily catchment precipitation and potential evapotranspiration (mm/d), as
        lists, arrays or Series; or one DataFrame as ``precipitation`` with columns
        ``precipitation``/``P`` and ``pet``/``E`` (dates from a DatetimeIndex or a ``date``/``DatesR`` column).
    parameters : x1 (mm), x2 (mm/d), x3 (mm), x4 (d), as four numbers or a mapping (a calibration's
        ``parameters`` fits as is). Valid: x1, x3 >= 0.01, 0.5 <= x4 <= 20, x2 any finite number.
    dates : the days of the series, when they are not on the Series/DataFrame.
    run_start, run_end : first and last reported day (inclusive; dates or positions). Default: the
        whole series after the warm-up.
    warmup_days : days modelled before ``run_start`` and not reported; ``None`` uses every day
        before ``run_start`` (none when ``run_start`` is not given either).
    initial_state : levels at the start of the warm-up: ``production_store`` and ``routing_store``
        (mm; airGR defaults 0.3 x1 and 0.5 x3), ``uh1``/``uh2`` (mm still to be released, default
        empty). A previous run's ``final_state`` continues it.
    return_states : also return the daily internal fluxes and stores of the run period.

    Returns
    -------
    dict with ``method`` ("gr4j_simulation"), ``ok``, ``qsim`` (mm/d, one value per reported day:
    ``qsim[k]`` is day ``period.run_start + k``), ``unit``, ``start_position`` (of run_start in the
    input), ``period`` (``warmup_start``, ``run_start``, ``run_end``: ISO days, or positions),
    ``warmup_days``, ``n_days``, ``total_mm``, ``parameters``, ``parameter_units``,
    ``initial_state``, ``final_state``, ``states`` (name -> daily list, see
    ``_gr4j_kernel.STATE_NAMES``, or ``None``), ``warnings`` and ``meta``.
    """
    params = resolved_parameters(gr4j_simulation, (precipitation, pet), {
        "parameters": parameters, "dates": dates, "run_start": run_start, "run_end": run_end,
        "warmup_days": warmup_days, "initial_state": initial_state, "return_states": return_states})
    x = _parameters(parameters)
    series = _read_series(precipitation, pet, None, dates, need_observed=False)
    i0, i1, i2 = _window(series, run_start, run_end, warmup_days)
    stores, st1, st2 = _initial_state(initial_state, x)
    start = {"production_store": float(stores[0]), "routing_store": float(stores[1]),
             "uh1": st1.tolist(), "uh2": st2.tolist()}
    q, states = _run(series.p[i0:i2], series.e[i0:i2], x, stores, st1, st2, record=return_states)
    warnings = []
    if i1 - i0 < MIN_WARMUP_DAYS and initial_state is None:
        warnings.append(f"warm-up of {i1 - i0} days (under a year): the first months depend on the assumed "
                        "initial store levels")
    qrun = q[i1 - i0:]
    payload = {
        "method": "gr4j_simulation",
        "ok": True,
        "qsim": qrun,
        "unit": "mm/d",
        "start_position": i1,
        "period": _period_dict(series, i0, i1, i2),
        "warmup_days": i1 - i0,
        "n_days": i2 - i1,
        "total_mm": float(qrun.sum()),
        "parameters": dict(zip(PARAMETER_NAMES, x)),
        "parameter_units": dict(PARAMETER_UNITS),
        "initial_state": start,
        "final_state": {"production_store": float(stores[0]), "routing_store": float(stores[1]),
                        "uh1": st1.tolist(), "uh2": st2.tolist()},
        "states": None if states is None else
        {name: states[i1 - i0:, k] for k, name in enumerate(STATE_NAMES)},
        "warnings": warnings,
    }
    return finish(payload, "gr4j_simulation", params,
                  [source("GR4J", citation=CITE_GR4J), source("airGR", citation=CITE_AIRGR)])



# --------------------------------------------------------------------------------------------
# calibration

# Search coordinates: ln x1, asinh x2, ln x3, ln x4 (airGR searches ln/asinh too, with x4 linear),
# each scaled to [0, 1] over its search range so one step size suits every parameter.
_FORWARD = (np.log, np.arcsinh, np.log, np.log)
_BACKWARD = (np.exp, np.sinh, np.exp, np.exp)


def _search_ranges(search_ranges: Mapping[str, Sequence[float]] | None) -> dict[str, tuple[float, float]]:
    ranges = dict(DEFAULT_SEARCH_RANGES)
    for key, bounds in (search_ranges or {}).items():
        name = str(key).lower()
        if name not in PARAMETER_NAMES:
            raise InputError.bad_value("search_ranges", key, "keys among x1, x2, x3, x4")
        try:
            lo, hi = (float(b) for b in bounds)
        except (TypeError, ValueError):
            raise InputError.bad_value(f"search_ranges[{name!r}]", bounds, "a pair (low, high)") from None
        floor, ceiling = {"x1": (_X_STORE_MIN, math.inf), "x2": (-math.inf, math.inf),
                          "x3": (_X_STORE_MIN, math.inf), "x4": (_X4_MIN, _X4_MAX)}[name]
        if not (math.isfinite(lo) and math.isfinite(hi) and floor <= lo < hi <= ceiling):
            raise InputError.bad_value(f"search_ranges[{name!r}]", bounds,
                                       f"low < high, both finite and within [{floor}, {ceiling}] "
                                       f"{PARAMETER_UNITS[name]}")
        ranges[name] = (lo, hi)
    return ranges


class _Cube:
    """Parameters <-> the unit cube of the search."""

    def __init__(self, ranges: Mapping[str, tuple[float, float]]):
        self.lo = np.array([f(ranges[k][0]) for f, k in zip(_FORWARD, PARAMETER_NAMES)])
        self.hi = np.array([f(ranges[k][1]) for f, k in zip(_FORWARD, PARAMETER_NAMES)])

    def to_unit(self, x: Sequence[float]) -> np.ndarray:
        t = np.array([f(v) for f, v in zip(_FORWARD, x)])
        return np.clip((t - self.lo) / (self.hi - self.lo), 0.0, 1.0)

    def to_real(self, u: np.ndarray) -> tuple[float, float, float, float]:
        t = self.lo + u * (self.hi - self.lo)
        return tuple(float(g(v)) for g, v in zip(_BACKWARD, t))  # type: ignore[return-value]


class _Objective:
    """The criterion of one parameter set over the scored days: one compiled run and a few array sums."""

    def __init__(self, p: np.ndarray, e: np.ndarray, scored: np.ndarray, observed: np.ndarray,
                 criterion: Criterion, epsilon: float):
        from aquascope_core.methods._gr4j_kernel import compiled

        self.kernel = compiled()
        self.p, self.e, self.scored, self.criterion, self.epsilon = p, e, scored, criterion, epsilon
        self.q = np.empty(p.size)
        self.no_states = np.empty((0, N_STATES))
        self.obs = self._transform(observed)
        self.obs_dev = self.obs - self.obs.mean()
        self.obs_ss = float(self.obs_dev @ self.obs_dev)
        self.runs = 0

    def _transform(self, q: np.ndarray) -> np.ndarray:
        if self.criterion == "nse_sqrt":
            return np.sqrt(q)
        if self.criterion == "nse_log":
            return np.log(q + self.epsilon)
        return q

    def __call__(self, x: Sequence[float]) -> float:
        stores, st1, st2 = _fresh_state(x)
        self.kernel(self.p, self.e, x[0], x[1], x[2], x[3], stores, st1, st2, self.q, self.no_states)
        self.runs += 1
        sim = self._transform(self.q[self.scored])
        if self.criterion == "kge":
            dev = sim - sim.mean()
            ss = float(dev @ dev)
            if ss == 0.0:
                return -math.inf
            r = float(dev @ self.obs_dev) / math.sqrt(ss * self.obs_ss)
            alpha = math.sqrt(ss / self.obs_ss)
            beta = float(sim.mean()) / float(self.obs.mean())
            value = 1.0 - math.sqrt((r - 1.0) ** 2 + (alpha - 1.0) ** 2 + (beta - 1.0) ** 2)
        else:
            err = sim - self.obs
            value = 1.0 - float(err @ err) / self.obs_ss
        return value if math.isfinite(value) else -math.inf


def _pattern_search(score, u0: np.ndarray, s0: float, *, step: float, tolerance: float, max_runs: int):
    """Maximise ``score(u)`` over the unit cube by Hooke & Jeeves' pattern search.

    Exploratory moves try +-step along each coordinate (the last successful sign first) and keep
    any gain; while they gain, a pattern move jumps on by the same displacement; when they do not,
    the step halves. Stops when the step falls below ``tolerance`` (converged) or after
    ``max_runs`` distinct evaluations (not converged). Returns (u, score, step, converged).
    """
    seen: dict[tuple[float, ...], float] = {}

    def value(u: np.ndarray) -> float:
        key = tuple(np.round(u, 12))
        if key not in seen:
            seen[key] = score(u)
        return seen[key]

    signs = np.ones(u0.size)

    def explore(centre: np.ndarray, best: float) -> tuple[np.ndarray, float]:
        point = centre.copy()
        for i in range(point.size):
            for sign in (signs[i], -signs[i]):
                trial = point.copy()
                trial[i] = min(1.0, max(0.0, point[i] + sign * step))
                if trial[i] == point[i]:
                    continue
                got = value(trial)
                if got > best:
                    point, best, signs[i] = trial, got, sign
                    break
        return point, best

    base, best = u0.copy(), s0
    while step >= tolerance and len(seen) < max_runs:
        point, got = explore(base, best)
        if got > best:
            while len(seen) < max_runs:
                jump = np.clip(point + (point - base), 0.0, 1.0)
                base, best = point, got
                point, got = explore(jump, value(jump))
                if got <= best:
                    break
        else:
            step /= 2.0
    return base, best, step, step < tolerance


def _observed_days(series: _Series, i1: int, i2: int, what: str) -> np.ndarray:
    """Positions (from i1) of the observed days in i1..i2, refusing fewer than MIN_OBSERVED_DAYS."""
    assert series.observed is not None
    known = np.flatnonzero(~np.isnan(series.observed[i1:i2]))
    if known.size < MIN_OBSERVED_DAYS:
        raise InsufficientDataError(
            f"{known.size} days of observed discharge in the {what} period ({_day(series.dates, i1)} to "
            f"{_day(series.dates, i2 - 1)}); GR4J needs at least {MIN_OBSERVED_DAYS} to be {what}d: "
            "lengthen the period (missing days are skipped, never filled)",
            argument="observed", value=int(known.size))
    return known


def _check_warmup(i0: int, i1: int) -> None:
    if i1 - i0 < MIN_WARMUP_DAYS:
        raise InsufficientDataError(
            f"a warm-up of {i1 - i0} days; the stores need at least {MIN_WARMUP_DAYS} days (a year) to forget "
            "their assumed initial levels before their output is scored: start run_start later",
            argument="warmup_days", value=i1 - i0)


def _scores(observed: np.ndarray, simulated: np.ndarray) -> dict[str, float]:
    parts = metrics.kge_components(observed, simulated)
    return {
        "nse": metrics.nse(observed, simulated),
        "nse_sqrt": metrics.nse_sqrt(observed, simulated),
        "nse_log": metrics.nse_log(observed, simulated, epsilon=float(np.nanmean(observed)) / 100.0),
        **parts,
        "bias_mm_per_day": metrics.bias(observed, simulated),
        "percent_bias": metrics.percent_bias(observed, simulated),
    }


def _simulate_window(series: _Series, x: tuple[float, ...], i0: int, i2: int) -> np.ndarray:
    q, _ = _run(series.p[i0:i2], series.e[i0:i2], x, *_fresh_state(x), record=False)
    return q


def _calibrate(series: _Series, i0: int, i1: int, i2: int, criterion: Criterion,
               ranges: Mapping[str, tuple[float, float]]) -> dict[str, Any]:
    """The search itself; returns the payload fields of a calibration (without meta)."""
    known = _observed_days(series, i1, i2, "calibrate")
    observed = series.observed[i1:i2][known]
    if np.ptp(observed) == 0.0:
        raise InsufficientDataError(f"every observed discharge in the period equals {observed[0]:g} mm/d; the "
                                    "criteria compare against the flows' variance, which is 0", argument="observed")
    epsilon = float(observed.mean()) / 100.0
    objective = _Objective(series.p[i0:i2], series.e[i0:i2], known + (i1 - i0), observed, criterion, epsilon)
    cube = _Cube(ranges)

    # 1. screen a coarse grid (Perrin et al. 2003's parameter quantiles, clipped to the ranges)
    levels = [sorted({min(max(v, ranges[k][0]), ranges[k][1]) for v in _GRID[k]}) for k in PARAMETER_NAMES]
    grid = np.array(np.meshgrid(*levels, indexing="ij")).reshape(4, -1).T
    grid_scores = np.array([objective(tuple(row)) for row in grid])
    grid_runs = objective.runs
    best = int(np.argmax(grid_scores))
    start = tuple(float(v) for v in grid[best])

    # 2. pattern search from the best grid point, in the unit cube
    u, value, step, converged = _pattern_search(lambda u: objective(cube.to_real(u)), cube.to_unit(start),
                                                float(grid_scores[best]), step=1.0 / 16.0,
                                                tolerance=_TOLERANCE, max_runs=_MAX_RUNS)
    x = cube.to_real(u)
    on_bound = [name for name, ui in zip(PARAMETER_NAMES, u) if ui < 1e-3 or ui > 1.0 - 1e-3]
    checks = [
        {"check": "observed_days", "passed": True,
         "detail": f"{known.size} observed days scored (at least {MIN_OBSERVED_DAYS}); "
                   f"{i2 - i1 - known.size} missing days skipped"},
        {"check": "warmup_days", "passed": True, "detail": f"{i1 - i0} warm-up days (at least {MIN_WARMUP_DAYS})"},
        {"check": "criterion_finite", "passed": math.isfinite(value), "detail": f"{criterion} = {value:.6g}"},
        {"check": "beats_mean_flow", "passed": bool(value > _MEAN_FLOW_SCORE[criterion]),
         "detail": f"{criterion} = {value:.4g} against {_MEAN_FLOW_SCORE[criterion]:.3g} for the observed mean "
                   "as the simulation"},
        {"check": "search_converged", "passed": converged,
         "detail": f"final step {step:.2g} of each transformed range (tolerance {_TOLERANCE:g}) "
                   f"after {objective.runs} runs"},
        {"check": "inside_search_ranges", "passed": not on_bound,
         "detail": "no parameter on a bound" if not on_bound else
         "; ".join(f"{k} = {v:.6g} {PARAMETER_UNITS[k]} on the bound of {ranges[k]}"
                   for k, v in zip(PARAMETER_NAMES, x) if k in on_bound)},
    ]
    failed = [c for c in checks if not c["passed"]]
    out: dict[str, Any] = {
        "ok": not failed,
        "criterion": criterion,
        "criterion_value": value if not failed else None,
        "parameters": dict(zip(PARAMETER_NAMES, x)) if not failed else None,
        "parameter_units": dict(PARAMETER_UNITS),
        "metrics": None,
        "period": _period_dict(series, i0, i1, i2),
        "warmup_days": i1 - i0,
        "observed_days": int(known.size),
        "missing_days": int(i2 - i1 - known.size),
        "log_epsilon": epsilon if criterion == "nse_log" else None,
        "search": {"grid_runs": grid_runs, "local_runs": objective.runs - grid_runs, "runs": objective.runs,
                   "grid_best": dict(zip(PARAMETER_NAMES, start)), "grid_best_value": float(grid_scores[best]),
                   "final_step": step, "converged": converged,
                   "search_ranges": {k: list(v) for k, v in ranges.items()}},
        "checks": checks,
    }
    if failed:
        out["reason"] = "; ".join(c["detail"] for c in failed) + \
            ": the calibrated parameters cannot be defended (widen search_ranges, or check the forcing " \
            "and the discharge)"
        log.warning("gr4j_calibration failed its checks: %s", out["reason"])
    else:
        q = _simulate_window(series, x, i0, i2)[i1 - i0:]
        out["metrics"] = _scores(series.observed[i1:i2], q)
    return out


def gr4j_calibration(
    precipitation: Any,
    pet: Any = None,
    observed: Any = None,
    *,
    dates: Any = None,
    run_start: Any = None,
    run_end: Any = None,
    warmup_days: int = 365,
    criterion: Criterion = "nse",
    search_ranges: Mapping[str, Sequence[float]] | None = None,
) -> dict[str, Any]:
    """Calibrate GR4J's four parameters on observed discharge.

    The search follows the two stages of airGR's ``Calibration_Michel``: a screen of 81 parameter
    sets (the quantiles Perrin et al. 2003 report over 429 catchments), then a local pattern search
    (Hooke & Jeeves 1961) from the best of them in transformed coordinates (ln x1, asinh x2, ln x3,
    ln x4) until the step falls below 1e-4 of each range. Each run starts from airGR's initial
    levels and is scored over ``run_start..run_end`` after ``warmup_days``.

    Parameters
    ----------
    precipitation, pet, dates : the forcing, as for :func:`gr4j_simulation`.
    observed : daily discharge at the outlet in mm/d over the same days (NaN where not measured;
        those days are skipped), or a column name when ``precipitation`` is a DataFrame.
    run_start, run_end : the calibration period (inclusive; dates or positions). Default: from
        the end of the first ``warmup_days`` to the end of the series.
    warmup_days : days modelled before ``run_start`` and not scored; at least 365.
    criterion : ``nse``, ``kge`` (Gupta et al. 2009), ``nse_sqrt`` or ``nse_log`` (log of
        Q + mean(observed)/100).
    search_ranges : bounds per parameter in real units (default :data:`DEFAULT_SEARCH_RANGES`).

    Returns
    -------
    dict with ``method`` ("gr4j_calibration"), ``ok``, ``parameters`` (x1..x4), ``parameter_units``,
    ``criterion``, ``criterion_value``, ``metrics`` (nse, nse_sqrt, nse_log, kge, r, alpha, beta,
    bias_mm_per_day, percent_bias over the calibration period), ``period``, ``warmup_days``,
    ``observed_days``, ``missing_days``, ``log_epsilon``, ``search`` (runs, grid start,
    convergence), ``checks`` ({check, passed, detail}) and ``meta``. When a check fails (a
    non-finite criterion, no better than the observed mean, search not converged, a parameter on
    its search bound) ``ok`` is False with a ``reason`` and the parameters, criterion and metrics
    are ``None``.

    Raises
    ------
    InsufficientDataError : fewer than 365 observed days in the period, or a warm-up under 365 days.
    InputError : missing or negative forcing in the modelled window, an unknown criterion, bad ranges.
    """
    params = resolved_parameters(gr4j_calibration, (precipitation, pet, observed), {
        "dates": dates, "run_start": run_start, "run_end": run_end, "warmup_days": warmup_days,
        "criterion": criterion, "search_ranges": search_ranges})
    if criterion not in ("nse", "kge", "nse_sqrt", "nse_log"):
        raise InputError.bad_value("criterion", criterion, "one of 'nse', 'kge', 'nse_sqrt', 'nse_log'")
    ranges = _search_ranges(search_ranges)
    series = _read_series(precipitation, pet, observed, dates, need_observed=True)
    i0, i1, i2 = _window(series, run_start, run_end, warmup_days)
    _check_warmup(i0, i1)
    out = _calibrate(series, i0, i1, i2, criterion, ranges)
    return finish({"method": "gr4j_calibration", **out}, "gr4j_calibration", params,
                  [source("GR4J", citation=CITE_GR4J), source("airGR", citation=CITE_AIRGR),
                   source("pattern search", citation=CITE_HJ)])


def gr4j_split_sample_validation(
    precipitation: Any,
    pet: Any = None,
    observed: Any = None,
    *,
    calibration_period: Sequence[Any],
    validation_period: Sequence[Any],
    dates: Any = None,
    warmup_days: int = 365,
    criterion: Criterion = "nse",
    search_ranges: Mapping[str, Sequence[float]] | None = None,
) -> dict[str, Any]:
    """Calibrate on one period and score the calibrated model on another (Klemes 1986).

    Each period is ``(start, end)`` (inclusive; dates or positions) and gets its own
    ``warmup_days`` of forcing before its start. Both periods need at least 365 observed days.

    Returns
    -------
    dict with ``method`` ("gr4j_split_sample_validation"), ``ok`` (the calibration's), ``criterion``,
    ``parameters``, ``calibration`` (the calibration fields: criterion_value, metrics, period,
    checks, ...), ``validation`` (``metrics``, ``criterion_value``, ``period``, ``observed_days``,
    ``missing_days``, ``warmup_days``), ``criterion_drop`` (calibration minus validation value),
    ``overlap`` (whether the scored periods share days) and ``meta``.
    """
    params = resolved_parameters(gr4j_split_sample_validation, (precipitation, pet, observed), {
        "calibration_period": calibration_period, "validation_period": validation_period, "dates": dates,
        "warmup_days": warmup_days, "criterion": criterion, "search_ranges": search_ranges})
    if criterion not in ("nse", "kge", "nse_sqrt", "nse_log"):
        raise InputError.bad_value("criterion", criterion, "one of 'nse', 'kge', 'nse_sqrt', 'nse_log'")
    for name, period in (("calibration_period", calibration_period), ("validation_period", validation_period)):
        if isinstance(period, (str, bytes)) or len(period) != 2:
            raise InputError.bad_value(name, period, "a pair (start, end)")
    ranges = _search_ranges(search_ranges)
    series = _read_series(precipitation, pet, observed, dates, need_observed=True)
    c0, c1, c2 = _window(series, calibration_period[0], calibration_period[1], warmup_days)
    v0, v1, v2 = _window(series, validation_period[0], validation_period[1], warmup_days)
    _check_warmup(c0, c1)
    _check_warmup(v0, v1)
    known = _observed_days(series, v1, v2, "validate")
    cal = _calibrate(series, c0, c1, c2, criterion, ranges)
    validation: dict[str, Any] = {"period": _period_dict(series, v0, v1, v2), "warmup_days": v1 - v0,
                                  "observed_days": int(known.size), "missing_days": int(v2 - v1 - known.size),
                                  "metrics": None, "criterion_value": None}
    drop = None
    if cal["ok"]:
        x = tuple(cal["parameters"][k] for k in PARAMETER_NAMES)
        q = _simulate_window(series, x, v0, v2)[v1 - v0:]
        validation["metrics"] = _scores(series.observed[v1:v2], q)
        validation["criterion_value"] = validation["metrics"][criterion]
        drop = cal["criterion_value"] - validation["criterion_value"]
    payload = {
        "method": "gr4j_split_sample_validation",
        "ok": cal["ok"],
        "criterion": criterion,
        "parameters": cal["parameters"],
        "parameter_units": dict(PARAMETER_UNITS),
        "calibration": {k: v for k, v in cal.items() if k not in ("ok", "parameters", "parameter_units", "criterion")},
        "validation": validation,
        "criterion_drop": drop,
        "overlap": bool(c1 < v2 and v1 < c2),
    }
    if not cal["ok"]:
        payload["reason"] = cal["reason"]
    return finish(payload, "gr4j_split_sample_validation", params,
                  [source("GR4J", citation=CITE_GR4J), source("airGR", citation=CITE_AIRGR),
                   source("split-sample test", citation=CITE_SPLIT)])
