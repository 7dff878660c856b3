"""The studies a checkpointer holds, and whether each is running, waiting, finished or was interrupted.

A study's status comes from its last checkpoint: a pending interrupt means it waits for the user (answers or
plan approval); tasks still to run with no interrupt mean it stopped mid-run. Whether such a study is still
running or was killed is told by its lease, a small file the process running it keeps in the study's folder
(``$AQUASCOPE_HOME/studies/<id>/lease.json``) with its host and process id and removes when the run returns.
A lease whose process is gone (a kill, a crash, a power cut) marks the study "interrupted": resume it with
``aquascope studio --resume ID`` and it continues from that checkpoint.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
from typing import Any, Iterator

from aquascope_core.result import utc_now
from aquascope_core.workspace import aquascope_home, inside, validate_study_id

__all__ = ["lease", "lease_alive", "study_status", "list_studies", "thread_ids"]


def _lease_path(study_id: str):
    return inside(aquascope_home() / "studies", validate_study_id(study_id), "lease.json")


@contextlib.contextmanager
def lease(study_id: str) -> Iterator[None]:
    """Hold the study's lease while a run is under way (removed on return or on an exception, kept by a kill)."""
    path = _lease_path(study_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "since": utc_now()}))
    tmp.replace(path)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            held = json.loads(path.read_text())
            if held.get("pid") == os.getpid() and held.get("host") == socket.gethostname():
                path.unlink()


def lease_alive(study_id: str) -> bool | None:
    """True while the process holding the lease runs, False when it is gone, None when there is no lease
    (or it is held on another host, where this process cannot tell)."""
    try:
        held = json.loads(_lease_path(study_id).read_text())
    except (OSError, ValueError):
        return None
    if held.get("host") != socket.gethostname() or not isinstance(held.get("pid"), int):
        return None
    try:
        os.kill(held["pid"], 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def study_status(snapshot: Any) -> str:
    """One word (or two) for a study's state from its checkpoint snapshot."""
    values = snapshot.values or {}
    for intr in getattr(snapshot, "interrupts", ()) or ():
        value = intr.value[0] if isinstance(intr.value, list) else intr.value
        action = (value.get("action_request") or {}).get("action") if isinstance(value, dict) else None
        return {"approve_plan": "waiting for approval", "answer_questions": "waiting for answers",
                "provide_data": "waiting for data"}.get(action, "waiting")
    if snapshot.next:
        alive = lease_alive(values.get("id") or "")
        return "running" if alive else "interrupted"
    return values.get("status") or "new"


def thread_ids(saver: Any) -> list[str]:
    """Every thread (study id) the checkpointer holds, most recent first."""
    conn = getattr(saver, "conn", None)
    if isinstance(conn, sqlite3.Connection):
        rows = conn.execute("SELECT thread_id, MAX(checkpoint_id) AS last FROM checkpoints "
                            "WHERE checkpoint_ns = '' GROUP BY thread_id ORDER BY last DESC").fetchall()
        return [r[0] for r in rows]
    seen: dict[str, None] = {}
    for tup in saver.list(None):
        seen.setdefault(tup.config["configurable"]["thread_id"], None)
    return list(seen)


def _last_step(values: dict[str, Any]) -> str:
    for ev in reversed(values.get("events") or []):
        if isinstance(ev, dict) and ev.get("role"):
            return " ".join(str(x) for x in (ev.get("role"), ev.get("step"), ev.get("event")) if x)
    return ""


def list_studies(saver: Any, graph: Any, *, limit: int | None = None, owner: str | None = None) -> list[dict[str, Any]]:
    """One row per study: id, status, site, question, last step and when its last checkpoint was written;
    with ``owner``, only the studies stamped with that owner (graphs.owners)."""
    from graphs.owners import owns

    rows = []
    for tid in thread_ids(saver):
        if limit is not None and len(rows) >= limit:
            break
        snap = graph.get_state({"configurable": {"thread_id": tid}})
        if not owns(owner, snap):
            continue
        values = snap.values or {}
        brief = values.get("brief") or {}
        site = values.get("site") or {}
        rows.append({
            "id": tid, "status": study_status(snap),
            "site": f"{site['lat']:.4f}, {site['lon']:.4f}" if {"lat", "lon"} <= set(site) else "",
            "question": str(brief.get("problem") or (values.get("request") or {}).get("text") or ""),
            "playbook": brief.get("playbook") or "", "last_step": _last_step(values),
            "next": list(snap.next or ()), "when": snap.created_at or "",
        })
    return rows
