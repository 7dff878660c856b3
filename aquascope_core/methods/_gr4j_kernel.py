"""The GR4J daily loop: one compiled kernel and a plain-Python twin of the same equations.

This module is private to :mod:`aquascope_core.methods.rainfall_runoff`. numba is imported the
first time a compiled function is asked for (:func:`compiled`), never at import, so importing the
package does not pay for it. ``cache=True`` keeps the machine code on disk between processes.

The equations follow Perrin, Michel & Andreassian (2003) as airGR implements them (Coron et al.
2017): tanh arguments capped at 13, percolation with the constant (9/4)^4, the routing store and
the direct branch both receiving the groundwater exchange, each clipped so neither goes negative.

Conventions shared by the two implementations
---------------------------------------------
``stores`` is ``[production_store, routing_store]`` in mm, updated in place to the end state.
``st_uh1`` / ``st_uh2`` are the unit-hydrograph stores as airGR keeps them (20 and 40 slots, the
first ``ceil(x4)`` and ``ceil(2 x4)`` in use), updated in place: after a day, slot 0 holds what
was released that day and slot k what will be released k days later; a day starts by shifting the
slots down one and adding its effective rainfall times the ordinates. ``q`` receives the
simulated discharge (mm/d); ``states`` receives :data:`STATE_NAMES` per day when it has one row per
day, and is ignored when it has none.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

__all__ = ["STATE_NAMES", "UH1_SLOTS", "UH2_SLOTS", "unit_hydrographs", "compiled", "gr4j_loop_python",
           "gr4j_step_python"]

# Columns of the optional internal-state matrix (all mm or mm/d, per day).
STATE_NAMES = (
    "production_store",     # mm, end of day
    "routing_store",        # mm, end of day
    "net_rainfall",         # Pn, mm/d
    "storage_infiltration",  # Ps, the part of Pn entering the production store, mm/d
    "actual_et",            # mm/d (interception plus evaporation from the production store)
    "percolation",          # mm/d
    "effective_rainfall",   # Pr = Pn - Ps + Perc, mm/d
    "uh1_outflow",          # Q9, mm/d
    "uh2_outflow",          # Q1, mm/d
    "potential_exchange",   # F, mm/d (positive: import)
    "actual_exchange",      # mm/d, both branches after clipping
    "routing_outflow",      # Qr, mm/d
    "direct_outflow",       # Qd, mm/d
)
N_STATES = len(STATE_NAMES)

_TANH_CAP = 13.0          # tanh(13) == 1 to double precision; caps the argument as airGR does
_PERC_CONST = 25.62890625  # (9/4)**4
_SPLIT = 0.9              # share of effective rainfall routed through UH1 and the routing store
_UH_EXPONENT = 2.5
# Slots of the unit-hydrograph stores, airGR's layout (x4 <= 20 days fills them at most).
UH1_SLOTS = 20
UH2_SLOTS = 40


def unit_hydrographs(x4: float) -> tuple[np.ndarray, np.ndarray]:
    """Ordinates of UH1 (``ceil(x4)`` days) and UH2 (``ceil(2 x4)`` days) for time base ``x4``.

    The S-curves are SH1(t) = (t/x4)^2.5 for t < x4, and SH2(t) = 0.5 (t/x4)^2.5 for t < x4,
    1 - 0.5 (2 - t/x4)^2.5 for x4 <= t < 2 x4; ordinate j is S(j) - S(j-1). Each sums to 1.
    """
    n1 = max(1, math.ceil(x4))
    n2 = max(1, math.ceil(2.0 * x4))
    t1 = np.arange(0, n1 + 1, dtype=float)
    s1 = np.where(t1 < x4, (t1 / x4) ** _UH_EXPONENT, 1.0)
    t2 = np.arange(0, n2 + 1, dtype=float)
    ratio = t2 / x4
    s2 = np.where(
        t2 < x4,
        0.5 * ratio**_UH_EXPONENT,
        np.where(t2 < 2.0 * x4, 1.0 - 0.5 * np.abs(2.0 - ratio) ** _UH_EXPONENT, 1.0),
    )
    return np.diff(s1), np.diff(s2)


def gr4j_loop_python(p, e, x1, x2, x3, x4, stores, st_uh1, st_uh2, q, states):
    """The daily loop; compiled as is by :func:`compiled` (keep it numba-compatible).

    See the module docstring for the arguments (``st_uh1``/``st_uh2`` have :data:`UH1_SLOTS` and
    :data:`UH2_SLOTS` slots). Returns nothing: the outputs are written in place.
    """
    n = p.shape[0]
    record = states.shape[0] == n
    # unit-hydrograph ordinates, as in unit_hydrographs() (built here so a run costs one call)
    n1 = max(1, int(math.ceil(x4)))
    n2 = max(1, int(math.ceil(2.0 * x4)))
    uh1 = np.empty(n1)
    uh2 = np.empty(n2)
    prev = 0.0
    for j in range(n1):
        t = j + 1.0
        cur = (t / x4) ** _UH_EXPONENT if t < x4 else 1.0
        uh1[j] = cur - prev
        prev = cur
    prev = 0.0
    for j in range(n2):
        t = j + 1.0
        if t < x4:
            cur = 0.5 * (t / x4) ** _UH_EXPONENT
        elif t < 2.0 * x4:
            cur = 1.0 - 0.5 * (2.0 - t / x4) ** _UH_EXPONENT
        else:
            cur = 1.0
        uh2[j] = cur - prev
        prev = cur
    s = stores[0]
    r = stores[1]
    for i in range(n):
        pi = p[i]
        ei = e[i]
        # interception, then the production store (Perrin et al. 2003, eqs 1-5)
        if pi <= ei:
            pn = 0.0
            ps = 0.0
            ws = (ei - pi) / x1
            if ws > _TANH_CAP:
                ws = _TANH_CAP
            tws = math.tanh(ws)
            sr = s / x1
            es = s * (2.0 - sr) * tws / (1.0 + (1.0 - sr) * tws)
            s -= es
            aet = es + pi
            pr = 0.0
        else:
            pn = pi - ei
            ws = pn / x1
            if ws > _TANH_CAP:
                ws = _TANH_CAP
            tws = math.tanh(ws)
            sr = s / x1
            ps = x1 * (1.0 - sr * sr) * tws / (1.0 + sr * tws)
            s += ps
            aet = ei
            pr = pn - ps
        if s < 0.0:
            s = 0.0
        # percolation: s (1 - (1 + (s / (9/4 x1))^4)^-1/4)
        sr = s / x1
        sr = sr * sr
        sr = sr * sr
        perc = s * (1.0 - 1.0 / math.sqrt(math.sqrt(1.0 + sr / _PERC_CONST)))
        s -= perc
        pr += perc
        # the two unit hydrographs: shift by one day and add today's input times the ordinates
        pr1 = pr * _SPLIT
        pr2 = pr - pr1
        for k in range(n1 - 1):
            st_uh1[k] = st_uh1[k + 1] + uh1[k] * pr1
        st_uh1[n1 - 1] = uh1[n1 - 1] * pr1
        for k in range(n2 - 1):
            st_uh2[k] = st_uh2[k + 1] + uh2[k] * pr2
        st_uh2[n2 - 1] = uh2[n2 - 1] * pr2
        q9 = st_uh1[0]
        q1 = st_uh2[0]
        # groundwater exchange F = x2 (R/x3)^3.5, applied to both branches
        rr = r / x3
        exch = x2 * rr * rr * rr * math.sqrt(rr)
        if r + q9 + exch < 0.0:
            aexch1 = -r - q9
        else:
            aexch1 = exch
        r = r + q9 + exch
        if r < 0.0:
            r = 0.0
        rr = r / x3
        rr = rr * rr
        rr = rr * rr
        qr = r * (1.0 - 1.0 / math.sqrt(math.sqrt(1.0 + rr)))
        r -= qr
        if q1 + exch < 0.0:
            aexch2 = -q1
            qd = 0.0
        else:
            aexch2 = exch
            qd = q1 + exch
        qt = qr + qd
        if qt < 0.0:
            qt = 0.0
        q[i] = qt
        if record:
            states[i, 0] = s
            states[i, 1] = r
            states[i, 2] = pn
            states[i, 3] = ps
            states[i, 4] = aet
            states[i, 5] = perc
            states[i, 6] = pr
            states[i, 7] = q9
            states[i, 8] = q1
            states[i, 9] = exch
            states[i, 10] = aexch1 + aexch2
            states[i, 11] = qr
            states[i, 12] = qd
    stores[0] = s
    stores[1] = r


def gr4j_step_python(state: dict[str, Any], p: float, e: float, x1: float, x2: float, x3: float,
                     uh1: list[float], uh2: list[float]) -> float:
    """One day of GR4J in plain Python, written for reading rather than speed.

    ``state`` holds ``production``, ``routing`` (mm) and the lists ``uh1``, ``uh2`` (mm still to be
    released); it is updated in place. Returns the day's discharge in mm/d. Used as the
    same-process reference of the benchmarks and as an independent check of the compiled loop.
    """
    s = state["production"]
    if p <= e:
        tws = math.tanh(min((e - p) / x1, _TANH_CAP))
        evap = s * (2.0 - s / x1) * tws / (1.0 + (1.0 - s / x1) * tws)
        s = s - evap
        rain_excess = 0.0
    else:
        pn = p - e
        tws = math.tanh(min(pn / x1, _TANH_CAP))
        infil = x1 * (1.0 - (s / x1) ** 2) * tws / (1.0 + (s / x1) * tws)
        s = s + infil
        rain_excess = pn - infil
    s = max(s, 0.0)
    perc = s * (1.0 - (1.0 + (s / (2.25 * x1)) ** 4) ** -0.25)
    state["production"] = s - perc
    effective = rain_excess + perc

    held1 = state["uh1"]
    held2 = state["uh2"]
    state["uh1"] = [a + o * _SPLIT * effective for a, o in zip(held1[1:] + [0.0], uh1)]
    state["uh2"] = [a + o * (1.0 - _SPLIT) * effective for a, o in zip(held2[1:] + [0.0], uh2)]
    q9 = state["uh1"][0]
    q1 = state["uh2"][0]

    r = state["routing"]
    exchange = x2 * (r / x3) ** 3.5
    r = max(r + q9 + exchange, 0.0)
    routed = r * (1.0 - (1.0 + (r / x3) ** 4) ** -0.25)
    state["routing"] = r - routed
    direct = max(q1 + exchange, 0.0)
    return max(routed + direct, 0.0)


_COMPILED: dict[str, Callable[..., Any]] = {}


def compiled() -> Callable[..., Any]:
    """The numba-compiled :func:`gr4j_loop_python` (compiled on first call, cached on disk)."""
    fn = _COMPILED.get("loop")
    if fn is None:
        import numba  # deferred: importing numba costs a noticeable fraction of a second

        fn = numba.njit(cache=True, nogil=True, error_model="numpy")(gr4j_loop_python)
        _COMPILED["loop"] = fn
    return fn
