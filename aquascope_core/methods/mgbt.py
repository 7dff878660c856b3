"""The multiple Grubbs-Beck test for potentially influential low floods (Cohn et al. 2013), as PeakFQ applies it.

For the k-th smallest of n log floods, ``omega_k = (x_(k) - mean(x_(k+1..n))) / sd(x_(k+1..n))``; its
p-value is the probability of so low a value in a normal sample of n (:func:`mgbt_pvalue`). The count of
low outliers is the larger of two sweeps over k = 1..n/2 (PeakFQ's rule): outward from the median, the
largest k with ``p_k < alpha_out`` (0.005); inward from the smallest flood, the run of consecutive
``p_k < alpha_zero`` (0.10). Zero flows enter as 1e-20 (PeakFQ 8.1.0's value) and so are always low outliers.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special, stats

from aquascope_core.errors import InputError
from aquascope_core.methods import lmoments as lm
from aquascope_core.result import finish, resolved_parameters, source

COHN_2013 = ("Cohn, T.A., England, J.F., Berenbrock, C.E., Mason, R.R., Stedinger, J.R. and Lamontagne, J.R. (2013) A "
             "generalized Grubbs-Beck test statistic for detecting multiple potentially influential low outliers in "
             "flood series. Water Resources Research 49(8), 5047-5058.")
BULLETIN_17C = (
    "England, J.F. Jr. et al. (2018, v1.1 2019) Guidelines for determining flood flow frequency, Bulletin 17C. "
    "U.S. Geological Survey Techniques and Methods 4-B5, https://doi.org/10.3133/tm4B5"
)
ZERO_LOG = -20.0  # log10 of the flow a zero stands for in the test (PeakFQ 8.1.0 passes zeros as 1e-20)
_T_EXACT_DF = 20.0  # above it PeakFQ's non-central t is Abramowitz & Stegun's normal approximation

_U, _WU = np.polynomial.legendre.leggauss(120)
_MGBT_NODES = 0.5 * (_U + 1.0) * (1 - 2e-7) + 1e-7  # the probability of the r-th order statistic
_MGBT_WEIGHTS = 0.5 * _WU * (1 - 2e-7)


def mgbt_pvalue(n: int, r: int, eta: float) -> float:
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
    cov_ms2 = mu3 / math.sqrt(n2 * (n2 - 1.0))  # as in Cohn's code (PeakFQ)
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
    integrand = _nct_sf(q, df, ncp)
    return float(np.clip(np.sum(wz * integrand), 0.0, 1.0))


def _nct_sf(q, df, ncp):
    """P(T > q) for the non-central t, as PeakFQ evaluates it: exactly up to 20 degrees of freedom, above them
    by Abramowitz & Stegun's (1964, 26.7.10) normal approximation ``z = (q (1 - 1/(4 df)) - ncp) / sqrt(1 +
    q^2/(2 df))``."""
    df = np.asarray(df, dtype=float)
    z = (q * (1.0 - 1.0 / (4.0 * df)) - ncp) / np.sqrt(1.0 + q * q / (2.0 * df))
    out = special.ndtr(-z)
    small = df <= _T_EXACT_DF
    if np.any(small):
        out = np.where(small, stats.nct.sf(q, np.where(small, df, 1.0), ncp), out)
    return out


def sweep(pvalues, *, alpha_out: float = 0.005, alpha_zero: float = 0.10) -> int:
    """Number of low outliers from the p-values p_1..p_{n/2} (PeakFQ's two sweeps)."""
    j1 = 0
    for k in range(len(pvalues), 0, -1):
        if pvalues[k - 1] < alpha_out:
            j1 = k
            break
    j3 = 0
    for p in pvalues:
        if p >= alpha_zero:
            break
        j3 += 1
    return max(j1, j3)


def multiple_grubbs_beck(peaks: Any, *, alpha_out: float = 0.005, alpha_in: float = 0.10) -> dict[str, Any]:
    """Multiple Grubbs-Beck test for potentially influential low floods (PILFs).

    Parameters
    ----------
    peaks : sequence of float
        Systematic annual peaks (>= 0; zeros are always low outliers). At least 10 values.
    alpha_out : float
        Significance of the outward sweep from the median (B17C: 0.005).
    alpha_in : float
        Significance of the inward sweep from the smallest flood (B17C and PeakFQ: 0.10).

    Returns
    -------
    dict
        ``method="multiple_grubbs_beck"``, ``ok``, ``n``, ``n_low`` (how many of the smallest
        floods are PILFs), ``n_zero``, ``threshold`` (the smallest flood kept: PILFs are below it, or
        ``None``), ``p_values`` [for k = 1..n/2], ``omega`` [the statistics], ``alpha_out``,
        ``alpha_in``, ``meta``.
    """
    params = resolved_parameters(multiple_grubbs_beck, (peaks,), dict(alpha_out=alpha_out, alpha_in=alpha_in))
    q = lm.as_sample(peaks, argument="peaks", min_n=10)
    if (q < 0).any():
        raise InputError.bad_value("peaks", float(q[q < 0][0]), "flows >= 0")
    x = np.sort(np.log10(np.maximum(q, 10.0**ZERO_LOG)))
    n = x.size
    pvals, omegas = [], []
    for k in range(1, n // 2 + 1):
        rest = x[k:]
        omega = (x[k - 1] - rest.mean()) / rest.std(ddof=1)
        pvals.append(mgbt_pvalue(n, k, float(omega)))
        omegas.append(float(omega))
    j = sweep(pvals, alpha_out=alpha_out, alpha_zero=alpha_in)
    n_zero = int((q <= 0).sum())
    srt = np.sort(q)
    payload = {
        "method": "multiple_grubbs_beck",
        "ok": True,
        "n": int(n),
        "n_low": int(j),
        "n_zero": n_zero,
        "threshold": float(srt[j]) if j > 0 else None,
        "p_values": pvals,
        "omega": omegas,
        "alpha_out": float(alpha_out),
        "alpha_in": float(alpha_in),
    }
    return finish(payload, "multiple_grubbs_beck", params,
                  [source("Multiple Grubbs-Beck test", citation=COHN_2013), source("Bulletin 17C", citation=BULLETIN_17C)])
