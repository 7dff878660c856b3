"""The user's own data: CSV and XLSX uploads read into a dataset the Scout can inventory.

``ingest(name, content)`` reads the table, finds the date and value columns, the units and the
resolution, counts and lists the gaps (never fills them) and keeps the user's bytes verbatim.
What it cannot tell (a unit, a variable) it asks in ``questions`` instead of guessing; what is
wrong (duplicated dates, text among the values, an empty file, something that is not a table)
it refuses with an :class:`InputError` naming the problem and the rows.

:class:`UploadSource` serves ingested datasets through the source interface.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import pathlib
from typing import Any

import numpy as np
import pandas as pd

from aquascope_core.data import _tables
from aquascope_core.data.base import (
    Source,
    list_gaps,
    match_text,
    record_summary,
    slice_period,
    station_row,
    validate_point,
    validate_query,
    variable_entry,
)
from aquascope_core.data.spatial import PointIndex
from aquascope_core.errors import DataNotFoundError, InputError
from aquascope_core.result import source as source_row
from aquascope_core.result import utc_now

__all__ = ["ingest", "original_bytes", "dataset_json", "UploadSource"]

logger = logging.getLogger(__name__)

_MAX_BYTES = 200_000_000


def _content_bytes(content: Any) -> tuple[bytes | None, pd.DataFrame | None, str | None]:
    """(raw bytes, a DataFrame, the file name) from what the caller gave."""
    if isinstance(content, pd.DataFrame):
        return None, content, None
    if isinstance(content, pathlib.Path):
        if not content.is_file():
            raise InputError.bad_value("content", str(content), "an existing file (CSV or XLSX)")
        if content.stat().st_size > _MAX_BYTES:
            raise InputError(f"{content.name} is {content.stat().st_size:,} bytes; uploads are limited to {_MAX_BYTES:,}",
                             argument="content", value=str(content))
        return content.read_bytes(), None, content.name
    if isinstance(content, (bytes, bytearray, memoryview)):
        return bytes(content), None, None
    if isinstance(content, str):
        stripped = content.strip()
        if "\n" not in stripped and stripped.lower().endswith((".csv", ".xlsx", ".txt", ".tsv")):
            raise InputError(f"content={stripped!r} looks like a file name; pass pathlib.Path({stripped!r}) to read a file",
                             argument="content", value=stripped, recovery="Pass pathlib.Path(...) for a file, or the text itself.")
        return content.encode("utf-8"), None, None
    raise InputError.bad_value("content", type(content).__name__, "bytes, str (the text), pathlib.Path or pandas.DataFrame")


def _original(raw: bytes | None, frame: pd.DataFrame | None, filename: str | None, fmt: str) -> dict[str, Any]:
    if raw is None:
        text = frame.to_csv()  # a DataFrame has no bytes: keep its CSV rendering
        return {"format": fmt, "filename": None, "encoding": "csv-of-dataframe", "data": text,
                "bytes": len(text.encode()), "sha256": hashlib.sha256(text.encode()).hexdigest()}
    out = {"format": fmt, "filename": filename, "bytes": len(raw), "sha256": hashlib.sha256(raw).hexdigest()}
    try:
        text = raw.decode("utf-8")
        if text.encode("utf-8") == raw:
            return {**out, "encoding": "utf-8", "data": text}
    except UnicodeDecodeError:
        pass
    return {**out, "encoding": "base64", "data": base64.b64encode(raw).decode("ascii")}


def original_bytes(dataset: dict[str, Any]) -> bytes:
    """The user's bytes exactly as uploaded (from ``dataset["original"]``)."""
    orig = dataset["original"]
    if orig["encoding"] == "base64":
        return base64.b64decode(orig["data"])
    return orig["data"].encode("utf-8")


def dataset_json(dataset: dict[str, Any]) -> dict[str, Any]:
    """The JSON part of a dataset: everything but the pandas series."""
    return {k: v for k, v in dataset.items() if k != "series"}


def _resolution(index: pd.DatetimeIndex, annual: bool) -> str:
    if annual:
        return "annual"
    if len(index) < 2:
        return "irregular"
    diffs = pd.Series(index[1:] - index[:-1])
    # Regular: most steps are the unit step and every step is a whole number of them (the rest are gaps).
    for unit, label in ((pd.Timedelta(hours=1), "hourly"), (pd.Timedelta(days=1), "daily")):
        if (diffs == unit).mean() >= 0.5 and ((diffs % unit) == pd.Timedelta(0)).all():
            return label
    days = diffs.dt.days
    if (index.day == index[0].day).all() and days.between(28, 31).mean() > 0.5 and (days >= 28).all():
        return "monthly"
    if (index.day_of_year == index[0].day_of_year).all() and (days >= 365).all():
        return "annual"
    return "irregular"


def _monthly_gaps(index: pd.DatetimeIndex) -> dict[str, Any]:
    months = index.year * 12 + index.month - 1
    jumps = np.flatnonzero(np.diff(months) > 1)
    runs = []
    for i in jumps:
        a, b = months[i] + 1, months[i + 1] - 1
        runs.append({"start": f"{a // 12}-{a % 12 + 1:02d}", "end": f"{b // 12}-{b % 12 + 1:02d}", "steps": int(b - a + 1)})
    return {"n_missing": int(sum(r["steps"] for r in runs)), "n_gaps": len(runs), "gaps": runs[:50]}


def ingest(name: str, content: bytes | str | pathlib.Path | pd.DataFrame, *, value_column: str | int | None = None,
           date_column: str | int | None = None, unit: str | None = None, variable: str | None = None,
           dayfirst: bool | None = None) -> dict[str, Any]:
    """Read an uploaded CSV or XLSX table into a dataset.

    Parameters
    ----------
    name : what the dataset is called (its station id in :class:`UploadSource`).
    content : the file's bytes, its text, a ``pathlib.Path`` or a ``pandas.DataFrame``.
    value_column, date_column : the columns to use (name or 0-based position); found when ``None``.
    unit, variable : of the value column (with several value columns: of ``value_column``). Found in
        the header when ``None`` ("Q (m3/s)", "flow_cfs", "[mm]"); asked in ``questions`` otherwise.
    dayfirst : for dates like 03/04/2020 that could be either; refused with a question when unknowable.

    Returns
    -------
    dict with ``name, kind="upload", format, variables, series (dict column -> pandas.Series; not JSON),
    columns, unit, resolution, period, gaps, questions, warnings, original`` (the bytes, verbatim:
    :func:`original_bytes` returns them) and ``ingested`` (UTC time). :func:`dataset_json` drops the series.
    """
    if not isinstance(name, str) or not name.strip():
        raise InputError.bad_value("name", name, "a non-empty name for the dataset")
    raw, frame, filename = _content_bytes(content)
    fmt = "dataframe" if frame is not None else _tables.sniff_format(raw, filename)
    original = _original(raw, frame, filename, fmt)
    warnings: list[str] = []
    if fmt == "dataframe":
        table = _tables.frame_table(frame)
    elif fmt == "xlsx":
        table = _tables.xlsx_table(raw)
    else:
        table = _tables.text_table(raw, warnings)
    parsed = _tables.interpret(table, value_column=value_column, date_column=date_column, dayfirst=dayfirst,
                               warnings=warnings)
    questions: list[str] = []
    resolution = _resolution(parsed.index, parsed.annual)
    series: dict[str, pd.Series] = {}
    variables: list[dict[str, Any]] = []
    columns: list[dict[str, Any]] = [{"name": parsed.date_label, "role": "date", "header": parsed.date_header}]
    ingested = utc_now()
    single = len(parsed.values) == 1
    prov = source_row("upload", dataset=f"{name} (uploaded {fmt}{', ' + filename if filename else ''}; "
                                         f"sha256 {original['sha256'][:12]})", accessed=ingested)
    for col in parsed.values:
        chosen = single or (value_column is not None and col.position == parsed.value_position)
        col_unit = unit if (unit is not None and chosen) else col.unit
        col_var = variable if (variable is not None and chosen) else col.variable
        if col_unit is None:
            questions.append(f"What is the unit of column {col.label!r}? (for example m3/s, ft3/s, l/s, mm/d, mm, degC, m)")
        if col_var is None:
            questions.append(f"What does column {col.label!r} measure? (for example discharge, precipitation, "
                             "air_temperature, groundwater_level)")
        values = pd.Series(col.values, index=parsed.index, dtype=float)
        observed = values.dropna()
        gaps = _monthly_gaps(observed.index) if resolution == "monthly" else list_gaps(observed.index, resolution)
        gaps["n_empty_cells"] = int(values.isna().sum())
        if col.sentinels:
            warnings.append(f"column {col.label!r} holds {col.sentinels} value(s) of -9999/-999: a missing-value "
                            "code? They are kept as numbers; remove them or say so.")
        s = observed.copy()
        s.name = col_var or col.label
        s.index.name = "date"
        s.attrs = {"variable": col_var, "column": col.label, "unit": col_unit, "resolution": resolution,
                   "source": "upload", "station_id": name, "name": name, "provenance": prov, "gaps": gaps}
        series[col.label] = s
        summary = record_summary(observed, resolution) if len(observed) else {
            "period_start": None, "period_end": None, "years": 0.0, "n_values": 0}
        entry = variable_entry(col_var or col.label, col_unit or "unknown", resolution, source="upload", offline=True,
                               note=f"column {col.label!r} of {filename or name}", **summary)
        entry.update({"column": col.label, "variable_known": col_var is not None, "unit_known": col_unit is not None,
                      "gaps": gaps})
        variables.append(entry)
        columns.append({"name": col.label, "role": "value", "header": col.header, "unit": col_unit,
                        "variable": col_var, "n_values": int(len(observed))})
    for label in parsed.ignored:
        columns.append({"name": label, "role": "ignored"})
    first = variables[0]
    return {
        "name": name,
        "kind": "upload",
        "format": fmt,
        "variables": variables,
        "series": series,
        "columns": columns,
        "unit": first["unit"] if first["unit_known"] else None,
        "resolution": resolution,
        "period": {"start": parsed.index[0].isoformat(), "end": parsed.index[-1].isoformat()},
        "gaps": first["gaps"],
        "questions": questions,
        "warnings": warnings,
        "layout": parsed.layout,
        "original": original,
        "ingested": ingested,
    }


class UploadSource(Source):
    """Ingested datasets behind the source interface; a dataset has a position only if the user gives one."""

    name = "upload"
    title = "the user's uploads"

    def __init__(self, datasets: list[dict[str, Any]] | None = None) -> None:
        self._datasets: dict[str, dict[str, Any]] = {}
        self._places: dict[str, tuple[float, float, float | None]] = {}
        for d in datasets or []:
            self.add(d)

    def add(self, dataset: dict[str, Any], *, lat: float | None = None, lon: float | None = None,
            area_km2: float | None = None) -> str:
        """Register an ingested dataset (optionally at a position); returns its station id (its name)."""
        if not isinstance(dataset, dict) or dataset.get("kind") != "upload":
            raise InputError.bad_value("dataset", type(dataset).__name__, "a dataset returned by ingest()")
        sid = dataset["name"]
        self._datasets[sid] = dataset
        if lat is not None or lon is not None:
            la, lo = validate_point(lat, lon)
            self._places[sid] = (la, lo, area_km2)
        else:
            self._places.pop(sid, None)
        return sid

    def _index(self) -> tuple[PointIndex, list[str]]:
        ids = list(self._places)
        return PointIndex(np.array([self._places[i][0] for i in ids]), np.array([self._places[i][1] for i in ids])), ids

    def _known(self, station_id: Any) -> dict[str, Any]:
        if station_id not in self._datasets:
            held = ", ".join(sorted(self._datasets)) or "none yet"
            raise DataNotFoundError(f"no upload called {station_id!r} (uploads: {held})", argument="station_id",
                                    value=station_id, recovery="Ingest the file first, or use one of the names listed.")
        return self._datasets[station_id]

    def _row(self, sid: str, distance_km: float | None) -> dict[str, Any]:
        d = self._datasets[sid]
        lat, lon, area = self._places.get(sid, (None, None, None))
        variables = [{k: v[k] for k in ("variable", "unit", "resolution", "period_start", "period_end", "years",
                                        "n_values", "offline", "live", "source", "note", "column")}
                     for v in d["variables"]]
        return station_row(source=self.name, station_id=sid, name=sid, lat=lat, lon=lon, distance_km=distance_km,
                           area_km2=area, regulation=None, variables=variables, url=None)

    def stations_near(self, lat: float, lon: float, *, radius_km: float = 50.0, limit: int | None = 20,
                      variable: str | None = None) -> list[dict[str, Any]]:
        lat, lon, radius_km, limit = validate_query(lat, lon, radius_km, limit)
        index, ids = self._index()
        rows = []
        for r, dist in zip(*index.within(lat, lon, radius_km)):
            row = self._row(ids[r], float(dist))
            if variable is None or any(v["variable"] == variable for v in row["variables"]):
                rows.append(row)
        return rows[:limit] if limit is not None else rows

    def find_stations(self, text: str, *, limit: int | None = 20) -> list[dict[str, Any]]:
        ids = match_text(text, ((k, k) for k in self._datasets))
        return [self._row(sid, None) for sid in (ids[:limit] if limit is not None else ids)]

    def describe_station(self, station_id: str) -> dict[str, Any]:
        d = self._known(station_id)
        row = self._row(station_id, None)
        return {**row, "aliases": [], "state": None, "huc8": None, "drainage_area_sqmi": None,
                "drainage_area_km2": row["area_km2"], "citation": "supplied by the user",
                "datasets": [next(iter(d["series"].values())).attrs["provenance"]],
                "attributes": {"format": d["format"], "columns": d["columns"], "questions": d["questions"],
                               "warnings": d["warnings"], "original_sha256": d["original"]["sha256"]}}

    def fetch_series(self, station_id: str, variable: str, *, start: Any = None, end: Any = None) -> pd.Series:
        d = self._known(station_id)
        for v in d["variables"]:
            if variable in (v["variable"], v["column"]):
                s = d["series"][v["column"]]
                out = slice_period(s, start, end, what=f"upload {station_id} {variable}").copy()
                out.attrs = dict(s.attrs)
                out.attrs["gaps"] = list_gaps(out.index, s.attrs["resolution"]) if s.attrs["resolution"] != "monthly" \
                    else _monthly_gaps(out.index)
                return out
        held = ", ".join(f"{v['variable']} (column {v['column']!r}, {v['unit']})" for v in d["variables"])
        raise DataNotFoundError(f"upload {station_id!r} holds no {variable!r}; it holds {held}", argument="variable",
                                value=variable, recovery=f"Ask for one of: {held}.")
