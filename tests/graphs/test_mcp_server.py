"""`aquascope mcp` over stdio, driven by the MCP client: a whole study (start, approve, export), the engine's
tools, and error dicts for bad input; nothing but the protocol on stdout (the client would fail otherwise)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest

mcp = pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _data(result) -> dict:
    if result.structured_content is not None:
        sc = result.structured_content
        return sc.get("result", sc) if isinstance(sc, dict) and set(sc) == {"result"} else sc
    return json.loads(result.content[0].text)


@pytest.mark.slow
@pytest.mark.server
def test_a_whole_study_over_stdio(tmp_path):
    env = {**os.environ, "AQUASCOPE_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "graphs.cli", "mcp", "--export-dir",
                                                                str(tmp_path / "exports")], env=env, cwd=str(tmp_path))

    async def drive() -> dict:
        seen: dict = {}
        with anyio.fail_after(120):
            async with Client(params) as client:
                names = {t.name for t in (await client.list_tools()).tools}
                seen["names"] = names
                seen["playbooks"] = _data(await client.call_tool("list_playbooks", {}))
                start = _data(await client.call_tool("studio_start", {
                    "problem": "Design flow for a road crossing, 100-year", "lat": 41.10, "lon": -74.96,
                    "include_workspace": False}))
                seen["start"] = start
                sid = start["study_id"]
                # the crew asks for the site's basin characteristics; the user has none and goes on without them
                seen["without"] = _data(await client.call_tool("studio_say", {"text": "continue without",
                                                                              "study_id": sid,
                                                                              "include_workspace": False}))
                seen["context"] = _data(await client.call_tool("studio_context", {"role": "methodologist",
                                                                                 "study_id": sid}))
                seen["approve"] = _data(await client.call_tool("studio_approve", {"study_id": sid}))
                seen["narrate"] = _data(await client.call_tool("studio_narrate", {
                    "study_id": sid, "source": "a reviewer",
                    "sections": {"summary": "The record is long. The flood is 99999 m3/s."}}))
                seen["export"] = _data(await client.call_tool("studio_export", {"study_id": sid, "out": "out"}))
                seen["bad_site"] = _data(await client.call_tool("studio_start", {"problem": "flood", "lat": 95,
                                                                                  "lon": 0}))
                seen["no_study"] = _data(await client.call_tool("studio_approve", {}))
                seen["missing"] = _data(await client.call_tool("studio_say", {"text": "hi", "study_id": "st-nope"}))
                seen["bad_playbook"] = _data(await client.call_tool("describe_playbook", {"playbook_id": "nope"}))
                plan = _data(await client.call_tool("solve_plan", {"problem": "Design flow, 100-year", "lat": 41.10,
                                                                   "lon": -74.96}))
                seen["run"] = _data(await client.call_tool("solve_run", {"study": plan["study"]}))
        return seen

    seen = anyio.run(drive)
    assert set(seen["names"]) == {"assess_site", "list_playbooks", "describe_playbook", "solve_plan", "solve_run",
                                  "studio_start", "studio_say", "studio_approve", "studio_follow_up", "studio_narrate",
                                  "studio_context", "studio_export"}
    assert any(p["id"] == "flood_risk" for p in seen["playbooks"]["playbooks"])
    assert seen["start"]["reply"]["kind"] == "data_request" and seen["start"]["status"] == "waiting"
    assert "DRNAREA (mi^2)" in seen["start"]["reply"]["text"] and "StreamStats" in seen["start"]["reply"]["text"]
    assert seen["without"]["reply"]["kind"] == "plan" and seen["without"]["status"] == "review"
    assert "workspace" not in seen["start"]
    assert seen["context"]["role"] == "methodologist" and seen["context"]["system"]
    assert seen["approve"]["reply"]["kind"] == "report" and "138 m3/s" in seen["approve"]["reply"]["text"]
    assert seen["approve"]["workspace"]["status"] == "done"
    narrated = seen["narrate"]["reply"]["payload"]
    assert narrated["dropped"] == 1 and narrated["written_by"]["summary"] == "a reviewer"
    files = {Path(p).name for p in seen["export"]["files"]}
    assert {"report.md", "study.yaml", "workspace.json"} <= files
    md = (tmp_path / "exports" / "out" / "report.md").read_text()
    assert "The record is long." in md and "99999" not in md
    for key, arg in (("bad_site", "lat=95"), ("no_study", "study_id"), ("missing", "st-nope"), ("bad_playbook", "nope")):
        err = seen[key]
        assert set(err) == {"error", "tool", "recovery"}, key
        assert arg in err["error"] and err["recovery"], key
    assert seen["bad_site"]["tool"] == "studio_start"
    assert seen["run"]["ok"] is True


@pytest.mark.slow
@pytest.mark.server
def test_stdout_carries_only_the_protocol(tmp_path):
    import subprocess

    env = {**os.environ, "AQUASCOPE_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "t", "version": "0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "assess_site", "arguments": {"lat": 41.10, "lon": -74.96}}}]
    import select
    import time

    proc = subprocess.Popen([sys.executable, "-m", "graphs.cli", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env)
    replies = []
    try:
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in msgs))
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(r.get("id") == 2 for r in replies):
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if ready:
                line = proc.stdout.readline()
                if not line:
                    break
                if line.strip():
                    replies.append(json.loads(line))  # every line is a JSON-RPC message
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert [r.get("id") for r in replies] == [1, 2]
    assert "Flat Brook" in json.dumps(replies[1])
