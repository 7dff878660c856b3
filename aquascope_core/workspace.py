"""The workspace: the one serialisable blackboard every role reads and writes.

It holds JSON-safe values only, so it can live in a LangGraph checkpoint, travel through MCP and
be written as workspace.json. Artifact bytes (figures, documents, the bundle) never live here:
they live in an :class:`ArtifactStore` (files under the study's folder, content-addressed) and
the workspace holds their references (id, name, media type, caption, step).

Fields, and the role that writes each: ``brief`` (Consultant), ``inventory`` (Scout), ``study``
(Methodologist), ``run`` (Analysts), ``findings`` (Interpreter), ``critique`` (Critic), ``report``
(Author), ``artifacts`` (Analysts, Author), ``messages`` and ``events`` (everyone), ``ledger``
(the model wrapper), ``tables`` (the user's uploads, their original bytes kept verbatim), ``status``,
``pending_request``.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import uuid
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Mapping

from aquascope_core.errors import DataNotFoundError, InputError
from aquascope_core.result import jsonsafe, utc_now

__all__ = ["Workspace", "ArtifactStore", "STATUSES", "aquascope_home", "new_study_id"]

STATUSES = ("intake", "scouting", "planning", "waiting", "review", "running", "critique", "authoring", "done",
            "declined")


def aquascope_home() -> Path:
    """The folder aquascope keeps its state in: $AQUASCOPE_HOME, default ~/.aquascope."""
    return Path(os.environ.get("AQUASCOPE_HOME") or Path.home() / ".aquascope")


def new_study_id() -> str:
    return "st-" + uuid.uuid4().hex[:12]


@dataclass
class Workspace:
    id: str = field(default_factory=new_study_id)
    site: dict[str, Any] = field(default_factory=dict)
    request: dict[str, Any] = field(default_factory=dict)
    brief: dict[str, Any] = field(default_factory=dict)
    inventory: dict[str, Any] = field(default_factory=dict)
    study: dict[str, Any] = field(default_factory=dict)
    run: dict[str, Any] = field(default_factory=dict)
    findings: dict[str, Any] = field(default_factory=dict)
    critique: dict[str, Any] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)
    artifacts: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    ledger: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)
    status: str = "intake"
    pending_request: dict[str, Any] | None = None
    follow_ups: list[dict[str, Any]] = field(default_factory=list)
    created: str = field(default_factory=utc_now)

    # Not serialised: where events go as they happen (the graph's stream writer, a CLI progress line).
    listener: Callable[[dict[str, Any]], None] | None = field(default=None, repr=False, compare=False)

    _FIELDS = ("id", "site", "request", "brief", "inventory", "study", "run", "findings", "critique", "report",
               "artifacts", "messages", "events", "ledger", "tables", "status", "pending_request", "follow_ups",
               "created")

    # -- serialisation --------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return jsonsafe({k: copy.deepcopy(getattr(self, k)) for k in self._FIELDS})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Workspace":
        if not isinstance(data, Mapping):
            raise InputError.bad_value("workspace", type(data).__name__, "a workspace dict (from to_dict or workspace.json)")
        known = {f.name for f in fields(cls)} - {"listener"}
        kwargs = {k: copy.deepcopy(v) for k, v in data.items() if k in known}
        ws = cls(**kwargs)
        if ws.status not in STATUSES:
            raise InputError.bad_value("status", ws.status, "one of " + ", ".join(STATUSES))
        return ws

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> "Workspace":
        try:
            return cls.from_dict(json.loads(text))
        except json.JSONDecodeError as exc:
            raise InputError(f"the workspace is not valid JSON: {exc}", argument="workspace") from None

    # -- the timeline ---------------------------------------------------------------------------
    def event(self, role: str, event: str, detail: Any = None, *, step: str | None = None) -> dict[str, Any]:
        row = {"role": role, "step": step, "event": event, "detail": jsonsafe(detail), "at": utc_now()}
        self.events.append(row)
        if self.listener is not None:
            self.listener(row)
        return row

    def say(self, role: str, text: str, *, kind: str = "text", payload: Any = None) -> dict[str, Any]:
        msg = {"role": role, "kind": kind, "text": text, "at": utc_now()}
        if payload is not None:
            msg["payload"] = jsonsafe(payload)
        self.messages.append(msg)
        return msg

    def charge(self, role: str, *, prompt_tokens: int = 0, completion_tokens: int = 0, cost_usd: float | None = None,
               model: str | None = None) -> None:
        row = self.ledger.setdefault(role, {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0})
        row["calls"] += 1
        row["prompt_tokens"] += int(prompt_tokens or 0)
        row["completion_tokens"] += int(completion_tokens or 0)
        if cost_usd is None or row.get("cost_usd") is None:
            row["cost_usd"] = None  # an unknown model's cost is unknown, not zero
        else:
            row["cost_usd"] = round(row["cost_usd"] + cost_usd, 6)
        if model:
            row["model"] = model


class ArtifactStore:
    """Content-addressed artifact files under a study's folder.

    ``put`` writes the bytes once (named by their SHA-256) and returns a reference dict the
    workspace keeps; ``get`` reads them back; ``export`` copies one under its human name.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    @classmethod
    def for_study(cls, study_id: str) -> "ArtifactStore":
        return cls(aquascope_home() / "studies" / study_id / "artifacts")

    def put(self, data: bytes, *, name: str, media_type: str, caption: str = "", step: str | None = None,
            kind: str = "document") -> dict[str, Any]:
        if not isinstance(data, (bytes, bytearray)):
            raise InputError.bad_value("data", type(data).__name__, "bytes")
        digest = hashlib.sha256(data).hexdigest()
        path = self.root / digest[:2] / digest
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(bytes(data))
            tmp.replace(path)
        return {"id": digest[:16], "sha256": digest, "name": name, "media_type": media_type, "caption": caption,
                "step": step, "kind": kind, "size": len(data)}

    def path(self, ref: Mapping[str, Any]) -> Path:
        digest = ref.get("sha256") or ""
        path = self.root / digest[:2] / digest
        if not digest or not path.exists():
            raise DataNotFoundError(f"artifact {ref.get('name')!r} ({ref.get('id')}) is not in the store at {self.root}",
                                    recovery="Re-run the Author (export again) to rebuild the deliverables.")
        return path

    def get(self, ref: Mapping[str, Any]) -> bytes:
        return self.path(ref).read_bytes()

    def export(self, ref: Mapping[str, Any], dest: str | os.PathLike[str]) -> Path:
        dest = Path(dest)
        dest.mkdir(parents=True, exist_ok=True)
        out = dest / ref["name"]
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(self.get(ref))
        return out
