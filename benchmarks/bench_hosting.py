"""Studies per minute on the production stack (the stock langgraph-api on the open Postgres + Redis runtime,
``langhost serve``), with one and with two servers on one database, and the recovery after one of two servers is
killed with -9 mid-run.

Run: ``.venv/bin/python benchmarks/bench_hosting.py [--studies 20] [--heartbeat 5]``. It starts PostgreSQL and Redis
on loopback ports and the servers from the langhost venv (tests/graphs/hosting.py; created with pip the first time,
AQUASCOPE_LANGHOST_VENV to reuse one), submits the studies through the Python sdk (each to its plan, then approved
in a background run), and times from the first submission to the last report. Reports as Markdown only
(AQUASCOPE_FORMATS=md) so the crew, not the document writers, is what is timed. Nothing is asserted; the figures
go into benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.graphs.hosting import approve_all, plan_studies, postgres, redis_server, servers, wait_done  # noqa: E402


async def _batch(urls, n: int, kill=None, read_url: str | None = None) -> dict:
    t0 = time.monotonic()
    studies = await plan_studies(urls, n)
    await approve_all(studies)
    killed = None
    if kill is not None:
        await anyio.sleep(3)
        kill.kill()
        killed = time.monotonic()
    await wait_done(read_url or urls[0], [t for _, t in studies], timeout=1800)
    end = time.monotonic()
    return {"seconds": end - t0, "per_minute": n / (end - t0) * 60, "after_kill": end - killed if killed else None}



def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--studies", type=int, default=20)
    ap.add_argument("--heartbeat", type=float, default=5.0)
    args = ap.parse_args()
    env = {"AQUASCOPE_FORMATS": "md"}
    rows = {}
    with tempfile.TemporaryDirectory(prefix="aq-bench-hosting-") as tmp:
        tmp = Path(tmp)
        with postgres(("one", "two", "kill")) as dbs, redis_server(tmp) as redis_url:
            for name, n in (("one", 1), ("two", 2)):
                folder = tmp / name
                folder.mkdir()
                with servers(folder, n, dbs[name], redis_url.replace("/0", f"/{n}"), heartbeat=args.heartbeat,
                             extra_env=env) as srv:
                    rows[name] = anyio.run(_batch, [s.url for s in srv], args.studies)
                print(f"{n} server(s): {args.studies} studies in {rows[name]['seconds']:.0f} s, "
                      f"{rows[name]['per_minute']:.1f} studies/min", flush=True)
            folder = tmp / "kill"
            folder.mkdir()
            with servers(folder, 2, dbs["kill"], redis_url.replace("/0", "/3"), heartbeat=args.heartbeat,
                         extra_env=env) as (a, b):
                row = anyio.run(_batch, [a.url, b.url], args.studies, a, b.url)
                swept = "Swept stale runs" in b.log_path.read_text()
            print(f"2 servers, one killed -9 after 3 s: all {args.studies} finished in {row['seconds']:.0f} s, "
                  f"{row['after_kill']:.0f} s after the kill (heartbeat {args.heartbeat:g} s, sweep every "
                  f"{2 * args.heartbeat:g} s; killed server's run swept: {swept})", flush=True)


if __name__ == "__main__":
    main()
