"""The Python API: a study as a conversation with the crew, checkpointed at every step.

    s = Studio(lat=41.10, lon=-74.96)                      # keyless unless model= is given
    r = s.say("Design flow for a road crossing, 100-year")  # -> Reply(kind="plan", ...) (or "questions")
    r = s.approve()                                        # runs the Analysts, Interpreter, Critic, Author
    paths = s.export("out/")                               # the report (md, html, docx), workbook, notebook, zip
    s2 = Studio.resume(s.id)                               # the same study from another process

Every method returns a :class:`Reply` (kind: questions, plan, report, answer, declined; text;
payload) and leaves the checkpoint consistent, so a face can stop anywhere and resume.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from langgraph.types import Command

from aquascope_core.data.base import validate_point
from aquascope_core.errors import DataNotFoundError, InputError, StudyError
from aquascope_core.limits import check_brief
from aquascope_core.study import Study
from aquascope_core.textsafe import clean_text
from aquascope_core.workspace import ArtifactStore, Workspace, aquascope_home, new_study_id, validate_study_id
from graphs.checkpoint import describe, open_checkpointer
from graphs.context import CrewContext
from graphs.graph import compile_graph
from graphs.owners import owned_config, owns
from graphs.state import STATE_KEYS
from graphs.studies import lease
from roles.model import hold_key, is_key_reference

__all__ = ["Studio", "Reply"]

log = logging.getLogger(__name__)

# Where update_state must pretend to be so the graph resumes at the right place (from_dict).
_RESUME_AS = {"review": "methodologist", "intake": "consultant", "done": "author", "declined": "author"}


def _entry(name: str, content: Any, **options: Any) -> dict[str, Any]:
    from pathlib import Path as _Path

    from aquascope_core.tools.context import table_entry

    if isinstance(content, str) and "\n" not in content and _Path(content).is_file():
        content = _Path(content)
    return table_entry(name, content, **options)


@dataclass
class Reply:
    kind: str  # questions | plan | report | answer | declined
    text: str
    payload: dict[str, Any] = field(default_factory=dict)
    status: str = ""
    study_id: str = ""


class Studio:
    """One study with the crew; see the module docstring."""

    def __init__(self, lat: float | None = None, lon: float | None = None, *, study_id: str | None = None,
                 model: Any = None, role_models: Mapping[str, Any] | None = None, api_key: str | None = None,
                 base_url: str | None = None, timeout: float | None = None, live: bool = False,
                 radius_km: float = 50.0, data: Mapping[str, Any] | None = None,
                 live_options: Mapping[str, Mapping[str, Any]] | None = None, checkpointer: Any = None,
                 artifact_root: str | Path | None = None, on_event: Callable[[dict[str, Any]], None] | None = None,
                 out: str | Path | None = None, max_usd: float | None = None, api_key_env: str | None = None,
                 owner: str | None = None) -> None:
        self.id = validate_study_id(study_id) if study_id is not None else new_study_id()
        self.max_usd = float(max_usd) if max_usd is not None else None
        self.site = None
        if lat is not None or lon is not None:
            la, lo = validate_point(lat, lon)
            self.site = {"lat": la, "lon": lo}
        self.radius_km = float(radius_km)
        self.live = bool(live)
        self.out = str(out) if out else None
        self.on_event = on_event
        self._checkpointer_url = checkpointer if isinstance(checkpointer, str) or checkpointer is None else None
        self._stack = contextlib.ExitStack()
        saver = checkpointer if checkpointer is not None and not isinstance(checkpointer, str) else \
            self._stack.enter_context(open_checkpointer(checkpointer))
        self.graph = compile_graph(saver)
        self.owner = owner
        self.config = owned_config(self.id, owner)
        self.artifact_root = str(artifact_root) if artifact_root else str(aquascope_home() / "studies" / self.id / "artifacts")
        if api_key and not is_key_reference(api_key):
            api_key = hold_key(api_key)  # the key stays in this process's memory; the context names it
        key_ref = api_key or (f"env:{api_key_env}" if api_key_env else None)
        self.context = CrewContext(model=model, role_models=dict(role_models or {}), key_ref=key_ref,
                                   base_url=base_url,
                                   timeout=timeout, artifact_root=self.artifact_root, live=live,
                                   live_options=dict(live_options or {}))
        # the user's tables are read once here, so an unreadable one is refused before anything runs
        self._tables = {name: _entry(name, content) for name, content in (data or {}).items()}

    # -- lifecycle ------------------------------------------------------------------------------
    def close(self) -> None:
        self._stack.close()

    def __enter__(self) -> "Studio":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @classmethod
    def resume(cls, study_id: str, **kwargs: Any) -> "Studio":
        """The study ``study_id`` from its checkpoint (any process, same checkpointer)."""
        s = cls(study_id=study_id, **kwargs)
        snap = s.graph.get_state(s.config)
        if not snap.values and not snap.next or not owns(s.owner, snap):  # a study killed right after its input still has its first checkpoint
            where = describe(kwargs.get("checkpointer") if isinstance(kwargs.get("checkpointer"), str) else None)
            s.close()
            raise DataNotFoundError(f"no study {study_id!r} in the checkpoints at {where}", argument="study_id",
                                    value=study_id, recovery="Check the id (it is printed when a study starts) and "
                                    "AQUASCOPE_HOME / --checkpoints, which must point where the study was started.")
        ws = s.workspace()  # empty when only the input was checkpointed; proceed() reads the rest
        s.site = ws.site or None
        s.out = s.out or ws.request.get("out")
        return s

    @classmethod
    def from_dict(cls, workspace: Mapping[str, Any], **kwargs: Any) -> "Studio":
        """A Studio from a workspace dict (to_dict, workspace.json), resumable where it stood."""
        ws = Workspace.from_dict(workspace)
        if ws.status not in _RESUME_AS:
            raise StudyError(f"a workspace with status {ws.status!r} is mid-run and cannot be restarted from a dict; "
                             "resume it from its checkpoint (Studio.resume) instead")
        s = cls(study_id=ws.id, **kwargs)
        s.site = ws.site
        s.graph.update_state(s.config, ws.to_dict(), as_node=_RESUME_AS[ws.status])
        return s

    # -- state ----------------------------------------------------------------------------------
    def _snapshot(self):
        return self.graph.get_state(self.config)

    def workspace(self) -> Workspace:
        values = self._snapshot().values or {}
        return Workspace.from_dict({k: v for k, v in values.items() if k in STATE_KEYS and v is not None})

    def to_dict(self) -> dict[str, Any]:
        return self.workspace().to_dict()

    @property
    def status(self) -> str:
        return (self._snapshot().values or {}).get("status", "new")

    def pending(self) -> str | None:
        """The action the crew waits for: 'answer_questions', 'approve_plan' or None."""
        snap = self._snapshot()
        for intr in getattr(snap, "interrupts", ()) or ():
            value = intr.value[0] if isinstance(intr.value, list) else intr.value
            return (value.get("action_request") or {}).get("action")
        return None

    # -- the conversation -----------------------------------------------------------------------
    def _run(self, inp: Any) -> Reply:
        # durability "sync": a node's checkpoint is on disk before the next node starts, so a kill at any
        # point loses at most the node that was running; the lease tells `aquascope studies` we are alive.
        with lease(self.id):
            for chunk in self.graph.stream(inp, self.config, context=self.context, stream_mode="custom",
                                           durability="sync"):
                if self.on_event is not None and isinstance(chunk, Mapping):
                    self.on_event(dict(chunk))
        return self._reply()

    def mid_run(self) -> bool:
        """True when the last checkpoint has nodes still to run and nothing waits for the user (a killed run)."""
        snap = self._snapshot()
        # a node that finished just before the kill has its writes saved but no checkpoint after it: LangGraph then
        # lists no next node, but the task with its writes is still there, and continuing applies them and goes on
        return (bool(snap.next) or bool(getattr(snap, "tasks", ()))) and self.pending() is None

    def proceed(self) -> Reply:
        """Continue from the last checkpoint whatever it holds: a run stopped mid-way (a kill, a crash) goes on
        from the node it stopped in; a study waiting for answers or approval, or finished, is reported as it is."""
        if self.mid_run():
            reply = self._run(None)
            ws = self.workspace()
            self.site = self.site or ws.site or None
            self.out = self.out or ws.request.get("out")
            return reply
        return self._reply()

    def _reply(self) -> Reply:
        snap = self._snapshot()
        values = snap.values or {}
        status = values.get("status", "")
        for intr in getattr(snap, "interrupts", ()) or ():
            value = intr.value[0] if isinstance(intr.value, list) else intr.value
            action = (value.get("action_request") or {}).get("action")
            if action == "answer_questions":
                return Reply("questions", value.get("description", ""),
                             {"questions": (values.get("brief") or {}).get("questions") or []}, status, self.id)
            if action == "provide_data":
                req = values.get("pending_request") or {}
                return Reply("data_request", value.get("description", ""), {"request": req}, status, self.id)
            if action == "approve_plan":
                msgs = [m for m in values.get("messages") or [] if m.get("kind") in ("plan", "plan_errors")]
                text = "\n\n".join(m["text"] for m in msgs[-2:] if m is not None) if msgs and msgs[-1]["kind"] == "plan_errors" \
                    else (msgs[-1]["text"] if msgs else value.get("description", ""))
                return Reply("plan", text, {"study": values.get("study"),
                                            "plan_errors": (msgs[-1].get("payload") or {}).get("errors")
                                            if msgs and msgs[-1]["kind"] == "plan_errors" else []}, status, self.id)
        report = values.get("report") or {}
        if status == "declined":
            reason = (values.get("brief") or {}).get("declined_reason") or report.get("answer") or "declined"
            return Reply("declined", reason, {"report": report.get("title")}, status, self.id)
        if status == "done":
            return Reply("report", report.get("answer", ""), {"title": report.get("title"),
                                                              "critique_ok": report.get("critique_ok"),
                                                              "artifacts": [a["name"] for a in values.get("artifacts") or []]},
                         status, self.id)
        last = (values.get("messages") or [{}])[-1]
        return Reply(last.get("kind", "answer"), last.get("text", ""), {}, status, self.id)

    def say(self, text: str, *, intake: Mapping[str, Any] | None = None, playbook: str | None = None,
            proposed: Mapping[str, Any] | None = None) -> Reply:
        """Start the study with the problem text, answer the crew's questions, or ask for a change.

        ``proposed`` is the brief a face's own model wrote from :meth:`consultant_context` (``{"brief": {"intake":
        ..., "questions": [...]}, "source": "device"}``): coerced like the crew's own model reply."""
        if not isinstance(text, str) or not text.strip():
            raise InputError("The problem text is empty: describe the question, for example "
                             "\"Design flow for a road crossing, 100-year\".", argument="text", value=text)
        text = clean_text(check_brief(text, what="the problem text"))
        snap = self._snapshot()
        if not snap.values:
            if self.site is None:
                raise InputError("a new study needs a site: Studio(lat=..., lon=...)", argument="lat")
            request = {"text": text, "radius_km": self.radius_km, "live": self.live}
            if intake:
                request["intake"] = dict(intake)
            if playbook:
                request["playbook"] = playbook
            if self.out:
                request["out"] = self.out
            if proposed is not None:
                request["proposed_brief"] = dict(proposed)
            if self.max_usd is not None:
                request["max_usd"] = self.max_usd
            return self._run({"id": self.id, "site": self.site, "request": request, "status": "intake",
                              "tables": dict(self._tables),
                              "messages": [{"role": "user", "kind": "text", "text": text}]})
        pending = self.pending()
        if pending in ("answer_questions", "approve_plan", "provide_data"):
            return self._run(Command(resume={"type": "response", "args": text}))
        if snap.values.get("status") in ("done", "declined"):
            return self.follow_up(text)
        raise StudyError(f"the study is {snap.values.get('status')!r} and waits for nothing; resume it to continue")

    def add_table(self, name: str, content: Any, **options: Any) -> dict[str, Any]:
        """Add a table (a path, bytes, CSV text or a DataFrame) at any point; returns what was read from it.

        Before the study starts it joins the brief; later it joins the workspace and the next plan or
        follow-up uses it (the original is kept verbatim in ``tables``)."""
        entry = _entry(name, content, **options)
        if not self._snapshot().values:
            self._tables[name] = entry
        else:
            tables = {**(self._snapshot().values.get("tables") or {}), name: entry}
            if self.pending() == "provide_data":  # the table the crew asked for: inventory it and plan again
                self._run(Command(resume={"type": "response", "args": f"table added: {name}"}, update={"tables": tables}))
            else:
                self.graph.update_state(self.config, {"tables": tables})
        return entry

    def reply(self) -> Reply:
        """What the crew says now: the questions, the plan, a data request, the report or the decline."""
        return self._reply()

    def approve(self, edits: Mapping[str, Any] | None = None, *, plan: Mapping[str, Any] | None = None,
                by: str | None = None) -> Reply:
        """Approve the plan (with edits: ``{"steps": {id: {field: value}}}``, ``{"drop": [ids]}`` or ``{"study": {...}}``).

        ``by`` names the reviewer (else AQUASCOPE_REVIEWER, else "reviewer") in the study's recorded decisions.
        ``plan`` is a plan a face's own model wrote in the Methodologist's reply shape (see
        :meth:`methodologist_context`): validated, its not-defensible or invalid steps pruned, the crew's plan kept
        when nothing valid remains; the reply's payload says ``plan_used`` ("proposed" or "tree") and ``plan_errors``.
        """
        if self.mid_run():  # a run killed before the plan reached the user (or after it was approved)
            reply = self.proceed()
            if self.pending() is None:
                return reply
        pending = self.pending()
        if pending == "answer_questions":
            self._run(Command(resume={"type": "accept"}))
            pending = self.pending()
        if pending == "provide_data":
            raise StudyError("the study waits for data, not for an approval: " +
                             ((self._snapshot().values.get("pending_request") or {}).get("what") or "see the request"),
                             recovery="add_table(...) the data, say the missing value, or say(\"continue without\").")
        if pending != "approve_plan":
            raise StudyError(f"there is no plan waiting for approval (status {self.status!r})",
                             recovery="Start the study with say(...) first.")
        if plan is not None:
            return self._approve_proposed(plan)
        resp = {"type": "edit", "args": dict(edits)} if edits else {"type": "accept"}
        if by:  # who approved, recorded with the decision in the study file
            resp["by"] = str(by)
        return self._run(Command(resume=resp))

    def _approve_proposed(self, plan: Mapping[str, Any]) -> Reply:
        from roles.compose import compose

        ws = self.workspace()
        composed = compose(None, ws, role="methodologist", system="", brief=ws.brief or {},
                           recon=(ws.inventory or {}).get("recon") or {}, inventory=ws.inventory or {},
                           tree=Study.from_dict(ws.study), reply=plan, source=str(plan.get("source") or "device"))
        if composed.study is not None:
            composed.study.id = self.id
            reply = self._run(Command(resume={"type": "edit", "args": {"study": composed.study.to_dict()}}))
            used = "proposed" if self.status != "review" else "tree"
        else:
            reply = self._run(Command(resume={"type": "accept"}))
            used = "tree"
        reply.payload = {**reply.payload, "plan_used": used, "plan_errors": composed.errors, "plan_notes": composed.notes}
        return reply

    def decline(self) -> Reply:
        """Decline the plan (or the questions): the study ends as declined."""
        if self.pending() is None:
            raise StudyError("nothing is waiting for an answer")
        return self._run(Command(resume={"type": "ignore"}))

    def follow_up(self, text: str) -> Reply:
        """After the report: a change (e.g. "redo it with a 500-year return period") is planned again for review."""
        if not isinstance(text, str) or not text.strip():
            raise InputError("The follow-up is empty: say what to change, for example \"redo it with a 200-year "
                             "return period\".", argument="text", value=text)
        text = clean_text(check_brief(text, what="the follow-up"))
        snap = self._snapshot()
        if (snap.values or {}).get("status") not in ("done", "declined"):
            raise StudyError("a follow-up needs a finished study", recovery="Approve the plan first.")
        request = dict(snap.values.get("request") or {})
        request["follow_up"] = text
        self.graph.update_state(self.config, {"request": request}, as_node="author")
        reply = self._run({"request": request})
        last = (self._snapshot().values.get("messages") or [{}])[-1]
        if last.get("kind") == "answer" and (last.get("payload") or {}).get("follow_up") == text:
            return Reply("answer", last["text"], dict(last.get("payload") or {}), reply.status, self.id)
        return reply

    # -- history and forks (graphs.forks, graphs.sensitivity) -----------------------------------
    def history(self) -> list[dict[str, Any]]:
        """The study's checkpoints, oldest first: checkpoint_id, step, next, status, waiting_for, created_at."""
        from graphs.forks import history

        return history(self.graph, self.config)

    def fork(self, at: str | None = None, edits: Mapping[str, Any] | None = None, *, study_id: str | None = None,
             by: str | None = None, approve: bool = True) -> "Studio":
        """A new study from one of this study's checkpoints (``at``: an id from history(), "plan" (default)
        or "questions"), with ``edits`` answered there (the forms approve() takes, or ``{"intake": {...}}``),
        run on to its report; the parent and the fork decision are recorded in the new study's plan.

        The fork shares this Studio's checkpointer; reopen it later with ``Studio.resume(fork_id)``."""
        from aquascope_core.result import utc_now
        from graphs.forks import copy_checkpoint, find_checkpoint

        row = find_checkpoint(self.history(), at)
        cid = row["checkpoint_id"]
        values = self.graph.get_state({"configurable": {"thread_id": self.id, "checkpoint_id": cid}}).values or {}
        new_id = study_id or new_study_id()
        suffix = str(Path(self.id) / "artifacts")
        root = (self.artifact_root[: -len(suffix)] + str(Path(new_id) / "artifacts")
                if self.artifact_root.endswith(suffix) else str(Path(self.artifact_root) / "forks" / new_id))
        request = {k: v for k, v in (values.get("request") or {}).items() if k != "out"}
        request["parent"] = {"study": self.id, "checkpoint": cid}
        request["decisions"] = [*(request.get("decisions") or []),
                                {"kind": "fork", "by": by or "reviewer", "at": utc_now(), "parent": self.id,
                                 "checkpoint": cid, **({"edits": dict(edits)} if edits else {})}]
        copy_checkpoint(self.graph.checkpointer, self.id, cid, new_id, {"id": new_id, "request": request})
        ctx = self.context
        child = Studio(study_id=new_id, checkpointer=self.graph.checkpointer, model=ctx.model,
                       role_models=ctx.role_models, api_key=ctx.key_ref, base_url=ctx.base_url, timeout=ctx.timeout,
                       live=self.live, live_options=ctx.live_options, artifact_root=root, on_event=self.on_event, owner=self.owner)
        child.site = self.site
        pending = child.pending()
        if edits:
            if pending is None:
                raise StudyError(f"checkpoint {cid} waits for nothing, so edits cannot be answered there",
                                 recovery="Fork at 'plan' (or a checkpoint whose waiting_for is set) to edit.")
            child._run(Command(resume={"type": "edit", "args": dict(edits), "by": by}))
        elif pending is None:
            child._run(None)
        elif approve and pending == "approve_plan":
            child._run(Command(resume={"type": "accept", "by": by}))
        return child

    def sensitivity(self, variants: list[Mapping[str, Any]] | None = None, *, by: str | None = None) -> dict[str, Any]:
        """Fork this finished study over the choices a reviewer questions (return period, distribution,
        confidence level, a record excluded, regional skew on or off), and add the table of the forks'
        results to its report (and report.md). Returns {"rows", "forks", "table"}; see graphs.sensitivity."""
        from graphs.sensitivity import run_sensitivity

        return run_sensitivity(self, variants, by=by)

    # -- files ----------------------------------------------------------------------------------
    def export(self, out: str | Path | None = None, *, formats: Any = None) -> list[Path]:
        """Write the study's files into ``out``: all of them, or those of ``formats`` ("md,html,docx,xlsx,ipynb,zip"
        or a list; study.yaml and workspace.json always). A file missing from the artifact store is made
        again from the checkpointed workspace, and the new references are checkpointed."""
        from aquascope_core.deliverables.build import export_deliverables

        dest = Path(out or self.out or f"aquascope-{self.id}")
        ws = self.workspace()
        if not ws.artifacts:
            raise StudyError(f"the study has no files yet (status {ws.status!r})",
                             recovery="Approve the plan so the Author writes the report.")
        # where this process's Author writes, then where the study started (a study resumed elsewhere has both)
        stores = [ArtifactStore(root) for root in dict.fromkeys(
            r for r in (self.context.artifact_root, self.artifact_root) if r)]

        def holds(store: ArtifactStore) -> bool:
            try:
                return all(store.path(ref).is_file() for ref in ws.artifacts)
            except DataNotFoundError:
                return False

        store = next((st for st in stores if holds(st)), stores[0])
        if formats is None:  # the formats the host configured for the Author (AQUASCOPE_FORMATS), else all
            formats = self.context.formats_wanted()
        paths, rebuilt = export_deliverables(ws, store, dest, formats)
        if rebuilt:
            self.graph.update_state(self.config, {"artifacts": ws.artifacts, "report": ws.report}, as_node="author")
        return paths

    # -- bring your own model -------------------------------------------------------------------
    # A face that runs its own model asks for a role's prompt and context, and hands the reply back: the crew
    # treats it exactly like its own model's reply (coerced, validated, numbers checked).
    def consultant_context(self, text: str) -> dict[str, Any]:
        """The Consultant's system prompt, the reply schema and the compact context for ``text``."""
        from roles.consultant import choose_playbook, consultant_payload
        from roles.prompts import CONSULTANT_SYSTEM, REPLY_SCHEMAS
        from aquascope_core import playbooks

        values = self._snapshot().values or {}
        ws = self.workspace() if values else Workspace(site=dict(self.site or {}), request={"radius_km": self.radius_km},
                                                         tables=dict(self._tables))
        pid = (ws.brief or {}).get("playbook") or choose_playbook(text)[0]
        if pid is None:
            raise InputError("the text matches no playbook, so there is no intake to fill", argument="text",
                             value=text, recovery="Name the study (a design flood, a drought status, ...).")
        return {"role": "consultant", "system": CONSULTANT_SYSTEM, "reply_schema": REPLY_SCHEMAS["consultant"],
                "context": consultant_payload(ws, text, playbooks.load(pid))}

    def methodologist_context(self, request: str | None = None) -> dict[str, Any]:
        """The Methodologist's prompt and context for the plan waiting for approval (``request``: a change)."""
        from roles.compose import methodologist_payload
        from roles.prompts import METHODOLOGIST_SYSTEM, REPLY_SCHEMAS

        ws = self.workspace()
        if not ws.inventory:
            raise StudyError("the crew has not inventoried the site yet", recovery="say(...) the problem first.")
        tree = Study.from_dict(ws.study) if ws.study else None
        from roles.knowledge import with_knowledge

        system = with_knowledge(METHODOLOGIST_SYSTEM, (ws.brief or {}).get("playbook"), "planning")
        return {"role": "methodologist", "system": system, "reply_schema": REPLY_SCHEMAS["methodologist"],
                "context": methodologist_payload(ws.brief or {}, (ws.inventory or {}).get("recon") or {},
                                                 ws.inventory or {}, tree, request)}

    def author_context(self, issues: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
        """The Author's prompt and context (with ``issues``: the fix round's)."""
        from roles.author import author_payload
        from roles.prompts import AUTHOR_FIX_SYSTEM, AUTHOR_SYSTEM, REPLY_SCHEMAS

        ws = self.workspace()
        if not ws.findings:
            raise StudyError("there are no results to write about yet", recovery="Approve the plan first.")
        return {"role": "author", "system": AUTHOR_FIX_SYSTEM if issues else AUTHOR_SYSTEM,
                "reply_schema": REPLY_SCHEMAS["author"], "context": author_payload(ws, issues)}

    def narrate(self, sections: Mapping[str, str], source: str = "device") -> Reply:
        """A face's own prose for the finished report, sentence by sentence checked against the results."""
        from roles.author import narrate

        ws = self.workspace()
        out = narrate(ws, sections, source=source, store=ArtifactStore(self.artifact_root))
        self.graph.update_state(self.config, {"report": ws.report, "artifacts": ws.artifacts, "events": ws.events},
                                as_node="author")
        return Reply("report", ws.report["answer"], out, ws.status, self.id)
