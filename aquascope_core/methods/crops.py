"""Crop water demand by the FAO-56 single crop coefficient method.

ETc = Kc x ET0 (FAO-56 Eq. 58) with the Kc curve of four growth stages (initial, development,
mid-season, late season; Eq. 66), effective rainfall by the USDA Soil Conservation Service formula
as used in CROPWAT (or a fixed fraction), and the net and gross irrigation demand by month.

The crop table (``data/fao56_crops.csv``) holds Kc ini, Kc mid, Kc end and the maximum crop height
from FAO-56 Table 12 and one row of stage lengths from Table 11 per crop; the file names the row
and any choice made within a published range.

Reference: Allen, R.G., Pereira, L.S., Raes, D. & Smith, M. (1998) Crop evapotranspiration.
FAO Irrigation and Drainage Paper 56, Rome, chapter 6.
"""

from __future__ import annotations

import functools
import logging
from importlib import resources
from typing import Any, Literal, Sequence

import numpy as np
import pandas as pd

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods._monthly import as_float_array, to_monthly
from aquascope_core.result import finish, resolved_parameters, source

__all__ = [
    "crop_table",
    "crop_coefficient_curve",
    "effective_rainfall",
    "crop_water_demand",
]

log = logging.getLogger(__name__)

_CITE_FAO56 = ("Allen, R.G., Pereira, L.S., Raes, D. & Smith, M. (1998) Crop evapotranspiration: guidelines for "
               "computing crop water requirements. FAO Irrigation and Drainage Paper 56, FAO, Rome")
_CITE_TABLES = _CITE_FAO56 + ", Tables 11 and 12"
_CITE_PEFF = ("USDA Soil Conservation Service method as implemented in CROPWAT: Smith, M. (1992) CROPWAT, a computer "
              "program for irrigation planning and management. FAO Irrigation and Drainage Paper 46, Rome")
# One mm of water per day over a hectare, as a continuous flow: 10 m3 / 86400 s.
MM_PER_DAY_TO_L_PER_S_PER_HA = 10_000 / 86_400

EffectiveRainfall = Literal["usda_scs", "fixed_fraction"]


@functools.lru_cache(maxsize=1)
def _table() -> pd.DataFrame:
    with resources.files("aquascope_core.methods").joinpath("data/fao56_crops.csv").open("r", encoding="utf-8") as fh:
        df = pd.read_csv(fh, comment="#")
    return df.set_index("crop")


def _crop_row(crop: str) -> dict[str, Any]:
    table = _table()
    if not isinstance(crop, str) or crop not in table.index:
        raise InputError.bad_value("crop", crop, "one of " + ", ".join(table.index))
    return {"crop": crop, **table.loc[crop].to_dict()}


def crop_table(crop: str | None = None) -> dict[str, Any]:
    """The FAO-56 crop table (Tables 11 and 12), or one crop's row."""
    params = resolved_parameters(crop_table, (crop,))
    rows = [_crop_row(crop)] if crop is not None else [_crop_row(c) for c in _table().index]
    payload = {"method": "crop_table", "ok": True, "crops": rows,
               "units": {"kc": "dimensionless", "h_max_m": "m", "l_ini": "days", "l_dev": "days", "l_mid": "days", "l_late": "days"},
               "unit": "dimensionless"}
    return finish(payload, "crop_table", params, [source("FAO-56 crop tables", citation=_CITE_TABLES)])


# --------------------------------------------------------------------------------------------
# the Kc curve


def _climate_adjusted(kc: float, u2: float, rh_min: float, height_m: float) -> float:
    """FAO-56 Eq. 62 (Kc mid) and Eq. 65 (Kc end): the Table 12 value adjusted from the standard
    sub-humid climate (RHmin 45 %, u2 2 m/s) to the site's."""
    return kc + (0.04 * (u2 - 2) - 0.004 * (rh_min - 45)) * (height_m / 3) ** 0.3


def _resolve_crop(crop: str, stage_lengths_days: Sequence[int] | None, kc_ini: float | None, kc_mid: float | None,
                  kc_end: float | None, wind_speed_2m: float | None, rh_min: float | None,
                  crop_height_m: float | None) -> dict[str, Any]:
    row = _crop_row(crop)
    if stage_lengths_days is None:
        lengths = [int(row[k]) for k in ("l_ini", "l_dev", "l_mid", "l_late")]
        length_source = f"FAO-56 Table 11: {row['stage_source']}"
    else:
        try:
            lengths = [int(v) for v in stage_lengths_days]
        except (TypeError, ValueError):
            lengths = []
        if len(lengths) != 4 or any(v < 0 for v in lengths) or sum(lengths) < 1 or lengths != list(stage_lengths_days):
            raise InputError.bad_value("stage_lengths_days", stage_lengths_days,
                                       "four whole numbers of days (initial, development, mid-season, late season)")
        length_source = "given"
    kcs = {}
    for name, given in (("kc_ini", kc_ini), ("kc_mid", kc_mid), ("kc_end", kc_end)):
        if given is not None and not (isinstance(given, (int, float)) and 0 < given <= 2):
            raise InputError.bad_value(name, given, "a crop coefficient in (0, 2]")
        kcs[name] = float(given) if given is not None else float(row[name])
    height = float(row["h_max_m"]) if crop_height_m is None else crop_height_m
    adjustment = "none: Table 12 values are for a sub-humid climate (RHmin 45 %, u2 2 m/s)"
    if (wind_speed_2m is None) != (rh_min is None):
        raise InputError.bad_value("wind_speed_2m, rh_min", (wind_speed_2m, rh_min),
                                   "both given (to adjust Kc mid and Kc end to the climate) or both None")
    if wind_speed_2m is not None:
        if not 1 <= wind_speed_2m <= 6:
            raise InputError.bad_value("wind_speed_2m", wind_speed_2m, "a mean wind speed from 1 to 6 m/s (the range of FAO-56 Eq. 62)")
        if not 20 <= rh_min <= 80:
            raise InputError.bad_value("rh_min", rh_min, "a mean minimum relative humidity from 20 to 80 % (the range of FAO-56 Eq. 62)")
        if not 0.1 <= height <= 10:
            raise InputError.bad_value("crop_height_m", height, "a crop height from 0.1 to 10 m")
        kcs["kc_mid"] = _climate_adjusted(kcs["kc_mid"], wind_speed_2m, rh_min, height)
        end_adjusted = kcs["kc_end"] >= 0.45  # a crop left to dry in the field is not adjusted
        if end_adjusted:
            kcs["kc_end"] = _climate_adjusted(kcs["kc_end"], wind_speed_2m, rh_min, height)
        adjustment = ("Kc mid (Eq. 62)" + (" and Kc end (Eq. 65)" if end_adjusted else "")
                      + f" adjusted to u2 = {wind_speed_2m:g} m/s, RHmin = {rh_min:g} %, h = {height:g} m")
    return {"row": row, "lengths": lengths, "length_source": length_source, "adjustment": adjustment, **kcs}


def _kc_by_day(lengths: Sequence[int], kc_ini: float, kc_mid: float, kc_end: float) -> tuple[np.ndarray, list[str]]:
    """Kc for days 1..L of the season (FAO-56 Eq. 66): constant, rising, constant, falling."""
    l_ini, l_dev, l_mid, l_late = lengths
    day = np.arange(1, sum(lengths) + 1, dtype=float)
    kc = np.empty_like(day)
    stage = []
    e1, e2, e3 = l_ini, l_ini + l_dev, l_ini + l_dev + l_mid
    for i, d in enumerate(day):
        if d <= e1:
            kc[i], s = kc_ini, "initial"
        elif d <= e2:
            kc[i], s = kc_ini + (d - e1) / l_dev * (kc_mid - kc_ini), "development"
        elif d <= e3:
            kc[i], s = kc_mid, "mid-season"
        else:
            kc[i], s = kc_mid + (d - e3) / l_late * (kc_end - kc_mid), "late season"
        stage.append(s)
    return kc, stage


def _planting(planting_date: Any) -> pd.Timestamp:
    try:
        ts = pd.Timestamp(planting_date)
    except (TypeError, ValueError):
        raise InputError.bad_value("planting_date", planting_date, "a date such as '2024-04-15'") from None
    if ts is pd.NaT or ts.tz is not None:
        raise InputError.bad_value("planting_date", planting_date, "a time-zone-naive date such as '2024-04-15'")
    return ts.normalize()


def crop_coefficient_curve(
    crop: str,
    planting_date: Any,
    *,
    stage_lengths_days: Sequence[int] | None = None,
    kc_ini: float | None = None,
    kc_mid: float | None = None,
    kc_end: float | None = None,
    wind_speed_2m: float | None = None,
    rh_min: float | None = None,
    crop_height_m: float | None = None,
) -> dict[str, Any]:
    """The daily crop coefficient curve of a crop planted on ``planting_date`` (FAO-56 Eq. 66).

    Parameters
    ----------
    crop : a crop of the FAO-56 table (see :func:`crop_table`).
    planting_date : the first day of the initial stage.
    stage_lengths_days : (initial, development, mid-season, late) in days; Table 11 when None.
    kc_ini, kc_mid, kc_end : override the Table 12 values.
    wind_speed_2m, rh_min : mean daily wind speed at 2 m (m/s) and minimum relative humidity (%)
        during the mid and late season; when both are given Kc mid, and Kc end when at least
        0.45, are adjusted to the climate (Eqs. 62, 65) with the crop height (Table 12, or
        ``crop_height_m``).

    Notes
    -----
    Kc ini from Table 12 is a typical value; FAO-56 (Figs. 29-30) derives it from the wetting
    interval and the soil, which this function does not do.
    """
    params = resolved_parameters(crop_coefficient_curve, (crop, planting_date), {
        "stage_lengths_days": stage_lengths_days, "kc_ini": kc_ini, "kc_mid": kc_mid, "kc_end": kc_end,
        "wind_speed_2m": wind_speed_2m, "rh_min": rh_min, "crop_height_m": crop_height_m})
    spec = _resolve_crop(crop, stage_lengths_days, kc_ini, kc_mid, kc_end, wind_speed_2m, rh_min, crop_height_m)
    start = _planting(planting_date)
    kc, stage = _kc_by_day(spec["lengths"], spec["kc_ini"], spec["kc_mid"], spec["kc_end"])
    days = pd.date_range(start, periods=kc.size, freq="D")
    bounds = np.cumsum([0] + spec["lengths"])
    stages = [{"stage": name, "start": str((start + pd.Timedelta(days=int(bounds[i]))).date()),
               "end": str((start + pd.Timedelta(days=int(bounds[i + 1]) - 1)).date()), "days": spec["lengths"][i]}
              for i, name in enumerate(("initial", "development", "mid-season", "late season"))]
    payload = {
        "method": "crop_coefficient_curve",
        "ok": True,
        "crop": crop,
        "label": spec["row"]["label"],
        "kc_ini": spec["kc_ini"], "kc_mid": spec["kc_mid"], "kc_end": spec["kc_end"],
        "stage_lengths_days": spec["lengths"],
        "stage_length_source": spec["length_source"],
        "climate_adjustment": spec["adjustment"],
        "kc_note": spec["row"]["kc_note"],
        "stages": stages,
        "dates": [str(d.date()) for d in days],
        "kc": kc.tolist(),
        "stage_by_day": stage,
        "unit": "dimensionless",
    }
    return finish(payload, "crop_coefficient_curve", params, [source("FAO-56", citation=_CITE_TABLES + "; Eqs. 62, 65, 66")])


# --------------------------------------------------------------------------------------------
# effective rainfall


def _peff(p: np.ndarray, method: EffectiveRainfall, fraction: float) -> np.ndarray:
    if method == "fixed_fraction":
        return fraction * p
    # monthly totals, mm: P (125 - 0.2 P) / 125 up to 250 mm, 125 + 0.1 P above (continuous at 150 mm)
    return np.where(p <= 250.0, p * (125.0 - 0.2 * p) / 125.0, 125.0 + 0.1 * p)


def _check_peff_options(method: str, fraction: float) -> None:
    if method not in ("usda_scs", "fixed_fraction"):
        raise InputError.bad_value("method", method, "'usda_scs' or 'fixed_fraction'")
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 < fraction <= 1:
        raise InputError.bad_value("fraction", fraction, "a share of the rainfall in (0, 1] (0.7-0.9 are usual)")


def effective_rainfall(
    precipitation: pd.Series,
    *,
    method: EffectiveRainfall = "usda_scs",
    fraction: float = 0.8,
) -> dict[str, Any]:
    """Effective rainfall (mm/month) from monthly precipitation totals.

    Parameters
    ----------
    precipitation : monthly totals (mm) or daily values (summed per calendar month).
    method : ``"usda_scs"``: Peff = P (125 - 0.2 P)/125 for P <= 250 mm, 125 + 0.1 P above (the
        USDA Soil Conservation Service formula in the form CROPWAT uses for monthly totals);
        ``"fixed_fraction"``: Peff = fraction x P.
    fraction : the share for ``"fixed_fraction"``.
    """
    params = resolved_parameters(effective_rainfall, (precipitation,), {"method": method, "fraction": fraction})
    _check_peff_options(method, fraction)
    monthly, info = to_monthly(precipitation, "precipitation", "sum")
    p = monthly.to_numpy()
    pe = _peff(p, method, fraction)
    payload = {
        "method": "effective_rainfall",
        "ok": True,
        "rule": ("USDA-SCS (CROPWAT): P(125 - 0.2P)/125 for P <= 250 mm/month, else 125 + 0.1P"
                 if method == "usda_scs" else f"fixed fraction {fraction:g} of P"),
        "dates": [str(m) for m in monthly.index],
        "precipitation": [float(v) if np.isfinite(v) else None for v in p],
        "effective_rainfall": [float(v) if np.isfinite(v) else None for v in pe],
        "unit": "mm/month",
        "input": info,
    }
    return finish(payload, "effective_rainfall", params, [source("effective rainfall", citation=_CITE_PEFF)])


# --------------------------------------------------------------------------------------------
# crop water demand


def _daily_et0(et0: pd.Series, days: pd.DatetimeIndex, unit: str) -> np.ndarray:
    if not isinstance(et0, pd.Series) or not isinstance(et0.index, (pd.DatetimeIndex, pd.PeriodIndex)):
        raise InputError.bad_value("et0", type(et0).__name__, "a Series of ET0 indexed by dates (daily, or monthly rates)")
    idx = et0.index
    if isinstance(idx, pd.DatetimeIndex) and idx.tz is not None:
        raise InputError.bad_value("et0", f"<index with time zone {idx.tz}>", "a time-zone-naive index",
                                   recovery="Use et0.tz_localize(None).")
    if idx.has_duplicates or not idx.is_monotonic_increasing:
        raise InputError.bad_value("et0", "<unsorted or duplicated dates>", "dates in increasing order, each once")
    values = as_float_array(et0, "et0")
    if np.any(values[np.isfinite(values)] < 0):
        raise InputError.bad_value("et0", "a negative value", "ET0 >= 0")
    months = idx if isinstance(idx, pd.PeriodIndex) else idx.to_period("M")
    if not months.has_duplicates and not (isinstance(idx, pd.PeriodIndex) and idx.freqstr.startswith("D")):
        by_month = pd.Series(values, index=months)
        rate = by_month.reindex(days.to_period("M")).to_numpy()
        if unit == "mm/month":
            rate = rate / days.days_in_month.to_numpy()
    else:
        if unit != "mm/d":
            raise InputError.bad_value("et0_unit", unit, "'mm/d' for a daily ET0 series")
        stamps = idx.to_timestamp() if isinstance(idx, pd.PeriodIndex) else idx
        rate = pd.Series(values, index=stamps.normalize()).reindex(days).to_numpy()
    missing = ~np.isfinite(rate)
    if missing.any():
        raise InsufficientDataError(
            f"et0 has no value for {int(missing.sum())} day(s) of the season, the first on {days[missing][0].date()}; "
            "the season must be covered (ET0 is never filled in)", argument="et0")
    return rate


def crop_water_demand(
    crop: str,
    planting_date: Any,
    et0: pd.Series,
    precipitation: pd.Series,
    *,
    application_efficiency: float,
    et0_unit: Literal["mm/d", "mm/month"] = "mm/d",
    effective_rainfall_method: EffectiveRainfall = "usda_scs",
    effective_fraction: float = 0.8,
    stage_lengths_days: Sequence[int] | None = None,
    kc_ini: float | None = None,
    kc_mid: float | None = None,
    kc_end: float | None = None,
    wind_speed_2m: float | None = None,
    rh_min: float | None = None,
    crop_height_m: float | None = None,
) -> dict[str, Any]:
    """Crop evapotranspiration and net and gross irrigation demand by month for one season.

    Parameters
    ----------
    crop, planting_date, stage_lengths_days, kc_*, wind_speed_2m, rh_min, crop_height_m :
        the crop and its Kc curve (see :func:`crop_coefficient_curve`).
    et0 : reference ET0 covering the season: daily values (mm/d) or monthly values (mean daily rate
        in mm/d, or mm/month with ``et0_unit="mm/month"``), indexed by dates.
    precipitation : the season's rainfall, monthly totals or daily values (summed per month), mm.
    application_efficiency : the share of the water applied that the crop can use (about 0.6 for
        surface, 0.75 sprinkler, 0.9 drip irrigation); gross = net / efficiency.
    effective_rainfall_method, effective_fraction : see :func:`effective_rainfall`.

    Returns
    -------
    dict with ``months`` (per calendar month of the season: days in the season, ET0, mean Kc, ETc,
    precipitation, effective rainfall, net and gross irrigation, all in mm) and ``totals``;
    ``peak`` gives the month of the largest gross demand as mm/d and as a continuous flow in l/s/ha.

    Notes
    -----
    ETc is summed day by day (Kc of the day x ET0 of the day). Effective rainfall is computed on
    the whole month's total and counted for the share of the month inside the season. Net demand
    = max(ETc - Peff, 0) per month: a monthly balance without soil-water carry-over (the CROPWAT
    crop water requirement, not an irrigation schedule), so it is a planning figure.
    """
    params = resolved_parameters(crop_water_demand, (crop, planting_date, et0, precipitation), {
        "application_efficiency": application_efficiency, "et0_unit": et0_unit,
        "effective_rainfall_method": effective_rainfall_method, "effective_fraction": effective_fraction,
        "stage_lengths_days": stage_lengths_days, "kc_ini": kc_ini, "kc_mid": kc_mid, "kc_end": kc_end,
        "wind_speed_2m": wind_speed_2m, "rh_min": rh_min, "crop_height_m": crop_height_m})
    if isinstance(application_efficiency, bool) or not isinstance(application_efficiency, (int, float)) \
            or not 0 < application_efficiency <= 1:
        raise InputError.bad_value("application_efficiency", application_efficiency,
                                   "a share in (0, 1] (about 0.6 surface, 0.75 sprinkler, 0.9 drip)")
    if et0_unit not in ("mm/d", "mm/month"):
        raise InputError.bad_value("et0_unit", et0_unit, "'mm/d' or 'mm/month'")
    _check_peff_options(effective_rainfall_method, effective_fraction)
    spec = _resolve_crop(crop, stage_lengths_days, kc_ini, kc_mid, kc_end, wind_speed_2m, rh_min, crop_height_m)
    start = _planting(planting_date)
    kc, _ = _kc_by_day(spec["lengths"], spec["kc_ini"], spec["kc_mid"], spec["kc_end"])
    days = pd.date_range(start, periods=kc.size, freq="D")
    rate = _daily_et0(et0, days, et0_unit)
    etc = kc * rate

    p_month, p_info = to_monthly(precipitation, "precipitation", "sum")
    season_months = pd.period_range(days[0].to_period("M"), days[-1].to_period("M"), freq="M")
    p = p_month.reindex(season_months).to_numpy()
    if not np.isfinite(p).all():
        gap = season_months[~np.isfinite(p)][0]
        raise InsufficientDataError(f"precipitation has no complete total for {gap}, a month of the season",
                                    argument="precipitation")
    peff_month = _peff(p, effective_rainfall_method, effective_fraction)

    day_month = days.to_period("M")
    rows = []
    for i, m in enumerate(season_months):
        sel = day_month == m
        n_days = int(sel.sum())
        share = n_days / m.days_in_month
        e0, ec = float(rate[sel].sum()), float(etc[sel].sum())
        pe = float(peff_month[i] * share)
        net = max(ec - pe, 0.0)
        rows.append({
            "month": str(m), "days_in_season": n_days, "et0_mm": e0, "kc_mean": float(kc[sel].mean()), "etc_mm": ec,
            "precipitation_mm": float(p[i]), "effective_rainfall_mm": pe, "net_irrigation_mm": net,
            "gross_irrigation_mm": net / application_efficiency,
        })
    totals = {k: float(sum(r[k] for r in rows)) for k in
              ("et0_mm", "etc_mm", "effective_rainfall_mm", "net_irrigation_mm", "gross_irrigation_mm")}
    peak_row = max(rows, key=lambda r: r["gross_irrigation_mm"] / r["days_in_season"])
    peak_mm_d = peak_row["gross_irrigation_mm"] / peak_row["days_in_season"]
    payload = {
        "method": "crop_water_demand",
        "ok": True,
        "crop": crop,
        "label": spec["row"]["label"],
        "planting_date": str(start.date()),
        "harvest_date": str(days[-1].date()),
        "season_days": int(kc.size),
        "kc_ini": spec["kc_ini"], "kc_mid": spec["kc_mid"], "kc_end": spec["kc_end"],
        "stage_lengths_days": spec["lengths"],
        "stage_length_source": spec["length_source"],
        "climate_adjustment": spec["adjustment"],
        "effective_rainfall_rule": ("USDA-SCS (CROPWAT), monthly, counted for the days of the month in the season"
                                    if effective_rainfall_method == "usda_scs"
                                    else f"fixed fraction {effective_fraction:g}, counted for the days of the month in the season"),
        "application_efficiency": float(application_efficiency),
        "months": rows,
        "totals": totals,
        "peak": {"month": peak_row["month"], "gross_mm_per_day": peak_mm_d,
                 "gross_l_per_s_per_ha": peak_mm_d * MM_PER_DAY_TO_L_PER_S_PER_HA},
        "gross_volume_m3_per_ha": totals["gross_irrigation_mm"] * 10.0,
        "unit": "mm",
        "input": {"precipitation": p_info, "et0_unit": et0_unit},
    }
    return finish(payload, "crop_water_demand", params, [
        source("FAO-56 single crop coefficient", citation=_CITE_TABLES + "; Eqs. 58, 62, 65, 66"),
        source("effective rainfall", citation=_CITE_PEFF)])
