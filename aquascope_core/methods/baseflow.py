"""Baseflow separation by recursive digital filters, and the baseflow index.

Both filters run on a daily discharge Series (see :mod:`aquascope_core.methods.flows` for what a
valid record is). A recursive filter carries its state from day to day, so it cannot cross a gap:
the record must be complete (no NaN, no absent day) or an :class:`InputError` names the first gap
and asks for a gap-free period. Nothing is ever filled.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import numpy as np
import pandas as pd

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods.flows import _daily_record
from aquascope_core.result import finish, resolved_parameters, source

__all__ = ["lyne_hollick_baseflow", "eckhardt_baseflow"]

log = logging.getLogger(__name__)

_CITE_LH = "Lyne, V. & Hollick, M. (1979) Stochastic time-variable rainfall-runoff modelling. Hydrology and " \
           "Water Resources Symposium, Institution of Engineers Australia, Perth, 89-92; Ladson, A.R., Brown, R., " \
           "Neal, B. & Nathan, R. (2013) A standard approach to baseflow separation using the Lyne and Hollick " \
           "filter. Australasian J. Water Resour. 17(1), 25-34"
_CITE_ECK = "Eckhardt, K. (2005) How to construct recursive digital filters for baseflow separation. " \
            "Hydrol. Process. 19, 507-515"


def _complete_record(flow: Any, min_days: int) -> dict[str, Any]:
    rec = _daily_record(flow, min_days=min_days)
    if rec["n_missing"]:
        first = rec["index"][int(np.argmax(np.isnan(rec["q"])))]
        raise InputError.bad_value(
            "flow", f"<{rec['n_missing']} missing day(s), the first on {first.date()}>",
            "a gap-free daily record: a recursive filter cannot cross a gap; select a gap-free period "
            "(e.g. flow.loc['1990-10-01':'2000-09-30']) and separate each period on its own",
        )
    return rec


def _annual_bfi(index: pd.DatetimeIndex, q: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """Baseflow index of each calendar year the record covers completely."""
    out: dict[str, float] = {}
    years = index.year
    for y in np.unique(years):
        sel = years == y
        n_days = 366 if pd.Timestamp(year=int(y), month=1, day=1).is_leap_year else 365
        if int(sel.sum()) == n_days and q[sel].sum() > 0:
            out[str(int(y))] = float(b[sel].sum() / q[sel].sum())
    return out


def _series_payload(index: pd.DatetimeIndex, b: np.ndarray) -> dict[str, Any]:
    return {"dates": [d.date().isoformat() for d in index], "values": b}


# --------------------------------------------------------------------------------------------
# Lyne-Hollick


def _lh_pass(q: np.ndarray, alpha: float, f0: float) -> np.ndarray:
    """One pass: quickflow f_t = alpha f_{t-1} + (1 + alpha)/2 (q_t - q_{t-1}) with f_0 given;
    baseflow q - f where f > 0, q elsewhere (the recursion keeps the unconstrained f)."""
    c = 0.5 * (1.0 + alpha)
    f = np.empty_like(q)
    f[0] = f0
    for t in range(1, q.size):
        f[t] = alpha * f[t - 1] + c * (q[t] - q[t - 1])
    return np.where(f > 0, q - f, q)


def _lyne_hollick(q: np.ndarray, alpha: float, passes: int, reflect: int) -> np.ndarray:
    """Ladson et al. (2013): reflect ``reflect`` values at each end, pass forward, then backward and
    forward (passes - 1)/2 times, cut the reflection off, and set negative baseflow to 0."""
    n = q.size
    if reflect:
        x = np.concatenate([q[reflect:0:-1], q, q[n - 2:n - 2 - reflect:-1]])
    else:
        x = q.copy()
    b = _lh_pass(x, alpha, f0=x[0])
    for _ in range((passes - 1) // 2):
        b = _lh_pass(b[::-1], alpha, f0=b[-1])[::-1]
        b = _lh_pass(b, alpha, f0=b[0])
    b = b[reflect:reflect + n]
    return np.maximum(b, 0.0)


def lyne_hollick_baseflow(
    flow: pd.Series,
    *,
    alpha: float = 0.925,
    passes: int = 3,
    reflect_days: int = 30,
    return_series: bool = False,
    unit: str = "m3/s",
) -> dict[str, Any]:
    """Baseflow by the Lyne-Hollick (1979) one-parameter filter, in the standard form of Ladson et
    al. (2013), and the baseflow index.

    Parameters
    ----------
    flow : gap-free daily discharge (Series with a DatetimeIndex).
    alpha : filter parameter (0.925 is the usual value for daily flow, Nathan & McMahon 1990).
    passes : an odd number of passes, forward first (3: forward, backward, forward).
    reflect_days : values reflected at each end of the record before filtering, so the filter's
        warm-up falls outside it (Ladson et al. 2013 use 30). 0 switches the reflection off.
    return_series : also return the daily baseflow (``baseflow``: {"dates", "values"}).
    unit : the unit of ``flow``.

    Returns
    -------
    dict with ``method`` ("lyne_hollick_baseflow"), ``ok``, ``baseflow_index``, ``annual_bfi``
    (per complete calendar year), ``alpha``, ``passes``, ``reflect_days``, ``n``, ``mean_flow``,
    ``mean_baseflow``, ``unit`` (and ``baseflow`` when asked) and ``meta``.

    Notes
    -----
    Each pass filters the previous pass's baseflow b (the streamflow q for the first):
    f_t = alpha f_{t-1} + (1 + alpha)/2 (b_t - b_{t-1}), starting from f equal to the first value
    met (Ladson et al. 2013); the new baseflow is b_t - f_t where f_t > 0 and b_t otherwise. After
    the last pass the reflected ends are cut off and negative baseflow set to 0, so
    0 <= baseflow <= streamflow every day. BFI = sum(baseflow)/sum(streamflow).
    """
    params = resolved_parameters(lyne_hollick_baseflow, (flow,), {
        "alpha": alpha, "passes": passes, "reflect_days": reflect_days, "return_series": return_series, "unit": unit})
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise InputError.bad_value("alpha", alpha, "a filter parameter between 0 and 1 (0.925 for daily flow)")
    if isinstance(passes, bool) or not isinstance(passes, (int, np.integer)) or passes < 1 or passes % 2 == 0:
        raise InputError.bad_value("passes", passes, "an odd number of passes, at least 1 (3 is the standard)")
    if isinstance(reflect_days, bool) or not isinstance(reflect_days, (int, np.integer)) or reflect_days < 0:
        raise InputError.bad_value("reflect_days", reflect_days, "a whole number of days >= 0 (30 is the standard)")
    rec = _complete_record(flow, min_days=max(int(reflect_days) + 2, 30))
    q = rec["q"]
    b = _lyne_hollick(q, float(alpha), int(passes), int(reflect_days))
    total = float(q.sum())
    payload: dict[str, Any] = {
        "method": "lyne_hollick_baseflow", "ok": True, "alpha": float(alpha), "passes": int(passes),
        "reflect_days": int(reflect_days), "n": int(q.size), "unit": unit,
        "baseflow_index": float(b.sum() / total), "annual_bfi": _annual_bfi(rec["index"], q, b),
        "mean_flow": float(q.mean()), "mean_baseflow": float(b.mean()),
    }
    if return_series:
        payload["baseflow"] = _series_payload(rec["index"], b)
    return finish(payload, "lyne_hollick_baseflow", params, [source("Lyne-Hollick filter", citation=_CITE_LH)])


# --------------------------------------------------------------------------------------------
# Eckhardt


def _eckhardt(q: np.ndarray, alpha: float, bfi_max: float) -> np.ndarray:
    a = (1.0 - bfi_max) * alpha
    c = (1.0 - alpha) * bfi_max
    d = 1.0 - alpha * bfi_max
    b = np.empty_like(q)
    b[0] = q[0]
    for t in range(1, q.size):
        bt = (a * b[t - 1] + c * q[t]) / d
        b[t] = bt if bt < q[t] else q[t]
    return b


def eckhardt_baseflow(
    flow: pd.Series,
    *,
    alpha: float = 0.98,
    bfi_max: float = 0.80,
    return_series: bool = False,
    unit: str = "m3/s",
) -> dict[str, Any]:
    """Baseflow by the Eckhardt (2005) two-parameter filter, and the baseflow index.

    Parameters
    ----------
    flow : gap-free daily discharge (Series with a DatetimeIndex).
    alpha : recession constant of baseflow per day (0.98 by default; estimate it from recessions
        of the record when you can).
    bfi_max : the largest baseflow index the aquifer allows; Eckhardt (2005) proposes 0.80 for
        perennial streams on porous aquifers, 0.50 for ephemeral streams on porous aquifers and 0.25
        for perennial streams on hard-rock aquifers. The choice drives the answer: state it.
    return_series : also return the daily baseflow (``baseflow``: {"dates", "values"}).
    unit : the unit of ``flow``.

    Returns
    -------
    dict with ``method`` ("eckhardt_baseflow"), ``ok``, ``baseflow_index``, ``annual_bfi``,
    ``alpha``, ``bfi_max``, ``n``, ``mean_flow``, ``mean_baseflow``, ``unit`` (and ``baseflow``) and
    ``meta``.

    Notes
    -----
    b_t = [(1 - BFImax) alpha b_{t-1} + (1 - alpha) BFImax q_t] / (1 - alpha BFImax), with b_t <= q_t
    and b_0 = q_0. A recession q_t = alpha^t q_0 is then all baseflow, and a steady flow tends to
    BFImax times itself. The first weeks carry the start value: on a record of a few months the
    BFI depends on where it starts.
    """
    params = resolved_parameters(eckhardt_baseflow, (flow,), {
        "alpha": alpha, "bfi_max": bfi_max, "return_series": return_series, "unit": unit})
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise InputError.bad_value("alpha", alpha, "a recession constant between 0 and 1 (about 0.98 for daily flow)")
    if isinstance(bfi_max, bool) or not isinstance(bfi_max, (int, float)) or not 0 < bfi_max < 1:
        raise InputError.bad_value("bfi_max", bfi_max, "a maximum baseflow index between 0 and 1 (0.80, 0.50 or 0.25)")
    rec = _complete_record(flow, min_days=30)
    q = rec["q"]
    b = _eckhardt(q, float(alpha), float(bfi_max))
    total = float(q.sum())
    payload: dict[str, Any] = {
        "method": "eckhardt_baseflow", "ok": True, "alpha": float(alpha), "bfi_max": float(bfi_max),
        "n": int(q.size), "unit": unit, "baseflow_index": float(b.sum() / total),
        "annual_bfi": _annual_bfi(rec["index"], q, b), "mean_flow": float(q.mean()), "mean_baseflow": float(b.mean()),
    }
    if return_series:
        payload["baseflow"] = _series_payload(rec["index"], b)
    return finish(payload, "eckhardt_baseflow", params, [source("Eckhardt filter", citation=_CITE_ECK)])
