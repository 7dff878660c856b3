"""Process checks shared by the deliverable workers' tests."""

from __future__ import annotations

import os
import signal
import subprocess
import time


def alive(pid: int) -> bool:
    """Whether ``pid`` runs; an exited process waiting to be reaped (a zombie) counts as gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[-1][0] not in "ZX"
    except FileNotFoundError:
        return False


def kill_parent_and_wait(parent: subprocess.Popen, pids: list[int], *, within: float = 1.0) -> tuple[list[int], float]:
    """SIGKILL ``parent`` and wait up to ``within`` seconds for ``pids`` to go: (those still alive, seconds waited)."""
    parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=5)
    killed = time.monotonic()
    while any(alive(p) for p in pids) and time.monotonic() - killed < within:
        time.sleep(0.05)
    return [p for p in pids if alive(p)], time.monotonic() - killed


def reap(parent: subprocess.Popen, pids: list[int]) -> None:
    """Clean-up after a test: the parent and every pid still alive killed."""
    if parent.poll() is None:
        parent.kill()
    for p in pids:
        if alive(p):
            os.kill(p, signal.SIGKILL)
