"""The crew under `langgraph dev`, driven by langgraph_sdk: schemas Studio renders, a thread from a chat message,
the questions and plan interrupts answered in each agent-inbox form (an edit visibly changing the run), the
custom progress events streamed, and forks from the thread's plan checkpoint (LangGraph's own: resumed by id
with a new answer; and through update_state) run on with their new answers."""

from __future__ import annotations

import os
import subprocess
import sys

import anyio
import pytest

pytest.importorskip("langgraph_sdk")
pytest.importorskip("langgraph_api")

from langgraph_sdk import get_client  # noqa: E402

from tests.answers import sdk_past_request  # noqa: E402
from tests.graphs.lg_server import ROOT, langgraph_dev  # noqa: E402

TEXT = "Design flow for a road crossing, 100-year, at 41.10, -74.96"
SITE = {"lat": 41.10, "lon": -74.96}


def _interrupt(state: dict) -> dict:
    value = state["interrupts"][0]["value"]
    return value[0] if isinstance(value, list) else value


async def _drive(url: str) -> dict:
    c = get_client(url=url)
    aid = (await c.assistants.search(graph_id="aquascope"))[0]["assistant_id"]
    seen: dict = {"schemas": await c.assistants.get_schemas(aid)}

    # 1. a thread from a chat message; the progress events stream as custom chunks; the plan accepted
    t1 = (await c.threads.create())["thread_id"]
    custom = []
    async for ch in c.runs.stream(t1, aid, input={"messages": [{"type": "human", "content": TEXT}]},
                                  stream_mode=["custom", "updates"]):
        if ch.event == "custom":
            custom.append(ch.data)
    seen["custom"] = custom
    seen["t1_request"] = _interrupt(await c.threads.get_state(t1))  # the basin characteristics, asked first
    await sdk_past_request(c, t1, aid)  # gone on without them, as a user without them does
    st = await c.threads.get_state(t1)
    seen["t1_plan"] = _interrupt(st)
    await c.runs.wait(t1, aid, command={"resume": [{"type": "accept", "args": None}]})
    seen["t1"] = (await c.threads.get_state(t1))["values"]

    # 2. questions answered by an inbox edit, the plan by an inbox edit that changes the run
    t2 = (await c.threads.create())["thread_id"]
    await c.runs.wait(t2, aid, input={"site": SITE, "request": {"text": "flood risk at the culvert"}})
    seen["t2_questions"] = _interrupt(await c.threads.get_state(t2))
    await c.runs.wait(t2, aid, command={"resume": [{"type": "edit", "args": {
        "action": "answer_questions", "args": {"return_period": 50}}}]})
    await sdk_past_request(c, t2, aid)
    plan = _interrupt(await c.threads.get_state(t2))
    study = plan["action_request"]["args"]["study"]
    next(s for s in study["steps"] if s["id"] == "s3")["arguments"]["n_bootstrap"] = 200
    await c.runs.wait(t2, aid, command={"resume": [{"type": "edit", "args": {
        "action": "approve_plan", "args": {"study": study}}}]})
    seen["t2"] = (await c.threads.get_state(t2))["values"]

    # 3. questions answered in words, the plan answered in words (re-planned), then ignored (declined)
    t3 = (await c.threads.create())["thread_id"]
    await c.runs.wait(t3, aid, input={"site": SITE, "request": {"text": "flood risk at the culvert"}})
    await c.runs.wait(t3, aid, command={"resume": [{"type": "response", "args": "200-year please"}]})
    await sdk_past_request(c, t3, aid)
    seen["t3_plan1"] = (await c.threads.get_state(t3))["values"]["brief"]["intake"]
    await c.runs.wait(t3, aid, command={"resume": [{"type": "response", "args": "use 25 years instead"}]})
    seen["t3_plan2"] = (await c.threads.get_state(t3))["values"]["brief"]["intake"]
    await c.runs.wait(t3, aid, command={"resume": [{"type": "ignore", "args": None}]})
    seen["t3"] = (await c.threads.get_state(t3))["values"]

    # 4. questions accepted (the defaults)
    t4 = (await c.threads.create())["thread_id"]
    await c.runs.wait(t4, aid, input={"site": SITE, "request": {"text": "flood risk at the culvert"}})
    await c.runs.wait(t4, aid, command={"resume": [{"type": "accept", "args": None}]})
    await sdk_past_request(c, t4, aid)
    st4 = await c.threads.get_state(t4)
    seen["t4"] = {"next": st4["next"], "intake": st4["values"]["brief"]["intake"]}

    # 5. LangGraph's own fork: thread 1's plan checkpoint resumed by id with a new answer (the 50-year flood)
    history = await c.threads.get_history(t1, limit=50)
    at_plan = next(h for h in history if h["next"] == ["review"])
    plan_cid = at_plan["checkpoint"]["checkpoint_id"]
    await c.runs.wait(t1, aid, checkpoint_id=plan_cid, command={"resume": [
        {"type": "edit", "args": {"action": "approve_plan", "args": {"intake": {"return_period": 50}}}}]})
    seen["standard fork"] = (await c.threads.get_state(t1))["values"]
    # 6. the other documented way: a new checkpoint off the plan checkpoint, run to its interrupt, answered
    fork_cfg = await c.threads.update_state(t1, {"status": "review"}, as_node="methodologist", checkpoint_id=plan_cid)
    await c.runs.wait(t1, aid, input=None, checkpoint_id=fork_cfg["checkpoint"]["checkpoint_id"])
    seen["fork_waits"] = _interrupt(await c.threads.get_state(t1))["action_request"]["action"]
    await c.runs.wait(t1, aid, command={"resume": [
        {"type": "edit", "args": {"action": "approve_plan", "args": {"intake": {"return_period": 200}}}}]})
    seen["fork"] = (await c.threads.get_state(t1))["values"]
    seen["history_after"] = len(await c.threads.get_history(t1, limit=100))
    seen["history_before"] = len(history)
    return seen


async def _bounded(url: str) -> dict:
    with anyio.fail_after(300):
        return await _drive(url)


@pytest.mark.slow
@pytest.mark.server
def test_the_crew_under_langgraph_dev(tmp_path):
    with langgraph_dev(tmp_path, env={"AQUASCOPE_HOME": str(tmp_path / "home")}) as url:
        seen = anyio.run(_bounded, url)
        # the sdk example against the same server
        example = subprocess.run([sys.executable, str(ROOT / "examples" / "sdk_client.py"), url], cwd=tmp_path,
                                 env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                                 timeout=240)
    assert example.returncode == 0, example.stderr[-3000:]
    assert "waiting for: approve_plan" in example.stdout and "[methodologist] plan" in example.stdout
    answers = {ln.split(": ", 1)[0]: ln for ln in example.stdout.splitlines() if ln.startswith(("answer:", "fork answer:"))}
    assert "The 100-year peak flow" in answers["answer"] and "The 200-year peak flow" in answers["fork answer"]
    assert not (tmp_path / ".langgraph_api").exists() or (tmp_path / ".langgraph_api").is_dir()
    schemas = seen["schemas"]
    assert schemas["input_schema"] and schemas["output_schema"]
    assert {"messages", "site", "request"} <= set(schemas["input_schema"]["properties"])
    assert {"answer", "title", "artifacts"} <= set(schemas["output_schema"]["properties"])
    # the chat thread
    roles = {e.get("role") for e in seen["custom"] if isinstance(e, dict)}
    assert {"consultant", "scout", "methodologist"} <= roles
    req = seen["t1_request"]
    assert req["action_request"]["action"] == "provide_data" and req["config"]["allow_accept"] is True
    assert [c["code"] for c in req["action_request"]["args"]["request"]["characteristics"]] == [
        "DRNAREA", "STORAGE", "CSL10_85", "POPDENS"]
    assert seen["t1_plan"]["action_request"]["action"] == "approve_plan"
    assert set(seen["t1_plan"]["config"]) == {"allow_accept", "allow_edit", "allow_respond", "allow_ignore"}
    t1 = seen["t1"]
    assert t1["status"] == "done" and t1["site"] == SITE and "The 100-year peak flow" in t1["answer"]
    # the inbox edits: answers taken, the edited plan is what ran
    assert seen["t2_questions"]["action_request"]["action"] == "answer_questions"
    t2 = seen["t2"]
    assert t2["brief"]["intake"]["return_period"] == 50 and "The 50-year peak flow" in t2["answer"]
    assert t2["run"]["results"]["s3"]["payload"]["fits"]["gev_lmoments"]["ci"]["n_resamples"] == 200
    assert [d["kind"] for d in t2["study"]["plan"]["decisions"]] == ["answer", "edit"]
    # words, then a decline
    assert seen["t3_plan1"]["return_period"] == 200 and seen["t3_plan2"]["return_period"] == 25
    assert seen["t3"]["status"] == "declined"
    assert seen["t4"]["next"] == ["review"] and seen["t4"]["intake"]["return_period"] == 100
    # the standard fork took its new answer (not the accept recorded at that checkpoint)
    std = seen["standard fork"]
    assert std["status"] == "done" and "The 50-year peak flow" in std["answer"], std["answer"]
    assert std["study"]["plan"]["objective"].startswith("Estimate the 50-year flood")
    assert [d["kind"] for d in std["study"]["plan"]["decisions"]] == ["edit"]
    # the fork from history ran on with the edit
    fork = seen["fork"]
    assert seen["fork_waits"] == "approve_plan"
    assert fork["status"] == "done" and "The 200-year peak flow" in fork["answer"]
    assert fork["study"]["plan"]["objective"].startswith("Estimate the 200-year flood")
    assert seen["history_after"] > seen["history_before"]
