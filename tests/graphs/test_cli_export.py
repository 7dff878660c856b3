"""`aquascope export`: a finished study's files written again from its checkpoint, in a new process."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEXT = "Design flow for a road crossing, 100-year"

pytestmark = pytest.mark.slow


def aquascope(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "AQUASCOPE_HOME": str(home)}
    env.pop("AQUASCOPE_LIVE", None)
    return subprocess.run([sys.executable, "-m", "graphs.cli", *args], capture_output=True, text=True, env=env,
                          cwd=str(ROOT), timeout=300)


def test_export_writes_the_files_again_from_the_checkpoint(tmp_path):
    first = aquascope("studio", TEXT, "--lat", "41.10", "--lon", "-74.96", "--yes", "-q", "--out", str(tmp_path / "a"),
                      home=tmp_path)
    assert first.returncode == 0, first.stderr
    assert re.search(r"Wrote report\.md, report\.html, report\.docx, workbook\.xlsx, notebook\.ipynb, study\.yaml, "
                     r"workspace\.json, bundle\.zip", first.stdout)
    study_id = re.search(r"Study (st-[0-9a-f]+)", first.stderr).group(1)

    # the chosen formats only (study.yaml and workspace.json always), copied from the artifact store
    some = aquascope("export", study_id, "--out", str(tmp_path / "b"), "--format", "html,xlsx", home=tmp_path)
    assert some.returncode == 0, some.stderr
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["report.html", "study.yaml", "workbook.xlsx",
                                                                 "workspace.json"]
    assert (tmp_path / "b" / "report.html").read_bytes() == (tmp_path / "a" / "report.html").read_bytes()

    # the store is gone (another machine, a cleaned folder): everything is made again from the checkpoint
    shutil.rmtree(tmp_path / "studies" / study_id / "artifacts")
    again = aquascope("export", study_id, "--out", str(tmp_path / "c"), home=tmp_path)
    assert again.returncode == 0, again.stderr
    names = {p.name for p in (tmp_path / "c").iterdir()}
    assert {"report.md", "report.docx", "workbook.xlsx", "notebook.ipynb", "bundle.zip"} <= names
    assert "bundle.zip" in again.stdout
    assert "report.docx" in zipfile.ZipFile(tmp_path / "c" / "bundle.zip").namelist()

    bad = aquascope("export", study_id, "--out", str(tmp_path / "d"), "--format", "pdf", home=tmp_path)
    assert bad.returncode == 2 and "format" in bad.stderr and "md, html, docx, xlsx, ipynb, zip" in bad.stderr
    unknown = aquascope("export", "st-000000000000", "--out", str(tmp_path / "e"), home=tmp_path)
    assert unknown.returncode == 2 and "no study 'st-000000000000'" in unknown.stderr
