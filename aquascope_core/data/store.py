"""Reading the embedded files: each parsed once per process and cached.

The frames returned here are shared: never modify them. The sources copy what they hand
out. ``embedded_table(name)`` gives a copy of one of the reference tables (regional skew).
"""

from __future__ import annotations

import functools
import gzip
import io
import json
import logging
from pathlib import Path
from typing import Any

import pandas as pd

from aquascope_core.data.provenance import embedded_file
from aquascope_core.errors import DataNotFoundError, InputError
from aquascope_core.result import source as source_row

__all__ = [
    "EMBEDDED_DIR",
    "SQMI_TO_KM2",
    "manifest",
    "embedded_path",
    "provenance",
    "usgs_catalogue",
    "usgs_catalogue_meta",
    "delaware_daily",
    "holmes_daily",
    "holmes_snow_info",
    "evd_table",
    "big_sandy_case",
    "schwingbach_daily",
    "fulda_daily",
    "embedded_table",
]

logger = logging.getLogger(__name__)

EMBEDDED_DIR = Path(__file__).resolve().parent / "embedded"
SQMI_TO_KM2 = 2.589988110336  # international mile squared

_TABLES = {
    "regional_skew": "usgs_regional_skew.csv.gz",
    "regional_skew_hucs": "usgs_regional_skew_hucs.csv.gz",
    "regional_skew_huc8_states": "usgs_regional_skew_huc8_states.csv.gz",
}


def embedded_path(filename: str) -> Path:
    """Path of one embedded file; :class:`DataNotFoundError` saying how to rebuild it when missing."""
    path = EMBEDDED_DIR / filename
    if not path.exists():
        raise DataNotFoundError(f"embedded data file {filename!r} is missing from {EMBEDDED_DIR}",
                                recovery="Reinstall aquascope, or rebuild the files with scripts/regenerate_data.py.")
    return path


@functools.cache
def manifest() -> dict[str, Any]:
    """``embedded/MANIFEST.json``: per file its package, member, checksum and the extraction date."""
    return json.loads(embedded_path("MANIFEST.json").read_text())


def provenance(filename: str, *, name: str, url: str | None = None, **extra: Any) -> dict[str, Any]:
    """A ``result.source`` row for data read from an embedded file."""
    f = embedded_file(filename)
    return source_row(name, url=url or f.url, dataset=f"{f.dataset} ({f.package}: {f.member})",
                      citation=f.citation, accessed=manifest().get("extracted"), licence=f.licence,
                      owner=f.owner, offline=True, **extra)


def _read_csv(filename: str, **kwargs: Any) -> pd.DataFrame:
    logger.debug("reading embedded %s", filename)
    return pd.read_csv(embedded_path(filename), compression="gzip", **kwargs)


@functools.cache
def usgs_catalogue() -> pd.DataFrame:
    """The 20,746-site USGS catalogue, indexed by ``site_no`` (str), with ``drainage_area_km2`` added."""
    cat = _read_csv("usgs_gage_catalog.csv.gz", dtype={"site_no": str, "huc8": str, "regression_region": str,
                                                       "state": str, "site_name": str, "regulation_class": str})
    cat["drainage_area_km2"] = (cat["drainage_area_sqmi"] * SQMI_TO_KM2).round(1)
    return cat.set_index("site_no", drop=False)


@functools.cache
def usgs_catalogue_meta() -> dict[str, Any]:
    return json.loads(embedded_path("usgs_gage_catalog.meta.json").read_text())


def _daily_index(frame: pd.DataFrame, column: str, fmt: str) -> pd.DataFrame:
    frame.index = pd.DatetimeIndex(pd.to_datetime(frame.pop(column), format=fmt), name="date")
    if not (frame.index.is_monotonic_increasing and frame.index.is_unique):
        raise DataNotFoundError("an embedded daily file has unsorted or repeated dates; it is damaged",
                                recovery="Rebuild it with scripts/regenerate_data.py.")
    return frame


@functools.cache
def delaware_daily() -> pd.DataFrame:
    """Daily mean discharge (m3/s) of the four Delaware gauges, one column per USGS site."""
    frame = _read_csv("usgs_delaware_daily_discharge_m3s.csv.gz", dtype={"date": str})
    return _daily_index(frame, "date", "%Y-%m-%d").astype(float)


_HOLMES_FILES = {"leaf_river": "holmes_leaf_river_daily.csv.gz", "au_saumon": "holmes_au_saumon_daily.csv.gz",
                 "baskatong": "holmes_baskatong_daily.csv.gz"}


@functools.cache
def holmes_daily(catchment: str) -> pd.DataFrame:
    """HOLMES daily observations: P, E0, Qo (mm/d) and, for the Quebec catchments, T (degC)."""
    frame = _read_csv(_HOLMES_FILES[catchment], dtype={"Date": str})
    return _daily_index(frame, "Date", "%Y-%m-%d").astype(float)


@functools.cache
def holmes_snow_info(catchment: str) -> dict[str, str]:
    """The CemaNeige info lines of a Quebec catchment, as the source writes them (key -> text)."""
    text = gzip.decompress(embedded_path(f"holmes_{catchment}_cemaneige.csv.gz").read_bytes()).decode()
    out = {}
    for line in text.splitlines():
        if "," in line:
            key, value = line.split(",", 1)
            out[key.strip()] = value.strip()
    return out


_EVD_FILES = {"fox": "evd_fox_kcfs.csv.gz", "ocmulgee": "evd_ocmulgee_kcfs.csv.gz", "uccle": "evd_uccle_mm.csv.gz",
              "sask": "evd_sask_kcfs_sorted.csv.gz"}


@functools.cache
def evd_table(name: str) -> pd.DataFrame:
    """A table of the R package evd: fox, ocmulgee, uccle (indexed by year) or sask (by rank)."""
    frame = _read_csv(_EVD_FILES[name])
    key = "rank_ascending" if name == "sask" else "year"
    return frame.set_index(key).astype(float)


@functools.cache
def big_sandy_case() -> dict[str, Any]:
    """The Big Sandy River (USGS 03606500) case: systematic and historical peaks, thresholds, regional skew."""
    return json.loads(gzip.decompress(embedded_path("usgs_03606500_big_sandy_b17c.json.gz").read_bytes()))


@functools.cache
def schwingbach_daily() -> pd.DataFrame:
    """Schwingbach site 24 daily: rain_mm, tmean_c, gwhead_m (NaN where fewer than 24 hourly heads), gwhead_hours."""
    frame = _read_csv("spotpy_schwingbach_site24_daily.csv.gz", dtype={"date": str})
    return _daily_index(frame, "date", "%Y-%m-%d").astype(float)


@functools.cache
def fulda_daily() -> pd.DataFrame:
    """Fulda daily: tmax, tmin, tmean (degC), Prec (mm/d), Q (m3/s); the source's second line holds units."""
    raw = gzip.decompress(embedded_path("spotpy_fulda_daily.csv.gz").read_bytes()).decode("utf-8")
    frame = pd.read_csv(io.StringIO(raw), skiprows=[1], dtype={"date": str})
    return _daily_index(frame, "date", "%d.%m.%Y").astype(float)


def embedded_table(name: str) -> pd.DataFrame:
    """A copy of a reference table: ``regional_skew``, ``regional_skew_hucs`` or ``regional_skew_huc8_states``."""
    if name not in _TABLES:
        raise InputError.bad_value("name", name, "one of " + ", ".join(sorted(_TABLES)))
    return _table(name).copy()


@functools.cache
def _table(name: str) -> pd.DataFrame:
    return _read_csv(_TABLES[name], dtype={"huc": str, "huc8": str, "state": str})
