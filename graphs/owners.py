"""Who a study belongs to: the owner's name, stamped in the metadata of every checkpoint the study writes.

The hosted server stamps it from the signed-in user (graphs.auth: the thread's ``owner`` metadata, which the
runtime copies into each run's config); the CLI and the MCP server stamp the user they were started for
(``--user`` / AQUASCOPE_USER). A study is then found only by its owner: :func:`owns` is the check
``Studio.resume`` makes, and graphs.studies lists only the caller's studies. With no user configured (one
person's machine) nothing is stamped and every study is found, as before.
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["owned_config", "owns", "owner_of"]


def owned_config(thread_id: str, owner: str | None) -> dict[str, Any]:
    """The run config of ``thread_id``, carrying ``owner`` into every checkpoint's metadata when set."""
    config: dict[str, Any] = {"configurable": {"thread_id": thread_id}}
    if owner:
        config["metadata"] = {"owner": owner}
    return config


def owner_of(snapshot: Any) -> str | None:
    """The owner stamped in a state snapshot's (or checkpoint tuple's) metadata, None when unstamped."""
    meta = getattr(snapshot, "metadata", None)
    return meta.get("owner") if isinstance(meta, Mapping) else None


def owns(user: str | None, snapshot: Any) -> bool:
    """Whether ``user`` may see the study behind ``snapshot``: anyone when no user is configured, else only
    its owner (an unstamped study belongs to nobody, so it is hidden from every named user)."""
    return not user or owner_of(snapshot) == user
