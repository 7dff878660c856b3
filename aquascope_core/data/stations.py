"""Offline sources over a small table of stations, and the machinery every offline source shares.

An :class:`OfflineSource` answers ``stations_near`` from a :class:`PointIndex` and builds each
row only for the stations it returns. A :class:`TableSource` holds its stations as
:class:`StationSpec` objects whose variables load their record on first use (the loaders are
cached in :mod:`aquascope_core.data.store`, so a file is parsed once per process).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np
import pandas as pd

from aquascope_core.data.base import (
    Source,
    list_gaps,
    match_text,
    record_summary,
    slice_period,
    station_row,
    validate_query,
    variable_entry,
)
from aquascope_core.data.spatial import PointIndex
from aquascope_core.errors import DataNotFoundError, InputError

__all__ = ["VariableSpec", "StationSpec", "OfflineSource", "TableSource", "normalise_id", "finish_series"]

_USGS_PREFIX = re.compile(r"^usgs[-:_ ]?", re.IGNORECASE)


def normalise_id(station_id: Any) -> str:
    """A station id as the sources spell it: stripped, ``USGS-`` prefix removed, lower-case for words.

    USGS site numbers must be strings: as integers their leading zeros are lost.
    """
    if isinstance(station_id, (bool, int, float, np.integer, np.floating)):
        raise InputError.bad_value("station_id", station_id,
                                   "a string; USGS site numbers keep their leading zeros ('01440000')")
    if not isinstance(station_id, str) or not station_id.strip():
        raise InputError.bad_value("station_id", station_id, "a non-empty station id string")
    sid = _USGS_PREFIX.sub("", station_id.strip())
    return sid if sid.isdigit() else sid.lower()


def finish_series(values: pd.Series, *, variable: str, unit: str, resolution: str, source: str, station_id: str,
                  name: str, provenance: dict[str, Any], start: Any, end: Any, note: str = "",
                  extra: dict[str, Any] | None = None) -> pd.Series:
    """A copy of ``values`` as ``fetch_series`` returns it: observed values only, sliced, with ``attrs``.

    Missing values are dropped (never filled) and listed in ``attrs["gaps"]``.
    """
    what = f"{source} station {station_id} {variable}"
    observed = values.dropna().astype(float)
    observed = slice_period(observed, start, end, what=what).copy()
    observed.name = variable
    observed.index.name = "date"
    observed.attrs = {
        "variable": variable,
        "unit": unit,
        "resolution": resolution,
        "source": source,
        "station_id": station_id,
        "name": name,
        "provenance": provenance,
        "gaps": list_gaps(observed.index, resolution),
        "note": note,
        **(extra or {}),
    }
    return observed


@dataclass
class VariableSpec:
    """One variable of a station. ``load`` returns the full record; ``None`` means catalogue-only."""

    variable: str
    unit: str
    resolution: str
    note: str = ""
    load: Callable[[], pd.Series] | None = None
    dataset: str | None = None  # embedded filename, for provenance
    summary: dict[str, Any] | None = None  # given for catalogue-only variables
    extra_attrs: dict[str, Any] = field(default_factory=dict)
    sample_only: bool = False  # values without dates (fetch_sample, not fetch_series)

    def entry(self, source: str) -> dict[str, Any]:
        if self.load is None:
            s = self.summary or {}
            return variable_entry(self.variable, self.unit, self.resolution, source=source, offline=False,
                                  note=self.note, **s)
        return variable_entry(self.variable, self.unit, self.resolution, source=source, offline=True,
                              note=self.note, **self._summary())

    def _summary(self) -> dict[str, Any]:
        if self.summary is None:
            data = self.load()
            if self.sample_only:
                self.summary = {"period_start": None, "period_end": None, "years": float(data.notna().sum()),
                                "n_values": int(data.notna().sum())}
            else:
                self.summary = record_summary(data, self.resolution)
        return self.summary


@dataclass
class StationSpec:
    station_id: str
    name: str
    variables: list[VariableSpec]
    lat: float | None = None
    lon: float | None = None
    area_km2: float | None = None
    regulation: str | None = None
    url: str | None = None
    aliases: tuple[str, ...] = ()
    citation: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)


class OfflineSource(Source):
    """Shared behaviour of the embedded sources: index, rows, lookup by id and name."""

    def _within(self, lat: float, lon: float, radius_km: float) -> list[tuple[str, float]]:
        """(station_id, distance_km) of every placed station within the radius, nearest first."""
        raise NotImplementedError

    def _row(self, station_id: str, distance_km: float | None) -> dict[str, Any]:
        raise NotImplementedError

    def _resolve(self, station_id: Any) -> str | None:
        """The canonical id for ``station_id`` (aliases and ``USGS-`` prefixes allowed), ``None`` if unknown."""
        raise NotImplementedError

    def _names(self) -> Iterable[tuple[str, str]]:
        raise NotImplementedError

    def holds(self, station_id: Any) -> bool:
        return self._resolve(station_id) is not None

    def _known(self, station_id: Any) -> str:
        sid = self._resolve(station_id)
        if sid is None:
            raise DataNotFoundError(
                f"source {self.name!r} has no station {station_id!r}",
                argument="station_id", value=station_id,
                recovery=(f"List its stations with get_source({self.name!r}).stations_near(lat, lon) or "
                          f".find_stations('part of a name'); catalogue().find_stations(...) searches every "
                          f"embedded source."))
        return sid

    def stations_near(self, lat: float, lon: float, *, radius_km: float = 50.0, limit: int | None = 20,
                      variable: str | None = None) -> list[dict[str, Any]]:
        lat, lon, radius_km, limit = validate_query(lat, lon, radius_km, limit)
        rows = []
        for sid, dist in self._within(lat, lon, radius_km):
            row = self._row(sid, dist)
            if variable is not None and not any(v["variable"] == variable for v in row["variables"]):
                continue
            rows.append(row)
            if limit is not None and len(rows) >= limit:
                break
        return rows

    def find_stations(self, text: str, *, limit: int | None = 20) -> list[dict[str, Any]]:
        ids = match_text(text, self._names())
        if limit is not None:
            ids = ids[:limit]
        return [self._row(sid, None) for sid in ids]


class TableSource(OfflineSource):
    """An offline source over a few :class:`StationSpec` built on first use by ``build()``."""

    citation: str = ""

    def __init__(self, name: str, title: str, build: Callable[[], list[StationSpec]]) -> None:
        self.name = name
        self.title = title
        self._build = build

    @functools.cached_property
    def _stations(self) -> dict[str, StationSpec]:
        return {s.station_id: s for s in self._build()}

    @functools.cached_property
    def _aliases(self) -> dict[str, str]:
        out = {}
        for s in self._stations.values():
            out[normalise_id(s.station_id)] = s.station_id
            for a in s.aliases:
                out[normalise_id(a)] = s.station_id
        return out

    @functools.cached_property
    def _index(self) -> tuple[PointIndex, list[str]]:
        ids = list(self._stations)
        lat = np.array([np.nan if self._stations[i].lat is None else self._stations[i].lat for i in ids])
        lon = np.array([np.nan if self._stations[i].lon is None else self._stations[i].lon for i in ids])
        return PointIndex(lat, lon), ids

    def station_ids(self) -> list[str]:
        return list(self._stations)

    def _resolve(self, station_id: Any) -> str | None:
        return self._aliases.get(normalise_id(station_id))

    def _names(self) -> Iterable[tuple[str, str]]:
        for s in self._stations.values():
            yield s.station_id, " ".join((s.name, *s.aliases))

    def _within(self, lat: float, lon: float, radius_km: float) -> list[tuple[str, float]]:
        index, ids = self._index
        rows, dists = index.within(lat, lon, radius_km)
        return [(ids[r], float(d)) for r, d in zip(rows, dists)]

    def _row(self, station_id: str, distance_km: float | None) -> dict[str, Any]:
        s = self._stations[station_id]
        return station_row(source=self.name, station_id=s.station_id, name=s.name, lat=s.lat, lon=s.lon,
                           distance_km=distance_km, area_km2=s.area_km2, regulation=s.regulation,
                           variables=[v.entry(self.name) for v in s.variables], url=s.url)

    def describe_station(self, station_id: str) -> dict[str, Any]:
        s = self._stations[self._known(station_id)]
        row = self._row(s.station_id, None)
        datasets = []
        for v in s.variables:
            if v.dataset and all(d.get("variable") != v.variable for d in datasets):
                datasets.append(self._provenance(s, v))
        return {**row, "aliases": list(s.aliases), "state": s.attributes.get("state"),
                "huc8": s.attributes.get("huc8"), "drainage_area_sqmi": s.attributes.get("drainage_area_sqmi"),
                "drainage_area_km2": s.area_km2, "citation": s.citation, "datasets": datasets,
                "attributes": dict(s.attributes)}

    def _provenance(self, s: StationSpec, v: VariableSpec) -> dict[str, Any]:
        from aquascope_core.data.store import provenance

        return provenance(v.dataset, name=self.name, url=s.url, station_id=s.station_id, variable=v.variable)

    def _variable(self, s: StationSpec, variable: str) -> VariableSpec:
        for v in s.variables:
            if v.variable == variable:
                return v
        held = ", ".join(f"{v.variable} ({v.unit}, {v.resolution})" for v in s.variables)
        raise DataNotFoundError(f"{self.name} station {s.station_id} ({s.name}) holds no {variable!r}; it holds {held}",
                                argument="variable", value=variable, recovery=f"Ask for one of: {held}.")

    def fetch_series(self, station_id: str, variable: str, *, start: Any = None, end: Any = None) -> pd.Series:
        s = self._stations[self._known(station_id)]
        v = self._variable(s, variable)
        if v.load is None:
            raise DataNotFoundError(f"{self.name} station {s.station_id} {variable} is catalogue-only: {v.note}",
                                    argument="variable", value=variable,
                                    recovery="Use a live source for it (see aquascope_core.data.live), or another variable.")
        if v.sample_only:
            raise DataNotFoundError(
                f"{self.name} station {s.station_id} {variable} has no dates ({v.note}); fetch_sample() returns its values",
                argument="variable", value=variable, recovery=f"Call fetch_sample({s.station_id!r}, {variable!r}).")
        return finish_series(v.load(), variable=variable, unit=v.unit, resolution=v.resolution, source=self.name,
                             station_id=s.station_id, name=s.name, provenance=self._provenance(s, v),
                             start=start, end=end, note=v.note, extra=v.extra_attrs)

    def fetch_sample(self, station_id: str, variable: str) -> pd.Series:
        """The values of a record without dates (a published sorted sample), indexed by rank; any record's values otherwise."""
        s = self._stations[self._known(station_id)]
        v = self._variable(s, variable)
        if v.load is None:
            raise DataNotFoundError(f"{self.name} station {s.station_id} {variable} is catalogue-only: {v.note}",
                                    argument="variable", value=variable)
        out = v.load().dropna().astype(float).copy()
        out.name = variable
        out.attrs = {"variable": variable, "unit": v.unit, "resolution": v.resolution, "source": self.name,
                     "station_id": s.station_id, "name": s.name, "provenance": self._provenance(s, v),
                     "note": v.note, **v.extra_attrs}
        return out
