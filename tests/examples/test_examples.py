"""Each example runs, as a user would run it (the sdk client runs in tests/graphs/test_langgraph_server.py
against the server that test starts)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.examples.stub_model import stub_model_server

ROOT = Path(__file__).resolve().parents[2]


def run_example(name: str, *args: str, cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(ROOT / "examples" / name), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


@pytest.mark.slow
def test_flood_study_and_replay(tmp_path):
    out = run_example("flood_study.py", str(tmp_path / "study"), cwd=tmp_path).stdout
    assert "138 m3/s" in out and (tmp_path / "study" / "report.md").is_file()
    replay = run_example("replay_study.py", str(tmp_path / "study" / "study.yaml"), cwd=tmp_path).stdout
    assert "flood_frequency" in replay and "FAILED" not in replay


@pytest.mark.slow
def test_fork_and_sensitivity(tmp_path):
    out = run_example("fork_and_sensitivity.py", str(tmp_path / "out"), cwd=tmp_path).stdout
    assert "waits for approve_plan" in out and "The 200-year flood" in out
    assert "record excluded" in out and "confidence level" in out
    assert "## Sensitivity" in (tmp_path / "out" / "report.md").read_text()


@pytest.mark.slow
@pytest.mark.server
def test_mcp_client(tmp_path):
    out = run_example("mcp_client.py", str(tmp_path / "files"), cwd=tmp_path).stdout
    assert "plan for study st-" in out and "The 100-year flood" in out
    assert "'error'" in out and "'recovery'" in out and "lat=95" in out
    assert (tmp_path / "files" / "report.md").is_file()


@pytest.mark.slow
@pytest.mark.server
def test_bring_your_own_model_against_a_loopback_endpoint(tmp_path):
    with stub_model_server() as (base_url, seen):
        out = run_example("bring_your_own_model.py", "--model", "openai/stub-model", "--base-url", base_url,
                          "--api-key", "local", "--out", str(tmp_path / "out"), cwd=tmp_path).stdout
    roles = {s["role"] for s in seen}
    assert {"consultant", "author"} <= roles and all(s["path"].endswith("/chat/completions") for s in seen)
    assert "written by:" in out and "'summary': 'model'" in out
    assert "dropped (a number in no result): A flood of 4321 m3/s is certain." in out
    md = (tmp_path / "out" / "report.md").read_text()
    assert "long daily record" in md and "4321" not in md
    assert "ledger author: 1 calls" in out
