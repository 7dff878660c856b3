"""Open-Meteo point services: the ERA5 archive (daily weather) and the GloFAS flood API (modelled discharge).

Both answer for a point, so each has one "station" per point, the grid cell there, with the id
``era5:<lat>,<lon>`` or ``glofas:<lat>,<lon>``. ``stations_near`` returns that cell (no request is
made). Values are model output (a reanalysis; a hydrological model), not observations, and their
rows say so in ``note``.

- ERA5: ``https://archive-api.open-meteo.com/v1/archive?latitude&longitude&start_date&end_date&daily=...
  &models=era5&timezone=GMT``; daily ``precipitation_sum`` (mm), ``temperature_2m_mean|max|min`` (degC),
  ``et0_fao_evapotranspiration`` (mm, FAO-56 reference ET0). ERA5 starts 1940-01-01.
- GloFAS: ``https://flood-api.open-meteo.com/v1/flood?latitude&longitude&start_date&end_date
  &daily=river_discharge``; m3/s, from 1984-01-01.

The answer is ``{"latitude", "longitude", "generationtime_ms", "utc_offset_seconds", "timezone",
"timezone_abbreviation", "elevation", "daily_units": {...}, "daily": {"time": [...], "<var>": [...]}}``
(recorded answers of both services in tests/core/data/live/fixtures): ``latitude``/``longitude`` are the
grid cell's, not the point asked for, and are kept with ``elevation`` as ``grid_lat``/``grid_lon``/
``grid_elevation_m``; days are GMT days (``timezone=GMT``; another ``utc_offset_seconds`` is refused), and a
unit other than the one expected (``°F`` for a temperature, ``inch``) is refused, not converted. Errors are
HTTP 400 with ``{"error": true, "reason": "..."}``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import pandas as pd

from aquascope_core.data.base import station_row, validate_query, variable_entry
from aquascope_core.data.live.common import LiveSource, parse_point_id, point_id
from aquascope_core.data.stations import finish_series
from aquascope_core.errors import DataNotFoundError, SourceError

__all__ = ["OpenMeteoEra5Live", "GlofasLive"]

_UNIT = {"mm": "mm/d", "°C": "degC", "m³/s": "m3/s", "m3/s": "m3/s"}


class _OpenMeteoPoint(LiveSource):
    prefix = ""
    first_day = "1940-01-01"
    lag_days = 0
    variables: dict[str, tuple[str, str, str]] = {}  # ours -> (service name, unit, note)
    extra_params: dict[str, Any] = {}

    def _row(self, lat: float, lon: float, distance_km: float | None) -> dict[str, Any]:
        start = pd.Timestamp(self.first_day)
        end = pd.Timestamp(dt.date.today()) - pd.Timedelta(days=self.lag_days)
        n_days = (end - start).days + 1
        entries = [variable_entry(v, unit, "daily", source=self.name, offline=False, live=self.name,
                                  period_start=start.date().isoformat(), period_end=end.date().isoformat(),
                                  years=n_days / 365.25, n_values=n_days, note=note)
                   for v, (_, unit, note) in self.variables.items()]
        return station_row(source=self.name, station_id=point_id(self.prefix, lat, lon),
                           name=f"{self.title.split(' (')[0]} at {lat:.4f}, {lon:.4f}", lat=lat, lon=lon,
                           distance_km=distance_km, area_km2=None, regulation=None, variables=entries, url=None)

    def stations_near(self, lat: float, lon: float, *, radius_km: float = 50.0, limit: int | None = 20,
                      variable: str | None = None) -> list[dict[str, Any]]:
        lat, lon, radius_km, limit = validate_query(lat, lon, radius_km, limit)
        if variable is not None and variable not in self.variables:
            return []
        return [self._row(lat, lon, 0.0)]

    def describe_station(self, station_id: str) -> dict[str, Any]:
        lat, lon = parse_point_id(self.prefix, station_id)
        row = self._row(lat, lon, None)
        return {**row, "aliases": [], "state": None, "huc8": None, "drainage_area_sqmi": None, "drainage_area_km2": None,
                "citation": self.citation, "datasets": [], "attributes": {"kind": "model output for a grid cell"}}

    def fetch_series(self, station_id: str, variable: str, *, start: Any = None, end: Any = None) -> pd.Series:
        lat, lon = parse_point_id(self.prefix, station_id)
        if variable not in self.variables:
            raise DataNotFoundError(f"{self.name} serves {', '.join(self.variables)}, not {variable!r}",
                                    argument="variable", value=variable)
        service_name, unit, note = self.variables[variable]
        lo = pd.Timestamp(start) if start is not None else pd.Timestamp(self.first_day)
        hi = pd.Timestamp(end) if end is not None else pd.Timestamp(dt.date.today()) - pd.Timedelta(days=self.lag_days)
        params = {"latitude": f"{lat:.4f}", "longitude": f"{lon:.4f}", "start_date": lo.date().isoformat(),
                  "end_date": hi.date().isoformat(), "daily": service_name, "timezone": "GMT", **self.extra_params}
        def check(b: Any) -> tuple[list[Any], list[Any], Any]:
            if isinstance(b, list):  # the service answers a list when it was given several points: ours is first
                b = b[0] if b else {}
            try:
                daily = b["daily"]
                times, values = daily["time"], daily[service_name]
                got_unit = (b.get("daily_units") or {}).get(service_name)
            except (TypeError, KeyError, AttributeError):
                raise SourceError(f"{self.name}: the answer has no daily {service_name!r} series") from None
            if not isinstance(times, list) or not isinstance(values, list) or len(times) != len(values):
                raise SourceError(f"{self.name}: daily time and {service_name} lists differ in length or type")
            if got_unit is not None and _UNIT.get(got_unit, got_unit) != unit:
                raise SourceError(f"{self.name}: {service_name} came in {got_unit!r}, expected {unit}")
            time_unit = (b.get("daily_units") or {}).get("time")
            if time_unit not in (None, "iso8601"):
                raise SourceError(f"{self.name}: daily times came as {time_unit!r}, expected iso8601 dates")
            offset = b.get("utc_offset_seconds")
            if offset not in (None, 0):  # days were asked in GMT; another offset shifts every day's window
                raise SourceError(f"{self.name}: the answer's days are in {b.get('timezone')!r} "
                                  f"(UTC offset {offset} s), not the GMT days asked for")
            return times, values, got_unit

        body, accessed = self.http.get_json(self.base_url, params, what=f"daily {service_name} at {lat:.4f}, {lon:.4f}",
                                            check=check)
        times, values, _ = check(body)
        body = body[0] if isinstance(body, list) else body
        s = pd.Series(np.array([np.nan if v is None else float(v) for v in values]), index=pd.DatetimeIndex(times))
        if s.dropna().empty:
            raise DataNotFoundError(f"{self.name}: no data: no {variable} at {lat:.4f}, {lon:.4f} from {lo.date()} to "
                                    f"{hi.date()} (the service answered {len(values)} day(s), every value null)",
                                    argument="station_id", value=station_id,
                                    recovery=f"Ask for days the service covers ({self.first_day} to "
                                             f"{(pd.Timestamp(dt.date.today()) - pd.Timedelta(days=self.lag_days)).date()}"
                                             "), or a point on land nearby.")
        cell = {"grid_lat": body.get("latitude"), "grid_lon": body.get("longitude"),
                "grid_elevation_m": body.get("elevation")}
        return finish_series(s, variable=variable, unit=unit, resolution="daily", source=self.name,
                             station_id=point_id(self.prefix, lat, lon), name=f"{self.prefix} {lat:.4f}, {lon:.4f}",
                             provenance=self.provenance(self.base_url, accessed, **cell), start=start, end=end,
                             note=note, extra=cell)


class OpenMeteoEra5Live(_OpenMeteoPoint):
    """ERA5 reanalysis, daily, for a point (Open-Meteo historical weather API)."""

    name = "open_meteo_era5"
    title = "ERA5 reanalysis (Open-Meteo historical weather API)"
    base_url = "https://archive-api.open-meteo.com/v1/archive"
    base_url_env = "AQUASCOPE_ERA5_URL"
    citation = ("Hersbach, H. et al., 2020, The ERA5 global reanalysis, Q. J. R. Meteorol. Soc. 146, 1999-2049; "
                "served by Open-Meteo (Zippenfenig, P., 2023, doi:10.5281/zenodo.7970649), CC BY 4.0.")
    licence = "CC BY 4.0"
    prefix = "era5"
    first_day = "1940-01-01"
    lag_days = 6
    extra_params = {"models": "era5"}
    variables = {
        "precipitation": ("precipitation_sum", "mm/d", "ERA5 reanalysis daily total (model output, not a gauge)"),
        "air_temperature": ("temperature_2m_mean", "degC", "ERA5 reanalysis daily mean 2 m temperature"),
        "air_temperature_max": ("temperature_2m_max", "degC", "ERA5 reanalysis daily maximum 2 m temperature"),
        "air_temperature_min": ("temperature_2m_min", "degC", "ERA5 reanalysis daily minimum 2 m temperature"),
        "potential_evapotranspiration": ("et0_fao_evapotranspiration", "mm/d",
                                         "FAO-56 reference ET0 computed by Open-Meteo from ERA5"),
    }


class GlofasLive(_OpenMeteoPoint):
    """GloFAS modelled river discharge, daily, for a point (Open-Meteo flood API)."""

    name = "glofas"
    title = "GloFAS river discharge (Open-Meteo flood API)"
    base_url = "https://flood-api.open-meteo.com/v1/flood"
    base_url_env = "AQUASCOPE_GLOFAS_URL"
    citation = ("Harrigan, S. et al., 2020, GloFAS-ERA5 operational global river discharge reanalysis 1979-present, "
                "Earth Syst. Sci. Data 12, 2043-2060; Copernicus Emergency Management Service, served by Open-Meteo.")
    licence = "CC BY 4.0 (Copernicus data)"
    prefix = "glofas"
    first_day = "1984-01-01"
    lag_days = 0
    variables = {"discharge": ("river_discharge", "m3/s",
                               "GloFAS modelled daily river discharge of the 5 km grid cell (model output, not a gauge)")}
