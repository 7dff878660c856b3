"""The MCP server's resources and prompts (registered by graphs.mcp_server.build_server).

Resources, read-only, for the user the server acts for:
- ``aquascope://studies``: the studies (id, status, site, question), JSON;
- ``aquascope://studies/{study_id}/report``: the study's report as Markdown;
- ``aquascope://studies/{study_id}/files/{name}``: one of its files (report.html, workbook.xlsx, study.yaml, ...),
  as listed in the workspace's artifacts; ``aquascope://studies/{study_id}/files`` lists them.

Prompts: ``study_at_a_place`` (a study from a question and a point, through the tools in order) and
``review_the_plan`` (what to check in a plan waiting for approval).
"""

from __future__ import annotations

import functools
import json
import tempfile
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

__all__ = ["register"]

_TEXT = (".md", ".yaml", ".yml", ".json", ".csv", ".txt", ".html", ".ipynb", ".svg")


def _files(tools: Any, study_id: str) -> tuple[list[dict[str, Any]], Any]:
    s = tools._open(study_id, None)
    return s.workspace().artifacts, s


def _read(tools: Any, study_id: str, name: str) -> bytes:
    from aquascope_core.errors import DataNotFoundError
    from aquascope_core.workspace import ArtifactStore

    refs, studio = _files(tools, study_id)
    with studio:
        by_name = {r.get("name"): r for r in refs}
        if name not in by_name and name not in ("study.yaml", "workspace.json"):
            raise DataNotFoundError(f"study {study_id} has no file {name!r}", argument="name", value=name,
                                    recovery=f"Read aquascope://studies/{study_id}/files for its files "
                                             f"({', '.join(sorted(n for n in by_name if n)) or 'none yet'}).")
        if name in by_name:
            for root in dict.fromkeys(r for r in (studio.context.artifact_root, studio.artifact_root) if r):
                try:
                    return ArtifactStore(root).get(by_name[name])
                except DataNotFoundError:
                    continue
        with tempfile.TemporaryDirectory() as tmp:  # not in this process's store: made again from the checkpoint
            for path in studio.export(tmp):
                if Path(path).name == name:
                    return Path(path).read_bytes()
    raise DataNotFoundError(f"study {study_id}'s file {name!r} could not be made again", argument="name", value=name,
                            recovery="Export the study with studio_export and read the folder.")


def register(server: Any, tools: Any) -> None:
    """Register the resources and prompts on ``server`` over the studio tools ``tools``."""
    from mcp.server.mcpserver.exceptions import ResourceError

    from aquascope_core.errors import AquascopeError

    def guarded(fn):
        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except AquascopeError as exc:  # a protocol error naming the problem and the fix
                raise ResourceError(f"{exc.message} ({exc.recovery})") from None
        return call

    @server.resource("aquascope://studies", name="studies", mime_type="application/json",
                     description="The studies kept by this server for its user: id, status, site, question.")
    @guarded
    def studies() -> str:
        from graphs.checkpoint import open_checkpointer
        from graphs.graph import compile_graph
        from graphs.studies import list_studies

        with open_checkpointer(tools.checkpoints) as saver:
            return json.dumps(list_studies(saver, compile_graph(saver), limit=200, owner=tools.user))

    @server.resource("aquascope://studies/{study_id}/report", name="report", mime_type="text/markdown",
                     description="A finished study's report as Markdown.")
    @guarded
    def report(study_id: str) -> str:
        return _read(tools, study_id, "report.md").decode("utf-8")

    @server.resource("aquascope://studies/{study_id}/files", name="files", mime_type="application/json",
                     description="A study's files: name, media type, size and caption of each.")
    @guarded
    def files(study_id: str) -> str:
        refs, studio = _files(tools, study_id)
        with studio:
            return json.dumps([{k: r.get(k) for k in ("name", "media_type", "size", "caption", "kind")} for r in refs])

    @server.resource("aquascope://studies/{study_id}/files/{name}", name="file",
                     description="One of a study's files by name (text for Markdown, YAML, JSON, CSV, HTML; bytes "
                                 "for the rest).")
    @guarded
    def file(study_id: str, name: str) -> str | bytes:
        data = _read(tools, study_id, name)
        return data.decode("utf-8") if name.lower().endswith(_TEXT) else data

    @server.prompt(name="study_at_a_place", title="A hydrology study at a place",
                   description="Run a complete study from a question and a point, reviewing the plan before it runs.")
    def study_at_a_place(problem: Annotated[str, Field(description="The question in words.")],
                         lat: Annotated[str, Field(description="Latitude of the site, decimal degrees.")],
                         lon: Annotated[str, Field(description="Longitude of the site, decimal degrees.")]) -> str:
        return (f"Do a hydrology study for this question: {problem!r} at latitude {lat}, longitude {lon}.\n"
                "1. Call studio_start(problem, lat, lon, include_workspace=false). If the reply asks questions, "
                "answer them with studio_say(text, study_id).\n"
                "2. When the reply is a plan, show it to me and wait for my approval or changes; then call "
                "studio_approve(study_id, edits) with my changes, if any.\n"
                "3. Read the report from the resource aquascope://studies/{study_id}/report and summarise it, "
                "quoting only numbers that appear in it.")

    @server.prompt(name="review_the_plan", title="Review a study's plan",
                   description="What to check in a plan that waits for approval before approving it.")
    def review_the_plan(study_id: Annotated[str, Field(description="The id of the study waiting for approval.")]
                        ) -> str:
        return (f"Study {study_id} waits for approval. Call studio_context(role='methodologist', study_id="
                f"'{study_id}') and check: the method fits the question and the record; the gauge and its record "
                "length; the return periods asked for; the declines and caveats. Propose edits in the shape "
                "studio_approve takes ({'steps': {id: {field: value}}} or {'drop': [ids]}), or approve as planned.")
