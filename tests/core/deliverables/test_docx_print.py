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


def test_the_sign_off_stays_on_one_page():
    """The irrigation report printed the sign-off's heading and sentence at a page's foot and its table on the next:
    the sentence before a section's table keeps with it, and a small table's rows keep together."""
    sign = {"caption": "Sign-off", "columns": ["Role", "Name", "Signature", "Date"], "row_height_mm": 12,
            "rows": [["Prepared by", "", "", ""], ["Checked by", "", "", ""], ["Approved by", "", "", ""]]}
    report = {"title": "t", "sections": [{"id": "signoff", "title": "Sign-off", "text": "The fields below are blank.",
                                          "tables": [sign]}]}
    doc = docx.Document(io.BytesIO(render_docx(report, {})))
    intro = next(p for p in doc.paragraphs if p.text == "The fields below are blank.")
    assert intro.paragraph_format.keep_with_next is True
    rows = doc.tables[0].rows
    assert all(p.paragraph_format.keep_with_next for r in rows[:-1] for c in r.cells for p in c.paragraphs)
    assert not any(p.paragraph_format.keep_with_next for c in rows[-1].cells for p in c.paragraphs)
