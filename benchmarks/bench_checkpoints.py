"""What a flood study leaves in the checkpointer (SQLite, or Postgres with ``--postgres``), by state key.

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/bench_checkpoints.py [--postgres]``. One keyless CLI study ("Design
flow for a road crossing, 100-year" at 41.10, -74.96, every deliverable) in a fresh ``AQUASCOPE_HOME``; then the
storage it took: for SQLite the database file on disk and the bytes of its ``checkpoints``, ``writes`` and
``payloads`` rows (the large values kept once by digest, graphs.checkpoint_payloads); for Postgres (a throwaway
server started here as in tests/graphs/pg_server.py, on a free loopback port) the tables' total size on disk
(``pg_total_relation_size``: rows, TOAST, indexes) and the bytes of their rows. Then the serialized bytes per state
key as stored in the writes and the checkpoints (a reference is about 70 bytes). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

TEXT = "Design flow for a road crossing, 100-year"


def run_study(home: Path, checkpoints: str | None) -> None:
    env = {**os.environ, "AQUASCOPE_HOME": str(home), "AQUASCOPE_DELIVERABLE_WORKERS": "0"}
    args = [sys.executable, "-m", "graphs.cli", "studio", TEXT, "--lat", "41.10", "--lon", "-74.96", "--yes", "-q",
            "--out", str(home / "out")] + (["--checkpoints", checkpoints] if checkpoints else [])
    subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL)


def per_key_table(writes, checkpoints) -> None:
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    serde = JsonPlusSerializer()
    per_write: collections.Counter[str] = collections.Counter()
    for channel, value in writes:
        per_write[channel] += len(value or b"")
    per_ck: collections.Counter[str] = collections.Counter()
    for values in checkpoints(serde):
        for key, val in values.items():
            per_ck[key] += len(serde.dumps_typed(val)[1])
    print("\n| state key | bytes in writes | bytes in checkpoints (all steps) |\n| --- | --- | --- |")
    for key in sorted(set(per_write) | set(per_ck), key=lambda k: -(per_write[k] + per_ck[k]))[:12]:
        print(f"| {key} | {per_write[key] / 1024:.1f} KB | {per_ck[key] / 1024:.1f} KB |")


def sqlite_size(home: Path) -> int:
    return sum(db.stat().st_size for db in home.rglob("*.sqlite*"))


def sqlite_report(home: Path) -> None:
    dbs = sorted(home.rglob("*.sqlite*"))
    for db in dbs:
        print(f"{db.relative_to(home)}: {db.stat().st_size / 1024:.0f} KB on disk")
    db = next(d for d in dbs if d.suffix == ".sqlite")
    con = sqlite3.connect(db)
    tables = {r[0] for r in con.execute("select name from sqlite_master where type = 'table'")}
    n_ck, ck_bytes = con.execute("select count(*), sum(length(checkpoint)) + sum(length(metadata)) "
                                 "from checkpoints").fetchone()
    n_w, w_bytes = con.execute("select count(*), sum(length(value)) from writes").fetchone()
    n_p, p_bytes = con.execute("select count(*), sum(length(value)) from payloads").fetchone() \
        if "payloads" in tables else (0, 0)
    print(f"checkpoints: {n_ck} rows, {ck_bytes / 1024:.0f} KB; writes: {n_w} rows, {(w_bytes or 0) / 1024:.0f} KB; "
          f"payloads: {n_p} rows, {(p_bytes or 0) / 1024:.0f} KB (compressed)")

    def checkpoints(serde):
        for typ, blob in con.execute("select type, checkpoint from checkpoints"):
            yield serde.loads_typed((typ, blob)).get("channel_values") or {}

    per_key_table(con.execute("select channel, value from writes").fetchall(), checkpoints)


@contextlib.contextmanager
def throwaway_postgres():
    """A PostgreSQL server on a free loopback port for the run (the hosting benchmark's, tests/graphs/hosting.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.graphs.hosting import postgres

    with postgres(("aquascope",)) as dbs:
        yield dbs["aquascope"]


def postgres_size(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute("select coalesce(sum(pg_total_relation_size(c.oid)), 0) from pg_class c join pg_namespace n "
                            "on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind = 'r'").fetchone()[0]


def postgres_report(url: str) -> None:
    import psycopg

    cols = {"checkpoints": "checkpoint::text", "checkpoint_blobs": "blob", "checkpoint_writes": "blob",
            "aquascope_payloads": "value"}
    total_disk = total_rows = 0
    with psycopg.connect(url) as conn:
        present = {r[0] for r in conn.execute("select tablename from pg_tables where schemaname = 'public'")}
        print("| table | rows | bytes of the values | on disk (rows, TOAST, indexes) |\n| --- | --- | --- | --- |")
        for table, col in cols.items():
            if table not in present:
                continue
            n, size = conn.execute(f"select count(*), coalesce(sum(octet_length({col})), 0) from {table}").fetchone()
            disk = conn.execute("select pg_total_relation_size(%s)", (table,)).fetchone()[0]
            total_disk, total_rows = total_disk + disk, total_rows + size
            print(f"| {table} | {n} | {size / 1024:.0f} KB | {disk / 1024:.0f} KB |")
        print(f"| all | | {total_rows / 1024:.0f} KB | {total_disk / 1024:.0f} KB |")
        writes = conn.execute("select channel, blob from checkpoint_writes").fetchall()
        blobs = conn.execute("select channel, type, blob from checkpoint_blobs").fetchall()

    def checkpoints(serde):  # Postgres keeps each channel's value once per version, in checkpoint_blobs
        for channel, typ, blob in blobs:
            if typ != "empty":
                yield {channel: serde.loads_typed((typ, blob))}

    per_key_table(writes, checkpoints)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL server instead of SQLite")
    ap.add_argument("--studies", type=int, default=2,
                    help="studies run one after another in the same database (default 2): the second's growth is "
                         "the cost of a study without the empty tables' fixed pages")
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="aquascope-ckpt-"))
    with (throwaway_postgres() if args.postgres else contextlib.nullcontext(None)) as url:
        size = (lambda: postgres_size(url)) if url else (lambda: sqlite_size(home))
        sizes = []
        for i in range(args.studies):
            run_study(home, url)
            sizes.append(size())
            grew = sizes[-1] - (sizes[-2] if i else 0)
            print(f"after study {i + 1}: {sizes[-1] / 1024:.0f} KB on disk (+{grew / 1024:.0f} KB)")
        postgres_report(url) if url else sqlite_report(home)


if __name__ == "__main__":
    main()
