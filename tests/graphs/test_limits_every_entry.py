"""The same hostile briefs (98 KB of words, 50,000 digits, 10 MB) refused, fast and naming the limit, by every entry
point: the CLI (studio, solve, run, export), the Python Studio and solve, the graph's input, the MCP tools and the
server. Nothing is checkpointed for a refused brief."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aquascope_core.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
SITE = {"lat": 41.10, "lon": -74.96}
HOSTILE = {
    "98kb": "Design flow for a road crossing, 100-year. " + "The culvert is old and the road floods. " * 2450,
    "digits": "Design flow for a road crossing, 100-year " + "7" * 50_000,
    "10mb": "Design flow " + "x" * 10_000_000,
}
LIMIT = {"98kb": "MAX_TEXT_CHARS", "digits": "MAX_TEXT_CHARS", "10mb": "MAX_TEXT_CHARS"}
FAST_S = 1.0  # in-process refusals; a subprocess adds the interpreter's start-up


def test_the_hostile_briefs_are_what_their_names_say():
    assert 95_000 < len(HOSTILE["98kb"].encode()) < 100_000 and len(HOSTILE["10mb"]) > 10_000_000


def test_a_long_run_of_digits_under_the_length_limit_is_refused_too():
    from aquascope_core.limits import LimitError, check_brief

    with pytest.raises(LimitError, match="MAX_NUMBER_DIGITS"):
        check_brief("Design flow, 100-year " + "1" * 19_000)
    assert check_brief("Design flow for a 100-year flood, 1,250 km2, gauge 01463500") .startswith("Design")


def _refused_fast(fn, name: str) -> float:
    t0 = time.monotonic()
    with pytest.raises(InputError, match=LIMIT[name]):
        fn()
    took = time.monotonic() - t0
    assert took < FAST_S, f"{name}: refused after {took:.2f} s"
    return took


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_python_solve_refuses_fast(name):
    from graphs.solve import solve

    _refused_fast(lambda: solve(HOSTILE[name], **SITE, execute=False), name)
    _refused_fast(lambda: solve({"text": HOSTILE[name]}, **SITE), name)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_python_studio_refuses_fast_and_checkpoints_nothing(name):
    from graphs.studio import Studio

    with Studio(**SITE) as s:
        _refused_fast(lambda: s.say(HOSTILE[name]), name)
        assert not s._snapshot().values


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_the_graph_input_is_refused_before_its_first_checkpoint(name):
    from langgraph.checkpoint.memory import InMemorySaver

    from graphs.graph import compile_graph

    saver = InMemorySaver()
    graph = compile_graph(saver)
    cfg = {"configurable": {"thread_id": f"st-limit{name}"}}
    _refused_fast(lambda: graph.invoke({"site": SITE, "request": {"text": HOSTILE[name]}}, cfg), name)
    _refused_fast(lambda: graph.invoke({"messages": [{"type": "human", "content": HOSTILE[name]}]}, cfg), name)
    _refused_fast(lambda: graph.invoke({"messages": [{"role": "user", "content": [{"type": "text",
                                                                                    "text": HOSTILE[name]}]}]}, cfg), name)
    assert list(saver.list(cfg)) == []


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_the_mcp_tools_refuse_fast(name):
    from graphs.mcp_server import _guarded, _Tools

    tools = _Tools()
    calls = {"solve_plan": lambda: tools.solve_plan(HOSTILE[name], **SITE),
             "studio_start": lambda: tools.studio_start(HOSTILE[name], **SITE),
             "studio_say": lambda: tools.studio_say(HOSTILE[name], study_id="st-000000000000"),
             "studio_follow_up": lambda: tools.studio_follow_up(HOSTILE[name], study_id="st-000000000000")}
    for tool, call in calls.items():
        _refused_fast(call, name)
        first = "problem" if tool in ("solve_plan", "studio_start") else "text"
        out = _guarded(getattr(tools, tool))(**{first: HOSTILE[name]},
                                             **(SITE if first == "problem" else {"study_id": "st-000000000000"}))
        # the MCP boundary answers an is_error result carrying the error dict
        assert out.is_error and LIMIT[name] in out.structured_content["error"], (tool, out)


def _cli(*args: str, home: Path) -> tuple[subprocess.CompletedProcess, float]:
    env = {**os.environ, "AQUASCOPE_HOME": str(home), "PYTHONPATH": str(ROOT)}
    env.pop("AQUASCOPE_LIVE", None)
    t0 = time.monotonic()
    res = subprocess.run([sys.executable, "-m", "graphs.cli", *args], capture_output=True, text=True, env=env,
                         cwd=str(ROOT), timeout=60)
    return res, time.monotonic() - t0


@pytest.mark.slow
@pytest.mark.parametrize("name", ["98kb", "digits"])  # 10 MB cannot be one argument (Linux caps it at 128 KiB)
def test_the_cli_refuses_fast(name, tmp_path):
    for command in ("studio", "solve"):
        res, took = _cli(command, HOSTILE[name], "--lat", "41.10", "--lon", "-74.96", "--yes", home=tmp_path)
        assert res.returncode == 2 and LIMIT[name] in res.stderr and "Traceback" not in res.stderr, res.stderr
        assert took < 3.0, f"{command}: {took:.2f} s including the interpreter's start-up"
    res, _ = _cli("studio", "--resume", "st-000000000000", HOSTILE[name], home=tmp_path)
    assert res.returncode == 2 and LIMIT[name] in res.stderr, res.stderr
    assert not (tmp_path / "checkpoints.sqlite").exists()  # nothing was opened, let alone stored


@pytest.mark.slow
def test_the_cli_run_and_export_refuse_fast(tmp_path):
    big = tmp_path / "study.yaml"
    big.write_text("version: 2\nquestion: " + "x" * 6_000_000 + "\nsteps: []\n")
    res, took = _cli("run", str(big), home=tmp_path)
    assert res.returncode == 2 and "MAX_YAML_BYTES" in res.stderr and took < 3.0, (res.stderr, took)
    res, took = _cli("export", "st-" + "7" * 50_000, "--out", str(tmp_path / "out"), home=tmp_path)
    assert res.returncode == 2 and "study_id" in res.stderr and took < 3.0, (res.stderr, took)


async def _server_runs(url: str) -> dict:
    import anyio
    from langgraph_sdk import get_client

    c = get_client(url=url)
    aid = (await c.assistants.search(graph_id="aquascope"))[0]["assistant_id"]
    out = {}
    with anyio.fail_after(120):
        for name in ("98kb", "digits"):
            thread = (await c.threads.create())["thread_id"]
            t0 = time.monotonic()
            run = await c.runs.create(thread, aid, input={"site": SITE, "request": {"text": HOSTILE[name]}})
            await c.runs.join(thread, run["run_id"])
            run = await c.runs.get(thread, run["run_id"])
            state = await c.threads.get_state(thread)
            out[name] = {"status": run["status"], "took": time.monotonic() - t0, "values": state["values"]}
    return out


@pytest.mark.slow
@pytest.mark.server
def test_the_server_refuses_the_same_briefs(tmp_path):
    pytest.importorskip("langgraph_sdk")
    pytest.importorskip("langgraph_api")
    import anyio

    from tests.graphs.lg_server import langgraph_dev

    with langgraph_dev(tmp_path, env={"AQUASCOPE_HOME": str(tmp_path / "home")}) as url:
        out = anyio.run(_server_runs, url)
        log = (tmp_path / "server.log").read_text()
    for name, row in out.items():
        assert row["status"] == "error", (name, row["status"])
        assert not row["values"].get("brief")  # no node ran
        assert row["took"] < 10, (name, row["took"])  # the run's queueing included
    assert "MAX_TEXT_CHARS" in log
