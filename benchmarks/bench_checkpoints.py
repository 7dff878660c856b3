"""What a flood study leaves in the SQLite checkpointer, and which state keys make it up.

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/bench_checkpoints.py``. One keyless CLI study ("Design flow for a
road crossing, 100-year" at 41.10, -74.96, every deliverable) in a fresh ``AQUASCOPE_HOME``; then the database
file's size, the bytes of its ``checkpoints`` and ``writes`` rows, and the serialized bytes per state key: in the
pending writes (one row per key a step wrote) and in the checkpoints (every key's value again at every step).
A measurement for the owner of the state layer; nothing is changed or asserted.
"""

from __future__ import annotations

import collections
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path


def main() -> None:
    home = Path(tempfile.mkdtemp(prefix="aquascope-ckpt-"))
    env = {**os.environ, "AQUASCOPE_HOME": str(home), "AQUASCOPE_DELIVERABLE_WORKERS": "0"}
    subprocess.run([sys.executable, "-m", "graphs.cli", "studio", "Design flow for a road crossing, 100-year",
                    "--lat", "41.10", "--lon", "-74.96", "--yes", "-q", "--out", str(home / "out")],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    dbs = sorted(home.rglob("*.sqlite*"))
    for db in dbs:
        print(f"{db.relative_to(home)}: {db.stat().st_size / 1024:.0f} KB on disk")
    db = next(d for d in dbs if d.suffix == ".sqlite")
    con = sqlite3.connect(db)
    n_ck, ck_bytes = con.execute("select count(*), sum(length(checkpoint)) + sum(length(metadata)) "
                                 "from checkpoints").fetchone()
    n_w, w_bytes = con.execute("select count(*), sum(length(value)) from writes").fetchone()
    print(f"checkpoints: {n_ck} rows, {ck_bytes / 1024:.0f} KB; writes: {n_w} rows, {(w_bytes or 0) / 1024:.0f} KB")

    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    serde = JsonPlusSerializer()
    per_write: collections.Counter[str] = collections.Counter()
    for channel, typ, value in con.execute("select channel, type, value from writes"):
        per_write[channel] += len(value or b"")
    per_ck: collections.Counter[str] = collections.Counter()
    for typ, blob in con.execute("select type, checkpoint from checkpoints"):
        ck = serde.loads_typed((typ, blob))
        for key, val in (ck.get("channel_values") or {}).items():
            per_ck[key] += len(serde.dumps_typed(val)[1])
    print("\n| state key | bytes in writes | bytes in checkpoints (all steps) |\n| --- | --- | --- |")
    for key in sorted(set(per_write) | set(per_ck), key=lambda k: -(per_write[k] + per_ck[k]))[:20]:
        print(f"| {key} | {per_write[key] / 1024:.1f} KB | {per_ck[key] / 1024:.1f} KB |")


if __name__ == "__main__":
    main()
