"""Deliverable workers leave within a second of their parent's SIGKILL, even while they are busy (importing
matplotlib and drawing the warm-up figure, when no job read would notice the closed pipe)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

PARENT = """
import sys, time
from aquascope_core.deliverables import workers
workers.warm()
print(" ".join(str(p) for p in workers.pids()), flush=True)
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[-1][0] not in "ZX"  # an exited worker waiting to be reaped is gone
    except FileNotFoundError:
        return False


@pytest.mark.slow
def test_workers_exit_within_a_second_of_their_parents_sigkill():
    env = {**os.environ, "AQUASCOPE_DELIVERABLE_WORKERS": "2"}
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True, env=env)
    try:
        pids = [int(p) for p in parent.stdout.readline().split()]
        assert len(pids) == 2 and all(_alive(p) for p in pids)
        time.sleep(0.3)  # the workers are importing (busy): stdin's end would not be seen yet
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=5)
        killed = time.monotonic()
        while any(_alive(p) for p in pids) and time.monotonic() - killed < 1.0:
            time.sleep(0.05)
        left = [p for p in pids if _alive(p)]
        assert left == [], f"workers {left} still alive {time.monotonic() - killed:.2f} s after the parent's SIGKILL"
    finally:
        if parent.poll() is None:
            parent.kill()
        for p in pids if "pids" in locals() else []:
            if _alive(p):
                os.kill(p, signal.SIGKILL)
