"""The id `aquascope studio` prints is one the checkpoints already know: the CLI is killed (SIGKILL) the moment
the id appears, and `aquascope studies` lists it and Studio.resume opens it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_a_kill_right_after_the_id_is_printed_leaves_a_study_that_resume_knows(tmp_path, monkeypatch):
    env = {**os.environ, "AQUASCOPE_HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    env.pop("AQUASCOPE_LIVE", None)
    proc = subprocess.Popen([sys.executable, "-m", "graphs.cli", "studio", "Design flow for a road crossing, 100-year",
                             "--lat", "41.10", "--lon", "-74.96", "--yes"], cwd=str(ROOT), env=env,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    study_id = None
    try:
        for line in proc.stderr:
            if line.startswith("Study st-"):
                study_id = line.split()[1]
                proc.send_signal(signal.SIGKILL)  # at once: nothing after the print runs
                break
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)
    assert study_id, "the CLI printed no study id"
    listed = subprocess.run([sys.executable, "-m", "graphs.cli", "studies", "--json"], cwd=str(ROOT), env=env,
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert study_id in [r["id"] for r in json.loads(listed.stdout)]
    monkeypatch.setenv("AQUASCOPE_HOME", str(tmp_path))
    from graphs.studio import Studio

    with Studio.resume(study_id) as s:  # no DataNotFoundError: the id is in the checkpoints
        assert s.id == study_id
