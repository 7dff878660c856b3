"""Memory, time and disk of the largest accepted upload: an hourly record of ``--rows`` data rows (default
1,000,000, MAX_ROWS) taken by `aquascope studio ... --data FILE --yes --out DIR` to its deliverables, in a child
process under an address-space cap (resource.setrlimit, default 2 GiB), as tests/graphs/test_memory_bounds.py
runs it.

Printed per run: wall time, the child's peak resident memory (ru_maxrss from wait4, which also covers the
processes it waited for; it starts at this process's resident size when the child is forked, about 190 MB
after writing the 1,000,000-row file, well below a study's peak) and the peak of the whole process tree's resident memory sampled every 0.2 s (the
deliverable workers included), the checkpoint file's bytes (checkpoints.sqlite with its WAL) and the bytes of
each of its tables, the upload store, workspace.json, bundle.zip and workbook.xlsx.

    .venv/bin/python benchmarks/bench_memory.py                       # this copy of the project
    .venv/bin/python benchmarks/bench_memory.py --against /tmp/before # another copy (e.g. `git archive REV`)
    .venv/bin/python benchmarks/bench_memory.py --rows 999990 --cap 0 # the issue's 999,990 rows, no cap

Run one at a time on a shared machine: it takes a core for minutes and up to a gigabyte.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BRIEF = "Design flow for a road crossing, 100-year, from my gauge record"


def hourly_csv(path: Path, rows: int) -> Path:
    """The upload of tests/graphs/test_memory_bounds.py: hourly datetimes from 1910 and lognormal discharges."""
    import numpy as np
    import pandas as pd

    idx = pd.date_range("1910-01-01", periods=rows, freq="h")
    q = np.round(np.exp(np.random.default_rng(3).normal(2.5, 0.6, rows)), 3)
    pd.DataFrame({"datetime": idx.strftime("%Y-%m-%d %H:%M"), "discharge (m3/s)": q}).to_csv(path, index=False)
    return path


def _tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and every descendant (0 once it is gone)."""
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    stack += [int(c) for c in f.read().split()]
        except (FileNotFoundError, ProcessLookupError, ValueError):
            continue
    return total


def table_bytes(db: Path) -> dict[str, int]:
    """Bytes held in each table of the SQLite file (the sum of every cell's length), after a WAL checkpoint."""
    conn = sqlite3.connect(str(db))
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        out = {}
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
            cols = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
            expr = " + ".join(f'COALESCE(LENGTH(CAST("{c}" AS BLOB)), 0)' for c in cols) or "0"
            out[table] = int(conn.execute(f'SELECT COALESCE(SUM({expr}), 0) FROM "{table}"').fetchone()[0])
        return out
    finally:
        conn.close()


def _size(path: Path) -> int | None:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size if path.exists() else None


def run_once(project: Path, data: Path, work: Path, cap_bytes: int, timeout: float) -> dict:
    home, out = work / "home", work / "out"
    env = {**os.environ, "AQUASCOPE_HOME": str(home), "PYTHONPATH": str(project), "OPENBLAS_NUM_THREADS": "1"}
    env.pop("AQUASCOPE_LIVE", None)

    def capped() -> None:
        if cap_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))

    cmd = [sys.executable, "-m", "graphs.cli", "studio", BRIEF, "--lat", "41.10", "--lon", "-74.96",
           "--data", str(data), "--yes", "-q", "--out", str(out)]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=str(project), env=env, preexec_fn=capped, stdout=subprocess.DEVNULL,
                            stderr=open(work / "stderr.txt", "w"))
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _tree_rss(proc.pid))
            done.wait(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.1)
    took = time.monotonic() - t0
    done.set()
    sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    db = home / "checkpoints.sqlite"
    files = sum(p.stat().st_size for p in home.glob("checkpoints.sqlite*"))  # before the WAL is folded in
    tables = table_bytes(db) if db.exists() else {}
    return {"project": str(project), "rows": None, "exit": proc.returncode, "wall_s": round(took, 1),
            "ru_maxrss_mb": round(usage.ru_maxrss / 1024, 1), "tree_peak_rss_mb": round(peak[0] / 2**20, 1),
            "checkpoint_files_mb": round(files / 1e6, 2),
            "checkpoint_file_after_wal_mb": round((_size(db) or 0) / 1e6, 2),
            "table_mb": {k: round(v / 1e6, 3) for k, v in sorted(tables.items())},
            "uploads_mb": round((_size(home / "uploads") or 0) / 1e6, 2),
            "workspace_json_mb": round((_size(out / "workspace.json") or 0) / 1e6, 2),
            "bundle_zip_mb": round((_size(out / "bundle.zip") or 0) / 1e6, 2),
            "workbook_xlsx_mb": round((_size(out / "workbook.xlsx") or 0) / 1e6, 2),
            "stderr_tail": (work / "stderr.txt").read_text()[-400:] if proc.returncode else ""}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--against", default=None, metavar="DIR", help="run this other copy of the project instead")
    ap.add_argument("--cap", type=float, default=2.0, help="address-space cap in GiB (0: none)")
    ap.add_argument("--timeout", type=float, default=1200.0)
    args = ap.parse_args(argv)
    project = Path(args.against).resolve() if args.against else ROOT
    with tempfile.TemporaryDirectory(prefix="bench_memory_") as tmp:
        work = Path(tmp)
        data = hourly_csv(work / "hourly.csv", args.rows)
        print(f"upload: {args.rows:,} data rows, {data.stat().st_size / 1e6:.1f} MB; load {os.getloadavg()[0]:.2f}",
              file=sys.stderr)
        row = run_once(project, data, work, int(args.cap * 2**30), args.timeout)
        row["rows"] = args.rows
        row["upload_mb"] = round(data.stat().st_size / 1e6, 2)
        row["cap_gib"] = args.cap
        row["load_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(row, indent=2))
    return 0 if row["exit"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
