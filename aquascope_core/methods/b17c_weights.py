"""How many years of regional skew the weighted skew gets: Bulletin 17C's factor and PeakFQ's two alternatives.

EMA weights the regional skew in as ``n_G = W n MSE(G_site)/MSE(G_regional)`` pseudo-years (England et al.
2018, eq. 7-10), n the record's years. The factor W:

- ``INV`` (W = 1): inverse-MSE weighting as written in Bulletin 17C and used by PeakFQ up to 7.4;
- ``HWN`` (PeakFQ 7.5 and later, the default): Schwarz's determinant ratio. With J the Jacobian of the EMA
  update of the central moments (M, S2, G) at the at-site fit, ``W = det(I - J) / det(I - J)[:2, :2]``:
  censoring makes the skew's own update depend on the current skew, which the plain inverse-MSE count
  ignores. W = 1 with no censored year, and PeakFQ keeps W = 1 when |G_site| < 0.04;
- ``ERL``: the effective record length of the at-site skew (Griffis et al. 2004, eq. 2, solved for n) over n.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from scipy import optimize

from aquascope_core.methods import b17c_p3 as p3

WEIGHTINGS = ("HWN", "INV", "ERL")
HWN_MIN_SKEW = 0.04
#: PeakFQ's determinant ratio takes the censored tails to +-20 (log10 units), not to infinity: on a long negative-skew
#: tail the part beyond -20 moves the censored third moment by 2e-7 and W by 5e-4 where W is small
TAIL_END = 20.0


def _moment_functions(E: np.ndarray, th: np.ndarray) -> np.ndarray:
    """(E X, E (X - M)^2, E (X - M)^3 / S^3) from the non-central moments E at the moments th = (M, S2, G)."""
    mu, s2 = th[0], th[1]
    s3 = s2**1.5
    return np.array([E[0], E[1] - 2 * mu * E[0] + mu * mu,
                     (E[2] - 3 * mu * E[1] + 3 * mu * mu * E[0] - mu**3) / s3])


def _censored_moments(th, tl: float, tu: float, shares: tuple[float, float]) -> np.ndarray:
    """E[X^j | censored] (j = 1..3) with the shares of the two tails held fixed."""
    pl, pg = shares
    out = np.zeros(3)
    if pl > 0:
        out += pl * p3.cond_moments(-TAIL_END, tl, th, 3)
    if pg > 0:
        out += pg * p3.cond_moments(tu, TAIL_END, th, 3)
    return out / (pl + pg)


def _censored_jacobian(th, tl: float, tu: float, shares: tuple[float, float]) -> np.ndarray:
    """d E[X^j | censored] / d(M, S2, G) (j = 1..3), the thresholds and the tails' shares held fixed.

    PeakFQ's analytic chain (:func:`~aquascope_core.methods.b17c_p3.cond_moments_jacobian`): at small skews the
    moments are differences of large terms about the distant origin of the gamma, where a difference quotient
    of them loses the derivative (at G = 0.048 W came out 7 % off PeakFQ's). Central differences of the moments
    where the chain has no value."""
    pl, pg = shares
    out = np.zeros((3, 3))
    for p, (a, b) in ((pl, (-TAIL_END, tl)), (pg, (tu, TAIL_END))):
        if p <= 0:
            continue
        J = p3.cond_moments_jacobian(a, b, th, central=True)
        if J is None:
            J = np.empty((3, 3))
            steps = np.array([1e-5 * math.sqrt(th[1]), 1e-5 * th[1], 1e-5])
            for j in range(3):
                up, dn = np.array(th, float), np.array(th, float)
                up[j] += steps[j]
                dn[j] -= steps[j]
                J[:, j] = (p3.cond_moments(a, b, up, 3) - p3.cond_moments(a, b, dn, 3)) / (2 * steps[j])
        out += p * J
    return out / (pl + pg)


def determinant_ratio(m, groups: Sequence[tuple[float, float, float]]) -> float:
    """Schwarz's "Halloween" weighting factor at the at-site moments ``m`` for the censoring ``groups``."""
    th0 = np.array(m, dtype=float)
    mu, s2, g = th0
    s = math.sqrt(s2)
    n = sum(k for k, _, _ in groups)
    # d f / d E of the moment functions f(E, th) of _moment_functions
    dfde = np.array([[1.0, 0.0, 0.0], [-2 * mu, 1.0, 0.0], [3 * mu * mu / s**3, -3 * mu / s**3, 1 / s**3]])
    J = np.zeros((3, 3))
    for nk, tl, tu in groups:
        tl, tu = max(tl, -TAIL_END), min(tu, TAIL_END)
        pl = float(p3.cdf(tl, th0))
        pg = 1.0 - float(p3.cdf(tu, th0))
        pick = pl + pg
        if pick > 1e-10:
            E0 = _censored_moments(th0, tl, tu, (pl, pg))
        else:
            E0 = np.concatenate([[mu], p3.to_noncentral(th0)[1:]])
        f0 = _moment_functions(E0, th0)
        # the explicit part: how the censored share of each moment moves the update
        F1 = np.zeros((3, 3))
        F1[1, 0] = 2 * pick * (f0[0] - mu)
        F1[2, 0] = 3 * (pick * f0[1] - s2) / s**3
        F1[2, 1] = 3 * (pick * f0[2] - g) / (2 * s2)
        D = np.zeros((3, 3))
        if pick > 1e-10:
            # d f(E(th), th)/d th: through the censored moments, and f's own dependence on (M, S2)
            D = dfde @ _censored_jacobian(th0, tl, tu, (pl, pg))
            c3 = E0[2] - 3 * mu * E0[1] + 3 * mu * mu * E0[0] - mu**3
            D[1, 0] += 2 * mu - 2 * E0[0]
            D[2, 0] += (-3 * E0[1] + 6 * mu * E0[0] - 3 * mu * mu) / s**3
            D[2, 1] += -1.5 * c3 / s**5
        J += (nk / n) * (F1 + pick * D)
    A = np.eye(3) - J
    return float(np.linalg.det(A) / np.linalg.det(A[:2, :2]))


def _griffis_mse(n: float, g: float) -> float:
    a = -17.75 / n**2 + 50.06 / n**3
    b = 3.93 / n**0.3 - 30.97 / n**0.6 + 37.1 / n**0.9
    c = -6.16 / n**0.56 + 36.83 / n**1.12 - 66.9 / n**1.68
    return (6.0 / n + a) * (1 + (9.0 / 6.0 + b) * g * g + (15.0 / 48.0 + c) * g**4)


def effective_record_length(skew: float, mse: float) -> float:
    """The record length whose at-site skew has MSE ``mse`` by Griffis et al. (2004, eq. 2).

    PeakFQ's iteration: from 20 years, ``n <- n (1 + (MSE(n) - mse)/mse)`` until the MSE is within 1e-10; Griffis'
    MSE is not monotone in short records, and this finds the root PeakFQ finds. A bracketing search where it
    does not settle in 100 steps (PeakFQ stops there).
    """
    n = 20.0
    for _ in range(100):
        delta = _griffis_mse(n, skew) - mse
        if abs(delta) < 1e-10:
            return float(n)
        n = n + n * (delta / mse)
        if not (math.isfinite(n) and n > 0):
            break
    f = lambda n: _griffis_mse(n, skew) - mse  # noqa: E731
    lo, hi = 3.0, 1e6
    if f(lo) < 0:
        return lo
    return float(optimize.brentq(f, lo, hi, xtol=1e-10))


def skew_weight(option: str, m_site, groups, n: int, mse_b17b: float) -> float:
    """The factor W of ``n_G = W n MSE_site/MSE_regional`` for the weighting ``option``."""
    if option == "HWN":
        return determinant_ratio(m_site, groups) if abs(m_site[2]) >= HWN_MIN_SKEW else 1.0
    if option == "ERL":
        return effective_record_length(m_site[2], mse_b17b) / n
    return 1.0
