"""Sample L-moments and the L-moment distributions of flood frequency analysis.

Everything here works on arrays whose last axis is the sample, so one call estimates
L-moments and parameters for a single record or for a thousand bootstrap resamples at once.
Parameters follow Hosking's conventions throughout:

- GEV ``(xi, alpha, k)``: ``x(F) = xi + alpha/k * (1 - (-ln F)**k)``; ``k > 0`` bounded above.
  Coles' shape is ``-k``; scipy's ``genextreme`` shape ``c`` equals ``k``.
- Gumbel ``(xi, alpha)``: ``x(F) = xi - alpha * ln(-ln F)``.
- Generalised logistic, GLO ``(xi, alpha, k)``: ``x(F) = xi + alpha/k * (1 - ((1-F)/F)**k)``.
- Pearson type III, PE3 ``(mu, sigma, gamma)``: mean, standard deviation and skewness.

References
----------
Hosking, J.R.M. (1990). L-moments: analysis and estimation of distributions using linear
    combinations of order statistics. J. R. Statist. Soc. B 52(1), 105-124.
Hosking, J.R.M. and Wallis, J.R. (1997). Regional Frequency Analysis: An Approach Based on
    L-Moments. Cambridge University Press, Appendix A.
"""

from __future__ import annotations

import logging
import math
from functools import lru_cache
from typing import Any, Callable

import numpy as np
from scipy import special

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.result import finish, resolved_parameters, source

__all__ = [
    "sample_lmoments",
    "lmoments_of_sorted",
    "as_sample",
    "gev_from_lmoments",
    "gumbel_from_lmoments",
    "glo_from_lmoments",
    "pe3_from_lmoments",
    "gev_quantile",
    "gev_cdf",
    "gumbel_quantile",
    "gumbel_cdf",
    "glo_quantile",
    "glo_cdf",
    "pe3_quantile",
    "pe3_cdf",
    "pearson3_frequency_factor",
    "tau4_on_curve",
    "fit_gev_lmoments",
    "fit_gumbel_lmoments",
    "fit_glo_lmoments",
    "fit_pe3_lmoments",
    "LMOMENT_FITS",
    "DIST_LABELS",
    "HOSKING_WALLIS_1997",
]

log = logging.getLogger(__name__)

HOSKING_WALLIS_1997 = (
    "Hosking, J.R.M. and Wallis, J.R. (1997) Regional Frequency Analysis: An Approach Based on "
    "L-Moments. Cambridge University Press."
)
_EULER = 0.5772156649015329
_LN2 = math.log(2.0)
_LN3 = math.log(3.0)
_GUMBEL_TAU3 = 2.0 * _LN3 / _LN2 - 3.0  # 0.1699
_GUMBEL_TAU4 = 16.0 - 10.0 * _LN3 / _LN2  # 0.1504


# --------------------------------------------------------------------------------------------
# Input checking shared by every flood method
# --------------------------------------------------------------------------------------------

def as_sample(values: Any, *, argument: str = "values", min_n: int = 1, positive: bool = False) -> np.ndarray:
    """A float copy of ``values`` checked for what every fit needs.

    NaN or infinite values and (with ``positive``) zero or negative values raise
    :class:`InputError`; fewer than ``min_n`` values or all-equal values raise
    :class:`InsufficientDataError`. The caller's object is never modified.
    """
    try:
        arr = np.array(values, dtype=float, copy=True).ravel()
    except (TypeError, ValueError):
        raise InputError.bad_value(argument, values, "a one-dimensional sequence of numbers") from None
    bad = ~np.isfinite(arr)
    if bad.any():
        where = np.flatnonzero(bad)[:5].tolist()
        raise InputError(
            f"{argument} holds {int(bad.sum())} NaN or infinite value(s) (positions {where}); a frequency "
            "analysis needs one finite maximum per year.",
            argument=argument,
            recovery="Drop the years with no maximum (annual_maxima already leaves incomplete years out); "
            "do not fill them.",
        )
    if positive and (arr <= 0).any():
        where = np.flatnonzero(arr <= 0)[:5].tolist()
        raise InputError(
            f"{argument} holds {int((arr <= 0).sum())} zero or negative value(s) (positions {where}, e.g. "
            f"{arr[arr <= 0][0]:g}); the logarithm of a flow needs flows > 0.",
            argument=argument,
            recovery="Use a distribution fitted to untransformed flows (gev_lmoments), or treat zero-flow years "
            "with a conditional-probability adjustment (Bulletin 17C EMA with a low-outlier threshold).",
        )
    if arr.size < min_n:
        raise InsufficientDataError(
            f"{argument} has {arr.size} value(s); this method needs at least {min_n}.",
            argument=argument,
        )
    if arr.size > 1 and np.all(arr == arr[0]):
        raise InsufficientDataError(
            f"all {arr.size} values of {argument} equal {arr[0]:g}; a distribution cannot be fitted to a "
            "sample with no spread.",
            argument=argument,
        )
    return arr


# --------------------------------------------------------------------------------------------
# Sample L-moments
# --------------------------------------------------------------------------------------------

@lru_cache(maxsize=64)
def _pwm_weights(n: int, nmom: int) -> np.ndarray:
    """Weights w[r, j] so that b_r = sum_j w[r, j] x_(j) for the ascending sample (unbiased PWMs).

    Cached per sample size (read-only), since a bootstrap asks for the same n a thousand times.
    """
    j = np.arange(n, dtype=float)  # j - 1 for the 1-based rank
    w = np.empty((nmom, n))
    w[0] = 1.0 / n
    for r in range(1, nmom):
        w[r] = w[r - 1] * (j - (r - 1)) / (n - r)
    w = np.ascontiguousarray(w.T)
    w.setflags(write=False)
    return w


def lmoments_of_sorted(xs: np.ndarray, nmom: int = 4) -> np.ndarray:
    """L-moments ``l1..l_nmom`` of samples sorted ascending along the last axis.

    Returns an array of shape ``xs.shape[:-1] + (nmom,)`` holding ``l1, l2, l3, l4`` (not ratios).
    Uses the unbiased probability-weighted moments of Landwehr et al. (1979) and Hosking (1990).
    """
    n = xs.shape[-1]
    if nmom > 4 or nmom < 1:
        raise InputError.bad_value("nmom", nmom, "1, 2, 3 or 4")
    return xs @ _pwm_to_lmom_weights(n, nmom)


# l_{r+1} = sum_k p*_{r,k} b_k (Hosking 1990, eq. 2.4): rows b0..b3, columns l1..l4
_PWM_TO_LMOM = np.array([[1.0, -1.0, 1.0, -1.0], [0.0, 2.0, -6.0, 12.0], [0.0, 0.0, 6.0, -30.0], [0.0, 0.0, 0.0, 20.0]])


@lru_cache(maxsize=64)
def _pwm_to_lmom_weights(n: int, nmom: int) -> np.ndarray:
    """Weights mapping the ascending sample straight to l1..l_nmom (the PWM weights times p*)."""
    w = np.ascontiguousarray(_pwm_weights(n, nmom) @ _PWM_TO_LMOM[:nmom, :nmom])
    w.setflags(write=False)
    return w


def sample_lmoments(values: Any) -> dict[str, Any]:
    """Sample L-moments ``l1, l2, l3, l4`` and the ratios ``t3 = l3/l2``, ``t4 = l4/l2``.

    Parameters
    ----------
    values : sequence of float
        The sample (for example annual maxima); at least 4 finite values, not all equal.

    Returns
    -------
    dict
        ``method="sample_lmoments"``, ``ok``, ``n``, ``l1``, ``l2``, ``l3``, ``l4``, ``t`` (= l2/l1,
        the L-CV), ``t3``, ``t4``, ``meta``.

    Notes
    -----
    Unbiased estimators from the probability-weighted moments
    ``b_r = n^-1 sum_j [(j-1)...(j-r)] / [(n-1)...(n-r)] x_(j)``, with
    ``l1 = b0``, ``l2 = 2b1 - b0``, ``l3 = 6b2 - 6b1 + b0``, ``l4 = 20b3 - 30b2 + 12b1 - b0``
    (Hosking 1990, eqs. 2.3, 2.4).
    """
    params = resolved_parameters(sample_lmoments, (values,))
    x = as_sample(values, min_n=4)
    l1, l2, l3, l4 = lmoments_of_sorted(np.sort(x), 4)
    payload = {
        "method": "sample_lmoments",
        "ok": True,
        "n": int(x.size),
        "l1": float(l1),
        "l2": float(l2),
        "l3": float(l3),
        "l4": float(l4),
        "t": float(l2 / l1) if l1 != 0 else None,
        "t3": float(l3 / l2),
        "t4": float(l4 / l2),
    }
    return finish(payload, "sample_lmoments", params, [source("L-moments", citation=HOSKING_WALLIS_1997)])


# --------------------------------------------------------------------------------------------
# Parameters from L-moments (vectorised over leading axes)
# --------------------------------------------------------------------------------------------

# Hosking's rational approximations for the GEV shape from tau3 (Hosking & Wallis 1997, A.8;
# the same coefficients as Hosking's LMOMENTS Fortran and R lmom). Accuracy about 1e-6 in k.
_GEV_NEG = (0.28377530, -1.21096399, -2.50728214, -1.13455566, -0.07138022)
_GEV_NEG_DEN = (2.06189696, 1.31912239, 0.25077104)
_GEV_POS = (1.59921491, -0.48832213, 0.01573152)
_GEV_POS_DEN = (-0.64363929, 0.08985247)


def _gev_tau3(k: np.ndarray) -> np.ndarray:
    """tau3 of the GEV as a function of Hosking's k (the Gumbel limit at k = 0)."""
    k = np.asarray(k, dtype=float)
    small = np.abs(k) < 1e-7
    ks = np.where(small, 1.0, k)
    t3 = 2.0 * (1.0 - 3.0 ** (-ks)) / (1.0 - 2.0 ** (-ks)) - 3.0
    return np.where(small, _GUMBEL_TAU3, t3)


def _gev_k_newton(t3: np.ndarray, low: np.ndarray) -> np.ndarray:
    """Solve tau3(k) = t3 by Newton's method where ``low`` (tau3 < -0.8: the steep branch, k > 1)."""
    kk = np.where(t3 < -0.97, 1.0 - np.log1p(np.where(low, t3, 0.0)) / _LN2, 1.0)
    for _ in range(60):
        a = 1.0 - 2.0 ** (-kk)
        b = 1.0 - 3.0 ** (-kk)
        resid = 2.0 * b / a - 3.0 - t3
        deriv = 2.0 * (_LN3 * 3.0 ** (-kk) * a - _LN2 * 2.0 ** (-kk) * b) / (a * a)
        step = np.where(low, resid / deriv, 0.0)
        kk = kk - step
        if np.all(np.abs(step[np.isfinite(step)]) < 1e-12):
            break
    return kk


def _gev_k_from_t3(t3: np.ndarray) -> np.ndarray:
    """Hosking's k for tau3 in (-1, 1); NaN outside. Newton steps below tau3 = -0.8."""
    t3 = np.asarray(t3, dtype=float)
    a0, a1, a2, a3, a4 = _GEV_NEG
    b1, b2, b3 = _GEV_NEG_DEN
    c1, c2, c3 = _GEV_POS
    d1, d2 = _GEV_POS_DEN
    z = 1.0 - t3
    k_pos = (-1.0 + z * (c1 + z * (c2 + z * c3))) / (1.0 + z * (d1 + z * d2))
    k_neg = (a0 + t3 * (a1 + t3 * (a2 + t3 * (a3 + t3 * a4)))) / (1.0 + t3 * (b1 + t3 * (b2 + t3 * b3)))
    k = np.where(t3 > 0, k_pos, k_neg)
    low = t3 < -0.8
    if np.any(low):
        with np.errstate(all="ignore"):
            kk = _gev_k_newton(t3, low)
        k = np.where(low, kk, k)
    return np.where((t3 > -1.0) & (t3 < 1.0), k, np.nan)


def _gev_from_lmoments_scalar(l1: float, l2: float, t3: float) -> tuple[float, float, float]:
    """:func:`gev_from_lmoments` for one sample, in plain floats (a fit is then a few microseconds)."""
    if not (l2 > 0 and -1.0 < t3 < 1.0):
        return math.nan, math.nan, math.nan
    if t3 > 0:
        c1, c2, c3 = _GEV_POS
        d1, d2 = _GEV_POS_DEN
        z = 1.0 - t3
        k = (-1.0 + z * (c1 + z * (c2 + z * c3))) / (1.0 + z * (d1 + z * d2))
    elif t3 >= -0.8:
        a0, a1, a2, a3, a4 = _GEV_NEG
        b1, b2, b3 = _GEV_NEG_DEN
        k = (a0 + t3 * (a1 + t3 * (a2 + t3 * (a3 + t3 * a4)))) / (1.0 + t3 * (b1 + t3 * (b2 + t3 * b3)))
    else:
        k = float(_gev_k_from_t3(np.array([t3]))[0])
    if abs(k) < 1e-6:
        alpha = l2 / _LN2
        return l1 - _EULER * alpha, alpha, k
    g = math.gamma(1.0 + k)
    alpha = l2 * k / (g * (1.0 - 2.0 ** (-k)))
    return l1 - alpha * (1.0 - g) / k, alpha, k


def gev_from_lmoments(l1, l2, t3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GEV ``(xi, alpha, k)`` from ``l1, l2, t3`` (Hosking & Wallis 1997, A.8); NaN where undefined."""
    if np.ndim(l1) == 0 and np.ndim(l2) == 0 and np.ndim(t3) == 0:
        return _gev_from_lmoments_scalar(float(l1), float(l2), float(t3))
    l1, l2, t3 = (np.asarray(v, dtype=float) for v in (l1, l2, t3))
    k = _gev_k_from_t3(t3)
    small = np.abs(k) < 1e-6
    ks = np.where(small, 1.0, k)
    g = special.gamma(1.0 + ks)
    alpha = np.where(small, l2 / _LN2, l2 * ks / (g * (1.0 - 2.0 ** (-ks))))
    xi = np.where(small, l1 - _EULER * l2 / _LN2, l1 - alpha * (1.0 - g) / ks)
    bad = ~(l2 > 0) | ~np.isfinite(k)
    return np.where(bad, np.nan, xi), np.where(bad, np.nan, alpha), np.where(bad, np.nan, k)


def gumbel_from_lmoments(l1, l2) -> tuple[np.ndarray, np.ndarray]:
    """Gumbel ``(xi, alpha)``: ``alpha = l2 / ln 2``, ``xi = l1 - gamma_E alpha``."""
    l1, l2 = np.asarray(l1, dtype=float), np.asarray(l2, dtype=float)
    alpha = np.where(l2 > 0, l2 / _LN2, np.nan)
    return l1 - _EULER * alpha, alpha


def glo_from_lmoments(l1, l2, t3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GLO ``(xi, alpha, k)``: ``k = -t3``, ``alpha = l2 sin(k pi)/(k pi)``, ``xi = l1 - alpha (1/k - pi/sin(k pi))``."""
    l1, l2, t3 = (np.asarray(v, dtype=float) for v in (l1, l2, t3))
    k = -t3
    small = np.abs(k) < 1e-6
    ks = np.where(small, 0.5, k)
    kp = ks * math.pi
    alpha = np.where(small, l2, l2 * np.sin(kp) / kp)
    xi = np.where(small, l1, l1 - alpha * (1.0 / ks - math.pi / np.sin(kp)))
    bad = ~(l2 > 0) | ~(np.abs(t3) < 1.0)
    return np.where(bad, np.nan, xi), np.where(bad, np.nan, alpha), np.where(bad, np.nan, k)


def pe3_from_lmoments(l1, l2, t3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pearson III ``(mu, sigma, gamma)`` from L-moments.

    The gamma shape ``a`` (``gamma = 2 sign(t3)/sqrt(a)``) comes from Hosking's rational
    approximations to the inverse of tau3(a) (Hosking & Wallis 1997, A.9), then
    ``sigma = l2 sqrt(pi) sqrt(a) Gamma(a) / Gamma(a + 1/2)`` and ``mu = l1``.
    """
    l1, l2, t3 = (np.asarray(v, dtype=float) for v in (l1, l2, t3))
    at = np.abs(t3)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z_lo = 3.0 * math.pi * at * at
        a_lo = (1.0 + 0.2906 * z_lo) / (z_lo + 0.1882 * z_lo**2 + 0.0442 * z_lo**3)
        z_hi = 1.0 - at
        a_hi = (0.36067 * z_hi - 0.59567 * z_hi**2 + 0.25361 * z_hi**3) / (
            1.0 - 2.78861 * z_hi + 2.56096 * z_hi**2 - 0.77045 * z_hi**3
        )
        a = np.where(at < 1.0 / 3.0, a_lo, a_hi)
        normal = at < 1e-6
        a_safe = np.where(normal, 1.0, a)
        ratio = np.exp(special.gammaln(a_safe) - special.gammaln(a_safe + 0.5))
        sigma = np.where(normal, l2 * math.sqrt(math.pi), l2 * math.sqrt(math.pi) * np.sqrt(a_safe) * ratio)
        gam = np.where(normal, 0.0, 2.0 * np.sign(t3) / np.sqrt(a_safe))
    bad = ~(l2 > 0) | ~(at < 1.0)
    return np.where(bad, np.nan, l1), np.where(bad, np.nan, sigma), np.where(bad, np.nan, gam)


# --------------------------------------------------------------------------------------------
# Quantile and distribution functions (F is the non-exceedance probability)
# --------------------------------------------------------------------------------------------

def _reduced(x, xi, alpha, k):
    """y = -ln(1 - k (x - xi)/alpha)/k (= (x - xi)/alpha at k = 0); NaN outside the support."""
    x, xi, alpha, k = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (x, xi, alpha, k)))
    small = np.abs(k) < 1e-10
    arg = 1.0 - np.where(small, 0.0, k) * (x - xi) / alpha
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.where(small, (x - xi) / alpha, -np.log(arg) / np.where(small, 1.0, k))
    return y, arg


def gev_quantile(F, xi, alpha, k) -> np.ndarray:
    """GEV quantile ``x(F)`` in Hosking's parameterisation."""
    F, xi, alpha, k = (np.asarray(v, dtype=float) for v in (F, xi, alpha, k))
    small = np.abs(k) < 1e-10
    ks = np.where(small, 1.0, k)
    with np.errstate(divide="ignore", invalid="ignore"):
        lf = -np.log(F)
        gumbel = xi - alpha * np.log(lf)
        general = xi + alpha / ks * (1.0 - lf**ks)
    return np.where(small, gumbel, general)


def gev_cdf(x, xi, alpha, k) -> np.ndarray:
    """GEV non-exceedance probability ``F(x)``: 0 below and 1 above the support."""
    y, arg = _reduced(x, xi, alpha, k)
    k = np.broadcast_to(np.asarray(k, dtype=float), y.shape)
    F = np.exp(-np.exp(-y))
    outside = arg <= 0
    return np.where(outside, np.where(k > 0, 1.0, 0.0), F)


def gumbel_quantile(F, xi, alpha) -> np.ndarray:
    """Gumbel quantile ``x(F) = xi - alpha ln(-ln F)``."""
    with np.errstate(divide="ignore"):
        return np.asarray(xi) - np.asarray(alpha) * np.log(-np.log(np.asarray(F, dtype=float)))


def gumbel_cdf(x, xi, alpha) -> np.ndarray:
    """Gumbel ``F(x) = exp(-exp(-(x - xi)/alpha))``."""
    return np.exp(-np.exp(-(np.asarray(x, dtype=float) - xi) / alpha))


def glo_quantile(F, xi, alpha, k) -> np.ndarray:
    """Generalised logistic quantile ``x(F) = xi + alpha/k (1 - ((1-F)/F)^k)``."""
    F, xi, alpha, k = (np.asarray(v, dtype=float) for v in (F, xi, alpha, k))
    small = np.abs(k) < 1e-10
    ks = np.where(small, 1.0, k)
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = (1.0 - F) / F
        return np.where(small, xi - alpha * np.log(odds), xi + alpha / ks * (1.0 - odds**ks))


def glo_cdf(x, xi, alpha, k) -> np.ndarray:
    """Generalised logistic ``F(x) = 1/(1 + exp(-y))``: 0 or 1 outside the support."""
    y, arg = _reduced(x, xi, alpha, k)
    k = np.broadcast_to(np.asarray(k, dtype=float), y.shape)
    with np.errstate(over="ignore"):
        F = 1.0 / (1.0 + np.exp(-y))
    return np.where(arg <= 0, np.where(k > 0, 1.0, 0.0), F)


def pe3_quantile(F, mu, sigma, gamma) -> np.ndarray:
    """Pearson III quantile with mean ``mu``, standard deviation ``sigma`` and skewness ``gamma``."""
    F, mu, sigma, gamma = (np.asarray(v, dtype=float) for v in (F, mu, sigma, gamma))
    return mu + sigma * pearson3_frequency_factor(gamma, F)


def pe3_cdf(x, mu, sigma, gamma) -> np.ndarray:
    """Pearson III non-exceedance probability ``F(x)``."""
    x, mu, sigma, gamma = (np.asarray(v, dtype=float) for v in (x, mu, sigma, gamma))
    z = (x - mu) / sigma
    small = np.abs(gamma) < 1e-8
    gs = np.where(small, 1.0, gamma)
    a = 4.0 / (gs * gs)
    # the standardised gamma variable a + z * sqrt(a) * sign(g) = a + 2 z / g
    w = np.maximum(a + 2.0 * z / gs, 0.0)
    Fg = special.gammainc(a, w)
    return np.where(small, special.ndtr(z), np.where(gs > 0, Fg, 1.0 - Fg))


def pearson3_frequency_factor(skew, F) -> np.ndarray:
    """Standardised Pearson III quantile K(skew, F): mean 0, variance 1, skewness ``skew``.

    Exact through the inverse regularised incomplete gamma function; the normal quantile for
    ``|skew| < 1e-8`` (the limit).
    """
    skew, F = np.broadcast_arrays(np.asarray(skew, dtype=float), np.asarray(F, dtype=float))
    small = np.abs(skew) < 1e-8
    g = np.where(small, 1.0, skew)
    a = 4.0 / (g * g)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        pos = special.gammaincinv(a, F) - a
        neg = a - special.gammaincinv(a, 1.0 - F)
        k = np.where(g > 0, pos, neg) * np.abs(g) / 2.0
    return np.where(small, special.ndtri(F), k)


# --------------------------------------------------------------------------------------------
# L-moment ratio curves (goodness of fit)
# --------------------------------------------------------------------------------------------

def _pe3_tau4(t3: np.ndarray) -> np.ndarray:
    """tau4 of the Pearson III at tau3, by quadrature of its quantile function (exact to ~1e-8)."""
    t3 = np.atleast_1d(np.asarray(t3, dtype=float))
    _, sigma, gam = pe3_from_lmoments(np.zeros_like(t3), np.ones_like(t3), t3)
    # Gauss-Legendre on F in (0, 1) after the substitution F = (1 - cos(pi u))/2 to cluster nodes at the tails.
    u, wu = np.polynomial.legendre.leggauss(400)
    u = 0.5 * (u + 1.0)
    wu = 0.5 * wu
    F = 0.5 * (1.0 - np.cos(math.pi * u))
    dF = 0.5 * math.pi * np.sin(math.pi * u) * wu
    q = pe3_quantile(F[None, :], 0.0, sigma[:, None], gam[:, None])
    b = [np.sum(q * F**r * dF, axis=1) for r in range(4)]
    l2 = 2 * b[1] - b[0]
    l4 = 20 * b[3] - 30 * b[2] + 12 * b[1] - b[0]
    return l4 / l2


def tau4_on_curve(distribution: str, t3) -> np.ndarray:
    """tau4 that ``distribution`` (gev, glo, pe3, gumbel) has at L-skewness ``t3``.

    GEV: ``tau4 = (5(1-4^-k) - 10(1-3^-k) + 6(1-2^-k)) / (1-2^-k)``; GLO: ``(1 + 5 t3^2)/6``;
    Gumbel: the point 0.1504 (its tau3 is fixed at 0.1699); PE3 by quadrature.
    """
    t3 = np.asarray(t3, dtype=float)
    if distribution == "gev":
        k = _gev_k_from_t3(t3)
        small = np.abs(k) < 1e-7
        ks = np.where(small, 1.0, k)
        t4 = (5 * (1 - 4.0 ** (-ks)) - 10 * (1 - 3.0 ** (-ks)) + 6 * (1 - 2.0 ** (-ks))) / (1 - 2.0 ** (-ks))
        return np.where(small, _GUMBEL_TAU4, t4)
    if distribution == "glo":
        return (1.0 + 5.0 * t3 * t3) / 6.0
    if distribution == "gumbel":
        return np.full_like(t3, _GUMBEL_TAU4)
    if distribution == "pe3":
        return _pe3_tau4(t3).reshape(t3.shape)
    raise InputError.bad_value("distribution", distribution, "one of gev, glo, pe3, gumbel")


# --------------------------------------------------------------------------------------------
# Fits by L-moments
# --------------------------------------------------------------------------------------------
# Each estimator maps the L-moments (l1, l2, t3) of one sample, or of a matrix of bootstrap
# resamples, to its parameters, so the bootstrap refits with the very same code.

def _lmom3(xs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """l1, l2 and t3 of samples sorted ascending along the last axis."""
    l1, l2, l3 = np.moveaxis(lmoments_of_sorted(xs, 3), -1, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return l1, l2, l3 / l2


def _gumbel_from_lmom3(l1, l2, t3):
    return gumbel_from_lmoments(l1, l2)


# method id -> (distribution, estimator label, minimum n, parameter names, estimator of (l1, l2, t3))
LMOMENT_FITS: dict[str, tuple[str, str, int, tuple[str, ...], Callable]] = {
    "gev_lmoments": ("gev", "L-moments (Hosking & Wallis 1997)", 3, ("xi", "alpha", "k"), gev_from_lmoments),
    "gumbel_lmoments": ("gumbel", "L-moments (Hosking & Wallis 1997)", 2, ("xi", "alpha"), _gumbel_from_lmom3),
    "glo_lmoments": ("glo", "L-moments (Hosking & Wallis 1997)", 3, ("xi", "alpha", "k"), glo_from_lmoments),
    "pe3_lmoments": ("pe3", "L-moments (Hosking & Wallis 1997)", 3, ("mu", "sigma", "gamma"), pe3_from_lmoments),
}
DIST_LABELS = {
    "gev": "generalised extreme value (GEV)",
    "gumbel": "Gumbel (EV1)",
    "glo": "generalised logistic (GLO)",
    "pe3": "Pearson type III",
    "lp3": "log-Pearson type III",
}
_LMOMENT_SOURCES = [source("L-moment estimation", citation=HOSKING_WALLIS_1997)]


def _fit_lmoments(method_id: str, values: Any, unit: str | None, params: dict[str, Any]) -> dict[str, Any]:
    distribution, estimator, min_n, names, est = LMOMENT_FITS[method_id]
    x = as_sample(values, min_n=min_n)
    xs = np.sort(x)
    ls = [float(v) for v in lmoments_of_sorted(xs, min(4, x.size))]
    t3 = ls[2] / ls[1] if x.size >= 3 and ls[1] > 0 else math.nan
    theta = [float(v) for v in est(ls[0], ls[1], t3)]
    payload: dict[str, Any] = {
        "method": method_id,
        "distribution": distribution,
        "distribution_label": DIST_LABELS[distribution],
        "estimator": estimator,
        "n": int(x.size),
        "unit": unit,
        "sample_lmoments": {"l1": ls[0], "l2": ls[1], "t3": t3 if x.size >= 3 else None,
                            "t4": ls[3] / ls[1] if x.size >= 4 else None},
    }
    if not all(math.isfinite(v) for v in theta):
        payload.update(ok=False, parameters=None,
                       reason=f"the {DIST_LABELS[distribution]} has no L-moment fit to this sample "
                              f"(l2={ls[1]:.4g}, t3={payload['sample_lmoments']['t3']})")
        return finish(payload, method_id, params, _LMOMENT_SOURCES)
    p = dict(zip(names, theta))
    if distribution == "gev":
        p["xi_coles"] = -p["k"]
        payload["upper_bound"] = p["xi"] + p["alpha"] / p["k"] if p["k"] > 0 else None
        payload["lower_bound"] = p["xi"] + p["alpha"] / p["k"] if p["k"] < 0 else None
    payload.update(ok=True, parameters=p)
    return finish(payload, method_id, params, _LMOMENT_SOURCES)


def _fit_params(values: Any, unit: str | None) -> dict[str, Any]:
    """The resolved parameters of a fit_*_lmoments call (what resolved_parameters gives, without inspect)."""
    try:
        shown = f"<{type(values).__name__} of {len(values)} values>"
    except TypeError:
        shown = f"<{type(values).__name__}>"
    return {"values": shown, "unit": unit}


def fit_gev_lmoments(values: Any, *, unit: str | None = None) -> dict[str, Any]:
    """Generalised extreme value distribution fitted by L-moments.

    Parameters
    ----------
    values : sequence of float
        Annual maxima (at least 3; not all equal; no NaN).
    unit : str, optional
        Unit of the values.

    Returns
    -------
    dict
        ``method="gev_lmoments"``, ``ok``, ``distribution="gev"``, ``estimator``, ``n``, ``unit``,
        ``parameters`` {xi (location), alpha (scale), k (Hosking's shape), xi_coles (= -k)},
        ``sample_lmoments``, ``upper_bound`` (k > 0) or ``lower_bound`` (k < 0), ``meta``.

    Notes
    -----
    ``k`` comes from Hosking's rational approximation to the inverse of
    ``tau3 = 2(1 - 3^-k)/(1 - 2^-k) - 3`` (Newton iterations below tau3 = -0.8); then
    ``alpha = l2 k / (Gamma(1+k)(1 - 2^-k))`` and ``xi = l1 - alpha (1 - Gamma(1+k))/k``
    (Hosking & Wallis 1997, A.8). The approximation is the one R lmom and lmoments3 use.
    """
    params = _fit_params(values, unit)
    return _fit_lmoments("gev_lmoments", values, unit, params)


def fit_gumbel_lmoments(values: Any, *, unit: str | None = None) -> dict[str, Any]:
    """Gumbel (EV1) distribution fitted by L-moments: ``alpha = l2/ln 2``, ``xi = l1 - 0.5772 alpha``.

    Payload as :func:`fit_gev_lmoments`, with ``parameters`` {xi, alpha}.
    """
    params = _fit_params(values, unit)
    return _fit_lmoments("gumbel_lmoments", values, unit, params)


def fit_glo_lmoments(values: Any, *, unit: str | None = None) -> dict[str, Any]:
    """Generalised logistic distribution fitted by L-moments (the Flood Estimation Handbook's choice).

    ``k = -t3``, ``alpha = l2 sin(k pi)/(k pi)``, ``xi = l1 - alpha (1/k - pi/sin(k pi))``
    (Hosking & Wallis 1997, A.7). Payload as :func:`fit_gev_lmoments`, ``parameters`` {xi, alpha, k}.
    """
    params = _fit_params(values, unit)
    return _fit_lmoments("glo_lmoments", values, unit, params)


def fit_pe3_lmoments(values: Any, *, unit: str | None = None) -> dict[str, Any]:
    """Pearson type III fitted by L-moments (Hosking & Wallis 1997, A.9).

    Payload as :func:`fit_gev_lmoments`, ``parameters`` {mu (mean), sigma (sd), gamma (skewness)}.
    """
    params = _fit_params(values, unit)
    return _fit_lmoments("pe3_lmoments", values, unit, params)
