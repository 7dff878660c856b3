"""A real `aquascope studio` process killed (SIGKILL) at every node boundary and in the middle of the analysts;
each is resumed in a new process with `--resume ID --yes` and must give the uninterrupted run's report."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEXT = "Design flow for a road crossing, 100-year"
START = ["studio", TEXT, "--lat", "41.10", "--lon", "-74.96", "--yes"]


def _env(home: Path) -> dict[str, str]:
    env = {**os.environ, "AQUASCOPE_HOME": str(home), "AQUASCOPE_FORMATS": "md"}  # report.md is what is compared
    env.pop("AQUASCOPE_LIVE", None)
    env.pop("AQUASCOPE_MODEL", None)
    return env


def _normalised(report: str) -> str:
    return re.sub(r"st-[0-9a-f]{12}", "ST-ID", report)


def _checkpoints(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as conn:
            return conn.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0]
    except sqlite3.Error:  # the table is not there yet
        return 0


def _run_and_kill(home: Path, out: Path, *, after_checkpoints: int | None = None, on_line: str | None = None):
    """Start a study and SIGKILL it when the checkpoint table holds ``after_checkpoints`` rows, or when the
    progress output shows ``on_line``. Returns the study id."""
    proc = subprocess.Popen([sys.executable, "-m", "graphs.cli", *START, "--out", str(out)], cwd=str(ROOT),
                            env=_env(home), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    seen = threading.Event()

    def read() -> None:
        for line in proc.stderr:
            lines.append(line)
            if on_line and on_line in line:
                seen.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    db = home / "checkpoints.sqlite"
    deadline = time.monotonic() + 120
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            if (on_line and seen.is_set()) or (after_checkpoints and _checkpoints(db) >= after_checkpoints):
                break
            time.sleep(0.003)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
        reader.join(timeout=10)
        proc.stderr.close()
    found = re.search(r"Study (st-[0-9a-f]{12})", "".join(lines))
    if found:
        return found.group(1)
    # killed between the first checkpoint and the line that prints the id (which comes with the first event): the
    # study is the one thread of this home's checkpoint file
    import sqlite3

    with sqlite3.connect(db) as con:
        threads = [r[0] for r in con.execute("SELECT DISTINCT thread_id FROM checkpoints")]
    assert len(threads) == 1, ("".join(lines), threads)
    return threads[0]


def _where(home: Path, study_id: str) -> str:
    """The node(s) the last checkpoint says are still to run ('' when the study had finished)."""
    code = ("from graphs.checkpoint import open_checkpointer\nfrom graphs.graph import compile_graph\n"
            "with open_checkpointer() as s:\n"
            f"    snap = compile_graph(s).get_state({{'configurable': {{'thread_id': {study_id!r}}}}})\n"
            "    print(','.join(snap.next) + ('+interrupt' if snap.interrupts else ''))")
    res = subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), env=_env(home), capture_output=True, text=True,
                         timeout=60)
    assert res.returncode == 0, res.stderr
    return res.stdout.strip()


@pytest.mark.slow
def test_a_study_killed_anywhere_resumes_to_the_same_report(tmp_path):
    base_home, base_out = tmp_path / "base", tmp_path / "base-out"
    base = subprocess.run([sys.executable, "-m", "graphs.cli", *START, "--out", str(base_out)], cwd=str(ROOT),
                          env=_env(base_home), capture_output=True, text=True, timeout=300)
    assert base.returncode == 0, base.stderr
    expected = _normalised((base_out / "report.md").read_text())
    total = _checkpoints(base_home / "checkpoints.sqlite")
    assert total >= 9  # one per node, the input and the approval

    # every checkpoint boundary short of the finished study, and two points inside the analysts' run
    points = [{"after_checkpoints": k} for k in range(1, total)] + [{"on_line": "s2 started"}, {"on_line": "s3 started"}]
    killed_at = []
    for i, point in enumerate(points):
        home, out = tmp_path / f"k{i}", tmp_path / f"k{i}-out"
        study_id = _run_and_kill(home, out, **point)
        where = _where(home, study_id)
        killed_at.append(where)
        resumed = subprocess.run([sys.executable, "-m", "graphs.cli", "studio", "--resume", study_id, "--yes"],
                                 cwd=str(ROOT), env=_env(home), capture_output=True, text=True, timeout=300)
        assert resumed.returncode == 0, (point, where, resumed.stderr)
        assert "Traceback" not in resumed.stderr
        report = out / "report.md"
        assert report.is_file(), (point, where, resumed.stdout, resumed.stderr)
        assert _normalised(report.read_text()) == expected, (point, where)
    # the kills landed before (or inside) most of the nodes, the analysts included
    stopped = {w.split("+")[0] for w in killed_at if w}
    assert "analysts" in stopped, killed_at
    assert len(stopped) >= 6, killed_at
