"""`aquascope gym` as a user runs it, in its own process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def aquascope(*args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "AQUASCOPE_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "graphs.cli", *args], capture_output=True, text=True, env=env,
                          cwd=str(cwd), timeout=300)


@pytest.mark.slow
def test_bench_writes_results_and_the_leaderboard_then_compare_lists_changes(tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    lines = (ROOT / "aquascope_core" / "gym" / "tasks.jsonl").read_text().splitlines()
    picked = [ln for ln in lines if json.loads(ln)["id"] in ("flood_risk.t100.flat_brook", "flood_risk.t100.atlantic",
                                                             "groundwater_decline.trend.hesse_well")]
    tasks.write_text("\n".join(picked) + "\n")  # the upload path is relative: found in the gym's folder
    out = tmp_path / "runs" / "tree.jsonl"
    r = aquascope("gym", "bench", "--tasks", str(tasks), "--agent", "tree", "--out", str(out), home=tmp_path, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "| tree | keyless | 3 | 100 % (3/3) |" in r.stdout
    assert "tree [########################] 3/3" in r.stderr  # the progress bar
    rows = [json.loads(ln) for ln in out.read_text().splitlines()]
    assert [x["correct"] for x in rows] == [True, True, True]
    assert out.with_suffix(".md").read_text().startswith("## Gym leaderboard")

    changed = [dict(x) for x in rows]
    changed[0].update(correct=False, branch="regional")
    other = tmp_path / "runs" / "other.jsonl"
    other.write_text("".join(json.dumps(x) + "\n" for x in changed))
    c = aquascope("gym", "compare", str(out), str(other), home=tmp_path, cwd=tmp_path)
    assert c.returncode == 0, c.stderr
    assert "flood_risk.t100.flat_brook" in c.stdout and "branch=at_site" in c.stdout and "branch=regional" in c.stdout
    assert "flood_risk.t100.atlantic" not in c.stdout and "1 task(s) changed" in c.stderr

    b = aquascope("gym", "board", str(out), str(other), home=tmp_path, cwd=tmp_path)
    assert b.returncode == 0 and "| tree | keyless | 6 | 83 % (5/6) |" in b.stdout


def test_the_ask_agent_without_a_model_and_a_missing_task_file_are_refused(tmp_path):
    r = aquascope("gym", "bench", "--agent", "ask", "--limit", "1", home=tmp_path, cwd=tmp_path)
    assert r.returncode == 2 and "cannot run without a model" in r.stderr and "--model" in r.stderr
    r = aquascope("gym", "bench", "--agent", "tree", "--tasks", str(tmp_path / "none.jsonl"), home=tmp_path, cwd=tmp_path)
    assert r.returncode == 2 and "no task file" in r.stderr
