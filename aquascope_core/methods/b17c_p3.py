"""Pearson III in moment form for Bulletin 17C: ``m = (M, S2, G)``, the mean, variance and skew of the log flows.

What EMA and its variance need from the distribution: quantiles and probabilities, the moments of the
distribution restricted to an interval (by Gauss-Legendre quadrature on the probability scale, exact to
~1e-12 for the intervals met in flood records), and the passage between central moments ``(M, S2, G)`` and
non-central ones ``(E X, E X^2, E X^3)``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from aquascope_core.methods import b17c_gamma
from aquascope_core.methods import lmoments as lm

# Gauss-Legendre nodes on (0, 1) clustered towards both ends (t = (1 - cos(pi s))/2).
_S, _W = np.polynomial.legendre.leggauss(96)
_S = 0.5 * (_S + 1.0)
T_NODES = 0.5 * (1.0 - np.cos(math.pi * _S))
T_WEIGHTS = 0.25 * math.pi * np.sin(math.pi * _S) * _W


def frequency_factor(g: float, F) -> np.ndarray:
    """K(g, F) of :func:`aquascope_core.methods.lmoments.pearson3_frequency_factor` for one skew ``g``.

    The same arithmetic, but only the incomplete-gamma inversion of the skew's own sign is evaluated (the
    general function evaluates both and selects), which halves the cost of every quantile here.
    """
    g = float(g)
    F = np.asarray(F, dtype=float)
    if abs(g) < 1e-8:
        return special.ndtri(F)
    a = 4.0 / (g * g)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        k = special.gammaincinv(a, F) - a if g > 0 else a - special.gammaincinv(a, 1.0 - F)
        return k * abs(g) / 2.0


def quantile(F, m) -> np.ndarray:
    """Log quantile of non-exceedance probability ``F``."""
    return m[0] + math.sqrt(m[1]) * frequency_factor(m[2], F)


def cdf(x, m) -> np.ndarray:
    return lm.pe3_cdf(x, m[0], math.sqrt(m[1]), m[2])


def interval_nodes(a: float, b: float, m) -> tuple[np.ndarray, np.ndarray, float]:
    """Quadrature nodes x_i and weights of the P3 ``m`` restricted to (a, b), and P(a < X < b)."""
    Fa = 0.0 if a == -np.inf else float(cdf(a, m))
    Fb = 1.0 if b == np.inf else float(cdf(b, m))
    p = Fb - Fa
    if p <= 1e-14:  # off the support: the end nearer the mean stands in (as PeakFQ does)
        t = a if abs(a - m[0]) < abs(b - m[0]) else b
        return np.array([t]), np.array([1.0]), max(p, 0.0)
    x = quantile(Fa + p * T_NODES, m)
    return x, T_WEIGHTS, p


GAMMA_FORM_MIN_SKEW = 1e-3   # below it PeakFQ blends in a Wilson-Hilferty form; the quadrature stands in here


def _exact_mass(shapes: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """P(lo < Y < hi) for Y ~ Gamma(shape, 1), from the side of the distribution that keeps its digits."""
    upper = lo >= shapes
    return np.where(upper, special.gammaincc(shapes, lo) - special.gammaincc(shapes, hi),
                    special.gammainc(shapes, hi) - special.gammainc(shapes, lo))


def _gamma_moments(alpha: float, lo: float, hi: float, k: int, peakfq: bool = True) -> np.ndarray:
    """E[Y^j | lo < Y < hi], j = 0..k, Y ~ Gamma(alpha, 1): with PeakFQ's incomplete gamma and end rule
    (``peakfq``), or exactly."""
    lo = max(min(0.0, hi), lo)
    j = np.arange(k + 1)
    if lo == hi:
        return lo ** j.astype(float)
    shapes = alpha + j
    if peakfq:
        mass = b17c_gamma.gamma_cdf(hi, shapes) - b17c_gamma.gamma_cdf(lo, shapes)
    else:
        mass = _exact_mass(shapes, lo, hi)
    down = mass[0]
    if down > 0:
        return mass / down * np.concatenate([[1.0], np.cumprod(alpha + j[:-1])])
    end = lo if lo > alpha else hi
    return end ** j.astype(float)


def _gamma_cond_moments(a: float, b: float, m, k: int, peakfq: bool = True) -> np.ndarray | None:
    """E[X^j | a < X < b], j = 1..k, in closed form: X = tau + beta Y with Y gamma, so that the moments of
    X - tau are incomplete gamma ratios, expanded binomially about tau, as PeakFQ computes them."""
    M, S2, G = (float(v) for v in m)
    alpha = 4.0 / (G * G)
    beta = math.copysign(math.sqrt(S2 / alpha), G)
    tau = M - alpha * beta
    ya, yb = (a - tau) / beta, (b - tau) / beta
    lo, hi = (ya, yb) if beta > 0 else (yb, ya)
    fp = beta ** np.arange(k + 1) * _gamma_moments(alpha, lo, hi, k, peakfq)
    return np.array([sum(math.comb(i, j) * tau ** (i - j) * fp[j] for j in range(i + 1)) for i in range(1, k + 1)])


def cond_moments(a: float, b: float, m, k: int, center: float = 0.0, *, peakfq: bool = True) -> np.ndarray:
    """E[(X - center)^j | a < X < b] for j = 1..k.

    In closed form (incomplete gamma functions) when |G| >= 0.001 and the interval holds probability, which
    keeps the higher moments right in the far tail (the variance of EMA needs them to the sixth): with PeakFQ's
    incomplete gamma (:mod:`aquascope_core.methods.b17c_gamma`; ``peakfq``) or exactly; by the quadrature of
    :func:`interval_nodes` otherwise.
    """
    if center == 0.0 and abs(float(m[2])) >= GAMMA_FORM_MIN_SKEW:
        Fa = 0.0 if a == -np.inf else float(cdf(a, m))
        Fb = 1.0 if b == np.inf else float(cdf(b, m))
        if Fb - Fa > 1e-14:
            got = _gamma_cond_moments(a, b, m, k, peakfq)
            if got is not None and np.all(np.isfinite(got)):
                return got
    x, w, _ = interval_nodes(a, b, m)
    d = x - center
    return np.array([np.sum(w * d**j) for j in range(1, k + 1)])


def to_noncentral(m) -> np.ndarray:
    M, S2, G = m
    return np.array([M, S2 + M * M, G * S2**1.5 + 3 * M * S2 + M**3])


def to_central(mn) -> np.ndarray:
    m1, m2, m3 = mn
    S2 = m2 - m1 * m1
    return np.array([m1, S2, (m3 - 3 * m1 * m2 + 2 * m1**3) / S2**1.5])


def central_jacobian(mn) -> np.ndarray:
    """d(M, S2, G)/d(E X, E X^2, E X^3) at the non-central moments ``mn``."""
    m1, m2, m3 = mn
    v = m2 - m1 * m1
    c3 = 2 * m1**3 - 3 * m1 * m2 + m3
    return np.array([
        [1.0, 0.0, 0.0],
        [-2.0 * m1, 1.0, 0.0],
        [(6 * m1**2 - 3 * m2) / v**1.5 + 3 * m1 * c3 / v**2.5, -3 * m1 / v**1.5 - 1.5 * c3 / v**2.5, v**-1.5],
    ])


def cond_moments_jacobian(a: float, b: float, m, *, central: bool = False) -> np.ndarray | None:
    """d E[X^j | a < X < b] / d(E X, E X^2, E X^3), j = 1..3, the interval held fixed, by PeakFQ's analytic chain:
    the truncated gamma moments' derivatives in the origin, shape and scale (its incomplete gamma and the shape
    derivative of :mod:`~aquascope_core.methods.b17c_gamma`), then the parameters' derivatives in the moments.
    ``central``: the derivatives in (M, S2, G) instead. None where the interval holds no probability."""
    M, S2, G = (float(v) for v in m)
    s = math.sqrt(S2)
    alpha = 4.0 / (G * G)
    beta = math.copysign(math.sqrt(S2 / alpha), G)
    tau = M - alpha * beta
    if beta > 0:
        lo, hi = max(0.0, (a - tau) / beta), (b - tau) / beta
    else:
        lo, hi = max(0.0, (b - tau) / beta), (a - tau) / beta
    if not hi > lo:
        return None
    k = np.arange(4)
    shapes = alpha + k
    g1 = b17c_gamma.gamma_cdf(hi, shapes) - b17c_gamma.gamma_cdf(lo, shapes)
    if not g1[0] > 0:
        return None
    dg1 = b17c_gamma.gamma_cdf_dshape(hi, shapes) - b17c_gamma.gamma_cdf_dshape(lo, shapes)

    def pdf(x):
        if not (x > 0 and math.isfinite(x)):
            return np.zeros(4)
        return np.exp(-x + (shapes - 1.0) * math.log(x) - special.gammaln(shapes))

    fu, fl = pdf(hi), pdf(lo)
    ratio = g1 / g1[0]
    d_ratio_shape = (dg1 * g1[0] - dg1[0] * g1) / g1[0] ** 2
    rising = np.concatenate([[1.0], np.cumprod(alpha + k[:-1])])
    d_rising = np.zeros(4)
    for j in range(1, 4):
        d_rising[j] = rising[j - 1] + (alpha + j - 1) * d_rising[j - 1]
    du_t = dl_t = -1.0 / beta                       # d(standardised bound)/d tau
    du_b = -hi / beta if math.isfinite(hi) else 0.0  # ... / d beta
    dl_b = -lo / beta

    def d_ratio(du, dl):
        return ((fu * du - fl * dl) * g1[0] - (fu[0] * du - fl[0] * dl) * g1) / g1[0] ** 2

    m1 = rising * ratio                               # E[Y^k], Y the standard gamma
    dm1 = np.stack([rising * d_ratio(du_t, dl_t), rising * d_ratio_shape + d_rising * ratio,
                    rising * d_ratio(du_b, dl_b)], axis=1)
    bk = beta ** k.astype(float)
    m2 = bk * m1                                      # E[(beta Y)^k]
    dm2 = bk[:, None] * dm1
    dm2[1:, 2] += k[1:] * beta ** (k[1:] - 1.0) * m1[1:]
    D = np.zeros((3, 3))
    for j in range(1, 4):
        c = np.array([math.comb(j, i) * tau ** (j - i) for i in range(j + 1)])
        dc = np.array([math.comb(j, i) * (j - i) * tau ** (j - i - 1) if j > i else 0.0 for i in range(j + 1)])
        D[j - 1] = c @ dm2[:j + 1]
        D[j - 1, 0] += dc @ m2[:j + 1]
    # (tau, alpha, beta) in (M, S2, G), then (M, S2, G) in the non-central moments
    dp = np.array([[1.0, -1.0 / (G * s), 2.0 * s / G**2],
                   [0.0, 0.0, -8.0 / G**3],
                   [0.0, G / (4.0 * s), s / 2.0]])
    out = D @ dp if central else D @ dp @ central_jacobian(to_noncentral(m))
    return out if np.all(np.isfinite(out)) else None
