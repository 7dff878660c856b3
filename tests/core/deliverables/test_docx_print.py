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


def test_a_short_wide_table_is_turned_not_set_on_a_landscape_page():
    """The Big Sandy (Bulletin 17C) report set its skew-sensitivity table (three rows across thirteen columns) on a
    landscape page of its own, which left the page before it holding one small table at its top. A table of a few
    rows too wide for the portrait width is printed with rows and columns exchanged when that fits; a long wide
    table still goes landscape."""
    cols = ["Skew", "Regional skew", "Its MSE", "Weighted skew"] + [f"{T}-year (ft3/s)" for T in
                                                                     (2, 5, 10, 25, 50, 100, 200, 500, "1,000")]
    rows = [["the design value: the published regional skew", "0.048", "0.16", "0.0261", *["24,600"] * 9],
            ["sensitivity: at-site skew alone", "n/a", "n/a", "0.00675", *["24,400"] * 9],
            ["sensitivity: the example's regional skew", "-0.5", "0.303", "-0.156", *["23,000"] * 9]]
    small = {"caption": "Skew weighting", "columns": ["At-site skew", "Weighted skew"], "rows": [["0.00675", "0.0261"]]}
    report = {"title": "t", "sections": [{"id": "s", "title": "S", "tables": [small, {"caption": "Sensitivity",
                                                                                      "columns": cols, "rows": rows}]}]}
    doc = docx.Document(io.BytesIO(render_docx(report, {})))
    assert len(doc.sections) == 1  # no landscape section
    turned = doc.tables[1]
    assert len(turned.rows) == len(cols) and len(turned.columns) == 1 + len(rows)
    assert [c.text for c in turned.rows[0].cells] == ["Quantity", *(r[0] for r in rows)]
    assert turned.rows[4].cells[0].text == "2-year (ft3/s)" and turned.rows[4].cells[3].text == "23,000"
    long = {"caption": "Long", "columns": cols, "rows": rows * 4}
    doc = docx.Document(io.BytesIO(render_docx({"title": "t", "sections": [{"id": "s", "title": "S",
                                                                            "tables": [long]}]}, {})))
    assert len(doc.sections) > 1 and len(doc.tables[0].columns) == len(cols)
