"""Formula-shaped text (OWASP "CSV Injection": a cell beginning with =, +, -, @, tab or CR) typed into every field a
user sets on a real study (the brief, the answer to the questions, the reviewer's name, the upload's file name, a
column header and text cells of the upload, the follow-up; of these the upload's name, header and cells reach the
workbook, the brief, answer, reviewer and follow-up do not) and a workspace crafted through the MCP tools (its
README, Inventory and Findings fields rewritten) give a workbook with no formula cell, checked on the XML: the
text is kept as the user typed it, stored as a string, and numbers stay numbers."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
from tests.answers import past_request

CMD = "=cmd|' /C calc'!A0"
LINK = '=HYPERLINK("http://x")'
SUM = "@SUM(A1)"
PLUS = "+SUM(1,2)"
MINUS = "-2+3"
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def formula_cells(xlsx: bytes) -> dict[str, int]:
    """Worksheet part -> the number of <f> (formula) elements in it; {} when the workbook holds none."""
    out = {}
    with zipfile.ZipFile(io.BytesIO(xlsx)) as z:
        for name in z.namelist():
            if name.startswith("xl/worksheets/"):
                n = len(re.findall(rb"<(?:\w+:)?f[ >/]", z.read(name)))
                if n:
                    out[name] = n
    return out


def _formula_shaped_strings(xlsx: bytes) -> list[str]:
    import openpyxl

    wb = openpyxl.load_workbook(io.BytesIO(xlsx))
    return [c.value for sh in wb.worksheets for row in sh.iter_rows() for c in row
            if isinstance(c.value, str) and c.value.startswith(FORMULA_START)]


def _peaks_csv() -> bytes:
    rows = [f"water_year,peak_cfs,{LINK}"] + [f"{1930 + i},{5000 + 11 * i + (i * 37) % 900},{SUM}" for i in range(40)]
    return ("\n".join(rows) + "\n").encode()


def _study(root: Path):
    from graphs.studio import Studio

    s = Studio(41.10, -74.96, checkpointer=f"sqlite:///{root / 'cp.sqlite'}", artifact_root=root / "art")
    s.add_table("=evil\nname.csv", _peaks_csv())
    r = past_request(s, s.say(f"{CMD} Design flow for a road crossing, 100-year, from my peak record {SUM}"))
    if r.kind == "questions":
        r = past_request(s, s.say(f"{MINUS} just go"))
    r = s.approve(by=f"{SUM} reviewer")
    assert r.kind == "report", (r.kind, r.text[:300])
    return s


@pytest.mark.slow
def test_formula_shaped_text_in_every_user_field_of_a_study_gives_no_formula_cell(tmp_path):
    import openpyxl

    with _study(tmp_path) as s:
        s.export(tmp_path / "first", formats="xlsx")
        s.follow_up(f"{PLUS} redo it with a 200-year return period {CMD}")
        s.export(tmp_path / "after", formats="xlsx")
    for out in ("first", "after"):
        xlsx = (tmp_path / out / "workbook.xlsx").read_bytes()
        assert formula_cells(xlsx) == {}, out
        shaped = _formula_shaped_strings(xlsx)
        for typed in ("=evil\nname.csv", LINK, SUM):  # what the upload brought, kept as text
            assert typed in shaped, (out, typed)
        wb = openpyxl.load_workbook(io.BytesIO(xlsx))
        upload = next(n for n in wb.sheetnames if n.startswith("upload"))
        assert "\n" not in upload and wb[upload]["B2"].value == 5000  # numbers stay numbers


@pytest.mark.slow
def test_a_workspace_crafted_through_the_mcp_tools_exports_no_formula_cell(tmp_path, monkeypatch):
    from graphs.mcp_server import _guarded, _Tools

    with _study(tmp_path / "made") as s:
        ws = s.to_dict()
    ws["id"] = "st-0000crafted1"  # not a study the server holds: the dict is what gets exported
    ws["request"]["text"] = CMD
    ws["study"]["title"] = CMD
    for st in ws["study"].get("steps") or []:
        st["title"] = PLUS
    for d in ws["inventory"].get("datasets") or []:
        d["name"] = MINUS
    for f in ws["findings"].get("findings") or []:
        f["label"], f["method"] = SUM, "\t=1+1"
    ws["report"]["title"] = "\r=1+1"
    # its artifact references stay, naming files this server's store does not hold: made again from the dict
    monkeypatch.setenv("AQUASCOPE_HOME", str(tmp_path / "server-home"))
    tools = _Tools(export_dir=tmp_path / "exports")
    out = _guarded(tools.studio_export)(out="crafted", workspace=ws)
    assert not getattr(out, "is_error", False), out
    xlsx = (tmp_path / "exports" / "crafted" / "workbook.xlsx").read_bytes()
    assert formula_cells(xlsx) == {}
    import openpyxl

    wb = openpyxl.load_workbook(io.BytesIO(xlsx))
    for sheet, typed in (("README", "\r=1+1"), ("Inventory", MINUS), ("Findings", SUM)):
        cells = [c.value for row in wb[sheet].iter_rows() for c in row]
        assert typed in cells, (sheet, typed)  # the crafted text is in the sheet the issue names, as text
    assert any(isinstance(c.value, (int, float)) for row in wb["Findings"].iter_rows(min_row=2) for c in row)


def test_the_xml_check_sees_a_formula_openpyxl_would_write(tmp_path):
    import openpyxl

    wb = openpyxl.Workbook()
    wb.active["A1"] = "=1+1"
    buf = io.BytesIO()
    wb.save(buf)
    assert formula_cells(buf.getvalue()) == {"xl/worksheets/sheet1.xml": 1}
