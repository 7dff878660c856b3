"""The expected moments algorithm (Cohn, Lane and Baier 1997) on a record of log-flow intervals.

Each year is an interval ``(ql, qu)`` holding its log peak: a point when the peak was measured, an interval
when it is only known to lie below a perception threshold, between two values (an interval peak), or
below a low-outlier threshold. EMA iterates the moments of the fitted Pearson III: a censored year
contributes the moments the current fit expects inside its interval. ``n_g`` pseudo-years of skew
``regional_skew`` enter the skew (Bulletin 17C eq. 7-10); ``fixed_skew`` holds G at the regional value.
The bias corrections n_e/(n_e - 1) and n_e^2/((n_e - 1)(n_e - 2)) apply to the n_e measured values (Cohn
et al. 1997, PeakFQ's default), and G is kept at or above -1.41 (Bulletin 17C).

A censored year's expected moments are PeakFQ's: incomplete gamma ratios expanded about the gamma's origin
(:func:`~aquascope_core.methods.b17c_p3.cond_moments`). On a heavily censored record the iteration contracts
slowly (1500 steps), and the fixed point carries the moments' errors ~100-fold: the quadrature's 4e-9 moved an
at-site skew by 1.3e-4.
"""

from __future__ import annotations

import numpy as np

from aquascope_core.methods import b17c_p3 as p3

SKEW_FLOOR = -1.41


def ema_moments(ql: np.ndarray, qu: np.ndarray, *, regional_skew: float | None = None, n_g: float = 0.0,
                fixed_skew: bool = False, max_iter: int = 5000, tol: float = 1e-14) -> tuple[np.ndarray, int, bool]:
    """EMA moments (M, S2, G) of the log intervals ``(ql, qu)``: (moments, iterations, converged)."""
    exact = ql == qu
    xe = ql[exact]
    ne = int(exact.sum())
    n = ql.size
    groups: dict[tuple[float, float], int] = {}
    for a, b in zip(ql[~exact], qu[~exact]):
        key = (float(a), float(b))
        groups[key] = groups.get(key, 0) + 1
    c2 = ne / (ne - 1.0)
    c3 = ne * ne / ((ne - 1.0) * (ne - 2.0))
    rg = float(regional_skew) if regional_skew is not None else 0.0
    m = np.array([xe.mean(), xe.var(ddof=1), rg if fixed_skew else 0.0])
    for it in range(1, max_iter + 1):
        cond = [(cnt, p3.cond_moments(a, b, m, 3, peakfq=False)) for (a, b), cnt in groups.items()]
        M = (xe.sum() + sum(cnt * e[0] for cnt, e in cond)) / n
        s_e2 = np.sum((xe - M) ** 2)
        s_e3 = np.sum((xe - M) ** 3)
        s_c2 = sum(cnt * (e[1] - 2 * M * e[0] + M * M) for cnt, e in cond)
        s_c3 = sum(cnt * (e[2] - 3 * M * e[1] + 3 * M * M * e[0] - M**3) for cnt, e in cond)
        S2 = (c2 * s_e2 + s_c2) / n
        if fixed_skew:
            G = rg
        else:
            G = (c3 * s_e3 + s_c3 + n_g * rg * S2**1.5) / ((n + n_g) * S2**1.5)
        G = max(G, SKEW_FLOOR)
        new = np.array([M, S2, G])
        if not np.all(np.isfinite(new)) or S2 <= 0:
            return new, it, False
        dist = (new[0] - m[0]) ** 2 / S2 + (new[1] - m[1]) ** 2 / S2**2 / 10.0 + (new[2] - m[2]) ** 2 / 100.0
        m = new
        if dist <= tol:
            return m, it, True
    return m, max_iter, False
