"""The ways a host starts the crew, made into the workspace's start.

A run may start with

- the state form: ``{"site": {"lat", "lon"}, "request": {"text", ...}}`` (the Python API, the CLI);
- a chat message: ``{"messages": [{"type": "human", "content": "Design flow ..., at 41.10, -74.96"}]}``, the
  way LangGraph Studio's chat starts a thread (also ``{"role": "user", "content": ...}`` and content parts);
- either of them with the site in the run's configuration (``configurable.site`` or ``configurable.lat`` /
  ``lon``) or in the run's context (``context.site``) instead of in the words.

:func:`start_update` returns the fields to write so the consultant finds a problem text, a site and an id.
"""

from __future__ import annotations

import re
import uuid
from typing import Any, Mapping

from aquascope_core.errors import InputError

__all__ = ["as_workspace_messages", "chat_text", "site_from_text", "site_from_settings", "start_update"]

_HUMAN = {"human", "user"}

# "at 41.10, -74.96", "41.10 N 74.96 W", "lat 41.1 lon -74.96", "(41.10, -74.96)"
_PAIR = re.compile(r"(?<![\w.])(-?\d{1,2}(?:\.\d+)?)\s*°?\s*([NS])?\s*[,;/ ]\s*(-?\d{1,3}(?:\.\d+)?)\s*°?\s*([EW])?(?![\w.])",
                   re.IGNORECASE)
_LABELLED = re.compile(r"lat(?:itude)?\s*[=:]?\s*(-?\d+(?:\.\d+)?)\D{0,12}?lon(?:gitude)?\s*[=:]?\s*(-?\d+(?:\.\d+)?)",
                       re.IGNORECASE)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}, ...]
        return " ".join(p.get("text", "") if isinstance(p, Mapping) else str(p) for p in content).strip()
    return ""


def _is_human(msg: Mapping[str, Any]) -> bool:
    return str(msg.get("type") or msg.get("role") or "").lower() in _HUMAN


def chat_text(messages: Any) -> str:
    """The text of the last human message (any of the chat forms), or ''."""
    for msg in reversed(list(messages or [])):
        if isinstance(msg, str):
            return msg
        if isinstance(msg, Mapping) and _is_human(msg):
            text = _content_text(msg.get("content")) or _content_text(msg.get("text"))
            if text.strip():
                return text.strip()
    return ""


def as_workspace_messages(messages: Any) -> list[dict[str, Any]]:
    """Chat messages (type/role, content, id) in the workspace's form (role, kind, text), each also carrying the
    LangChain fields (type, content, id) chat UIs render; workspace messages pass unchanged."""
    out = []
    for m in messages or []:
        if isinstance(m, Mapping) and "kind" not in m and ("content" in m or "text" in m):
            text = _content_text(m.get("content")) or _content_text(m.get("text"))
            role = "user" if _is_human(m) else str(m.get("type") or m.get("role") or "assistant")
            out.append({"role": role, "kind": "text", "text": text, "type": "human" if role == "user" else "ai",
                        "content": text, "id": str(m.get("id") or uuid.uuid4())})
        elif isinstance(m, Mapping):
            out.append(dict(m))
    return out


def site_from_text(text: str) -> dict[str, float] | None:
    """A site written in the words ("at 41.10, -74.96"), or None. Only pairs with a decimal point count
    (so "100-year, 2 km" is not a site)."""
    from aquascope_core.data.base import validate_point

    m = _LABELLED.search(text or "")
    candidates = [(m.group(1), None, m.group(2), None)] if m else []
    candidates += [mm.groups() for mm in _PAIR.finditer(text or "")]
    for la, ns, lo, ew in candidates:
        if "." not in la or "." not in lo:
            continue
        lat, lon = float(la), float(lo)
        if ns and ns.upper() == "S":
            lat = -abs(lat)
        if ew and ew.upper() == "W":
            lon = -abs(lon)
        try:
            lat, lon = validate_point(lat, lon)
        except InputError:
            continue
        return {"lat": lat, "lon": lon}
    return None


def _site_of(obj: Any) -> dict[str, float] | None:
    from aquascope_core.data.base import validate_point

    if not isinstance(obj, Mapping):
        return None
    site = obj.get("site")
    if isinstance(site, Mapping) and site.get("lat") is not None:
        lat, lon = validate_point(site.get("lat"), site.get("lon"))
        return {"lat": lat, "lon": lon}
    if obj.get("lat") is not None and obj.get("lon") is not None:
        lat, lon = validate_point(obj.get("lat"), obj.get("lon"))
        return {"lat": lat, "lon": lon}
    return None


def site_from_settings(config: Mapping[str, Any] | None, context: Any = None) -> dict[str, float] | None:
    """The site a run's configuration (``configurable``) or context names, or None."""
    site = _site_of((config or {}).get("configurable") or {})
    if site is None and context is not None:
        ctx_site = getattr(context, "site", None) if not isinstance(context, Mapping) else context.get("site")
        site = _site_of({"site": ctx_site}) if ctx_site is not None else None
    return site


def start_update(state: Mapping[str, Any], config: Mapping[str, Any] | None = None,
                 context: Any = None) -> dict[str, Any]:
    """The fields to write before the consultant runs: the problem text from a chat message, the site from the
    state, the words, the configuration or the context, the id from the thread. Empty when nothing is missing."""
    update: dict[str, Any] = {}
    request = dict(state.get("request") or {})
    messages = list(state.get("messages") or [])
    if not str(request.get("text") or "").strip():
        text = chat_text(messages)
        if text:
            request["text"] = text
            update["request"] = request
    # chat messages become the workspace's message form (role, kind, text), keeping the chat form's fields
    if any(isinstance(m, Mapping) and "content" in m and "kind" not in m for m in messages):
        update["messages"] = as_workspace_messages(messages)
    site = state.get("site")
    if not (isinstance(site, Mapping) and site.get("lat") is not None):
        found = site_from_text(str(request.get("text") or "")) or site_from_settings(config, context)
        if found is None:
            raise InputError("a new study needs a site: write it in the message (\"... at 41.10, -74.96\"), or give "
                             "site {lat, lon} in the input, the run's configuration (configurable.site) or its context",
                             argument="site", value=site, recovery="Add the site's latitude and longitude in decimal "
                             "degrees, for example \"at 41.10, -74.96\".")
        update["site"] = found
    if not state.get("id"):
        thread = ((config or {}).get("configurable") or {}).get("thread_id")
        if thread:
            update["id"] = str(thread)
    if not state.get("status"):
        update["status"] = "intake"
    return update
