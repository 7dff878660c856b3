"""`aquascope studies`: every study with its status (waiting, interrupted, done), site, question and last step."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.graphs.test_resume_kill import _run_and_kill

ROOT = Path(__file__).resolve().parents[2]
TEXT = "Design flow for a road crossing, 100-year"


def _cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "AQUASCOPE_HOME": str(home), "AQUASCOPE_FORMATS": "md"}  # report.md is what is compared
    env.pop("AQUASCOPE_LIVE", None)
    return subprocess.run([sys.executable, "-m", "graphs.cli", *args], capture_output=True, text=True, env=env,
                          cwd=str(ROOT), timeout=300)


@pytest.mark.slow
def test_studies_lists_waiting_interrupted_and_done_studies(tmp_path):
    home = tmp_path / "home"
    empty = _cli("studies", home=home)
    assert empty.returncode == 0 and "No studies yet" in empty.stdout
    waiting = _cli("studio", TEXT, "--lat", "41.10", "--lon", "-74.96", "-q", home=home)
    assert waiting.returncode == 0, waiting.stderr
    killed = _run_and_kill(home, tmp_path / "out", on_line="s3 started")
    rows = {r["id"]: r for r in json.loads(_cli("studies", "--json", home=home).stdout)}
    assert len(rows) == 2
    assert rows[killed]["status"] == "interrupted" and rows[killed]["next"] == ["analysts"]
    other = next(r for k, r in rows.items() if k != killed)
    assert other["status"] == "waiting for data"  # the basin characteristics the crew asks for at Flat Brook
    assert other["question"] == TEXT and other["site"] == "41.1000, -74.9600" and other["playbook"] == "flood_risk"
    listing = _cli("studies", home=home).stdout
    assert "interrupted" in listing and f"--resume ID --yes" in listing
    resumed = _cli("studio", "--resume", killed, "--yes", "-q", home=home)
    assert resumed.returncode == 0 and "continues from its last checkpoint" in resumed.stderr, resumed.stderr
    rows = {r["id"]: r for r in json.loads(_cli("studies", "--json", home=home).stdout)}
    assert rows[killed]["status"] == "done" and rows[killed]["last_step"] == "author report"
    assert not (home / "studies" / killed / "lease.json").exists()
