"""Each example runs, as a user would run it (the sdk client runs in tests/graphs/test_langgraph_server.py
against the server that test starts)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.model_stub import StubModelServer, reply_by_role

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
    assert "waits for approve_plan" in out and "The 200-year peak flow" in out
    assert "record excluded" in out and "confidence level" in out
    assert "## Sensitivity" in (tmp_path / "out" / "report.md").read_text()


@pytest.mark.slow
@pytest.mark.server
def test_mcp_client(tmp_path):
    out = run_example("mcp_client.py", str(tmp_path / "files"), cwd=tmp_path).stdout
    assert "plan for study st-" in out and "The 100-year peak flow at Flat Brook" in out
    assert "'error'" in out and "'recovery'" in out and "lat=95" in out
    assert (tmp_path / "files" / "report.md").is_file()


@pytest.mark.slow
@pytest.mark.server
def test_bring_your_own_model_against_a_loopback_endpoint(tmp_path):
    """The example with a model string and an OpenAI-compatible endpoint on loopback: the roles' replies come
    from the endpoint, and the sentence with a number no result holds is dropped from the report."""
    replies = reply_by_role({
        "the consultant of": {"intake": {"return_period": 100, "decision": "design flow"}, "questions": []},
        "the author of": {"sections": {"summary": "The gauge next to the crossing has a long daily record, so the "
                                                  "design flood is estimated from it directly. A flood of 4321 m3/s "
                                                  "is certain."}},
    })
    with StubModelServer(default=replies) as stub:
        out = run_example("bring_your_own_model.py", "--model", "openai/stub-model", "--base-url", stub.base_url,
                          "--api-key", "local", "--out", str(tmp_path / "out"), cwd=tmp_path).stdout
        prompts = stub.system_prompts()
    assert any("the consultant of" in p for p in prompts) and any("the author of" in p for p in prompts)
    assert "written by:" in out and "'summary': 'model'" in out
    assert "dropped (a number in no result): A flood of 4321 m3/s is certain." in out
    md = (tmp_path / "out" / "report.md").read_text()
    assert "long daily record" in md and "4321" not in md
    assert "ledger author:" in out and "ledger consultant: 1 calls" in out
