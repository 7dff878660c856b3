"""Flood frequency analysis: annual maxima, distribution fits, return levels and their bands.

A *fit* is a plain dict (``method``, ``distribution``, ``estimator``, ``ok``, ``parameters``, ``n``,
``unit``) that :func:`return_levels`, :func:`return_period_of` and :func:`bootstrap_band` evaluate
whatever estimator made it. Return periods are those of annual maxima: the T-year level is the
quantile at non-exceedance probability ``F = 1 - 1/T``.

Fits: ``gev_lmoments``, ``gumbel_lmoments``, ``glo_lmoments``, ``pe3_lmoments`` (Hosking & Wallis
1997; in :mod:`aquascope_core.methods.lmoments`), ``lp3_moments`` (log-Pearson III by the moments of
the logarithms, Bulletin 17B), ``gev_ml`` and ``gumbel_ml`` (maximum likelihood with standard errors, Coles 2001) and
``lp3_ema`` (Bulletin 17C's expected moments algorithm, :mod:`aquascope_core.methods.bulletin17c`).
"""

from __future__ import annotations

import logging
import math
from typing import Any, Callable, Literal, Sequence

import numpy as np
import pandas as pd

from aquascope_core.errors import AquascopeError, InputError, InsufficientDataError
from aquascope_core.methods import gumbel_ml as _gumbel_ml
from aquascope_core.methods import lmoments as lm
from aquascope_core.result import finish, resolved_parameters, source

__all__ = [
    "annual_maxima",
    "sample_lmoments",
    "fit_gev_lmoments",
    "fit_gumbel_lmoments",
    "fit_glo_lmoments",
    "fit_pe3_lmoments",
    "fit_lp3_moments",
    "fit_gev_ml",
    "fit_gumbel_ml",
    "delta_method_band",
    "return_levels",
    "return_period_of",
    "bootstrap_band",
    "goodness_of_fit",
    "flood_frequency",
    "DISTRIBUTIONS",
]

log = logging.getLogger(__name__)

sample_lmoments = lm.sample_lmoments
fit_gev_lmoments = lm.fit_gev_lmoments
fit_gumbel_lmoments = lm.fit_gumbel_lmoments
fit_gumbel_ml = _gumbel_ml.fit_gumbel_ml
refit_gumbel_ml = _gumbel_ml.refit_gumbel_ml
fit_glo_lmoments = lm.fit_glo_lmoments
fit_pe3_lmoments = lm.fit_pe3_lmoments

BULLETIN_17B = (
    "Interagency Advisory Committee on Water Data (1982) Guidelines for Determining Flood Flow Frequency, "
    "Bulletin 17B of the Hydrology Subcommittee. U.S. Geological Survey, Reston, VA."
)
COLES_2001 = "Coles, S. (2001) An Introduction to Statistical Modeling of Extreme Values. Springer, London."
_DAY_NS = 86_400_000_000_000

Basis = Literal["daily_mean", "instantaneous", "unknown"]
_BASIS_LABEL = {
    "daily_mean": "water-year maximum of the daily mean flow (not the instantaneous peak)",
    "instantaneous": "water-year maximum instantaneous flow (the annual peak)",
    "unknown": "water-year maximum of the series (whether daily mean or instantaneous peak is not stated)",
}


# --------------------------------------------------------------------------------------------
# Annual maxima
# --------------------------------------------------------------------------------------------

def _check_daily_series(series: Any, argument: str = "series") -> pd.Series:
    if not isinstance(series, pd.Series):
        raise InputError.bad_value(argument, type(series).__name__, "a pandas Series of daily values with a DatetimeIndex")
    if not isinstance(series.index, pd.DatetimeIndex):
        raise InputError(
            f"{argument} has a {type(series.index).__name__}, not a DatetimeIndex.",
            argument=argument,
            recovery="Index the series by date: series.index = pd.to_datetime(series.index).",
        )
    if series.index.hasnans:
        raise InputError(f"{argument} has missing dates (NaT) in its index.", argument=argument,
                         recovery="Drop the rows whose date is NaT.")
    if not series.index.is_unique:
        dup = series.index[series.index.duplicated()][:3]
        raise InputError(
            f"{argument} has duplicated dates, e.g. {[d.date().isoformat() for d in dup]}.",
            argument=argument,
            recovery="Keep one value per day (series[~series.index.duplicated()] after deciding which is right).",
        )
    if not series.index.is_monotonic_increasing:
        raise InputError(f"{argument} is not sorted by date.", argument=argument,
                         recovery="Sort it first: series.sort_index().")
    if not pd.api.types.is_numeric_dtype(series.dtype):
        raise InputError.bad_value(argument, str(series.dtype), "numeric values (float discharge)")
    if len(series) > 1:
        ns = series.index.as_unit("ns").asi8
        steps = np.diff(ns)
        if steps.min() != _DAY_NS or np.any(steps % _DAY_NS):
            raise InputError(
                f"{argument} is not a daily series: its time steps run from "
                f"{pd.Timedelta(int(steps.min()))} to {pd.Timedelta(int(steps.max()))}, not whole days "
                "with a one-day step.",
                argument=argument,
                recovery="Give daily values (resample sub-daily data with .resample('D').mean(), stating basis); "
                "for a list of annual peaks call the fitting functions directly.",
            )
    return series


def _water_year(index: pd.DatetimeIndex, start_month: int) -> np.ndarray:
    year = index.year.to_numpy()
    if start_month == 1:
        return year
    return year + (index.month.to_numpy() >= start_month)


def annual_maxima(
    series: pd.Series,
    *,
    water_year_start_month: int = 10,
    min_days: int = 360,
    basis: Basis = "daily_mean",
    unit: str | None = None,
) -> dict[str, Any]:
    """The maximum of each water year of a daily series.

    Parameters
    ----------
    series : pandas.Series
        Daily values with a sorted, unique DatetimeIndex (gaps may be NaN or absent rows).
    water_year_start_month : int
        First month of the water year (10: October, the USGS convention; 1: calendar years).
        A water year is named by the calendar year in which it ends (WY 2000 = 1999-10-01..2000-09-30).
    min_days : int
        Water years with fewer non-missing days are left out and listed in ``excluded``.
    basis : {"daily_mean", "instantaneous", "unknown"}
        What the values are; it goes into ``label`` because a maximum of daily means understates
        the instantaneous peak.
    unit : str, optional
        Unit of the values, carried through.

    Returns
    -------
    dict
        ``method="annual_maxima"``, ``ok``, ``water_years``, ``values``, ``dates`` (ISO date of
        each maximum, the first when tied), ``n_years``, ``excluded`` [{water_year, days}],
        ``unit``, ``basis``, ``label``, ``water_year_start_month``, ``min_days``,
        ``period`` {start, end}, ``meta``.
    """
    params = resolved_parameters(annual_maxima, (series,), dict(
        water_year_start_month=water_year_start_month, min_days=min_days, basis=basis, unit=unit))
    if basis not in _BASIS_LABEL:
        raise InputError.bad_value("basis", basis, "one of " + ", ".join(_BASIS_LABEL))
    if not (isinstance(water_year_start_month, (int, np.integer)) and 1 <= water_year_start_month <= 12):
        raise InputError.bad_value("water_year_start_month", water_year_start_month, "an integer month 1-12")
    if not (isinstance(min_days, (int, np.integer)) and 1 <= min_days <= 366):
        raise InputError.bad_value("min_days", min_days, "an integer number of days 1-366")
    s = _check_daily_series(series)
    if len(s) == 0:
        raise InsufficientDataError("series is empty.", argument="series")

    wy = _water_year(s.index, int(water_year_start_month))
    values = s.to_numpy(dtype=float, na_value=np.nan)
    present = np.isfinite(values)
    years, water_years, maxima, dates, excluded = range(int(wy[0]), int(wy[-1]) + 1), [], [], [], []
    bounds = np.searchsorted(wy, np.arange(years.start, years.stop + 1))
    for i, year in enumerate(years):
        lo, hi = bounds[i], bounds[i + 1]
        days = int(present[lo:hi].sum())
        if days < min_days:
            excluded.append({"water_year": year, "days": days})
            continue
        block = np.where(present[lo:hi], values[lo:hi], -np.inf)
        j = lo + int(np.argmax(block))
        water_years.append(year)
        maxima.append(float(values[j]))
        dates.append(s.index[j].date().isoformat())
    if not water_years:
        raise InsufficientDataError(
            f"no water year of series has at least {min_days} days of data "
            f"({len(excluded)} partial year(s) from {years.start} to {years.stop - 1}).",
            argument="series",
        )
    payload = {
        "method": "annual_maxima",
        "ok": True,
        "water_years": water_years,
        "values": maxima,
        "dates": dates,
        "n_years": len(water_years),
        "excluded": excluded,
        "unit": unit,
        "basis": basis,
        "label": _BASIS_LABEL[basis],
        "water_year_start_month": int(water_year_start_month),
        "min_days": int(min_days),
        "period": {"start": s.index[0].date().isoformat(), "end": s.index[-1].date().isoformat()},
    }
    return finish(payload, "annual_maxima", params)


# --------------------------------------------------------------------------------------------
# Log-Pearson III by moments
# --------------------------------------------------------------------------------------------

def _log_moments(xs: np.ndarray, log_base: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, standard deviation (n-1) and bias-corrected skew of log_base(x) along the last axis."""
    n = xs.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(xs) / math.log(log_base)
        mean = y.mean(axis=-1)
        d = y - mean[..., None]
        sd = np.sqrt((d * d).sum(axis=-1) / (n - 1))
        skew = n * (d**3).sum(axis=-1) / ((n - 1) * (n - 2) * sd**3)
    return mean, sd, skew


_SOURCES = {
    "lmoments": [source("L-moment estimation", citation=lm.HOSKING_WALLIS_1997)],
    "lp3_moments": [source("log-Pearson III, method of moments", citation=BULLETIN_17B)],
}


def fit_lp3_moments(values: Any, *, unit: str | None = None, log_base: int = 10) -> dict[str, Any]:
    """Log-Pearson type III by the method of moments of the logarithms (Bulletin 17B, at-site skew).

    Parameters
    ----------
    values : sequence of float
        Annual maxima, all > 0 (zero or negative flows raise :class:`InputError`; they are never
        dropped silently). At least 3 values.
    unit : str, optional
    log_base : int
        Base of the logarithm (10 as in Bulletin 17B).

    Returns
    -------
    dict
        ``method="lp3_moments"``, ``ok``, ``distribution="lp3"``, ``estimator``, ``n``, ``unit``,
        ``parameters`` {mean_log, sd_log, skew_log, log_base}, ``meta``.

    Notes
    -----
    With ``y = log(x)``: mean, standard deviation with ``n - 1``, and the at-site skew with the
    usual small-sample correction ``G = n sum (y - ybar)^3 / ((n-1)(n-2) s^3)``. The T-year flood
    is ``10^(mean + K(G, 1 - 1/T) sd)`` with K the standardised Pearson III quantile. No
    low-outlier test, historical information or regional skew: those are Bulletin 17C's EMA
    (:func:`aquascope_core.methods.bulletin17c.fit_lp3_ema`).
    """
    params = resolved_parameters(fit_lp3_moments, (values,), {"unit": unit, "log_base": log_base})
    if not (isinstance(log_base, (int, float, np.integer, np.floating)) and log_base > 1):
        raise InputError.bad_value("log_base", log_base, "a number > 1 (10 in Bulletin 17B)")
    x = lm.as_sample(values, min_n=3, positive=True)
    mean, sd, skew = (float(v) for v in _log_moments(x, float(log_base)))
    payload = {
        "method": "lp3_moments",
        "distribution": "lp3",
        "distribution_label": lm.DIST_LABELS["lp3"],
        "estimator": f"method of moments of log{log_base:g} flows, at-site skew (Bulletin 17B)",
        "n": int(x.size),
        "unit": unit,
        "ok": True,
        "parameters": {"mean_log": mean, "sd_log": sd, "skew_log": skew, "log_base": float(log_base)},
    }
    return finish(payload, "lp3_moments", params, _SOURCES["lp3_moments"])


# --------------------------------------------------------------------------------------------
# GEV by maximum likelihood (vectorised over leading axes: one record or many resamples)
# --------------------------------------------------------------------------------------------

_XI_EPS = 1e-6  # |xi| below this is evaluated at +-_XI_EPS: the Gumbel limit to ~1e-6 relative


def _gev_nll_grad(x: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Negative log-likelihood, its gradient in (mu, sigma, xi) (Coles' xi) and a validity mask.

    ``x`` has shape (R, n); ``theta`` (R, 3). Invalid rows (sigma <= 0 or an observation outside
    the support) get ``nll = inf``.
    """
    mu, sigma, xi = theta[:, 0:1], theta[:, 1:2], theta[:, 2:3]
    n = x.shape[1]
    xi = np.where(np.abs(xi) < _XI_EPS, np.where(xi < 0, -_XI_EPS, _XI_EPS), xi)
    with np.errstate(all="ignore"):
        z = (x - mu) / sigma
        t = 1.0 + xi * z
        valid = (sigma[:, 0] > 0) & np.all(t > 0, axis=1)
        lt = np.log(np.where(t > 0, t, 1.0))
        u = np.exp(-lt / xi)
        nll = n * np.log(sigma[:, 0]) + np.sum((1.0 + 1.0 / xi) * lt + u, axis=1)
        common = (u - (1.0 + xi)) / t
        g_mu = np.sum(common, axis=1) / sigma[:, 0]
        g_sigma = n / sigma[:, 0] + np.sum(z * common, axis=1) / sigma[:, 0]
        g_xi = np.sum(-lt / xi**2 + (1.0 + 1.0 / xi) * z / t + u * (lt / xi**2 - z / (xi * t)), axis=1)
    grad = np.stack([g_mu, g_sigma, g_xi], axis=1)
    nll = np.where(valid & np.isfinite(nll), nll, np.inf)
    return nll, grad, valid


def _gev_hessian(x: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Observed information (Hessian of the nll) by central differences of the analytic gradient."""
    h = np.stack([1e-5 * theta[:, 1], 1e-5 * theta[:, 1], np.full(theta.shape[0], 1e-5)], axis=1)
    H = np.empty((theta.shape[0], 3, 3))
    for j in range(3):
        step = np.zeros_like(theta)
        step[:, j] = h[:, j]
        gp = _gev_nll_grad(x, theta + step)[1]
        gm = _gev_nll_grad(x, theta - step)[1]
        H[:, :, j] = (gp - gm) / (2.0 * h[:, j : j + 1])
    return 0.5 * (H + np.transpose(H, (0, 2, 1)))


def _gev_ml_solve(x: np.ndarray, start: np.ndarray, max_iter: int = 200) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Damped Newton (Levenberg-Marquardt) on the GEV likelihood for every row of ``x`` at once.

    Returns ``theta`` (R, 3) in (mu, sigma, xi), ``nll``, ``converged`` and the iterations used.
    Convergence is judged on the scaled gradient (|dnll/dmu| sigma, |dnll/dsigma| sigma,
    |dnll/dxi| all below 1e-6), never on the iteration merely stopping.
    """
    theta = start.copy()
    lam = np.full(theta.shape[0], 1e-3)
    nll, grad, _ = _gev_nll_grad(x, theta)
    eye = np.eye(3)
    for it in range(1, max_iter + 1):
        scaled = np.abs(grad) * np.stack([theta[:, 1], theta[:, 1], np.ones(theta.shape[0])], axis=1)
        done = np.isfinite(nll) & np.all(scaled < 1e-6, axis=1)
        if np.all(done | ~np.isfinite(nll)):
            return theta, nll, done, it - 1
        active = ~done & np.isfinite(nll)
        H = _gev_hessian(x[active], theta[active])
        diag = np.maximum(np.abs(np.diagonal(H, axis1=1, axis2=2)), 1e-12)
        A = H + lam[active, None, None] * diag[:, :, None] * eye
        with np.errstate(all="ignore"):
            try:
                d = -np.linalg.solve(A, grad[active][:, :, None])[:, :, 0]
            except np.linalg.LinAlgError:
                d = -grad[active] / diag
        d = np.where(np.isfinite(d), d, 0.0)
        cand = theta[active] + d
        nll_c, grad_c, _ = _gev_nll_grad(x[active], cand)
        better = nll_c <= nll[active] + 1e-12 * np.abs(nll[active])
        idx = np.flatnonzero(active)
        acc, rej = idx[better], idx[~better]
        theta[acc], nll[acc], grad[acc] = cand[better], nll_c[better], grad_c[better]
        lam[acc] = np.maximum(lam[acc] / 10.0, 1e-12)
        lam[rej] = lam[rej] * 10.0
        stuck = rej[lam[rej] > 1e12]
        nll[stuck] = np.where(np.isfinite(nll[stuck]), nll[stuck], np.inf)
        if stuck.size:
            lam[stuck] = 1e12  # keep trying small gradient steps; judged by the gradient at the end
    scaled = np.abs(grad) * np.stack([theta[:, 1], theta[:, 1], np.ones(theta.shape[0])], axis=1)
    return theta, nll, np.isfinite(nll) & np.all(scaled < 1e-6, axis=1), max_iter


def _gev_ml_start(xs: np.ndarray) -> np.ndarray:
    """Starting values (mu, sigma, xi) from the L-moment GEV fit, or the Gumbel's where that is not usable."""
    l1, l2, t3 = lm._lmom3(xs)
    loc, scale, k = lm.gev_from_lmoments(l1, l2, t3)
    start = np.stack([loc, scale, -k], axis=1)
    g_loc, g_scale = lm.gumbel_from_lmoments(l1, l2)
    gumbel = np.stack([g_loc, g_scale, np.zeros_like(g_loc)], axis=1)
    ok = np.all(np.isfinite(start), axis=1) & np.isfinite(_gev_nll_grad(xs, start)[0])
    return np.where(ok[:, None], start, gumbel)


def fit_gev_ml(values: Any, *, unit: str | None = None) -> dict[str, Any]:
    """Generalised extreme value distribution fitted by maximum likelihood, with standard errors.

    Parameters
    ----------
    values : sequence of float
        Annual maxima (at least 5; no NaN; not all equal).
    unit : str, optional

    Returns
    -------
    dict
        ``method="gev_ml"``, ``ok``, ``distribution="gev"``, ``estimator``, ``n``, ``unit``,
        ``parameters`` {mu, sigma, xi_coles, k (= -xi_coles)}, ``standard_errors`` {mu, sigma,
        xi_coles}, ``covariance`` (3x3 in that order), ``neg_log_likelihood``, ``iterations``,
        ``upper_bound`` / ``lower_bound``, ``reason`` when not ok, ``meta``.

    Notes
    -----
    Coles (2001, sec. 3.3): the likelihood of ``G(z) = exp(-(1 + xi (z - mu)/sigma)^(-1/xi))`` is
    maximised by a damped Newton iteration from the L-moment estimates; the covariance is the
    inverse observed information. The fit is reported as failed when the scaled gradient does
    not vanish, the shape reaches ``xi <= -1`` (the likelihood is then unbounded; Smith 1985),
    or the observed information is not positive definite. For ``-1 < xi < -0.5`` the estimate
    exists but its standard errors are not the usual asymptotic ones (Smith 1985); ``warnings``
    says so.

    References
    ----------
    Coles, S. (2001). An Introduction to Statistical Modeling of Extreme Values. Springer.
    Smith, R.L. (1985). Maximum likelihood estimation in a class of nonregular cases.
        Biometrika 72, 67-90.
    """
    params = resolved_parameters(fit_gev_ml, (values,), {"unit": unit})
    x = lm.as_sample(values, min_n=5)
    xs = np.sort(x)[None, :]
    theta, nll, conv, iters = _gev_ml_solve(xs, _gev_ml_start(xs))
    mu, sigma, xi = (float(v) for v in theta[0])
    payload: dict[str, Any] = {
        "method": "gev_ml",
        "distribution": "gev",
        "distribution_label": lm.DIST_LABELS["gev"],
        "estimator": "maximum likelihood (Coles 2001)",
        "n": int(x.size),
        "unit": unit,
        "iterations": iters,
        "warnings": [],
    }
    srcs = [source("GEV maximum likelihood", citation=COLES_2001)]

    def failed(reason: str) -> dict[str, Any]:
        payload.update(ok=False, parameters=None, standard_errors=None, covariance=None,
                       neg_log_likelihood=None, reason=reason)
        return finish(payload, "gev_ml", params, srcs)

    if xi <= -0.95 and not conv[0] or xi <= -1.0 + 1e-6:
        return failed(f"the shape ran to xi = {xi:.3f}, towards xi <= -1 where the GEV likelihood is unbounded "
                      "(Smith 1985): the sample has too short an upper tail for a GEV maximum-likelihood fit")
    if not (conv[0] and math.isfinite(float(nll[0]))):
        return failed(f"the likelihood maximisation did not converge in {iters} iterations "
                      "(the gradient did not vanish, or the likelihood was not finite)")
    H = _gev_hessian(xs, theta)[0]
    try:
        np.linalg.cholesky(H)
        cov = np.linalg.inv(H)
    except np.linalg.LinAlgError:
        return failed("the observed information is not positive definite: the likelihood has no proper maximum here")
    se = np.sqrt(np.diag(cov))
    if xi < -0.5:
        payload["warnings"].append(f"xi = {xi:.3f} < -0.5: the standard errors are not the usual asymptotic ones "
                                   "(Smith 1985)")
    payload.update(
        ok=True,
        parameters={"mu": mu, "sigma": sigma, "xi_coles": xi, "k": -xi},
        standard_errors={"mu": float(se[0]), "sigma": float(se[1]), "xi_coles": float(se[2])},
        covariance=cov.tolist(),
        neg_log_likelihood=float(nll[0]),
        upper_bound=mu - sigma / xi if xi < 0 else None,
        lower_bound=mu - sigma / xi if xi > 0 else None,
    )
    return finish(payload, "gev_ml", params, srcs)


def _refit_gev_ml(fit: dict[str, Any], xs: np.ndarray) -> tuple:
    theta, _, conv, _ = _gev_ml_solve(xs, _gev_ml_start(xs), max_iter=100)
    ok = conv & (theta[:, 2] > -1.0)
    theta = np.where(ok[:, None], theta, np.nan)
    return theta[:, 0], theta[:, 1], -theta[:, 2]


def delta_method_band(fit: dict[str, Any], return_periods: Any, *, confidence: float = 0.95) -> dict[str, Any]:
    """Normal-approximation band of the return levels of a maximum-likelihood GEV fit.

    ``se(z_T)^2 = grad(z_T)' V grad(z_T)`` with V the inverse observed information and the
    gradient of ``z_T = mu - sigma/xi (1 - y^-xi)``, ``y = -ln(1 - 1/T)`` (Coles 2001, eq. 3.10).

    Returns
    -------
    dict
        ``method="delta_method_band"``, ``ok``, ``return_periods``, ``return_levels``, ``se``,
        ``lower``, ``upper``, ``confidence``, ``meta``.
    """
    params = resolved_parameters(delta_method_band, (fit, return_periods), {"confidence": confidence})
    T = _periods(return_periods)
    if not (0.0 < float(confidence) < 1.0):
        raise InputError.bad_value("confidence", confidence, "a probability strictly between 0 and 1, e.g. 0.95")
    if not isinstance(fit, dict) or fit.get("method") != "gev_ml":
        raise InputError.bad_value("fit", fit.get("method") if isinstance(fit, dict) else fit,
                                   "a fit made by fit_gev_ml (the band needs its covariance)")
    base = {"method": "delta_method_band", "fit_method": "gev_ml", "return_periods": T.tolist(),
            "confidence": float(confidence)}
    if not fit.get("ok") or not fit.get("covariance"):
        none = [None] * T.size
        return finish({**base, "ok": False, "reason": "the fit is not ok", "return_levels": none, "se": none,
                       "lower": none, "upper": none}, "delta_method_band", params)
    p = fit["parameters"]
    mu, sigma, xi = p["mu"], p["sigma"], p["xi_coles"]
    xi = xi if abs(xi) >= _XI_EPS else math.copysign(_XI_EPS, xi if xi != 0 else 1.0)
    y = -np.log1p(-1.0 / T)
    yx = y ** (-xi)
    z = mu - sigma / xi * (1.0 - yx)
    grad = np.stack([np.ones_like(y), -(1.0 - yx) / xi, sigma / xi**2 * (1.0 - yx) - sigma / xi * yx * np.log(y)], axis=1)
    V = np.asarray(fit["covariance"], dtype=float)
    se = np.sqrt(np.einsum("ti,ij,tj->t", grad, V, grad))
    from scipy.special import ndtri

    zq = float(ndtri(0.5 + float(confidence) / 2.0))
    payload = {**base, "ok": True, "return_levels": z.tolist(), "se": se.tolist(),
               "lower": (z - zq * se).tolist(), "upper": (z + zq * se).tolist()}
    return finish(payload, "delta_method_band", params, [source("delta method", citation=COLES_2001)])


# --------------------------------------------------------------------------------------------
# Evaluating any fit
# --------------------------------------------------------------------------------------------

def _theta(fit: dict[str, Any]) -> tuple[str, tuple[float, ...]]:
    """The distribution and its parameters in this module's standard order, from any fit dict."""
    if not isinstance(fit, dict) or "distribution" not in fit:
        raise InputError.bad_value("fit", type(fit).__name__, "a fit dict made by a flood_frequency fit function")
    d, p = fit["distribution"], fit.get("parameters") or {}
    try:
        if d == "gev":
            if "alpha" in p:
                return d, (p["xi"], p["alpha"], p["k"])
            return d, (p["mu"], p["sigma"], -p["xi_coles"])
        if d == "gumbel":
            return d, (p["xi"], p["alpha"])
        if d == "glo":
            return d, (p["xi"], p["alpha"], p["k"])
        if d == "pe3":
            return d, (p["mu"], p["sigma"], p["gamma"])
        if d == "lp3":
            return d, (p["mean_log"], p["sd_log"], p["skew_log"], p.get("log_base", 10.0))
    except (KeyError, TypeError):
        raise InputError.bad_value("fit", p, f"the parameters of a {d} fit") from None
    raise InputError.bad_value("fit['distribution']", d, "one of gev, gumbel, glo, pe3, lp3")


def _quantile(d: str, theta, F):
    if d == "gev":
        return lm.gev_quantile(F, *theta)
    if d == "gumbel":
        return lm.gumbel_quantile(F, *theta)
    if d == "glo":
        return lm.glo_quantile(F, *theta)
    if d == "pe3":
        return lm.pe3_quantile(F, *theta)
    mean, sd, skew, base = theta
    return np.power(base, mean + np.asarray(sd) * lm.pearson3_frequency_factor(skew, F))


def _cdf(d: str, theta, x):
    if d == "gev":
        return lm.gev_cdf(x, *theta)
    if d == "gumbel":
        return lm.gumbel_cdf(x, *theta)
    if d == "glo":
        return lm.glo_cdf(x, *theta)
    if d == "pe3":
        return lm.pe3_cdf(x, *theta)
    mean, sd, skew, base = theta
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(np.where(x > 0, x, np.nan)) / np.log(base)
    return np.where(x > 0, lm.pe3_cdf(y, mean, sd, skew), 0.0)


def _periods(return_periods: Any, argument: str = "return_periods") -> np.ndarray:
    try:
        T = np.array(return_periods, dtype=float, copy=True).ravel()
    except (TypeError, ValueError):
        raise InputError.bad_value(argument, return_periods, "a sequence of return periods in years, each > 1") from None
    if T.size == 0 or not np.all(np.isfinite(T)) or np.any(T <= 1):
        raise InputError.bad_value(argument, return_periods, "return periods in years, each finite and > 1")
    return T


def return_levels(fit: dict[str, Any], return_periods: Any) -> list[float | None]:
    """The T-year levels of ``fit``: its quantiles at ``F = 1 - 1/T``, aligned with ``return_periods``.

    ``None`` throughout when the fit is not ok; ``None`` at a period where the quantile is not
    finite.
    """
    T = _periods(return_periods)
    if not fit.get("ok"):
        return [None] * T.size
    d, theta = _theta(fit)
    q = np.atleast_1d(_quantile(d, theta, 1.0 - 1.0 / T))
    return [float(v) if np.isfinite(v) else None for v in q]


def return_period_of(fit: dict[str, Any], value: float) -> float | None:
    """The return period (years) of ``value`` under ``fit``: ``1 / (1 - F(value))``.

    ``math.inf`` when ``value`` lies at or above the fitted distribution's upper bound (a GEV
    with k > 0, say): the fit says such a flow cannot happen. ``None`` when the fit is not ok.
    """
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError.bad_value("value", value, "a number (a flow in the fit's unit)") from None
    if not math.isfinite(v):
        raise InputError.bad_value("value", value, "a finite number")
    if not fit.get("ok"):
        return None
    d, theta = _theta(fit)
    F = float(_cdf(d, theta, v))
    if not math.isfinite(F):
        return None
    if F >= 1.0:
        return math.inf
    return 1.0 / (1.0 - F)


# --------------------------------------------------------------------------------------------
# Parametric bootstrap (vectorised over the resample axis)
# --------------------------------------------------------------------------------------------

def _draw(d: str, theta, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Random samples from a fitted distribution: gamma variates for the Pearson III family (no
    inverse incomplete gamma function per value), the quantile of uniforms for the others."""
    if d in ("pe3", "lp3"):
        mu, sd, g = theta[0], theta[1], theta[2]
        if abs(g) < 1e-6:
            z = rng.standard_normal(shape)
        else:
            a = 4.0 / (g * g)
            z = math.copysign(1.0, g) * (rng.standard_gamma(a, size=shape) - a) / math.sqrt(a)
        y = mu + sd * z
        return np.power(theta[3], y) if d == "lp3" else y
    return _quantile(d, theta, rng.random(shape))


def _refit(fit: dict[str, Any], d: str, samples: np.ndarray) -> tuple:
    """Refit every row of ``samples`` with the estimator that made ``fit``."""
    method = fit.get("method")
    xs = np.sort(samples, axis=-1)
    if method in lm.LMOMENT_FITS:
        return lm.LMOMENT_FITS[method][4](*lm._lmom3(xs))
    if method == "lp3_moments":
        base = fit["parameters"].get("log_base", 10.0)
        return (*_log_moments(xs, base), np.full(xs.shape[:-1], base))
    if method == "lp3_ema":
        raise InputError("an EMA fit is not resampled here: its censoring pattern and low-outlier test would have "
                         "to be simulated too.", argument="fit",
                         recovery="Use aquascope_core.methods.bulletin17c.ema_confidence_band(fit, return_periods).")
    extra = _EXTRA_REFITS.get(method)
    if extra is not None:
        return extra(fit, xs)
    raise InputError.bad_value("fit['method']", method, "a fit that bootstrap_band can refit: "
                               + ", ".join([*lm.LMOMENT_FITS, "lp3_moments", *_EXTRA_REFITS]))


# Other modules (maximum likelihood) register their vectorised refits here.
_EXTRA_REFITS: dict[str, Callable[[dict[str, Any], np.ndarray], tuple]] = {"gev_ml": _refit_gev_ml,
                                                                           "gumbel_ml": refit_gumbel_ml}


# The bootstrap's bounds: values drawn per chunk of resamples (16 MB a float array) and in all (a record of
# 300,000 values gets 100 resamples, not 1,000 x 300,000 = 2.4 GB per array); 100 resamples at least.
BOOTSTRAP_CHUNK_VALUES = 2_000_000
BOOTSTRAP_MAX_DRAWS = 30_000_000
_MIN_RESAMPLES = 100


def bootstrap_band(
    fit: dict[str, Any],
    n: int,
    return_periods: Any,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.90,
    seed: int = 20240601,
) -> dict[str, Any]:
    """Parametric bootstrap band of the return levels of ``fit``.

    Draws ``n_resamples`` samples of size ``n`` from the fitted distribution (one
    ``n_resamples x n`` array; Pearson III variates from gamma variates, the others by their
    quantile function), refits each with the same estimator, and takes percentiles of the
    refitted return levels.

    Returns
    -------
    dict
        ``method="bootstrap_band"``, ``ok``, ``fit_method``, ``return_periods``, ``lower``,
        ``upper``, ``median`` (aligned with ``return_periods``), ``confidence``, ``n_resamples``,
        ``n_failed`` (resamples whose refit had no finite parameters or levels), ``seed``, ``meta``.
    """
    params = resolved_parameters(bootstrap_band, (fit, n, return_periods),
                                 dict(n_resamples=n_resamples, confidence=confidence, seed=seed))
    T = _periods(return_periods)
    if not (isinstance(n, (int, np.integer)) and n >= 3):
        raise InsufficientDataError(f"n={n!r}: a bootstrap needs resamples of at least 3 values.", argument="n")
    if not (isinstance(n_resamples, (int, np.integer)) and n_resamples >= 20):
        raise InputError.bad_value("n_resamples", n_resamples, "an integer >= 20 (1000 is usual)")
    if not (0.0 < float(confidence) < 1.0):
        raise InputError.bad_value("confidence", confidence, "a probability strictly between 0 and 1, e.g. 0.90")
    base = {"method": "bootstrap_band", "fit_method": fit.get("method") if isinstance(fit, dict) else None,
            "return_periods": T.tolist(), "confidence": float(confidence), "n_resamples": int(n_resamples),
            "seed": int(seed), "n": int(n)}
    if not isinstance(fit, dict) or not fit.get("ok"):
        none = [None] * T.size
        return finish({**base, "ok": False, "reason": "the fit is not ok, so it cannot be resampled",
                       "lower": none, "upper": none, "median": none, "n_failed": None}, "bootstrap_band", params)
    requested = int(n_resamples)
    n_resamples = min(requested, max(_MIN_RESAMPLES, BOOTSTRAP_MAX_DRAWS // int(n)))
    if n_resamples < requested:  # a long record: its band is narrow, and the work stays bounded
        base["n_resamples"], base["n_resamples_requested"] = n_resamples, requested
        base["note"] = (f"{n_resamples} resamples instead of {requested}: {requested:,} x {int(n):,} values would exceed "
                        f"the bound of {BOOTSTRAP_MAX_DRAWS:,} drawn values (BOOTSTRAP_MAX_DRAWS)")
    d, theta = _theta(fit)
    rng = np.random.default_rng(seed)
    rows = max(1, BOOTSTRAP_CHUNK_VALUES // int(n))  # resamples per chunk: memory bounded whatever n is
    parts = []
    for start in range(0, n_resamples, rows):  # the same draws, in the same order, as one n_resamples x n array
        samples = _draw(d, theta, rng, (min(rows, n_resamples - start), int(n)))
        with np.errstate(all="ignore"):
            refit = _refit(fit, d, samples)
            parts.append(_quantile(d, tuple(np.asarray(a)[:, None] for a in refit), (1.0 - 1.0 / T)[None, :]))
        del samples
    levels = np.concatenate(parts, axis=0)
    good = np.all(np.isfinite(levels), axis=1)
    n_failed = int((~good).sum())
    if good.sum() < max(20, 0.5 * n_resamples):
        none = [None] * T.size
        return finish({**base, "ok": False, "n_failed": n_failed, "lower": none, "upper": none, "median": none,
                       "reason": f"{n_failed} of {n_resamples} resamples could not be refitted"},
                      "bootstrap_band", params)
    a = (1.0 - float(confidence)) / 2.0
    lo, med, hi = np.percentile(levels[good], [100 * a, 50.0, 100 * (1 - a)], axis=0)
    payload = {**base, "ok": True, "lower": lo.tolist(), "upper": hi.tolist(), "median": med.tolist(),
               "n_failed": n_failed}
    if n_failed:
        log.info("bootstrap_band(%s): %d of %d resamples failed to refit", base["fit_method"], n_failed, n_resamples)
    return finish(payload, "bootstrap_band", params,
                  [source("parametric bootstrap", citation="Efron, B. and Tibshirani, R.J. (1993) An Introduction "
                          "to the Bootstrap. Chapman & Hall.")])


# --------------------------------------------------------------------------------------------
# Goodness of fit
# --------------------------------------------------------------------------------------------

def goodness_of_fit(fit: dict[str, Any], values: Any) -> dict[str, Any]:
    """Goodness-of-fit figures a report can quote for ``fit`` on the sample ``values``.

    Returns
    -------
    dict
        ``ppcc``: correlation of the sorted sample with the fitted quantiles at Gringorten
        plotting positions ``(i - 0.44)/(n + 0.12)``; ``anderson_darling``: the A^2 statistic with
        the fitted parameters (no p-value: with estimated parameters its null distribution
        depends on the distribution and n); ``lmoment_tau4_distance``: the sample t4 minus the
        distribution's tau4 at the sample t3 (on the logarithms for log-Pearson III; ``None``
        for distributions with two parameters other than the Gumbel, whose curve is a point);
        ``t3``, ``t4`` of the sample used.

    Notes
    -----
    The L-moment distance is the at-site counterpart of Hosking & Wallis' (1997, sec. 5.2)
    Z statistic, without its regional standardisation.
    """
    x = lm.as_sample(values, min_n=4)
    out: dict[str, Any] = {"ppcc": None, "anderson_darling": None, "lmoment_tau4_distance": None}
    if not fit.get("ok"):
        return out
    d, theta = _theta(fit)
    xs = np.sort(x)
    n = xs.size
    pp = (np.arange(1, n + 1) - 0.44) / (n + 0.12)
    q = _quantile(d, theta, pp)
    if np.all(np.isfinite(q)):
        out["ppcc"] = float(np.corrcoef(xs, q)[0, 1])
    F = np.clip(_cdf(d, theta, xs), 1e-300, 1.0)
    if np.all((F > 0) & (F < 1)):
        i = np.arange(1, n + 1)
        out["anderson_darling"] = float(-n - np.mean((2 * i - 1) * (np.log(F) + np.log1p(-F[::-1]))))
    sample = np.log(xs) / np.log(theta[3]) if d == "lp3" and np.all(xs > 0) else xs
    if d == "lp3" and not np.all(xs > 0):
        return out
    l1, l2, l3, l4 = lm.lmoments_of_sorted(sample, 4)
    t3, t4 = l3 / l2, l4 / l2
    curve = {"gev": "gev", "glo": "glo", "pe3": "pe3", "lp3": "pe3", "gumbel": "gumbel"}[d]
    out["lmoment_tau4_distance"] = float(t4 - lm.tau4_on_curve(curve, t3))
    out["t3"], out["t4"] = float(t3), float(t4)
    if d == "gumbel":
        out["lmoment_tau3_distance"] = float(t3 - lm._GUMBEL_TAU3)
    return out


# --------------------------------------------------------------------------------------------
# The whole analysis
# --------------------------------------------------------------------------------------------

DISTRIBUTIONS = ("gev_lmoments", "gumbel_lmoments", "glo_lmoments", "pe3_lmoments", "lp3_moments", "gev_ml", "gumbel_ml",
                 "lp3_ema")
DistributionId = Literal["gev_lmoments", "gumbel_lmoments", "glo_lmoments", "pe3_lmoments", "lp3_moments", "gev_ml",
                         "gumbel_ml", "lp3_ema"]


def _fit_by_id(method_id: str, x: np.ndarray, unit: str | None) -> dict[str, Any]:
    if method_id == "gev_lmoments":
        return fit_gev_lmoments(x, unit=unit)
    if method_id == "gumbel_lmoments":
        return fit_gumbel_lmoments(x, unit=unit)
    if method_id == "glo_lmoments":
        return fit_glo_lmoments(x, unit=unit)
    if method_id == "pe3_lmoments":
        return fit_pe3_lmoments(x, unit=unit)
    if method_id == "lp3_moments":
        return fit_lp3_moments(x, unit=unit)
    if method_id == "gev_ml":
        return fit_gev_ml(x, unit=unit)
    if method_id == "gumbel_ml":
        return fit_gumbel_ml(x, unit=unit)
    if method_id == "lp3_ema":
        from aquascope_core.methods.bulletin17c import fit_lp3_ema

        return fit_lp3_ema(x, skew_option="station", unit=unit)
    raise InputError.bad_value("distributions", method_id, "ids among " + ", ".join(DISTRIBUTIONS))


def flood_frequency(
    values: Any,
    *,
    return_periods: Sequence[float] = (2, 5, 10, 25, 50, 100, 200, 500, 1000),
    distributions: Sequence[DistributionId] = ("gev_lmoments", "lp3_moments"),
    n_bootstrap: int = 1000,
    confidence: float = 0.90,
    seed: int = 20240601,
    unit: str | None = None,
) -> dict[str, Any]:
    """Fit each of ``distributions`` to annual maxima; return levels, bootstrap bands and fit checks.

    Parameters
    ----------
    values : sequence of float
        Annual maxima (no NaN; at least 4 values).
    return_periods : sequence of float
        Return periods in years, each > 1.
    distributions : sequence of str
        Fit ids, among ``gev_lmoments``, ``gumbel_lmoments``, ``glo_lmoments``, ``pe3_lmoments``,
        ``lp3_moments``, ``gev_ml``, ``lp3_ema`` (Bulletin 17C EMA on the systematic record with
        the at-site skew and the multiple Grubbs-Beck test; for historical floods and regional skew
        call :func:`aquascope_core.methods.bulletin17c.fit_lp3_ema` directly).
    n_bootstrap : int
        Parametric bootstrap resamples per fit (0: no band). ``lp3_ema`` gets the EMA's own
        limits instead (as PeakFQ computes them).
    confidence : float
        Two-sided coverage of the bands.
    seed : int
        Seed of the bootstrap's random generator.
    unit : str, optional
        Unit of the values.

    Returns
    -------
    dict
        ``method="flood_frequency"``, ``ok`` (at least one fit is ok), ``n``, ``unit``,
        ``return_periods``, ``fits`` {id: {ok, method, distribution, estimator, parameters,
        return_levels, ci {lower, upper, confidence, n_resamples, n_failed}, goodness_of_fit,
        reason (when not ok)}}, ``record_max`` {value, return_period {id: T}, beyond_upper_bound
        {id: bool}}, ``sample_lmoments``, ``meta``. A fit that fails (zero flows for a log
        distribution, no convergence) is kept with ``ok: false`` and its reason.
    """
    params = resolved_parameters(flood_frequency, (values,), dict(
        return_periods=return_periods, distributions=distributions, n_bootstrap=n_bootstrap,
        confidence=confidence, seed=seed, unit=unit))
    T = _periods(return_periods)
    if isinstance(distributions, str):
        distributions = (distributions,)
    ids = list(dict.fromkeys(distributions))
    unknown = [i for i in ids if i not in DISTRIBUTIONS]
    if not ids or unknown:
        raise InputError.bad_value("distributions", list(distributions), "fit ids among " + ", ".join(DISTRIBUTIONS))
    if not (isinstance(n_bootstrap, (int, np.integer)) and (n_bootstrap == 0 or n_bootstrap >= 20)):
        raise InputError.bad_value("n_bootstrap", n_bootstrap, "0 (no band) or an integer >= 20")
    x = lm.as_sample(values, min_n=4)
    fits: dict[str, Any] = {}
    record = float(x.max())
    record_T: dict[str, float | None] = {}
    beyond: dict[str, bool] = {}
    for method_id in ids:
        try:
            f = _fit_by_id(method_id, x, unit)
        except AquascopeError as exc:  # e.g. zero flows for a log distribution: this fit fails, the rest stand
            fits[method_id] = {"method": method_id, "ok": False, "reason": exc.message,
                               "return_levels": [None] * T.size, "ci": None, "goodness_of_fit": None}
            record_T[method_id], beyond[method_id] = None, False
            continue
        f = {k: v for k, v in f.items() if k != "meta"}
        f["return_levels"] = return_levels(f, T)
        f["ci"] = None
        f["goodness_of_fit"] = None
        if f.get("ok"):
            if method_id == "lp3_ema":
                from aquascope_core.methods.bulletin17c import ema_confidence_band

                band = ema_confidence_band(f, T, confidence=confidence)
                f["ci"] = {k: band.get(k) for k in ("ok", "lower", "upper", "confidence", "reason") if k in band}
                f["ci"]["method"] = "peakfq_ema_quadrature"
            elif n_bootstrap:
                band = bootstrap_band(f, int(x.size), T, n_resamples=int(n_bootstrap), confidence=confidence,
                                      seed=seed)
                f["ci"] = {k: band.get(k) for k in ("ok", "lower", "upper", "median", "confidence", "n_resamples",
                                                     "n_failed", "seed", "reason", "n_resamples_requested", "note") if k in band}
                f["ci"]["method"] = "parametric_bootstrap"
            f["goodness_of_fit"] = goodness_of_fit(f, x)
            t = return_period_of(f, record)
            beyond[method_id] = t == math.inf
            record_T[method_id] = None if t == math.inf else t
        else:
            record_T[method_id] = None
            beyond[method_id] = False
        fits[method_id] = f
    xs = np.sort(x)
    l1, l2, l3, l4 = lm.lmoments_of_sorted(xs, 4)
    payload = {
        "method": "flood_frequency",
        "ok": any(f.get("ok") for f in fits.values()),
        "n": int(x.size),
        "unit": unit,
        "return_periods": T.tolist(),
        "fits": fits,
        "record_max": {"value": record, "return_period": record_T, "beyond_upper_bound": beyond},
        "sample_lmoments": {"l1": float(l1), "l2": float(l2), "l3": float(l3), "l4": float(l4),
                            "t3": float(l3 / l2), "t4": float(l4 / l2)},
    }
    if not payload["ok"]:
        payload["reason"] = "; ".join(f"{k}: {v.get('reason')}" for k, v in fits.items())
    srcs = [*_SOURCES["lmoments"], *_SOURCES["lp3_moments"]]
    return finish(payload, "flood_frequency", params, srcs)
