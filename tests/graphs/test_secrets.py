"""A key passed any supported way is in none of the stored artefacts: the checkpoint tables (state, writes and
metadata), workspace.json, the report, the exported files, the logs."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import pytest
from langgraph.types import Command

from aquascope_core.errors import InputError
from graphs.checkpoint import open_checkpointer
from graphs.graph import compile_graph
from graphs.studio import Studio
from tests.answers import past_request

TEXT = "Design flow for a road crossing, 100-year"
KEY = "sk-proj-SECRETabcdefghijklmnopqrstuvwxyz0123"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stored(*roots: Path) -> bytes:
    """Every byte aquascope wrote under ``roots`` (the SQLite file with its WAL, the study folders, the exports)."""
    return b"".join(p.read_bytes() for root in roots for p in sorted(root.rglob("*")) if p.is_file())


def _assert_absent(blob: bytes, caplog) -> None:
    for needle in (KEY, KEY[8:28]):
        assert needle.encode() not in blob
        assert needle not in caplog.text


@pytest.mark.slow
def test_a_key_given_to_the_studio_or_in_the_environment_is_never_stored(tmp_path, monkeypatch, caplog, _isolated_home):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("AQUASCOPE_MODEL_TIMEOUT", "1")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # the environment way
    base = f"http://127.0.0.1:{_free_port()}/v1"  # nothing listens: every call fails, and its error is recorded
    with Studio(41.10, -74.96, model="openai/stub", base_url=base, api_key=KEY) as s:  # the in-memory way
        past_request(s, s.say(TEXT))
        s.approve()
        s.export(tmp_path / "out")
        ws = s.to_dict()
    assert ws["report"]["model_fallbacks"]  # the model was asked (and failed) with the key in hand
    _assert_absent(_stored(_isolated_home, tmp_path / "out"), caplog)


def test_keys_in_a_hosted_run_config_metadata_or_input_are_not_checkpointed(tmp_path, caplog, _isolated_home):
    cfg = {"configurable": {"thread_id": "st-00000000beef", "api_key": KEY},
           "metadata": {"api_key": KEY, "note": f"Authorization: Bearer {KEY}"}}
    inp = {"id": "st-00000000beef", "site": {"lat": 41.1, "lon": -74.96}, "status": "intake",
           "request": {"text": TEXT, "api_key": KEY}, "messages": []}
    with open_checkpointer() as saver:
        graph = compile_graph(saver)
        graph.invoke(inp, cfg, context={"key_ref": "env:OPENAI_API_KEY"})
        graph.invoke(Command(resume={"type": "accept"}), cfg)  # at the basin characteristics: continue without
        graph.invoke(Command(resume={"type": "accept"}), cfg)  # at the plan: approved
        assert graph.get_state(cfg).values["status"] == "done"
        with pytest.raises(InputError, match="context.key_ref"):  # a key itself in the run context is refused
            graph.invoke(inp, {"configurable": {"thread_id": "st-00000000dead"}}, context={"key_ref": KEY})
        with pytest.raises(InputError, match="'api_key'"):  # and so is a key-named field
            graph.invoke(inp, {"configurable": {"thread_id": "st-00000000dead"}}, context={"api_key": "env:X"})
    _assert_absent(_stored(_isolated_home), caplog)
