"""The workbook writes what users and studies typed as text, never as a formula, and names its sheets as Excel
accepts them (OWASP, "CSV Injection": cells beginning with =, +, -, @, tab or CR are stored as text)."""

from __future__ import annotations

import io
import re
import zipfile

import pytest

from aquascope_core.deliverables.build import export_deliverables
from aquascope_core.deliverables.workbook import _sheet_name, split_columns
from aquascope_core.workspace import ArtifactStore, Workspace

HOSTILE = ["=cmd|' /C calc'!A0", "+SUM(1,2)", "-2+3", "@SUM(A1)", "\t=1+1", "\r=1+1", "=HYPERLINK(\"http://x\")"]


def _formula_cells(xlsx: bytes) -> list[str]:
    with zipfile.ZipFile(io.BytesIO(xlsx)) as z:
        return [n for n in z.namelist() if n.startswith("xl/worksheets/") and re.search(rb"<f[ >]", z.read(n))]


def _crafted(ws: Workspace) -> Workspace:
    """Formula-shaped text in every field a caller or an upload can set."""
    ws.study = {**ws.study, "title": HOSTILE[0]}
    for st in ws.study.get("steps") or []:
        st["title"] = HOSTILE[1]
    for d in (ws.inventory or {}).get("datasets") or []:
        d["name"] = HOSTILE[2]
    for f in (ws.findings or {}).get("findings") or []:
        f["label"] = HOSTILE[3]
        f["method"] = HOSTILE[4]
    csv = ",".join(HOSTILE[:3]) + "\n" + "\n".join(",".join([h.replace(",", ";").replace("\r", " ")
                                                              .replace("\t", " "), "1", "2"]) for h in HOSTILE)
    ws.tables = {"=evil\nname.csv": {"original": {"data": csv}}}
    ws.report = {**(ws.report or {}), "title": HOSTILE[5], "answer": HOSTILE[6]}
    ws.artifacts = []  # made again through the export path
    return ws


@pytest.mark.slow
def test_a_crafted_workspace_exported_has_no_formula_cell(finished_studies, figure_makers, tmp_path):
    import openpyxl

    ws = _crafted(Workspace.from_dict(finished_studies("flood")["workspace"]))
    store = ArtifactStore(tmp_path / "store")
    paths, _ = export_deliverables(ws, store, tmp_path / "out", formats="xlsx")
    xlsx = next(p for p in paths if p.name == "workbook.xlsx").read_bytes()
    assert _formula_cells(xlsx) == []
    wb = openpyxl.load_workbook(io.BytesIO(xlsx))
    texts = {c.value for sh in wb.worksheets for row in sh.iter_rows() for c in row if isinstance(c.value, str)}
    for h in ("=cmd|' /C calc'!A0", "+SUM(1,2)", "@SUM(A1)"):
        assert h in texts  # kept as the user typed it, as text
    assert any(isinstance(c.value, (int, float)) for row in wb["Findings"].iter_rows(min_row=2) for c in row)
    upload = next(n for n in wb.sheetnames if n.startswith("upload"))
    assert "\n" not in upload and len(upload) <= 31
    assert wb[upload]["B2"].value == 1  # numbers of an upload stay numbers


@pytest.mark.parametrize("want", ["a\nb", "x[1]:y*z?", "'quoted'", "History", "s2 Annual frequency curve discharges at selected"])
def test_sheet_names_excel_accepts(want):
    used: set[str] = set()
    name = _sheet_name(want, used)
    assert len(name) <= 31 and not re.search(r"[\[\]:*?/\\\x00-\x1f]", name)
    assert not name.startswith("'") and not name.endswith("'") and name.lower() != "history"
    assert not name.endswith(("sel", " ")) and name == name.strip()  # cut at a word
    again = _sheet_name(want, used)
    assert again != name and len(again) <= 31


def test_intervals_and_parameters_become_numeric_columns():
    cols, rows = split_columns(["T", "90 % band", "Parameters"],
                               [[2, "4,440 to 6,300", "mean_log 3.72, sd_log 0.291"], [5, "7,760 to 10,900", "mean_log 3.8, sd_log 0.3"]])
    assert cols == ["T", "90 % band lower", "90 % band upper", "mean_log", "sd_log"]
    assert rows[1] == [5, "7,760", "10,900", "3.8", "0.3"]  # typed to numbers by the writer (cell_value)


@pytest.mark.slow
def test_word_and_html_keep_formula_and_field_shaped_text_as_text(finished_studies):
    import docx

    from aquascope_core.deliverables.html import render_html
    from aquascope_core.deliverables.report_docx import render_docx

    ws = _crafted(Workspace.from_dict(finished_studies("flood")["workspace"]))
    field = "{ INCLUDETEXT \"c:/x\" } <script>alert(1)</script> =cmd|' /C calc'!A0"
    ws.report["sections"][0]["text"] = field
    data = render_docx(ws.report, {}, study_id=ws.id)
    doc = docx.Document(io.BytesIO(data))
    body = doc.element.body.xml
    assert "instrText" not in body and "fldSimple" not in body and "fldChar" not in body  # fields only in the footer
    assert any(field in p.text for p in doc.paragraphs)
    page = render_html(ws.report, {})
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
