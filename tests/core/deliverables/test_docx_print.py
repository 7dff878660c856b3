"""The Word report as LibreOffice prints it: no table row broken across two pages (the Big Sandy report printed a
station's name half at one page's foot and half at the next one's head)."""

from __future__ import annotations

import io

import docx
from docx.oxml.ns import qn

from aquascope_core.deliverables.report_docx import render_docx


def test_no_row_breaks_across_a_page():
    table = {"caption": "Stations", "columns": ["Station", "Id"],
             "rows": [[f"DUCK RIVER ABOVE HURRICANE MILLS, TN {i}", f"0360{i}"] for i in range(30)]}
    doc = docx.Document(io.BytesIO(render_docx({"title": "t", "sections": [{"id": "s", "title": "S",
                                                                            "tables": [table]}]}, {})))
    rows = doc.tables[0].rows
    assert len(rows) == 31
    for row in rows:
        pr = row._tr.trPr
        assert pr is not None and pr.find(qn("w:cantSplit")) is not None
    assert rows[0]._tr.trPr.find(qn("w:tblHeader")) is not None
