"""The same hostile uploads refused, fast and naming the limit, by every entry point that takes one: the CLI's studio
(--data; solve takes none), the Python Studio (add_table) and solve (tables=), and the graph's input (tables inline, as a
server's run carries them; MCP takes no upload). A table over MAX_COLUMNS (501 columns of three rows: a file of a
few kilobytes) and an inline upload over MAX_UPLOAD_BYTES (the bound lowered in-process so the test needs no 50 MB),
which the graph refuses before its first checkpoint stores it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aquascope_core import limits
from aquascope_core.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
SITE = {"lat": 41.10, "lon": -74.96}
TEXT = "Design flow for a road crossing, 100-year, from my gauge record"
WIDE = (",".join(["date"] + [f"q{i}" for i in range(limits.MAX_COLUMNS)]) + "\n"
        + "".join(f"2000-01-0{r + 1}," + ",".join(["1.5"] * limits.MAX_COLUMNS) + "\n" for r in range(3))).encode()
FAST_S = 2.0


def _refused(fn, words: str) -> float:
    t0 = time.monotonic()
    with pytest.raises(InputError, match=words):
        fn()
    took = time.monotonic() - t0
    assert took < FAST_S, f"refused after {took:.2f} s"
    return took


def test_the_wide_table_is_what_its_name_says():
    assert WIDE.count(b"\n") == 4 and WIDE.split(b"\n")[0].count(b",") == limits.MAX_COLUMNS and len(WIDE) < 10_000


def test_python_studio_and_solve_refuse_the_wide_table():
    from graphs.solve import solve
    from graphs.studio import Studio

    with Studio(**SITE) as s:
        _refused(lambda: s.add_table("wide.csv", WIDE), "MAX_COLUMNS")
        assert not s._snapshot().values
    _refused(lambda: solve(TEXT, **SITE, tables={"wide.csv": WIDE}, execute=False), "MAX_COLUMNS")


def _inline(data: bytes) -> dict:
    return {"site": SITE, "request": {"text": TEXT},
            "tables": {"wide.csv": {"original": {"encoding": "utf-8", "data": data.decode()}}}}


def test_the_graph_input_refuses_an_inline_upload_over_the_bytes_limit_before_its_first_checkpoint(monkeypatch):
    from langgraph.checkpoint.memory import InMemorySaver

    from graphs.graph import compile_graph

    monkeypatch.setattr(limits, "MAX_UPLOAD_BYTES", 5_000)
    saver = InMemorySaver()
    graph = compile_graph(saver)
    cfg = {"configurable": {"thread_id": "st-0000uplimit1"}}
    assert len(WIDE) > limits.MAX_UPLOAD_BYTES
    _refused(lambda: graph.invoke(_inline(WIDE), cfg), "MAX_UPLOAD_BYTES")
    two = _inline(WIDE[:3_000])
    two["tables"]["again.csv"] = two["tables"]["wide.csv"]
    _refused(lambda: graph.invoke(two, cfg), "uploads in the run's input together.*MAX_UPLOAD_BYTES")
    assert list(saver.list(cfg)) == []


def test_the_graph_input_refuses_the_wide_table_inline():
    from langgraph.checkpoint.memory import InMemorySaver

    from graphs.graph import compile_graph

    graph = compile_graph(InMemorySaver())
    with pytest.raises(InputError, match="MAX_COLUMNS"):  # read by the crew's first node: its shape needs parsing
        graph.invoke(_inline(WIDE), {"configurable": {"thread_id": "st-0000uplimit2"}})


@pytest.mark.slow
def test_the_cli_studio_refuses_the_wide_table(tmp_path):
    wide = tmp_path / "wide.csv"
    wide.write_bytes(WIDE)
    env = {**os.environ, "AQUASCOPE_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    env.pop("AQUASCOPE_LIVE", None)
    for command in ("studio",):
        t0 = time.monotonic()
        res = subprocess.run([sys.executable, "-m", "graphs.cli", command, TEXT, "--lat", "41.10", "--lon", "-74.96",
                              "--data", str(wide), "--yes"], capture_output=True, text=True, env=env, cwd=str(ROOT),
                             timeout=120)
        took = time.monotonic() - t0
        assert res.returncode == 2 and "MAX_COLUMNS" in res.stderr and "Traceback" not in res.stderr, (command,
                                                                                                       res.stderr)
        assert took < 15, f"{command}: {took:.1f} s including the interpreter's start-up"
