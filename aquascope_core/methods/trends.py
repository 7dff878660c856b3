"""Monotonic trend tests: Mann-Kendall (with the Hamed-Rao and pre-whitening variants), the
seasonal Kendall test and Sen's slope.

Every function takes a list, an array or a pandas Series. The time axis is, in order of precedence,
``times`` when given, the Series index when it holds datetimes or calendar years, or the positions
``0 .. n-1``. Datetimes become decimal years, so slopes are then *per year*; integer years are
used as they are; positions give slopes *per time step*.

Missing values
--------------
A NaN in ``values`` is refused (:class:`InputError`) when the series has no time axis of its own,
because dropping it would silently close a gap. When the times are known (``times`` given, or a
Series indexed by datetimes or years) rows with NaN are dropped, the times of the remaining values
are kept, and the payload counts them in ``n_missing``. Nothing is ever filled.
"""

from __future__ import annotations

import logging
import math
from statistics import NormalDist
from typing import Any, Literal

import numpy as np
import pandas as pd

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.result import finish, resolved_parameters, source

__all__ = ["mann_kendall", "sens_slope", "seasonal_mann_kendall"]

log = logging.getLogger(__name__)

MIN_VALUES = 4
# S and Sen's slope are O(n^2) in time and (for the slopes) memory; beyond this, aggregate first.
MAX_VALUES = 5000

_CITE_MK = "Mann, H.B. (1945) Nonparametric tests against trend. Econometrica 13(3), 245-259; " \
           "Kendall, M.G. (1975) Rank Correlation Methods, 4th ed. Griffin, London"
_CITE_SEN = "Sen, P.K. (1968) Estimates of the regression coefficient based on Kendall's tau. " \
            "J. Am. Stat. Assoc. 63(324), 1379-1389; Gilbert, R.O. (1987) Statistical Methods for " \
            "Environmental Pollution Monitoring, Van Nostrand Reinhold, ch. 16"
_CITE_HR = "Hamed, K.H. & Rao, A.R. (1998) A modified Mann-Kendall trend test for autocorrelated data. " \
           "J. Hydrol. 204, 182-196"
_CITE_TFPW = "Yue, S., Pilon, P., Phinney, B. & Cavadias, G. (2002) The influence of autocorrelation on the " \
             "ability to detect trend in hydrological series. Hydrol. Process. 16, 1807-1829"
_CITE_SMK = "Hirsch, R.M., Slack, J.R. & Smith, R.A. (1982) Techniques of trend analysis for monthly water " \
            "quality data. Water Resour. Res. 18(1), 107-121"


# --------------------------------------------------------------------------------------------
# input preparation



_STD_NORMAL = NormalDist()


def _norm_ppf(p: float) -> float:
    """The standard normal quantile (the standard library's, accurate to double precision; scipy.stats is not
    imported for it, as importing it costs more than a whole trend test)."""
    return _STD_NORMAL.inv_cdf(float(p))


def _average_ranks(y: np.ndarray) -> np.ndarray:
    """1-based ranks of ``y``, ties given the mean of the ranks they span (as scipy.stats.rankdata's default)."""
    y = np.asarray(y, dtype=float)
    order = np.argsort(y, kind="mergesort")
    ys = y[order]
    starts = np.flatnonzero(np.r_[True, ys[1:] != ys[:-1]])
    ends = np.r_[starts[1:], ys.size]
    mean_rank = (starts + ends + 1) / 2.0
    ranks = np.empty(y.size, dtype=float)
    ranks[order] = np.repeat(mean_rank, ends - starts)
    return ranks

def _decimal_years(idx: pd.DatetimeIndex) -> np.ndarray:
    """Datetimes as decimal years (2000-07-02 12:00 -> 2000.5)."""
    if idx.tz is not None:
        idx = idx.tz_convert("UTC").tz_localize(None)
    year = idx.year.to_numpy()
    start = pd.to_datetime({"year": year, "month": 1, "day": 1}).to_numpy()
    length = np.where(idx.is_leap_year, 366.0, 365.0)
    elapsed = (idx.to_numpy() - start) / np.timedelta64(1, "D")
    return year + elapsed / length


def _looks_like_years(arr: np.ndarray) -> bool:
    return (
        arr.size > 0
        and np.issubdtype(arr.dtype, np.number)
        and bool(np.all(np.isfinite(arr)))
        and bool(np.all(arr == np.round(arr)))
        and bool(np.all((arr >= 1000) & (arr <= 3000)))
    )


def _as_times(times: Any, argument: str) -> tuple[np.ndarray, str]:
    """Times as floats and their unit ('year' or 'time step')."""
    if isinstance(times, pd.PeriodIndex):
        times = times.to_timestamp()
    if isinstance(times, pd.Series):
        times = times.to_numpy()
    if not isinstance(times, pd.DatetimeIndex):
        arr = np.asarray(times)
        if arr.dtype.kind == "M" or (arr.dtype == object and arr.size and not isinstance(arr.flat[0], (int, float, np.number))):
            try:
                times = pd.DatetimeIndex(pd.to_datetime(arr))
            except (TypeError, ValueError) as exc:
                raise InputError.bad_value(argument, times, "numbers (e.g. years) or datetimes") from exc
        else:
            try:
                arr = arr.astype(float)
            except (TypeError, ValueError) as exc:
                raise InputError.bad_value(argument, times, "numbers (e.g. years) or datetimes") from exc
            if not np.all(np.isfinite(arr)):
                raise InputError.bad_value(argument, times, "finite numbers; a time cannot be missing")
            return arr, ("year" if _looks_like_years(arr) else "time step")
    if times.hasnans:
        raise InputError.bad_value(argument, "NaT", "datetimes without NaT; a time cannot be missing")
    return _decimal_years(times), "year"


def _prepare(values: Any, times: Any, *, min_values: int = MIN_VALUES) -> dict[str, Any]:
    """Copy the input to float arrays with a time axis; drop NaN rows only when the times are known."""
    own_times = None
    if isinstance(values, pd.Series):
        index = values.index
        if isinstance(index, (pd.DatetimeIndex, pd.PeriodIndex)):
            own_times = index
        elif not isinstance(index, pd.RangeIndex) and _looks_like_years(np.asarray(index)):
            own_times = index.to_numpy()
        raw = values.to_numpy(dtype=float, na_value=np.nan)
    else:
        try:
            raw = np.array(values, dtype=float)  # a copy: the caller's data is never touched
        except (TypeError, ValueError) as exc:
            raise InputError.bad_value("values", values, "a list, array or Series of numbers") from exc
    if raw.ndim != 1:
        raise InputError.bad_value("values", f"<array of shape {raw.shape}>", "a one-dimensional series")
    raw = raw.copy()
    if np.any(np.isinf(raw)):
        raise InputError.bad_value("values", "inf", "finite numbers (NaN marks a missing value)")

    given = times if times is not None else own_times
    if given is not None:
        t, time_unit = _as_times(given, "times" if times is not None else "values.index")
        if t.shape != raw.shape:
            raise InputError.bad_value("times", f"<{t.size} times>", f"one time per value ({raw.size} values)")
    else:
        t, time_unit = np.arange(raw.size, dtype=float), "time step"

    missing = np.isnan(raw)
    n_missing = int(missing.sum())
    if n_missing and given is None:
        raise InputError(
            f"values holds {n_missing} NaN and no times to place the remaining values on; "
            "give times= (or a Series indexed by dates or years) so missing rows can be dropped with their gaps kept",
            argument="values", value="NaN",
        )
    x, t = raw[~missing], t[~missing]
    if x.size > 1:
        step = np.diff(t)
        if np.any(step <= 0):
            k = int(np.argmax(step <= 0))
            kind = "duplicated" if step[k] == 0 else "unsorted"
            raise InputError.bad_value(
                "times", f"{kind} at position {k + 1}", "strictly increasing times (sort the series and drop duplicates)"
            )
    if x.size < min_values:
        raise InsufficientDataError(
            f"{x.size} non-missing values; the trend test needs at least {min_values}",
            argument="values", value=x.size,
        )
    if x.size > MAX_VALUES:
        raise InputError.bad_value(
            "values", f"<{x.size} values>",
            f"at most {MAX_VALUES} values (aggregate a daily record to annual or monthly values before testing for trend; "
            "daily values are also too autocorrelated for the test)",
        )
    return {"x": x, "t": t, "n_missing": n_missing, "time_unit": time_unit}


def _regular(t: np.ndarray) -> bool:
    """Equally spaced within calendar jitter (months of 28-31 days, leap years)."""
    if t.size < 3:
        return True
    step = np.diff(t)
    return float(step.max()) <= 1.15 * float(step.min())


def _slope_unit(unit: str | None, time_unit: str) -> str:
    per = "per year" if time_unit == "year" else "per time step"
    return f"{unit} {per}" if unit else per


# --------------------------------------------------------------------------------------------
# the statistics


def _tie_counts(x: np.ndarray) -> np.ndarray:
    _, counts = np.unique(x, return_counts=True)
    return counts[counts > 1].astype(float)


def _s_statistic(x: np.ndarray) -> int:
    s = 0
    for i in range(x.size - 1):
        s += int(np.sign(x[i + 1:] - x[i]).sum())
    return s


def _var_s(n: int, ties: np.ndarray) -> float:
    """Var(S) under H0 with the tie correction (Kendall 1975, eq. 4.3)."""
    return (n * (n - 1) * (2 * n + 5) - float(np.sum(ties * (ties - 1) * (2 * ties + 5)))) / 18.0


CONTINUITY = {"corrected": "S - sign(S) (Kendall 1975; Hirsch, Slack & Smith 1982)",
              "none": "S itself, no continuity correction (R trend's continuity = FALSE)"}


def _check_continuity(continuity: str) -> None:
    if continuity not in CONTINUITY:
        raise InputError.bad_value("continuity", continuity, "'corrected' (S - sign(S), Hirsch) or 'none' (uncorrected)")


def _z(s: float, var_s: float, continuity: str = "corrected") -> float:
    """The standardised statistic, with the continuity correction of 1 unless ``continuity="none"``."""
    if continuity == "none":
        return s / math.sqrt(var_s)
    if s > 0:
        return (s - 1) / math.sqrt(var_s)
    if s < 0:
        return (s + 1) / math.sqrt(var_s)
    return 0.0


def _tau_b(s: float, n: int, ties_x: np.ndarray) -> float:
    n0 = n * (n - 1) / 2.0
    n1 = float(np.sum(ties_x * (ties_x - 1) / 2.0))
    return s / math.sqrt((n0 - n1) * n0)  # the times hold no ties (strictly increasing)


def _pairwise_slopes(x: np.ndarray, t: np.ndarray) -> np.ndarray:
    parts = [(x[i + 1:] - x[i]) / (t[i + 1:] - t[i]) for i in range(x.size - 1)]
    return np.concatenate(parts)


def _order_stat(sorted_vals: np.ndarray, rank: float) -> float:
    """The value at a 1-based, possibly fractional rank, interpolating linearly between neighbours."""
    r = min(max(rank, 1.0), float(sorted_vals.size))
    lo = int(math.floor(r))
    frac = r - lo
    if frac == 0 or lo >= sorted_vals.size:
        return float(sorted_vals[lo - 1])
    return float(sorted_vals[lo - 1] + frac * (sorted_vals[lo] - sorted_vals[lo - 1]))


def _sen(slopes: np.ndarray, x: np.ndarray, t: np.ndarray, var_s: float, confidence: float) -> dict[str, Any]:
    """Sen's slope from the sorted pairwise slopes, its rank-based confidence interval (Gilbert 1987,
    sec. 16.5) and the intercept median(x) - slope median(t) (Conover 1980)."""
    slope = float(np.median(slopes))
    c = _norm_ppf(0.5 + confidence / 2.0) * math.sqrt(max(var_s, 0.0))
    ci = [_order_stat(slopes, (slopes.size - c) / 2.0), _order_stat(slopes, (slopes.size + c) / 2.0 + 1.0)]
    return {"slope": slope, "ci": ci, "intercept": float(np.median(x) - slope * np.median(t))}


def _snap(y: np.ndarray) -> np.ndarray:
    """A derived series (residuals, pre-whitened values) rounded to 12 significant digits of its
    largest magnitude, so that values equal in exact arithmetic are ties rather than differing by
    floating-point noise (which would otherwise decide ranks and signs)."""
    scale = float(np.max(np.abs(y))) if y.size else 0.0
    if scale == 0 or not math.isfinite(scale):
        return y.copy()
    return np.round(y / scale, 12)


def _acf(y: np.ndarray, max_lag: int) -> np.ndarray:
    """Sample autocorrelation at lags 1..max_lag (the usual biased estimator, denominator n)."""
    d = y - y.mean()
    denom = float(np.dot(d, d))
    if denom == 0:
        return np.zeros(max_lag)
    return np.array([float(np.dot(d[:-k], d[k:])) / denom for k in range(1, max_lag + 1)])


def _mk_core(x: np.ndarray) -> dict[str, Any]:
    n = x.size
    ties = _tie_counts(x)
    s = _s_statistic(x)
    var_s = _var_s(n, ties)
    return {"n": n, "S": s, "var_S": var_s, "tau": _tau_b(s, n, ties) if var_s > 0 else None}


def _hamed_rao_factor(x: np.ndarray, t: np.ndarray, slope: float, alpha: float) -> float:
    """n/n* of Hamed & Rao (1998) from the significant autocorrelations of the detrended ranks."""
    n = x.size
    r = _acf(_average_ranks(_snap(x - slope * t)), n - 1)
    r = np.where(np.abs(r) > _norm_ppf(1 - alpha / 2) / math.sqrt(n), r, 0.0)
    k = np.arange(1, n)
    return 1.0 + 2.0 / (n * (n - 1) * (n - 2)) * float(np.sum((n - k) * (n - k - 1) * (n - k - 2) * r))


def _prewhiten(x: np.ndarray, t: np.ndarray, slope: float, alpha: float) -> tuple[np.ndarray, float, bool]:
    """Trend-free pre-whitening (Yue et al. 2002): (series to test, lag-1 autocorrelation, applied)."""
    resid = x - slope * t
    r1 = float(_acf(resid, 1)[0])
    if abs(r1) <= _norm_ppf(1 - alpha / 2) / math.sqrt(x.size):
        return x, r1, False
    return _snap((resid[1:] - r1 * resid[:-1]) + slope * t[1:]), r1, True


# The numbers a Mann-Kendall result carries, all None in an honest null.
_MK_NULL = {"var_S": None, "z": None, "p_value": None, "tau": None, "trend": None, "significant": None,
            "sen_slope": None, "sen_slope_ci": None, "sen_intercept": None}


def _verdict(z: float, alpha: float) -> tuple[float, bool, str]:
    p = math.erfc(abs(z) / math.sqrt(2.0))
    significant = p < alpha
    trend = "no trend" if not significant else ("increasing" if z > 0 else "decreasing")
    return p, significant, trend


def _check_alpha(alpha: float, argument: str = "alpha") -> None:
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 0.5):
        raise InputError.bad_value(argument, alpha, "a significance level between 0 and 0.5 (e.g. 0.05)")


# --------------------------------------------------------------------------------------------
# public functions


def mann_kendall(
    values: Any,
    *,
    times: Any = None,
    alpha: float = 0.05,
    variant: Literal["original", "hamed_rao", "prewhitened"] = "original",
    unit: str | None = None,
    continuity: Literal["corrected", "none"] = "corrected",
) -> dict[str, Any]:
    """Mann-Kendall test for a monotonic trend, with Sen's slope.

    Parameters
    ----------
    values : list, array or pandas Series of numbers (annual maxima, annual means, any series).
    times : optional times (years, or datetimes giving slopes per year); see the module docstring.
    alpha : two-sided significance level; also sets the Sen's slope interval to confidence 1 - alpha.
    variant : ``"original"`` assumes independent values; ``"hamed_rao"`` inflates Var(S) for serial
        correlation (Hamed & Rao 1998); ``"prewhitened"`` removes lag-1 autocorrelation by trend-free
        pre-whitening (Yue et al. 2002). Both variants need an equally spaced series.
    unit : the unit of ``values`` (for ``slope_unit``).
    continuity : ``"corrected"`` (z from S - sign(S): Kendall 1975, Hirsch et al. 1982, the default) or
        ``"none"`` (z from S). The payload's ``continuity_correction`` says which was used.

    Returns
    -------
    dict with ``method`` ("mann_kendall"), ``ok``, ``variant``, ``n``, ``n_missing``, ``S``,
    ``var_S`` (the variance ``z`` is computed from), ``z``, ``p_value`` (two-sided), ``tau``
    (Kendall's tau-b), ``trend`` ("increasing" | "decreasing" | "no trend"), ``significant``,
    ``alpha``, ``sen_slope``, ``sen_slope_ci`` [lo, hi], ``sen_intercept``, ``slope_unit``,
    ``time_unit``, ``unit`` and ``meta``; the variants add their own fields (below).

    Notes
    -----
    S = sum over i < j of sign(x_j - x_i). Var(S) = [n(n-1)(2n+5) - sum_t t(t-1)(2t+5)] / 18 with t
    the sizes of the groups of tied values. z = (S - 1)/sqrt(Var S) for S > 0, (S + 1)/sqrt(Var S)
    for S < 0, 0 otherwise; p = 2(1 - Phi(|z|)). tau-b = S / sqrt((n0 - n1) n0), n0 = n(n-1)/2,
    n1 = sum_t t(t-1)/2.

    Sen's slope is the median of the pairwise slopes (x_j - x_i)/(t_j - t_i); its interval holds the
    order statistics of rank M1 = (N - C)/2 and M2 + 1 = (N + C)/2 + 1 among the N ordered slopes,
    C = z_{1-alpha/2} sqrt(Var S) (Gilbert 1987, sec. 16.5), interpolated linearly between
    neighbours when the rank is fractional. The intercept is median(x) - slope * median(t)
    (Conover 1980): the fitted line is ``sen_intercept + sen_slope * t`` in the times as given
    (decimal years for datetimes).

    ``hamed_rao``: the series is detrended with Sen's slope, its ranks taken, and the autocorrelations
    r_k of the ranks at lags 1..n-1 that are significant at ``alpha`` (|r_k| > z_{1-alpha/2}/sqrt(n))
    enter n/n* = 1 + 2/(n(n-1)(n-2)) sum_k (n-k)(n-k-1)(n-k-2) r_k; Var*(S) = Var(S) n/n*. Adds
    ``var_S_tie_corrected`` and ``variance_correction`` (n/n*). The Sen interval uses Var*(S).

    ``prewhitened``: the series is detrended with Sen's slope, the lag-1 autocorrelation r1 of the
    residuals estimated; if it is significant at ``alpha`` the AR(1) part is removed
    (y'_t = y_t - r1 y_{t-1}), the trend added back and the test run on those n - 1 values; if not,
    the test runs on the original series, as Yue et al. (2002) prescribe. Adds
    ``lag1_autocorrelation``, ``prewhitening_applied`` and ``n_tested``. Sen's slope and its interval
    are those of the original series (the pre-whitening is for the test only).

    All-equal values return ``ok: False`` with the reason; fewer than 4 values raise
    :class:`InsufficientDataError`.

    References
    ----------
    Mann (1945); Kendall (1975); Sen (1968); Gilbert (1987); Hamed & Rao (1998); Yue et al. (2002).
    """
    params = resolved_parameters(mann_kendall, (values,), {"times": times, "alpha": alpha, "variant": variant, "unit": unit,
                                                           "continuity": continuity})
    _check_alpha(alpha)
    _check_continuity(continuity)
    if variant not in ("original", "hamed_rao", "prewhitened"):
        raise InputError.bad_value("variant", variant, "one of 'original', 'hamed_rao', 'prewhitened'")
    prep = _prepare(values, times)
    x, t = prep["x"], prep["t"]
    n = x.size
    sources = [source("Mann-Kendall trend test", citation=_CITE_MK), source("Sen's slope", citation=_CITE_SEN)]
    if variant == "hamed_rao":
        sources.append(source("Hamed-Rao variance correction", citation=_CITE_HR))
    elif variant == "prewhitened":
        sources.append(source("Trend-free pre-whitening", citation=_CITE_TFPW))

    payload: dict[str, Any] = {
        "method": "mann_kendall", "ok": True, "variant": variant, "n": n, "n_missing": prep["n_missing"],
        "alpha": alpha, "unit": unit, "slope_unit": _slope_unit(unit, prep["time_unit"]),
        "time_unit": prep["time_unit"], "continuity_correction": continuity, "continuity_rule": CONTINUITY[continuity],
    }
    if np.all(x == x[0]):
        reason = f"all {n} values are equal ({x[0]:g}): there is no variation to test for a trend"
        return finish({**payload, **_MK_NULL, "ok": False, "reason": reason, "S": 0}, "mann_kendall", params, sources)
    if variant != "original" and not _regular(t):
        raise InputError.bad_value(
            "times", "<unequally spaced after dropping missing values>" if prep["n_missing"] else "<unequally spaced>",
            f"an equally spaced series for variant={variant!r}, which models serial correlation by lag; "
            "use variant='original' or test a complete series",
        )

    slopes = np.sort(_pairwise_slopes(x, t))
    slope = float(np.median(slopes))
    core = _mk_core(x)
    s_test, var_test, tau = core["S"], core["var_S"], core["tau"]
    extra: dict[str, Any] = {}
    if variant == "hamed_rao":
        factor = _hamed_rao_factor(x, t, slope, alpha)
        extra = {"var_S_tie_corrected": core["var_S"], "variance_correction": factor}
        if not factor > 0:
            reason = (f"the Hamed-Rao correction factor n/n* = {factor:.3g} is not positive; "
                      "the autocorrelation estimate is unusable for this series")
            return finish({**payload, **_MK_NULL, **extra, "ok": False, "reason": reason, "S": s_test, "tau": tau,
                           "sen_slope": slope}, "mann_kendall", params, sources)
        var_test = core["var_S"] * factor
    elif variant == "prewhitened":
        series, r1, applied = _prewhiten(x, t, slope, alpha)
        extra = {"lag1_autocorrelation": r1, "prewhitening_applied": applied, "n_tested": int(series.size)}
        tested = _mk_core(series)
        if tested["var_S"] <= 0:
            return finish({**payload, **_MK_NULL, **extra, "ok": False, "S": tested["S"], "sen_slope": slope,
                           "reason": "the pre-whitened series has no variation left to test"},
                          "mann_kendall", params, sources)
        s_test, var_test, tau = tested["S"], tested["var_S"], tested["tau"]

    z = _z(s_test, var_test, continuity)
    p, significant, trend = _verdict(z, alpha)
    # The Sen interval uses the variance of the series whose slope it is: the original series
    # (with the Hamed-Rao inflation when that variant is asked for).
    sen = _sen(slopes, x, t, var_test if variant == "hamed_rao" else core["var_S"], 1.0 - alpha)
    payload.update({
        "S": s_test, "var_S": var_test, "z": z, "p_value": p, "tau": tau, "trend": trend,
        "significant": significant, "sen_slope": sen["slope"], "sen_slope_ci": sen["ci"],
        "sen_intercept": sen["intercept"], **extra,
    })
    log.debug("mann_kendall %s: n=%d S=%d z=%.4f p=%.4g", variant, n, s_test, z, p)
    return finish(payload, "mann_kendall", params, sources)


def sens_slope(values: Any, *, times: Any = None, confidence: float = 0.95, unit: str | None = None) -> dict[str, Any]:
    """Sen's (1968) slope: the median of all pairwise slopes, with its rank-based confidence interval.

    Returns a dict with ``method`` ("sens_slope"), ``ok``, ``n``, ``n_missing``, ``slope``,
    ``slope_ci`` [lo, hi], ``confidence``, ``intercept``, ``slope_unit``, ``time_unit``, ``unit``,
    ``var_S`` and ``meta``. The interval and intercept are those of :func:`mann_kendall` (Gilbert
    1987, sec. 16.5; Conover 1980); the line is ``intercept + slope * t``. All-equal values return
    ``ok: False`` with the reason.
    """
    params = resolved_parameters(sens_slope, (values,), {"times": times, "confidence": confidence, "unit": unit})
    if not (isinstance(confidence, (int, float)) and 0.5 <= confidence < 1):
        raise InputError.bad_value("confidence", confidence, "a level between 0.5 and 1 (e.g. 0.95)")
    prep = _prepare(values, times)
    x, t = prep["x"], prep["t"]
    sources = [source("Sen's slope", citation=_CITE_SEN)]
    payload: dict[str, Any] = {
        "method": "sens_slope", "ok": True, "n": int(x.size), "n_missing": prep["n_missing"], "confidence": confidence,
        "unit": unit, "slope_unit": _slope_unit(unit, prep["time_unit"]), "time_unit": prep["time_unit"],
    }
    if np.all(x == x[0]):
        return finish({**payload, "ok": False, "reason": f"all {x.size} values are equal ({x[0]:g}): there is no variation to fit a slope to",
                       "slope": None, "slope_ci": None, "intercept": None, "var_S": None}, "sens_slope", params, sources)
    var_s = _var_s(x.size, _tie_counts(x))
    sen = _sen(np.sort(_pairwise_slopes(x, t)), x, t, var_s, confidence)
    payload.update({"slope": sen["slope"], "slope_ci": sen["ci"], "intercept": sen["intercept"], "var_S": var_s})
    return finish(payload, "sens_slope", params, sources)


def _seasonal_layout(values: Any, period: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, str, int]:
    """(values, season, year) as arrays with NaN rows dropped, the time unit and the NaN count.

    A Series indexed by dates gives calendar months (period 12) or quarters (period 4); a plain
    sequence is read as consecutive seasons from season 0 of cycle 0, so its NaN keep their place.
    """
    if isinstance(values, pd.Series) and isinstance(values.index, (pd.DatetimeIndex, pd.PeriodIndex)):
        idx = values.index.to_timestamp() if isinstance(values.index, pd.PeriodIndex) else values.index
        if idx.hasnans:
            raise InputError.bad_value("values.index", "NaT", "dates without NaT")
        if not idx.is_monotonic_increasing or idx.has_duplicates:
            kind = "duplicated" if idx.has_duplicates else "unsorted"
            raise InputError.bad_value("values.index", f"<{kind} dates>", "strictly increasing dates (sort_index(), drop duplicates)")
        if period == 12:
            season = idx.month.to_numpy() - 1
        elif period == 4:
            season = idx.quarter.to_numpy() - 1
        else:
            raise InputError.bad_value("period", period, "12 (months) or 4 (quarters) for a Series indexed by dates")
        year = idx.year.to_numpy()
        key = year * period + season
        if np.unique(key).size != key.size:
            raise InputError.bad_value(
                "values", "<several values in one season of one year>",
                "one value per season and year (aggregate to monthly or quarterly values first)",
            )
        raw = values.to_numpy(dtype=float, na_value=np.nan)
        time_unit = "year"
    else:
        try:
            raw = np.array(values, dtype=float)
        except (TypeError, ValueError) as exc:
            raise InputError.bad_value("values", values, "a list, array or Series of numbers") from exc
        if raw.ndim != 1:
            raise InputError.bad_value("values", f"<array of shape {raw.shape}>", "a one-dimensional series")
        pos = np.arange(raw.size)
        season, year = pos % period, pos // period
        time_unit = "cycle"
    if np.any(np.isinf(raw)):
        raise InputError.bad_value("values", "inf", "finite numbers (NaN marks a missing value)")
    keep = ~np.isnan(raw)
    return raw[keep].copy(), season[keep], year[keep].astype(float), time_unit, int((~keep).sum())


def seasonal_mann_kendall(
    values: Any,
    *,
    period: int = 12,
    alpha: float = 0.05,
    unit: str | None = None,
    continuity: Literal["corrected", "none"] = "corrected",
) -> dict[str, Any]:
    """Seasonal Kendall test (Hirsch, Slack & Smith 1982) with the seasonal Kendall slope.

    Parameters
    ----------
    values : a Series indexed by dates with one value per month (``period=12``) or quarter
        (``period=4``) and year, or a plain sequence of consecutive seasons starting at season 0
        (then ``period`` is the number of seasons in a cycle). NaN marks a missing value: it is
        dropped and counted (``n_missing``); the other values keep their season and year.
    period : seasons per year (cycle).
    alpha : two-sided significance level; the slope interval has confidence 1 - alpha.
    unit : the unit of ``values``.
    continuity : ``"corrected"`` (z from S - sign(S), Hirsch, Slack & Smith 1982; the default) or ``"none"``
        (z = S/sqrt(Var S), the uncorrected statistic); reported as ``continuity_correction``.

    Returns
    -------
    dict with ``method`` ("seasonal_mann_kendall"), ``ok``, ``n``, ``n_missing``, ``period``,
    ``n_seasons_used``, ``S``, ``var_S``, ``z``, ``p_value``, ``tau``, ``trend``, ``significant``,
    ``alpha``, ``sen_slope``, ``sen_slope_ci``, ``slope_unit``, ``time_unit``, ``unit``,
    ``by_season`` (S, var_S and n per season) and ``meta``.

    Notes
    -----
    The Mann-Kendall statistic is computed within each season over the years (S_g, with the
    tie-corrected Var S_g); S = sum S_g and Var S = sum Var S_g, z with the continuity correction.
    Seasons are treated as independent (no Hirsch & Slack 1984 covariance term): strong serial
    correlation between months makes the p-value too small. ``tau`` is S over the sum of the
    seasons' tau-b denominators. The slope is the median of every within-season pairwise slope
    (x_j - x_i)/(year_j - year_i), per year (per cycle for a plain sequence); its interval uses the
    ranks of :func:`mann_kendall` with this Var S (Gilbert 1987, ch. 17).
    """
    params = resolved_parameters(seasonal_mann_kendall, (values,), {"period": period, "alpha": alpha, "unit": unit,
                                                                    "continuity": continuity})
    _check_alpha(alpha)
    _check_continuity(continuity)
    if not isinstance(period, (int, np.integer)) or isinstance(period, bool) or period < 2:
        raise InputError.bad_value("period", period, "an integer number of seasons per cycle, at least 2 (12 for months)")
    x, season, year, time_unit, n_missing = _seasonal_layout(values, int(period))
    sources = [source("Seasonal Kendall test", citation=_CITE_SMK), source("Sen's slope", citation=_CITE_SEN)]
    n_years = np.unique(year).size
    if n_years < 3 or x.size < MIN_VALUES:
        raise InsufficientDataError(
            f"{x.size} values over {n_years} year(s); the seasonal test needs values in at least 3 years",
            argument="values", value=x.size,
        )
    if x.size > MAX_VALUES:
        raise InputError.bad_value("values", f"<{x.size} values>", f"at most {MAX_VALUES} seasonal values")

    s_total, var_total, denom, slopes, rows = 0, 0.0, 0.0, [], []
    for g in range(int(period)):
        sel = season == g
        xg, yg = x[sel], year[sel]
        if xg.size < 2:
            rows.append({"season": g + 1, "n": int(xg.size), "S": None, "var_S": None})
            continue
        ties = _tie_counts(xg)
        sg, vg = _s_statistic(xg), _var_s(xg.size, ties)
        n0 = xg.size * (xg.size - 1) / 2.0
        denom += math.sqrt(max((n0 - float(np.sum(ties * (ties - 1) / 2.0))) * n0, 0.0))
        s_total += sg
        var_total += vg
        slopes.append(_pairwise_slopes(xg, yg))
        rows.append({"season": g + 1, "n": int(xg.size), "S": sg, "var_S": vg})
    used = sum(1 for r in rows if r["S"] is not None)
    payload: dict[str, Any] = {
        "method": "seasonal_mann_kendall", "ok": True, "n": int(x.size), "n_missing": n_missing, "period": int(period),
        "n_seasons_used": used, "alpha": alpha, "unit": unit, "time_unit": time_unit,
        "slope_unit": (f"{unit} " if unit else "") + f"per {time_unit}", "by_season": rows,
        "continuity_correction": continuity, "continuity_rule": CONTINUITY[continuity],
    }
    if var_total <= 0:
        reason = "the values are equal within every season: there is no variation to test for a trend"
        null = {k: v for k, v in _MK_NULL.items() if k != "sen_intercept"}
        return finish({**payload, **null, "ok": False, "reason": reason, "S": s_total},
                      "seasonal_mann_kendall", params, sources)
    z = _z(s_total, var_total, continuity)
    p, significant, trend = _verdict(z, alpha)
    # the seasonal Kendall slope has no single intercept (each season has its own level)
    all_slopes = np.sort(np.concatenate(slopes))
    c = _norm_ppf(1 - alpha / 2) * math.sqrt(var_total)
    ci = [_order_stat(all_slopes, (all_slopes.size - c) / 2.0), _order_stat(all_slopes, (all_slopes.size + c) / 2.0 + 1.0)]
    payload.update({
        "S": s_total, "var_S": var_total, "z": z, "p_value": p, "tau": s_total / denom if denom > 0 else None,
        "trend": trend, "significant": significant, "sen_slope": float(np.median(all_slopes)), "sen_slope_ci": ci,
    })
    return finish(payload, "seasonal_mann_kendall", params, sources)
