"""32 studies at once on one SQLite checkpoint file (2 processes of 16 threads, each study with its own
connection) all finish: WAL and the busy timeout make writers wait for the lock instead of failing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

WORKER = textwrap.dedent("""
    import json, sys, threading
    from graphs.studio import Studio
    from tests.answers import past_request

    results = []

    def one():
        try:
            with Studio(41.10, -74.96) as s:
                assert past_request(s, s.say("Design flow for a road crossing, 100-year")).kind == "plan"
                reply = s.approve({"steps": {"s3": {"arguments": {"n_bootstrap": 50}}}})
                results.append([s.id, reply.kind, s.status])
        except Exception as exc:  # reported to the test, which fails on it
            results.append([None, type(exc).__name__, str(exc)[:300]])

    threads = [threading.Thread(target=one) for _ in range(int(sys.argv[1]))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps(results))
""")


@pytest.mark.slow
def test_32_studies_at_once_on_one_sqlite_file_all_finish(tmp_path, monkeypatch):
    env = {**os.environ, "AQUASCOPE_HOME": str(tmp_path), "AQUASCOPE_FORMATS": "md"}
    env.pop("AQUASCOPE_MODEL", None)
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, "16"], cwd=str(ROOT), env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    rows = []
    for p in procs:
        out, err = p.communicate(timeout=400)
        assert p.returncode == 0, err[-2000:]
        rows += json.loads(out.strip().splitlines()[-1])
    failed = [r for r in rows if r[1] != "report"]
    assert not failed, failed
    assert len({r[0] for r in rows}) == 32 and all(r[2] == "done" for r in rows)

    from graphs.checkpoint import open_checkpointer
    from graphs.graph import compile_graph
    from graphs.studies import list_studies

    monkeypatch.setenv("AQUASCOPE_HOME", str(tmp_path))
    with open_checkpointer() as saver:
        listed = list_studies(saver, compile_graph(saver))
        mode = saver.conn.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    assert sorted(r["id"] for r in listed) == sorted(r[0] for r in rows)
    assert {r["status"] for r in listed} == {"done"}
