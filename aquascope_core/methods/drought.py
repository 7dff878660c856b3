"""Standardised drought indices (SPI, SPEI, SGI, SSI), drought events, classes and propagation.

Inputs are pandas Series indexed by dates, monthly (one value per calendar month, labelled at the
start, the end or inside the month) or daily (aggregated per calendar month: summed for
precipitation and PET, averaged for discharge and groundwater head); see
:mod:`aquascope_core.methods._monthly`. A missing month stays missing, and so does every
accumulation window that contains it.

Every index is standardised per calendar month: January values are compared with Januaries only.
Its record length is the number of values per calendar month in the fitting period
(``record_years``, the smallest over the twelve months). With fewer than ``MIN_YEARS`` (10) an index
is not computed (:class:`InsufficientDataError`); below ``DEFENSIBLE_YEARS`` (30, the length the WMO
SPI guide asks for) it is computed with ``status: "marginal"`` and the reason.

Results carry ``dates`` (``YYYY-MM``) and ``values``; :func:`index_series` turns a result back into
a Series for :func:`drought_events`, :func:`drought_classes` and :func:`drought_propagation`.
"""

from __future__ import annotations

import logging
import math
from typing import Any, Literal, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import special, stats

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods._monthly import to_monthly
from aquascope_core.result import finish, resolved_parameters, source

__all__ = [
    "standardized_precipitation_index",
    "standardized_precipitation_evapotranspiration_index",
    "standardized_groundwater_index",
    "standardized_streamflow_index",
    "drought_events",
    "drought_classes",
    "drought_propagation",
    "index_series",
    "mckee_class",
    "MCKEE_CLASSES",
]

log = logging.getLogger(__name__)

MIN_YEARS = 10
DEFENSIBLE_YEARS = 30
MIN_NONZERO = 10  # a gamma fit needs this many non-zero totals in the calendar month
MIN_PAIRS = 120  # propagation: months of overlap for a correlation to be quoted
UNIT = "dimensionless"

_CITE_SPI = ("McKee, T.B., Doesken, N.J. & Kleist, J. (1993) The relationship of drought frequency and duration "
             "to time scales. 8th Conf. Applied Climatology, AMS, 179-184; Edwards, D.C. & McKee, T.B. (1997) "
             "Characteristics of 20th century drought in the United States at multiple time scales. Colorado "
             "State Univ. Climatology Report 97-2; WMO (2012) Standardized Precipitation Index User Guide, WMO-No. 1090")
_CITE_THOM = "Thom, H.C.S. (1958) A note on the gamma distribution. Monthly Weather Review 86(4), 117-122"
_CITE_SPEI = ("Vicente-Serrano, S.M., Begueria, S. & Lopez-Moreno, J.I. (2010) A multiscalar drought index "
              "sensitive to global warming: the Standardized Precipitation Evapotranspiration Index. J. Climate "
              "23, 1696-1718; Begueria, S., Vicente-Serrano, S.M., Reig, F. & Latorre, B. (2014) Standardized "
              "precipitation evapotranspiration index (SPEI) revisited. Int. J. Climatol. 34, 3001-3023")
_CITE_GLO = "Hosking, J.R.M. & Wallis, J.R. (1997) Regional Frequency Analysis, Cambridge Univ. Press, appendix A.7"
_CITE_SGI = ("Bloomfield, J.P. & Marchant, B.P. (2013) Analysis of groundwater drought building on the "
             "standardised precipitation index approach. Hydrol. Earth Syst. Sci. 17, 4769-4787")
_CITE_SSI = ("Farahmand, A. & AghaKouchak, A. (2015) A generalized framework for deriving nonparametric "
             "standardized drought indicators. Adv. Water Resour. 76, 140-145; Vicente-Serrano, S.M. et al. (2012) "
             "Accurate computation of a streamflow drought index. J. Hydrol. Eng. 17(2), 318-332")
_CITE_RUNS = ("Yevjevich, V. (1967) An objective approach to definitions and investigations of continental "
              "hydrologic droughts. Hydrology Papers 23, Colorado State Univ.")
_CITE_PROP = ("Barker, L.J., Hannaford, J., Chiverton, A. & Svensson, C. (2016) From meteorological to "
              "hydrological drought using standardised indicators. Hydrol. Earth Syst. Sci. 20, 2483-2505; "
              + _CITE_SGI)

# The SPI classes of the WMO SPI User Guide (2012), after McKee et al. (1993): -0.99 to 0.99 is near normal;
# drought starts at -1.0 (moderate), the wet side mirrors it. (McKee's "mild drought", 0 to -0.99, is not a class
# of the guide: a value there is near normal.)
MCKEE_CLASSES: tuple[tuple[str, float, float], ...] = (
    ("extremely wet", 2.0, math.inf),
    ("very wet", 1.5, 2.0),
    ("moderately wet", 1.0, 1.5),
    ("near normal", -1.0, 1.0),
    ("moderate drought", -1.5, -1.0),
    ("severe drought", -2.0, -1.5),
    ("extreme drought", -math.inf, -2.0),
)

PlottingPosition = Literal["hazen", "gringorten", "weibull"]
_PP_A = {"hazen": 0.5, "gringorten": 0.44, "weibull": 0.0}


# --------------------------------------------------------------------------------------------
# shared pieces


def mckee_class(value: float | None) -> str | None:
    """The WMO (2012) SPI class of one index value (``None`` for a missing value).

    Near normal (-1, 1); drought side: moderate (-1.5, -1], severe (-2, -1.5], extreme (-inf, -2];
    wet side: moderately wet [1, 1.5), very wet [1.5, 2), extremely wet [2, inf). A value on a boundary
    falls in the class away from normal (-1.0 is moderate drought, as the guide's "-1.0 to -1.49").
    """
    if value is None or not np.isfinite(value):
        return None
    for name, lo, hi in MCKEE_CLASSES:
        if hi <= 0.0:
            if lo < value <= hi:
                return name
        elif lo < 0.0 < hi:
            if lo < value < hi:
                return name
        elif lo <= value < hi:
            return name
    return None  # unreachable for finite values


def _accumulate(x: np.ndarray, scale: int, how: Literal["sum", "mean"] = "sum") -> np.ndarray:
    """Moving total (or mean) over ``scale`` months ending at each month; NaN if any month in it is."""
    out = np.full(x.size, np.nan)
    if x.size >= scale:
        win = np.lib.stride_tricks.sliding_window_view(x, scale)
        agg = win.sum(axis=1) if how == "sum" else win.mean(axis=1)
        out[scale - 1:] = agg
    return out


def _check_scale(scale_months: int) -> int:
    if isinstance(scale_months, bool) or not isinstance(scale_months, (int, np.integer)) or not 1 <= scale_months <= 48:
        raise InputError.bad_value("scale_months", scale_months, "an integer from 1 to 48 (usually 1, 3, 6, 12 or 24)")
    return int(scale_months)


def _check_clip(clip: float | None) -> float | None:
    if clip is None:
        return None
    if isinstance(clip, bool) or not isinstance(clip, (int, float)) or not clip > 0 or not math.isfinite(clip):
        raise InputError.bad_value("clip", clip, "a positive number (3.09 clips at the 0.1 % tails) or None")
    return float(clip)


def _calibration_mask(months: pd.PeriodIndex, calibration_years: tuple[int, int] | None) -> np.ndarray:
    if calibration_years is None:
        return np.ones(months.size, dtype=bool)
    try:
        y0, y1 = (int(v) for v in calibration_years)
    except (TypeError, ValueError):
        raise InputError.bad_value("calibration_years", calibration_years, "a pair (first_year, last_year) or None") from None
    if y1 < y0:
        raise InputError.bad_value("calibration_years", calibration_years, "first_year <= last_year")
    years = months.year.to_numpy()
    mask = (years >= y0) & (years <= y1)
    if not mask.any():
        raise InputError.bad_value("calibration_years", calibration_years,
                                   f"years inside the record {months[0].year}-{months[-1].year}")
    return mask


def _record_years(acc: np.ndarray, cal: np.ndarray, month_of: np.ndarray, argument: str) -> tuple[int, dict[str, int]]:
    finite = acc[np.isfinite(acc)]
    if finite.size and np.all(finite == finite[0]):
        raise InsufficientDataError(f"{argument}: every value is {finite[0]:g}; a constant record has no drought index",
                                    argument=argument)
    by_month = {str(m): int(np.sum(np.isfinite(acc) & cal & (month_of == m))) for m in range(1, 13)}
    least = min(by_month.values())
    if least < MIN_YEARS:
        short = [m for m, n in by_month.items() if n < MIN_YEARS]
        raise InsufficientDataError(
            f"{argument}: only {least} value(s) for calendar month(s) {', '.join(short)} in the fitting period; "
            f"a standardised index needs at least {MIN_YEARS} per calendar month (defensible from {DEFENSIBLE_YEARS}).",
            argument=argument, value=least)
    return least, by_month


def _status(record_years: int) -> tuple[str, str]:
    if record_years >= DEFENSIBLE_YEARS:
        return "defensible", f"{record_years} values per calendar month (at least {DEFENSIBLE_YEARS} wanted)"
    return "marginal", (f"only {record_years} values per calendar month: tails beyond about +/-"
                        f"{stats.norm.ppf(1 - 1 / (record_years + 1)):.1f} are extrapolated; "
                        f"{DEFENSIBLE_YEARS} years are wanted for a standardised index")


def _finish_clip(z: np.ndarray, clip: float | None) -> tuple[np.ndarray, int]:
    if clip is None:
        return z, 0
    n = int(np.sum(np.isfinite(z) & (np.abs(z) > clip)) + np.sum(np.isinf(z)))
    return np.clip(z, -clip, clip), n


def _latest(months: pd.PeriodIndex, z: np.ndarray) -> dict[str, Any] | None:
    ok = np.flatnonzero(np.isfinite(z))
    if ok.size == 0:
        return None
    i = ok[-1]
    return {"date": str(months[i]), "value": float(z[i]), "class": mckee_class(float(z[i]))}


def _series_payload(months: pd.PeriodIndex, z: np.ndarray) -> dict[str, Any]:
    return {
        "dates": [str(m) for m in months],
        "values": [float(v) if np.isfinite(v) else None for v in z],
        "n_months": int(z.size),
        "n_values": int(np.isfinite(z).sum()),
        "latest": _latest(months, z),
    }


def index_series(result: Mapping[str, Any] | pd.Series) -> pd.Series:
    """A standardised-index result (``dates``, ``values``) as a monthly Series (``PeriodIndex``).

    A Series is returned as a monthly copy (its index mapped to calendar months).
    """
    if isinstance(result, pd.Series):
        s, _ = to_monthly(result, "index", "mean", allow_negative=True)
        return s
    if not isinstance(result, Mapping) or "dates" not in result or "values" not in result:
        raise InputError.bad_value("index", type(result).__name__,
                                   "a Series or a standardised-index result with 'dates' and 'values'")
    values = np.array([np.nan if v is None else float(v) for v in result["values"]], dtype=float)
    months = pd.PeriodIndex(list(result["dates"]), freq="M")
    if months.size != values.size:
        raise InputError.bad_value("index", f"{months.size} dates, {values.size} values", "as many dates as values")
    return pd.Series(values, index=months)


# --------------------------------------------------------------------------------------------
# SPI: gamma with a point mass at zero


def _gamma_fit(x: np.ndarray, fit: Literal["mle", "thom"]) -> dict[str, Any]:
    """Two-parameter gamma fitted to the positive values of ``x``; the share of zeros kept apart."""
    n = x.size
    pos = x[x > 0]
    row: dict[str, Any] = {"n": int(n), "n_nonzero": int(pos.size), "p_zero": float(1 - pos.size / n) if n else None,
                           "shape": None, "scale": None, "ok": False, "reason": None}
    if pos.size < MIN_NONZERO:
        row["reason"] = f"{pos.size} non-zero totals; the gamma fit needs at least {MIN_NONZERO}"
        return row
    mean = float(pos.mean())
    a_stat = math.log(mean) - float(np.mean(np.log(pos)))
    if not a_stat > 1e-12:
        row["reason"] = "all non-zero totals are equal; no gamma distribution can be fitted"
        return row
    shape = (1.0 + math.sqrt(1.0 + 4.0 * a_stat / 3.0)) / (4.0 * a_stat)  # Thom (1958)
    if fit == "mle":
        # Solve log(a) - digamma(a) = A for the shape (the ML equation), Newton on log(a).
        converged = False
        for _ in range(100):
            g = math.log(shape) - special.digamma(shape) - a_stat
            dg = 1.0 - shape * special.polygamma(1, shape)  # d g / d log(a), always < 0
            step = g / dg
            shape = shape * math.exp(-step)
            if abs(step) < 1e-10:
                converged = True
                break
        if not converged or not math.isfinite(shape):
            row["reason"] = "the likelihood equation for the gamma shape did not converge"
            return row
    row.update(shape=float(shape), scale=float(mean / shape), ok=True)
    return row


def standardized_precipitation_index(
    precipitation: pd.Series,
    scale_months: int = 3,
    *,
    fit: Literal["mle", "thom"] = "mle",
    calibration_years: tuple[int, int] | None = None,
    clip: float | None = 3.09,
) -> dict[str, Any]:
    """Standardized Precipitation Index (SPI) at a time scale of ``scale_months``.

    Parameters
    ----------
    precipitation : Series of precipitation (mm), monthly totals or daily values (summed per month).
    scale_months : the accumulation period (1, 3, 6, 12, 24 are usual; 1..48 accepted).
    fit : ``"mle"`` solves the gamma likelihood equation exactly; ``"thom"`` uses Thom's (1958)
        approximation to it, as McKee et al. (1993) and the climate-indices package do.
    calibration_years : (first, last) year of the fitting period; the whole record when None.
    clip : values beyond +/- clip are set to +/- clip (3.09 = the 0.1 % tails); None keeps them.

    Returns
    -------
    dict with ``dates``, ``values`` (``unit`` dimensionless), ``parameters_by_month`` (shape, scale,
    p_zero, n), ``record_years``, ``status``, ``reason``, ``latest`` and the McKee class of it.

    Notes
    -----
    For each calendar month the n-month totals ending in it are split into zeros (share q) and
    positive totals, which get a two-parameter gamma G fitted by maximum likelihood. The cumulative
    probability H(x) = q + (1 - q) G(x) (H(0) = q) is mapped to the standard normal:
    SPI = Phi^-1(H(x)). A month with fewer than 10 non-zero totals is not fitted (ok False).
    """
    params = resolved_parameters(standardized_precipitation_index, (precipitation, scale_months),
                                 {"fit": fit, "calibration_years": calibration_years, "clip": clip})
    scale = _check_scale(scale_months)
    if fit not in ("mle", "thom"):
        raise InputError.bad_value("fit", fit, "'mle' or 'thom'")
    clip = _check_clip(clip)
    monthly, info = to_monthly(precipitation, "precipitation", "sum")
    months = monthly.index
    acc = _accumulate(monthly.to_numpy(), scale)
    cal = _calibration_mask(months, calibration_years)
    month_of = months.month.to_numpy()
    record_years, by_month = _record_years(acc, cal, month_of, "precipitation")

    z = np.full(acc.size, np.nan)
    fits: dict[str, Any] = {}
    failed: list[str] = []
    for m in range(1, 13):
        sel = month_of == m
        sample = acc[sel & cal & np.isfinite(acc)]
        row = _gamma_fit(sample, fit)
        fits[str(m)] = {k: v for k, v in row.items() if k != "ok"}
        if not row["ok"]:
            failed.append(f"month {m}: {row['reason']}")
            continue
        x = acc[sel]
        h = row["p_zero"] + (1 - row["p_zero"]) * stats.gamma.cdf(x, row["shape"], scale=row["scale"])
        z[sel] = np.where(np.isfinite(x), stats.norm.ppf(h), np.nan)
    z, n_clipped = _finish_clip(z, clip)
    status, reason = _status(record_years)
    ok = not failed
    if failed:
        reason = "gamma fit failed for " + "; ".join(failed) + " (those months have no index value)"
        log.warning("SPI-%d: %s", scale, reason)
    payload = {
        "method": "standardized_precipitation_index",
        "ok": ok,
        "index": f"SPI-{scale}",
        "scale_months": scale,
        "distribution": "gamma (2-parameter) with a point mass at zero",
        "fit": fit,
        "unit": UNIT,
        **_series_payload(months, z),
        "record_years": record_years,
        "record_years_by_month": by_month,
        "status": status,
        "reason": reason,
        "calibration_years": list(calibration_years) if calibration_years else [int(months[0].year), int(months[-1].year)],
        "parameters_by_month": fits,
        "clip": clip,
        "n_clipped": n_clipped,
        "input": info,
    }
    srcs = [source("SPI", citation=_CITE_SPI)] + ([source("Thom approximation", citation=_CITE_THOM)] if fit == "thom" else [])
    return finish(payload, "standardized_precipitation_index", params, srcs)


# --------------------------------------------------------------------------------------------
# SPEI: log-logistic (generalised logistic) fitted by probability-weighted moments


def _pwm_betas(x: np.ndarray, pwm: Literal["unbiased", "plotting_position"]) -> tuple[float, float, float]:
    """beta_r = E[x F^r], r = 0, 1, 2, from the ascending sample."""
    xs = np.sort(x)
    n = xs.size
    j = np.arange(1, n + 1, dtype=float)
    if pwm == "unbiased":
        b1 = float(np.sum((j - 1) / (n - 1) * xs) / n)
        b2 = float(np.sum((j - 1) * (j - 2) / ((n - 1) * (n - 2)) * xs) / n)
    else:  # Vicente-Serrano et al. (2010): F_i = (i - 0.35) / n
        f = (j - 0.35) / n
        b1 = float(np.mean(f * xs))
        b2 = float(np.mean(f * f * xs))
    return float(xs.mean()), b1, b2


def _glo_fit(x: np.ndarray, pwm: Literal["unbiased", "plotting_position"]) -> dict[str, Any]:
    """Generalised logistic (Hosking) by the method of L-moments; the log-logistic of Vicente-Serrano
    et al. (2010) is the same distribution written with alpha = a/|k|, beta = 1/|k|, gamma = xi - a/|k|."""
    row: dict[str, Any] = {"n": int(x.size), "xi": None, "alpha": None, "k": None, "ok": False, "reason": None}
    b0, b1, b2 = _pwm_betas(x, pwm)
    l1, l2, l3 = b0, 2 * b1 - b0, 6 * b2 - 6 * b1 + b0
    if not l2 > 1e-12 * max(1.0, abs(l1)):
        row["reason"] = "all values are equal; no distribution can be fitted"
        return row
    t3 = l3 / l2
    k = -t3
    if abs(k) < 1e-8:
        alpha, xi = l2, l1
    else:
        kp = k * math.pi
        alpha = l2 * math.sin(kp) / kp
        xi = l1 - alpha * (1.0 / k - math.pi / math.sin(kp))
    if not (math.isfinite(alpha) and alpha > 0 and math.isfinite(xi) and abs(k) < 1):
        row["reason"] = f"L-moment fit gave unusable parameters (alpha={alpha}, k={k})"
        return row
    row.update(xi=float(xi), alpha=float(alpha), k=float(k), ok=True)
    if k < 0:
        row["log_logistic"] = {"alpha": alpha / -k, "beta": 1.0 / -k, "gamma": xi + alpha / k}
    return row


def _glo_cdf(x: np.ndarray, xi: float, alpha: float, k: float) -> np.ndarray:
    y = (x - xi) / alpha
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if abs(k) >= 1e-8:
            arg = 1.0 - k * y
            inside = arg > 0
            y = np.where(inside, -np.log(np.where(inside, arg, 1.0)) / k, np.where(k > 0, np.inf, -np.inf))
        f = 1.0 / (1.0 + np.exp(-y))
    return np.where(np.isfinite(x), f, np.nan)


def standardized_precipitation_evapotranspiration_index(
    precipitation: pd.Series,
    pet: pd.Series,
    scale_months: int = 3,
    *,
    pwm: Literal["unbiased", "plotting_position"] = "unbiased",
    calibration_years: tuple[int, int] | None = None,
    clip: float | None = 3.09,
) -> dict[str, Any]:
    """Standardized Precipitation Evapotranspiration Index (SPEI) of the water balance P - PET.

    Parameters
    ----------
    precipitation, pet : Series in mm, monthly totals or daily values (summed per month). Months
        where either is missing are missing.
    scale_months : accumulation period of the balance (1..48).
    pwm : ``"unbiased"`` probability-weighted moments (Begueria et al. 2014, the R SPEI default) or
        the plotting-position estimator F = (i - 0.35)/n of Vicente-Serrano et al. (2010).
    calibration_years, clip : as in :func:`standardized_precipitation_index`.

    Notes
    -----
    Per calendar month the accumulated balance D is fitted by the three-parameter log-logistic
    distribution through its probability-weighted moments (Vicente-Serrano et al. 2010). It is
    computed in Hosking's generalised-logistic form (shape k = -tau3), which is the same
    distribution and also covers a negatively skewed D (k > 0), where the log-logistic formulas
    break down. SPEI = Phi^-1(F(D)). Values outside the fitted support get F = 0 or 1 and are
    counted in ``n_outside_support`` (they become +/- clip; with ``clip=None`` they are infinite, which
    the JSON payload can only carry as null).
    """
    params = resolved_parameters(standardized_precipitation_evapotranspiration_index, (precipitation, pet, scale_months),
                                 {"pwm": pwm, "calibration_years": calibration_years, "clip": clip})
    scale = _check_scale(scale_months)
    if pwm not in ("unbiased", "plotting_position"):
        raise InputError.bad_value("pwm", pwm, "'unbiased' or 'plotting_position'")
    clip = _check_clip(clip)
    p_m, p_info = to_monthly(precipitation, "precipitation", "sum")
    e_m, e_info = to_monthly(pet, "pet", "sum")
    full = pd.period_range(min(p_m.index[0], e_m.index[0]), max(p_m.index[-1], e_m.index[-1]), freq="M")
    balance = p_m.reindex(full) - e_m.reindex(full)
    months = balance.index
    acc = _accumulate(balance.to_numpy(), scale)
    cal = _calibration_mask(months, calibration_years)
    month_of = months.month.to_numpy()
    record_years, by_month = _record_years(acc, cal, month_of, "precipitation and pet (overlap)")

    z = np.full(acc.size, np.nan)
    fits: dict[str, Any] = {}
    failed: list[str] = []
    n_outside = 0
    for m in range(1, 13):
        sel = month_of == m
        row = _glo_fit(acc[sel & cal & np.isfinite(acc)], pwm)
        fits[str(m)] = {k: v for k, v in row.items() if k != "ok"}
        if not row["ok"]:
            failed.append(f"month {m}: {row['reason']}")
            continue
        f = _glo_cdf(acc[sel], row["xi"], row["alpha"], row["k"])
        n_outside += int(np.sum((f == 0) | (f == 1)))
        z[sel] = stats.norm.ppf(f)
    z, n_clipped = _finish_clip(z, clip)
    status, reason = _status(record_years)
    if failed:
        reason = "log-logistic fit failed for " + "; ".join(failed)
        log.warning("SPEI-%d: %s", scale, reason)
    payload = {
        "method": "standardized_precipitation_evapotranspiration_index",
        "ok": not failed,
        "index": f"SPEI-{scale}",
        "scale_months": scale,
        "distribution": "log-logistic (3-parameter; generalised logistic form)",
        "fit": f"probability-weighted moments ({pwm})",
        "unit": UNIT,
        **_series_payload(months, z),
        "record_years": record_years,
        "record_years_by_month": by_month,
        "status": status,
        "reason": reason,
        "calibration_years": list(calibration_years) if calibration_years else [int(months[0].year), int(months[-1].year)],
        "parameters_by_month": fits,
        "clip": clip,
        "n_clipped": n_clipped,
        "n_outside_support": n_outside,
        "water_balance_unit": "mm",
        "input": {"precipitation": p_info, "pet": e_info},
    }
    return finish(payload, "standardized_precipitation_evapotranspiration_index", params,
                  [source("SPEI", citation=_CITE_SPEI), source("generalised logistic by L-moments", citation=_CITE_GLO)])


# --------------------------------------------------------------------------------------------
# SGI and SSI: normal scores per calendar month


def _normal_scores(acc: np.ndarray, month_of: np.ndarray, plotting_position: PlottingPosition) -> np.ndarray:
    a = _PP_A[plotting_position]
    z = np.full(acc.size, np.nan)
    for m in range(1, 13):
        sel = np.flatnonzero((month_of == m) & np.isfinite(acc))
        n = sel.size
        if n == 0:
            continue
        r = stats.rankdata(acc[sel], method="average")  # ties share the mean rank
        z[sel] = stats.norm.ppf((r - a) / (n + 1 - 2 * a))
    return z


def _normal_scores_index(series: pd.Series, argument: str, *, method_id: str, index_name: str, scale: int,
                         plotting_position: PlottingPosition, max_missing_days: int, allow_negative: bool,
                         citation: str, params: dict[str, Any]) -> dict[str, Any]:
    if plotting_position not in _PP_A:
        raise InputError.bad_value("plotting_position", plotting_position, "'hazen', 'gringorten' or 'weibull'")
    if isinstance(max_missing_days, bool) or not isinstance(max_missing_days, (int, np.integer)) or not 0 <= max_missing_days <= 27:
        raise InputError.bad_value("max_missing_days", max_missing_days, "an integer from 0 to 27")
    monthly, info = to_monthly(series, argument, "mean", max_missing_days=int(max_missing_days), allow_negative=allow_negative)
    months = monthly.index
    acc = _accumulate(monthly.to_numpy(), scale, "mean")
    month_of = months.month.to_numpy()
    record_years, by_month = _record_years(acc, np.ones(acc.size, dtype=bool), month_of, argument)
    z = _normal_scores(acc, month_of, plotting_position)
    status, reason = _status(record_years)
    a = _PP_A[plotting_position]
    payload = {
        "method": method_id,
        "ok": True,
        "index": f"{index_name}-{scale}" if index_name == "SSI" else index_name,
        "scale_months": scale,
        "distribution": "none (normal scores transform)",
        "plotting_position": f"{plotting_position}: p = (rank - {a:g}) / (n + {1 - 2 * a:g})",
        "unit": UNIT,
        **_series_payload(months, z),
        "record_years": record_years,
        "record_years_by_month": by_month,
        "status": status,
        "reason": reason,
        "extremes": {"lowest_possible": float(stats.norm.ppf((1 - a) / (record_years + 1 - 2 * a)))},
        "input": info,
    }
    return finish(payload, method_id, params, [source(index_name, citation=citation)])


def standardized_groundwater_index(
    head: pd.Series,
    *,
    plotting_position: PlottingPosition = "hazen",
    max_missing_days: int = 0,
) -> dict[str, Any]:
    """Standardised Groundwater level Index (SGI) of Bloomfield & Marchant (2013).

    Parameters
    ----------
    head : groundwater level (m; head above a datum, so larger is wetter), monthly or daily
        (averaged per month). Depth below ground must be negated first.
    plotting_position : the probability given to rank i of n in each calendar month; ``"hazen"``
        (i - 0.5)/n, the choice of the pastas implementation of Bloomfield & Marchant (2013).
    max_missing_days : for daily input, the days a month may lack and still be averaged.

    Notes
    -----
    A non-parametric normal scores transform per calendar month: the n levels of a calendar month
    are ranked (ties share their mean rank) and rank i maps to Phi^-1(p_i). No accumulation: the
    aquifer integrates recharge itself. Adding data changes past values (the ranks move).
    """
    params = resolved_parameters(standardized_groundwater_index, (head,),
                                 {"plotting_position": plotting_position, "max_missing_days": max_missing_days})
    return _normal_scores_index(head, "head", method_id="standardized_groundwater_index", index_name="SGI", scale=1,
                                plotting_position=plotting_position, max_missing_days=max_missing_days,
                                allow_negative=True, citation=_CITE_SGI, params=params)


def standardized_streamflow_index(
    discharge: pd.Series,
    scale_months: int = 1,
    *,
    plotting_position: PlottingPosition = "gringorten",
    max_missing_days: int = 0,
) -> dict[str, Any]:
    """Standardised Streamflow Index (SSI) by the normal scores transform.

    Parameters
    ----------
    discharge : mean flow (any unit), monthly or daily (averaged per month).
    scale_months : the moving-average period of the monthly flows (1..48).
    plotting_position : ``"gringorten"`` (i - 0.44)/(n + 0.12) by default, as in the non-parametric
        standardised indicators of Farahmand & AghaKouchak (2015).
    max_missing_days : for daily input, the days a month may lack and still be averaged.

    Notes
    -----
    The choice: no distribution is fitted. Monthly flows are skewed, often bounded by zero and
    differ in shape between seasons, so one parametric family rarely fits all twelve calendar months
    (Vicente-Serrano et al. 2012 found the best one varies by river and month). The empirical
    (normal scores) transform is exact on the sample and needs no goodness-of-fit gate; its price is
    that no value can be more extreme than the record's own extremes (``extremes.lowest_possible``).
    """
    params = resolved_parameters(standardized_streamflow_index, (discharge, scale_months),
                                 {"plotting_position": plotting_position, "max_missing_days": max_missing_days})
    scale = _check_scale(scale_months)
    return _normal_scores_index(discharge, "discharge", method_id="standardized_streamflow_index", index_name="SSI",
                                scale=scale, plotting_position=plotting_position, max_missing_days=max_missing_days,
                                allow_negative=False, citation=_CITE_SSI, params=params)


# --------------------------------------------------------------------------------------------
# events, classes, propagation


def drought_events(
    index: pd.Series | Mapping[str, Any],
    threshold: float = -1.0,
    *,
    min_duration_months: int = 1,
) -> dict[str, Any]:
    """Drought events of a standardised index by run theory (Yevjevich 1967).

    Parameters
    ----------
    index : a monthly standardised index (a Series, or a result of one of the index functions).
    threshold : an event is a run of consecutive months with the index at or below it (-1 by default,
        the start of McKee's moderate drought).
    min_duration_months : shorter runs are not reported as events.

    Returns
    -------
    dict with ``events`` (each: ``onset``, ``end``, ``duration_months``, ``severity`` = the cumulative
    deficit sum(threshold - index), ``magnitude`` = -sum(index), ``peak_intensity`` (the lowest value)
    and ``peak_date``, ``mean_intensity`` = severity / duration, and whether the run touches a gap or
    the record edge, ``censored``), plus a summary.

    Notes
    -----
    A missing month ends a run: an event is never bridged across a gap. A run that touches a gap or
    the start or end of the record is flagged ``censored`` because its true length is unknown.
    """
    params = resolved_parameters(drought_events, (index, threshold), {"min_duration_months": min_duration_months})
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not math.isfinite(threshold):
        raise InputError.bad_value("threshold", threshold, "a finite number (e.g. -1.0, or 0 for all negative runs)")
    if isinstance(min_duration_months, bool) or not isinstance(min_duration_months, (int, np.integer)) or min_duration_months < 1:
        raise InputError.bad_value("min_duration_months", min_duration_months, "an integer >= 1")
    s = index_series(index)
    months, z = s.index, s.to_numpy()
    if not np.isfinite(z).any():
        raise InsufficientDataError("index holds no value", argument="index")
    below = np.isfinite(z) & (z <= threshold)
    events = []
    i, n = 0, z.size
    while i < n:
        if not below[i]:
            i += 1
            continue
        j = i
        while j + 1 < n and below[j + 1]:
            j += 1
        run = z[i:j + 1]
        dur = j - i + 1
        if dur >= min_duration_months:
            k = i + int(np.argmin(run))
            severity = float(np.sum(threshold - run))
            starts_open = i == 0 or not np.isfinite(z[i - 1])
            ends_open = j == n - 1 or not np.isfinite(z[j + 1])
            events.append({
                "onset": str(months[i]),
                "end": str(months[j]),
                "duration_months": dur,
                "severity": severity,
                "magnitude": float(-np.sum(run)),
                "peak_intensity": float(run.min()),
                "peak_date": str(months[k]),
                "mean_intensity": severity / dur,
                "censored": bool(starts_open or ends_open),
                "ongoing": bool(j == n - 1),
            })
        i = j + 1
    finite = int(np.isfinite(z).sum())
    summary = {
        "n_events": len(events),
        "months_in_drought": int(sum(e["duration_months"] for e in events)),
        "fraction_of_time_in_drought": (sum(e["duration_months"] for e in events) / finite) if finite else None,
        "longest": max(events, key=lambda e: e["duration_months"]) if events else None,
        "most_severe": max(events, key=lambda e: e["severity"]) if events else None,
        "current": events[-1] if events and events[-1]["ongoing"] else None,
    }
    payload = {
        "method": "drought_events",
        "ok": True,
        "threshold": float(threshold),
        "min_duration_months": int(min_duration_months),
        "severity_unit": "index-months (cumulative deficit below the threshold)",
        "unit": UNIT,
        "period": [str(months[0]), str(months[-1])],
        "n_months": int(n),
        "n_missing": int(n - finite),
        "events": events,
        "summary": summary,
    }
    return finish(payload, "drought_events", params, [source("run theory", citation=_CITE_RUNS)])


def drought_classes(index: pd.Series | Mapping[str, Any]) -> dict[str, Any]:
    """The WMO (2012) SPI class of every month of a standardised index, with counts.

    Classes: extreme drought (<= -2), severe (-2, -1.5], moderate (-1.5, -1], near normal (-1, 1), and on
    the wet side moderately wet [1, 1.5), very wet [1.5, 2), extremely wet >= 2.
    """
    params = resolved_parameters(drought_classes, (index,))
    s = index_series(index)
    z = s.to_numpy()
    classes = [mckee_class(float(v)) if np.isfinite(v) else None for v in z]
    finite = int(np.isfinite(z).sum())
    if finite == 0:
        raise InsufficientDataError("index holds no value", argument="index")
    counts = {name: int(sum(c == name for c in classes)) for name, _, _ in MCKEE_CLASSES}
    payload = {
        "method": "drought_classes",
        "ok": True,
        "scheme": "WMO (2012) SPI User Guide, after McKee et al. (1993)",
        "definitions": [{"class": name, "lower": lo, "upper": hi} for name, lo, hi in MCKEE_CLASSES],
        "dates": [str(m) for m in s.index],
        "classes": classes,
        "counts": counts,
        "fractions": {k: v / finite for k, v in counts.items()},
        "latest": _latest(s.index, z),
        "unit": UNIT,
    }
    return finish(payload, "drought_classes", params, [source("McKee classes", citation=_CITE_SPI)])


def drought_propagation(
    precipitation: pd.Series,
    response: pd.Series | Mapping[str, Any],
    *,
    scales: Sequence[int] = tuple(range(1, 25)),
    max_lag_months: int = 6,
    fit: Literal["mle", "thom"] = "mle",
) -> dict[str, Any]:
    """How meteorological drought propagates into a response index (SSI or SGI).

    Parameters
    ----------
    precipitation : the precipitation record (see :func:`standardized_precipitation_index`).
    response : the standardised response index, a monthly Series or a result of
        :func:`standardized_streamflow_index` / :func:`standardized_groundwater_index`.
    scales : the SPI accumulation periods to try (1..24 by default).
    max_lag_months : the response is compared with SPI-n lagged by 0..max_lag months.
    fit : the SPI gamma fit.

    Returns
    -------
    dict with ``correlation`` (rows: scales, columns: lags; Pearson r or None where fewer than
    120 months overlap), ``n_pairs``, and ``best``: the scale and lag of the largest r.

    Notes
    -----
    r(n, L) = corr(SPI-n(t), response(t + L)). The best accumulation period (Barker et al. 2016;
    q_max of Bloomfield & Marchant 2013) measures the catchment's or aquifer's memory. Both series
    are strongly autocorrelated, so r has far fewer effective degrees of freedom than pairs: compare
    r values, do not test them as if the months were independent.
    """
    params = resolved_parameters(drought_propagation, (precipitation, response),
                                 {"scales": scales, "max_lag_months": max_lag_months, "fit": fit})
    try:
        scale_list = [int(s) for s in scales]
    except (TypeError, ValueError):
        raise InputError.bad_value("scales", scales, "a sequence of integers from 1 to 48") from None
    if not scale_list:
        raise InputError.bad_value("scales", scales, "at least one accumulation period")
    for s in scale_list:
        _check_scale(s)
    if isinstance(max_lag_months, bool) or not isinstance(max_lag_months, (int, np.integer)) or not 0 <= max_lag_months <= 36:
        raise InputError.bad_value("max_lag_months", max_lag_months, "an integer from 0 to 36")
    resp = index_series(response)
    corr = np.full((len(scale_list), max_lag_months + 1), np.nan)
    npairs = np.zeros_like(corr, dtype=int)
    spi_status = []
    for a, s in enumerate(scale_list):
        spi = standardized_precipitation_index(precipitation, s, fit=fit, clip=None)
        spi_status.append({"scale_months": s, "ok": spi["ok"], "status": spi["status"], "record_years": spi["record_years"]})
        x = index_series(spi)
        full = pd.period_range(min(x.index[0], resp.index[0]), max(x.index[-1], resp.index[-1]), freq="M")
        xv, yv = x.reindex(full).to_numpy(), resp.reindex(full).to_numpy()
        for lag in range(max_lag_months + 1):
            xa = xv[:xv.size - lag] if lag else xv
            ya = yv[lag:]
            both = np.isfinite(xa) & np.isfinite(ya)
            npairs[a, lag] = int(both.sum())
            if npairs[a, lag] >= MIN_PAIRS:
                corr[a, lag] = float(np.corrcoef(xa[both], ya[both])[0, 1])
    best = None
    if np.isfinite(corr).any():
        a, lag = np.unravel_index(np.nanargmax(corr), corr.shape)
        best = {"scale_months": scale_list[a], "lag_months": int(lag), "r": float(corr[a, lag]), "n_pairs": int(npairs[a, lag])}
    ok = best is not None
    payload = {
        "method": "drought_propagation",
        "ok": ok,
        "reason": None if ok else f"no SPI scale overlaps the response by at least {MIN_PAIRS} months",
        "scales": scale_list,
        "lags": list(range(max_lag_months + 1)),
        "correlation": [[float(v) if np.isfinite(v) else None for v in row] for row in corr],
        "n_pairs": npairs.tolist(),
        "best": best,
        "correlation_type": "pearson",
        "spi": spi_status,
        "status": "marginal" if any(r["status"] == "marginal" for r in spi_status) else "defensible",
        "unit": UNIT,
    }
    return finish(payload, "drought_propagation", params, [source("propagation", citation=_CITE_PROP)])
