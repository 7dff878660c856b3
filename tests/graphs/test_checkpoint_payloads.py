"""Large state values are kept once by digest in the checkpointer's database and read back through the saver
(graphs.checkpoint_payloads): a small graph on the project's SQLite savers, sync and async, against the same
graph on LangGraph's in-memory saver."""

from __future__ import annotations

import asyncio
import sqlite3
import zlib

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from graphs.checkpoint import open_checkpointer, scrubbing
from graphs.checkpoint_payloads import MARK


class S(TypedDict, total=False):
    big: dict
    note: str
    steps: int


BIG = {"series": [{"year": 1900 + i, "flow": i * 1.5} for i in range(400)]}  # about 10 KB serialised


def _graph(saver):
    g = StateGraph(S)
    g.add_node("one", lambda s: {"big": BIG, "steps": 1})
    g.add_node("two", lambda s: {"note": "small", "steps": s["steps"] + 1})
    g.add_node("three", lambda s: {"steps": s["steps"] + 1})
    g.add_edge(START, "one")
    g.add_edge("one", "two")
    g.add_edge("two", "three")
    g.add_edge("three", END)
    return g.compile(checkpointer=saver)


CFG = {"configurable": {"thread_id": "t1"}}


def _history(graph):
    return [(snap.values, snap.next) for snap in graph.get_state_history(CFG)]


def test_a_large_value_is_stored_once_and_read_back_the_same(tmp_path):
    reference = _graph(InMemorySaver())
    reference.invoke({"note": "start"}, CFG)
    db = tmp_path / "cp.sqlite"
    with open_checkpointer(f"sqlite:///{db}") as saver:
        graph = _graph(saver)
        graph.invoke({"note": "start"}, CFG)
        assert graph.get_state(CFG).values == reference.get_state(CFG).values
        assert _history(graph) == _history(reference)
    con = sqlite3.connect(db)
    payloads = con.execute("SELECT value FROM payloads").fetchall()
    blobs = [b for (b,) in con.execute("SELECT checkpoint FROM checkpoints")] + \
        [b for (b,) in con.execute("SELECT value FROM writes")]
    con.close()
    # one row for the value written once and carried by three later checkpoints; none of them repeats it
    assert len(payloads) == 1 and b"series" in zlib.decompress(payloads[0][0])
    assert all(len(b) < 2000 for b in blobs)
    assert sum(MARK.encode() in b for b in blobs) >= 4  # the write and every later checkpoint hold the reference


def test_a_reader_sees_the_value_from_a_new_saver_on_the_same_file(tmp_path):
    db = tmp_path / "cp.sqlite"
    with open_checkpointer(f"sqlite:///{db}") as saver:
        _graph(saver).invoke({"note": "start"}, CFG)
    with open_checkpointer(f"sqlite:///{db}") as saver:  # a new process's saver: nothing cached
        assert _graph(saver).get_state(CFG).values["big"] == BIG


def test_a_missing_payload_is_a_clear_error(tmp_path):
    db = tmp_path / "cp.sqlite"
    with open_checkpointer(f"sqlite:///{db}") as saver:
        _graph(saver).invoke({"note": "start"}, CFG)
    con = sqlite3.connect(db)
    con.execute("DELETE FROM payloads")
    con.commit()
    con.close()
    with open_checkpointer(f"sqlite:///{db}") as saver:
        with pytest.raises(LookupError, match="missing from the checkpointer's database"):
            _graph(saver).get_state(CFG)


def test_the_async_sqlite_saver_keeps_payloads_too(tmp_path):
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    db = tmp_path / "cp.sqlite"

    async def run():
        async with scrubbing(AsyncSqliteSaver).from_conn_string(str(db)) as saver:
            graph = _graph(saver)
            await graph.ainvoke({"note": "start"}, CFG)
            return (await graph.aget_state(CFG)).values

    values = asyncio.run(run())
    assert values["big"] == BIG and values["steps"] == 3
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM payloads").fetchone()[0] == 1
    con.close()


class Many(TypedDict, total=False):
    a: dict
    b: dict
    c: dict


def test_a_checkpoint_with_more_payloads_than_the_cache_holds_is_read_whole(tmp_path, monkeypatch):
    # The reader resolves from what it fetched, not from the shared cache, which other threads (or a checkpoint
    # with more large values than it holds) may evict between the fetch and the read.
    import graphs.checkpoint_payloads as cp

    monkeypatch.setattr(cp, "_CACHE_ENTRIES", 1)
    g = StateGraph(Many)
    g.add_node("one", lambda s: {"a": {"k": ["a"] * 600}, "b": {"k": ["b"] * 600}, "c": {"k": ["c"] * 600}})
    g.add_edge(START, "one")
    g.add_edge("one", END)
    db = tmp_path / "cp.sqlite"
    config = {"configurable": {"thread_id": "t"}}
    with open_checkpointer(f"sqlite:///{db}") as saver:
        g.compile(checkpointer=saver).invoke({}, config)
    with open_checkpointer(f"sqlite:///{db}") as saver:  # nothing cached: all three fetched at once
        values = g.compile(checkpointer=saver).get_state(config).values
    assert [values[k]["k"][0] for k in "abc"] == ["a", "b", "c"] and len(values["c"]["k"]) == 600
