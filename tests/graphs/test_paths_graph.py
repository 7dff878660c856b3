"""The hosted graph and the Python API take no folder and no path-like id from their input."""

from __future__ import annotations

import pytest
from langgraph.types import Command

from aquascope_core.errors import InputError
from graphs.checkpoint import open_checkpointer
from graphs.graph import compile_graph
from graphs.studio import Studio
from tests.answers import graph_past_request

TEXT = "Design flow for a road crossing, 100-year"


def test_the_input_state_cannot_choose_where_the_graph_writes(tmp_path, _isolated_home):
    evil = tmp_path / "elsewhere"
    inp = {"id": "st-0000000000aa", "site": {"lat": 41.1, "lon": -74.96}, "status": "intake", "messages": [],
           "request": {"text": TEXT, "artifact_root": str(evil)}}
    cfg = {"configurable": {"thread_id": "st-0000000000aa"}}
    with open_checkpointer() as saver:
        graph = compile_graph(saver)
        graph.invoke(inp, cfg)
        graph_past_request(graph, cfg, None)  # the basin characteristics: going on without them
        graph.invoke(Command(resume={"type": "accept"}), cfg)
        assert graph.get_state(cfg).values["status"] == "done"
    assert not evil.exists()
    assert any((_isolated_home / "studies" / "st-0000000000aa" / "artifacts").rglob("*"))


def test_path_like_ids_are_refused_by_the_graph_and_the_api(tmp_path, _isolated_home):
    inp = {"id": "../../outside", "site": {"lat": 41.1, "lon": -74.96}, "status": "intake", "messages": [],
           "request": {"text": TEXT}}
    with open_checkpointer() as saver:
        with pytest.raises(InputError, match="study_id"):
            compile_graph(saver).invoke(inp, {"configurable": {"thread_id": "t1"}})
    with pytest.raises(InputError, match="study_id"):
        Studio(41.1, -74.96, study_id="../x")
    with pytest.raises(InputError, match="study_id"):
        Studio.resume("st-../../x")
    assert not (tmp_path.parent / "outside").exists() and not (_isolated_home.parent / "outside").exists()
