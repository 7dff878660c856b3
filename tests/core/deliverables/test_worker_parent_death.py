"""Deliverable workers leave within a second of their parent's SIGKILL, even while they are busy (importing
matplotlib and drawing the warm-up figure, when no job read would notice the closed pipe)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from tests.core.deliverables.processes import alive, kill_parent_and_wait, reap

PARENT = """
import sys, time
from aquascope_core.deliverables import workers
workers.warm()
print(" ".join(str(p) for p in workers.pids()), flush=True)
time.sleep(120)
"""


@pytest.mark.slow
def test_workers_exit_within_a_second_of_their_parents_sigkill():
    env = {**os.environ, "AQUASCOPE_DELIVERABLE_WORKERS": "2"}
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True, env=env)
    pids: list[int] = []
    try:
        pids = [int(p) for p in parent.stdout.readline().split()]
        assert len(pids) == 2 and all(alive(p) for p in pids)
        time.sleep(0.3)  # the workers are importing (busy): stdin's end would not be seen yet
        left, waited = kill_parent_and_wait(parent, pids)
        assert left == [], f"workers {left} still alive {waited:.2f} s after the parent's SIGKILL"
    finally:
        reap(parent, pids)
