"""Bulletin 17C: log-Pearson III by the expected moments algorithm (EMA), as PeakFQ 8.1.0 runs it.

The annual peaks are logged (base 10) and each year becomes an interval ``(ql, qu)`` that holds its
log peak, with the perception thresholds ``(tl, tu)`` inside which a flood of that year would have been
measured (:func:`_build_record`): a measured peak is a point; a year of a historical period with no
recorded flood lies below the period's lower threshold; an interval peak (a "less than", "greater than"
or estimated range) lies between its bounds. Low floods found by the multiple Grubbs-Beck test (or below
an analyst's threshold) are recoded as lying below the smallest flood kept (PeakFQ's recoding, which
also raises every year's lower perception threshold to it; zero flows are always low outliers).

The fit has PeakFQ's three stages: (1) the at-site moments, no regional information; (2) the weighted
skew with the at-site skew's MSE from Bulletin 17B's formula for the whole record; (3) unless the test
censored low floods, the weighted skew again with the MSE scaled to the record's censoring ("ADJE",
:mod:`aquascope_core.methods.b17c_variance`). The regional skew counts as
``n_G = W n MSE_site/MSE_regional`` years, W by the weighting chosen (:mod:`~aquascope_core.methods.b17c_weights`:
``HWN``, PeakFQ 8.1.0's default, ``INV`` the older inverse-MSE weighting, or ``ERL``). The confidence limits
are PeakFQ's: the Cohn et al. (2001) variance carried through Cohn's two-level quadrature to adjusted
Student-t limits (:func:`ema_confidence_band`).

References
----------
England, J.F. Jr., Cohn, T.A., Faber, B.A., Stedinger, J.R., Thomas, W.O. Jr., Veilleux, A.G.,
    Kiang, J.E. and Mason, R.R. Jr. (2018, v1.1 2019). Guidelines for determining flood flow
    frequency, Bulletin 17C. U.S. Geological Survey Techniques and Methods 4-B5.
Cohn, T.A., Lane, W.L. and Baier, W.G. (1997). Water Resour. Res. 33(9), 2089-2096.
Cohn, T.A., Lane, W.L. and Stedinger, J.R. (2001). Confidence intervals for Expected Moments
    Algorithm flood quantile estimates. Water Resour. Res. 37(6), 1695-1706.
Cohn, T.A. et al. (2013). A generalized Grubbs-Beck test statistic for detecting multiple potentially
    influential low outliers in flood series. Water Resour. Res. 49(8), 5047-5058.
Veilleux, A.G., Cohn, T.A., Flynn, K.M., Mason, R.R. Jr. and Hummel, P.R. (2014). Estimating magnitude and
    frequency of floods using the PeakFQ 7.0 program. U.S. Geological Survey Fact Sheet 2013-3108.
Flynn, K.M., Kirby, W.H. and Hummel, P.R. (2006). User's manual for program PeakFQ, annual flood-frequency
    analysis using Bulletin 17B guidelines. U.S. Geological Survey Techniques and Methods 4-B4 (the Bulletin 17B
    program; PeakFQ 8.1.0, whose Bulletin 17C EMA this module matches, is the later program of the 2014 fact sheet).
"""

from __future__ import annotations

import logging
import math
from typing import Any, Literal, Mapping, Sequence

import numpy as np

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods import b17c_p3 as p3
from aquascope_core.methods import b17c_variance as bv
from aquascope_core.methods import b17c_weights as bw
from aquascope_core.methods import lmoments as lm
from aquascope_core.methods.b17c_regional_skew import regional_skew
from aquascope_core.methods.b17c_variance import b17b_skew_mse
from aquascope_core.methods.ema import SKEW_FLOOR, ema_moments
from aquascope_core.methods.mgbt import BULLETIN_17C, multiple_grubbs_beck
from aquascope_core.result import finish, resolved_parameters, source

__all__ = [
    "fit_lp3_ema",
    "ema_confidence_band",
    "peakfq_quantile_table",
    "multiple_grubbs_beck",
    "regional_skew",
    "b17b_skew_mse",
    "BULLETIN_17C",
    "PEAKFQ_AEPS",
    "peakfq_statistics",
]

log = logging.getLogger(__name__)

_COHN_1997 = ("Cohn, T.A., Lane, W.L. and Baier, W.G. (1997) An algorithm for computing moments-based flood quantile "
              "estimates when historical flood information is available. Water Resources Research 33(9), 2089-2096.")
_COHN_2001 = ("Cohn, T.A., Lane, W.L. and Stedinger, J.R. (2001) Confidence intervals for Expected Moments Algorithm "
              "flood quantile estimates. Water Resources Research 37(6), 1695-1706.")
# PeakFQ 7 and later (8.1.0 is the program matched here) run Bulletin 17C: their reference is the 2014 fact sheet, not
# the 2006 manual of the Bulletin 17B program (Techniques and Methods 4-B4)
_PEAKFQ = ("Veilleux, A.G., Cohn, T.A., Flynn, K.M., Mason, R.R., Jr., and Hummel, P.R. (2014) Estimating magnitude "
           "and frequency of floods using the PeakFQ 7.0 program. U.S. Geological Survey Fact Sheet 2013-3108, 2 p., "
           "https://doi.org/10.3133/fs20133108.")

#: The annual exceedance probabilities of PeakFQ's frequency table, in its order.
PEAKFQ_AEPS = (0.995, 0.99, 0.95, 0.9, 0.8, 0.6667, 0.5, 0.4292, 0.2, 0.1, 0.04, 0.02, 0.01, 0.005, 0.002)
#: The 25 annual exceedance probabilities at which PeakFQ 8.1.0 computes quantiles and limits (its default set).
PEAKFQ_810_AEPS = (0.995, 0.99, 0.98, 0.975, 0.96, 0.95, 0.9, 0.8, 0.7, 0.6667, 0.6, 0.5704, 0.5, 0.4292, 0.4, 0.3,
                   0.2, 0.1, 0.05, 0.04, 0.025, 0.02, 0.01, 0.005, 0.002)
#: Their non-exceedance probabilities, in order: the grid on which PeakFQ keeps the limits monotone.
PEAKFQ_GRID = tuple(1.0 - a for a in PEAKFQ_810_AEPS)

_ZERO_LOG = -99.0     # PeakFQ's log10 of a zero flow (1e-99)
_LOW_LOG = -6.0       # lower bound PeakFQ gives a recoded low outlier


# --------------------------------------------------------------------------------------------
# The record: systematic peaks, historical peaks, interval peaks, perception thresholds
# --------------------------------------------------------------------------------------------

def _as_year_map(historical_peaks: Any, argument: str = "historical_peaks") -> dict[int, float]:
    if historical_peaks is None:
        return {}
    items = historical_peaks.items() if isinstance(historical_peaks, Mapping) else historical_peaks
    out: dict[int, float] = {}
    try:
        for year, peak in items:
            out[int(year)] = float(peak)
    except (TypeError, ValueError):
        raise InputError.bad_value(argument, historical_peaks,
                                   "a mapping {water_year: peak} or a sequence of (water_year, peak)") from None
    bad = [y for y, q in out.items() if not (math.isfinite(q) and q > 0)]
    if bad:
        raise InputError.bad_value(argument, {y: out[y] for y in bad[:3]}, "finite peaks > 0")
    return out


def _as_intervals(interval_peaks: Any) -> dict[int, tuple[float, float]]:
    if interval_peaks is None:
        return {}
    items = interval_peaks.items() if isinstance(interval_peaks, Mapping) else interval_peaks
    out: dict[int, tuple[float, float]] = {}
    try:
        for year, (lo, hi) in items:
            lo = 0.0 if lo is None else float(lo)
            hi = math.inf if hi is None else float(hi)
            out[int(year)] = (lo, hi)
    except (TypeError, ValueError):
        raise InputError.bad_value("interval_peaks", interval_peaks,
                                   "a mapping {water_year: (lower, upper)} (None or 0 / inf for an open end)") from None
    for y, (lo, hi) in out.items():
        if not (lo >= 0 and hi > lo) or math.isnan(lo) or math.isnan(hi):
            raise InputError.bad_value("interval_peaks", {y: (lo, hi)}, "0 <= lower < upper for each year")
    return out


def _as_thresholds(perception_thresholds: Any) -> list[tuple[int, int, float, float]]:
    if perception_thresholds is None:
        return []
    out = []
    for t in perception_thresholds:
        try:
            start, end = int(t["start"]), int(t["end"])
            lower = float(t["lower"])
            upper = float(t.get("upper") if t.get("upper") is not None else math.inf)
        except (KeyError, TypeError, ValueError, AttributeError):
            raise InputError.bad_value("perception_thresholds", t, "dicts {start, end, lower[, upper]} with water "
                                       "years and flows") from None
        if end < start or lower < 0 or not math.isfinite(lower) or not upper > lower:
            raise InputError.bad_value("perception_thresholds", t,
                                       "start <= end and 0 <= lower < upper (upper may be infinite)")
        out.append((start, end, lower, math.inf if upper >= 1e30 else upper))
    return out


def _log(v: float, zero: float) -> float:
    return math.log10(v) if v > 0 else zero


def _build_record(peaks, years, historical_peaks, perception_thresholds, interval_peaks=None):
    """Per-year log intervals (ql, qu), perception thresholds (tl, tu) and the kind of each year."""
    q = np.array(peaks, dtype=float, copy=True).ravel()
    if q.size == 0 or not np.all(np.isfinite(q)):
        raise InputError("peaks must be finite numbers (NaN or infinite values found).", argument="peaks",
                         recovery="Leave years without a peak out of the systematic record; do not fill them.")
    if (q < 0).any():
        raise InputError.bad_value("peaks", float(q[q < 0][0]), "annual peaks >= 0 (zero for a year with no flow)")
    hist = _as_year_map(historical_peaks)
    thr = _as_thresholds(perception_thresholds)
    intervals = _as_intervals(interval_peaks)
    if years is None:
        if hist or thr or intervals:
            raise InputError("years are needed to place historical peaks, interval peaks and perception thresholds.",
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
    clash = sorted(set(intervals) & set(hist))
    if clash:
        raise InputError.bad_value("interval_peaks", clash, "years without a historical peak")

    def period_of(year: int) -> tuple[float, float] | None:
        # the thresholds apply in the order given, a later one replacing an earlier one (PeakFQ's PCPT_Thresh)
        inside = [(lo, hi) for s, e, lo, hi in thr if s <= year <= e]
        return inside[-1] if inside else None

    ql, qu, tl, tu, kind, yr = [], [], [], [], [], []

    def add(y, lo, hi, k):
        t = period_of(y) or (0.0, math.inf)
        ql.append(lo)
        qu.append(hi)
        tl.append(_log(t[0], -np.inf))
        tu.append(np.inf if t[1] == math.inf else math.log10(t[1]))
        kind.append(k)
        yr.append(y)

    for y, v in zip(yrs.tolist(), q.tolist()):
        if y in intervals:
            lo, hi = intervals[y]
            add(y, _log(lo, -np.inf), np.inf if hi == math.inf else math.log10(hi), "interval")
        else:
            add(y, _log(v, _ZERO_LOG), _log(v, _ZERO_LOG), "zero" if v == 0 else "systematic")
    for y, v in sorted(hist.items()):
        t = period_of(y)
        if t is None:
            raise InputError(f"the historical peak of {y} lies in no perception threshold period.",
                             argument="perception_thresholds",
                             recovery="Give the threshold above which floods of that period would have been recorded.")
        if v < t[0]:
            raise InputError(f"the historical peak of {y} ({v:g}) is below its perception threshold ({t[0]:g}).",
                             argument="historical_peaks")
        add(y, math.log10(v), math.log10(v), "historical")
    for y, (lo, hi) in sorted(intervals.items()):
        if y not in set(yrs.tolist()):
            add(y, _log(lo, -np.inf), np.inf if hi == math.inf else math.log10(hi), "interval")
    gaps = []
    known = set(yr)
    for s, e, lo, _hi in thr:
        for y in range(s, e + 1):
            if y in known or period_of(y)[0] != lo:
                continue
            known.add(y)
            if lo <= 0:
                gaps.append(y)  # nothing known about that year's flood
                continue
            add(y, -np.inf, math.log10(lo), "below_threshold")
    return (np.array(ql), np.array(qu), np.array(tl), np.array(tu), np.array(kind), np.array(yr), q, yrs,
            sorted(gaps))


def _groups(tl: np.ndarray, tu: np.ndarray) -> list[tuple[float, float, float]]:
    counts: dict[tuple[float, float], int] = {}
    for a, b in zip(tl.tolist(), tu.tolist()):
        counts[(a, b)] = counts.get((a, b), 0) + 1
    return [(float(c), a, b) for (a, b), c in sorted(counts.items())]


def _pattern_json(groups) -> list[dict[str, Any]]:
    return [{"years": int(n), "lower_log10": (None if lo == -np.inf else lo),
             "upper_log10": (None if hi == np.inf else hi)} for n, lo, hi in groups]


def _pattern_from_json(rows) -> list[tuple[float, float, float]]:
    return [(float(r["years"]), -np.inf if r["lower_log10"] is None else float(r["lower_log10"]),
             np.inf if r.get("upper_log10") is None else float(r["upper_log10"])) for r in rows]


# --------------------------------------------------------------------------------------------
# Low outliers, recoded as PeakFQ recodes them
# --------------------------------------------------------------------------------------------

def _grubbs_beck_single(x: np.ndarray) -> float:
    """Bulletin 17B's single Grubbs-Beck critical log value (Lu's 10 % approximation of K_N)."""
    n = x.size
    k = -0.9043 + 3.345 * math.sqrt(math.log10(n)) - 0.4046 * math.log10(n)
    return float(x.mean() - x.std(ddof=1) * k)


def _low_outliers(ql, qu, tl, kind, test: str, fixed: float | None) -> tuple[np.ndarray, ...]:
    """Recode the low outliers; returns (ql, qu, tl, info)."""
    sysmask = np.isin(kind, ("systematic", "zero"))
    x = np.sort(ql[sysmask])
    nzero = int((x <= -80).sum())
    if x.size:
        # censored years known to lie below every measured peak (zeros included, as PeakFQ compares) count too
        less = np.isin(kind, ("interval", "below_threshold")) & (qu <= x[0])
        x = np.sort(np.concatenate([x, qu[less]]))
    info: dict[str, Any] = {"test": test, "n_low": 0, "n_zero": nzero, "threshold": None, "p_values": None,
                            "omega": None, "critical_log10": None, "sample_size": int(x.size)}
    ns = x.size
    crit = thresh = None
    if fixed is not None:
        info["test"] = "fixed"
        crit = thresh = math.log10(fixed)
    elif test == "none":
        if nzero:
            raise InputError("zero flows need a low-outlier threshold (their logarithm does not exist).",
                             argument="low_outlier_test",
                             recovery="Use low_outlier_test='mgbt' or give low_outlier_threshold.")
    elif ns - nzero <= 5:
        crit = thresh = float(x[nzero])
    elif test == "mgbt" and nzero >= ns // 2:
        info["test"] = "grubbs_beck"   # PeakFQ: over half the record zero, the single Grubbs-Beck test instead
        crit = _grubbs_beck_single(x[nzero:])
        thresh = float(x[x >= crit].min())
    else:
        mg = multiple_grubbs_beck(np.where(x <= -80, 0.0, 10.0**x))
        info.update(p_values=mg["p_values"], omega=mg["omega"])
        k = mg["n_low"]
        if k > 0:
            crit = thresh = float(x[k])
        elif nzero:
            crit, thresh = float(x[nzero]) / 2.0, float(x[nzero])   # PeakFQ's threshold for zeros alone
    if crit is None:
        return ql, qu, tl, info
    low = qu < crit
    ql = np.where(low, _LOW_LOG, ql)
    qu = np.where(low, thresh, qu)
    tl = np.maximum(tl, crit)
    info.update(n_low=int(low.sum()), threshold=float(10.0**thresh), critical_log10=float(crit))
    return ql, qu, tl, info


# --------------------------------------------------------------------------------------------
# The fit
# --------------------------------------------------------------------------------------------

SkewOption = Literal["weighted", "station", "regional"]
SkewWeighting = Literal["HWN", "INV", "ERL"]


def _fail(payload, reason, params, srcs):
    payload.update(ok=False, parameters=None, reason=reason)
    return finish(payload, "lp3_ema", params, srcs)


def fit_lp3_ema(
    peaks: Any,
    *,
    years: Sequence[int] | None = None,
    historical_peaks: Mapping[int, float] | Sequence[tuple[int, float]] | None = None,
    perception_thresholds: Sequence[Mapping[str, float]] | None = None,
    interval_peaks: Mapping[int, tuple[float, float]] | None = None,
    regional_skew: float | None = None,
    regional_skew_mse: float | None = None,
    skew_option: SkewOption = "weighted",
    skew_weighting: SkewWeighting = "HWN",
    low_outlier_test: Literal["mgbt", "none"] = "mgbt",
    low_outlier_threshold: float | None = None,
    unit: str | None = None,
) -> dict[str, Any]:
    """Log-Pearson III by Bulletin 17C's expected moments algorithm, as PeakFQ 8.1.0 fits it.

    Parameters
    ----------
    peaks : sequence of float
        The systematic annual peaks (>= 0; zero for a year without flow), one per water year.
    years : sequence of int, optional
        Water year of each systematic peak; needed with historical information.
    historical_peaks : mapping or sequence of (year, peak), optional
        Floods known from outside the systematic record.
    perception_thresholds : sequence of dict, optional
        ``{"start", "end", "lower"[, "upper"]}``: in water years start..end a flood between ``lower``
        and ``upper`` (default infinite) would have been recorded; applied in order, a later period
        replacing an earlier one in the years they share (as PeakFQ's PCPT_Thresh lines). Years in such a period with no
        recorded flood count as below ``lower`` (censored); a lower threshold of 0 marks an unknown
        year (a gap).
    interval_peaks : mapping {year: (lower, upper)}, optional
        Years whose peak is only known to lie in a range (a "less than" peak is (0, value), a "greater
        than" one (value, None)); a systematic year listed here uses the range instead of its value.
    regional_skew, regional_skew_mse : float, optional
        Regional (generalised) skew and its mean square error (the square of its standard error).
    skew_option : {"weighted", "station", "regional"}
        Weight the at-site skew with the regional one (B17C), the at-site skew alone, or the regional one.
    skew_weighting : {"HWN", "INV", "ERL"}
        How many years the regional skew counts for (:mod:`aquascope_core.methods.b17c_weights`): PeakFQ
        8.1.0's default HWN, the older inverse-MSE weighting INV (PeakFQ 7.4 and Bulletin 17C as written),
        or ERL.
    low_outlier_test : {"mgbt", "none"}
        The multiple Grubbs-Beck test for potentially influential low floods, or none.
    low_outlier_threshold : float, optional
        A low-outlier threshold set by the analyst (overrides the test).
    unit : str, optional

    Returns
    -------
    dict
        A fit (``method="lp3_ema"``, ``ok``, ``parameters`` {mean_log, sd_log, skew_log, log_base}) with
        ``at_site`` {mean_log, sd_log, skew_log}, ``at_site_skew``, ``skew_mse_at_site`` (the MSE that
        weighted the skew), ``skew_mse_rule`` (B17B or ADJE), ``skew_mse_b17b``, ``skew_weighting``,
        ``skew_weight_factor`` (W), ``regional_skew_years``, ``weighted_skew_mse``, ``low_outliers``
        {test, n_low, n_zero, threshold, p_values, omega, critical_log10}, ``n_systematic``,
        ``n_historical_peaks``, ``n_interval_peaks``, ``n_censored_years``, ``record_years``, ``gaps``,
        ``censoring_pattern``, ``iterations``, ``reason`` when not ok, ``meta``.
    """
    params = resolved_parameters(fit_lp3_ema, (peaks,), dict(
        years=years, historical_peaks=historical_peaks, perception_thresholds=perception_thresholds,
        interval_peaks=interval_peaks, regional_skew=regional_skew, regional_skew_mse=regional_skew_mse,
        skew_option=skew_option, skew_weighting=skew_weighting, low_outlier_test=low_outlier_test,
        low_outlier_threshold=low_outlier_threshold, unit=unit))
    if skew_option not in ("weighted", "station", "regional"):
        raise InputError.bad_value("skew_option", skew_option, "weighted, station or regional")
    if skew_weighting not in bw.WEIGHTINGS:
        raise InputError.bad_value("skew_weighting", skew_weighting, "HWN (PeakFQ 8.1.0), INV (inverse MSE) or ERL")
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
    if low_outlier_threshold is not None:
        if not (math.isfinite(float(low_outlier_threshold)) and float(low_outlier_threshold) > 0):
            raise InputError.bad_value("low_outlier_threshold", low_outlier_threshold, "a flow > 0")

    ql, qu, tl, tu, kind, _yr, q, _yrs, gaps = _build_record(peaks, years, historical_peaks, perception_thresholds,
                                                             interval_peaks)
    systematic = q[q > 0]
    n_zero = int((kind == "zero").sum())
    if systematic.size < 10:
        raise InsufficientDataError(f"{systematic.size} non-zero systematic peaks; EMA needs at least 10.",
                                    argument="peaks")
    if np.all(systematic == systematic[0]):
        raise InsufficientDataError("all systematic peaks are equal.", argument="peaks")
    ql, qu, tl, lo_info = _low_outliers(ql, qu, tl, kind, low_outlier_test,
                                        None if low_outlier_threshold is None else float(low_outlier_threshold))
    exact = ql == qu
    if exact.sum() < 3:
        raise InsufficientDataError("fewer than 3 floods are left above the low-outlier threshold.", argument="peaks")

    groups = _groups(tl, tu)
    n_total = int(ql.size)
    payload: dict[str, Any] = {
        "method": "lp3_ema",
        "distribution": "lp3",
        "distribution_label": lm.DIST_LABELS["lp3"],
        "estimator": "expected moments algorithm (Bulletin 17C, as PeakFQ 8.1.0)",
        "unit": unit,
        "n": int(q.size),
        "n_systematic": int(q.size),
        "n_zero": n_zero,
        "n_historical_peaks": int((kind == "historical").sum()),
        "n_interval_peaks": int((kind == "interval").sum()),
        "n_censored_years": int((~exact).sum()),
        "record_years": n_total,
        "gaps": gaps,
        "skew_option": skew_option,
        "skew_weighting": skew_weighting,
        "regional_skew": None if regional_skew is None else float(regional_skew),
        "regional_skew_mse": None if regional_skew_mse is None else float(regional_skew_mse),
        "low_outliers": lo_info,
        "censoring_pattern": _pattern_json(groups),
        "warnings": [],
    }
    srcs = [source("Bulletin 17C expected moments algorithm", citation=BULLETIN_17C),
            source("EMA", citation=_COHN_1997), source("PeakFQ", citation=_PEAKFQ)]

    m_site, it1, ok1 = ema_moments(ql, qu)
    if not ok1:
        return _fail(payload, f"the at-site EMA iteration did not converge ({it1} iterations)", params, srcs)
    rule = "B17B" if lo_info["test"] == "mgbt" and lo_info["n_low"] > 0 else "ADJE"
    mse_b17b = b17b_skew_mse(n_total, m_site[2])
    mse_site = mse_b17b if rule == "B17B" else bv.skew_mse(groups, m_site, "ADJE")
    payload.update(at_site={"mean_log": float(m_site[0]), "sd_log": float(math.sqrt(m_site[1])),
                            "skew_log": float(m_site[2])},
                   at_site_skew=float(m_site[2]), skew_mse_at_site=float(mse_site), skew_mse_rule=rule,
                   skew_mse_b17b=float(mse_b17b))

    if skew_option == "station":
        m, iters, ok = m_site, it1, True
    elif skew_option == "regional":
        m, iters, ok = ema_moments(ql, qu, regional_skew=float(regional_skew), fixed_skew=True)
    else:
        r_mse = float(regional_skew_mse)
        W = bw.skew_weight(skew_weighting, m_site, groups, n_total, mse_b17b)
        n_g = n_total * W * mse_site / r_mse
        m, iters, ok = ema_moments(ql, qu, regional_skew=float(regional_skew), n_g=n_g)
        w_site = r_mse / (mse_site + r_mse)
        payload.update(skew_weight_factor=float(W), regional_skew_years=float(n_g),
                       weighted_skew_mse=float(w_site * mse_site))
    if not ok:
        return _fail(payload, f"the EMA iteration did not converge ({iters} iterations)", params, srcs)
    if m[2] <= SKEW_FLOOR + 1e-12:
        payload["warnings"].append("the skew reached Bulletin 17C's floor of -1.41")
    payload.update(
        ok=True,
        parameters={"mean_log": float(m[0]), "sd_log": float(math.sqrt(m[1])), "skew_log": float(m[2]),
                    "log_base": 10.0},
        iterations=int(iters),
    )
    return finish(payload, "lp3_ema", params, srcs)


# --------------------------------------------------------------------------------------------
# Confidence limits and PeakFQ's table
# --------------------------------------------------------------------------------------------

def _moments(fit: Mapping[str, Any]) -> tuple[float, float, float]:
    p = fit["parameters"]
    return p["mean_log"], p["sd_log"] ** 2, p["skew_log"]


def _limits(fit: Mapping[str, Any], F: np.ndarray, confidence: float) -> dict[str, np.ndarray]:
    m = _moments(fit)
    groups = _pattern_from_json(fit["censoring_pattern"])
    option = fit.get("skew_option")
    r_mse = None if option == "station" else (fit.get("regional_skew_mse") or 0.0)
    # a regional skew used alone still carries its MSE into the limits, as PeakFQ carries it
    return bv.quantile_limits(groups, m, F, confidence=confidence, regional_skew_mse=r_mse,
                              rule=fit.get("skew_mse_rule") or "ADJE", fixed_skew=option == "regional")


def _check_fit(fit) -> None:
    if not isinstance(fit, Mapping) or fit.get("method") != "lp3_ema":
        raise InputError.bad_value("fit", fit.get("method") if isinstance(fit, Mapping) else fit,
                                   "a fit made by fit_lp3_ema")


def ema_confidence_band(fit: Mapping[str, Any], return_periods: Any, *, confidence: float = 0.90) -> dict[str, Any]:
    """Confidence limits of the T-year floods of an EMA fit, as PeakFQ computes them.

    The covariance of (M, S2, G) under the record's censoring (Cohn et al. 2001), the skew's share
    replaced by the weighted or regional skew's, is carried through Cohn's two-level quadrature to the
    covariance of the log quantile and its standard error; the limits are ``y + s t/(1 - b t)`` and
    ``y - s t/(1 + b t)``, t Student's with ``nu = Var(y)/(2 Var(s | y))`` (at least 5) degrees of
    freedom (:mod:`aquascope_core.methods.b17c_variance`).

    Returns
    -------
    dict
        ``method="ema_confidence_band"``, ``ok``, ``return_periods``, ``return_levels``, ``lower``,
        ``upper``, ``se_log10``, ``degrees_of_freedom`` (aligned with return_periods), ``confidence``,
        ``meta``.
    """
    params = resolved_parameters(ema_confidence_band, (fit, return_periods), {"confidence": confidence})
    from aquascope_core.methods.flood_frequency import _periods

    T = _periods(return_periods)
    if not (0.0 < float(confidence) < 1.0):
        raise InputError.bad_value("confidence", confidence, "a probability strictly between 0 and 1, e.g. 0.95")
    _check_fit(fit)
    base = {"method": "ema_confidence_band", "fit_method": "lp3_ema", "return_periods": T.tolist(),
            "confidence": float(confidence)}
    if not fit.get("ok"):
        none = [None] * T.size
        return finish({**base, "ok": False, "reason": "the fit is not ok", "return_levels": none, "lower": none,
                       "upper": none, "se_log10": none}, "ema_confidence_band", params)
    out = _limits(fit, 1.0 - 1.0 / T, float(confidence))
    payload = {**base, "ok": True, "return_levels": (10.0 ** out["quantile"]).tolist(),
               "lower": (10.0 ** out["lower"]).tolist(), "upper": (10.0 ** out["upper"]).tolist(),
               "se_log10": np.sqrt(out["variance"]).tolist(),
               "degrees_of_freedom": np.asarray(out["degrees_of_freedom"]).tolist()}
    return finish(payload, "ema_confidence_band", params, [source("EMA confidence intervals", citation=_COHN_2001),
                                                           source("PeakFQ", citation=_PEAKFQ)])


def peakfq_quantile_table(fit: Mapping[str, Any], *, confidence: float = 0.90,
                          aeps: Sequence[float] = PEAKFQ_AEPS) -> dict[str, Any]:
    """PeakFQ's frequency table: the EMA estimate and its limits at each annual exceedance probability.

    At PeakFQ's own probabilities the limits are computed on PeakFQ 8.1.0's 25-point grid and passed through its
    monotonicity rule (limits never narrow moving away from the median, taken over that grid in order); at other
    probabilities directly.

    Returns ``{"method": "peakfq_quantile_table", "ok", "confidence", "unit", "rows": [{aep, return_period,
    estimate, lower, upper, variance_log10}], "meta"}``, rows in PeakFQ's order (most frequent first).
    """
    params = resolved_parameters(peakfq_quantile_table, (fit,), {"confidence": confidence, "aeps": list(aeps)})
    _check_fit(fit)
    if not (0.0 < float(confidence) < 1.0):
        raise InputError.bad_value("confidence", confidence, "a probability strictly between 0 and 1, e.g. 0.90")
    a = np.array([float(x) for x in aeps])
    if a.size == 0 or np.any((a <= 0) | (a >= 1)):
        raise InputError.bad_value("aeps", list(aeps), "annual exceedance probabilities strictly between 0 and 1")
    srcs = [source("EMA confidence intervals", citation=_COHN_2001), source("PeakFQ", citation=_PEAKFQ)]
    if not fit.get("ok"):
        return finish({"method": "peakfq_quantile_table", "ok": False, "reason": "the fit is not ok", "rows": []},
                      "peakfq_quantile_table", params, srcs)
    grid = np.array(PEAKFQ_GRID)
    on_grid = [int(np.argmin(np.abs(grid - (1.0 - x)))) for x in a]
    if all(abs(grid[i] - (1.0 - x)) < 6e-4 for i, x in zip(on_grid, a)):
        # PeakFQ's grid, with its pass that keeps the limits monotone away from the median
        full = _limits(fit, grid, float(confidence))
        lo, hi = full["lower"].copy(), full["upper"].copy()
        nq = grid.size
        for i in range((nq - 1) // 2 - 1, -1, -1):
            lo[i], hi[i] = min(lo[i], lo[i + 1]), min(hi[i], hi[i + 1])
        for i in range((nq + 3) // 2 - 1, nq):
            lo[i], hi[i] = max(lo[i], lo[i - 1]), max(hi[i], hi[i - 1])
        idx = np.array(on_grid)
        out = {"quantile": p3.quantile(1.0 - a, _moments(fit)), "lower": lo[idx], "upper": hi[idx],
               "variance": full["variance"][idx]}
    else:
        out = _limits(fit, 1.0 - a, float(confidence))
    rows = [{"aep": float(x), "return_period": float(1.0 / x), "estimate": float(10.0**y), "lower": float(10.0**lo),
             "upper": float(10.0**hi), "variance_log10": float(v)}
            for x, y, lo, hi, v in zip(a, out["quantile"], out["lower"], out["upper"], out["variance"])]
    return finish({"method": "peakfq_quantile_table", "ok": True, "confidence": float(confidence),
                   "unit": fit.get("unit"), "rows": rows}, "peakfq_quantile_table", params, srcs)


def peakfq_statistics(fit: Mapping[str, Any]) -> dict[str, Any]:
    """The EMA statistics PeakFQ prints: at-site and final moments, skews with their MSEs, the low-outlier test."""
    _check_fit(fit)
    lo = fit.get("low_outliers") or {}
    p = fit.get("parameters") or {}
    site = fit.get("at_site") or {}
    return {
        "mean_log": p.get("mean_log"), "sd_log": p.get("sd_log"), "skew_log": p.get("skew_log"),
        "at_site_mean_log": site.get("mean_log"), "at_site_sd_log": site.get("sd_log"),
        "at_site_skew": fit.get("at_site_skew"), "at_site_skew_mse": fit.get("skew_mse_at_site"),
        "at_site_skew_mse_rule": fit.get("skew_mse_rule"),
        "regional_skew": fit.get("regional_skew"), "regional_skew_mse": fit.get("regional_skew_mse"),
        "weighted_skew_mse": fit.get("weighted_skew_mse"), "skew_option": fit.get("skew_option"),
        "skew_weighting": fit.get("skew_weighting"), "skew_weight_factor": fit.get("skew_weight_factor"),
        "low_outlier_test": lo.get("test"), "n_low_outliers": lo.get("n_low"), "n_zero": lo.get("n_zero"),
        "low_outlier_threshold": lo.get("threshold"), "record_years": fit.get("record_years"),
        "n_systematic": fit.get("n_systematic"), "n_historical_peaks": fit.get("n_historical_peaks"),
        "n_censored_years": fit.get("n_censored_years"),
    }
