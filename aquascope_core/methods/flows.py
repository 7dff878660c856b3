"""Flow statistics of a daily discharge record: the flow duration curve, annual n-day minima and
the low-flow quantile (7Q10).

Every function takes daily discharge as a pandas Series with a DatetimeIndex. The index must be
strictly increasing (no duplicated days) and daily; a missing day is either absent from the index
or NaN, and is never filled: each function says what it does with it (the duration curve drops
it and counts it; an n-day minimum is taken only over complete windows and complete years).
Negative flows are refused. Baseflow separation is in :mod:`aquascope_core.methods.baseflow`, the
hydrological signatures in :mod:`aquascope_core.methods.signatures`.
"""

from __future__ import annotations

import logging
import math
from typing import Any, Literal, Sequence

import numpy as np
import pandas as pd
from scipy import optimize, stats

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.result import finish, resolved_parameters, source

__all__ = ["flow_duration_curve", "annual_minimum_flows", "low_flow_frequency"]

log = logging.getLogger(__name__)

MIN_DAYS = 365
MIN_LOW_FLOW_YEARS = 10

_CITE_FDC = "Vogel, R.M. & Fennessey, N.M. (1994) Flow-duration curves. I: New interpretation and confidence " \
            "intervals. J. Water Resour. Plann. Manage. 120(4), 485-504"
_CITE_SFDC = "Sawicz, K., Wagener, T., Sivapalan, M., Troch, P.A. & Carrillo, G. (2011) Catchment classification: " \
             "empirical analysis of hydrologic similarity. Hydrol. Earth Syst. Sci. 15, 2895-2911"
_CITE_LOWFLOW = "Riggs, H.C. (1972) Low-flow investigations. USGS Techniques of Water-Resources Investigations, " \
                "book 4, ch. B1; Smakhtin, V.U. (2001) Low flow hydrology: a review. J. Hydrol. 240, 147-186"
_CITE_WEIBULL = "Gumbel, E.J. (1958) Statistics of Extremes, Columbia University Press (type III smallest values); " \
                "Smakhtin (2001) J. Hydrol. 240, 147-186"

# Plotting positions p_i = (i - a)/(n + 1 - 2a) for the i-th largest of n (exceedance).
_PLOTTING_A = {"weibull": 0.0, "gringorten": 0.44, "cunnane": 0.4, "hazen": 0.5}

# Exceedance percentages of the compact curve (about 100 points, denser in the tails).
_CURVE_PCT = np.array([0.1, 0.2, 0.5] + list(range(1, 100)) + [99.5, 99.8, 99.9], dtype=float)


# --------------------------------------------------------------------------------------------
# the daily record


def _daily_record(flow: Any, argument: str = "flow", *, min_days: int = MIN_DAYS) -> dict[str, Any]:
    """Validate a daily discharge Series; return it on a complete daily index (absent days as NaN).

    Making absent days explicit as NaN fills nothing: it only lets each method see the gaps.
    """
    if not isinstance(flow, pd.Series):
        raise InputError.bad_value(
            argument, flow, "a pandas Series of daily discharge with a DatetimeIndex "
            "(e.g. pd.Series(values, index=pd.to_datetime(dates)))",
        )
    idx = flow.index
    if isinstance(idx, pd.PeriodIndex):
        idx = idx.to_timestamp()
    if not isinstance(idx, pd.DatetimeIndex):
        raise InputError.bad_value(f"{argument}.index", f"<{type(flow.index).__name__}>",
                                   "a DatetimeIndex (pd.to_datetime the dates and set them as the index)")
    if idx.tz is not None:
        idx = idx.tz_localize(None)
    if idx.hasnans:
        raise InputError.bad_value(f"{argument}.index", "NaT", "dates without NaT")
    if idx.has_duplicates:
        dup = idx[idx.duplicated()][0]
        raise InputError.bad_value(f"{argument}.index", f"duplicated date {dup.date()}",
                                   "one value per day (drop or aggregate the duplicates)")
    if not idx.is_monotonic_increasing:
        raise InputError.bad_value(f"{argument}.index", "<unsorted dates>", "increasing dates (use flow.sort_index())")
    if len(idx) > 1:
        tod = idx - idx.normalize()
        gaps = idx[1:] - idx[:-1]
        step = np.asarray(gaps / pd.Timedelta(days=1), dtype=float)
        if (tod != tod[0]).any() or np.any(step != np.round(step)) or float(np.median(step)) != 1.0:
            raise InputError.bad_value(
                f"{argument}.index", f"<steps of {gaps[len(gaps) // 2]} and others>",
                "daily values, one per calendar day (resample sub-daily data with .resample('D').mean(); "
                "monthly or annual values cannot give daily flow statistics)",
            )
    try:
        raw = flow.to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError) as exc:
        raise InputError.bad_value(argument, "<non-numeric values>", "numbers (discharge)") from exc
    if np.any(np.isinf(raw)):
        raise InputError.bad_value(argument, "inf", "finite discharges (NaN marks a missing day)")
    if np.any(raw < 0):
        first = idx[np.argmax(raw < 0)]
        raise InputError.bad_value(argument, f"negative discharge {raw[raw < 0][0]:g} on {first.date()}",
                                   "discharges >= 0 (a negative value is a data error; set it to NaN if it is unknown)")
    days = idx.normalize()
    full = pd.date_range(days[0], days[-1], freq="D") if len(days) else days
    q = pd.Series(raw, index=days).reindex(full).to_numpy()  # a new array: the caller's data is untouched
    valid = ~np.isnan(q)
    n_valid = int(valid.sum())
    if n_valid < min_days:
        raise InsufficientDataError(f"{argument} holds {n_valid} daily values; this needs at least {min_days}",
                                    argument=argument, value=n_valid)
    qv = q[valid]
    if np.all(qv == qv[0]):
        raise InsufficientDataError(
            f"all {n_valid} daily values of {argument} equal {qv[0]:g}: a constant record carries no flow statistics "
            "(check whether it was filled or estimated)", argument=argument, value=float(qv[0]),
        )
    return {"q": q, "index": full, "n_valid": n_valid, "n_missing": int(q.size - n_valid)}


# --------------------------------------------------------------------------------------------
# flow duration curve


def _exceedance_quantile(sorted_desc: np.ndarray, p_exc: np.ndarray, pct: float) -> float | None:
    """Flow exceeded ``pct`` % of the time: linear interpolation on the empirical curve."""
    p = pct / 100.0
    if p < p_exc[0] or p > p_exc[-1]:
        return None
    return float(np.interp(p, p_exc, sorted_desc))


def flow_duration_curve(
    flow: pd.Series,
    *,
    percentiles: Sequence[float] = (1, 5, 10, 25, 50, 75, 90, 95, 99),
    plotting_position: Literal["weibull", "gringorten", "cunnane", "hazen"] = "weibull",
    unit: str = "m3/s",
) -> dict[str, Any]:
    """The flow duration curve of a daily record and its quantiles.

    Parameters
    ----------
    flow : daily discharge (Series with a DatetimeIndex). Missing days are dropped and counted.
    percentiles : exceedance percentages to report (``Q95`` is the flow exceeded 95 % of the time).
    plotting_position : exceedance probability of the i-th largest of n values,
        p_i = (i - a)/(n + 1 - 2a): Weibull a = 0 (i/(n+1), the default), Gringorten a = 0.44,
        Cunnane a = 0.4, Hazen a = 0.5.
    unit : the unit of ``flow``.

    Returns
    -------
    dict with ``method`` ("flow_duration_curve"), ``ok``, ``n``, ``n_missing``, ``plotting_position``,
    ``unit``, ``quantiles`` ({"Q5": ..., "Q50": ..., "Q95": ...}: always these three, plus every
    requested percentile), ``slope_fdc`` (Sawicz et al. 2011: (ln Q33 - ln Q66)/(0.66 - 0.33),
    ``None`` when Q66 is 0), ``curve`` ({"exceedance_pct": [...], "flow": [...]}, about 100 points
    for plotting) and ``meta``.

    Notes
    -----
    The curve is the sorted record against its plotting positions (Vogel & Fennessey 1994); a
    quantile between two plotting positions is interpolated linearly in flow. A percentile beyond
    the first or last plotting position (e.g. 0.001 % of a 10-year record) is not extrapolated: it
    is reported as ``None`` and listed in ``beyond_record``.
    """
    params = resolved_parameters(flow_duration_curve, (flow,), {"percentiles": percentiles,
                                                                "plotting_position": plotting_position, "unit": unit})
    if plotting_position not in _PLOTTING_A:
        raise InputError.bad_value("plotting_position", plotting_position, "one of " + ", ".join(_PLOTTING_A))
    try:
        pcts = [float(p) for p in percentiles]
    except (TypeError, ValueError) as exc:
        raise InputError.bad_value("percentiles", percentiles, "a list of exceedance percentages in (0, 100)") from exc
    if any(not (0 < p < 100) for p in pcts):
        raise InputError.bad_value("percentiles", percentiles, "exceedance percentages strictly between 0 and 100")
    rec = _daily_record(flow)
    q = rec["q"][~np.isnan(rec["q"])]
    n = q.size
    desc = np.sort(q)[::-1]
    a = _PLOTTING_A[plotting_position]
    p_exc = (np.arange(1, n + 1) - a) / (n + 1 - 2 * a)

    def name(p: float) -> str:
        return f"Q{p:g}"

    wanted = sorted(set(pcts) | {5.0, 50.0, 95.0})
    quantiles = {name(p): _exceedance_quantile(desc, p_exc, p) for p in wanted}
    beyond = [name(p) for p in wanted if quantiles[name(p)] is None]
    q33, q66 = _exceedance_quantile(desc, p_exc, 33.0), _exceedance_quantile(desc, p_exc, 66.0)
    slope = (math.log(q33) - math.log(q66)) / (0.66 - 0.33) if q33 and q66 else None
    keep = (_CURVE_PCT / 100 >= p_exc[0]) & (_CURVE_PCT / 100 <= p_exc[-1])
    curve_pct = _CURVE_PCT[keep]
    curve_q = np.interp(curve_pct / 100, p_exc, desc)
    payload = {
        "method": "flow_duration_curve", "ok": True, "n": n, "n_missing": rec["n_missing"],
        "period": [rec["index"][0].date().isoformat(), rec["index"][-1].date().isoformat()],
        "plotting_position": plotting_position, "unit": unit, "quantiles": quantiles, "beyond_record": beyond,
        "slope_fdc": slope, "curve": {"exceedance_pct": curve_pct, "flow": curve_q},
    }
    sources = [source("Flow duration curve", citation=_CITE_FDC), source("Slope of the FDC", citation=_CITE_SFDC)]
    return finish(payload, "flow_duration_curve", params, sources)


# --------------------------------------------------------------------------------------------
# n-day minima by climatic year


def _check_month(value: Any, argument: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= 12:
        raise InputError.bad_value(argument, value, "a month number 1-12 (4 for the April-March climatic year)")
    return int(value)


def _annual_minima(rec: dict[str, Any], days: int, year_start_month: int, max_missing_days: int) -> dict[str, Any]:
    """n-day minimum mean flow of each complete year starting in ``year_start_month``."""
    idx: pd.DatetimeIndex = rec["index"]
    q: np.ndarray = rec["q"]
    year_of = idx.year - (idx.month < year_start_month).astype(int)
    first, last = int(year_of.min()), int(year_of.max())
    years, minima, ends, excluded = [], [], [], []
    for y in range(first, last + 1):
        start = pd.Timestamp(year=y, month=year_start_month, day=1)
        end = pd.Timestamp(year=y + 1, month=year_start_month, day=1) - pd.Timedelta(days=1)
        length = (end - start).days + 1
        sel = (idx >= start) & (idx <= end)
        qy = q[sel]
        missing = length - int(np.sum(~np.isnan(qy)))
        if missing > max_missing_days:
            excluded.append({"year": y, "missing_days": missing})
            continue
        # Moving means entirely inside the year; a window touching a missing day is no window.
        win = pd.Series(qy).rolling(days, min_periods=days).mean().to_numpy()
        if np.all(np.isnan(win)):
            excluded.append({"year": y, "missing_days": missing})
            continue
        k = int(np.nanargmin(win))
        years.append(y)
        minima.append(float(win[k]))
        ends.append(idx[sel][k].date().isoformat())
    return {"years": years, "minima": minima, "window_end": ends, "excluded": excluded}


def annual_minimum_flows(
    flow: pd.Series,
    *,
    days: int = 7,
    year_start_month: int = 4,
    max_missing_days: int = 0,
    unit: str = "m3/s",
) -> dict[str, Any]:
    """The annual minimum of the ``days``-day moving-mean flow, by climatic year.

    Parameters
    ----------
    flow : daily discharge (Series with a DatetimeIndex).
    days : length of the moving mean (7 for the 7-day minimum).
    year_start_month : first month of the year; 4 gives the climatic year April-March, which keeps
        the low-flow season of temperate northern catchments inside one year. A year is named by the
        calendar year it starts in (climatic year 1990 = 1990-04-01 .. 1991-03-31). The USGS names
        climatic years by the year they end in: add 1 to compare with its tables.
    max_missing_days : a year with more missing days than this is left out (listed in ``excluded``),
        because a missing day may hold the minimum; the default 0 keeps complete years only.
    unit : the unit of ``flow``.

    Returns
    -------
    dict with ``method`` ("annual_minimum_flows"), ``ok``, ``days``, ``year_start_month``,
    ``years``, ``minima``, ``window_end`` (the last day of each minimum window), ``n_years``,
    ``excluded`` ([{year, missing_days}]), ``unit`` and ``meta``.

    Notes
    -----
    The moving means are taken over ``days`` consecutive days lying entirely inside the year; a window
    that touches a missing day is not formed.
    """
    params = resolved_parameters(annual_minimum_flows, (flow,), {"days": days, "year_start_month": year_start_month,
                                                                 "max_missing_days": max_missing_days, "unit": unit})
    days = _check_days(days)
    year_start_month = _check_month(year_start_month, "year_start_month")
    max_missing_days = _check_missing(max_missing_days)
    rec = _daily_record(flow)
    m = _annual_minima(rec, days, year_start_month, max_missing_days)
    payload = {"method": "annual_minimum_flows", "ok": True, "days": days, "year_start_month": year_start_month,
               **m, "n_years": len(m["years"]), "unit": unit}
    if not m["years"]:
        payload.update(ok=False, reason="no year is complete enough to take its minimum "
                                        f"(max_missing_days={max_missing_days})")
    return finish(payload, "annual_minimum_flows", params, [source("n-day low flows", citation=_CITE_LOWFLOW)])


def _check_days(days: Any) -> int:
    if isinstance(days, bool) or not isinstance(days, (int, np.integer)) or not 1 <= days <= 365:
        raise InputError.bad_value("days", days, "a whole number of days from 1 to 365 (7 for the 7-day low flow)")
    return int(days)


def _check_missing(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise InputError.bad_value("max_missing_days", value, "a whole number of days >= 0")
    return int(value)


# --------------------------------------------------------------------------------------------
# low-flow frequency


def _lp3_quantile(x: np.ndarray, p: float) -> dict[str, Any]:
    """Log-Pearson III by the method of moments on log10 values (bias-corrected skew)."""
    y = np.log10(x)
    n = y.size
    mean, sd = float(y.mean()), float(y.std(ddof=1))
    skew = float(n * np.sum((y - mean) ** 3) / ((n - 1) * (n - 2) * sd ** 3)) if sd > 0 else 0.0
    k = float(stats.pearson3.ppf(p, skew))
    return {"value": 10 ** (mean + k * sd), "parameters": {"mean_log10": mean, "sd_log10": sd, "skew_log10": skew},
            "frequency_factor": k}


def _weibull_mle(x: np.ndarray) -> tuple[float, float] | None:
    """Two-parameter Weibull by maximum likelihood (shape from its profile equation); None if no root."""
    lx = np.log(x)
    mean_lx = float(lx.mean())

    def profile(k: float) -> float:
        w = np.exp(k * (lx - lx.max()))  # scaled to avoid overflow; the ratio is unchanged
        return float(np.sum(w * lx) / np.sum(w)) - 1.0 / k - mean_lx

    lo, hi = 0.02, 200.0
    try:
        if profile(lo) * profile(hi) > 0:
            return None
        k = optimize.brentq(profile, lo, hi, xtol=1e-12, rtol=1e-12, maxiter=200)
    except (ValueError, RuntimeError):
        return None
    scale = float(np.mean(np.exp(k * (lx - lx.max()))) ** (1.0 / k) * math.exp(lx.max()))
    return float(k), scale


def low_flow_frequency(
    flow: pd.Series,
    *,
    days: int = 7,
    return_period: float = 10.0,
    distribution: Literal["log_pearson3", "weibull"] = "log_pearson3",
    year_start_month: int = 4,
    max_missing_days: int = 0,
    unit: str = "m3/s",
) -> dict[str, Any]:
    """The ``days``-day low flow with a ``return_period``-year recurrence interval (7Q10 by default).

    The annual ``days``-day minima (:func:`annual_minimum_flows`, climatic year April-March) are fitted
    by ``distribution`` and the quantile of non-exceedance probability 1/``return_period`` returned.

    Parameters
    ----------
    distribution : ``"log_pearson3"`` (method of moments on log10 of the minima with the
        bias-corrected skew, as in USGS and US EPA practice, Riggs 1972) or ``"weibull"`` (two-parameter
        Weibull by maximum likelihood, the type III distribution of smallest values).

    Returns
    -------
    dict with ``method`` ("low_flow_frequency"), ``ok``, ``statistic`` (e.g. "7Q10"), ``value``,
    ``unit``, ``distribution``, ``parameters``, ``n_years``, ``years``, ``minima``, ``excluded``,
    ``non_exceedance_probability``, ``days``, ``return_period`` and ``meta``.

    A zero among the minima (an intermittent stream) cannot be fitted by either distribution without
    a conditional-probability adjustment, which is not implemented: the result is then
    ``ok: False`` with that reason and the share of zero years. Fewer than 10 years of minima raise
    :class:`InsufficientDataError`.
    """
    params = resolved_parameters(low_flow_frequency, (flow,), {
        "days": days, "return_period": return_period, "distribution": distribution,
        "year_start_month": year_start_month, "max_missing_days": max_missing_days, "unit": unit})
    days = _check_days(days)
    year_start_month = _check_month(year_start_month, "year_start_month")
    max_missing_days = _check_missing(max_missing_days)
    if distribution not in ("log_pearson3", "weibull"):
        raise InputError.bad_value("distribution", distribution, "'log_pearson3' or 'weibull'")
    if isinstance(return_period, bool) or not isinstance(return_period, (int, float)) or not 1 < return_period <= 1000:
        raise InputError.bad_value("return_period", return_period, "a number of years above 1 (10 for 7Q10)")
    rec = _daily_record(flow)
    m = _annual_minima(rec, days, year_start_month, max_missing_days)
    n = len(m["minima"])
    if n < MIN_LOW_FLOW_YEARS:
        raise InsufficientDataError(
            f"{n} complete year(s) of {days}-day minima ({len(m['excluded'])} left out as incomplete); "
            f"a low-flow frequency analysis needs at least {MIN_LOW_FLOW_YEARS}",
            argument="flow", value=n,
        )
    x = np.asarray(m["minima"])
    p = 1.0 / float(return_period)
    statistic = f"{days}Q{float(return_period):g}"
    payload: dict[str, Any] = {
        "method": "low_flow_frequency", "ok": True, "statistic": statistic, "days": days,
        "return_period": float(return_period), "non_exceedance_probability": p, "distribution": distribution,
        "unit": unit, "n_years": n, **m,
    }
    cite = _CITE_LOWFLOW if distribution == "log_pearson3" else _CITE_WEIBULL
    sources = [source("Low-flow frequency", citation=cite)]
    if np.all(x == x[0]):
        raise InsufficientDataError(f"all {n} annual {days}-day minima equal {x[0]:g}: no distribution can be fitted",
                                    argument="flow", value=float(x[0]))
    zeros = int(np.sum(x == 0))
    if zeros:
        payload.update(ok=False, value=None, parameters=None,
                       reason=f"{zeros} of {n} annual minima are zero; fitting {distribution} needs a conditional-"
                              "probability adjustment for zero flows, which is not implemented",
                       zero_fraction=zeros / n)
        return finish(payload, "low_flow_frequency", params, sources)
    if distribution == "log_pearson3":
        fit = _lp3_quantile(x, p)
        payload.update(value=fit["value"], parameters=fit["parameters"], frequency_factor=fit["frequency_factor"])
    else:
        fitted = _weibull_mle(x)
        if fitted is None:
            payload.update(ok=False, value=None, parameters=None,
                           reason="the Weibull likelihood equation has no root for shape in [0.02, 200]")
            return finish(payload, "low_flow_frequency", params, sources)
        shape, scale = fitted
        payload.update(value=scale * (-math.log1p(-p)) ** (1.0 / shape), parameters={"shape": shape, "scale": scale})
    if not (payload["value"] is not None and math.isfinite(payload["value"])):
        payload.update(ok=False, value=None, reason="the fitted quantile is not finite")
    elif payload["value"] > float(np.max(x)):
        payload.update(ok=False, reason=f"the fitted {statistic} ({payload['value']:.4g}) exceeds every observed "
                                        "annual minimum: the fit does not describe the lower tail", value=None)
    log.debug("low_flow_frequency %s %s: n=%d value=%s", statistic, distribution, n, payload.get("value"))
    return finish(payload, "low_flow_frequency", params, sources)
