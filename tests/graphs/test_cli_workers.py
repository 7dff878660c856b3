"""The one-shot CLI's process structure: by default a study run to its report makes everything in its own process
and starts no worker; asked to (AQUASCOPE_DELIVERABLE_WORKERS=fork) it forks one deliverables worker at start,
never imports the deliverable stack itself, and writes the same files as the same study made in one process; a
caller of graphs.cli.main (not the program) gets no forked worker."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STUDY = ["studio", "Design flow for a road crossing, 100-year", "--lat", "41.10", "--lon", "-74.96", "--yes", "-q"]
# the program as the `aquascope` script runs it (graphs.cli.entry); what it did is printed by an exit handler, which
# entry runs before it leaves
PROBE = """
import atexit, json, sys
from graphs import cli
from aquascope_core.deliverables import workers
seen = {}
def report():
    print(json.dumps({**seen, "imported": [m for m in ("matplotlib", "openpyxl", "docx") if m in sys.modules]}))
atexit.register(report)
real_main = cli.main
def main(argv=None):
    code = real_main(sys.argv[1:])
    seen.update(code=code, forked=workers.forked(), started=len(workers.pids()))
    return code
cli.main = main
cli.entry()
"""


def _run(tmp_path: Path, name: str, **env: str) -> tuple[dict, Path]:
    out = tmp_path / name
    environ = {k: v for k, v in os.environ.items() if k not in ("AQUASCOPE_DELIVERABLE_WORKERS", "AQUASCOPE_FORMATS")}
    environ.update(PYTHONPATH=str(ROOT), AQUASCOPE_HOME=str(tmp_path / f"home-{name}"), **env)
    done = subprocess.run([sys.executable, "-c", PROBE, *STUDY, "--out", str(out)], capture_output=True, text=True,
                          env=environ, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), out


def _same_id(text: str) -> str:
    return re.sub(r"st-[0-9a-f]{12}", "st-ID", text)


def _cells(path: Path) -> dict:
    import openpyxl

    wb = openpyxl.load_workbook(path)
    return {ws.title: [[_same_id(str(c.value)) if c.value is not None else None for c in row]
                       for row in ws.iter_rows()] for ws in wb.worksheets}


@pytest.mark.slow
def test_a_one_shot_study_asked_to_fork_writes_what_the_default_one_process_writes(tmp_path):
    forked, there = _run(tmp_path, "forked", AQUASCOPE_DELIVERABLE_WORKERS="fork")
    alone, here = _run(tmp_path, "alone")  # the default: one process, no worker started
    assert {k: forked[k] for k in ("code", "forked", "imported")} == {"code": 0, "forked": 1, "imported": []}
    # the worker drew and wrote: none of it imported here; by default nothing is forked or started
    assert alone == {"code": 0, "forked": 0, "started": 0, "imported": alone["imported"]}
    assert set(alone["imported"]) == {"matplotlib", "openpyxl", "docx"}
    for name in ("report.md", "report.html", "notebook.ipynb"):
        assert _same_id((there / name).read_text()) == _same_id((here / name).read_text()), name
    assert _cells(there / "workbook.xlsx") == _cells(here / "workbook.xlsx")
    figures = sorted(p.name for p in (there / "figures").iterdir())
    assert figures and figures == sorted(p.name for p in (here / "figures").iterdir())
    for name in figures:
        if name.endswith(".png"):
            assert (there / "figures" / name).read_bytes() == (here / "figures" / name).read_bytes(), name


def test_a_study_that_stops_at_its_plan_forks_nothing(tmp_path):
    out = tmp_path / "plan"
    environ = {k: v for k, v in os.environ.items() if k != "AQUASCOPE_DELIVERABLE_WORKERS"}
    environ.update(PYTHONPATH=str(ROOT), AQUASCOPE_HOME=str(tmp_path / "home"))
    done = subprocess.run([sys.executable, "-c", PROBE, *[a for a in STUDY if a != "--yes"], "--out", str(out)],
                          capture_output=True, text=True, env=environ, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    probe = json.loads(done.stdout.strip().splitlines()[-1])
    assert probe == {"code": 0, "forked": 0, "started": 0, "imported": []}


def test_a_caller_of_main_gets_no_forked_worker(tmp_path, monkeypatch):
    """main() called in a process (a test, a notebook) makes no process-wide choice: no fork, no collector change."""
    import gc

    from aquascope_core.deliverables import workers
    from graphs import cli

    monkeypatch.delenv(workers.ENV, raising=False)
    monkeypatch.setenv("AQUASCOPE_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(cli, "cmd_studio", lambda args: 0)  # the study itself is not what is looked at
    before = gc.get_threshold()
    assert cli.main(STUDY[:1] + ["x", "--lat", "41.1", "--lon", "-74.96", "--yes"]) == 0
    assert workers.forked() == 0 and gc.get_threshold() == before
