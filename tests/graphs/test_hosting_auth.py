"""The open Postgres + Redis runtime (``langhost serve``, langgraph-runtime-pg) with the project's production config
(langgraph-hosted.json, which names the auth handler): the runtime stores each run's config as JSON, signed-in
user included, so the handler's user must be JSON (graphs.auth.TokenUser). Two users on one server: each runs a
study to its report; neither can see or touch the other's, a request without a token is a 401, no run fails on the
user object, and LangGraph's own fork (the plan checkpoint resumed by id with a new answer) takes the new answer
there too. Keys planted in a run's configurable, metadata, input and resume value are in no table of the database
afterwards."""

from __future__ import annotations

import shutil

import anyio
import httpx
import pytest

pytest.importorskip("langgraph_sdk")

from langgraph_sdk import get_client  # noqa: E402

from tests.answers import sdk_past_request  # noqa: E402
from tests.graphs.hosting import PROBLEM, redis_server, servers  # noqa: E402
from tests.graphs.lg_server import http_status as _status  # noqa: E402
from tests.graphs.pg_server import postgres_url  # noqa: E402,F401 - the fixture

ALICE, BOB = "alice-token-0123456789abcdef", "bob-token-fedcba9876543210"
KEYS = {f: f"sk-proj-PLANTED{f.upper()}abcdefghijklmnop0123" for f in ("cfg", "meta", "req", "resume")}


async def _drive(url: str) -> dict:
    alice = get_client(url=url, headers={"Authorization": f"Bearer {ALICE}"})
    bob = get_client(url=url, headers={"Authorization": f"Bearer {BOB}"})
    seen: dict = {}
    async with httpx.AsyncClient(base_url=url, timeout=30) as raw:
        seen["anonymous"] = (await raw.post("/threads/search", json={})).status_code
    tid = (await alice.threads.create())["thread_id"]
    planted = {**PROBLEM, "request": {**PROBLEM["request"], "api_key": KEYS["req"]}}
    run = await alice.runs.wait(tid, "aquascope", input=planted, config={"configurable": {"api_key": KEYS["cfg"]}},
                                metadata={"api_key": KEYS["meta"]})
    await sdk_past_request(alice, tid)  # the basin characteristics the crew asks for: gone on without them
    plan_state = await alice.threads.get_state(tid)
    seen["alice plan"] = bool(plan_state["interrupts"])
    seen["bob search"] = [t["thread_id"] for t in await bob.threads.search(limit=100)]
    seen["bob get"] = await _status(bob.threads.get(tid))
    seen["bob history"] = await _status(bob.threads.get_history(tid))
    try:  # this runtime answers the state of a thread the caller cannot read as an empty state
        seen["bob state"] = await bob.threads.get_state(tid)
    except httpx.HTTPStatusError as exc:
        seen["bob state"] = exc.response.status_code
    seen["bob resume"] = await _status(bob.runs.wait(tid, "aquascope", command={"resume": {"type": "accept"}}))
    bob_tid = (await bob.threads.create())["thread_id"]
    await bob.runs.wait(bob_tid, "aquascope", input=PROBLEM)
    await sdk_past_request(bob, bob_tid)
    await alice.runs.wait(tid, "aquascope", command={"resume": {"type": "accept", "api_key": KEYS["resume"]}})
    await bob.runs.wait(bob_tid, "aquascope", command={"resume": {"type": "accept"}})
    seen["alice"] = (await alice.threads.get_state(tid))["values"]
    seen["bob"] = (await bob.threads.get_state(bob_tid))["values"]
    # LangGraph's own fork on this runtime: the plan checkpoint resumed by id with a new answer
    await alice.runs.wait(tid, "aquascope", checkpoint_id=plan_state["checkpoint"]["checkpoint_id"],
                          command={"resume": {"type": "edit", "args": {"intake": {"return_period": 50}}}})
    seen["alice fork"] = (await alice.threads.get_state(tid))["values"]
    seen["alice runs"] = [r["status"] for r in await alice.runs.list(tid)]
    seen["owners"] = [(await alice.threads.get(tid))["metadata"].get("owner"),
                      (await bob.threads.get(bob_tid))["metadata"].get("owner")]
    seen["first run"] = run
    seen["thread id"] = tid
    return seen


def _database_text(url: str) -> str:
    """Every row of every table of the database (the runtime's threads, runs and their kwargs, the checkpoints)."""
    import psycopg

    out = []
    with psycopg.connect(url) as conn:
        tables = conn.execute("SELECT schemaname, tablename FROM pg_tables WHERE schemaname NOT IN "
                              "('pg_catalog', 'information_schema')").fetchall()
        for schema, table in tables:
            for row in conn.execute(f'SELECT * FROM "{schema}"."{table}"'):
                out += [bytes(c).decode("utf-8", "replace") if isinstance(c, (bytes, memoryview)) else str(c)
                        for c in row]
    return "\n".join(out)


async def _bounded(url: str) -> dict:
    with anyio.fail_after(400):
        return await _drive(url)


@pytest.mark.slow
@pytest.mark.server
def test_the_open_runtime_runs_studies_under_the_projects_auth(tmp_path, postgres_url):  # noqa: F811
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (.ci/run installs it)")
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(f"alice {ALICE}\nbob {BOB}\n")
    env = {"AQUASCOPE_TOKENS_FILE": str(tokens), "AQUASCOPE_FORMATS": "md"}
    with redis_server(tmp_path) as redis_url, servers(tmp_path, 1, postgres_url, redis_url, extra_env=env) as (server,):
        seen = anyio.run(_bounded, server.url)
    log = server.log_path.read_text()
    assert "not JSON serializable" not in log, log[-3000:]
    assert seen["anonymous"] == 401
    assert seen["alice plan"]
    assert seen["bob search"] == [] and seen["bob get"] == seen["bob history"] == seen["bob resume"] == 404
    state = seen["bob state"]
    assert state == 404 or (state["values"] == {} and state["checkpoint"] is None), state
    for who in ("alice", "bob"):
        assert seen[who]["status"] == "done" and "The 100-year peak flow" in seen[who]["answer"], who
    assert seen["alice fork"]["status"] == "done" and "The 50-year peak flow" in seen["alice fork"]["answer"]
    # the start, "continue without" (the basin characteristics asked for), the approval, the fork
    assert set(seen["alice runs"]) == {"success"} and len(seen["alice runs"]) == 4
    # keys planted in the run's configurable, metadata, input and resume value are in no table of the database
    stored = _database_text(postgres_url)
    assert stored.count(seen["thread id"]) > 5  # the tables searched hold the runs and checkpoints
    assert [f for f, k in KEYS.items() if k in stored or k[8:30] in stored] == []
    assert seen["owners"] == ["alice", "bob"]
