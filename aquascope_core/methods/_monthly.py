"""Monthly series for the standardised drought indices and the crop water balance.

Every series these methods take is a pandas Series indexed by dates. Two resolutions are accepted:

monthly
    At most one value per calendar month. The label may sit at the start of the month
    (``2001-03-01``, pandas ``MS``), at its end (``2001-03-31``, pandas ``ME``) or anywhere inside it;
    all of them mean the calendar month 2001-03. A ``PeriodIndex`` of months is accepted as it is.
daily
    One value per day (timestamps at midnight; days may be absent). The days of each calendar month
    are aggregated: summed for totals (precipitation, PET, water balance), averaged for states and
    rates (discharge, groundwater head). A summed month with any day missing is missing; an averaged
    month is missing when more than ``max_missing_days`` days are.

A month absent from the index becomes an explicit missing row, so the result has one row for every
month from the first to the last. Nothing is filled: a gap stays a gap.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from aquascope_core.errors import InputError, InsufficientDataError

__all__ = ["to_monthly", "as_float_array", "day_of_year"]

Aggregation = Literal["sum", "mean"]


def as_float_array(values: Any, argument: str) -> np.ndarray:
    """A float copy of ``values`` (NaN kept); infinities refused."""
    try:
        if isinstance(values, pd.Series):
            arr = values.to_numpy(dtype=float, na_value=np.nan).copy()
        else:
            arr = np.array(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InputError.bad_value(argument, values, "numbers (a float, list, array or Series)") from exc
    if np.any(np.isinf(arr)):
        raise InputError.bad_value(argument, "inf", "finite numbers or NaN for a missing value")
    return arr


def _check_index(series: Any, argument: str) -> pd.Index:
    if not isinstance(series, pd.Series):
        raise InputError.bad_value(
            argument, type(series).__name__,
            "a pandas Series indexed by dates (DatetimeIndex or a PeriodIndex of months)",
            recovery="Wrap the values as pd.Series(values, index=pd.to_datetime(dates)).")
    idx = series.index
    if isinstance(idx, pd.PeriodIndex):
        return idx
    if not isinstance(idx, pd.DatetimeIndex):
        raise InputError.bad_value(
            argument, f"<{type(idx).__name__}>", "a Series indexed by dates",
            recovery="Set a DatetimeIndex, e.g. series.index = pd.to_datetime(series.index).")
    if idx.tz is not None:
        raise InputError.bad_value(
            argument, f"<index with time zone {idx.tz}>", "a time-zone-naive DatetimeIndex",
            recovery="Drop the time zone with series.tz_localize(None) (after converting to local time if needed).")
    if idx.hasnans:
        raise InputError.bad_value(argument, "NaT", "dates without NaT in the index")
    return idx


def to_monthly(series: Any, argument: str, how: Aggregation, *, max_missing_days: int = 0,
               allow_negative: bool = False) -> tuple[pd.Series, dict[str, Any]]:
    """One value per calendar month from a monthly or daily Series (see the module notes).

    Returns the monthly Series (a ``PeriodIndex`` of months, every month from the first to the last)
    and a description of what was done (``input_resolution``, ``aggregation``, ``n_months``,
    ``n_months_missing``, ``first_month``, ``last_month``).
    """
    idx = _check_index(series, argument)
    values = as_float_array(series, argument)
    if values.size < 2:
        raise InsufficientDataError(f"{argument} holds {values.size} value(s); a monthly record is needed.",
                                    argument=argument, value=values.size)
    if not allow_negative and np.any(values[np.isfinite(values)] < 0):
        bad = idx[np.nan_to_num(values, nan=0.0) < 0][0]
        raise InputError.bad_value(argument, f"a negative value at {bad}", "values >= 0 (a negative total or flow is an error)")
    if isinstance(idx, pd.PeriodIndex) and not idx.freqstr.startswith("M"):
        if not idx.freqstr.startswith("D"):
            raise InputError.bad_value(argument, f"<PeriodIndex freq {idx.freqstr}>", "a PeriodIndex of months or days")
        idx = idx.to_timestamp()  # daily periods: treat as daily dates
    if not idx.is_monotonic_increasing:
        raise InputError.bad_value(argument, "<unsorted index>", "dates in increasing order",
                                   recovery="Sort first: series.sort_index().")
    if idx.has_duplicates:
        dup = idx[idx.duplicated()][0]
        raise InputError.bad_value(argument, f"<duplicated date {dup}>", "one value per date",
                                   recovery="Remove or aggregate the duplicated dates first.")

    months = idx if isinstance(idx, pd.PeriodIndex) else idx.to_period("M")
    if not months.has_duplicates:
        monthly = pd.Series(values, index=months)
        full = pd.period_range(months[0], months[-1], freq="M")
        monthly = monthly.reindex(full)
        resolution, aggregation = "monthly", None
    else:
        days = idx.normalize()
        if not (days == idx).all():
            raise InputError.bad_value(
                argument, "<sub-daily timestamps>", "monthly or daily values",
                recovery="Aggregate the record to daily values first (sum for totals, mean for states).")
        monthly = _aggregate_daily(values, idx, how, max_missing_days)
        resolution, aggregation = "daily", how
    n_missing = int(np.isnan(monthly.to_numpy()).sum())
    if n_missing == monthly.size:
        raise InsufficientDataError(
            f"{argument}: no calendar month has a complete value"
            + (" (a daily record needs every day of a month for a monthly total)" if resolution == "daily" else ""),
            argument=argument)
    info = {
        "input_resolution": resolution,
        "aggregation": aggregation,
        "max_missing_days": (max_missing_days if how == "mean" else 0) if resolution == "daily" else None,
        "n_months": int(monthly.size),
        "n_months_missing": n_missing,
        "first_month": str(monthly.index[0]),
        "last_month": str(monthly.index[-1]),
    }
    return monthly, info


def _aggregate_daily(values: np.ndarray, idx: pd.DatetimeIndex, how: Aggregation, max_missing_days: int) -> pd.Series:
    if how == "sum":
        max_missing_days = 0  # a total with a missing day is not the month's total
    if max_missing_days < 0:
        raise InputError.bad_value("max_missing_days", max_missing_days, "an integer >= 0")
    daily = pd.Series(values, index=idx)
    months = idx.to_period("M")
    grouped = daily.groupby(months)
    present = grouped.count()
    total = grouped.sum(min_count=1) if how == "sum" else grouped.mean()
    full = pd.period_range(months[0], months[-1], freq="M")
    present = present.reindex(full, fill_value=0)
    total = total.reindex(full)
    missing = full.days_in_month.to_numpy() - present.to_numpy()
    out = total.to_numpy(dtype=float).copy()
    out[missing > max_missing_days] = np.nan
    return pd.Series(out, index=full)


def day_of_year(index: pd.DatetimeIndex | pd.PeriodIndex, time_step: Literal["daily", "monthly"]) -> np.ndarray:
    """Day of the year of each step; for a monthly step the 15th of the month.

    The 15th reproduces the Ra, N of the FAO-56 monthly examples (15 April = day 105 in Example 17,
    15 May = day 135 in Example 10).
    """
    if isinstance(index, pd.PeriodIndex):
        stamps = index.to_timestamp()
    else:
        stamps = index
    if time_step == "monthly":
        stamps = pd.to_datetime({"year": stamps.year, "month": stamps.month, "day": 15})
        return pd.DatetimeIndex(stamps).day_of_year.to_numpy().astype(float)
    return stamps.day_of_year.to_numpy().astype(float)
