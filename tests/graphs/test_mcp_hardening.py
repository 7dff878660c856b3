"""The MCP server's faces hold no holes, driven over stdio by the real mcp client: every parameter described,
every tool with its hints, an unknown argument and a domain failure both is_error results carrying
{error, tool, recovery}, studio_export confined to the export folder (absolute, climbing and linked paths
refused, nothing written outside), resources (the studies, a report, a file) and prompts served, and two
servers started for two users on one checkpointer each seeing only their own studies."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PROBLEM = "Design flow for a road crossing, 100-year"


def _params(tmp_path: Path, *extra: str) -> StdioServerParameters:
    env = {**os.environ, "AQUASCOPE_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    env.pop("AQUASCOPE_USER", None)
    env.pop("AQUASCOPE_EXPORT_DIR", None)
    return StdioServerParameters(command=sys.executable, env=env, cwd=str(tmp_path),
                                 args=["-m", "graphs.cli", "mcp", "--export-dir", str(tmp_path / "exports"), *extra])


def _files_under(folder: Path) -> set[str]:
    return {str(p) for p in folder.rglob("*")} if folder.exists() else set()


@pytest.mark.slow
@pytest.mark.server
def test_schemas_hints_errors_export_folder_resources_and_prompts(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "exports").mkdir()
    os.symlink(outside, tmp_path / "exports" / "link")  # a link out of the export folder

    async def drive() -> dict:
        seen: dict = {}
        with anyio.fail_after(180):
            async with Client(_params(tmp_path)) as c:
                seen["tools"] = (await c.list_tools()).tools
                seen["unknown"] = await c.call_tool("studio_start", {"problem": PROBLEM, "lat": 41.10, "lon": -74.96,
                                                                     "out_dir": "/tmp/x"})
                seen["domain"] = await c.call_tool("describe_playbook", {"playbook_id": "nope"})
                start = await c.call_tool("studio_start", {"problem": PROBLEM, "lat": 41.10, "lon": -74.96,
                                                           "include_workspace": False})
                sid = start.structured_content["study_id"]
                seen["sid"] = sid
                # the basin characteristics the crew asks for: gone on without them, then the plan approved
                await c.call_tool("studio_say", {"text": "continue without", "study_id": sid,
                                                 "include_workspace": False})
                await c.call_tool("studio_approve", {"study_id": sid, "include_workspace": False})
                for out in (str(outside / "abs"), "../outside/climb", "a/../../outside/x", "link/y", "~/x", ""):
                    seen[f"export {out}"] = await c.call_tool("studio_export", {"study_id": sid, "out": out})
                seen["export ok"] = await c.call_tool("studio_export", {"study_id": sid, "out": "flat-brook"})
                seen["resources"] = [str(r.uri) for r in (await c.list_resources()).resources]
                seen["templates"] = [t.uri_template for t in (await c.list_resource_templates()).resource_templates]
                seen["studies"] = json.loads((await c.read_resource("aquascope://studies")).contents[0].text)
                seen["report"] = (await c.read_resource(f"aquascope://studies/{sid}/report")).contents[0].text
                seen["study.yaml"] = (await c.read_resource(f"aquascope://studies/{sid}/files/study.yaml")
                                      ).contents[0].text
                seen["listing"] = json.loads((await c.read_resource(f"aquascope://studies/{sid}/files")
                                              ).contents[0].text)
                try:
                    await c.read_resource(f"aquascope://studies/{sid}/files/nope.txt")
                except Exception as exc:  # noqa: BLE001 - the protocol error is what is checked
                    seen["no file"] = str(exc)
                seen["prompts"] = {p.name: p for p in (await c.list_prompts()).prompts}
                seen["prompt"] = await c.get_prompt("study_at_a_place", {"problem": PROBLEM, "lat": "41.1",
                                                                         "lon": "-74.96"})
        return seen

    seen = anyio.run(drive)
    tools = {t.name: t for t in seen["tools"]}
    for name, tool in tools.items():
        assert tool.description, name
        assert tool.input_schema.get("additionalProperties") is False, name
        for prop, schema in tool.input_schema.get("properties", {}).items():
            assert schema.get("description"), f"{name}.{prop} has no description"
        a = tool.annotations
        assert a is not None and None not in (a.read_only_hint, a.destructive_hint, a.idempotent_hint), name
    assert tools["list_playbooks"].annotations.read_only_hint is True
    assert tools["studio_start"].annotations.read_only_hint is False
    assert tools["studio_export"].annotations.destructive_hint is True
    assert tools["studio_export"].annotations.idempotent_hint is True

    for key, must in (("unknown", "out_dir"), ("domain", "nope")):
        res = seen[key]
        assert res.is_error is True, key
        err = res.structured_content
        assert set(err) == {"error", "tool", "recovery"} and must in err["error"] and err["recovery"], key
        assert json.loads(res.content[0].text) == err
    assert seen["unknown"].structured_content["tool"] == "studio_start"

    for out in (str(outside / "abs"), "../outside/climb", "a/../../outside/x", "link/y", "~/x", ""):
        res = seen[f"export {out}"]
        assert res.is_error is True, out
        err = res.structured_content
        assert "out" in err["error"] and str(tmp_path / "exports") in err["error"] + err["recovery"], out
    assert _files_under(outside) == set()
    ok = seen["export ok"].structured_content
    assert seen["export ok"].is_error is False
    assert all(Path(p).resolve().is_relative_to((tmp_path / "exports" / "flat-brook").resolve()) for p in ok["files"])

    assert seen["resources"] == ["aquascope://studies"]
    assert set(seen["templates"]) == {"aquascope://studies/{study_id}/report", "aquascope://studies/{study_id}/files",
                                      "aquascope://studies/{study_id}/files/{name}"}
    assert [r["id"] for r in seen["studies"]] == [seen["sid"]] and seen["studies"][0]["status"] == "done"
    exported = (tmp_path / "exports" / "flat-brook" / "report.md").read_text()
    assert seen["report"] == exported and "138 m3/s" in seen["report"]
    assert seen["study.yaml"] == (tmp_path / "exports" / "flat-brook" / "study.yaml").read_text()
    assert "report.md" in {f["name"] for f in seen["listing"]}
    assert "nope.txt" in seen["no file"] and "report.md" in seen["no file"]
    assert set(seen["prompts"]) == {"study_at_a_place", "review_the_plan"}
    assert all(a.description for p in seen["prompts"].values() for a in p.arguments or [])
    assert PROBLEM in seen["prompt"].messages[0].content.text


@pytest.mark.slow
@pytest.mark.server
def test_two_users_see_only_their_own_studies(tmp_path):
    async def drive() -> dict:
        seen: dict = {}
        with anyio.fail_after(180):
            async with Client(_params(tmp_path, "--user", "alice")) as alice:
                start = await alice.call_tool("studio_start", {"problem": PROBLEM, "lat": 41.10, "lon": -74.96,
                                                               "include_workspace": False})
                seen["sid"] = sid = start.structured_content["study_id"]
                seen["alice studies"] = json.loads((await alice.read_resource("aquascope://studies")).contents[0].text)
            async with Client(_params(tmp_path, "--user", "bob")) as bob:
                seen["bob studies"] = json.loads((await bob.read_resource("aquascope://studies")).contents[0].text)
                seen["bob approve"] = await bob.call_tool("studio_approve", {"study_id": sid})
                seen["bob say"] = await bob.call_tool("studio_say", {"text": "use 200-year", "study_id": sid})
                seen["bob export"] = await bob.call_tool("studio_export", {"study_id": sid, "out": "stolen"})
                seen["bob context"] = await bob.call_tool("studio_context", {"role": "author", "study_id": sid})
                try:
                    await bob.read_resource(f"aquascope://studies/{sid}/files/study.yaml")
                except Exception as exc:  # noqa: BLE001
                    seen["bob read"] = str(exc)
            async with Client(_params(tmp_path, "--user", "alice")) as alice:
                await alice.call_tool("studio_say", {"text": "continue without", "study_id": sid,
                                                     "include_workspace": False})
                seen["alice approve"] = await alice.call_tool("studio_approve", {"study_id": sid,
                                                                                 "include_workspace": False})
        return seen

    seen = anyio.run(drive)
    sid = seen["sid"]
    assert [r["id"] for r in seen["alice studies"]] == [sid]
    assert seen["bob studies"] == []
    for key in ("bob approve", "bob say", "bob export", "bob context"):
        res = seen[key]
        assert res.is_error is True and sid in res.structured_content["error"], key
    assert sid in seen["bob read"]
    assert not (tmp_path / "exports" / "stolen").exists()
    assert seen["alice approve"].is_error is False
    assert seen["alice approve"].structured_content["status"] == "done"
