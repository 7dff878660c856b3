"""The crew graph's own gate: what a host hands a run is bounded and scrubbed before the graph sees it.

Every face runs the one compiled graph (the CLI, the Python Studio and ``solve``, the MCP tools, a LangGraph
server), and a host may give it any checkpointer: the project's scrubbing savers (graphs.checkpoint), a plain
``SqliteSaver``, or the server's own. So the graph itself, before its first checkpoint:

- refuses an input over :mod:`aquascope_core.limits` (a brief's length and digits, nesting), in milliseconds;
- removes anything key-like from the run's configuration (``configurable`` and ``metadata``: an ``api_key``,
  a ``token``, a nested ``{"openai": {"secret": ...}}``), which every saver copies into its metadata rows;
- blanks the same from the input, an update and a resume value (``request.api_key``, ``request.token``, a key
  pasted into the brief), and every exact copy of a removed value wherever else it appears;
- refuses a run context that carries a key (the server records the context with the run).

The values kept are the user's own (bulky tables are scrubbed by name only, never rewritten by shape).
"""

from __future__ import annotations

from typing import Any, Mapping

from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from aquascope_core.errors import InputError
from aquascope_core.limits import check_run_input
from aquascope_core.textsafe import REDACTED, SECRET_KEY_NAMES, redact

__all__ = ["GuardedGraph", "scrub_config", "scrub_input", "secret_values", "scrub_run_request"]

_BULKY = ("tables",)  # scrubbed by key name only (an upload is stored as given)


def _secret_key(key: Any) -> bool:
    return isinstance(key, str) and bool(SECRET_KEY_NAMES.search(key))


def secret_values(*objs: Any) -> tuple[str, ...]:
    """Every str held under a key-like name anywhere in ``objs`` (to blank its copies elsewhere)."""
    found: list[str] = []
    stack = list(objs)
    while stack:
        node = stack.pop()
        if isinstance(node, Command):
            stack.extend([node.resume, node.update])
        elif isinstance(node, Mapping):
            for k, v in node.items():
                if _secret_key(k) and isinstance(v, str) and v not in ("", REDACTED):
                    found.append(v)
                elif isinstance(v, (Mapping, list, tuple)):
                    stack.append(v)
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return tuple(dict.fromkeys(found))


def _drop_secrets(obj: Any, secrets: tuple[str, ...]) -> Any:
    """A copy without key-named entries; str values with ``secrets`` and credential shapes blanked."""
    if isinstance(obj, Mapping):
        return {k: _drop_secrets(v, secrets) for k, v in obj.items() if not _secret_key(k)}
    if isinstance(obj, (list, tuple, str)):
        return redact(obj, secrets=secrets)
    return obj


def scrub_config(config: Mapping[str, Any] | None, secrets: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """``config`` without key-like entries in ``configurable`` and ``metadata`` (the parts savers store).

    Only plain values are rewritten: the runtime's own objects in ``configurable`` are passed on untouched."""
    if config is None:
        return None
    out = dict(config)
    for part in ("configurable", "metadata"):
        if isinstance(config.get(part), Mapping):
            out[part] = {k: (_drop_secrets(v, secrets) if isinstance(v, (Mapping, list, tuple, str)) else v)
                         for k, v in config[part].items() if not _secret_key(k)}
    return out


def scrub_input(value: Any, secrets: tuple[str, ...] = ()) -> Any:
    """An input, update or resume value with key-named entries blanked; text also by credential shape."""
    if isinstance(value, Command):
        return Command(graph=value.graph, update=scrub_input(value.update, secrets),
                       resume=scrub_input(value.resume, secrets), goto=value.goto)
    if isinstance(value, Mapping):
        return {k: (redact(v, secrets=secrets, shapes=False) if k in _BULKY else redact(v, secrets=secrets))
                if not (_secret_key(k) and isinstance(v, str)) else REDACTED for k, v in value.items()}
    return redact(value, secrets=secrets) if isinstance(value, (list, tuple, str)) else value


def _check_context(context: Any) -> None:
    if isinstance(context, Mapping):
        named = sorted(k for k in context if _secret_key(k))
        if named:
            raise InputError(f"the run context names {', '.join(map(repr, named))}: a run never carries a key (the "
                             "server records the context with the run)", argument="context", value=named,
                             recovery="Set the key in the server's environment and give context.key_ref "
                                      "\"env:NAME\" (the variable's name).")


def _guard(input: Any, config: Any, kwargs: dict[str, Any]) -> tuple[Any, Any]:
    _check_context(kwargs.get("context"))
    check_run_input(input.update if isinstance(input, Command) else input)
    secrets = secret_values(input, config, kwargs.get("context"))
    return scrub_input(input, secrets), scrub_config(config, secrets)


class GuardedGraph(CompiledStateGraph):
    """The compiled crew graph with :func:`_guard` in front of every way in (stream, astream and what calls
    them: invoke, ainvoke, astream_events; update_state and its bulk forms). ``copy()`` keeps the class, so a
    server that injects its checkpointer keeps the guard."""

    def stream(self, input: Any, config: Any = None, **kwargs: Any):
        input, config = _guard(input, config, kwargs)
        return super().stream(input, config, **kwargs)

    def astream(self, input: Any, config: Any = None, **kwargs: Any):
        input, config = _guard(input, config, kwargs)
        return super().astream(input, config, **kwargs)

    def bulk_update_state(self, config: Any, supersteps: Any) -> Any:
        config, supersteps = _guard_updates(config, supersteps)
        return super().bulk_update_state(config, supersteps)

    async def abulk_update_state(self, config: Any, supersteps: Any) -> Any:
        config, supersteps = _guard_updates(config, supersteps)
        return await super().abulk_update_state(config, supersteps)


def _guard_updates(config: Any, supersteps: Any) -> tuple[Any, Any]:
    steps = [list(s) for s in supersteps]
    secrets = secret_values(config, *[u.values for s in steps for u in s])
    for s in steps:
        for u in s:
            check_run_input(u.values)
    return scrub_config(config, secrets), [[u._replace(values=scrub_input(u.values, secrets)) for u in s]
                                           for s in steps]


def _scrub_in_place(node: Any, secrets: tuple[str, ...], shapes: bool) -> None:
    """Remove key-named entries from the dicts in ``node`` and blank ``secrets`` (and, with ``shapes``,
    credential shapes) in its strings, in place: the objects stay the ones the server holds."""
    if isinstance(node, dict):
        for k in list(node):
            v = node[k]
            if _secret_key(k):
                del node[k]
            elif isinstance(v, (dict, list)):
                _scrub_in_place(v, secrets, shapes and k not in _BULKY)
            elif isinstance(v, str):
                node[k] = redact(v, secrets=secrets, shapes=shapes)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            if isinstance(v, (dict, list)):
                _scrub_in_place(v, secrets, shapes)
            elif isinstance(v, str):
                node[i] = redact(v, secrets=secrets, shapes=shapes)


def scrub_run_request(kwargs: Any, metadata: Any = None) -> None:
    """A server's run request (its ``kwargs``: input, command, config, context; and its metadata) scrubbed in
    place, before the server records the run: key-named entries removed everywhere, their values blanked
    wherever else they appear, credential shapes blanked in what the caller wrote (input, command, metadata).
    The configuration and context also hold the runtime's own values, rewritten only where a key's exact
    value appears."""
    if not isinstance(kwargs, dict):
        return
    secrets = secret_values(kwargs, metadata)
    for part in ("input", "command"):
        _scrub_in_place(kwargs.get(part), secrets, True)
    config = kwargs.get("config")
    if isinstance(config, dict):
        _scrub_in_place(config.get("configurable"), secrets, False)
        _scrub_in_place(config.get("metadata"), secrets, True)
    _scrub_in_place(kwargs.get("context"), secrets, False)
    _scrub_in_place(metadata, secrets, True)
