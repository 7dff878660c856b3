"""The crew as an MCP server (mcp 2.x ``MCPServer``), served over stdio by ``aquascope mcp``.

Tools: assess_site, list_playbooks, describe_playbook, solve_plan, solve_run (the engine's faces) and
studio_start, studio_say, studio_approve, studio_follow_up, studio_narrate, studio_context, studio_export
(a study as a conversation). A studio_* tool takes the study by ``study_id`` (kept in the server's
checkpointer: SQLite by default, ``--checkpoints`` for another) or as the ``workspace`` dict a previous
call returned; each returns ``{"reply", "study_id", "status", "workspace"}``.

Errors are returned, not raised: ``{"error", "tool", "recovery"}``, the message naming the argument, the
value and the fix. Nothing but the protocol goes to stdout: logging goes to stderr, the crew runs
keyless unless a model is configured (AQUASCOPE_MODEL), and roles.model silences litellm's prints.
"""

from __future__ import annotations

import functools
import logging
import sys
from typing import Any, Callable

__all__ = ["build_server", "serve", "TOOLS"]

log = logging.getLogger(__name__)

TOOLS = ("assess_site", "list_playbooks", "describe_playbook", "solve_plan", "solve_run", "studio_start",
         "studio_say", "studio_approve", "studio_follow_up", "studio_narrate", "studio_context", "studio_export")


def _guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The tool's answer, or {"error", "tool", "recovery"} for any failure."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from aquascope_core.errors import AquascopeError

        try:
            return fn(*args, **kwargs)
        except AquascopeError as exc:
            return {"error": exc.message, "tool": fn.__name__, "recovery": exc.recovery}
        except Exception as exc:  # noqa: BLE001 - the boundary: a client gets a dict, never a traceback
            log.exception("tool %s failed", fn.__name__)
            return {"error": f"{type(exc).__name__}: {exc}", "tool": fn.__name__,
                    "recovery": "An unexpected failure; check the arguments against the tool's schema, or report it "
                                "with the study id."}

    return wrapper


class _Tools:
    """The tools over one checkpointer URL (None: the default SQLite file)."""

    def __init__(self, checkpoints: str | None = None) -> None:
        self.checkpoints = checkpoints

    # -- helpers ----------------------------------------------------------------------------------
    def _open(self, study_id: str | None, workspace: dict[str, Any] | None):
        from aquascope_core.errors import DataNotFoundError, InputError
        from graphs.studio import Studio

        if study_id:
            return Studio.resume(study_id, checkpointer=self.checkpoints)
        if isinstance(workspace, dict) and workspace.get("id"):
            try:  # a workspace this server already holds: its checkpoint is the truth
                return Studio.resume(str(workspace["id"]), checkpointer=self.checkpoints)
            except DataNotFoundError:
                pass
            s = Studio.from_dict(workspace, checkpointer=self.checkpoints)
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
    def assess_site(self, lat: float, lon: float, radius_km: float = 50.0, problem: str | None = None,
                    return_period: float | None = None) -> dict[str, Any]:
        """What exists at a point (stations, records, catchment) and which methods it can defend."""
        from aquascope_core.recon import assess_site

        return assess_site(lat, lon, radius_km=radius_km, problem=problem, return_period=return_period)

    def list_playbooks(self) -> dict[str, Any]:
        """The studies the crew can do (id, title, branches)."""
        from aquascope_core import playbooks

        return {"playbooks": playbooks.list_playbooks()}

    def describe_playbook(self, playbook_id: str) -> dict[str, Any]:
        """One playbook: intake, branches with their methodology, declines, caveats, citations."""
        from aquascope_core import playbooks

        return playbooks.describe_playbook(playbook_id)

    def solve_plan(self, problem: str, lat: float, lon: float, playbook: str | None = None,
                   intake: dict[str, Any] | None = None, radius_km: float = 50.0) -> dict[str, Any]:
        """Plan a study (no run): the study to review, or the decline with its reason."""
        from graphs.solve import solve

        res = solve({"text": problem, "playbook": playbook, "intake": intake or {}}, lat=lat, lon=lon,
                    execute=False, radius_km=radius_km)
        if res.declined:
            return {"declined": True, "reason": res.declined_reason}
        return {"declined": False, "study": res.study.to_dict(), "brief": (res.workspace or {}).get("brief")}

    def solve_run(self, study: dict[str, Any]) -> dict[str, Any]:
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
    def studio_start(self, problem: str, lat: float, lon: float, intake: dict[str, Any] | None = None,
                     playbook: str | None = None, radius_km: float = 50.0,
                     include_workspace: bool = True) -> dict[str, Any]:
        """Start a study: the crew's questions or its plan, waiting for you."""
        from aquascope_core.limits import check_brief

        check_brief(problem, what="the problem text")  # before a checkpointer is opened
        from graphs.studio import Studio

        with Studio(lat, lon, checkpointer=self.checkpoints, radius_km=radius_km) as s:
            return self._answer(s, s.say(problem, intake=intake, playbook=playbook), include_workspace)

    def studio_say(self, text: str, study_id: str | None = None, workspace: dict[str, Any] | None = None,
                   include_workspace: bool = True) -> dict[str, Any]:
        """Answer the crew's questions, ask for a change of the plan in words, or follow up a finished study."""
        from aquascope_core.limits import check_brief

        check_brief(text, what="the text")
        with self._open(study_id, workspace) as s:
            return self._answer(s, s.say(text), include_workspace)

    def studio_approve(self, study_id: str | None = None, workspace: dict[str, Any] | None = None,
                       edits: dict[str, Any] | None = None, include_workspace: bool = True) -> dict[str, Any]:
        """Approve the plan (with edits: {"steps": {id: {field: value}}}, {"drop": [ids]}, {"intake": {...}}
        or {"study": {...}}) and run it to the report."""
        with self._open(study_id, workspace) as s:
            return self._answer(s, s.approve(edits), include_workspace)

    def studio_follow_up(self, text: str, study_id: str | None = None, workspace: dict[str, Any] | None = None,
                         include_workspace: bool = True) -> dict[str, Any]:
        """After the report: a change ("redo it for the 200-year flood") is planned again for approval."""
        from aquascope_core.limits import check_brief

        check_brief(text, what="the follow-up")
        with self._open(study_id, workspace) as s:
            return self._answer(s, s.follow_up(text), include_workspace)

    def studio_context(self, role: str, study_id: str | None = None, workspace: dict[str, Any] | None = None,
                       text: str | None = None) -> dict[str, Any]:
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

    def studio_narrate(self, sections: dict[str, str], source: str, study_id: str | None = None,
                       workspace: dict[str, Any] | None = None, include_workspace: bool = False) -> dict[str, Any]:
        """Put your prose into a finished report (section id -> Markdown, or "answer"); every sentence is checked
        against the results and dropped when one of its numbers is in none."""
        with self._open(study_id, workspace) as s:
            return self._answer(s, s.narrate(sections, source=source), include_workspace)

    def studio_export(self, out: str, study_id: str | None = None,
                      workspace: dict[str, Any] | None = None) -> dict[str, Any]:
        """Write the study's files (report.md, study.yaml, workspace.json, ...) into the folder ``out``."""
        from aquascope_core.errors import InputError

        if not isinstance(out, str) or not out.strip():
            raise InputError.bad_value("out", out, "a folder path to write the files into")
        with self._open(study_id, workspace) as s:
            paths = s.export(out)
            return {"study_id": s.id, "files": [str(p) for p in paths]}


def build_server(checkpoints: str | None = None):
    """The MCPServer with every tool registered."""
    from mcp.server.mcpserver import MCPServer

    from aquascope_core import __version__

    tools = _Tools(checkpoints)
    server = MCPServer("aquascope", version=__version__,
                       instructions="A crew that does a complete hydrology study at a place: start a study with "
                                    "studio_start(problem, lat, lon), approve its plan with studio_approve(study_id), "
                                    "write the files with studio_export(out, study_id).")
    for name in TOOLS:
        method = getattr(tools, name)
        server.tool(name=name, description=(method.__doc__ or "").strip())(_guarded(method))
    return server


def serve(checkpoints: str | None = None) -> None:
    """Serve over stdio until the client closes the connection."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, force=True)
    build_server(checkpoints).run("stdio")
