"""The five studies of the issue, as a client opens them: every file written; the Word file and the workbook
reopen with their headings, tables, pictures and sheets; LibreOffice converts the .docx, .xlsx and .html to PDF;
the notebook runs top to bottom in a fresh kernel and its numbers are the study's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

SECTION_TITLES = ["Summary", "Problem and decision", "Site and data", "Methodology", "Results",
                  "Limitations and what this study does not establish", "Recommendations", "Glossary",
                  "References", "Sign-off", "Appendix: reproducibility"]
pytestmark = pytest.mark.slow

NAMES = ["flood", "bulletin17c", "drought", "gr4j", "supply"]
FILES = {"report.md", "report.html", "report.docx", "workbook.xlsx", "notebook.ipynb", "study.yaml", "workspace.json",
         "bundle.zip"}
BRANCH = {"flood": "at_site", "bulletin17c": "bulletin17c", "drought": "climate_record", "gr4j": "rainfall_runoff",
          "supply": "run_of_river"}


@pytest.mark.parametrize("name", NAMES)
def test_every_file_is_written_and_reopens(finished_studies, name):
    import docx
    import openpyxl

    done = finished_studies(name)
    ws, out = done["workspace"], done["out"]
    assert ws["study"]["plan"]["branch"] == BRANCH[name]
    assert FILES <= {p.name for p in out.iterdir()}
    pngs = sorted(p.name for p in (out / "figures").glob("*.png"))
    assert pngs and len(pngs) == len(list((out / "figures").glob("*.svg")))

    doc = docx.Document(str(out / "report.docx"))
    assert [p.text for p in doc.paragraphs if p.style.name == "Heading 1"] == SECTION_TITLES
    steps = [f"{st['id']}. " for st in ws["study"]["steps"]]
    h2 = [p.text for p in doc.paragraphs if p.style.name == "Heading 2"]
    assert [t[:len(s)] for t, s in zip([t for t in h2 if t[:1] == "s" and ". " in t], steps)] == steps
    assert len(doc.inline_shapes) == len(pngs)
    assert len(doc.tables) >= 4 and all(len(t.rows) >= 2 for t in doc.tables)

    wb = openpyxl.load_workbook(str(out / "workbook.xlsx"))
    assert wb.sheetnames[:5] == ["README", "Inventory", "Plan", "Gates", "Findings"]
    assert wb.sheetnames[-2:] == ["Figures", "Ledger"] and len(wb.sheetnames) > 8
    assert wb["Plan"].max_row == len(ws["study"]["steps"]) + 1
    assert wb["Figures"].max_row == len(pngs) + 1


def _soffice() -> str | None:
    found = shutil.which("soffice") or shutil.which("libreoffice")
    if found is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("LibreOffice (soffice) is missing in CI: .ci/run installs libreoffice-writer and libreoffice-calc")
        pytest.skip("LibreOffice (soffice) is not installed")
    return found


def test_libreoffice_converts_the_word_excel_and_html_files_to_pdf(finished_studies, tmp_path):
    soffice = _soffice()
    src = tmp_path / "in"
    src.mkdir()
    wanted = []
    for name in NAMES:
        out = finished_studies(name)["out"]
        for f, stem in (("report.docx", "report"), ("workbook.xlsx", "workbook"), ("report.html", "web")):
            target = src / f"{name}-{stem}{os.path.splitext(f)[1]}"
            shutil.copy(out / f, target)
            wanted.append(target)
    pdf = tmp_path / "pdf"
    proc = subprocess.run([soffice, f"-env:UserInstallation=file://{tmp_path / 'profile'}", "--headless",
                           "--convert-to", "pdf", "--outdir", str(pdf), *map(str, wanted)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    for f in wanted:
        made = pdf / (f.stem + ".pdf")
        assert made.is_file() and made.read_bytes()[:5] == b"%PDF-", (f.name, proc.stdout, proc.stderr)
        assert made.stat().st_size > 5000
    if shutil.which("pdfinfo"):  # the Word report runs to several pages, with the figures in it
        info = subprocess.run(["pdfinfo", str(pdf / "flood-report.pdf")], capture_output=True, text=True).stdout
        assert int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:"))) >= 5


@pytest.mark.parametrize("name", NAMES)
def test_the_notebook_runs_in_a_fresh_kernel_and_its_numbers_are_the_studys(finished_studies, name, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")

    done = finished_studies(name)
    for f in ("notebook.ipynb", "study.yaml", "workspace.json"):
        shutil.copy(done["out"] / f, tmp_path / f)
    nb = nbformat.read(str(tmp_path / "notebook.ipynb"), as_version=4)
    nbformat.validate(nb)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    check = json.loads(next(line for line in text.splitlines() if line.startswith('{"checked"')))
    findings = [f for f in done["workspace"]["findings"]["findings"]
                if f.get("basis") and isinstance(f.get("value"), (int, float, str)) and not isinstance(f["value"], bool)]
    assert check["differ"] == [] and check["checked"] == len(findings) > 0
    for f in findings:
        assert check["values"][f["basis"]] == pytest.approx(f["value"], rel=1e-9) if isinstance(f["value"], float) \
            else check["values"][f["basis"]] == f["value"]
    images = [o for o in outputs if o.get("output_type") == "display_data" and "image/png" in o.get("data", {})]
    if done["figures_from"] == "real":  # the notebook redraws every figure with the same makers
        assert len(images) == len(list((done["out"] / "figures").glob("*.png")))
