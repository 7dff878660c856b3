"""The workbook as LibreOffice prints it. Looked at: the Plan sheet, with each step's arguments in one long column,
printed one page wide at a third of its size; the README's sheet names (bold, up to 31 characters) cut by the next
column."""

from __future__ import annotations

import io
import subprocess

import pytest

import openpyxl

from aquascope_core.deliverables.workbook import render_workbook

STUDY = {"id": "st-test", "study": {"steps": [{"id": f"s{i}", "title": "Bulletin 17C frequency analysis",
                                               "tool": "bulletin17c_ema", "arguments": {
                                                   "values": "{{ result.s1.systematic.values }}", "note": "x" * 120}}
                                              for i in range(1, 4)]},
         "run": {"results": {}}}
REPORT = {"title": "t", "sections": [{"id": "results", "title": "Results", "subsections": [
    {"id": "results-s2", "title": "s2", "tables": [{"caption": "Skews and their mean square errors",
                                                    "columns": ["Fit", "Mean"], "rows": [["EMA", "3.7"]]}]}]}]}


def test_long_text_wraps_and_sheet_names_show_whole():
    wb = openpyxl.load_workbook(io.BytesIO(render_workbook(STUDY, REPORT)))
    plan = wb["Plan"]
    col = next(c.column_letter for c in plan[1] if c.value == "Arguments")
    assert plan.column_dimensions[col].width <= 42
    assert plan[f"{col}2"].alignment.wrap_text
    assert plan.row_dimensions[2].height >= 13 * 3  # its lines' height: a reader does not recompute it
    readme = wb["README"]
    names = [r[0].value for r in readme.iter_rows(min_row=1) if r[0].value in wb.sheetnames]
    assert max(map(len, names)) > 28
    assert readme.column_dimensions["A"].width >= max(map(len, names)) + 1


def _daily_upload(n: int) -> dict:
    import datetime as dt

    from aquascope_core.tools.context import table_entry

    day = dt.date(1975, 3, 1)
    csv = "date,P (mm/d),PET (mm/d),Q (mm/d)\n" + "".join(
        f"{day + dt.timedelta(days=i)},{i % 7 * 1.5},{i % 5 * 0.4},{1 + i % 11 * 0.1}\n" for i in range(n))
    return {"series.csv": table_entry("series.csv", csv.encode())}


def test_a_long_daily_series_prints_its_first_rows_and_the_readme_says_so(_isolated_home):
    # Looked at: the GR4J study's workbook printed 248 pages, 210 of them its 10,533-day upload sheet.
    from aquascope_core.deliverables.workbook import _PRINT_ROWS

    n = _PRINT_ROWS * 3
    wb = openpyxl.load_workbook(io.BytesIO(render_workbook({"id": "st-daily", "tables": _daily_upload(n)}, {})))
    sh = wb["upload series.csv"]
    assert sh.max_row == n + 1  # every day is still in the sheet
    assert sh.print_area in (f"'upload series.csv'!$A$1:$D${_PRINT_ROWS + 1}",)
    assert sh.print_title_rows == "$1:$1" and sh.page_setup.fitToWidth == 1
    readme = {r[0].value: r[1].value for r in wb["README"].iter_rows() if r[0].value}
    assert f"prints its first {_PRINT_ROWS} of {n:,} rows" in readme["upload series.csv"]
    short = openpyxl.load_workbook(io.BytesIO(render_workbook({"id": "st-d", "tables": _daily_upload(50)}, {})))
    assert not short["upload series.csv"].print_area


@pytest.mark.slow
def test_a_long_daily_series_prints_to_a_few_pages_in_libreoffice(_isolated_home, tmp_path):
    from tests.core.deliverables.doc_check import pages, soffice

    if soffice() is None:
        pytest.skip("LibreOffice is not installed")
    (tmp_path / "workbook.xlsx").write_bytes(render_workbook({"id": "st-daily", "tables": _daily_upload(10_533)}, {}))
    subprocess.run([soffice(), "--headless", "--norestore", f"-env:UserInstallation=file://{tmp_path / 'profile'}",
                    "--convert-to", "pdf", "--outdir", str(tmp_path), str(tmp_path / "workbook.xlsx")],
                   check=True, capture_output=True, timeout=300)
    printed = pages(tmp_path / "workbook.pdf")
    # 10,533 rows at about 50 a page printed 210 pages; its print area of 400 rows prints under ten
    series = [p for p in printed if p.split() and p.split()[0] == "date"]
    assert 5 <= len(series) <= 10, len(series)
    assert all(p.split()[0] in ("date", "Study", "Station", "Step", "Quantity", "Figure", "Role", "Sheet")
               for p in printed if p.strip()), [p.split()[:3] for p in printed]
