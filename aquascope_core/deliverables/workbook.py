"""The study as an Excel workbook (openpyxl, imported inside :func:`render_workbook`).

Sheets, in order: README (what each sheet holds, the study id, the commands that re-create the
workbook and replay the study), Inventory, Plan, Gates, Findings, Trace (every number the report
quotes: its sheet and cell here and its result path), Arguments (one a row), one sheet per result
table of the report (an interval column split into lower and upper, a parameter list into a column
per parameter), a Bulletin 17C analysis' input by water year, one per dataset a result holds
(:mod:`aquascope_core.deliverables.datasets`), the user's uploaded tables, Figures (an index of the
figure files) and Ledger. Text a spreadsheet would read as a formula is stored as text
(:func:`text_cell`); sheet names are those Excel accepts, unique, cut at a word. Numbers are written as
numbers (a report cell such as ``"89.5 %"`` becomes 89.5 with a percent display), units sit in the
headers, the header row is frozen and bold, and columns are sized to their content.
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import re
from typing import Any, Iterable, Mapping, Sequence

from aquascope_core.deliverables.blocks import plain
from aquascope_core.deliverables.datasets import payload_tables
from aquascope_core.deliverables.flood_inputs import COLUMNS, frequency_inputs

__all__ = ["render_workbook", "report_table_sheets", "cell_value", "text_cell", "split_columns", "MAX_DATA_ROWS"]

MAX_DATA_ROWS = 200_000
# a sheet of at most _WRAP_ROWS rows (the plan, the gates, the findings) wraps a text column wider than _WRAP_WIDTH
# characters: at its full width the Plan sheet printed one page wide at a third of its size
_WRAP_ROWS, _WRAP_WIDTH = 500, 40
# a sheet of more data rows than this (a daily series: 10,533 days printed to 210 pages) prints its header and its first
# _PRINT_ROWS rows, a print area the README sheet names; the whole sheet is there on screen
_PRINT_ROWS = 400
_NUM = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?([eE][+-]?\d+)?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# characters Excel refuses in a sheet name, and control characters (a newline in an upload's name)
_BAD = re.compile(r"[\[\]:*?/\\\x00-\x1f\x7f]")
# text a spreadsheet would read as a formula or a command (OWASP's list for untrusted data)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_RANGE = re.compile(r"^\s*(-?[\d,]*\.?\d+(?:[eE][+-]?\d+)?)\s+to\s+(-?[\d,]*\.?\d+(?:[eE][+-]?\d+)?)\s*$")
# one estimate of a parameter list: its name, its value (with thousands separators) and its unit, if any
# ("location μ 5,430 ft3/s", "mean of logs 3.72 log10 ft3/s", "shape ξ -0.05")
_PARAM = re.compile(r"^\s*([A-Za-z_][\w ]*?)\s+(-?\d[\d,]*(?:\.\d+)?(?:[eE][+-]?\d+)?|-?\.\d+)(?:\s+((?:log10 |ln )?[^\s,]+))?\s*$")
_PARAM_SPLIT = re.compile(r",\s+(?=[^\d\s-])")  # between two estimates, not inside "5,430"
# sections whose tables have a sheet of their own under a fixed name
_FIXED = {"summary": "Findings", "site_data": "Inventory", "methodology": "Gates", "appendix": "Ledger"}


def cell_value(x: Any) -> tuple[Any, str | None]:
    """A report cell as (value, number format): numbers, percentages and ISO dates made typed."""
    if isinstance(x, bool) or x is None:
        return x, None
    if isinstance(x, (int, float)):
        return x, None
    s = plain(str(x)).strip()
    pct = s.endswith("%")
    core = (s[:-1].strip() if pct else s).replace("\u2212", "-")
    if _NUM.match(core) and not (len(core) > 1 and core[0] == "0" and core[1].isdigit()):  # "01440000" is an id
        v = float(core.replace(",", ""))
        if v.is_integer() and "." not in core and "e" not in core.lower():
            v = int(v)
        return v, ('0.0" %"' if pct else None)
    if _DATE.match(s):
        try:
            return _dt.date.fromisoformat(s), "yyyy-mm-dd"
        except ValueError:
            return s, None
    return s, None


def _fit(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, cut at a word (never mid-word, no trailing punctuation)."""
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[:limit + 1].rsplit(" ", 1)[0] if " " in text[:limit + 1] else text[:limit]
    return cut[:limit].rstrip(" ,;.-(") or text[:limit]


def _sheet_name(want: str, used: set[str]) -> str:
    """A unique sheet name Excel accepts: no refused or control character, no apostrophe at either end, at most
    31 characters cut at a word, not 'History' (reserved)."""
    base = _fit(_BAD.sub(" ", plain(want)).strip().strip("'"), 31) or "Sheet"
    if base.lower() == "history":
        base = "History (table)"
    name, i = base, 2
    while name.lower() in used:
        suffix = f" ({i})"
        name, i = _fit(base, 31 - len(suffix)) + suffix, i + 1
    used.add(name.lower())
    return name


def text_cell(ws: Any, value: Any) -> Any:
    """``value`` for ``ws.append``: a string a spreadsheet would read as a formula (``=``, ``+``, ``-``, ``@``, tab,
    CR at its start) becomes a text cell shown as typed (quote prefix); anything else is returned as it is."""
    if not isinstance(value, str) or not value.startswith(_FORMULA_START):
        return value
    from openpyxl.cell.cell import Cell

    cell = Cell(ws, value=None)
    cell._value = value
    cell.data_type = "s"
    cell.quotePrefix = True
    return cell


def split_columns(columns: Sequence[Any], rows: Sequence[Sequence[Any]]) -> tuple[list[str], list[list[Any]]]:
    """A report table as the workbook holds it: a column whose every filled cell is an interval (``4,440 to 6,300``)
    becomes two numeric columns (lower, upper); one whose cells list parameters (``location μ 5,430 ft3/s, shape ξ -0.05``)
    becomes a column per parameter, its unit in the header."""
    cols = [plain(str(c)) for c in columns]
    out_rows = [list(r) + [None] * (len(cols) - len(r)) for r in rows]
    j = 0
    while j < len(cols):
        cells = [plain(str(r[j])) for r in out_rows if r[j] not in (None, "")]
        if cells and all(_RANGE.match(c) for c in cells):
            name = cols[j]
            cols[j:j + 1] = [f"{name} lower", f"{name} upper"]
            for r in out_rows:
                m = _RANGE.match(plain(str(r[j]))) if r[j] not in (None, "") else None
                r[j:j + 1] = [m.group(1), m.group(2)] if m else [None, None]
            j += 2
            continue
        parsed = [[_PARAM.match(p) for p in _PARAM_SPLIT.split(c)] for c in cells]
        if cells and all(len(ps) > 1 and all(ps) for ps in parsed):
            # a column per parameter and unit, the unit in its header ("location μ (ft3/s)")
            keys = list(dict.fromkeys((m.group(1), m.group(3)) for ps in parsed for m in ps))
            cols[j:j + 1] = [f"{name} ({unit})" if unit else name for name, unit in keys]
            for r in out_rows:
                found = {(m.group(1), m.group(3)): m.group(2).replace(",", "")
                         for m in (_PARAM.match(p) for p in _PARAM_SPLIT.split(plain(str(r[j] or "")))) if m} \
                    if r[j] not in (None, "") else {}
                r[j:j + 1] = [found.get(k) for k in keys]
            j += len(keys)
            continue
        j += 1
    return cols, out_rows


def report_table_sheets(report: Mapping[str, Any]) -> list[tuple[int, str, Mapping[str, Any], str]]:
    """Every table of the report in reading order: (number, section id, table, sheet name).

    The Word report uses the same numbering to point a capped table to its sheet."""
    used = {s.lower() for s in ("README", "Plan", "Figures", *_FIXED.values())}
    out: list[tuple[int, str, Mapping[str, Any], str]] = []

    def walk(sec: Mapping[str, Any], top: str) -> None:
        for t in sec.get("tables") or []:
            n = len(out) + 1
            fixed = _FIXED.get(top)
            if str(t.get("caption")) == "Gates":
                name = "Gates"
            elif fixed and (top != "methodology" or "gate" in str(t.get("caption", "")).lower()):
                name = fixed
            else:
                step = str(sec.get("id", "")).replace("results-", "")
                name = _sheet_name(f"{step} {t.get('caption') or 'table'}", used)
            out.append((n, str(sec.get("id")), t, name))
        for sub in sec.get("subsections") or []:
            walk(sub, top)

    for sec in report.get("sections") or []:
        walk(sec, str(sec.get("id")))
    return out


def _write(ws: Any, columns: Sequence[str], rows: Iterable[Sequence[Any]], *, typed: bool = True) -> str:
    """Write a sheet's header and rows; returns what its print area leaves out ("" when it prints whole)."""
    from openpyxl.styles import Alignment, Font, PatternFill
    from openpyxl.utils import get_column_letter

    ws.append([text_cell(ws, plain(str(c))) if c not in (None, "") else "Item" for c in columns])
    for c in ws[1]:
        c.font = Font(bold=True)
        c.fill = PatternFill("solid", fgColor="E8EEF4")
        c.alignment = Alignment(wrap_text=True, vertical="top")
    widths = [min(max(len(str(c)), 8), 40) for c in columns]
    formats: dict[str, list[tuple[int, int]]] = {}  # number format -> the (row, column) cells that take it
    for r, row in enumerate(rows, 2):
        if r - 1 > MAX_DATA_ROWS:
            break
        values = []
        for j, x in enumerate(row, 1):
            if isinstance(x, (dict, list)):
                x = json.dumps(x, ensure_ascii=False)
            value, fmt = cell_value(x) if typed else (x, None)
            values.append(value)
            if fmt:
                formats.setdefault(fmt, []).append((r, j))
            if j <= len(widths):
                shown = len(f"{value:.6g}") if isinstance(value, float) else len(str(value))
                widths[j - 1] = min(max(widths[j - 1], shown + 1), 60)
        ws.append([text_cell(ws, v) for v in values])  # a row at once: several times quicker than a cell at a time
    for fmt, cells in formats.items():
        for r, j in cells:
            ws.cell(row=r, column=j).number_format = fmt
    small = ws.max_row <= _WRAP_ROWS
    lines: dict[int, int] = {}
    for j, w in enumerate(widths, 1):
        if small and w > _WRAP_WIDTH:  # a long text column wraps, so the sheet prints one page wide at a readable size
            w = _WRAP_WIDTH
            for (cell,) in ws.iter_rows(min_row=2, min_col=j, max_col=j):
                cell.alignment = Alignment(wrap_text=True, vertical="top")
                n = -(-len(str(cell.value if cell.value is not None else "")) // _WRAP_WIDTH)
                lines[cell.row] = max(lines.get(cell.row, 1), n)
        ws.column_dimensions[get_column_letter(j)].width = w + 2
    for r, n in lines.items():
        if n > 1:  # the height of its lines (an office suite does not recompute it on opening)
            ws.row_dimensions[r].height = 13 * n
    ws.freeze_panes = "A2"
    return _print_setup(ws, sum(min(w, _WRAP_WIDTH) if small else w for w in widths))


def _print_setup(ws: Any, width_chars: int) -> str:
    """Printed (or converted to PDF): the columns fit the page width, the header row repeats on every page; a sheet
    of more than _PRINT_ROWS data rows prints its first _PRINT_ROWS (returned as a note for the README sheet)."""
    from openpyxl.utils import get_column_letter

    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0
    ws.page_setup.paperSize = ws.PAPERSIZE_A4
    ws.page_setup.orientation = "landscape" if width_chars > 110 else "portrait"
    ws.print_title_rows = "1:1"
    n = ws.max_row - 1
    if n <= _PRINT_ROWS:
        return ""
    ws.print_area = f"A1:{get_column_letter(max(ws.max_column, 1))}{_PRINT_ROWS + 1}"
    return f"prints its first {_PRINT_ROWS} of {n:,} rows (its print area; clear it to print them all)"


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def _trace(wb: Any, index: int, findings: Sequence[Sequence[Any]], described: list[tuple[str, str]]) -> None:
    """The Trace sheet: every number the report quotes (the Findings), the sheet and cell holding it, and the
    result path it comes from; a result table of the report holding the same value (to three significant
    figures) is named beside the Findings cell."""
    from openpyxl.utils import get_column_letter

    def key(v: Any) -> str | None:
        return f"{v:.3g}" if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    where: dict[str, str] = {}
    for ws in wb.worksheets:
        if ws.title in ("README", "Inventory", "Plan", "Arguments", "Gates", "Findings"):
            continue
        for row in ws.iter_rows(min_row=2, max_row=min(ws.max_row, 400)):
            for c in row:
                k = key(c.value)
                if k is not None:
                    where.setdefault(k, f"'{ws.title}'!{get_column_letter(c.column)}{c.row}")
    rows = []
    for i, f in enumerate(findings, 2):
        value = cell_value(f[1])[0] if f[1] is not None else None
        rows.append([f[0], value, f[2], "Findings", f"B{i}", where.get(key(value) or "", ""), f[6]])
    ws = wb.create_sheet("Trace", index)
    _write(ws, ["Quantity", "Value", "Unit", "Sheet", "Cell", "Also in (a table of the report)", "Result path"], rows)
    described.append(("Trace", "every number the report quotes: its sheet and cell in this workbook and the result "
                               "path in the study it comes from"))


def _upload_rows(entry: Mapping[str, Any]) -> tuple[list[str], list[list[Any]], bool] | None:
    """The user's table as uploaded (columns, rows, whether it was cut at MAX_DATA_ROWS), inline or held by
    reference (aquascope_core.data.upload_store, read back and checked against its digest); None when the upload
    is not a flat table or its stored bytes are gone."""
    import pandas as pd

    from aquascope_core.data.upload_store import original_content
    from aquascope_core.errors import AquascopeError

    orig = entry.get("original") or {}
    binary = (orig.get("stored_encoding") if orig.get("encoding") == "ref" else orig.get("encoding")) == "base64"
    try:
        content = original_content(orig) if orig else ""
        if binary:
            df = pd.read_excel(io.BytesIO(content), nrows=MAX_DATA_ROWS + 1)
        else:
            text = content.decode("utf-8") if isinstance(content, bytes) else str(content or "")
            df = pd.read_csv(io.StringIO(text), nrows=MAX_DATA_ROWS + 1)
    except AquascopeError:  # held by reference and the stored bytes are missing or changed
        return None
    except Exception:  # noqa: BLE001 - an upload the reader took may still not be a flat table
        return None
    cut = len(df) > MAX_DATA_ROWS
    df = df.iloc[:MAX_DATA_ROWS].astype(object)
    df = df.where(df.notna(), None)
    return [str(c) for c in df.columns], df.values.tolist(), cut


def render_workbook(ws: Mapping[str, Any], report: Mapping[str, Any], figures: Sequence[Mapping[str, Any]] = (), *,
                    files: Sequence[str] = ()) -> bytes:
    """The workbook as .xlsx bytes from a workspace dict, its report and the figure references."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font

    wb = Workbook()
    readme = wb.active
    readme.title = "README"
    study_id = ws.get("id", "")
    described: list[tuple[str, str]] = []

    def sheet(name: str, about: str, columns: Sequence[str], rows: Iterable[Sequence[Any]], typed: bool = True) -> None:
        printed = _write(wb.create_sheet(name), columns, rows, typed=typed)
        described.append((name, f"{about}; {printed}" if printed else about))

    inv = ws.get("inventory") or {}
    inv_rows = []
    for d in inv.get("datasets") or []:
        for v in d.get("variables") or [{}]:
            inv_rows.append([d.get("name"), f"{d.get('source', '')} {d.get('station_id', '')}".strip(), d.get("distance_km"),
                             d.get("area_km2"), v.get("variable"), v.get("unit"), v.get("resolution"), v.get("period_start"),
                             v.get("period_end"), v.get("years"), "yes" if v.get("usable") else "no"])
    sheet("Inventory", "the stations and datasets within reach of the site, what each holds and whether it was usable",
          ["Station", "Id", "Distance (km)", "Area (km2)", "Variable", "Unit", "Resolution", "From", "To", "Years",
           "Usable offline"], inv_rows)

    study = ws.get("study") or {}
    results = (ws.get("run") or {}).get("results") or {}
    plan_rows, gate_rows = [], []
    for st in study.get("steps") or []:
        r = results.get(st.get("id")) or {}
        plan_rows.append([st.get("id"), st.get("title"), st.get("tool"), json.dumps(st.get("arguments") or {}),
                          ", ".join(st.get("depends_on") or []), "yes" if st.get("optional") else "no",
                          r.get("status", "not run"), r.get("failed_reason") or ""])
        for g in r.get("gates") or []:
            gate_rows.append([st.get("id"), g.get("check"), "passed" if g.get("passed") else "FAILED",
                              g.get("seen") if not isinstance(g.get("seen"), (dict, list)) else json.dumps(g.get("seen")),
                              g.get("threshold") if not isinstance(g.get("threshold"), (dict, list)) else json.dumps(g.get("threshold")),
                              g.get("detail", "")])
    sheet("Plan", "the approved plan: every step with its tool, arguments and outcome",
          ["Step", "Title", "Tool", "Arguments", "Depends on", "Optional", "Status", "Why not established"], plan_rows)
    sheet("Gates", "every gate of every step with the value it saw and its threshold",
          ["Step", "Gate", "Result", "Seen", "Threshold", "Detail"], gate_rows)

    find_rows = []
    for f in (ws.get("findings") or {}).get("findings") or []:
        band = f.get("band") or {}
        find_rows.append([f.get("label"), f.get("value"), f.get("unit"), band.get("lower"), band.get("upper"),
                          band.get("confidence"), f.get("basis"), f.get("method"), f.get("return_period"),
                          "yes" if f.get("headline") or f.get("summary") else "no"])
    sheet("Findings", "every number the report quotes, the result path it comes from and its band",
          ["Quantity", "Value", "Unit", "Band lower", "Band upper", "Band confidence", "From result", "Method",
           "Return period (years)", "In the summary"], find_rows)
    trace_at = len(wb.sheetnames)

    for n, sec_id, table, name in report_table_sheets(report):
        if not sec_id.startswith("results-") or str(table.get("caption")) == "Gates":
            continue
        sheet(name, f"Table {n} of the report: {plain(str(table.get('caption') or ''))} ({sec_id.replace('results-', 'step ')})",
              *split_columns(table.get("columns") or [], table.get("rows") or []))

    used = {s.lower() for s in wb.sheetnames}
    for st in study.get("steps") or []:
        r = results.get(st.get("id")) or {}
        if r.get("status") != "ok":
            continue
        inputs = frequency_inputs(r.get("payload") or {})
        if inputs:
            unit = (r.get("payload") or {}).get("unit")
            cols = [f"{c} ({unit})" if unit and c not in ("Water year", "Codes", "Treatment") else c for c in COLUMNS]
            sheet(_sheet_name(f"{st['id']} Frequency analysis input", used),
                  f"the frequency analysis input of step {st['id']}: every water year's peak, codes, perception "
                  "threshold, flow interval and treatment", cols, inputs)
        for t in payload_tables(r.get("payload")):
            name = _sheet_name(f"{st['id']} {t['name']}", used)
            sheet(name, f"data of step {st['id']} ({st.get('tool')}): {t['name']}, {len(t['rows'])} rows",
                  t["columns"], t["rows"])
    for tname, entry in (ws.get("tables") or {}).items():
        got = _upload_rows(entry)
        if got:
            name = _sheet_name(f"upload {tname}", used)
            about = f"your table {tname}, as uploaded" + (f" (its first {MAX_DATA_ROWS:,} rows)" if got[2] else "")
            sheet(name, about, got[0], got[1], typed=False)

    _trace(wb, trace_at, find_rows, described)
    arg_rows = [[st.get("id"), k, v if _scalar(v) else json.dumps(v, ensure_ascii=False)]
                for st in study.get("steps") or [] for k, v in (st.get("arguments") or {}).items()]
    _write(wb.create_sheet("Arguments", trace_at + 1), ["Step", "Argument", "Value"], arg_rows)
    described.append(("Arguments", "every argument of every step, one a row (the Plan's Arguments column, cell by cell)"))
    sheet("Figures", "every figure of the report: its number, caption, step and file",
          ["Figure", "Caption", "Step", "PNG file", "SVG file"],
          [[f.get("number"), f.get("caption"), f.get("step") or "site", f.get("name"), f.get("svg")] for f in figures])
    ledger = ws.get("ledger") or {}
    sheet("Ledger", "the model calls each role made, their tokens and cost (empty when every role ran keyless)",
          ["Role", "Model", "Calls", "Prompt tokens", "Completion tokens", "Cost (USD)"],
          [[role, v.get("model"), v.get("calls"), v.get("prompt_tokens"), v.get("completion_tokens"), v.get("cost_usd")]
           for role, v in ledger.items()])

    rows = [["Study", study_id], ["Title", report.get("title") or study.get("title") or ""],
            ["Answer", plain(str(report.get("answer") or ""))],
            ["Re-create this workbook", f"aquascope export {study_id} --format xlsx --out DIR"],
            ["Replay the study", "aquascope run study.yaml"],
            ["Files of the study", ", ".join(files)], [], ["Sheet", "What it holds"], *described]
    for row in rows:
        readme.append([text_cell(readme, v) for v in row])
    # the sheet names in full (a bold name cut by the next column's text was unreadable)
    readme.column_dimensions["A"].width = max([28] + [len(str(r[0])) + 3 for r in rows if r and r[0]])
    readme.column_dimensions["B"].width = 100
    for c in readme["A"]:
        c.font = Font(bold=True)
    for c in readme["B"]:
        c.alignment = Alignment(wrap_text=True, vertical="top")
        lines = len(str(c.value or "")) // 95 + 1
        if lines > 1:  # a wrapped cell gets the height of its lines (not every reader recomputes it)
            readme.row_dimensions[c.row].height = 15 * lines
    _print_setup(readme, 130)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()
