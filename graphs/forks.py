"""A study's history and its forks, over any checkpointer (SQLite, Postgres, the server's).

- :func:`history` lists a study's checkpoints, oldest first, each with its step, the node that runs next,
  the status and what it waits for (``approve_plan``, ``answer_questions``).
- :func:`copy_checkpoint` copies one checkpoint (with its pending interrupt) into a new thread: the fork
  starts exactly where the parent stood, under its own study id, with the parent recorded and its files
  kept apart (its own artifact folder).
- :class:`PastAnswersStay` (mixed into every saver the project builds, graphs.checkpoint.scrubbing) makes
  LangGraph's own fork take its new answer: ``runs.wait(thread, checkpoint_id=<a past plan checkpoint>,
  command={"resume": <a new answer>})`` from either sdk, or ``graph.invoke(Command(resume=...), config with
  that checkpoint_id)``. A past checkpoint keeps, among its pending writes, the answer its interrupt was given
  when the thread went on from it; LangGraph (1.2) hands a re-run task its own recorded answers before the new
  one, so without this the fork replays the old answer. A checkpoint the thread has moved past, addressed by
  id, is therefore read with its interrupts and without the answers given to them: the branch it starts gets
  the answer sent with it, as :func:`copy_checkpoint` gives a copied one. The thread's latest checkpoint is
  read as stored (a resume there needs the answers already given).

The Studio facade (graphs.studio) builds ``Studio.history()``, ``Studio.fork()`` and
``Studio.sensitivity()`` on these.
"""

from __future__ import annotations

import copy
from typing import Any, Mapping

from aquascope_core.errors import InputError, StudyError
from aquascope_core.result import utc_now

__all__ = ["history", "find_checkpoint", "copy_checkpoint", "PastAnswersStay"]

_RESUME = "__resume__"  # LangGraph's channel for the answers given to a task's interrupts


def _waiting_for(snap: Any) -> str | None:
    for intr in getattr(snap, "interrupts", ()) or ():
        value = intr.value[0] if isinstance(intr.value, list) and intr.value else intr.value
        if isinstance(value, Mapping):
            return (value.get("action_request") or {}).get("action")
    for task in getattr(snap, "tasks", ()) or ():
        for intr in getattr(task, "interrupts", ()) or ():
            value = intr.value[0] if isinstance(intr.value, list) and intr.value else intr.value
            if isinstance(value, Mapping):
                return (value.get("action_request") or {}).get("action")
    return None


def history(graph: Any, config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The checkpoints of the thread in ``config``, oldest first."""
    rows = []
    for snap in graph.get_state_history(config):
        values = snap.values or {}
        meta = snap.metadata or {}
        rows.append({
            "checkpoint_id": snap.config["configurable"]["checkpoint_id"],
            "step": meta.get("step"),
            "source": meta.get("source"),
            "next": list(snap.next or ()),
            "status": values.get("status"),
            "waiting_for": _waiting_for(snap),
            "created_at": snap.created_at,
            "parent_checkpoint_id": ((snap.parent_config or {}).get("configurable") or {}).get("checkpoint_id"),
        })
    rows.reverse()
    return rows


def find_checkpoint(rows: list[dict[str, Any]], at: str | None) -> dict[str, Any]:
    """The checkpoint ``at`` names: a checkpoint id, or "plan" (default: the last time the plan waited for
    approval) or "questions" (the last time the questions waited)."""
    wanted = {None: "approve_plan", "plan": "approve_plan", "questions": "answer_questions"}
    if at in wanted:
        hits = [r for r in rows if r["waiting_for"] == wanted[at]]
        if not hits:
            raise StudyError(f"the study never waited for {wanted[at].replace('_', ' ')}, so there is no {at or 'plan'} "
                             "to fork from", recovery="Pick a checkpoint id from history().")
        return hits[-1]
    for r in rows:
        if r["checkpoint_id"] == at:
            return r
    raise InputError.bad_value("at", at, "a checkpoint id from history(), 'plan' or 'questions'")


def copy_checkpoint(saver: Any, parent_thread: str, checkpoint_id: str, new_thread: str,
                    rewrite: Mapping[str, Any]) -> dict[str, Any]:
    """Copy one checkpoint of ``parent_thread`` (and its pending writes: the interrupt it waits on) into
    ``new_thread``, with the channels in ``rewrite`` replaced. Returns the new checkpoint's config."""
    src = {"configurable": {"thread_id": parent_thread, "checkpoint_ns": "", "checkpoint_id": checkpoint_id}}
    tup = saver.get_tuple(src)
    if tup is None:
        raise InputError.bad_value("at", checkpoint_id, f"a checkpoint of study {parent_thread}")
    checkpoint = copy.deepcopy(tup.checkpoint)
    checkpoint["channel_values"] = {**checkpoint.get("channel_values", {}), **copy.deepcopy(dict(rewrite))}
    versions = dict(checkpoint.get("channel_versions") or {})
    metadata = {**(tup.metadata or {}), "source": "fork", "forked_from": {"thread_id": parent_thread,
                                                                            "checkpoint_id": checkpoint_id},
                "forked_at": utc_now()}
    dest = {"configurable": {"thread_id": new_thread, "checkpoint_ns": ""}}
    new_config = saver.put(dest, checkpoint, metadata, versions)
    # only the interrupts carry over: the parent's answer to them (its resume value) and what its tasks
    # wrote after that are the parent's, not the fork's
    by_task: dict[str, list[tuple[str, Any]]] = {}
    for task_id, channel, value in tup.pending_writes or ():
        if channel == "__interrupt__":
            by_task.setdefault(task_id, []).append((channel, value))
    for task_id, writes in by_task.items():
        saver.put_writes(new_config, writes, task_id)
    return new_config


def _addressed(config: Mapping[str, Any] | None) -> bool:
    return bool(((config or {}).get("configurable") or {}).get("checkpoint_id"))


def _latest_config(config: Mapping[str, Any]) -> dict[str, Any]:
    return {**config, "configurable": {**config["configurable"], "checkpoint_id": None}}


def _answered(tup: Any) -> bool:
    return tup is not None and any(w[1] == _RESUME for w in tup.pending_writes or ())


def _without_answers(tup: Any) -> Any:
    return tup._replace(pending_writes=[w for w in tup.pending_writes if w[1] != _RESUME])


class PastAnswersStay:
    """A saver mixin: a past checkpoint addressed by id is read without the answers its interrupts were given
    (see the module's docstring); everything else is read as stored."""

    def get_tuple(self, config):
        tup = super().get_tuple(config)
        if _addressed(config) and _answered(tup):
            latest = super().get_tuple(_latest_config(config))
            if latest is not None and latest.checkpoint["id"] != tup.checkpoint["id"]:
                return _without_answers(tup)
        return tup

    async def aget_tuple(self, config):
        tup = await super().aget_tuple(config)
        if _addressed(config) and _answered(tup):
            latest = await super().aget_tuple(_latest_config(config))
            if latest is not None and latest.checkpoint["id"] != tup.checkpoint["id"]:
                return _without_answers(tup)
        return tup
