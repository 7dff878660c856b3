"""Two users on one `langgraph dev` with the project's auth handler (graphs/auth.py, named in langgraph.json):
tokens from a file the operator writes; no token or a wrong one is a 401 naming what to send; claiming another
owner is a 403; and neither user can list, read, run, resume, fork (copy), change or delete the other's study,
while its owner carries on to the report."""

from __future__ import annotations

import anyio
import httpx
import pytest

pytest.importorskip("langgraph_sdk")
pytest.importorskip("langgraph_api")

from langgraph_sdk import get_client  # noqa: E402

from tests.answers import sdk_past_request  # noqa: E402
from tests.graphs.lg_server import http_status as _status, langgraph_dev  # noqa: E402

TEXT = "Design flow for a road crossing, 100-year, at 41.10, -74.96"
ALICE, BOB = "alice-token-0123456789abcdef", "bob-token-fedcba9876543210"


async def _drive(url: str) -> dict:
    alice = get_client(url=url, headers={"Authorization": f"Bearer {ALICE}"})
    bob = get_client(url=url, headers={"Authorization": f"Bearer {BOB}"})
    seen: dict = {}
    async with httpx.AsyncClient(base_url=url, timeout=30) as raw:
        for key, headers in (("none", {}), ("wrong", {"Authorization": "Bearer nope-not-a-token"}),
                             ("basic", {"Authorization": "Basic YWxpY2U6eA=="})):
            r = await raw.post("/threads/search", json={}, headers=headers)
            seen[f"401 {key}"] = (r.status_code, r.text)
    aid = (await alice.assistants.search(graph_id="aquascope"))[0]["assistant_id"]
    seen["bob sees the assistant"] = [a["assistant_id"] for a in await bob.assistants.search(graph_id="aquascope")]
    seen["403 claim"] = await _status(bob.threads.create(metadata={"owner": "alice"}))

    tid = (await alice.threads.create(metadata={"project": "culvert"}))["thread_id"]
    await alice.runs.wait(tid, aid, input={"messages": [{"type": "human", "content": TEXT}]})
    await sdk_past_request(alice, tid, aid)  # the basin characteristics the crew asks for: gone on without them
    seen["thread"] = await alice.threads.get(tid)
    state = await alice.threads.get_state(tid)
    seen["alice waits"] = bool(state["interrupts"])
    cid = state["checkpoint"]["checkpoint_id"]

    b = {}
    b["search"] = [t["thread_id"] for t in await bob.threads.search(limit=100)]
    b["get"] = await _status(bob.threads.get(tid))
    b["state"] = await _status(bob.threads.get_state(tid))
    b["state at"] = await _status(bob.threads.get_state(tid, checkpoint_id=cid))
    b["history"] = await _status(bob.threads.get_history(tid))
    b["update state"] = await _status(bob.threads.update_state(tid, {"status": "done"}))
    b["update"] = await _status(bob.threads.update(tid, metadata={"owner": "bob"}))
    b["copy"] = await _status(bob.threads.copy(tid))
    b["resume"] = await _status(bob.runs.wait(tid, aid, command={"resume": [{"type": "accept", "args": None}]}))
    b["fork"] = await _status(bob.runs.wait(tid, aid, checkpoint_id=cid, command={"resume": {"type": "accept"}}))
    b["runs"] = await _status(bob.runs.list(tid))
    b["delete"] = await _status(bob.threads.delete(tid))
    seen["bob"] = b
    bob_tid = (await bob.threads.create())["thread_id"]
    seen["bob after"] = [t["thread_id"] for t in await bob.threads.search(limit=100)] == [bob_tid]
    seen["alice search"] = [t["thread_id"] for t in await alice.threads.search(limit=100)]
    seen["alice on bob's"] = await _status(alice.threads.get_state(bob_tid))

    await alice.runs.wait(tid, aid, command={"resume": [{"type": "accept", "args": None}]})
    seen["alice done"] = (await alice.threads.get_state(tid))["values"]
    copy = await alice.threads.copy(tid)
    seen["copy owner"] = copy["metadata"].get("owner")
    return seen


@pytest.mark.slow
@pytest.mark.server
def test_two_users_cannot_see_or_touch_each_others_study(tmp_path):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(f"# user token\nalice {ALICE}\nbob {BOB}\n")
    env = {"AQUASCOPE_HOME": str(tmp_path / "home"), "AQUASCOPE_TOKENS_FILE": str(tokens)}
    with langgraph_dev(tmp_path, env=env) as url:
        seen = anyio.run(_drive, url)
    for key in ("none", "wrong", "basic"):
        code, text = seen[f"401 {key}"]
        assert code == 401 and "Bearer" in text and "AQUASCOPE_TOKENS_FILE" in text, (key, text)
    assert seen["bob sees the assistant"]
    assert seen["403 claim"] == 403
    assert seen["thread"]["metadata"]["owner"] == "alice" and seen["thread"]["metadata"]["project"] == "culvert"
    assert seen["alice waits"]
    bob = seen["bob"]
    assert bob.pop("search") == []
    copied = bob.pop("copy")  # the in-memory runtime answers a copy of a thread it cannot read with 409
    assert copied in (404, 409) and seen["bob after"]
    assert all(code == 404 for code in bob.values()), repr(bob)
    assert len(seen["alice search"]) == 1
    assert seen["alice on bob's"] == 404
    assert seen["alice done"]["status"] == "done" and "The 100-year peak flow" in seen["alice done"]["answer"]
    assert seen["copy owner"] == "alice"
