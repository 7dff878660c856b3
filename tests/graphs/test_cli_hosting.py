"""The hosting commands: `aquascope studio --sensitivity` and `aquascope mcp --help`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "AQUASCOPE_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "graphs.cli", *args], capture_output=True, text=True, env=env,
                          timeout=240)


@pytest.mark.slow
def test_studio_sensitivity_runs_the_study_and_its_forks(tmp_path):
    done = cli("studio", "Design flow for a road crossing, 100-year", "--lat", "41.10", "--lon", "-74.96",
               "--sensitivity", "-q", "--out", str(tmp_path / "out"), home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "record excluded" in done.stdout and re.search(r"\d+ forks: st-", done.stderr)
    assert "## Sensitivity" in (tmp_path / "out" / "report.md").read_text()
    bad = cli("studio", "--sensitivity", home=tmp_path)
    assert bad.returncode == 2 and "--sensitivity needs a finished study" in bad.stderr


def test_mcp_subcommand_is_listed(tmp_path):
    out = cli("mcp", "--help", home=tmp_path)
    assert out.returncode == 0 and "--checkpoints" in out.stdout
