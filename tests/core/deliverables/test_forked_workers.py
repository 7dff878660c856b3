"""A worker forked at the start of a one-shot command (aquascope_core.deliverables.workers.fork): it takes every
job of its parent, draws what a worker started on demand draws, and leaves with its parent, killed or not."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.core.deliverables.processes import alive, kill_parent_and_wait, reap

ROOT = Path(__file__).resolve().parents[3]
PAYLOAD = {"years": [2001, 2002, 2003, 2004, 2005, 2006], "values": [12.0, 30.5, 18.2, 44.0, 25.1, 19.9],
           "unit": "m3/s", "station": {"name": "Test Brook", "station_id": "T1"}}


def _script(body: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(body)]


ENV = {**os.environ, "PYTHONPATH": str(ROOT), "AQUASCOPE_DELIVERABLE_WORKERS": "0"}


def test_the_forked_worker_takes_every_job_and_draws_what_this_process_draws():
    out = subprocess.run(_script(f"""
        import os, sys
        from aquascope_core.deliverables import workers
        from aquascope_core.deliverables.figures import _render_job
        child = workers.fork(1)
        assert workers.forked() == 1 and workers.serving() == 1 and workers.pids() == child
        one = workers.run(workers.pid, [()])  # a single job too: this process has not imported what it needs
        many = workers.run(workers.pid, [()] * 3)
        jobs = [("annual_maxima", {PAYLOAD!r}, {{"step": "s1"}}), ("annual_maxima", {{"years": []}}, {{}})]
        there = workers.run(_render_job, jobs)
        print("main has matplotlib:", "matplotlib" in sys.modules)
        workers.shutdown()
        here = workers.run(_render_job, jobs)  # no worker any more: drawn here
        same = [(s, v[:3] if s == "ok" else v) for s, v in there] == [(s, v[:3] if s == "ok" else v) for s, v in here]
        print(one == child, set(many) == set(child), os.getpid() not in many, there[0][0], there[1][0], same)
        print("gone:", workers.pids() == [] and workers.serving() == 0)
    """), capture_output=True, text=True, timeout=120, env=ENV)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["main has matplotlib: False", "True True True ok skip True", "gone: True"]


def test_no_fork_once_the_process_has_a_second_thread():
    out = subprocess.run(_script("""
        import threading, time
        from aquascope_core.deliverables import workers
        threading.Thread(target=time.sleep, args=(2,), daemon=True).start()
        print(workers.fork(1), workers.forked(), workers.run(workers.pid, [()]) == [workers.pid()])
    """), capture_output=True, text=True, timeout=60, env=ENV)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[]", "0", "True"]


def test_a_forked_worker_that_dies_leaves_its_jobs_to_this_process():
    out = subprocess.run(_script("""
        import os, signal, time
        from aquascope_core.deliverables import workers
        [child] = workers.fork(1)
        os.kill(child, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while workers.forked() and time.monotonic() < deadline:
            time.sleep(0.02)
        print(workers.run(workers.pid, [()] * 3) == [os.getpid()] * 3, workers.pids())
    """), capture_output=True, text=True, timeout=60, env=ENV)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "[]"]


@pytest.mark.slow
def test_a_forked_worker_exits_within_a_second_of_its_parents_sigkill():
    parent = subprocess.Popen(_script("""
        import time
        from aquascope_core.deliverables import workers
        print(" ".join(map(str, workers.fork(1))), flush=True)
        time.sleep(120)
    """), stdout=subprocess.PIPE, text=True, env=ENV)
    pids: list[int] = []
    try:
        pids = [int(p) for p in parent.stdout.readline().split()]
        assert len(pids) == 1 and alive(pids[0])
        time.sleep(0.3)  # the worker is importing matplotlib (busy): its job pipe's end would not be seen yet
        left, waited = kill_parent_and_wait(parent, pids)
        assert left == [], f"worker {left} still alive {waited:.2f} s after the parent's SIGKILL"
    finally:
        reap(parent, pids)
