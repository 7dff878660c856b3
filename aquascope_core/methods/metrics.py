"""Goodness-of-fit of simulated against observed discharge: NSE, KGE and its parts, bias.

The scores are plain functions returning floats, the building blocks that calibration and the
reporting tools share; :func:`goodness_of_fit` bundles them into a result payload with ``meta``.

Missing values
--------------
A missing observation (NaN) drops that day from the score: the gap is skipped, never filled, and
the remaining days keep their pairing. A missing *simulated* value is refused
(:class:`InputError`): a model that produced no value on a day is a defect to fix, not a gap.
Pandas Series with different indexes are refused too; align them first.

Formulas (o observed, s simulated, over the n days where o is known)
-------------------------------------------------------------------
- NSE = 1 - sum (s - o)^2 / sum (o - mean o)^2 (Nash & Sutcliffe 1970); 1 is perfect, 0 is no
  better than the observed mean.
- NSE on sqrt flows and on log flows apply the transform to both series first; the log needs
  positive values, or an ``epsilon`` added to both (Pushpalatha et al. 2012 suggest mean(o)/100).
- KGE = 1 - sqrt((r - 1)^2 + (a - 1)^2 + (b - 1)^2) with r the Pearson correlation,
  b = mean s / mean o and a = std s / std o (Gupta et al. 2009) or, for the 2012 variant,
  a = CV s / CV o (Kling et al. 2012, where it is called gamma).
- bias = mean (s - o) in the flows' unit; percent bias = 100 (sum s - sum o) / sum o.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import pandas as pd

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.result import finish, resolved_parameters, source

__all__ = [
    "nse",
    "nse_sqrt",
    "nse_log",
    "kge",
    "kge_components",
    "bias",
    "percent_bias",
    "goodness_of_fit",
]

KgeVariant = Literal["2009", "2012"]

CITE_NSE = "Nash, J.E. & Sutcliffe, J.V. (1970) River flow forecasting through conceptual models part I. " \
           "J. Hydrol. 10(3), 282-290"
CITE_KGE = "Gupta, H.V., Kling, H., Yilmaz, K.K. & Martinez, G.F. (2009) Decomposition of the mean squared " \
           "error and NSE performance criteria. J. Hydrol. 377, 80-91"
CITE_KGE2012 = "Kling, H., Fuchs, M. & Paulin, M. (2012) Runoff conditions in the upper Danube basin under an " \
               "ensemble of climate change scenarios. J. Hydrol. 424-425, 264-277"
CITE_LOG = "Pushpalatha, R., Perrin, C., Le Moine, N. & Andreassian, V. (2012) A review of efficiency criteria " \
           "suitable for evaluating low-flow simulations. J. Hydrol. 420-421, 171-182"


def _pairs(observed: Any, simulated: Any) -> tuple[np.ndarray, np.ndarray]:
    """Float copies of the two series restricted to the days with an observation."""
    both_series = isinstance(observed, pd.Series) and isinstance(simulated, pd.Series)
    if both_series and not observed.index.equals(simulated.index):
        raise InputError(
            "observed and simulated are Series with different indexes; align them first, "
            "for example observed, simulated = observed.align(simulated, join='inner')",
            argument="simulated",
        )
    o = _as_float(observed, "observed")
    s = _as_float(simulated, "simulated")
    if o.shape != s.shape:
        raise InputError(
            f"observed has {o.size} values and simulated {s.size}; pass the two series over the same days",
            argument="simulated", value=s.size,
        )
    bad = ~np.isfinite(s)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InputError.bad_value("simulated", s[first], f"a finite number (position {first} is not); "
                                   "a simulation must give a value on every day scored")
    if np.isinf(o).any():
        raise InputError("observed holds an infinite value; mark a missing day with NaN", argument="observed")
    keep = ~np.isnan(o)
    o, s = o[keep], s[keep]
    if o.size < 2:
        raise InsufficientDataError(f"{o.size} observed day(s) to score; a goodness-of-fit needs at least 2",
                                    argument="observed", value=int(o.size))
    return o, s


def _as_float(values: Any, argument: str) -> np.ndarray:
    try:
        arr = np.array(values, dtype=float).ravel()  # np.array copies: the caller's data stay untouched
    except (TypeError, ValueError):
        raise InputError.bad_value(argument, values, "a list, array or Series of numbers") from None
    return arr


def _nse_of(o: np.ndarray, s: np.ndarray, what: str) -> float:
    spread = float(np.sum((o - o.mean()) ** 2))
    if spread == 0.0:
        raise InsufficientDataError(f"all observed {what} are equal; NSE compares against their variance, which is 0",
                                    argument="observed")
    return 1.0 - float(np.sum((s - o) ** 2)) / spread


def _non_negative(o: np.ndarray, s: np.ndarray, what: str) -> None:
    for arr, name in ((o, "observed"), (s, "simulated")):
        if (arr < 0).any():
            raise InputError.bad_value(name, float(arr.min()), f"non-negative flows for {what}")


def nse(observed: Any, simulated: Any) -> float:
    """Nash-Sutcliffe efficiency (1 perfect, 0 as good as the observed mean, unbounded below)."""
    o, s = _pairs(observed, simulated)
    return _nse_of(o, s, "values")


def nse_sqrt(observed: Any, simulated: Any) -> float:
    """NSE on square-root flows: weighs high and low flows more evenly than NSE."""
    o, s = _pairs(observed, simulated)
    _non_negative(o, s, "the square root")
    return _nse_of(np.sqrt(o), np.sqrt(s), "square-root flows")


def nse_log(observed: Any, simulated: Any, *, epsilon: float | None = None) -> float:
    """NSE on log flows, ln(q + epsilon): emphasises low flows.

    With ``epsilon=None`` every flow must be positive; otherwise ``epsilon`` (> 0, in the flows'
    unit) is added to both series, as Pushpalatha et al. (2012) recommend with mean(observed)/100.
    """
    o, s = _pairs(observed, simulated)
    eps = _epsilon(epsilon)
    for arr, name in ((o, "observed"), (s, "simulated")):
        low = float(arr.min())
        if low + eps <= 0:
            raise InputError.bad_value(name, low, "flows above 0 for a log (or pass epsilon > 0, "
                                       "e.g. epsilon = mean(observed)/100)")
    return _nse_of(np.log(o + eps), np.log(s + eps), "log flows")


def _epsilon(epsilon: float | None) -> float:
    if epsilon is None:
        return 0.0
    if not (isinstance(epsilon, (int, float)) and math.isfinite(epsilon) and epsilon > 0):
        raise InputError.bad_value("epsilon", epsilon, "a positive number in the flows' unit, or None")
    return float(epsilon)


def kge_components(observed: Any, simulated: Any, *, variant: KgeVariant = "2009") -> dict[str, float]:
    """KGE with its three parts: ``{"kge", "r", "alpha", "beta"}``.

    ``alpha`` is the ratio of standard deviations (``variant="2009"``, Gupta et al. 2009) or of
    coefficients of variation (``"2012"``, Kling et al. 2012). Population moments (ddof=0).
    """
    if variant not in ("2009", "2012"):
        raise InputError.bad_value("variant", variant, "'2009' (Gupta et al.) or '2012' (Kling et al.)")
    o, s = _pairs(observed, simulated)
    mo, ms = float(o.mean()), float(s.mean())
    so, ss = float(o.std()), float(s.std())
    if so == 0.0:
        raise InsufficientDataError("all observed values are equal; KGE's correlation and variability ratio "
                                    "are undefined", argument="observed")
    if mo == 0.0:
        raise InsufficientDataError("the observed mean is 0; KGE's bias ratio is undefined", argument="observed")
    if ss == 0.0:
        raise InputError("the simulated series is constant; its correlation with the observations is undefined",
                         argument="simulated")
    r = float(np.mean((o - mo) * (s - ms)) / (so * ss))
    beta = ms / mo
    alpha = ss / so if variant == "2009" else (ss / ms) / (so / mo)
    score = 1.0 - math.sqrt((r - 1.0) ** 2 + (alpha - 1.0) ** 2 + (beta - 1.0) ** 2)
    return {"kge": score, "r": r, "alpha": alpha, "beta": beta}


def kge(observed: Any, simulated: Any, *, variant: KgeVariant = "2009") -> float:
    """Kling-Gupta efficiency (1 perfect; 1 - sqrt(2) = -0.41 is as good as the observed mean,
    Knoben et al. 2019, Hydrol. Earth Syst. Sci. 23, 4323-4331)."""
    return kge_components(observed, simulated, variant=variant)["kge"]


def bias(observed: Any, simulated: Any) -> float:
    """Mean error, mean(simulated - observed), in the flows' unit (positive: over-simulation)."""
    o, s = _pairs(observed, simulated)
    return float(np.mean(s - o))


def percent_bias(observed: Any, simulated: Any) -> float:
    """100 (sum simulated - sum observed) / sum observed, over the observed days (positive: too much water)."""
    o, s = _pairs(observed, simulated)
    total = float(o.sum())
    if total == 0.0:
        raise InsufficientDataError("the observed flows sum to 0; a percent bias is undefined", argument="observed")
    return 100.0 * (float(s.sum()) - total) / total


def goodness_of_fit(
    observed: Any,
    simulated: Any,
    *,
    unit: str = "mm/d",
    log_epsilon: float | Literal["mean_over_100"] | None = "mean_over_100",
    kge_variant: KgeVariant = "2009",
) -> dict[str, Any]:
    """Every score above for one pair of series, as a result payload.

    Parameters
    ----------
    observed, simulated : the two discharge series over the same days (NaN in ``observed`` skips the day).
    unit : the unit of both series, carried to ``bias``.
    log_epsilon : the constant added before the log in ``nse_log``: a number, ``"mean_over_100"``
        (mean observed flow / 100, Pushpalatha et al. 2012) or ``None`` (flows must be positive).

    Returns
    -------
    dict with ``method`` ("goodness_of_fit"), ``ok``, ``n_days`` (scored), ``n_missing``, ``nse``,
    ``nse_sqrt``, ``nse_log``, ``log_epsilon``, ``kge``, ``r``, ``alpha``, ``beta``,
    ``kge_variant``, ``bias`` with ``unit``, ``percent_bias``, and ``meta``.
    """
    params = resolved_parameters(goodness_of_fit, (observed, simulated),
                                 {"unit": unit, "log_epsilon": log_epsilon, "kge_variant": kge_variant})
    if isinstance(log_epsilon, str) and log_epsilon != "mean_over_100":
        raise InputError.bad_value("log_epsilon", log_epsilon, "a positive number, 'mean_over_100' or None")
    o, s = _pairs(observed, simulated)
    n_total = int(np.asarray(observed).size)
    eps = float(o.mean()) / 100.0 if log_epsilon == "mean_over_100" else log_epsilon
    parts = kge_components(o, s, variant=kge_variant)
    payload = {
        "method": "goodness_of_fit",
        "ok": True,
        "n_days": int(o.size),
        "n_missing": n_total - int(o.size),
        "nse": _nse_of(o, s, "values"),
        "nse_sqrt": nse_sqrt(o, s),
        "nse_log": nse_log(o, s, epsilon=eps),
        "log_epsilon": eps,
        **parts,
        "kge_variant": kge_variant,
        "bias": float(np.mean(s - o)),
        "unit": unit,
        "percent_bias": percent_bias(o, s),
    }
    sources = [source("Nash-Sutcliffe efficiency", citation=CITE_NSE),
               source("Kling-Gupta efficiency", citation=CITE_KGE if kge_variant == "2009" else CITE_KGE2012),
               source("log-flow efficiency", citation=CITE_LOG)]
    return finish(payload, "goodness_of_fit", params, sources)
