"""The user's own data: CSV and XLSX uploads read into a dataset the Scout can inventory.

``ingest(name, content)`` reads the table, finds the date and value columns, the units and the
resolution, counts and lists the gaps (never fills them) and keeps the user's bytes verbatim.
What it cannot tell (a unit, a variable) it asks in ``questions`` instead of guessing; what is
wrong (duplicated dates, text among the values, an empty file, something that is not a table)
it refuses with an :class:`InputError` naming the problem and the rows.

A table of water-quality samples (long: a date, parameter and value column, optionally unit,
lower/upper objectives and a detection limit; or wide: a date column and one column per sampled
parameter such as pH, dissolved oxygen or nitrate) is read as one variable, ``water_quality``, of
resolution ``sample``, with its parameters listed (unit, sample count, period, calendar years).

:class:`UploadSource` serves ingested datasets through the source interface; a samples table is
read whole with :meth:`UploadSource.fetch_samples`, one parameter with ``fetch_series``.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import pathlib
import re
from typing import Any

import numpy as np
import pandas as pd

from aquascope_core import limits
from aquascope_core.data import _tables, peakfq_files, streamstats
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



def _content_bytes(content: Any) -> tuple[bytes | None, pd.DataFrame | None, str | None]:
    """(raw bytes, a DataFrame, the file name) from what the caller gave."""
    if isinstance(content, pd.DataFrame):
        return None, content, None
    if isinstance(content, pathlib.Path):
        if not content.is_file():
            raise InputError.bad_value("content", str(content), "an existing file (CSV or XLSX)")
        limits.check_upload_bytes(content.stat().st_size, what=f"the file {content.name}")
        return content.read_bytes(), None, content.name
    if isinstance(content, (bytes, bytearray, memoryview)):
        limits.check_upload_bytes(len(content))
        return bytes(content), None, None
    if isinstance(content, str):
        stripped = content.strip()
        if "\n" not in stripped and stripped.lower().endswith((".csv", ".xlsx", ".txt", ".tsv")):
            raise InputError(f"content={stripped!r} looks like a file name; pass pathlib.Path({stripped!r}) to read a file",
                             argument="content", value=stripped, recovery="Pass pathlib.Path(...) for a file, or the text itself.")
        limits.check_upload_bytes(len(content))
        try:
            return content.encode("utf-8"), None, None
        except UnicodeEncodeError as exc:  # lone surrogates from a broken paste
            raise InputError(f"the text holds characters that are not valid Unicode ({exc.reason} at position "
                             f"{exc.start})", argument="content", recovery="Paste or save the table again as UTF-8.") from None
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
    from aquascope_core.data.upload_store import original_content

    data = original_content(dataset["original"])  # inline, or held by reference (upload_store)
    return data.encode("utf-8") if isinstance(data, str) else data


def dataset_json(dataset: dict[str, Any]) -> dict[str, Any]:
    """The JSON part of a dataset: everything but the pandas series (and a samples table's frame)."""
    return {k: v for k, v in dataset.items() if k not in ("series", "samples")}


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


# The least value each variable can physically take (a negative discharge or rainfall is a code or a typo).
PHYSICAL_MINIMUM = {"discharge": 0.0, "precipitation": 0.0, "potential_evapotranspiration": 0.0,
                    "evapotranspiration": 0.0, "snow_depth": 0.0, "annual_max_discharge": 0.0}


def _physical_check(variable: str | None, label: str, values: pd.Series) -> None:
    low = PHYSICAL_MINIMUM.get(variable or "")
    if low is None:
        return
    bad = values[values < low]
    if len(bad):
        dates = ", ".join(str(d.date()) for d in bad.index[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
        raise InputError(f"column {label!r} ({variable}) holds {len(bad)} value(s) below {low:g}, which a {variable} "
                         f"cannot take, dated {dates} (first {bad.iloc[0]:g})", argument=label, value=float(bad.iloc[0]),
                         recovery="Write missing values (-9999 and the like) as empty cells or NA, and fix typos.")


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
    peakfq_kind = peakfq_files.sniff(raw, filename) if raw is not None and fmt != "xlsx" else None
    if peakfq_kind is not None:  # a USGS peak file (WATSTORE or RDB) or a PeakFQ .psf
        ingested = utc_now()
        prov = source_row("upload", dataset=f"{name} (uploaded {peakfq_kind}{', ' + filename if filename else ''}; "
                                             f"sha256 {original['sha256'][:12]})", accessed=ingested)
        return peakfq_files.upload_dataset(name, peakfq_kind, raw, filename, original, ingested, prov)
    if raw is not None and fmt != "xlsx" and streamstats.sniff(raw):  # a StreamStats basin-characteristics report
        report = streamstats.read_report(raw)
        return {"name": name, "kind": "upload", "format": "streamstats", "layout": "streamstats", "columns": [],
                "questions": [], "warnings": [], "variables": [], "series": {}, "unit": None, "resolution": None,
                "period": None, "gaps": None, "original": original, "ingested": utc_now(), "basin_characteristics": report}
    warnings: list[str] = []
    if fmt == "dataframe":
        table = _tables.frame_table(frame)
    elif fmt == "xlsx":
        table = _tables.xlsx_table(raw)
    else:
        table = _tables.text_table(raw, warnings)
    long = _long_samples_header(table, asked=variable == WATER_QUALITY) if variable in (None, WATER_QUALITY) else None
    if long is not None:
        frame, limits, layout = _long_samples(table, long, dayfirst=dayfirst, date_column=date_column,
                                              warnings=warnings)
        return _samples_dataset(name, fmt, filename, original, frame, limits, layout, warnings)
    parsed = _tables.interpret(table, value_column=value_column, date_column=date_column, dayfirst=dayfirst,
                               warnings=warnings)
    if variable == WATER_QUALITY or (variable is None and _looks_like_samples(parsed)):
        frame, layout = _wide_samples(parsed, unit=unit, warnings=warnings)
        return _samples_dataset(name, fmt, filename, original, frame, {}, layout, warnings)
    questions: list[str] = []
    resolution = _resolution(parsed.index, parsed.annual)
    series: dict[str, pd.Series] = {}
    variables: list[dict[str, Any]] = []
    columns: list[dict[str, Any]] = [{"name": parsed.date_label, "role": "date", "header": parsed.date_header}]
    ingested = utc_now()
    single = len(parsed.values) == 1
    prov = source_row("upload", dataset=f"{name} (uploaded {fmt}{', ' + filename if filename else ''}; "
                                         f"sha256 {original['sha256'][:12]})", accessed=ingested,
                      citation=_upload_citation(name, filename, fmt, original, ingested))
    for col in parsed.values:
        chosen = single or (value_column is not None and col.position == parsed.value_position)
        col_unit = unit if (unit is not None and chosen) else col.unit
        col_var = variable if (variable is not None and chosen) else col.variable
        col_values = col.values
        col_var, col_values, asked = _annual_or_depth(col, col_var, col_values, resolution,
                                                      given=variable is not None and chosen, warnings=warnings)
        questions.extend(asked)
        if col_unit is None:
            forms = _UNIT_FORMS.get(col_var or "", ("(m3/s)", "_cfs", "[mm]", "_m"))
            shown = ", ".join(f"\"{col.label}{' ' if f[0] in '([' else ''}{f}\"" for f in forms)
            questions.append(f"What is the unit of column {col.label!r}? Name it in the header, for example {shown} "
                             "(units read: m3/s, ft3/s, l/s, mm/d, mm, degC, m, m a.s.l., mg/L)")
        if col_var is None and not asked:
            questions.append(f"What does column {col.label!r} measure? Name it in the header, for example "
                             "\"discharge (m3/s)\", \"peak_cfs\" (annual peaks), \"precipitation [mm]\", "
                             "\"level_m\" with a groundwater question, \"gwl_m\" or \"depth_to_water_m\"")
        values = pd.Series(col_values, index=parsed.index, dtype=float)
        _physical_check(col_var, col.label, values)
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


def _upload_citation(name: str, filename: str | None, fmt: str, original: dict[str, Any], ingested: str, *,
                     what: str = "table") -> str:
    """The reference a report lists for the user's table: one whole line (no "; " a list would split on)."""
    shown = filename if filename and filename != name else name
    return (f"The user's {what} {shown}, {fmt.upper()} uploaded {str(ingested)[:10]} "
            f"(sha256 {original['sha256'][:12]}), kept verbatim in the study.")


_ANNUAL_KINDS = ("peak_discharge", "annual_max_discharge")
# Header forms a unit question offers, by what the column was read as.
_UNIT_FORMS = {"peak_discharge": ("(m3/s)", "_cfs"), "annual_max_discharge": ("(m3/s)", "_cfs"),
               "discharge": ("(m3/s)", "_cfs", "(l/s)"), "groundwater_level": ("_m", "(m a.s.l.)"),
               "water_level": ("_m", "(m a.s.l.)"), "precipitation": ("[mm]", "_mm"),
               "air_temperature": ("(degC)",)}


def _annual_or_depth(col: _tables.ValueColumn, var: str | None, values: Any, resolution: str, *, given: bool,
                     warnings: list[str]) -> tuple[str | None, Any, list[str]]:
    """What a column holds once its resolution is known: (variable, values, questions).

    An annual table's peak or maximum column is an annual-maximum series; an annual discharge column that
    does not say which (a peak or a mean) is asked about, never guessed; a peak column with several values a
    year is not an annual series. A depth to water below the ground becomes a groundwater level relative to
    the ground surface (negated, so that larger is higher), with a warning that says so."""
    if var == _tables.DEPTH_TO_WATER:
        warnings.append(f"column {col.label!r} is a depth to water below the ground: it is read as a groundwater "
                        "level relative to the ground surface (the depths negated, so larger is higher)")
        return "groundwater_level", -values, []
    if given:
        return var, values, []
    if var in _ANNUAL_KINDS and resolution != "annual":
        return None, values, [f"Column {col.label!r} reads as annual peaks but holds {resolution} values: an annual "
                              "peak table has one row per year (year, peak), for example \"water_year,peak_cfs\"."]
    if var == "discharge" and resolution == "annual":
        return None, values, [f"Column {col.label!r} holds one discharge a year: is it each year's peak (annual "
                              "maximum) or the annual mean? Say so in the header, for example \"peak_cfs\" or "
                              "\"annual_max (m3/s)\" for maxima (a flood study), or upload the daily record."]
    return var, values, []


# ----------------------------------------------------------------------------- tables of samples

WATER_QUALITY = "water_quality"


def _key(text: Any) -> str:
    return "".join(ch for ch in str(text or "").lower() if ch.isalnum())


# Header words of a long table of samples (compared without case, spaces or punctuation).
_LONG_COLUMNS = {
    "parameter": {"parameter", "variable", "analyte", "determinand", "characteristic", "characteristicname",
                  "constituent", "param", "substance", "parametername", "variablename"},
    "value": {"value", "result", "resultvalue", "concentration", "measurement", "measuredvalue", "reading"},
    "unit": {"unit", "units", "uom", "unitcode", "resultunit", "valueunit"},
    "lower": {"lower", "lowerlimit", "lowerobjective", "objectivelower", "minobjective", "lowerguideline"},
    "upper": {"upper", "upperlimit", "upperobjective", "objectiveupper", "maxobjective", "upperguideline",
              "objective", "guideline"},
    "detection_limit": {"detectionlimit", "dl", "mdl", "rdl", "lod", "reportinglimit"},
    "date": {"date", "datetime", "sampledate", "sampledatetime", "collectiondate", "activitystartdate", "time",
             "timestamp", "sampled", "datum"},
}
# Parameter names and units that mark a column of a wide table as a sampled water-quality parameter.
_WQ_WORDS = {
    "ph", "do", "dissolvedoxygen", "oxygen", "oxygendissolved", "conductivity", "specificconductance", "ec",
    "turbidity", "tss", "totalsuspendedsolids", "tds", "totaldissolvedsolids", "nitrate", "nitrite", "ammonia",
    "ammonium", "tp", "totalphosphorus", "phosphorus", "phosphate", "orthophosphate", "tn", "totalnitrogen",
    "nitrogen", "tkn", "chloride", "sulphate", "sulfate", "ecoli", "fc", "fecalcoliforms", "faecalcoliforms",
    "coliforms", "totalcoliforms", "enterococci", "arsenic", "lead", "mercury", "cadmium", "copper", "zinc", "iron",
    "manganese", "aluminium", "aluminum", "selenium", "boron", "uranium", "fluoride", "chromium", "nickel",
    "antimony", "barium", "bod", "bod5", "cod", "toc", "doc", "alkalinity", "hardness", "calcium", "magnesium",
    "sodium", "potassium", "chlorophyll", "chlorophylla", "watertemperature", "salinity", "silica",
}
_WQ_UNITS = {"mg/l", "µg/l", "ug/l", "μg/l", "ng/l", "ntu", "fnu", "cfu/100ml", "mpn/100ml", "#/100ml", "#/dl",
             "µs/cm", "us/cm", "μs/cm", "ms/cm", "ph", "phunits", "ph units", "mg/l as n", "mg/l as no3", "mg/l as p"}
_BELOW = re.compile(r"^\s*[<>≤≥]\s*")


def _wq_unit(text: Any) -> str | None:
    """A unit of a sampled parameter named in header text ("Nitrate (mg/L as N)" -> "mg/L as N"), else None."""
    if not isinstance(text, str):
        return None
    for inner in re.findall(r"[\(\[]\s*([^\)\]]+?)\s*[\)\]]", text):
        if inner.strip().lower().replace(" /", "/").replace("/ ", "/") in _WQ_UNITS:
            return inner.strip()
    return None


def _long_samples_header(table: _tables.Table, *, asked: bool = False) -> dict[str, int] | None:
    """{role: column} and the header row of a long table of samples, or None when the table is not one.

    A long table names a parameter column and a value column in one of its first rows; unless samples
    were ``asked`` for, a table whose parameters are all hydrological variables (a long discharge or
    rainfall record) is not taken for samples."""
    for r, row in enumerate(table.rows[:5]):
        keys = [_key(c) for c in row]
        cols = {}
        for role, words in _LONG_COLUMNS.items():
            hit = next((i for i, k in enumerate(keys) if k in words), None)
            if hit is not None:
                cols[role] = hit
        if "parameter" in cols and "value" in cols and cols["parameter"] != cols["value"]:
            names = {str(row_[cols["parameter"]]).strip() for row_ in table.rows[r + 1:r + 500]
                     if len(row_) > cols["parameter"] and not _tables._is_na(row_[cols["parameter"]])}
            if not asked and names and all(_tables.variable_from_text(n) in ("discharge", "precipitation",
                                                                "potential_evapotranspiration", "groundwater_level",
                                                                "water_level") for n in names):
                return None
            cols["header_row"] = r
            return cols
    return None


def _long_samples(table: _tables.Table, cols: dict[str, int], *, dayfirst: bool | None, date_column: Any,
                  warnings: list[str]) -> tuple[pd.DataFrame, dict[str, dict[str, Any]], dict[str, Any]]:
    """The samples of a long table as a frame (date, parameter, value, unit) and the objectives it states."""
    head = cols["header_row"]
    header = [str(c) if not _tables._is_na(c) else "" for c in table.rows[head]]
    width = len(header)
    data = [r for r in range(head + 1, len(table.rows)) if any(not _tables._is_na(c) for c in table.rows[r])]
    if not data:
        raise InputError("the table of samples has a header but no rows below it", argument="content",
                         recovery="Add the samples, one row per date and parameter.")
    grid = [list(table.rows[r][:width]) + [None] * (width - len(table.rows[r])) for r in data]
    if date_column is not None:
        d_pos = _tables._position("date_column", date_column, header, [[h] for h in header])
    elif "date" in cols:
        d_pos = cols["date"]
    else:
        d_pos = next((c for c in range(width) if c not in cols.values()
                      and all(_tables._date_kind(row[c]) for row in grid[:50])), None)
        if d_pos is None:
            raise InputError("the table of samples has no date column (a column named date, or of ISO dates such as "
                             "1997-01-07)", argument="date_column", recovery="Name the date column with date_column=...")
    index = _tables._parse_dates([row[d_pos] for row in grid], data, table, dayfirst, warnings, header[d_pos])
    texts = [row[cols["value"]] for row in grid if isinstance(row[cols["value"]], str)]
    decimal = "," if table.text and sum(bool(_tables._NUM_COMMA.match(t.replace(" ", ""))) for t in texts) > \
        sum("." in t for t in texts) else "."
    if decimal == ",":
        warnings.append("decimal commas read as decimal points (1,5 = 1.5)")

    def number(cell: Any, k: int, what: str) -> float:
        if _tables._is_na(cell):
            return np.nan
        x = _tables._number(cell, decimal)
        if x is not None:
            return x
        line = table.lines[data[k]]
        if isinstance(cell, str) and _BELOW.match(cell):
            raise InputError(f"the {what} at line {line} is {cell!r}, a value below (or above) a detection limit; give "
                             "it as a number (the convention you use: 0, half the limit or the limit itself) or leave "
                             "the cell empty: it is not substituted here", argument="content",
                             recovery="Resolve the censored values in the table and upload it again.")
        raise InputError(f"the {what} at line {line} is {cell!r}, not a number", argument="content",
                         recovery="Write missing values as empty cells or NA.")

    rows, limits, seen = [], {}, {}
    empty = {}
    for k, row in enumerate(grid):
        param = row[cols["parameter"]]
        if _tables._is_na(param):
            raise InputError(f"line {table.lines[data[k]]} names no parameter", argument="content",
                             recovery="Give every row its parameter.")
        param = str(param).strip()
        value = number(row[cols["value"]], k, "value")
        unit = row[cols["unit"]] if "unit" in cols and not _tables._is_na(row[cols["unit"]]) else None
        unit = None if unit is None else str(unit).strip()
        lim = {role: number(row[cols[role]], k, role.replace("_", " ")) for role in ("lower", "upper", "detection_limit")
               if role in cols}
        when = index[k]
        if (param, when) in seen:
            raise InputError(f"parameter {param!r} has two values at {when.isoformat()} (lines "
                             f"{table.lines[data[seen[(param, when)]]]} and {table.lines[data[k]]}); keep one, or give "
                             "the sampling time to tell them apart", argument="content")
        seen[(param, when)] = k
        prior = limits.setdefault(param, {"unit": unit, **{r: v for r, v in lim.items()}})
        if prior["unit"] != unit:
            raise InputError(f"parameter {param!r} is given in {prior['unit']!r} and in {unit!r} (line "
                             f"{table.lines[data[k]]}); give one unit per parameter", argument="content")
        for role, v in lim.items():
            old = prior.get(role)
            if not (np.isnan(v) and np.isnan(old)) and v != old:
                raise InputError(f"the {role.replace('_', ' ')} of {param!r} changes at line {table.lines[data[k]]} "
                                 f"({old:g} before, {v:g} here); the table gives one value per parameter",
                                 argument="content")
        if np.isnan(value):
            empty[param] = empty.get(param, 0) + 1
            continue
        rows.append((when, param, value, unit))
    frame = pd.DataFrame(rows, columns=["date", "parameter", "value", "unit"])
    frame["date"] = pd.to_datetime(frame["date"])
    objectives = {}
    for param, lim in limits.items():
        clean = {r: float(v) for r, v in lim.items() if r != "unit" and v is not None and not np.isnan(v)}
        clean["n_empty"] = empty.get(param, 0)
        objectives[param] = clean
    layout = {"table": "samples_long", "separator": table.separator, "decimal": decimal, "header_rows": 1,
              "first_data_line": table.lines[data[0]],
              "columns": {role: header[c] for role, c in cols.items() if role != "header_row"}}
    layout["columns"]["date"] = header[d_pos]
    return frame, objectives, layout


def _looks_like_samples(parsed: _tables.Parsed) -> bool:
    """A wide table whose value columns are mostly sampled water-quality parameters (by name or unit)."""
    def wq(col: _tables.ValueColumn) -> bool:
        name = re.sub(r"[\(\[][^\)\]]*[\)\]]", " ", col.header[0] if col.header else col.label)
        by_unit = any(_wq_unit(h) for h in col.header) or any(str(h).strip().lower() in _WQ_UNITS
                                                               for h in col.header[1:])
        # a name a hydrological record also uses (Tn: minimum air temperature) counts only with its unit
        return by_unit or (_key(name) in _WQ_WORDS and col.variable is None)
    hits = sum(wq(c) for c in parsed.values)
    return hits > 0 and hits * 2 > len(parsed.values) and not parsed.annual


def _wide_samples(parsed: _tables.Parsed, *, unit: str | None, warnings: list[str]) -> tuple[pd.DataFrame, dict[str, Any]]:
    rows = []
    names = [re.sub(r"\s*[\(\[][^\)\]]*[\)\]]\s*", " ", c.header[0] if c.header else c.label).strip() or c.label
             for c in parsed.values]
    for col, name in zip(parsed.values, names):
        if names.count(name) > 1:  # "Nitrate (mg/L as N)" beside "Nitrate (mg/L)": keep the header whole
            name = col.label
        u = (unit if unit is not None and len(parsed.values) == 1 else None) or next(
            (x for x in (_wq_unit(h) for h in col.header) if x), None) or (
            col.header[1].strip() if len(col.header) > 1 and col.header[1].strip() else None) or col.unit
        for when, v in zip(parsed.index, col.values):
            if not np.isnan(v):
                rows.append((when, name, float(v), u))
    frame = pd.DataFrame(rows, columns=["date", "parameter", "value", "unit"])
    frame["date"] = pd.to_datetime(frame["date"])
    layout = {"table": "samples_wide", **parsed.layout}
    return frame, layout


def _samples_dataset(name: str, fmt: str, filename: str | None, original: dict[str, Any], frame: pd.DataFrame,
                     limits: dict[str, dict[str, Any]], layout: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    """The dataset of a samples table: one ``water_quality`` variable listing its parameters; never filled."""
    if frame.empty:
        raise InputError("the table of samples holds no values (every value cell is empty)", argument="content",
                         recovery="Upload a table with the sampled values.")
    ingested = utc_now()
    prov = source_row("upload", dataset=f"{name} (uploaded {fmt} of water-quality samples"
                                        f"{', ' + filename if filename else ''}; sha256 {original['sha256'][:12]})",
                      accessed=ingested, citation=_upload_citation(name, filename, fmt, original, ingested,
                                                                   what="table of water-quality samples"))
    frame = frame.sort_values("date", kind="stable").reset_index(drop=True)  # parameters keep the table's order
    frame["unit"] = frame["unit"].astype(object).where(frame["unit"].notna(), None)
    questions: list[str] = []
    params, series = [], {}
    for param, g in frame.groupby("parameter", sort=False):
        unit = g["unit"].iloc[0]
        unit = None if unit is None or (isinstance(unit, float) and np.isnan(unit)) else str(unit)
        lim = limits.get(param, {})
        if unit is None and _key(param) != "ph":
            questions.append(f"What is the unit of {param!r}? (for example mg/L, ug/L, mg/L as N, NTU, CFU/100 mL)")
        s = pd.Series(g["value"].to_numpy(dtype=float), index=pd.DatetimeIndex(g["date"]), name=param)
        s.index.name = "date"
        s.attrs = {"variable": WATER_QUALITY, "parameter": param, "column": param, "unit": unit, "resolution": "sample",
                   "source": "upload", "station_id": name, "name": name, "provenance": prov,
                   "gaps": {"n_missing": 0, "n_gaps": 0, "gaps": []}}
        series[param] = s
        dl = lim.get("detection_limit")
        params.append({
            "parameter": param, "unit": unit, "n_samples": int(s.size), "n_empty": int(lim.get("n_empty", 0)),
            "period_start": s.index[0].date().isoformat(), "period_end": s.index[-1].date().isoformat(),
            "years": int(s.index.year.nunique()), "lower": lim.get("lower"), "upper": lim.get("upper"),
            "detection_limit": dl, "n_below_detection": None if dl is None else int((s < dl).sum()),
        })
    dates = pd.DatetimeIndex(frame["date"])
    entry = variable_entry(WATER_QUALITY, "by parameter", "sample", source="upload", offline=True,
                           note=f"{len(params)} sampled parameter(s) of {filename or name}",
                           period_start=dates[0].date().isoformat(), period_end=dates[-1].date().isoformat(),
                           years=float(dates.year.nunique()), n_values=int(len(frame)))
    entry.update({"column": "parameters", "variable_known": True, "unit_known": not questions,
                  "gaps": {"n_missing": 0, "n_gaps": 0, "gaps": [], "n_empty_cells": sum(p["n_empty"] for p in params)},
                  "parameters": params, "n_parameters": len(params), "n_sampling_dates": int(dates.nunique())})
    return {
        "name": name, "kind": "upload", "format": fmt, "variables": [entry], "series": series,
        "samples": frame[["date", "parameter", "value", "unit"]].copy(),
        "columns": [{"name": p["parameter"], "role": "parameter", "unit": p["unit"], "n_values": p["n_samples"]}
                    for p in params],
        "unit": None, "resolution": "sample",
        "period": {"start": dates[0].isoformat(), "end": dates[-1].isoformat()},
        "gaps": entry["gaps"], "questions": questions, "warnings": warnings, "layout": layout,
        "original": original, "ingested": ingested,
    }


class UploadSource(Source):
    """Ingested datasets behind the source interface; a dataset has a position only if the user gives one."""

    name = "upload"
    title = "the user's uploads"

    def __init__(self, datasets: list[dict[str, Any]] | None = None) -> None:
        self._datasets: dict[str, dict[str, Any]] = {}
        self._places: dict[str, tuple[float, float, float | None]] = {}
        self._specs: dict[str, dict[str, Any]] = {}
        for d in datasets or []:
            self.add(d)

    def add(self, dataset: dict[str, Any], *, lat: float | None = None, lon: float | None = None,
            area_km2: float | None = None) -> str:
        """Register an ingested dataset (optionally at a position); returns its station id (its name)."""
        if not isinstance(dataset, dict) or dataset.get("kind") != "upload":
            raise InputError.bad_value("dataset", type(dataset).__name__, "a dataset returned by ingest()")
        sid = dataset["name"]
        if dataset.get("peakfq_spec") is not None:  # a PeakFQ .psf: options for the peak files, not a station
            self._specs[sid] = dataset["peakfq_spec"]
            return sid
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
        variables = [{**{k: v[k] for k in ("variable", "unit", "resolution", "period_start", "period_end", "years",
                                           "n_values", "offline", "live", "source", "note", "column")},
                      **{k: v[k] for k in ("parameters", "n_parameters", "n_sampling_dates") if k in v}}
                     for v in d["variables"]]
        named = (d.get("peakfq_station") or {}).get("name")  # a peak file names its station
        row = station_row(source=self.name, station_id=sid, name=named or sid, lat=lat, lon=lon, distance_km=distance_km,
                          area_km2=area, regulation=None, variables=variables, url=None)
        site = str((d.get("peakfq_station") or {}).get("site_no") or "").split(".")[0]
        if site.isdigit() and 8 <= len(site) <= 15:  # a USGS peak file numbers its gauge: the number it is known by
            row["agency_id"] = f"USGS {site}"
        return row

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
        if "samples" in d:  # a table of samples: one parameter at a time
            if variable in d["series"]:
                s = d["series"][variable]
                out = slice_period(s, start, end, what=f"upload {station_id} {variable}").copy()
                out.attrs = dict(s.attrs)
                return out
            held = ", ".join(d["series"])
            raise DataNotFoundError(f"upload {station_id!r} is a table of water-quality samples; ask for one of its "
                                    f"parameters ({held}) or read it whole with fetch_samples", argument="variable",
                                    value=variable, recovery=f"Ask for one of: {held}.")
        for v in d["variables"]:
            if variable in (v["variable"], v["column"]):
                s = d["series"][v["column"]]
                if d.get("peakfq_station") is not None and self._specs:  # the .psf uploaded beside it applies
                    s = peakfq_files.peak_series(d["peakfq_station"], list(self._specs.values()), name=station_id,
                                                 provenance=s.attrs["provenance"])
                elif d.get("peakfq_station") is not None:  # no .psf: a published study's, else PeakFQ's defaults
                    s = peakfq_files.without_spec(d["peakfq_station"], s, name=station_id)
                out = slice_period(s, start, end, what=f"upload {station_id} {variable}").copy()
                out.attrs = dict(s.attrs)
                out.attrs["gaps"] = list_gaps(out.index, s.attrs["resolution"]) if s.attrs["resolution"] != "monthly" \
                    else _monthly_gaps(out.index)
                return out
        held = ", ".join(f"{v['variable']} (column {v['column']!r}, {v['unit']})" for v in d["variables"])
        raise DataNotFoundError(f"upload {station_id!r} holds no {variable!r}; it holds {held}", argument="variable",
                                value=variable, recovery=f"Ask for one of: {held}.")

    def fetch_samples(self, station_id: str, *, start: Any = None, end: Any = None) -> pd.DataFrame:
        """A table of samples as a long frame (date, parameter, value, unit), a copy; ``attrs`` carry the
        provenance and the objectives and detection limits the table states, by parameter."""
        d = self._known(station_id)
        if "samples" not in d:
            held = ", ".join(v["variable"] for v in d["variables"])
            raise DataNotFoundError(f"upload {station_id!r} is not a table of samples; it holds {held}",
                                    argument="station_id", value=station_id,
                                    recovery="Upload a table of samples: date, parameter, value, unit.")
        frame = d["samples"]
        if start is not None or end is not None:
            idx = pd.Series(np.arange(len(frame)), index=pd.DatetimeIndex(frame["date"]))
            rows = slice_period(idx, start, end, what=f"upload {station_id} samples").to_numpy()
            frame = frame.iloc[rows]
        out = frame.reset_index(drop=True).copy()
        params = d["variables"][0]["parameters"]
        out.attrs = {"variable": WATER_QUALITY, "resolution": "sample", "source": "upload", "station_id": station_id,
                     "name": station_id, "provenance": dict(next(iter(d["series"].values())).attrs["provenance"]),
                     "parameters": [dict(p) for p in params]}
        return out
