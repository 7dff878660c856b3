"""Sampling variance of Bulletin 17C's EMA moments and the confidence limits of its quantiles, as PeakFQ computes them.

The record's censoring pattern is a list of groups ``(n, tl, tu)``: n years whose log flood is measured
when it lies in (tl, tu) and only known to lie below tl / above tu otherwise.

1. The covariance of the EMA non-central moment estimators (E X, E X^2, E X^3) is the first-order one of
   Cohn, Lane and Stedinger (2001): a sandwich ``A^-1 (V_B + V_C) A^-T / N^2`` around the EMA fixed point
   (:func:`noncentral_cov`).
2. That covariance is carried to the central moments (M, S2, G) not by the delta method but by Cohn's
   "inverse Gaussian quadrature": the covariance ``Sigma`` of (M, S2, G) is the one for which a 2x2x2
   quadrature of (M, S2, G) - normal in M and G, gamma in S2, correlated by a Cholesky-like factor -
   reproduces the covariance of the non-central moments (:func:`central_cov`, solved by Newton's method).
3. The at-site skew's mean square error follows one of Bulletin 17C's rules (:func:`skew_mse`): Bulletin
   17B's formula (``B17B``, used when the multiple Grubbs-Beck test censored low floods), or that formula
   scaled by the ratio of the EMA variance under the record's censoring to the EMA variance of a complete
   record (``ADJE``, otherwise).
4. The limits (:func:`quantile_limits`) take a second quadrature: the covariance at each of the 8 nodes of
   the first gives the standard error there, so that the covariance of (y_p, s_p) - the quantile and its
   standard error - is known, and the limits are Cohn et al.'s (2001) adjusted Student-t ones.

Below |G| = 0.0632 the variances are interpolated between G = -0.0632 and +0.0632 as PeakFQ does (for the
at-site skew's MSE with PeakFQ's own weights, which extrapolate rather than interpolate on the negative side).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from scipy import stats

from aquascope_core.methods import b17c_p3 as p3
from aquascope_core.errors import InsufficientDataError

SKEW_MIN = float(np.float32(0.06324555))  # sqrt(0.004), as PeakFQ holds it (a single-precision literal):
# below it the variances are interpolated in G; PeakFQ's moments are so sensitive there that the rounding matters
_SKEW_MAX_VAR = 1.41    # skew clamp inside the moment variance
_SKEW_MAX_REG = 1.5     # skew clamp of the parameter covariance
_N_ADJ_MAX = 150        # ADJE: the complete record of comparison is at most 150 years
_TRI = ((0, 0), (1, 0), (2, 0), (1, 1), (2, 1), (2, 2))  # the six distinct entries of a 3x3 covariance
_TRI_POWER = (2, 3, 1, 4, 2, 0)
# PeakFQ ends its Newton iteration after the first full step whose change of Var(G) is at most 1e-4 (squared:
# 1e-8): the limits are those of that iterate, not of the exact solution (they differ by up to ~1e-3 relative)
_NEWTON_TOL = 1e-8  # each entry scales as S^power: sets the differencing step

Groups = Sequence[tuple[float, float, float]]


def _singular(what: str) -> InsufficientDataError:
    return InsufficientDataError(f"{what}: the record's censoring leaves too little information for EMA's variance.",
                                 argument="peaks", recovery="Check the perception thresholds and low-outlier "
                                 "threshold; a record censored almost everywhere has no usable confidence limits.")


def b17b_skew_mse(n: float, skew: float) -> float:
    """Mean square error of the at-site skew of a complete record (Bulletin 17B, eq. 6).

    ``MSE = 10^(A - B log10(n/10))`` with ``A = -0.33 + 0.08|G|`` (|G| <= 0.9) or
    ``-0.52 + 0.30|G|``, ``B = 0.94 - 0.26|G|`` (|G| <= 1.5) or ``0.55``.
    """
    g = abs(float(skew))
    a = -0.33 + 0.08 * g if g <= 0.9 else -0.52 + 0.30 * g
    b = 0.94 - 0.26 * g if g <= 1.5 else 0.55
    return 10.0 ** (a - b * math.log10(float(n) / 10.0))


# --------------------------------------------------------------------------------------------
# 1. First-order covariance of the non-central moment estimators
# --------------------------------------------------------------------------------------------

def _dcond_dmn(a: float, b: float, m) -> np.ndarray:
    """Jacobian of E[X^k | a < X < b] (k = 1..3) with respect to the non-central moments: PeakFQ's analytic chain
    (whose truncations its limits carry at small skews), central differences of the exact moments where that
    chain has no value."""
    got = p3.cond_moments_jacobian(a, b, m)
    if got is not None:
        return got
    mn = p3.to_noncentral(m)
    J = np.empty((3, 3))
    h = np.array([1e-5, 1e-5 * max(1.0, abs(mn[1])), 1e-5 * max(1.0, abs(mn[2]))]) * math.sqrt(m[1])
    for j in range(3):
        up, dn = mn.copy(), mn.copy()
        up[j] += h[j]
        dn[j] -= h[j]
        J[:, j] = (p3.cond_moments(a, b, p3.to_central(up), 3, peakfq=False)
                   - p3.cond_moments(a, b, p3.to_central(dn), 3, peakfq=False)) / (2 * h[j])
    return J


def noncentral_cov(groups: Groups, m) -> np.ndarray:
    """Covariance of the EMA estimators of (E X, E X^2, E X^3), about a zero mean.

    The thresholds are shifted by M (the variance does not depend on the location) and |G| is held in
    [0.0632, 1.41]. The estimator is the fixed point m = T(data; m); its covariance is
    ``A^-1 Var[T] A^-T`` with ``A = I - dT/dm``.
    """
    g = math.copysign(min(_SKEW_MAX_VAR, max(SKEW_MIN, abs(float(m[2])))), float(m[2]) if m[2] != 0 else 1.0)
    mc = (0.0, float(m[1]), g)
    N = sum(n for n, _, _ in groups)
    VB = np.zeros((3, 3))
    VC = np.zeros((3, 3))
    D = np.zeros((3, 3))
    for nh, tl0, tu0 in groups:
        tl, tu = tl0 - m[0], tu0 - m[0]
        pa = 0.0 if tl == -np.inf else float(p3.cdf(tl, mc))
        pb = 1.0 if tu == np.inf else float(p3.cdf(tu, mc))
        p = np.array([pa, pb - pa, 1.0 - pb])
        regions = [(-np.inf, tl), (tl, tu), (tu, np.inf)]
        mu = np.zeros((3, 3))
        inside = p3.cond_moments(tl, tu, mc, 6) if p[1] > 1e-12 else None
        for r, (a, b) in enumerate(regions):
            if p[r] > 1e-12:
                mu[:, r] = inside[:3] if r == 1 else p3.cond_moments(a, b, mc, 3)
        VB += mu @ (nh * (np.diag(p) - np.outer(p, p))) @ mu.T
        if inside is not None:
            e = np.concatenate([[1.0], inside])
            VC += nh * p[1] * np.array([[e[i + j] - e[i] * e[j] for j in range(1, 4)] for i in range(1, 4)])
        for r in (0, 2):
            if p[r] > 1e-6:
                D += nh * p[r] * _dcond_dmn(*regions[r], mc)
    Ai = np.linalg.inv(np.eye(3) - D / N)
    return Ai @ (VB + VC) @ Ai.T / N**2


# --------------------------------------------------------------------------------------------
# 2. Inverse Gaussian quadrature: from the non-central to the central moments' covariance
# --------------------------------------------------------------------------------------------

def _factor(S: np.ndarray) -> np.ndarray | None:
    """V with V^T V = S whose second column is (0, V22, 0): S2 is driven by the gamma node alone.

    A zero skew variance (a fixed regional skew) holds G at its value on every node: the limit of a
    vanishing regional MSE (PeakFQ's factorisation is undefined there).
    """
    if S[0, 0] <= 0 or S[1, 1] <= 0 or S[2, 2] < 0:
        return None
    V = np.zeros((3, 3))
    V[1, 1] = math.sqrt(S[1, 1])
    V[1, 0] = S[1, 0] / V[1, 1]
    V[1, 2] = S[1, 2] / V[1, 1]
    t = S[0, 0] - V[1, 0] ** 2
    if t < 0:
        return None
    V[0, 0] = math.sqrt(t)
    if V[0, 0] == 0:
        return None
    V[0, 2] = (S[2, 0] - V[1, 2] * V[1, 0]) / V[0, 0]
    t = S[2, 2] - V[1, 2] ** 2 - V[0, 2] ** 2
    if t < -1e-14 * max(S[2, 2], 1e-300) or (t < 0 and S[2, 2] > 0):
        return None
    V[2, 2] = math.sqrt(max(t, 0.0))
    return V


# the 8 nodes in the order (G outer, S2, M inner): normal nodes +-1, the gamma node's index
_GAMMA_INDEX = np.array([0, 0, 1, 1, 0, 0, 1, 1])
_UNIT_GRID = np.array([[a, 0.0, c] for c in (-1.0, 1.0) for _ in (0, 1) for a in (-1.0, 1.0)])


def quadrature_grid(m, S: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The 8 nodes (rows of (M, S2, G)) and weights of a quadrature with mean ``m`` and covariance ``S``.

    M and G get the 2-point normal rule (+-1), S2 the 2-point rule of a gamma variable with the shape
    ``S2^2/Var(S2)`` (at most 160), standardised; the factor of :func:`_factor` correlates them.
    """
    V = _factor(S)
    if V is None:
        return None
    shape = min(m[1] ** 2 / S[1, 1], 160.0)
    r = math.sqrt(shape + 1.0)
    tg = np.array([(1.0 - r), (1.0 + r)]) / math.sqrt(shape)
    wg = np.array([(1.0 + r), (r - 1.0)]) / (2.0 * r)
    z = _UNIT_GRID.copy()
    z[:, 1] = tg[_GAMMA_INDEX]
    return np.asarray(m, dtype=float) + z @ V, 0.25 * wg[_GAMMA_INDEX]


def _noncentral_of_grid(m, S) -> np.ndarray | None:
    """Covariance of the non-central moments over the quadrature of one covariance ``S`` (None if no factor).

    The plain form of :func:`_noncentral_of_grids`, kept as its check."""
    g = quadrature_grid(m, S)
    if g is None:
        return None
    pts, w = g
    M, S2, G = pts[:, 0], pts[:, 1], pts[:, 2]
    mn = np.stack([M, S2 + M * M, G * np.abs(S2) ** 1.5 * np.sign(S2) + 3 * M * S2 + M**3], axis=1)
    wn = w / w.sum()
    c = mn - wn @ mn
    return (c.T * wn) @ c


def _factor_batch(S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_factor` of a stack of covariances ``S`` (k x 3 x 3): the factors and which of them exist."""
    with np.errstate(invalid="ignore", divide="ignore"):
        ok = (S[:, 0, 0] > 0) & (S[:, 1, 1] > 0) & (S[:, 2, 2] >= 0)
        V = np.zeros_like(S)
        V[:, 1, 1] = np.sqrt(S[:, 1, 1])
        V[:, 1, 0] = S[:, 1, 0] / V[:, 1, 1]
        V[:, 1, 2] = S[:, 1, 2] / V[:, 1, 1]
        t = S[:, 0, 0] - V[:, 1, 0] ** 2
        ok &= t >= 0
        V[:, 0, 0] = np.sqrt(np.maximum(t, 0.0))
        ok &= V[:, 0, 0] != 0
        V[:, 0, 2] = (S[:, 2, 0] - V[:, 1, 2] * V[:, 1, 0]) / V[:, 0, 0]
        t = S[:, 2, 2] - V[:, 1, 2] ** 2 - V[:, 0, 2] ** 2
        ok &= ~((t < -1e-14 * np.maximum(S[:, 2, 2], 1e-300)) | ((t < 0) & (S[:, 2, 2] > 0)))
        V[:, 2, 2] = np.sqrt(np.maximum(t, 0.0))
    return V, ok


def _noncentral_of_grids(m, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Covariance of the non-central moments over the quadrature of each covariance ``X[i]`` (six entries).

    One pass for the whole stack (Newton's Jacobian needs 13 of them at a time); returns the six distinct
    entries of each covariance and which covariances could be factorised.
    """
    S = np.zeros((X.shape[0], 3, 3))
    for c, (i, j) in enumerate(_TRI):
        S[:, i, j] = S[:, j, i] = X[:, c]
    V, ok = _factor_batch(S)
    with np.errstate(invalid="ignore", divide="ignore"):
        shape = np.minimum(m[1] ** 2 / S[:, 1, 1], 160.0)
        r = np.sqrt(shape + 1.0)
        tg = np.stack([(1.0 - r), (1.0 + r)], axis=1) / np.sqrt(shape)[:, None]
        wg = np.stack([(1.0 + r), (r - 1.0)], axis=1) / (2.0 * r)[:, None]
    z = np.broadcast_to(_UNIT_GRID, (X.shape[0], 8, 3)).copy()
    z[:, :, 1] = tg[:, _GAMMA_INDEX]
    pts = np.asarray(m, dtype=float) + z @ V
    w = 0.25 * wg[:, _GAMMA_INDEX]
    M, S2, G = pts[..., 0], pts[..., 1], pts[..., 2]
    mn = np.stack([M, S2 + M * M, G * np.abs(S2) ** 1.5 * np.sign(S2) + 3 * M * S2 + M**3], axis=2)
    wn = w / w.sum(axis=1, keepdims=True)
    c = mn - np.einsum("kj,kjl->kl", wn, mn)[:, None, :]
    cov = np.einsum("kj,kjl,kjm->klm", wn, c, c)
    return np.stack([cov[:, i, j] for i, j in _TRI], axis=1), ok


def _tri(S) -> np.ndarray:
    return np.array([S[i, j] for i, j in _TRI])


def _untri(x) -> np.ndarray:
    S = np.zeros((3, 3))
    for v, (i, j) in zip(x, _TRI):
        S[i, j] = S[j, i] = v
    return S


def central_cov(m, s_mn: np.ndarray, *, max_iter: int = 100) -> np.ndarray:
    """Covariance of (M, S2, G) whose quadrature reproduces the non-central covariance ``s_mn``.

    PeakFQ's Newton iteration: from the delta method, the six distinct entries are solved for with a
    Jacobian by differences (steps ``1e-4 S^k``, all 13 evaluations of an iteration in one vectorised pass;
    a step whose covariance is not positive definite is cut tenfold until it is, the difference then taken
    over the unequal steps), each Newton step halved while the covariance it leads to is not positive
    definite, and the iteration ends after the first full step that changes Var(G) by at most 1e-4.
    """
    J = p3.central_jacobian(p3.to_noncentral(m))
    x = _tri(J @ s_mn @ J.T)
    target = _tri(s_mn)
    s = math.sqrt(m[1])
    steps = np.array([1e-4 * s**k for k in _TRI_POWER])
    for _ in range(max_iter):
        up, dn = steps.copy(), -steps.copy()
        for _cut in range(20):
            probe = np.vstack([np.zeros(6), np.diag(up), np.diag(dn)])
            f, ok = _noncentral_of_grids(m, x + probe)
            if not ok[0]:
                raise _singular("the EMA moments' covariance is not positive definite")
            if ok.all():
                break
            up = np.where(ok[1:7], up, up / 10.0)
            dn = np.where(ok[7:13], dn, dn / 10.0)
        else:
            raise _singular("the EMA moments' covariance is at the edge of the positive definite ones")
        jac = ((f[1:7] - f[7:13]) / (up - dn)[:, None]).T
        d = np.linalg.solve(jac, target - f[0])
        full = True
        for _half in range(100):
            if _factor(_untri(x + d)) is not None:
                break
            d *= 0.5
            full = False
        else:
            raise _singular("no positive definite covariance of the EMA moments was found")
        x = x + d
        if full and d[5] ** 2 <= _NEWTON_TOL:
            break
    return _untri(x)


def moment_cov(groups: Groups, m) -> np.ndarray:
    """Covariance of the EMA (M, S2, G) of a record with censoring ``groups`` at the moments ``m``.

    The non-central covariance is taken at |G| held in [0.0632, 1.41], its conversion at G itself (as PeakFQ).
    """
    mc = (0.0, float(m[1]), float(m[2]))
    shifted = [(n, tl - m[0], tu - m[0]) for n, tl, tu in groups]
    return central_cov(mc, noncentral_cov(shifted, mc))


# --------------------------------------------------------------------------------------------
# 3. The at-site skew's mean square error
# --------------------------------------------------------------------------------------------

def ema_variance(groups: Groups, m, k: int) -> float:
    """EMA variance of moment ``k`` (0 mean, 1 variance, 2 skew); interpolated in G below |G| = 0.0632.

    PeakFQ's weights w = (G - g0)/(2 g0) on the value at -g0 and 1 - w on the one at +g0 are kept.
    """
    g = float(m[2])
    if abs(g) > SKEW_MIN:
        return float(moment_cov(groups, m)[k, k])
    neg = float(moment_cov(groups, (m[0], m[1], -SKEW_MIN))[k, k])
    pos = float(moment_cov(groups, (m[0], m[1], SKEW_MIN))[k, k])
    w = (g - SKEW_MIN) / (2.0 * SKEW_MIN)
    return w * neg + (1.0 - w) * pos


def skew_mse(groups: Groups, m, rule: str, *, record_cov: np.ndarray | None = None) -> float:
    """Mean square error of the at-site skew by Bulletin 17B's formula (``B17B``) or scaled EMA (``ADJE``).

    ``ADJE = MSE_B17B(n') Var_EMA(record) / Var_EMA(complete record of n' years)``, n' = min(n, 150):
    identical to B17B's on a complete record. ``record_cov``: ``moment_cov(groups, m)`` when the caller
    has it already (used for Var_EMA(record) when |G| is above the interpolation band).
    """
    n = int(round(sum(g[0] for g in groups)))
    if rule == "B17B":
        return b17b_skew_mse(n, m[2])
    if rule != "ADJE":
        raise ValueError(f"unknown skew MSE rule {rule!r}")
    n_adj = min(n, _N_ADJ_MAX)
    full = ema_variance([(float(n_adj), -np.inf, np.inf)], m, 2)
    if record_cov is not None and abs(float(m[2])) > SKEW_MIN:
        site = float(record_cov[2, 2])
    else:
        site = ema_variance(groups, m, 2)
    return b17b_skew_mse(n_adj, m[2]) / full * site


def parameter_cov(groups: Groups, m, regional_skew_mse: float | None, rule: str, fixed_skew: bool = False
                  ) -> np.ndarray:
    """Covariance of (M, S2, G) with the skew's share replaced by the weighted or regional skew's.

    ``regional_skew_mse``: None for the at-site skew, > 0 for the weighted skew ``G_w = w G + (1 - w) G_R``,
    ``w = MSE_R/(MSE_site + MSE_R)``, so that ``Var(G_w) = w^2 Var(G) + (1 - w)^2 MSE_R``; with
    ``fixed_skew`` the regional skew alone (w = 0: Var(G) = MSE_R, 0 for a skew without error).
    """
    mc = (float(m[0]), float(m[1]), max(-_SKEW_MAX_REG, min(_SKEW_MAX_REG, float(m[2]))))
    V = moment_cov(groups, mc)
    if regional_skew_mse is None:
        return V
    r = float(regional_skew_mse)
    w = r / (skew_mse(groups, mc, rule, record_cov=V) + r) if (r > 0 and not fixed_skew) else 0.0
    V[0, 2] = V[2, 0] = w * V[0, 2]
    V[1, 2] = V[2, 1] = w * V[1, 2]
    V[2, 2] = w * w * V[2, 2] + (1.0 - w) ** 2 * r
    return V


# --------------------------------------------------------------------------------------------
# 4. Confidence limits of the quantiles
# --------------------------------------------------------------------------------------------

def student_t_quantile(p: float, nu) -> np.ndarray:
    """Student's t quantile as PeakFQ evaluates it: exact up to 20 degrees of freedom, and above them the
    inverse of Abramowitz & Stegun's (1964, 26.7.8) normal approximation of the t distribution,
    ``z = t (1 - 1/(4 nu)) / sqrt(1 + t^2/(2 nu))``, which PeakFQ's t routine uses there."""
    nu = np.asarray(nu, dtype=float)
    z = float(stats.norm.ppf(p))
    c = 1.0 - 1.0 / (4.0 * nu)
    with np.errstate(invalid="ignore", divide="ignore"):
        approx = z / np.sqrt(c * c - z * z / (2.0 * nu))
    return np.where(nu > 20.0, approx, stats.t.ppf(p, np.minimum(nu, 20.0)))


def _limits_at(groups, m, F, confidence, r_mse, rule, fixed=False):
    g1 = quadrature_grid(m, parameter_cov(groups, m, r_mse, rule, fixed))
    if g1 is None:
        raise _singular("the covariance of the EMA parameters is not positive definite")
    pts1, w1 = g1
    qp1 = np.array([p3.quantile(F, pt) for pt in pts1])          # (8, nq)
    sp1 = np.empty_like(qp1)
    for i, pt in enumerate(pts1):
        g2 = quadrature_grid(pt, parameter_cov(groups, pt, r_mse, rule, fixed))
        if g2 is None:
            raise _singular("the covariance of the EMA parameters is not positive definite at a node")
        pts2, w2 = g2
        qp2 = np.array([p3.quantile(F, q) for q in pts2])
        mean2 = w2 @ qp2 / w2.sum()
        sp1[i] = np.sqrt(w2 @ (qp2 - mean2) ** 2 / w2.sum())
    y = p3.quantile(F, m)
    wn = w1 / w1.sum()
    c_q = qp1 - wn @ qp1
    c_s = sp1 - wn @ sp1
    v11 = wn @ (c_q * c_q)
    v12 = wn @ (c_q * c_s)
    v22 = wn @ (c_s * c_s)
    beta = v12 / v11
    nu = np.maximum(0.5 * v11 / np.maximum(v22 - v12**2 / v11, 1e-300), 5.0)
    t = student_t_quantile(0.5 * (1.0 + confidence), nu)
    se = np.sqrt(v11)
    upper = y + se * t / np.maximum(0.5, 1.0 - beta * t)
    lower = y - se * t / np.maximum(0.5, 1.0 + beta * t)
    return y, lower, upper, v11, nu


def quantile_limits(groups: Groups, m, F, *, confidence: float = 0.90, regional_skew_mse: float | None,
                    rule: str, fixed_skew: bool = False) -> dict[str, np.ndarray]:
    """Log quantiles at non-exceedance ``F`` with their confidence limits (Cohn et al. 2001; Cohn 2013).

    Returns log10 ``quantile``, ``lower``, ``upper``, ``variance`` of the log quantile and the Student t
    ``degrees_of_freedom``. Below |G| = 0.0632 the limits are interpolated between the fits at G = -+0.0632.
    """
    F = np.atleast_1d(np.asarray(F, dtype=float))
    g = float(m[2])
    if abs(g) > SKEW_MIN:
        y, lo, hi, var, nu = _limits_at(groups, m, F, confidence, regional_skew_mse, rule, fixed_skew)
    else:
        a = _limits_at(groups, (m[0], m[1], -SKEW_MIN), F, confidence, regional_skew_mse, rule, fixed_skew)
        b = _limits_at(groups, (m[0], m[1], SKEW_MIN), F, confidence, regional_skew_mse, rule, fixed_skew)
        w = (g + SKEW_MIN) / (2.0 * SKEW_MIN)
        y = p3.quantile(F, m)
        lo, hi = (1 - w) * a[1] + w * b[1], (1 - w) * a[2] + w * b[2]
        var, nu = b[3], b[4]
    return {"quantile": y, "lower": lo, "upper": hi, "variance": var, "degrees_of_freedom": nu}
