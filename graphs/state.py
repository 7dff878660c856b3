"""The graph's state and its input and output schemas: JSON-safe values only (they go into every checkpoint).

``typing_extensions.TypedDict`` (not ``typing.TypedDict``): on Python < 3.12 LangGraph cannot render the
schemas of the latter, and LangGraph Studio then shows no input form.

- :class:`CrewState` holds the workspace's fields plus what a host reads back (``answer``, ``title``);
- :class:`CrewInput` is what a host may start a run with: the state form (``site``, ``request``), or a chat
  message (``messages``, the way LangGraph Studio's chat starts a thread), see graphs.inputs;
- :class:`CrewOutput` is what a finished run hands back: the answer, the report's title, the artifacts.
"""

from __future__ import annotations

from typing import Annotated, Any, Mapping

from typing_extensions import TypedDict

__all__ = ["CrewState", "CrewInput", "CrewOutput", "STATE_KEYS", "merge_messages", "merge_request"]


def _chat_form(msg: Any) -> bool:
    return isinstance(msg, Mapping) and "kind" not in msg


def merge_messages(old: list[dict[str, Any]] | None, new: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """The messages channel: a node writes the whole list in the workspace form (role, kind, text) and it
    replaces the old one; a host's chat messages (LangChain form: type, content, id; no ``kind``) are added
    after the conversation so far, a message whose id is already there once only. So a chat message sent to a
    finished thread joins the conversation (and is a follow-up, graphs.nodes.route_start), never a wipe."""
    if new is None:
        return list(old or [])
    new = list(new)
    if not new or not all(_chat_form(m) for m in new):
        return new
    seen = {m.get("id") for m in old or [] if isinstance(m, Mapping) and m.get("id")}
    return [*(old or []), *(m for m in new if not m.get("id") or m.get("id") not in seen)]


def merge_request(old: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any]:
    """The request channel: replaced by what is written, except a follow-up sent alone
    (``{"request": {"follow_up": ...}}`` without the study's text), which joins the study's request."""
    if new is None:
        return dict(old or {})
    if old and isinstance(new, Mapping) and "follow_up" in new and "text" not in new:
        return {**old, **new}
    return dict(new)


class CrewState(TypedDict, total=False):
    id: str
    site: dict[str, Any]
    request: Annotated[dict[str, Any], merge_request]
    brief: dict[str, Any]
    inventory: dict[str, Any]
    study: dict[str, Any]
    run: dict[str, Any]
    findings: dict[str, Any]
    critique: dict[str, Any]
    report: dict[str, Any]
    artifacts: list[dict[str, Any]]
    messages: Annotated[list[dict[str, Any]], merge_messages]
    events: list[dict[str, Any]]
    ledger: dict[str, Any]
    tables: dict[str, Any]
    status: str
    pending_request: dict[str, Any] | None
    follow_ups: list[dict[str, Any]]
    created: str
    answer: str
    title: str


class CrewInput(TypedDict, total=False):
    """Start a study: a chat message ("Design flow for a road crossing, 100-year, at 41.10, -74.96"), or the
    state form with ``site`` {lat, lon} and ``request`` {text, intake, playbook}."""

    messages: list[dict[str, Any]]
    site: dict[str, Any]
    request: dict[str, Any]
    id: str
    tables: dict[str, Any]
    status: str


class CrewOutput(TypedDict, total=False):
    """What a run hands back: the answer in one paragraph, the report's title, the files it wrote."""

    id: str
    status: str
    answer: str
    title: str
    artifacts: list[dict[str, Any]]
    report: dict[str, Any]
    messages: list[dict[str, Any]]


# the workspace's fields (what a role node reads and writes); ``answer`` and ``title`` are the host's view
STATE_KEYS = tuple(k for k in CrewState.__annotations__ if k not in ("answer", "title"))
