"""The production deployment survives a kill: PostgreSQL and Redis started here, two stock langgraph-api servers
(``langhost serve``, the open Postgres + Redis runtime, in its own pinned venv) on one database with the project's
checkpointer named in their config; 20 studies submitted through the sdk over both; one server killed with -9
while the runs are under way; every study still finishes (its runs reclaimed by the other server's sweeper,
heartbeat shortened to 5 s) with the answer and results a one-process run gives."""

from __future__ import annotations

import os
import shutil
import time

import anyio
import pytest

pytest.importorskip("langgraph_sdk")

from tests.graphs.hosting import PROBLEM, approve_all, plan_studies, redis_server, servers, wait_done  # noqa: E402
from tests.graphs.pg_server import postgres_url  # noqa: E402,F401 - the fixture
from tests.answers import past_request  # noqa: E402

N = 20


def _one_process(tmp_path) -> dict:
    from graphs.studio import Studio

    with Studio(PROBLEM["site"]["lat"], PROBLEM["site"]["lon"], checkpointer=f"sqlite:///{tmp_path}/ref.sqlite") as s:
        past_request(s, s.say(PROBLEM["request"]["text"]))
        s.approve()
        return s.to_dict()


def _levels(values: dict) -> dict:
    fits = values["run"]["results"]["s3"]["payload"]["fits"]
    return {name: fit.get("return_levels") for name, fit in fits.items()}


@pytest.mark.slow
@pytest.mark.server
def test_two_servers_on_postgres_and_redis_survive_a_kill(tmp_path, postgres_url, monkeypatch):  # noqa: F811
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (.ci/run installs it)")
    monkeypatch.setenv("AQUASCOPE_HOME", str(tmp_path / "ref-home"))
    monkeypatch.setenv("AQUASCOPE_FORMATS", "md")
    reference = _one_process(tmp_path)
    with redis_server(tmp_path) as redis_url, servers(tmp_path, 2, postgres_url, redis_url,
                                                      extra_env={"AQUASCOPE_FORMATS": "md"}) as (a, b):
        async def drive() -> tuple[dict, float]:
            with anyio.fail_after(900):
                studies = await plan_studies([a.url, b.url], N)
                await approve_all(studies)
                await anyio.sleep(3)  # the runs under way on both servers
                a.kill()
                killed = time.monotonic()
                done = await wait_done(b.url, [t for _, t in studies], timeout=600)
                return done, time.monotonic() - killed

        done, recovery = anyio.run(drive)
    assert a.proc.returncode == -9
    assert "Swept stale runs" in b.log_path.read_text()  # the killed server's run was reclaimed, not just queued
    assert len(done) == N
    for tid, values in done.items():
        assert values["status"] == "done", tid
        assert values["answer"] == reference["report"]["answer"], tid
        assert _levels(values) == _levels(reference), tid
    print(f"\n{N} studies, one server killed: all finished {recovery:.0f} s after the kill")
