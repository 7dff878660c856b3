"""The graph's state: the workspace's fields, JSON-safe values only (they go into every checkpoint)."""

from __future__ import annotations

from typing import Any, TypedDict

__all__ = ["CrewState", "STATE_KEYS"]


class CrewState(TypedDict, total=False):
    id: str
    site: dict[str, Any]
    request: dict[str, Any]
    brief: dict[str, Any]
    inventory: dict[str, Any]
    study: dict[str, Any]
    run: dict[str, Any]
    findings: dict[str, Any]
    critique: dict[str, Any]
    report: dict[str, Any]
    artifacts: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    events: list[dict[str, Any]]
    ledger: dict[str, Any]
    tables: dict[str, str]
    status: str
    pending_request: dict[str, Any] | None
    follow_ups: list[dict[str, Any]]
    created: str


STATE_KEYS = tuple(CrewState.__annotations__)
