"""The workbook as LibreOffice prints it. Looked at: the Plan sheet, with each step's arguments in one long column,
printed one page wide at a third of its size; the README's sheet names (bold, up to 31 characters) cut by the next
column."""

from __future__ import annotations

import io

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
