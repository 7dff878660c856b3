"""Studies on a real PostgreSQL (initdb in a temp dir as an unprivileged user, a free loopback port): the CLI
stopping at the plan and resumed from a new process, a fork through the Python API, and `langgraph dev` with
the async checkpointer factory named in a langgraph.json; each ends with the same report as SQLite."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

pytest.importorskip("langgraph.checkpoint.postgres")
psycopg = pytest.importorskip("psycopg")

from tests.graphs.lg_server import ROOT, config_variant, langgraph_dev  # noqa: E402
from tests.graphs.pg_server import postgres_url  # noqa: E402,F401  (the fixture)

TEXT = "Design flow for a road crossing, 100-year"


def cli(args: list[str], home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "AQUASCOPE_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "graphs.cli", *args], capture_output=True, text=True, env=env,
                          timeout=180)


def report_of(out: Path) -> dict:
    ws = json.loads((out / "workspace.json").read_text())
    rep = ws["report"]
    return {"answer": rep["answer"], "key_numbers": rep["key_numbers"], "critique_ok": rep["critique_ok"],
            "results": [s for s in rep["sections"] if s["id"] == "results"]}


@pytest.fixture(scope="module")
def sqlite_report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sqlite")
    done = cli(["studio", TEXT, "--lat", "41.10", "--lon", "-74.96", "--yes", "-q", "--out", str(tmp / "out"),
                "--checkpoints", f"sqlite:///{tmp / 'cp.sqlite'}"], tmp / "home")
    assert done.returncode == 0, done.stderr
    return report_of(tmp / "out")


@pytest.mark.slow
@pytest.mark.server
def test_cli_stops_at_the_plan_and_resumes_from_a_new_process_on_postgres(postgres_url, sqlite_report, tmp_path):
    first = cli(["studio", TEXT, "--lat", "41.10", "--lon", "-74.96", "-q", "--checkpoints", postgres_url],
                tmp_path / "home")
    assert first.returncode == 0, first.stderr
    assert "waits for data" in first.stdout  # the site's basin characteristics, asked for first
    study_id = re.search(r"Study (st-[0-9a-f]+)", first.stderr).group(1)
    without = cli(["studio", "continue without", "--resume", study_id, "-q", "--checkpoints", postgres_url],
                  tmp_path / "home")
    assert without.returncode == 0, without.stderr
    assert "waits for your approval" in without.stdout
    second = cli(["studio", "--resume", study_id, "--yes", "-q", "--checkpoints", postgres_url,
                  "--out", str(tmp_path / "out")], tmp_path / "other-home")  # nothing shared but the database
    assert second.returncode == 0, second.stderr
    assert report_of(tmp_path / "out") == sqlite_report
    with psycopg.connect(postgres_url) as conn:
        n = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s", (study_id,)).fetchone()[0]
    assert n >= 10
    # the Python API on the same database: resume the study and fork it there
    from graphs.studio import Studio

    with Studio.resume(study_id, checkpointer=postgres_url, artifact_root=tmp_path / "art" / study_id / "artifacts") as s:
        assert s.status == "done"
        fork = s.fork(edits={"intake": {"return_period": 50}})
        assert fork.status == "done" and "The 50-year peak flow" in fork.workspace().report["answer"]
        assert fork.workspace().study["plan"]["parent"]["study"] == study_id


async def _server_study(url: str) -> dict:
    from langgraph_sdk import get_client

    from tests.answers import sdk_past_request

    with anyio.fail_after(240):
        c = get_client(url=url)
        aid = (await c.assistants.search(graph_id="aquascope"))[0]["assistant_id"]
        tid = (await c.threads.create())["thread_id"]
        await c.runs.wait(tid, aid, input={"site": {"lat": 41.10, "lon": -74.96}, "request": {"text": TEXT}})
        await sdk_past_request(c, tid, aid)  # the basin characteristics the crew asks for: gone on without them
        await c.runs.wait(tid, aid, command={"resume": [{"type": "accept", "args": None}]})
        state = await c.threads.get_state(tid)
        return {"thread": tid, "values": state["values"]}


@pytest.mark.slow
@pytest.mark.server
def test_langgraph_dev_with_the_async_factory_on_postgres(postgres_url, sqlite_report, tmp_path):
    config = config_variant(tmp_path, checkpointer={"path": f"{ROOT / 'graphs' / 'server.py'}:checkpointer"})
    env = {"AQUASCOPE_HOME": str(tmp_path / "home"), "AQUASCOPE_CHECKPOINTS": postgres_url}
    with langgraph_dev(tmp_path, env=env, config=config) as url:
        got = anyio.run(_server_study, url)
    # the factory's saver: Postgres, with the mixin that keeps credentials out of the tables
    assert re.search(r"Using custom checkpointer: \w*AsyncPostgresSaver", (tmp_path / "server.log").read_text())
    values = got["values"]
    assert values["status"] == "done"
    assert values["report"]["answer"] == sqlite_report["answer"]
    assert values["report"]["key_numbers"] == sqlite_report["key_numbers"]
    with psycopg.connect(postgres_url) as conn:
        n = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s", (got["thread"],)).fetchone()[0]
    assert n >= 10  # the server's checkpoints are in Postgres, not in its in-memory store


def test_a_bad_postgres_url_is_a_clear_error():
    from aquascope_core.errors import InputError
    from graphs.checkpoint import open_checkpointer
    from tests.graphs.pg_server import free_port

    with pytest.raises(InputError, match=r"cannot connect to the Postgres checkpointer at postgresql://127\.0\.0\.1"):
        with open_checkpointer(f"postgresql://nobody:secret@127.0.0.1:{free_port()}/db"):
            pass
