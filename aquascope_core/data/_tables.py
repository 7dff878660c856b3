"""Reading an uploaded table: format, separator, header, date and value columns, units.

The functions here turn bytes into rows of cells (:func:`text_table`, :func:`xlsx_table`,
:func:`frame_table`) and rows into typed columns (:func:`interpret`). Every refusal is an
:class:`InputError` that names the problem and the lines; nothing is guessed where the file
is silent (units and variables come back as ``None`` for the caller to ask about).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
import re
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from aquascope_core import limits
from aquascope_core.errors import InputError

__all__ = ["Table", "Parsed", "sniff_format", "text_table", "xlsx_table", "frame_table", "interpret",
           "unit_from_text", "variable_from_text"]

_NA = {"", "na", "n/a", "nan", "null", "none", "-", "--", "missing", "#n/a", "nd", "n.d."}


def _refuse(message: str, argument: str = "content", recovery: str | None = None) -> InputError:
    return InputError(message, argument=argument, recovery=recovery or "Fix the file as the message says and upload it again.")


@dataclass
class Table:
    rows: list[list[Any]]
    lines: list[int]  # the file line (or sheet row) of each row, 1-based
    separator: str | None = None
    text: bool = True  # cells are strings to parse (CSV) rather than typed values


@dataclass
class ValueColumn:
    label: str
    position: int
    header: list[str]
    values: np.ndarray
    unit: str | None
    variable: str | None
    sentinels: int = 0


@dataclass
class Parsed:
    index: pd.DatetimeIndex
    values: list[ValueColumn]
    date_label: str
    date_header: list[str]
    annual: bool
    value_position: int | None
    ignored: list[str] = field(default_factory=list)
    layout: dict[str, Any] = field(default_factory=dict)


# ----------------------------------------------------------------------------- bytes -> rows

def sniff_format(raw: bytes, filename: str | None) -> str:
    """``"xlsx"`` or ``"csv"``; refuses empty files and files that are not tables."""
    if not raw or not raw.strip(b" \t\r\n\x00\xef\xbb\xbf"):
        raise _refuse("the file is empty: no rows to read")
    head = raw[:8]
    if head.startswith(b"PK\x03\x04"):
        try:
            names = zipfile.ZipFile(io.BytesIO(raw)).namelist()
        except zipfile.BadZipFile:
            raise _refuse("the file is a damaged ZIP/XLSX archive, not a table") from None
        if "xl/workbook.xml" in names:
            return "xlsx"
        raise _refuse("the file is a ZIP archive, not a table (upload the CSV or XLSX inside it)")
    if head.startswith(b"\xd0\xcf\x11\xe0"):
        raise _refuse("the file is a legacy Excel .xls (or another OLE document); save it as .xlsx or CSV")
    for magic, what in ((b"%PDF", "a PDF document"), (b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"),
                        (b"GIF8", "a GIF image"), (b"\x1f\x8b", "a gzip archive")):
        if head.startswith(magic):
            raise _refuse(f"the file is {what}, not a table (upload CSV or XLSX)")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "csv"  # UTF-16 text with a byte-order mark
    if b"\x00" in raw[:4096]:
        raise _refuse("the file is binary, not a text table (upload CSV or XLSX)")
    return "csv"


def _decode(raw: bytes, warnings: list[str]) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise _refuse(f"the file starts as UTF-16 text but is not valid UTF-16 ({exc.reason} at byte "
                          f"{exc.start})", recovery="Save the file again as UTF-8 (or UTF-16) text.") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        warnings.append("the file is not UTF-8; it was read as Windows-1252 (check accented names)")
        return raw.decode("cp1252", errors="replace")


def _split(lines: list[str], sep: str) -> list[list[str]]:
    try:
        return [next(csv.reader([ln], delimiter=sep), []) for ln in lines]
    except csv.Error as exc:  # a field over the csv module's limit, a NUL byte, ...
        raise _refuse(f"the file cannot be split into cells: {exc}") from None


def text_table(raw: bytes, warnings: list[str]) -> Table:
    text = _decode(raw, warnings)
    numbered = [(i + 1, ln) for i, ln in enumerate(text.splitlines()) if ln.strip()]
    comments = [i for i, ln in numbered if ln.lstrip().startswith("#")]
    if comments:
        warnings.append(f"{len(comments)} comment line(s) starting with '#' skipped (first: line {comments[0]})")
    numbered = [(i, ln) for i, ln in numbered if not ln.lstrip().startswith("#")]
    if not numbered:
        raise _refuse("the file is empty: no rows to read")
    first = numbered[0][1].lstrip()
    if first[:1] in "{[<":
        kind = "JSON" if first[:1] in "{[" else "HTML/XML"
        raise _refuse(f"the file looks like {kind}, not a table (upload CSV or XLSX)")
    sample = [ln for _, ln in numbered[:200]] + [ln for _, ln in numbered[-50:]]
    chosen = None
    for sep in ("\t", ";", ","):  # a tab or semicolon that splits every line is the separator
        counts = Counter(len(r) for r in _split(sample, sep))
        width, n = counts.most_common(1)[0]
        if width >= 2 and n / len(sample) >= 0.8:
            chosen = sep
            break
    if chosen is None:
        raise _refuse("no column separator found (comma, semicolon or tab): the file has one column only, or is "
                      "not a table; a table needs a date column and a value column")
    limits.check_table_shape(len(numbered), 1, what="the file")
    rows = _split([ln for _, ln in numbered], chosen)
    limits.check_table_shape(len(rows), max(len(r) for r in rows), what="the file")
    return Table([[c.strip() for c in r] for r in rows], [i for i, _ in numbered], separator=chosen)


def xlsx_table(raw: bytes) -> Table:
    import openpyxl  # only here: reading spreadsheets is optional work

    # before openpyxl opens the workbook: its read-only sheets parse every row of a sheet that declares no extent
    # just to size it (a million rows: a minute), so the bounds are checked on the XML first
    for member, title in _sheet_members(raw):
        _xml_count(raw, member, f"sheet {title!r}")
    try:
        wb = openpyxl.load_workbook(io.BytesIO(raw), read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001 - any failure of the reader is the file's problem
        raise _refuse(f"the XLSX file cannot be read ({type(exc).__name__}: {exc})") from None
    try:
        return _first_sheet(wb)
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - read-only mode parses the sheet's XML as it goes: a broken sheet is the file's
        raise _refuse(f"the XLSX file cannot be read ({type(exc).__name__}: {str(exc)[:200]})") from None
    finally:
        wb.close()


_DIMENSION = re.compile(rb"<(?:\w+:)?dimension\s+ref=\"([A-Z]{1,3})(\d+)(?::([A-Z]{1,3})(\d+))?\"")


def _column_number(letters: bytes) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ch - 64
    return n


def _xml_count(raw: bytes, member: str | None, what: str) -> None:
    """Refuse a sheet over the bounds before a row is parsed: from the extent it declares (``<dimension>``),
    then from its rows and cells counted in the XML as it decompresses (bytes, not parsed cells: seconds, not
    the minutes the reader takes for a million rows)."""
    if not member:
        return
    import zipfile

    try:
        zf = zipfile.ZipFile(io.BytesIO(raw))
        stream = zf.open(member.lstrip("/"))
    except (KeyError, zipfile.BadZipFile, OSError):
        return  # the reader reports what is wrong with the file
    patterns = {"rows": (b"<row ", b"<row>"), "cells": (b"<c ", b"<c>")}
    counts = {"rows": 0, "cells": 0}
    tail, first = b"", True
    with zf, stream:
        while True:
            chunk = stream.read(1 << 22)
            if not chunk:
                break
            buf = tail + chunk
            if first:
                first = False
                m = _DIMENSION.search(buf[:4096])
                if m and m.group(3):
                    rows = int(m.group(4)) - int(m.group(2)) + 1
                    cols = _column_number(m.group(3)) - _column_number(m.group(1)) + 1
                    limits.check_table_shape(rows, cols, what=f"{what} (its declared extent "
                                             f"{m.group(1).decode()}{m.group(2).decode()}:{m.group(3).decode()}"
                                             f"{m.group(4).decode()})")
            for key, pats in patterns.items():
                counts[key] += sum(buf.count(p) for p in pats)
            # a tag split across two chunks is counted once: the kept tail is shorter than any pattern
            tail = buf[-4:]
            for key, pats in patterns.items():
                counts[key] -= sum(tail.count(p) for p in pats)
            if counts["rows"] > limits.MAX_ROWS + 1:
                limits.check_table_shape(counts["rows"], 1, what=f"{what} (rows counted so far)")
            if counts["cells"] > limits.MAX_CELLS + limits.MAX_COLUMNS:
                raise limits.LimitError(f"the number of cells of {what} (counted so far)", counts["cells"],
                                        "MAX_CELLS", limits.MAX_CELLS)


def _sheet_members(raw: bytes) -> list[tuple[str, str]]:
    """(zip member, sheet title) of every worksheet part in the archive, titled from the workbook's small index
    parts (xl/workbook.xml and its relationships) where they name it; [] when the archive cannot be read (the
    reader then reports what is wrong with the file). LimitError when the parts unpack to more than
    MAX_UNPACKED_BYTES (sheets) or MAX_UNPACKED_WHOLE_BYTES (the parts openpyxl reads whole)."""
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            names = zf.namelist()
            sizes = [(_is_sheet(i.filename), i.file_size) for i in zf.infolist()]
            limits.check_unpacked_bytes(sum(n for sheet, n in sizes if sheet), sum(n for sheet, n in sizes if not sheet),
                                        what="the XLSX file")
            parts = {n: zf.read(n) for n in ("xl/workbook.xml", "xl/_rels/workbook.xml.rels") if n in names}
    except (zipfile.BadZipFile, OSError):
        return []
    targets = {}
    for m in re.finditer(rb"<(?:\w+:)?Relationship\b[^>]*>", parts.get("xl/_rels/workbook.xml.rels", b"")):
        rid, target = _attr(m.group(0), b"Id"), _attr(m.group(0), b"Target")
        if rid and target:
            path = target.lstrip("/")
            targets[rid] = path if path.startswith("xl/") else "xl/" + path
    titles = {}
    for m in re.finditer(rb"<(?:\w+:)?sheet\b[^>]*>", parts.get("xl/workbook.xml", b"")):
        name, rid = _attr(m.group(0), b"name"), _attr(m.group(0), b"id", prefixed=True)
        if name is not None and rid in targets:
            titles[targets[rid]] = name
    return [(n, titles.get(n, n)) for n in names if _is_sheet(n)]


def _is_sheet(name: str) -> bool:
    return "worksheets/" in name and name.endswith(".xml") and "_rels/" not in name


def _attr(tag: bytes, name: bytes, *, prefixed: bool = False) -> str | None:
    """The value of attribute ``name`` of an XML start tag, unescaped (``prefixed``: in a namespace, as r:id)."""
    import html

    m = re.search(rb"\s" + (rb"\w+:" if prefixed else b"") + re.escape(name) + rb"""\s*=\s*(?:"([^"]*)"|'([^']*)')""", tag)
    return html.unescape((m.group(1) if m.group(1) is not None else m.group(2)).decode("utf-8", "replace")) if m else None


def _first_sheet(wb: Any) -> Table:
    """The first sheet holding any value, within the limits on rows and columns."""
    for ws in wb.worksheets:
        rows, lines = [], []
        # the sheet's real extent, not the dimension it claims (a claimed A1:XFD1048576 would be iterated whole)
        if hasattr(ws, "reset_dimensions"):
            ws.reset_dimensions()
        for n, row in enumerate(ws.iter_rows(values_only=True), start=1):
            if n > limits.MAX_ROWS + 1 or len(row) > limits.MAX_COLUMNS:  # + 1: the header
                limits.check_table_shape(n, len(row), what=f"sheet {ws.title!r} (read as far as row {n:,})")
            cells = list(row)
            while cells and (cells[-1] is None or (isinstance(cells[-1], str) and not cells[-1].strip())):
                cells.pop()
            if cells:
                rows.append([c.strip() if isinstance(c, str) else c for c in cells])
                lines.append(n)
        if rows:
            limits.check_table_shape(len(rows), max(len(r) for r in rows), what=f"sheet {ws.title!r}")
            return Table(rows, lines, separator=None, text=False)
    raise _refuse("the XLSX workbook has no data in any sheet")


def frame_table(frame: pd.DataFrame) -> Table:
    if frame.empty:
        raise _refuse("the DataFrame is empty: no rows to read")
    limits.check_table_shape(frame.shape[0], frame.shape[1] + 1, what="the DataFrame", header=False)
    df = frame.copy()
    if isinstance(df.index, pd.DatetimeIndex) or df.index.name is not None:
        df = df.reset_index()
    header = [str(c) for c in df.columns]
    rows = [header] + [[None if (isinstance(v, float) and math.isnan(v)) else v for v in r]
                       for r in df.itertuples(index=False, name=None)]
    return Table(rows, list(range(1, len(rows) + 1)), separator=None, text=False)


# ----------------------------------------------------------------------------- cell types

_ISO = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?$")
_YMD_SLASH = re.compile(r"^\d{4}/\d{1,2}/\d{1,2}(?: \d{1,2}:\d{2}(?::\d{2})?)?$")
_DMY = re.compile(r"^(\d{1,2})([./-])(\d{1,2})[./-](\d{4})(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?$")
_YM = re.compile(r"^\d{4}-\d{2}$")
_YMD8 = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
_NUM = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
_NUM_COMMA = re.compile(r"^[+-]?\d+,\d+$")
_THOUSANDS_DOT = re.compile(r"^[+-]?\d{1,3}(?:\.\d{3})+(?:,\d+)?$")
_YEAR_WORDS = {"year", "yr", "jahr", "annee", "année", "ano", "año", "water_year", "wateryear", "wy", "hydrological_year"}
_MONTH_WORDS = {"month", "mon", "monat", "mois", "mes"}
_DAY_WORDS = {"day", "tag", "jour", "dia", "día"}


def _date_kind(cell: Any) -> str | None:
    if isinstance(cell, (pd.Timestamp, dt.datetime, dt.date)) and not isinstance(cell, bool):
        return "object"
    if not isinstance(cell, str):
        return None
    if _ISO.match(cell):
        return "iso"
    if _YMD_SLASH.match(cell):
        return "ymd_slash"
    if _DMY.match(cell):
        return "dmy"
    if _YM.match(cell):
        return "ym"
    m = _YMD8.match(cell)
    if m and 1700 <= int(m.group(1)) <= 2200 and 1 <= int(m.group(2)) <= 12 and 1 <= int(m.group(3)) <= 31:
        return "ymd8"
    return None


def _is_na(cell: Any) -> bool:
    if cell is None:
        return True
    if isinstance(cell, float) and math.isnan(cell):
        return True
    return isinstance(cell, str) and cell.strip().lower() in _NA


def _number(cell: Any, decimal: str) -> float | None:
    """The cell as a float, or None when it is not a number (NA cells are handled before)."""
    if isinstance(cell, bool):
        return None
    if isinstance(cell, (int, float, np.integer, np.floating)):
        return float(cell)
    if not isinstance(cell, str):
        return None
    s = cell.replace("\u00a0", "").replace(" ", "")
    if decimal == ",":
        if _THOUSANDS_DOT.match(s):
            s = s.replace(".", "")
        if _NUM_COMMA.match(s):
            s = s.replace(",", ".")
    if not _NUM.match(s):
        return None
    value = float(s)
    return value if math.isfinite(value) else None


# ----------------------------------------------------------------------------- units and variables

_UNITS = {
    "m3/s": "m3/s", "m^3/s": "m3/s", "m3s-1": "m3/s", "m3.s-1": "m3/s", "m3s": "m3/s", "cms": "m3/s", "cumecs": "m3/s",
    "m3/sec": "m3/s", "l/s": "l/s", "ls-1": "l/s", "lps": "l/s", "l/sec": "l/s",
    "cfs": "ft3/s", "ft3/s": "ft3/s", "ft^3/s": "ft3/s", "cusecs": "ft3/s", "ft3s-1": "ft3/s", "kcfs": "kcfs",
    "mm": "mm", "mm/d": "mm/d", "mm/day": "mm/d", "mmd-1": "mm/d", "mm/h": "mm/h", "mm/hr": "mm/h", "mmh-1": "mm/h",
    "in": "in", "inch": "in", "inches": "in",
    "°c": "degC", "degc": "degC", "deg c": "degC", "celsius": "degC", "°f": "degF", "degf": "degF",
    "m": "m", "cm": "cm", "ft": "ft", "feet": "ft",
    "masl": "m a.s.l.", "m a.s.l.": "m a.s.l.", "m.a.s.l.": "m a.s.l.", "m asl": "m a.s.l.", "m nhn": "m a.s.l.",
    "mnn": "m a.s.l.", "m amsl": "m a.s.l.",
    "%": "%", "mg/l": "mg/L", "µs/cm": "uS/cm", "us/cm": "uS/cm",
}
_FLOW_UNITS = {"m3/s", "l/s", "ft3/s", "kcfs"}
_BRACKET = re.compile(r"[\(\[\{]\s*([^\)\]\}]+?)\s*[\)\]\}]")


def _unit_key(text: str) -> str:
    return (text.strip().lower().replace("³", "3").replace("²", "2").replace("μ", "µ").replace(" /", "/")
            .replace("/ ", "/").replace("**", "^"))


def unit_from_text(*texts: str | None) -> str | None:
    """A canonical unit named in header text (brackets first, then a trailing token), else ``None``."""
    for text in texts:
        if not text:
            continue
        for inner in _BRACKET.findall(text):
            if (u := _UNITS.get(_unit_key(inner))) is not None:
                return u
        key = _unit_key(text)
        if key in _UNITS:
            return _UNITS[key]
        tokens = re.split(r"[_\s\-]+", key)
        if len(tokens) > 1 and tokens[-1] in _UNITS and tokens[-1] not in {"m", "in"}:
            return _UNITS[tokens[-1]]
        if len(tokens) > 2 and " ".join(tokens[-3:]) in _UNITS:
            return _UNITS[" ".join(tokens[-3:])]
    return None


DEPTH_TO_WATER = "depth_to_water"
_VARIABLES = [
    ("air_temperature_max", {"tmax", "tx", "t_max", "max_temp", "temp_max", "tasmax", "txk", "lufttemperatur_maximum",
                             "lufttemperatur_max", "maximum_temperature", "temperature_maximum", "tmax_c"}),
    ("air_temperature_min", {"tmin", "tn", "t_min", "min_temp", "temp_min", "tasmin", "tnk", "lufttemperatur_minimum",
                             "lufttemperatur_min", "minimum_temperature", "temperature_minimum", "tmin_c"}),
    ("discharge", {"q", "qobs", "q_obs", "flow", "discharge", "streamflow", "debit", "débit", "abfluss", "caudal",
                   "cfs", "cms", "runoff", "durchfluss", "abfl", "abflussmenge", "mq"}),
    ("precipitation", {"p", "precip", "precipitation", "rain", "rainfall", "prcp", "prec", "niederschlag", "pluie",
                       "ppt", "rr", "pr", "ns", "nied", "rsk", "niederschlagshohe", "niederschlagshöhe", "niederschlagssumme",
                       "neerslag", "nederbörd", "precipitazione", "précipitations", "precipitaciones"}),
    ("potential_evapotranspiration", {"pet", "etp", "et0", "eto", "e0", "pe", "evapotranspiration"}),
    ("groundwater_level", {"gw", "gwl", "head", "gwhead", "groundwater", "piezometric", "grundwasser",
                           "groundwater_level", "gw_level", "well_level", "water_table", "piezometer", "hydraulic_head",
                           "grundwasserstand", "gw_stand", "grundwasserspiegel", "nappe", "niveau_piezometrique"}),
    # a depth below the ground surface (larger is lower): read as a groundwater level by negation
    (DEPTH_TO_WATER, {"depth_to_water", "dtw", "depth_to_groundwater", "dgw", "depth_below_ground", "mbgl", "bgl",
                      "depth_to_water_table", "swl", "depth_to_water_level", "water_depth_below_ground"}),
    # one value a year: an annual peak or an annual maximum (only an annual table is read as such)
    ("peak_discharge", {"peak", "peaks", "peak_flow", "peak_discharge", "peak_q", "qp", "qpeak", "annual_peak",
                        "annual_peaks", "peak_streamflow"}),
    ("annual_max_discharge", {"amax", "annual_max", "annual_maximum", "qmax", "max_flow", "maximum_flow",
                              "max_discharge", "maximum_discharge", "annual_max_flow", "annual_maximum_flow",
                              "annual_max_discharge", "max_q"}),
    ("air_temperature", {"t", "temp", "temperature", "tmean", "tavg", "tair", "airtemp", "tas", "tm", "tmk", "tl",
                         "lufttemperatur", "temperatur", "lufttemperatur_mittel", "tagesmittel_lufttemperatur", "tmittel"}),
    ("water_level", {"stage", "level", "h", "gauge_height", "wasserstand", "water_level", "pegel", "pegelstand"}),
]


def variable_from_text(text: str | None) -> str | None:
    """The variable a header names ("Q (m3/s)" -> discharge), else ``None``."""
    if not text:
        return None
    base = _BRACKET.sub(" ", text).strip().lower()
    tokens = [t for t in re.split(r"[^0-9a-zà-ÿ]+", base) if t]
    joined = "_".join(tokens)
    for name, words in _VARIABLES:
        if joined in words or (tokens and tokens[0] in words) or name == joined:
            return name
    for name, prefixes in _PREFIXES:  # "annual_max_daily_mean_m3s", "depth_to_water_m_bgl"
        if joined.startswith(prefixes):
            return name
    return None


_PREFIXES = (("annual_max_discharge", ("annual_max", "annual_maximum", "max_flow", "maximum_flow")),
             ("peak_discharge", ("annual_peak", "peak_flow", "peak_discharge")),
             (DEPTH_TO_WATER, ("depth_to_water", "depth_to_groundwater", "depth_below_ground")),
             ("groundwater_level", ("groundwater_level", "gw_level", "well_level", "water_table")))
# Variables measured as a height or depth: a bare trailing "m" in their header is metres.
LEVELS = ("groundwater_level", "water_level", DEPTH_TO_WATER)


# ----------------------------------------------------------------------------- rows -> columns

def _units_row(cells: list[Any]) -> bool:
    """Whether every filled cell of a header row is a unit ("mm", "°C", "m³/s")."""
    filled = [str(c) for c in cells if not _is_na(c)]
    return bool(filled) and all(_UNITS.get(_unit_key(c)) or _UNITS.get(_unit_key(c.strip("[]()"))) for c in filled)


def _lines(table: Table, rows: list[int], limit: int = 10) -> str:
    shown = ", ".join(str(table.lines[r]) for r in rows[:limit])
    return shown + (f" and {len(rows) - limit} more" if len(rows) > limit else "")


def _position(arg: str, wanted: str | int | None, labels: list[str], headers: list[list[str]]) -> int | None:
    if wanted is None:
        return None
    if isinstance(wanted, (int, np.integer)) and not isinstance(wanted, bool):
        if 0 <= int(wanted) < len(labels):
            return int(wanted)
    elif isinstance(wanted, str):
        for i, lab in enumerate(labels):
            if wanted == lab or wanted in headers[i]:
                return i
        low = wanted.strip().lower()
        for i, lab in enumerate(labels):
            if low == lab.lower():
                return i
    raise InputError.bad_value(arg, wanted, "a column name or 0-based position among " + ", ".join(map(repr, labels)))


def interpret(table: Table, *, value_column: str | int | None, date_column: str | int | None,
              dayfirst: bool | None, warnings: list[str]) -> Parsed:
    rows = table.rows
    width = Counter(len(r) for r in rows).most_common(1)[0][0]
    if width < 2:
        raise _refuse("the table has one column only; it needs a date column and a value column")
    too_long = [i for i, r in enumerate(rows) if len(r) > width and any(not _is_na(c) for c in r[width:])]
    if too_long:
        raise _refuse(f"line(s) {_lines(table, too_long)} have more fields than the {width} of the other lines")
    grid = [list(r[:width]) + [None] * (width - len(r)) for r in rows]
    n = len(grid)
    skip = 3 if n > 3 else min(1, n - 1)  # the header rows are never the sample
    sample_rows = list(range(max(skip, n - 300), n))

    def column_profile(c: int, rows_: list[int]) -> tuple[float, float, Counter]:
        dates, nums, filled, kinds = 0, 0, 0, Counter()
        for r in rows_:
            cell = grid[r][c]
            if _is_na(cell):
                continue
            filled += 1
            kind = _date_kind(cell)
            if kind:
                dates += 1
                kinds[kind] += 1
            elif _number(cell, ",") is not None or _number(cell, ".") is not None:
                nums += 1
        return (dates / filled if filled else 0.0), (nums / filled if filled else 0.0), kinds

    profiles = [column_profile(c, sample_rows) for c in range(width)]
    date_cols = [c for c, (d, _, _) in enumerate(profiles) if d >= 0.9]
    # Where the data starts: the first row whose typed cells look like the sample's.
    key = date_cols[:1] or [c for c, (_, num, _) in enumerate(profiles) if num >= 0.8]
    if not key:
        raise _refuse("no column of dates or numbers found: this does not look like a data table")

    def data_like(r: int) -> bool:
        for c in key:
            cell = grid[r][c]
            if c in date_cols:
                if _date_kind(cell) is None:
                    return False
            elif not _is_na(cell) and _number(cell, ",") is None and _number(cell, ".") is None:
                return False
        return True

    start = next((r for r in range(n) if data_like(r)), None)
    if start is None or start == n:
        raise _refuse("no data rows found below the header")
    block = list(range(start))
    # A preamble line ("Station: Flat Brook") has fewer fields, or text in its first cell only;
    # a units row may well leave the first cell empty.
    preamble = [r for r in block if len(rows[r]) < width
                or ([not _is_na(c) for c in grid[r]].count(True) == 1 and not _is_na(grid[r][0]))]
    header_rows = [r for r in block if r not in preamble]
    if preamble:
        warnings.append(f"line(s) {_lines(table, preamble)} above the header skipped (not part of the table)")
    legend = [r for r in header_rows[1:] if not _units_row(grid[r])] if len(header_rows) == 3 else []
    if len(header_rows) == 3 and len(legend) == 1 and any(_units_row(grid[r]) for r in header_rows):
        warnings.append(f"line {_lines(table, legend)} read as a legend of the column names (their long names)")
    elif len(header_rows) > 2:
        raise _refuse(f"{len(header_rows)} header rows before the data (lines {_lines(table, header_rows)}); "
                      "expected one or two (names, then optionally units)")
    headers = [[str(grid[r][c]) if not _is_na(grid[r][c]) else "" for r in header_rows] for c in range(width)]
    labels = []
    for c in range(width):
        lab = next((h for h in headers[c] if h), "") or f"column_{c + 1}"
        while lab in labels:
            lab += "_2"
        labels.append(lab)
    data = list(range(start, n))

    # Dates
    d_pos = _position("date_column", date_column, labels, headers)
    if d_pos is None and date_cols:
        d_pos = date_cols[0]
    annual = False
    if d_pos is None or (date_column is not None and profiles[d_pos][0] < 0.9):
        index, used, annual = _dates_from_parts(grid, data, labels, d_pos, table)
    else:
        index = _parse_dates([grid[r][d_pos] for r in data], data, table, dayfirst, warnings, labels[d_pos])
        used = [d_pos]
    # Values
    v_pos = _position("value_column", value_column, labels, headers)
    if v_pos is not None and v_pos in used:
        raise InputError.bad_value("value_column", value_column, "a column other than the date column")
    decimal = "."
    if table.text:
        comma = sum(1 for r in data for c in range(width) if c not in used and isinstance(grid[r][c], str)
                    and _NUM_COMMA.match(grid[r][c].replace(" ", "")))
        dot = sum(1 for r in data for c in range(width) if c not in used and isinstance(grid[r][c], str)
                  and re.match(r"^[+-]?\d*\.\d+$", grid[r][c]))
        if comma > dot:
            decimal = ","
            warnings.append("decimal commas read as decimal points (1,5 = 1.5)")
    candidates = [v_pos] if v_pos is not None else [c for c in range(width) if c not in used]
    values, ignored = [], []
    for c in candidates:
        nums, bad, out = 0, [], np.full(len(data), np.nan)
        for k, r in enumerate(data):
            cell = grid[r][c]
            if _is_na(cell):
                continue
            x = _number(cell, decimal)
            if x is None:
                bad.append(r)
            else:
                out[k] = x
                nums += 1
        filled = nums + len(bad)
        if v_pos is None and (filled == 0 or nums / filled < 0.5):
            ignored.append(labels[c])
            if filled:
                warnings.append(f"column {labels[c]!r} holds text, not numbers: ignored")
            continue
        if bad:
            examples = "; ".join(f"line {table.lines[r]}: {grid[r][c]!r}" for r in bad[:5])
            raise _refuse(f"column {labels[c]!r} has text where numbers belong at line(s) {_lines(table, bad)} "
                          f"({examples}); write missing values as empty cells or NA")
        unit = unit_from_text(*headers[c][::-1]) if headers[c] else None
        # the name, else a legend row's long name ("NS" over "Niederschlag")
        var = next((v for h in headers[c] if h and not _UNITS.get(_unit_key(h))
                    and (v := variable_from_text(h))), None) if headers[c] else None
        if var is None and headers[c] and headers[c][0].strip().lower() == "n" and unit in ("mm", "mm/d"):
            var = "precipitation"  # "N" in mm: the German abbreviation of Niederschlag (precipitation)
        if var is None and unit in _FLOW_UNITS:  # a volume per time at a gauge is a discharge
            var = "discharge"
            warnings.append(f"column {labels[c]!r} read as discharge from its unit ({unit})")
        if unit is None and var in LEVELS and headers[c] and re.split(r"[_\s\-]+", headers[c][0].strip().lower())[-1] == "m":
            unit = "m"  # "level_m", "head m", "depth_to_water_m": a height in metres
        sentinels = int(np.isin(out, (-9999.0, -999.0)).sum())
        values.append(ValueColumn(labels[c], c, headers[c], out, unit, var, sentinels))
    if not values:
        raise _refuse("no column of numbers found besides the dates")
    # Duplicated and unsorted dates
    dup = index.duplicated(keep=False)
    if dup.any():
        where = [data[k] for k in np.flatnonzero(dup)]
        days = sorted({ts.isoformat() for ts in index[dup]})
        raise _refuse(f"{len(days)} date(s) appear more than once: {', '.join(days[:10])}"
                      f"{' ...' if len(days) > 10 else ''} (lines {_lines(table, where)}); keep one row per date")
    if not index.is_monotonic_increasing:
        back = np.flatnonzero(np.diff(index.asi8) < 0) + 1  # each row dated before the row above it
        where = [data[k] for k in back]
        raise _refuse(f"the dates do not increase: {len(back)} row(s) are dated before the row above them (line(s) "
                      f"{_lines(table, where)}, first {index[back[0]].date()} after {index[back[0] - 1].date()}); "
                      "the rows are never reordered for you", argument="date_column",
                      recovery="Sort the file by date (or fix the mistyped dates) and upload it again.")
    layout = {"separator": table.separator, "decimal": decimal, "header_rows": len(header_rows),
              "first_data_line": table.lines[start], "date_columns": [labels[c] for c in used]}
    return Parsed(index=index, values=values, date_label=" + ".join(labels[c] for c in used),
                  date_header=[h for c in used for h in headers[c]], annual=annual,
                  value_position=v_pos, ignored=ignored, layout=layout)


def _parse_dates(cells: list[Any], data: list[int], table: Table, dayfirst: bool | None, warnings: list[str],
                 label: str) -> pd.DatetimeIndex:
    kinds = Counter(_date_kind(c) for c in cells if not _is_na(c))
    kinds.pop(None, None)
    missing = [data[k] for k, c in enumerate(cells) if _is_na(c)]
    if missing:
        raise _refuse(f"column {label!r} has no date at line(s) {_lines(table, missing)}; every row needs a date")
    kind = kinds.most_common(1)[0][0] if kinds else None
    strings = pd.Series([c if isinstance(c, str) else None for c in cells], dtype=object)
    if kind == "object":
        parsed = pd.to_datetime(pd.Series(cells, dtype=object), errors="coerce")
    elif kind == "iso":
        parsed = pd.to_datetime(strings, format="ISO8601", errors="coerce", utc=True)
        if strings.str.contains(r"(?:Z|[+-]\d{2}:?\d{2})$", regex=True, na=False).any():
            warnings.append("dates carry a time zone: converted to UTC and stored without one")
        parsed = parsed.dt.tz_convert(None)
    elif kind == "ymd_slash":
        parsed = pd.to_datetime(strings, format="mixed", yearfirst=True, errors="coerce")
    elif kind == "ym":
        parsed = pd.to_datetime(strings, format="%Y-%m", errors="coerce")
    elif kind == "ymd8":
        parsed = pd.to_datetime(strings, format="%Y%m%d", errors="coerce")
    elif kind == "dmy":
        parts = strings.str.extract(_DMY.pattern)
        a, sep, b = parts[0].astype(float), parts[1], parts[2].astype(float)
        if (sep == ".").all():
            first = True
        elif (a > 12).any() and (b > 12).any():
            raise _refuse(f"column {label!r} mixes day-first and month-first dates")
        elif (a > 12).any():
            first = True
        elif (b > 12).any():
            first = False
        elif dayfirst is not None:
            first = bool(dayfirst)
        else:
            raise InputError(
                f"dates in column {label!r} such as {strings.dropna().iloc[0]!r} could be day-first or month-first, "
                "and no date tells which", argument="dayfirst", value=None,
                recovery="Say which: ingest(..., dayfirst=True) for 03/04/2020 = 3 April, dayfirst=False for 4 March.")
        parsed = pd.to_datetime(strings, dayfirst=first, format="mixed", errors="coerce")
    else:
        raise _refuse(f"column {label!r} does not hold dates")
    bad = [data[k] for k in np.flatnonzero(parsed.isna().to_numpy())]
    if bad:
        examples = "; ".join(f"line {table.lines[r]}: {cells[data.index(r)]!r}" for r in bad[:5])
        raise _refuse(f"column {label!r} has values that are not dates at line(s) {_lines(table, bad)} ({examples})")
    return _checked_dates(parsed, data, table, label)


def _dates_from_parts(grid: list[list[Any]], data: list[int], labels: list[str], d_pos: int | None,
                      table: Table) -> tuple[pd.DatetimeIndex, list[int], bool]:
    """Dates from year (and month, day) columns: annual, monthly or daily records."""
    low = [lab.strip().lower() for lab in labels]
    year = d_pos if d_pos is not None else next((i for i, x in enumerate(low) if x in _YEAR_WORDS), None)
    if year is None:
        raise _refuse("no date column found (ISO dates such as 2020-01-31, dd.mm.yyyy, or year/month/day columns)",
                      argument="date_column", recovery="Name the date column with date_column=...")
    month = next((i for i, x in enumerate(low) if x in _MONTH_WORDS), None)
    day = next((i for i, x in enumerate(low) if x in _DAY_WORDS), None)
    parts = {"year": year, "month": month, "day": day}
    ints: dict[str, np.ndarray] = {}
    for part, col in parts.items():
        if col is None:
            continue
        vals, bad = [], []
        for r in data:
            x = _number(grid[r][col], ".")
            if x is None or x != int(x):
                bad.append(r)
                vals.append(0)
            else:
                vals.append(int(x))
        if bad:
            raise _refuse(f"column {labels[col]!r} should hold whole {part} numbers; not at line(s) {_lines(table, bad)}")
        ints[part] = np.array(vals)
    if not ((ints["year"] >= 1000) & (ints["year"] <= 2999)).all():
        raise _refuse(f"column {labels[year]!r} does not hold four-digit years", argument="date_column")
    frame = pd.DataFrame({"year": ints["year"], "month": ints.get("month", 1), "day": ints.get("day", 1)})
    parsed = pd.to_datetime(frame, errors="coerce")
    bad = [data[k] for k in np.flatnonzero(parsed.isna().to_numpy())]
    if bad:
        raise _refuse(f"year/month/day do not form a date at line(s) {_lines(table, bad)}")
    used = [c for c in (year, month, day) if c is not None]
    return _checked_dates(parsed, data, table, labels[year]), used, month is None and day is None


# The dates a record may hold: what a nanosecond index represents (with a margin for period arithmetic), and
# nothing after the day the study is made (a future date is a typo or a forecast, never an observation).
EARLIEST_DATE = np.datetime64("1678-01-01")
LATEST_REPRESENTABLE = np.datetime64("2261-12-31")


def _checked_dates(parsed: pd.Series, data: list[int], table: Table, label: str) -> pd.DatetimeIndex:
    """The parsed dates as a nanosecond index, refused (rows named) when any lies outside the representable
    range or after today; never cast into range (a cast wraps 2300 round to 1716)."""
    values = parsed.to_numpy()
    if values.dtype.kind != "M":
        values = np.array([np.datetime64(v) if v is not None else np.datetime64("NaT") for v in parsed], dtype="M8[us]")
    today = np.datetime64(dt.datetime.now(dt.timezone.utc).date(), "D")
    latest = min(LATEST_REPRESENTABLE, today + np.timedelta64(1, "D"))
    early = np.flatnonzero(values < EARLIEST_DATE.astype(values.dtype))
    late = np.flatnonzero(values > latest.astype(values.dtype))
    for rows, what in ((early, f"before {EARLIEST_DATE}"),
                       (late, f"after today ({today})" if latest < LATEST_REPRESENTABLE else f"after {latest}")):
        if len(rows):
            lines = [data[k] for k in rows]
            examples = ", ".join(str(values[k])[:10] for k in rows[:3])
            raise _refuse(f"column {label!r} has dates {what} at line(s) {_lines(table, lines)} ({examples}); "
                          f"a record's dates lie from {EARLIEST_DATE} to the day of the study",
                          argument="date_column", recovery="Correct those dates (a typo in the year?) or remove the rows.")
    return pd.DatetimeIndex(values.astype("datetime64[ns]"))
