"""Compact series for the figures, kept in a payload (JSON-safe and small, since payloads go into checkpoints).

:func:`plot_series` keeps a short record as recorded (missing values, and the days a daily record lacks, as
``None``, so the gaps show) and
reduces a long one to its monthly mean, minimum and maximum with the count of values in each month (a month
without values is ``None``: a gap). Values are rounded to 4 significant figures: enough for a drawing, never
a number a report quotes (reports quote the tool's own statistics).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["plot_series", "MAX_POINTS", "sig"]

MAX_POINTS = 1500  # a record with more values than this is kept as monthly statistics


def sig(x: Any, digits: int = 4) -> float | None:
    """``x`` rounded to ``digits`` significant figures; None for missing or non-finite values."""
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(f):
        return None
    if f == 0:
        return 0.0
    return round(f, digits - 1 - int(math.floor(math.log10(abs(f)))))


def plot_series(s: Any, *, max_points: int = MAX_POINTS) -> dict[str, Any]:
    """The series ``s`` (a pandas Series on a DatetimeIndex) in the compact form a figure draws."""
    import pandas as pd

    s = s.sort_index()
    s = s[~s.index.duplicated(keep="first")]
    if s.size > 2:
        # a daily record is put on every day of its span, so the days it lacks show as gaps
        step = s.index.to_series().diff().median()
        if step <= pd.Timedelta(days=1):
            s = s.reindex(pd.date_range(s.index.min().normalize(), s.index.max().normalize(), freq="D"))
    if s.size <= max_points:
        return {"form": "as_recorded", "dates": [d.date().isoformat() for d in s.index],
                "values": [sig(v) for v in s.to_numpy()]}
    values = s.dropna()
    months = pd.period_range(values.index.min().to_period("M"), values.index.max().to_period("M"), freq="M")
    grouped = values.groupby(values.index.to_period("M"))
    stats = grouped.agg(["mean", "min", "max", "size"]).reindex(months)
    return {
        "form": "monthly",
        "dates": [str(p) for p in months],
        "mean": [sig(v) for v in stats["mean"].to_numpy()],
        "min": [sig(v) for v in stats["min"].to_numpy()],
        "max": [sig(v) for v in stats["max"].to_numpy()],
        "n": [0 if v != v else int(v) for v in stats["size"].to_numpy()],
    }
