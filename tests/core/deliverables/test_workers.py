"""The worker processes that make figures and documents side by side (aquascope_core.deliverables.workers)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from aquascope_core.deliverables import workers
from aquascope_core.deliverables.figures import _render_job
from tests.core.deliverables.processes import alive as _alive

ROOT = Path(__file__).resolve().parents[3]
PAYLOAD = {"years": [2001, 2002, 2003, 2004, 2005, 2006], "values": [12.0, 30.5, 18.2, 44.0, 25.1, 19.9],
           "unit": "m3/s", "station": {"name": "Test Brook", "station_id": "T1"}}


@pytest.fixture
def two_workers(monkeypatch):
    monkeypatch.setenv(workers.ENV, "2")
    yield
    workers.shutdown()


def test_worker_count_reads_the_setting(monkeypatch):
    monkeypatch.setenv(workers.ENV, "0")
    assert workers.worker_count() == 0
    monkeypatch.setenv(workers.ENV, "3")
    assert workers.worker_count() == 3
    monkeypatch.setenv(workers.ENV, "many")
    assert workers.worker_count() == 0  # not a number: everything in this process, with a warning
    monkeypatch.delenv(workers.ENV)
    cores = len(os.sched_getaffinity(0))
    assert workers.worker_count() == (0 if cores < 2 else min(cores, workers.MAX_WORKERS))


def test_jobs_run_in_other_processes_and_come_back_in_order(two_workers):
    done = workers.run(workers.pid, [()] * 6)
    assert len(done) == 6 and os.getpid() not in done
    assert set(done) <= set(workers.pids()) and len(workers.pids()) == 2


def test_a_figure_drawn_by_a_worker_is_the_figure_drawn_here(two_workers, monkeypatch):
    jobs = [("annual_maxima", PAYLOAD, {"step": "s1"}), ("annual_maxima", {"years": []}, {"step": "s2"}),
            ("pie_chart", PAYLOAD, {})]
    there = workers.run(_render_job, jobs)
    monkeypatch.setenv(workers.ENV, "0")
    here = workers.run(_render_job, jobs)
    assert there[0][0] == "ok" and there[0][1][0][:8] == b"\x89PNG\r\n\x1a\n"
    # same PNG and SVG bytes, same caption note (the fourth element is the time it took); a payload lacking data
    # is a skip reason
    assert [(s, v[:3] if s == "ok" else v) for s, v in there] == [(s, v[:3] if s == "ok" else v) for s, v in here]
    assert there[1][0] == "skip" and "'values'" in there[1][1]
    assert there[2][0] == "skip" and "pie_chart" in there[2][1]


def test_a_worker_that_dies_is_replaced_and_its_job_done_here(two_workers):
    workers.warm()
    first = workers.pids()
    assert len(first) == 2
    os.kill(first[0], signal.SIGKILL)
    deadline = time.monotonic() + 10
    while _alive(first[0]) and time.monotonic() < deadline:
        time.sleep(0.05)
    done = workers.run(workers.pid, [()] * 4)
    assert len(done) == 4 and first[0] not in done
    assert first[0] not in workers.pids() and len(workers.pids()) == 2


def test_a_script_without_a_main_guard_runs_once(tmp_path):
    """multiprocessing's spawn would import the caller's script again in each worker; these workers do not."""
    script = tmp_path / "draw.py"
    script.write_text(textwrap.dedent(f"""
        import os
        os.environ["{workers.ENV}"] = "2"
        from aquascope_core.deliverables.figures import _render_job
        from aquascope_core.deliverables import workers
        done = workers.run(_render_job, [("annual_maxima", {PAYLOAD!r}, {{}})] * 3)
        print("ran", [d[0] for d in done], len(workers.pids()))
    """))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["ran ['ok', 'ok', 'ok'] 2"]


def test_workers_leave_when_their_process_is_killed(tmp_path):
    script = tmp_path / "hold.py"
    script.write_text(textwrap.dedent(f"""
        import os, sys, time
        os.environ["{workers.ENV}"] = "2"
        from aquascope_core.deliverables import workers
        workers.run(workers.pid, [()] * 2)
        print(" ".join(map(str, workers.pids())), flush=True)
        time.sleep(120)
    """))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        line = proc.stdout.readline()
        pids = [int(p) for p in line.split()]
        assert len(pids) == 2 and all(_alive(p) for p in pids)
    finally:
        proc.kill()
        proc.wait(timeout=10)
    deadline = time.monotonic() + 20
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in pids), "a worker outlived the killed process"


def test_figures_drawn_ahead_are_taken_and_a_changed_run_is_drawn_afresh(two_workers, monkeypatch):
    import json

    from aquascope_core.deliverables import figures
    from tests.playbooks.harness import plan_and_run

    o = plan_and_run("flood_risk", 41.10, -74.96, intake={"return_period": 100})
    study, run = o.study.to_dict(), o.run.to_dict()
    here: list[dict] = []
    monkeypatch.setenv(workers.ENV, "0")
    expected = figures.figures_for_study(study, run, inventory=o.recon, skipped=here)
    assert figures.prefetch(study, run, inventory=o.recon) is False  # without workers nothing is drawn ahead
    monkeypatch.setenv(workers.ENV, "2")
    assert figures.prefetch(study, run, inventory=o.recon) is True
    calls = []
    real = figures._draw_all

    def counting(*a, **k):  # what figures_for_study draws itself, in the calling thread
        if threading.current_thread() is threading.main_thread():
            calls.append(1)
        return real(*a, **k)

    skipped: list[dict] = []
    monkeypatch.setattr(figures, "_draw_all", counting)
    got = figures.figures_for_study(study, run, inventory=o.recon, skipped=skipped)
    strip = [{k: v for k, v in f.items()} for f in got]
    assert [(f["id"], f["caption"], f["png"], f["svg"]) for f in strip] == \
        [(f["id"], f["caption"], f["png"], f["svg"]) for f in expected]
    assert skipped == here and calls == []
    # a run that changed after the drawing ahead (a fix round) is not given the stale figures
    assert figures.prefetch(study, run, inventory=o.recon) is True
    changed = json.loads(json.dumps(run))
    changed["results"]["s3"].update(status="failed", failed_reason="gate spread_within failed")
    calls.clear()
    again = figures.figures_for_study(study, changed, inventory=o.recon)
    assert calls == [1] and "frequency_curve" not in [f["kind"] for f in again]
    figures.figures_for_study(study, run, inventory=o.recon)  # takes the one drawn ahead: nothing left running
    assert calls == [1]
