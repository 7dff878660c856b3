"""make_deliverables and its makers on a finished flood study: every file, reopened as a client would."""

from __future__ import annotations

import hashlib
import io
import json
import re
import sys
import zipfile

import pytest

from aquascope_core.deliverables.blocks import blocks, plain
from aquascope_core.deliverables.build import _formats, export_deliverables, make_deliverables
from aquascope_core.deliverables.html import render_html
from aquascope_core.errors import InputError
from aquascope_core.workspace import ArtifactStore, Workspace

SECTION_TITLES = ["Summary", "Problem and decision", "Site and data", "Methodology", "Results",
                  "Limitations and what this study does not establish", "Recommendations", "Glossary",
                  "References", "Sign-off", "Appendix: reproducibility"]


@pytest.fixture
def flood(finished_studies, figure_makers, tmp_path):
    """A fresh copy of the finished flood study's workspace and an empty store."""
    done = finished_studies("flood")
    return Workspace.from_dict(done["workspace"]), ArtifactStore(tmp_path / "store")


@pytest.fixture(scope="module")
def made(finished_studies, install_figures, tmp_path_factory):
    """The flood study's deliverables made once for the tests that only read them: (workspace, store, result)."""
    with pytest.MonkeyPatch.context() as mp:
        install_figures(mp)
        ws = Workspace.from_dict(finished_studies("flood")["workspace"])
        store = ArtifactStore(tmp_path_factory.mktemp("made") / "store")
        return ws, store, make_deliverables(ws, store)


def _by_name(ws):
    return {a["name"]: a for a in ws.artifacts}


def test_every_file_is_made_and_the_state_holds_references_only(made):
    ws, store, out = made
    names = _by_name(ws)
    assert {"report.md", "report.html", "report.docx", "workbook.xlsx", "notebook.ipynb", "study.yaml",
            "workspace.json", "bundle.zip"} <= set(names)
    figs = [a for a in ws.artifacts if a["kind"] == "figure"]
    assert out["skipped"] == [] and figs and {a["media_type"] for a in figs} == {"image/png", "image/svg+xml"}
    assert all(store.get(a)[:8] == b"\x89PNG\r\n\x1a\n" for a in figs if a["name"].endswith(".png"))
    state = json.dumps(ws.to_dict())
    assert "base64" not in state and "iVBORw0KGgo" not in state  # no PNG bytes (or their base64) in the state
    for a in ws.artifacts:
        assert set(a) >= {"id", "name", "media_type", "caption", "step", "sha256"} and "data" not in a


def test_figures_sit_in_their_step_and_the_site_map_in_site_and_data(made):
    ws, store, _ = made
    secs = {s["id"]: s for s in ws.report["sections"]}
    site_figs = secs["site_data"].get("figures") or []
    assert [f["kind"] for f in site_figs] == ["site_map"]
    for sub in secs["results"]["subsections"]:
        for f in sub.get("figures") or []:
            assert sub["id"] == f"results-{f['step']}"
    steps_with_figures = {f["step"] for sub in secs["results"]["subsections"] for f in sub.get("figures") or []}
    pointed = {sub["id"].replace("results-", "") for sub in secs["results"]["subsections"] if sub.get("figure_notes")}
    planned = {st["id"] for st in ws.study["steps"] if any(o["kind"] == "figure" for o in st.get("outputs") or [])}
    assert steps_with_figures | pointed == planned and not steps_with_figures & pointed
    for sub in secs["results"]["subsections"]:  # a figure drawn into another says where it is
        assert all(re.fullmatch(r"The .+ is shown in Figure \d+\.", n) for n in sub.get("figure_notes") or [])
    md = store.get(_by_name(ws)["report.md"]).decode()
    assert "![Figure 1. " in md and "](figures/fig-01-" in md


def test_the_word_report_reopens_with_headings_tables_pictures_and_page_numbers(made):
    import docx

    ws, store, _ = made
    doc = docx.Document(io.BytesIO(store.get(_by_name(ws)["report.docx"])))
    h1 = [p.text for p in doc.paragraphs if p.style.name == "Heading 1"]
    assert h1 == SECTION_TITLES
    h2 = [p.text for p in doc.paragraphs if p.style.name == "Heading 2"]
    assert [t for t in h2 if t.startswith("s")][:4] == [s["title"] for s in
                                                       ws.report["sections"][4]["subsections"][:4]]
    assert doc.paragraphs[0].text == "" and any(p.style.name == "Title" for p in doc.paragraphs[:10])
    n_figs = sum(1 for a in ws.artifacts if a["kind"] == "figure" and a["name"].endswith(".png"))
    assert len(doc.inline_shapes) == n_figs
    assert any(p.style.name == "Caption" and p.text.startswith("Figure 1. ") for p in doc.paragraphs)
    # the key numbers come first: the first table is the Summary's, with its header row repeated on each page
    first = doc.tables[0]
    assert [c.text for c in first.rows[0].cells] == ["Quantity", "Value", "Unit", "Band", "Confidence", "Source"]
    assert "100-year maximum daily-mean flow, GEV (L-moments)" in [r.cells[0].text for r in first.rows]
    assert first.rows[0]._tr.xpath("./w:trPr/w:tblHeader")
    gates = [t for t in doc.tables if [c.text for c in t.rows[0].cells][:3] == ["Step", "Gate", "Result"]]
    assert gates and len(gates[0].rows) > 10
    footer_xml = doc.sections[0].footer._element.xml
    assert "PAGE" in footer_xml and "fldChar" in footer_xml
    body = "\n".join(p.text for p in doc.paragraphs)
    # the study file is attached and named in the appendix, not pasted into the report
    assert "study.yaml" in body and "attached, not reproduced here" in body and "steps:" not in body
    assert "Prepared by" in [r.cells[0].text for t in doc.tables for r in t.rows]  # the sign-off block


def test_a_long_table_is_capped_with_a_pointer_to_its_sheet(flood):
    import docx
    from aquascope_core.deliverables.report_docx import render_docx

    ws, _ = flood
    report = ws.report
    long = {"columns": ["Year", "Flow (m3/s)"], "rows": [[1900 + i, float(i)] for i in range(90)], "caption": "All years"}
    report["sections"][4]["subsections"][0].setdefault("tables", []).insert(0, long)
    from aquascope_core.deliverables.workbook import report_table_sheets

    sheets = {n: name for n, _, _, name in report_table_sheets(report)}
    n = next(n for n, _, t, _ in report_table_sheets(report) if t is long)
    assert sheets[n] == "s1 All years"
    doc = docx.Document(io.BytesIO(render_docx(report, {}, table_sheets=sheets, max_rows=40)))
    capped = next(t for t in doc.tables if t.rows[0].cells[0].text == "Year")
    assert len(capped.rows) == 41
    text = "\n".join(p.text for p in doc.paragraphs)
    assert "The first 40 of 90 rows; all of them are in the workbook (workbook.xlsx, sheet s1 All years)." in text


def test_the_workbook_reopens_with_its_sheets_typed_numbers_and_frozen_headers(made):
    import openpyxl

    ws, store, _ = made
    wb = openpyxl.load_workbook(io.BytesIO(store.get(_by_name(ws)["workbook.xlsx"])))
    names = wb.sheetnames
    assert names[:6] == ["README", "Inventory", "Plan", "Gates", "Findings", names[5]] and names[-2:] == ["Figures", "Ledger"]
    readme = {r[0].value: r[1].value for r in wb["README"].iter_rows() if r[0].value}
    assert readme["Study"] == ws.id and readme["Re-create this workbook"] == f"aquascope export {ws.id} --format xlsx --out DIR"
    described = {r[0].value for r in wb["README"].iter_rows(min_row=9) if r[0].value}
    assert set(names) - {"README"} == described  # every sheet is explained
    for name in names[1:]:
        assert wb[name].freeze_panes == "A2"
    # the annual maxima as numbers, with the unit in the header
    amax = next(wb[n] for n in names if n.startswith("s2 ") and "values" in n)
    header = [c.value for c in amax[1]]
    assert header == ["water_years", "values (m3/s)", "dates"]
    years = [r[0].value for r in amax.iter_rows(min_row=2)]
    flows = [r[1].value for r in amax.iter_rows(min_row=2)]
    s2 = ws.run["results"]["s2"]["payload"]
    assert years == s2["water_years"] and flows == pytest.approx(s2["values"], rel=1e-12)
    findings = {r[0].value: r[1].value for r in wb["Findings"].iter_rows(min_row=2)}
    assert isinstance(findings["100-year maximum daily-mean flow, GEV (L-moments)"], float)
    figs = list(wb["Figures"].iter_rows(min_row=2, values_only=True))
    assert len(figs) == sum(1 for a in ws.artifacts if a["kind"] == "figure" and a["name"].endswith(".png"))
    # a report table's "12.5 %" and "1,000" come out as numbers
    levels = next(wb[n] for n in names if n.startswith("s3 Return levels"))
    col = [r[0].value for r in levels.iter_rows(min_row=2)]
    assert col[-1] == 1000 and all(isinstance(x, int) for x in col)


def test_the_html_is_self_contained_ordered_and_escapes_user_text(flood):
    ws, store = flood
    ws.brief["problem"] = "Flow at <script>alert('x')</script> & the ford"
    from roles.author import build_report

    ws.report = build_report(ws)
    make_deliverables(ws, store)
    page = store.get(_by_name(ws)["report.html"]).decode()
    assert "<script>" not in page and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; the ford" in page
    positions = [page.index(f">{t}</h2>") for t in ["Summary", "Problem and decision", "Site and data", "Methodology",
                                                    "Results", "Recommendations", "References"]]
    assert positions == sorted(positions)
    n_png = sum(1 for a in ws.artifacts if a["kind"] == "figure" and a["name"].endswith(".png"))
    assert page.count('src="data:image/png;base64,') == n_png and 'src="figures/' not in page
    assert "@media print" in page and "break-inside: avoid" in page


def test_the_bundle_holds_everything_with_a_manifest_of_sha256(made):
    ws, store, _ = made
    zf = zipfile.ZipFile(io.BytesIO(store.get(_by_name(ws)["bundle.zip"])))
    names = set(zf.namelist())
    assert {"report.md", "report.html", "report.docx", "workbook.xlsx", "notebook.ipynb", "study.yaml", "workspace.json",
            "README.txt", "manifest.json"} <= names
    assert any(n.startswith("figures/") and n.endswith(".png") for n in names)
    manifest = json.loads(zf.read("manifest.json"))
    assert {f["name"] for f in manifest["files"]} == names - {"manifest.json"}
    for f in manifest["files"]:
        assert hashlib.sha256(zf.read(f["name"])).hexdigest() == f["sha256"]
    inner = json.loads(zf.read("workspace.json"))
    assert inner["id"] == ws.id and all("sha256" in a for a in inner["artifacts"])
    assert "aquascope run study.yaml" in zf.read("README.txt").decode()


def test_a_missing_library_skips_its_file_with_a_note_never_a_crash(flood, monkeypatch):
    ws, store = flood
    monkeypatch.setitem(sys.modules, "docx", None)  # import docx now raises ImportError
    out = make_deliverables(ws, store)
    names = _by_name(ws)
    assert "report.docx" not in names and {"report.md", "report.html", "workbook.xlsx", "bundle.zip"} <= set(names)
    assert len(out["skipped"]) == 1 and "python-docx cannot be imported" in out["skipped"][0]
    for doc in ("report.md", "report.html"):
        assert "The Word report was not made: python-docx cannot be imported" in store.get(names[doc]).decode()
    assert "report.docx" not in zipfile.ZipFile(io.BytesIO(store.get(names["bundle.zip"]))).namelist()


def test_a_maker_that_fails_is_skipped_and_the_rest_is_made(flood, monkeypatch):
    import aquascope_core.deliverables.workbook as workbook

    ws, store = flood

    def broken(*a, **k):
        raise ValueError("a sheet name the writer refused")

    monkeypatch.setattr(workbook, "render_workbook", broken)
    monkeypatch.setenv("AQUASCOPE_DELIVERABLE_WORKERS", "0")  # the patched maker exists in this process only
    out = make_deliverables(ws, store)
    assert "workbook.xlsx" not in _by_name(ws) and "report.docx" in _by_name(ws)
    assert "The workbook was not made: making it failed (ValueError: a sheet name the writer refused)" in out["skipped"][0]


def test_formats_are_checked_and_export_rebuilds_what_the_store_lost(flood, tmp_path):
    ws, store = flood
    assert _formats("HTML, docx,Excel") == ("html", "docx", "xlsx")
    with pytest.raises(InputError, match="format.*pdf.*md, html, docx, xlsx, ipynb, zip"):
        _formats("html,pdf")
    make_deliverables(ws, store)
    paths, rebuilt = export_deliverables(ws, store, tmp_path / "a", "html,xlsx")
    assert not rebuilt and sorted(p.name for p in paths) == ["report.html", "study.yaml", "workbook.xlsx", "workspace.json"]
    empty = ArtifactStore(tmp_path / "other-store")  # the files are gone: they are made again from the workspace
    paths, rebuilt = export_deliverables(ws, empty, tmp_path / "b", "md")
    assert rebuilt and (tmp_path / "b" / "report.md").is_file()
    assert any(p.parent.name == "figures" for p in paths)  # the Markdown's figures come with it


def test_blocks_read_the_authors_markdown():
    got = list(blocks("**Question.** Is it <b>?\n\n- one `code`\n- two\n\n1. first\n2. second\n\n```\naquascope run\n```"))
    assert [k for k, _ in got] == ["p", "ul", "ol", "code"]
    assert got[0][1][0] == ("Question.", frozenset({"bold"})) and got[3][1] == "aquascope run"
    assert plain("the `s3.fits` of **GEV** _fit_") == "the s3.fits of GEV fit"
    assert plain("gev_lmoments and q_95") == "gev_lmoments and q_95"  # snake_case is not italic


def test_html_of_a_figure_without_its_image_says_so():
    report = {"title": "T", "sections": [{"id": "results", "title": "Results", "text": "",
                                          "figures": [{"name": "figures/x.png", "caption": "Flows", "number": 2}]}]}
    page = render_html(report, {})
    assert "Figure 2. Flows (the image is not available)" in page


def test_report_cells_become_typed_workbook_values():
    import datetime

    from aquascope_core.deliverables.workbook import cell_value

    assert cell_value("89.5 %") == (89.5, '0.0" %"') and cell_value("1,000") == (1000, None)
    assert cell_value("\u22121.99") == (-1.99, None) and cell_value("0.5") == (0.5, None)
    assert cell_value("2025-05-05") == (datetime.date(2025, 5, 5), "yyyy-mm-dd")
    assert cell_value("01440000") == ("01440000", None)  # a station id keeps its leading zero
    assert cell_value("97.5 to 189") == ("97.5 to 189", None) and cell_value(None) == (None, None)
