"""The result contract: every tool returns a JSON-safe dict with ``meta``.

``meta`` carries the tool's name, the engine version, the sources (name, url or
dataset, when it was accessed or computed, citation) and the fully resolved
parameters, defaults included. :func:`finish` stamps it on a payload and makes
the payload JSON-safe (numpy scalars and arrays, pandas timestamps, NaN → None).
"""

from __future__ import annotations

import copy as _copy
import datetime as _dt
import inspect
import math
from typing import Any, Callable, Mapping

from aquascope_core import __version__

__all__ = ["source", "make_meta", "finish", "jsonsafe", "resolved_parameters", "utc_now"]


def utc_now() -> str:
    """The current time as an ISO 8601 UTC string with a ``Z`` suffix, to the second."""
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def source(
    name: str,
    *,
    url: str | None = None,
    dataset: str | None = None,
    citation: str | None = None,
    accessed: str | None = None,
    computed: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """One row of ``meta.sources``. ``accessed`` for data read from somewhere, ``computed`` for derived values."""
    row: dict[str, Any] = {"name": name}
    if url:
        row["url"] = url
    if dataset:
        row["dataset"] = dataset
    if citation:
        row["citation"] = citation
    if accessed:
        row["accessed"] = accessed
    if computed:
        row["computed"] = computed
    row.update({k: v for k, v in extra.items() if v is not None})
    return row


def resolved_parameters(func: Callable[..., Any], args: tuple = (), kwargs: Mapping[str, Any] | None = None,
                        *, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """Bind a call to ``func``'s signature and return every parameter, defaults included.

    Array-like arguments (the data itself) are summarised, not copied: a provenance log
    records what was asked, not the values.
    """
    sig = inspect.signature(func)
    bound = sig.bind_partial(*args, **(kwargs or {}))
    bound.apply_defaults()
    out: dict[str, Any] = {}
    for name, value in bound.arguments.items():
        if name in skip:
            continue
        out[name] = _summarise(value)
    return out


def _summarise(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return jsonsafe(value)
    length = getattr(value, "__len__", None)
    if hasattr(value, "dtype") or (length is not None and not isinstance(value, (dict, list, tuple))):
        try:
            return f"<{type(value).__name__} of {len(value)} values>"
        except TypeError:
            return f"<{type(value).__name__}>"
    if isinstance(value, (list, tuple)) and len(value) > 50:
        return f"<{type(value).__name__} of {len(value)} values>"
    return jsonsafe(value)


def make_meta(
    tool: str,
    parameters: Mapping[str, Any],
    sources: list[dict[str, Any]] | None = None,
    *,
    computed: str | None = None,
) -> dict[str, Any]:
    """The ``meta`` block of a result."""
    when = computed or utc_now()
    srcs = [dict(s) for s in (sources or [])]
    srcs.append(source("aquascope", dataset=f"aquascope_core {__version__}", computed=when))
    return {
        "tool": tool,
        "version": __version__,
        "sources": srcs,
        "parameters": jsonsafe(dict(parameters)),
        "computed": when,
    }


def finish(
    payload: Mapping[str, Any],
    tool: str,
    parameters: Mapping[str, Any],
    sources: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Return ``payload`` made JSON-safe with ``meta`` stamped on it (the input is not modified)."""
    out = jsonsafe(dict(payload))
    out["meta"] = make_meta(tool, parameters, sources)
    return out


_PLAIN = (str, int, bool, type(None))  # exact types jsonsafe returns as they are


def jsonsafe(value: Any) -> Any:
    """A copy of ``value`` that ``json.dumps`` accepts and that round-trips.

    numpy scalars become Python numbers, arrays lists, NaN and infinities ``None``,
    dates ISO strings, tuples lists, dict keys strings.
    """
    t = type(value)
    if t is list or t is dict:  # the common trees: plain values kept without a call each
        if t is list:
            return [v if type(v) in _PLAIN or (type(v) is float and math.isfinite(v)) else jsonsafe(v) for v in value]
        return {k if type(k) is str else str(k): v if type(v) in _PLAIN or (type(v) is float and math.isfinite(v))
                else jsonsafe(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): jsonsafe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonsafe(v) for v in value]
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    # numpy and pandas without importing them here
    mod = type(value).__module__
    if mod.startswith("numpy"):
        if hasattr(value, "tolist"):
            return jsonsafe(value.tolist())
    if mod.startswith("pandas"):
        if hasattr(value, "isoformat"):
            try:
                return None if value != value else value.isoformat()  # NaT != NaT
            except (TypeError, ValueError):
                return value.isoformat()
        if hasattr(value, "tolist"):
            return jsonsafe(value.tolist())
        if hasattr(value, "to_dict"):
            return jsonsafe(value.to_dict())
    if hasattr(value, "item") and callable(value.item):
        try:
            return jsonsafe(value.item())
        except (TypeError, ValueError):
            pass
    raise TypeError(f"jsonsafe: cannot make a {type(value).__name__} JSON-safe; convert it to a number, string, list or dict")


_TREE_SCALARS = (str, int, float, bool, type(None))


def copy_tree(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, scalars), several times faster than copy.deepcopy (no memo:
    the values copied are trees, a payload, a state value, a playbook); anything else is deep-copied."""
    t = type(value)
    if t is dict:
        return {k: v if type(v) in _TREE_SCALARS else copy_tree(v) for k, v in value.items()}
    if t is list:
        return [v if type(v) in _TREE_SCALARS else copy_tree(v) for v in value]
    if t in _TREE_SCALARS:
        return value
    return _copy.deepcopy(value)
