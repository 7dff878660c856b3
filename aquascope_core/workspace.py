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

import hashlib
import json
import os
import re
import uuid
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Mapping

from aquascope_core.errors import DataNotFoundError, InputError
from aquascope_core.result import copy_tree as _copy_tree, jsonsafe, utc_now

__all__ = ["Workspace", "ArtifactStore", "STATUSES", "aquascope_home", "new_study_id", "validate_study_id",
           "validate_artifact_name", "inside"]

STATUSES = ("intake", "scouting", "planning", "waiting", "review", "running", "critique", "authoring", "done",
            "declined")


def aquascope_home() -> Path:
    """The folder aquascope keeps its state in: $AQUASCOPE_HOME, default ~/.aquascope."""
    return Path(os.environ.get("AQUASCOPE_HOME") or Path.home() / ".aquascope")


def new_study_id() -> str:
    return "st-" + uuid.uuid4().hex[:12]


# A study id names a folder and a checkpoint thread: letters, digits, '-' and '_', starting with a letter or digit.
STUDY_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
# An artifact name is a relative path of plain segments (no '..', no leading '/', no backslash or drive).
_NAME_SEGMENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_. ()+-]{0,127}")
_SHA256 = re.compile(r"[0-9a-f]{64}")


def validate_study_id(study_id: Any) -> str:
    """``study_id`` when it matches the fixed pattern, else an InputError naming it."""
    if not isinstance(study_id, str) or not STUDY_ID.fullmatch(study_id):
        raise InputError.bad_value("study_id", study_id, "1 to 64 letters, digits, '-' or '_', starting with a letter "
                                   "or digit (for example st-0123456789ab)")
    return study_id


def validate_artifact_name(name: Any) -> str:
    """An artifact's file name: a relative path of plain segments, at most 4 deep."""
    parts = name.split("/") if isinstance(name, str) else []
    if not parts or len(parts) > 4 or any(not _NAME_SEGMENT.fullmatch(p) or set(p) <= {"."} for p in parts):
        raise InputError.bad_value("artifact name", name, "a relative file name such as 'report.md' or "
                                   "'figures/s3.png' (no '..', no absolute path)")
    return name


def inside(root: str | os.PathLike[str], *parts: str) -> Path:
    """``root/parts`` resolved, refused unless it stays inside ``root`` (symlinks included)."""
    base = Path(root).resolve()
    target = base.joinpath(*parts).resolve()
    if target != base and base not in target.parents:
        raise InputError.bad_value("path", str(Path(root).joinpath(*parts)), f"a path inside {base}")
    return target


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
        # jsonsafe rebuilds every dict and list, so the result shares nothing mutable with the workspace
        return jsonsafe({k: getattr(self, k) for k in self._FIELDS})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Workspace":
        if not isinstance(data, Mapping):
            raise InputError.bad_value("workspace", type(data).__name__, "a workspace dict (from to_dict or workspace.json)")
        known = {f.name for f in fields(cls)} - {"listener"}
        kwargs = {k: _copy_tree(v) for k, v in data.items() if k in known}
        if "id" in kwargs:
            validate_study_id(kwargs["id"])
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
        msg = {"role": role, "kind": kind, "text": text, "at": utc_now(),
               # the same message in the LangChain form chat UIs render (type, content, id)
               "type": "human" if role == "user" else "ai", "content": text, "id": uuid.uuid4().hex}
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
        return cls(aquascope_home() / "studies" / validate_study_id(study_id) / "artifacts")

    def _blob(self, digest: Any) -> Path:
        if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
            raise InputError.bad_value("artifact sha256", digest, "64 lowercase hex digits (a content address)")
        return inside(self.root, digest[:2], digest)

    def put(self, data: bytes, *, name: str, media_type: str, caption: str = "", step: str | None = None,
            kind: str = "document") -> dict[str, Any]:
        if not isinstance(data, (bytes, bytearray)):
            raise InputError.bad_value("data", type(data).__name__, "bytes")
        validate_artifact_name(name)
        digest = hashlib.sha256(data).hexdigest()
        path = self._blob(digest)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(bytes(data))
            tmp.replace(path)
        return {"id": digest[:16], "sha256": digest, "name": name, "media_type": media_type, "caption": caption,
                "step": step, "kind": kind, "size": len(data)}

    def path(self, ref: Mapping[str, Any]) -> Path:
        path = self._blob(ref.get("sha256"))
        if not path.exists():
            raise DataNotFoundError(f"artifact {ref.get('name')!r} ({ref.get('id')}) is not in the store at {self.root}",
                                    recovery="Re-run the Author (export again) to rebuild the deliverables.")
        return path

    def get(self, ref: Mapping[str, Any]) -> bytes:
        return self.path(ref).read_bytes()

    def export(self, ref: Mapping[str, Any], dest: str | os.PathLike[str]) -> Path:
        dest = Path(dest)
        name = validate_artifact_name(ref.get("name"))
        data = self.get(ref)
        dest.mkdir(parents=True, exist_ok=True)
        out = inside(dest, name)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
        return out
