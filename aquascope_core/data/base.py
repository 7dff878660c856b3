"""The one interface every data source implements, and the helpers they share.

A *source* answers three questions about the places it knows:

- ``stations_near(lat, lon, *, radius_km, limit, variable)``: which stations lie within
  ``radius_km`` of a point, nearest first (by position only, never by name);
- ``describe_station(station_id)``: everything known about one station;
- ``fetch_series(station_id, variable, *, start, end)``: its record as a ``pandas.Series``.

``find_stations(text)`` finds stations by id or name; it is how a station with no
coordinates (a HOLMES catchment in Quebec, the Fulda catchment) is reached.

Rows and variables have one shape whatever the source (see :func:`station_row` and
:func:`variable_entry`), so a reconnaissance can inventory them without knowing where they
came from. ``years`` is always the non-missing coverage of the record in years, never
``last - first``.

Variable names used across the sources (units are always given beside them):

========================  ==========================================================
discharge                 daily mean streamflow (m3/s; mm/d where the source gives depth)
peak_discharge            annual instantaneous peak discharge (ft3/s)
annual_max_discharge      annual maximum discharge as published (kcfs = 1000 ft3/s)
precipitation             precipitation (mm/d)
potential_evapotranspiration   potential evapotranspiration (mm/d)
air_temperature           daily mean air temperature (degC); _max / _min variants
groundwater_level         groundwater head (m a.s.l.)
annual_max_precipitation_<d>   annual maximum rainfall over duration <d> (mm)
========================  ==========================================================
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Any, Iterable

import numpy as np
import pandas as pd

from aquascope_core.errors import DataNotFoundError, InputError

__all__ = [
    "Source",
    "EARTH_RADIUS_KM",
    "validate_point",
    "validate_query",
    "haversine_km",
    "variable_entry",
    "station_row",
    "record_summary",
    "list_gaps",
    "slice_period",
    "YEAR_LENGTH",
]

EARTH_RADIUS_KM = 6371.0088  # mean Earth radius (IUGG)

# How many values of each resolution make one year of record.
YEAR_LENGTH = {"hourly": 8766.0, "daily": 365.25, "monthly": 12.0, "annual": 1.0}

_STEP = {"hourly": pd.Timedelta(hours=1), "daily": pd.Timedelta(days=1)}


class Source(ABC):
    """A place data comes from: the embedded catalogue, a live service or the user's uploads.

    Subclasses set ``name`` (the key :func:`aquascope_core.data.get_source` knows them by)
    and ``title`` (what a report prints).
    """

    name: str = ""
    title: str = ""

    @abstractmethod
    def stations_near(self, lat: float, lon: float, *, radius_km: float = 50.0, limit: int | None = 20,
                      variable: str | None = None) -> list[dict[str, Any]]:
        """Stations within ``radius_km`` of (lat, lon), nearest first; ``[]`` when none."""

    @abstractmethod
    def describe_station(self, station_id: str) -> dict[str, Any]:
        """The station's row plus its attributes, citation and datasets."""

    @abstractmethod
    def fetch_series(self, station_id: str, variable: str, *, start: Any = None, end: Any = None) -> pd.Series:
        """The station's record of ``variable`` (DatetimeIndex, float values, ``attrs`` provenance)."""

    def find_stations(self, text: str, *, limit: int | None = 20) -> list[dict[str, Any]]:
        """Stations whose id or name contains ``text`` (case-insensitive); rows without distance."""
        raise DataNotFoundError(f"source {self.name!r} cannot search stations by name",
                                recovery="Use stations_near(lat, lon) or describe_station(id).")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def validate_point(lat: Any, lon: Any) -> tuple[float, float]:
    """(lat, lon) as floats, or :class:`InputError` naming the argument and the valid range."""
    out = []
    for arg, value, bound in (("lat", lat, 90.0), ("lon", lon, 180.0)):
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise InputError.bad_value(arg, value, f"a number of decimal degrees in [-{bound:g}, {bound:g}]") from None
        if isinstance(value, bool) or not math.isfinite(number) or abs(number) > bound:
            raise InputError.bad_value(arg, value, f"decimal degrees in [-{bound:g}, {bound:g}]"
                                       + (" (latitude comes first: lat, lon)" if arg == "lat" and math.isfinite(number)
                                          and abs(number) <= 180 else ""))
        out.append(number)
    return out[0], out[1]


def validate_query(lat: Any, lon: Any, radius_km: Any, limit: Any) -> tuple[float, float, float, int | None]:
    """Validate the arguments of ``stations_near``."""
    la, lo = validate_point(lat, lon)
    try:
        radius = float(radius_km)
    except (TypeError, ValueError):
        raise InputError.bad_value("radius_km", radius_km, "a positive number of kilometres") from None
    if not math.isfinite(radius) or radius <= 0:
        raise InputError.bad_value("radius_km", radius_km, "a positive, finite number of kilometres")
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
            raise InputError.bad_value("limit", limit, "a positive integer, or None for every station in the radius")
        limit = int(limit)
    return la, lo, radius, limit


def haversine_km(lat1: Any, lon1: Any, lat2: Any, lon2: Any) -> Any:
    """Great-circle distance in km on a sphere of radius :data:`EARTH_RADIUS_KM` (numpy-broadcasting)."""
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dphi = p2 - p1
    dlmb = np.radians(np.asarray(lon2) - np.asarray(lon1))
    a = np.sin(dphi / 2.0) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dlmb / 2.0) ** 2
    return 2.0 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))


def variable_entry(variable: str, unit: str, resolution: str, *, source: str, offline: bool,
                   period_start: str | None = None, period_end: str | None = None, years: float | None = None,
                   n_values: int | None = None, note: str = "", live: str | None = None) -> dict[str, Any]:
    """One item of a station row's ``variables`` list (the same shape for every source).

    ``offline``: the values are held here. ``live``: the name of a live source that can fetch
    them when live mode is on (``None`` if none is known); ``source`` the source that holds them.
    """
    return {
        "variable": variable,
        "unit": unit,
        "resolution": resolution,
        "period_start": period_start,
        "period_end": period_end,
        "years": None if years is None else round(float(years), 2),
        "n_values": None if n_values is None else int(n_values),
        "offline": bool(offline),
        "live": live,
        "source": source,
        "note": note,
    }


def station_row(*, source: str, station_id: str, name: str, lat: float | None, lon: float | None,
                distance_km: float | None, area_km2: float | None, regulation: str | None,
                variables: list[dict[str, Any]], url: str | None) -> dict[str, Any]:
    """One station as ``stations_near`` returns it. ``catalogue_only``: no variable is held offline."""
    return {
        "source": source,
        "station_id": station_id,
        "name": name,
        "lat": None if lat is None else float(lat),
        "lon": None if lon is None else float(lon),
        "distance_km": None if distance_km is None else round(float(distance_km), 3),
        "area_km2": None if area_km2 is None or (isinstance(area_km2, float) and math.isnan(area_km2)) else float(area_km2),
        "regulation": regulation,
        "variables": variables,
        "url": url,
        "catalogue_only": not any(v["offline"] for v in variables),
    }


def record_summary(series: pd.Series, resolution: str) -> dict[str, Any]:
    """Period, value count and true coverage (years) of a record; NaN values do not count."""
    values = series.dropna()
    if values.empty:
        return {"period_start": None, "period_end": None, "years": 0.0, "n_values": 0}
    per_year = YEAR_LENGTH.get(resolution)
    return {
        "period_start": values.index[0].date().isoformat(),
        "period_end": values.index[-1].date().isoformat(),
        "years": len(values) / per_year if per_year else None,
        "n_values": int(len(values)),
    }


def list_gaps(index: pd.DatetimeIndex, resolution: str, *, limit: int = 50) -> dict[str, Any]:
    """Runs of missing steps in a regular record: ``{"n_missing", "n_gaps", "gaps": [{start, end, steps}]}``.

    ``start``/``end`` are the first and last missing timestamps (years, for annual records) of
    each run. Only the first ``limit`` runs are listed; ``n_gaps`` counts them all. Monthly and
    irregular records are not checked here.
    """
    if resolution == "annual" and len(index) >= 2:
        years = np.asarray(index.year)
        jumps = np.flatnonzero(np.diff(years) > 1)
        runs = [{"start": f"{years[i] + 1}", "end": f"{years[i + 1] - 1}", "steps": int(years[i + 1] - years[i] - 1)}
                for i in jumps]
        return {"n_missing": int(sum(r["steps"] for r in runs)), "n_gaps": len(runs), "gaps": runs[:limit]}
    step = _STEP.get(resolution)
    if step is None or len(index) < 2:
        return {"n_missing": 0, "n_gaps": 0, "gaps": []}
    if resolution == "daily":
        index = index.normalize()
    diffs = index[1:] - index[:-1]
    where = np.flatnonzero(diffs > step)
    gaps = []
    n_missing = 0
    for i in where:
        steps = int(diffs[i] / step) - 1
        n_missing += steps
        if len(gaps) < limit:
            gaps.append({"start": (index[i] + step).isoformat(), "end": (index[i + 1] - step).isoformat(), "steps": steps})
    return {"n_missing": n_missing, "n_gaps": int(len(where)), "gaps": gaps}


def _timestamp(arg: str, value: Any) -> pd.Timestamp | None:
    if value is None:
        return None
    try:
        ts = pd.Timestamp(value)
    except (TypeError, ValueError):
        raise InputError.bad_value(arg, value, "a date such as '1990-01-01' (or None for no bound)") from None
    if ts is pd.NaT:
        raise InputError.bad_value(arg, value, "a date such as '1990-01-01' (or None for no bound)")
    if ts.tzinfo is not None:
        ts = ts.tz_convert(None)
    return ts


def slice_period(series: pd.Series, start: Any, end: Any, *, what: str) -> pd.Series:
    """``series`` between ``start`` and ``end`` inclusive; :class:`DataNotFoundError` if nothing is left.

    ``what`` names the record in the message (source, station and variable).
    """
    lo, hi = _timestamp("start", start), _timestamp("end", end)
    if lo is not None and hi is not None and lo > hi:
        raise InputError(f"start={lo.date()} is after end={hi.date()}", argument="start", value=start,
                         recovery="Give start on or before end.")
    out = series.loc[lo:hi] if (lo is not None or hi is not None) else series
    if out.empty:
        held = (f"{series.index[0].date()} to {series.index[-1].date()}" if len(series) else "no values")
        raise DataNotFoundError(
            f"{what} has no values between {lo.date() if lo is not None else 'the start'} and "
            f"{hi.date() if hi is not None else 'the end'}; it holds {held}",
            argument="start", value=start, recovery=f"Ask for a period within {held}.")
    return out


def match_text(text: Any, candidates: Iterable[tuple[str, str]]) -> list[str]:
    """Station ids whose id or name contains ``text`` (case-insensitive), exact id matches first."""
    if not isinstance(text, str) or not text.strip():
        raise InputError.bad_value("text", text, "a non-empty part of a station id or name")
    needle = text.strip().lower()
    exact, partial = [], []
    for sid, name in candidates:
        if sid.lower() == needle:
            exact.append(sid)
        elif needle in sid.lower() or needle in (name or "").lower():
            partial.append(sid)
    return exact + partial
