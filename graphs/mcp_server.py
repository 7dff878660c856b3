"""The crew as an MCP server (mcp 2.x ``MCPServer``), served over stdio by ``aquascope mcp``.

Tools: assess_site, list_playbooks, describe_playbook, solve_plan, solve_run (the engine's faces) and
studio_start, studio_say, studio_approve, studio_follow_up, studio_narrate, studio_context, studio_export
(a study as a conversation). A studio_* tool takes the study by ``study_id`` (kept in the server's
checkpointer: SQLite by default, ``--checkpoints`` for another) or as the ``workspace`` dict a previous
call returned; each returns ``{"reply", "study_id", "status", "workspace"}``. Every parameter is described
in the tool's input schema, and each tool carries its hints (read-only, destructive, idempotent).

Errors come back as ``is_error`` results whose structured content is ``{"error", "tool", "recovery"}``, the
message naming the argument, the value and the fix; an argument the tool does not take is refused the same
way. ``studio_export`` writes only inside the export folder the operator configured (``--export-dir`` or
AQUASCOPE_EXPORT_DIR, default ``$AQUASCOPE_HOME/exports``): ``out`` is a folder name inside it, and an
absolute path or one that climbs out is refused. With ``--user`` (AQUASCOPE_USER) the server acts for that
user: the studies it starts are stamped with the name and the others are not found (graphs.owners).
Resources (a study's report and files) and prompts are in graphs.mcp_resources.

Nothing but the protocol goes to stdout: logging goes to stderr, the crew runs keyless unless a model is
configured (AQUASCOPE_MODEL), and roles.model silences litellm's prints.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
import os
import sys
from pathlib import Path
from typing import Annotated, Any, Callable

from pydantic import ConfigDict, Field

__all__ = ["build_server", "serve", "TOOLS", "export_root"]

log = logging.getLogger(__name__)

TOOLS = ("assess_site", "list_playbooks", "describe_playbook", "solve_plan", "solve_run", "studio_start",
         "studio_say", "studio_approve", "studio_follow_up", "studio_narrate", "studio_context", "studio_export")

# -- the parameters, each described once --------------------------------------------------------------
Lat = Annotated[float, Field(description="Latitude of the site in decimal degrees (WGS 84), -90 to 90.")]
Lon = Annotated[float, Field(description="Longitude of the site in decimal degrees (WGS 84), -180 to 180.")]
RadiusKm = Annotated[float, Field(description="How far from the point to look for gauges and records, in km.")]
Problem = Annotated[str, Field(description="The question in words, e.g. 'Design flow for a road crossing, 100-year'.")]
ProblemOpt = Annotated[str | None, Field(description="The question in words; narrows which methods are assessed.")]
ReturnPeriod = Annotated[float | None, Field(description="The return period of interest in years (e.g. 100).")]
PlaybookId = Annotated[str, Field(description="A playbook id from list_playbooks (e.g. 'flood_risk').")]
PlaybookOpt = Annotated[str | None, Field(description="A playbook id from list_playbooks; omit to let the crew "
                                                       "choose from the question.")]
Intake = Annotated[dict[str, Any] | None, Field(description="Answers to the playbook's intake questions, "
                                                             "question id -> value (see describe_playbook).")]
StudyDict = Annotated[dict[str, Any], Field(description="A study dict with steps: solve_plan's 'study', "
                                                         "edited or not.")]
StudyId = Annotated[str | None, Field(description="The study's id as studio_start returned it (st-...); "
                                                   "give this or workspace.")]
WorkspaceDict = Annotated[dict[str, Any] | None, Field(description="The workspace dict a previous studio_* call "
                                                                    "returned, when the study is not kept here; "
                                                                    "give this or study_id.")]
IncludeWs = Annotated[bool, Field(description="Also return the whole workspace dict (large); false keeps the "
                                               "answer to the reply, the id and the status.")]
Text = Annotated[str, Field(description="What you say to the crew: answers to its questions, a change of the "
                                         "plan in words, or a follow-up question about a finished study.")]
FollowUpText = Annotated[str, Field(description="A question about the finished study, or a change to plan again "
                                                 "(e.g. 'redo it for the 200-year flood').")]
Edits = Annotated[dict[str, Any] | None, Field(description="Changes to the plan before it runs: "
                                                            "{'steps': {id: {field: value}}}, {'drop': [ids]}, "
                                                            "{'intake': {...}} or {'study': {...}}; omit to approve "
                                                            "as planned.")]
Role = Annotated[str, Field(description="Whose context: 'consultant', 'methodologist' or 'author'.")]
ContextText = Annotated[str | None, Field(description="For consultant: the user's words; for methodologist: the "
                                                       "change asked for; unused for author.")]
Sections = Annotated[dict[str, str], Field(description="Report section id -> your Markdown (or 'answer' for a "
                                                        "follow-up's answer); sentences with unchecked numbers are "
                                                        "dropped.")]
Source = Annotated[str, Field(description="Who wrote the prose (a model's or a person's name), recorded in the "
                                           "report.")]
Out = Annotated[str, Field(description="A folder name inside the server's export folder (relative, e.g. "
                                        "'flat-brook'); absolute paths and '..' are refused.")]


def _hints(read_only: bool, destructive: bool = False, idempotent: bool = False, open_world: bool = False):
    from mcp_types import ToolAnnotations

    return ToolAnnotations(read_only_hint=read_only, destructive_hint=destructive, idempotent_hint=idempotent,
                           open_world_hint=open_world)


# read_only, destructive, idempotent (open world: assess_site may read live records when configured to)
HINTS = {
    "assess_site": (True, False, True, True), "list_playbooks": (True, False, True, False),
    "describe_playbook": (True, False, True, False), "solve_plan": (True, False, True, False),
    "solve_run": (True, False, True, False), "studio_context": (True, False, True, False),
    "studio_start": (False, False, False, False), "studio_say": (False, False, False, False),
    "studio_approve": (False, False, False, False), "studio_follow_up": (False, False, False, False),
    "studio_narrate": (False, True, True, False), "studio_export": (False, True, True, False),
}


def _error_result(err: dict[str, Any]):
    from mcp_types import CallToolResult, TextContent

    return CallToolResult(content=[TextContent(type="text", text=json.dumps(err))], structured_content=err,
                          is_error=True)


def _guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The tool's answer, or an is_error result carrying {"error", "tool", "recovery"} for any failure,
    an argument the tool does not take included."""
    accepted = list(inspect.signature(fn).parameters)

    @functools.wraps(fn)
    def wrapper(**kwargs: Any) -> Any:
        from aquascope_core.errors import AquascopeError

        unknown = sorted(set(kwargs) - set(accepted))
        if unknown:
            return _error_result({"error": f"{fn.__name__} takes no argument {', '.join(map(repr, unknown))}",
                                  "tool": fn.__name__,
                                  "recovery": f"Use only the arguments {', '.join(accepted) or '(none)'}."})
        try:
            return fn(**kwargs)
        except AquascopeError as exc:
            return _error_result({"error": exc.message, "tool": fn.__name__, "recovery": exc.recovery})
        except Exception as exc:  # noqa: BLE001 - the boundary: a client gets a dict, never a traceback
            log.exception("tool %s failed", fn.__name__)
            return _error_result({"error": f"{type(exc).__name__}: {exc}", "tool": fn.__name__,
                                  "recovery": "An unexpected failure; check the arguments against the tool's schema, "
                                              "or report it with the study id."})

    return wrapper


def _refuse_unknown(tool: Any) -> None:
    """Let the arguments a tool does not declare through to the guard (which refuses them by name) instead of
    dropping them silently, and say so in the schema (additionalProperties false)."""
    base = tool.fn_metadata.arg_model

    class Args(base):  # type: ignore[misc, valid-type]
        model_config = ConfigDict(arbitrary_types_allowed=True, extra="allow")

        def model_dump_one_level(self) -> dict[str, Any]:
            return {**super().model_dump_one_level(), **(self.model_extra or {})}

    Args.__name__ = base.__name__
    tool.fn_metadata.arg_model = Args
    tool.parameters["additionalProperties"] = False


def export_root(export_dir: str | os.PathLike[str] | None = None) -> Path:
    """The folder studio_export writes under: ``export_dir``, else AQUASCOPE_EXPORT_DIR, else
    $AQUASCOPE_HOME/exports."""
    from aquascope_core.workspace import aquascope_home

    return Path(export_dir or os.environ.get("AQUASCOPE_EXPORT_DIR") or aquascope_home() / "exports")


def confined(root: Path, out: Any) -> Path:
    """``out`` as a folder inside ``root``; an absolute path or one that leaves ``root`` is an InputError."""
    from aquascope_core.errors import InputError
    from aquascope_core.workspace import inside

    fix = f"a folder name inside the export folder {root} (for example 'my-study')"
    if not isinstance(out, str) or not out.strip() or "\x00" in out:
        raise InputError.bad_value("out", out, fix)
    if Path(out).is_absolute() or out.startswith("~"):
        raise InputError(f"out={out!r} is an absolute path; studio_export writes only inside the export folder "
                         f"{root}", argument="out", value=out, recovery=f"Give {fix}; the operator sets the folder "
                         "with --export-dir or AQUASCOPE_EXPORT_DIR.")
    root.mkdir(parents=True, exist_ok=True)
    try:
        target = inside(root, out)
    except InputError:
        raise InputError(f"out={out!r} leaves the export folder {root}", argument="out", value=out,
                         recovery=f"Give {fix}, without '..' or a link out of it.") from None
    if target == root.resolve():
        raise InputError.bad_value("out", out, fix)
    return target


class _Tools:
    """The tools over one checkpointer URL (None: the default SQLite file), one export folder and one user."""

    def __init__(self, checkpoints: str | None = None, export_dir: str | os.PathLike[str] | None = None,
                 user: str | None = None) -> None:
        self.checkpoints = checkpoints
        self.export_dir = export_root(export_dir)
        self.user = user

    # -- helpers ----------------------------------------------------------------------------------
    def _studio(self, **kwargs: Any):
        from graphs.studio import Studio

        return Studio(checkpointer=self.checkpoints, owner=self.user, **kwargs)

    def _open(self, study_id: str | None, workspace: dict[str, Any] | None):
        from aquascope_core.errors import DataNotFoundError, InputError
        from graphs.studio import Studio

        kw = {"checkpointer": self.checkpoints, "owner": self.user}
        if study_id:
            return Studio.resume(study_id, **kw)
        if isinstance(workspace, dict) and workspace.get("id"):
            try:  # a workspace this server already holds: its checkpoint is the truth
                return Studio.resume(str(workspace["id"]), **kw)
            except DataNotFoundError:
                pass
            s = Studio.from_dict(workspace, **kw)
            if s.status in ("review", "intake"):
                s._run(None)  # back to the interrupt it stood at
            return s
        raise InputError("a studio tool needs the study: study_id (from studio_start) or the workspace dict a previous "
                         "call returned", argument="study_id", value=study_id,
                         recovery="Pass study_id=... as returned by studio_start.")

    @staticmethod
    def _answer(studio: Any, reply: Any, include_workspace: bool) -> dict[str, Any]:
        out = {"reply": {"kind": reply.kind, "text": reply.text, "payload": reply.payload, "status": reply.status},
               "study_id": studio.id, "status": studio.status}
        if include_workspace:
            out["workspace"] = studio.to_dict()
        return out

    # -- the engine's faces -----------------------------------------------------------------------
    def assess_site(self, lat: Lat, lon: Lon, radius_km: RadiusKm = 50.0, problem: ProblemOpt = None,
                    return_period: ReturnPeriod = None) -> dict[str, Any]:
        """What exists at a point (stations, records, catchment) and which methods it can defend."""
        from aquascope_core.recon import assess_site

        return assess_site(lat, lon, radius_km=radius_km, problem=problem, return_period=return_period)

    def list_playbooks(self) -> dict[str, Any]:
        """The studies the crew can do (id, title, branches)."""
        from aquascope_core import playbooks

        return {"playbooks": playbooks.list_playbooks()}

    def describe_playbook(self, playbook_id: PlaybookId) -> dict[str, Any]:
        """One playbook: intake, branches with their methodology, declines, caveats, citations."""
        from aquascope_core import playbooks

        return playbooks.describe_playbook(playbook_id)

    def solve_plan(self, problem: Problem, lat: Lat, lon: Lon, playbook: PlaybookOpt = None,
                   intake: Intake = None, radius_km: RadiusKm = 50.0) -> dict[str, Any]:
        """Plan a study (no run): the study to review, or the decline with its reason."""
        from graphs.solve import solve

        res = solve({"text": problem, "playbook": playbook, "intake": intake or {}}, lat=lat, lon=lon,
                    execute=False, radius_km=radius_km)
        if res.declined:
            return {"declined": True, "reason": res.declined_reason}
        return {"declined": False, "study": res.study.to_dict(), "brief": (res.workspace or {}).get("brief")}

    def solve_run(self, study: StudyDict) -> dict[str, Any]:
        """Run a study (a study dict from solve_plan, edited or not) with no model: results and gates per step."""
        from aquascope_core.errors import InputError
        from aquascope_core.runner import run_study
        from aquascope_core.study import Study

        if not isinstance(study, dict) or not study.get("steps"):
            raise InputError.bad_value("study", study, "a study dict with steps (solve_plan's 'study')")
        from aquascope_core.catalogue import type_errors

        parsed = Study.from_dict(study)
        wrong = type_errors(parsed)  # before any step runs
        if wrong:
            raise InputError("; ".join(wrong[:3]) + (f" (and {len(wrong) - 3} more)" if len(wrong) > 3 else ""),
                             argument="study", recovery="Fix the values named (types, bounds, gates).")
        return run_study(parsed).to_dict()

    # -- the study as a conversation ----------------------------------------------------------------
    def studio_start(self, problem: Problem, lat: Lat, lon: Lon, intake: Intake = None,
                     playbook: PlaybookOpt = None, radius_km: RadiusKm = 50.0,
                     include_workspace: IncludeWs = True) -> dict[str, Any]:
        """Start a study: the crew's questions or its plan, waiting for you."""
        from aquascope_core.limits import check_brief

        check_brief(problem, what="the problem text")  # before a checkpointer is opened
        with self._studio(lat=lat, lon=lon, radius_km=radius_km) as s:
            return self._answer(s, s.say(problem, intake=intake, playbook=playbook), include_workspace)

    def studio_say(self, text: Text, study_id: StudyId = None, workspace: WorkspaceDict = None,
                   include_workspace: IncludeWs = True) -> dict[str, Any]:
        """Answer the crew's questions or its data request (the values in words, or "continue without"), ask for a
        change of the plan in words, or follow up a finished study."""
        from aquascope_core.limits import check_brief

        check_brief(text, what="the text")
        with self._open(study_id, workspace) as s:
            return self._answer(s, s.say(text), include_workspace)

    def studio_approve(self, study_id: StudyId = None, workspace: WorkspaceDict = None, edits: Edits = None,
                       include_workspace: IncludeWs = True) -> dict[str, Any]:
        """Approve the plan (with edits: {"steps": {id: {field: value}}}, {"drop": [ids]}, {"intake": {...}}
        or {"study": {...}}) and run it to the report."""
        with self._open(study_id, workspace) as s:
            return self._answer(s, s.approve(edits), include_workspace)

    def studio_follow_up(self, text: FollowUpText, study_id: StudyId = None, workspace: WorkspaceDict = None,
                         include_workspace: IncludeWs = True) -> dict[str, Any]:
        """After the report: a question is answered from the results, a change ("redo it for the 200-year flood")
        is planned again for approval."""
        from aquascope_core.limits import check_brief

        check_brief(text, what="the follow-up")
        with self._open(study_id, workspace) as s:
            return self._answer(s, s.follow_up(text), include_workspace)

    def studio_context(self, role: Role, study_id: StudyId = None, workspace: WorkspaceDict = None,
                       text: ContextText = None) -> dict[str, Any]:
        """What a role's model would read (system prompt, reply schema, context) for a client that runs its own
        model: role consultant (with ``text``), methodologist (``text``: a change asked for) or author."""
        from aquascope_core.errors import InputError

        if role not in ("consultant", "methodologist", "author"):
            raise InputError.bad_value("role", role, "consultant, methodologist or author")
        with self._open(study_id, workspace) as s:
            if role == "consultant":
                return s.consultant_context(text or s.workspace().request.get("text") or "")
            if role == "methodologist":
                return s.methodologist_context(text)
            return s.author_context()

    def studio_narrate(self, sections: Sections, source: Source, study_id: StudyId = None,
                       workspace: WorkspaceDict = None, include_workspace: IncludeWs = False) -> dict[str, Any]:
        """Put your prose into a finished report (section id -> Markdown, or "answer"); every sentence is checked
        against the results and dropped when one of its numbers is in none."""
        with self._open(study_id, workspace) as s:
            return self._answer(s, s.narrate(sections, source=source), include_workspace)

    def studio_export(self, out: Out, study_id: StudyId = None,
                      workspace: WorkspaceDict = None) -> dict[str, Any]:
        """Write the study's files (report.md, study.yaml, workspace.json, ...) into the folder ``out`` inside the
        server's export folder; returns the paths written."""
        dest = confined(self.export_dir, out)
        with self._open(study_id, workspace) as s:
            paths = s.export(dest)
            return {"study_id": s.id, "folder": str(dest), "files": [str(p) for p in paths]}


def build_server(checkpoints: str | None = None, export_dir: str | os.PathLike[str] | None = None,
                 user: str | None = None):
    """The MCPServer with every tool, resource and prompt registered."""
    from mcp.server.mcpserver import MCPServer

    from aquascope_core import __version__
    from graphs.mcp_resources import register

    tools = _Tools(checkpoints, export_dir, user or os.environ.get("AQUASCOPE_USER") or None)
    server = MCPServer("aquascope", version=__version__,
                       instructions="A crew that does a complete hydrology study at a place: start a study with "
                                    "studio_start(problem, lat, lon), approve its plan with studio_approve(study_id), "
                                    "write the files with studio_export(out, study_id) or read them as the "
                                    "study's resources.")
    for name in TOOLS:
        method = getattr(tools, name)
        server.tool(name=name, description=inspect.cleandoc(method.__doc__ or ""),
                    annotations=_hints(*HINTS[name]))(_guarded(method))
        _refuse_unknown(server._tool_manager.get_tool(name))
    register(server, tools)
    return server


def serve(checkpoints: str | None = None, export_dir: str | None = None, user: str | None = None) -> None:
    """Serve over stdio until the client closes the connection."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, force=True)
    build_server(checkpoints, export_dir, user).run("stdio")
