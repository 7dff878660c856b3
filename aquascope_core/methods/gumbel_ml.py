"""The Gumbel (EV1) distribution fitted by maximum likelihood, beside the L-moment fit.

``F(x) = exp(-exp(-(x - xi)/alpha))``. The likelihood equations reduce to one in the scale,
``alpha = mean(x) - sum(x w)/sum(w)`` with ``w = exp(-x/alpha)``, solved by Newton's method from the
L-moment scale (Coles 2001, sec. 3.3; the same equations as Gumbel 1958); then
``xi = -alpha log(mean(w))``. The covariance is the inverse observed information. Parameters follow the
L-moment fit's names (``xi`` location, ``alpha`` scale) so that every function of
:mod:`aquascope_core.methods.flood_frequency` evaluates either fit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from aquascope_core.methods import lmoments as lm
from aquascope_core.result import finish, resolved_parameters, source

__all__ = ["fit_gumbel_ml", "refit_gumbel_ml"]

COLES_2001 = "Coles, S. (2001) An Introduction to Statistical Modeling of Extreme Values. Springer, sec. 3.3."


def _scale_ml(xs: np.ndarray, start: np.ndarray, max_iter: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Solve g(a) = a - mean(x) + sum(x w)/sum(w) = 0 for each row of ``xs`` (shifted by its mean)."""
    x = xs - xs.mean(axis=1, keepdims=True)
    a = start.copy()
    ok = np.zeros(a.shape, dtype=bool)
    for _ in range(max_iter):
        z = -x / a[:, None]
        w = np.exp(z - z.max(axis=1, keepdims=True))
        s0 = w.sum(axis=1)
        m1 = (x * w).sum(axis=1) / s0
        m2 = (x * x * w).sum(axis=1) / s0
        g = a + m1
        dg = 1.0 + (m2 - m1 * m1) / (a * a)
        step = g / dg
        a_new = np.where(a - step > 0, a - step, a / 2.0)
        ok = np.abs(a_new - a) <= 1e-12 * a
        a = a_new
        if np.all(ok):
            break
    return a, ok


def _location(xs: np.ndarray, a: np.ndarray) -> np.ndarray:
    m = xs.max(axis=1, keepdims=True)
    return m[:, 0] - a * np.log(np.mean(np.exp(-(xs - m) / a[:, None]), axis=1))


def fit_gumbel_ml(values: Any, *, unit: str | None = None) -> dict[str, Any]:
    """Gumbel distribution by maximum likelihood, with standard errors.

    Parameters
    ----------
    values : sequence of float
        Annual maxima (at least 5; no NaN; not all equal).
    unit : str, optional

    Returns
    -------
    dict
        ``method="gumbel_ml"``, ``ok``, ``distribution="gumbel"``, ``estimator``, ``n``, ``unit``,
        ``parameters`` {xi (location), alpha (scale)}, ``standard_errors``, ``covariance`` (2x2, xi then
        alpha), ``neg_log_likelihood``, ``meta``.
    """
    params = resolved_parameters(fit_gumbel_ml, (values,), {"unit": unit})
    x = lm.as_sample(values, min_n=5)
    xs = np.sort(x)[None, :]
    _, a0 = lm.gumbel_from_lmoments(*lm._lmom3(xs)[:2])
    a, ok = _scale_ml(xs, np.atleast_1d(a0))
    alpha = float(a[0])
    xi = float(_location(xs, a)[0])
    payload: dict[str, Any] = {"method": "gumbel_ml", "distribution": "gumbel", "distribution_label": lm.DIST_LABELS["gumbel"],
                               "estimator": "maximum likelihood (Coles 2001)", "n": int(x.size), "unit": unit}
    srcs = [source("Gumbel maximum likelihood", citation=COLES_2001)]
    if not (ok[0] and math.isfinite(alpha) and alpha > 0):
        payload.update(ok=False, parameters=None, reason="the likelihood equation for the scale did not converge")
        return finish(payload, "gumbel_ml", params, srcs)
    z = (x - xi) / alpha
    e = np.exp(-z)
    nll = float(x.size * math.log(alpha) + np.sum(z) + np.sum(e))
    n = x.size
    # observed information of (xi, alpha)
    h11 = np.sum(e) / alpha**2
    h12 = (np.sum(z * e) - np.sum(e) + n) / alpha**2
    h22 = (-n + 2 * np.sum(z) - 2 * np.sum(z * e) + np.sum(z * z * e)) / alpha**2
    H = np.array([[h11, h12], [h12, h22]])
    cov = np.linalg.inv(H)
    se = np.sqrt(np.diag(cov))
    payload.update(ok=True, parameters={"xi": xi, "alpha": alpha},
                   standard_errors={"xi": float(se[0]), "alpha": float(se[1])}, covariance=cov.tolist(),
                   neg_log_likelihood=nll)
    return finish(payload, "gumbel_ml", params, srcs)


def refit_gumbel_ml(fit: dict[str, Any], xs: np.ndarray) -> tuple:
    """(xi, alpha) refitted by maximum likelihood on every row of ``xs`` (for the parametric bootstrap)."""
    _, a0 = lm.gumbel_from_lmoments(*lm._lmom3(xs)[:2])
    a, _ = _scale_ml(xs, np.asarray(a0, dtype=float))
    return _location(xs, a), a
