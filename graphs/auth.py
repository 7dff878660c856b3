"""Who may use a hosted aquascope, and which studies each user sees: the ``langgraph_sdk.Auth`` handler that
``langgraph.json`` names (``"auth": {"path": "./graphs/auth.py:auth"}``).

Every request carries ``Authorization: Bearer <token>``. The operator configures the tokens, one user each:

- ``AQUASCOPE_TOKENS_FILE``: a file of lines ``USER TOKEN`` (``#`` starts a comment), or a JSON object
  ``{"TOKEN": "USER"}``; re-read when it changes, so a token is added or revoked without a restart;
- ``AQUASCOPE_TOKENS``: the same JSON object in the environment.

A request without a token, or with one the operator did not configure, is refused with 401 and a message
saying what to send. ``AQUASCOPE_AUTH=off`` turns the check off for development on one's own machine (every
request is the user ``local``); with neither tokens nor that switch every request is refused.

Keys: every thread, run and assistant a user creates or changes is scrubbed before the server records it
(graphs.guard.scrub_run_request): an ``api_key``, ``token`` or ``password`` in the run's configurable,
context, metadata, input or resume value is removed, and its value blanked wherever else it appears, so the
server's run store (``.langgraph_api/`` under ``langgraph dev``, the runtime's tables) never holds it. A key
is given to a hosted crew by reference (``context.key_ref: "env:NAME"``), never by value.

Ownership: a thread (a study), a cron or an assistant is stamped with its creator as ``metadata.owner`` and
every read, search, update, delete, run, state, history and copy is filtered by it, so another user's study is
"not found" (404) rather than shown. Setting ``metadata.owner`` to someone else is refused with 403. The
server's own assistants (created by the system) are readable by everyone; the store is scoped to the user's
namespace. The runtime copies the thread's metadata into each run's config, so the owner is also stamped in
every checkpoint the study writes (graphs.owners).

The signed-in user is a :class:`TokenUser`: a plain JSON object (``identity``, ``display_name``,
``is_authenticated``, ``permissions``) that is also the user class the server expects. The server puts the
user object in every run's config; the open Postgres runtime (langgraph-runtime-pg) stores that config as
JSON, which fails on the server's own wrapper of a returned dict ("ProxyUser is not JSON serializable").
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from pathlib import Path
from typing import Any

from langgraph_sdk import Auth
from starlette.authentication import BaseUser

__all__ = ["auth", "load_tokens", "TokenUser"]

auth = Auth()

_cache: dict[str, Any] = {"key": None, "tokens": {}}
_SCHEME = "Bearer"
_HOW = ("send 'Authorization: Bearer <token>' with a token the operator configured "
        "(AQUASCOPE_TOKENS_FILE or AQUASCOPE_TOKENS on the server)")


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _parse(text: str, where: str) -> dict[str, str]:
    """token digest -> user from a tokens file's or variable's text."""
    text = text.strip()
    pairs: list[tuple[str, str]] = []
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"{where} is not a JSON object of token -> user: {exc}") from None
        if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
            raise ValueError(f"{where} must map each token (a string) to its user (a string)")
        pairs = list(data.items())
    else:
        for n, line in enumerate(text.splitlines(), 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2:
                raise ValueError(f"{where} line {n}: expected 'USER TOKEN', got {len(parts)} fields")
            pairs.append((parts[1], parts[0]))
    return {_digest(tok): user for tok, user in pairs if tok and user}


def load_tokens() -> dict[str, str]:
    """The configured tokens (digest -> user), read again when the file or the variable changes."""
    path = os.environ.get("AQUASCOPE_TOKENS_FILE")
    inline = os.environ.get("AQUASCOPE_TOKENS")
    stamp = None
    if path:
        try:
            st = Path(path).stat()
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            raise ValueError(f"AQUASCOPE_TOKENS_FILE={path} cannot be read") from None
    key = (path, stamp, inline)
    if _cache["key"] != key:
        tokens: dict[str, str] = {}
        if path:
            tokens.update(_parse(Path(path).read_text(encoding="utf-8"), f"AQUASCOPE_TOKENS_FILE={path}"))
        if inline:
            tokens.update(_parse(inline, "AQUASCOPE_TOKENS"))
        _cache.update(key=key, tokens=tokens)
    return _cache["tokens"]


class TokenUser(dict, BaseUser):
    """The user a token stands for: a JSON object (a dict, so any JSON encoder writes it and it reads back as
    itself) with the properties the server's user class has. Holds the name and permissions, nothing else."""

    def __init__(self, identity: str, permissions: tuple[str, ...] | list[str] = ()) -> None:
        super().__init__(identity=str(identity), display_name=str(identity), is_authenticated=True,
                         permissions=[str(p) for p in permissions])

    @property
    def identity(self) -> str:
        return self["identity"]

    @property
    def display_name(self) -> str:
        return self["display_name"]

    @property
    def is_authenticated(self) -> bool:
        return bool(self["is_authenticated"])

    @property
    def permissions(self) -> list[str]:
        return list(self["permissions"])


def _unauthorized(detail: str) -> Auth.exceptions.HTTPException:
    return Auth.exceptions.HTTPException(status_code=401, detail=detail, headers={"WWW-Authenticate": _SCHEME})


@auth.authenticate
async def authenticate(authorization: str | None) -> TokenUser:
    if os.environ.get("AQUASCOPE_AUTH", "").strip().lower() == "off":
        return TokenUser("local")
    try:
        tokens = load_tokens()
    except ValueError as exc:
        raise Auth.exceptions.HTTPException(status_code=500, detail=f"the server's tokens are misconfigured: {exc}")
    if not tokens:
        raise _unauthorized("this server has no tokens configured, so it admits nobody; the operator sets "
                            "AQUASCOPE_TOKENS_FILE (lines 'USER TOKEN') or AQUASCOPE_AUTH=off for development")
    if not authorization:
        raise _unauthorized(f"no Authorization header: {_HOW}")
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != _SCHEME.lower() or not token.strip():
        raise _unauthorized(f"the Authorization header is not 'Bearer <token>': {_HOW}")
    digest = _digest(token.strip())
    user = next((u for d, u in tokens.items() if hmac.compare_digest(d, digest)), None)
    if user is None:
        raise _unauthorized(f"the token is not one this server knows (revoked or mistyped): {_HOW}")
    return TokenUser(user)


def _stamp(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Stamp the caller as the owner of what ``value`` creates or changes; someone else's name is a 403."""
    if not isinstance(value, dict):
        return
    metadata = value.get("metadata")
    if metadata is None:
        metadata = value["metadata"] = {}
    if not isinstance(metadata, dict):
        return
    claimed = metadata.get("owner")
    if claimed not in (None, ctx.user.identity):
        raise Auth.exceptions.HTTPException(status_code=403, detail=(
            f"metadata.owner={claimed!r} is not you ({ctx.user.identity!r}): a study belongs to the user who "
            "creates it; leave metadata.owner out"))
    metadata["owner"] = ctx.user.identity


def _scrub(value: Any) -> None:
    """Keys out of what the server is about to record: a run's request (input, command, configurable, context,
    metadata), a thread's or assistant's metadata and config (graphs.guard.scrub_run_request)."""
    from graphs.guard import scrub_run_request

    if isinstance(value, dict):
        if isinstance(value.get("kwargs"), dict):  # a run
            scrub_run_request(value["kwargs"], value.get("metadata"))
        else:
            scrub_run_request({"config": value.get("config"), "context": value.get("context")}, value.get("metadata"))


@auth.on
async def owner_only(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """Threads, runs, crons (and anything without its own handler): stamped with and filtered by the owner, and
    scrubbed of keys before the server stores them."""
    if ctx.action in ("create", "update", "create_run"):
        _scrub(value)
        _stamp(ctx, value)
    return {"owner": ctx.user.identity}


@auth.on.assistants
async def assistants(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    """The server's assistants are read by everyone; one a user makes is theirs alone to change."""
    if ctx.action in ("read", "search"):
        return None
    _scrub(value)
    _stamp(ctx, value)
    return {"owner": ctx.user.identity}


@auth.on.store
async def store(ctx: Auth.types.AuthContext, value: Any) -> None:
    """The store is scoped to the user's own namespace."""
    namespace = tuple(value.get("namespace") or ())
    if not namespace or namespace[0] != ctx.user.identity:
        value["namespace"] = (ctx.user.identity, *namespace)
