"""Keys planted in every field a caller can set (the run's configurable and metadata, the input's request, a nested
intake, the brief itself, a resume value) are found in no table of the checkpoint file and no file under
AQUASCOPE_HOME after a full run: under a plain SqliteSaver (no scrubbing of its own, so the graph's guard is what
keeps them out), and through `langgraph dev` with the shipped langgraph.json (the project's checkpointer) and
without its checkpointer key (the server's own saver), where the server's own run store (`.langgraph_api/`, every
run's input, command, config, context and metadata) is searched as well. No schema a host reads has a key field."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import anyio
import pytest
from langgraph.types import Command

from aquascope_core.textsafe import SECRET_KEY_NAMES
from graphs.checkpoint import connect_sqlite
from graphs.graph import compile_graph

TEXT = "Design flow for a road crossing, 100-year"
# one distinct key per field, so a leak names its way in
KEYS = {f: f"sk-proj-PLANTED{f.upper()}abcdefghijklmnop0123" for f in
        ("cfg", "cfgnested", "meta", "req", "token", "intake", "brief", "resume")}
MARK = "run-metadata-kept-0123"  # a plain value next to the keys: the stores searched do hold the run


def _planted(thread: str) -> tuple[dict, dict]:
    config = {"configurable": {"thread_id": thread, "api_key": KEYS["cfg"], "provider": {"secret": KEYS["cfgnested"]}},
              "metadata": {"api_key": KEYS["meta"], "note": MARK}}
    inp = {"site": {"lat": 41.10, "lon": -74.96},
           "request": {"text": f"{TEXT} (my key is {KEYS['brief']})", "api_key": KEYS["req"], "token": KEYS["token"],
                       "intake": {"return_period": 100, "password": KEYS["intake"]}}}
    return config, inp


def _tables_text(path: Path) -> bytes:
    """Every cell of every table of the SQLite file (its WAL checkpointed first), as bytes."""
    conn = sqlite3.connect(str(path))
    try:
        conn.execute("PRAGMA wal_checkpoint(FULL)")
        out = []
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                out += [c if isinstance(c, bytes) else str(c).encode() for c in row]
        return b"\n".join(out)
    finally:
        conn.close()


def _files(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())


def _leaks(blob: bytes) -> list[str]:
    return [f for f, k in KEYS.items() if k.encode() in blob or k[8:30].encode() in blob]


def test_keys_planted_everywhere_are_stored_nowhere_under_a_plain_sqlite_saver(tmp_path, _isolated_home):
    from langgraph.checkpoint.sqlite import SqliteSaver

    db = tmp_path / "plain.sqlite"
    conn = connect_sqlite(db)
    saver = SqliteSaver(conn)  # a host's own saver: no scrubbing of its own
    saver.setup()
    graph = compile_graph(saver)
    config, inp = _planted("st-0000000plain")
    graph.invoke(inp, config, context={"key_ref": "env:OPENAI_API_KEY"})
    if graph.get_state(config).next == ("clarify",):
        graph.invoke(Command(resume={"type": "response", "args": f"100-year, key {KEYS['resume']}"}), config)
    from tests.answers import graph_past_request

    graph_past_request(graph, config, None)  # the basin characteristics the crew asks for: gone on without them
    graph.invoke(Command(resume={"type": "accept", "api_key": KEYS["resume"]}), config)
    values = graph.get_state(config).values
    conn.close()
    assert values["status"] == "done" and values["artifacts"]  # the run went all the way, files written
    assert _tables_text(db).count(b"st-0000000plain") > 5  # the tables searched do hold the run
    assert _leaks(_tables_text(db)) == []
    assert _leaks(_files(_isolated_home)) == []


def _schema_keys(schema: object) -> set[str]:
    found, stack = set(), [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found |= set((node.get("properties") or {}).keys())
            stack += list(node.values())
        elif isinstance(node, list):
            stack += node
    return found


def test_no_schema_a_host_reads_has_a_key_field():
    import warnings

    from graphs.graph import graph

    with warnings.catch_warnings():  # config_schema is deprecated, but a server still publishes it
        warnings.simplefilter("ignore")
        config = graph.config_schema().model_json_schema()
    schemas = {"input": graph.get_input_jsonschema(), "output": graph.get_output_jsonschema(),
               "context": graph.get_context_jsonschema(), "config": config}
    for name, schema in schemas.items():
        named = sorted(k for k in _schema_keys(schema) if SECRET_KEY_NAMES.search(k))
        assert named == [], (name, named)
    assert "key_ref" in _schema_keys(schemas["context"])  # the reference a host gives instead


async def _through_server(url: str) -> dict:
    from langgraph_sdk import get_client

    c = get_client(url=url)
    aid = (await c.assistants.search(graph_id="aquascope"))[0]["assistant_id"]
    thread = (await c.threads.create())["thread_id"]
    config, inp = _planted(thread)
    cfg = {"configurable": {k: v for k, v in config["configurable"].items() if k != "thread_id"}}
    await c.runs.wait(thread, aid, input=inp, config=cfg, metadata=config["metadata"])
    state = await c.threads.get_state(thread)
    if state["next"] == ["clarify"]:
        await c.runs.wait(thread, aid, config=cfg, command={"resume": [{"type": "accept", "args": None}]})
    from tests.answers import sdk_past_request

    await sdk_past_request(c, thread, aid)  # the basin characteristics the crew asks for: gone on without them
    await c.runs.wait(thread, aid, config=cfg, metadata=config["metadata"],
                      command={"resume": [{"type": "accept", "args": None, "api_key": KEYS["resume"]}]})
    return (await c.threads.get_state(thread))["values"]


async def _bounded(url: str) -> dict:
    with anyio.fail_after(300):
        return await _through_server(url)


@pytest.mark.slow
@pytest.mark.server
@pytest.mark.parametrize("saver", ["project", "server"])
def test_keys_planted_through_langgraph_dev_are_stored_nowhere(tmp_path, saver):
    pytest.importorskip("langgraph_sdk")
    pytest.importorskip("langgraph_api")
    from tests.graphs.lg_server import config_variant, langgraph_dev

    home = tmp_path / "home"
    config = config_variant(tmp_path)
    if saver == "server":  # the server's own saver: the graph's guard alone keeps keys out
        import json

        spec = json.loads(config.read_text())
        spec.pop("checkpointer", None)
        config.write_text(json.dumps(spec))
    else:
        assert "server.py:checkpointer" in config.read_text()
    with langgraph_dev(tmp_path, env={"AQUASCOPE_HOME": str(home)}, config=config) as url:
        values = anyio.run(_bounded, url)
    assert values["status"] == "done" and values["artifacts"]
    assert _leaks(_files(home)) == []
    if saver == "project":
        db = home / "checkpoints.sqlite"
        assert _tables_text(db).count(values["id"].encode()) > 3  # the server's checkpoints are in this file
        assert _leaks(_tables_text(db)) == []
    else:  # the dev server keeps its checkpoints in .langgraph_api/ next to the config
        stored = [p for p in (tmp_path / ".langgraph_api").rglob("*checkpoint*") if p.is_file()]
        assert stored and _leaks(b"".join(p.read_bytes() for p in stored)) == []
    # the dev server's run store (threads, runs with their kwargs: input, command, config, context, metadata)
    # holds the runs, scrubbed by the auth handler before it recorded them
    store = _files(tmp_path / ".langgraph_api")
    assert MARK.encode() in store and values["id"].encode() in store
    assert _leaks(store) == []
