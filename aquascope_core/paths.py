"""Paths into tool payloads, and ``{{ ... }}`` references between steps.

A path is dotted; a segment may index a list (``q[5]`` or ``q.5``) or select the first dict of a
list whose key equals a value (``sufficiency[method=gr4j_calibration].status``).

A reference ``{{ result.s2.fits.gev_lmoments.return_levels[5] }}`` names an earlier step's payload;
:func:`resolve_references` replaces it (a string that is exactly one reference becomes the value
itself, with its type; a reference inside a longer string is formatted into it).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

__all__ = ["PathError", "get_path", "has_path", "find_path", "REFERENCE", "references_in", "resolve_references"]


class PathError(LookupError):
    """A path that does not resolve; the message names the segment that failed."""


_SEGMENT = re.compile(r"""
    (?P<key>[^.\[\]]+)?          # a key (may be absent before a bracket)
    (?P<brackets>(\[[^\]]*\])*)  # zero or more [..] parts
""", re.X)


def _split(path: str) -> list[tuple[str, str]]:
    """Split a path into ("key", k) / ("index", i) / ("select", "k=v") parts."""
    parts: list[tuple[str, str]] = []
    for raw in _split_dots(path):
        m = _SEGMENT.fullmatch(raw)
        if not m or (not m.group("key") and not m.group("brackets")):
            raise PathError(f"malformed path segment {raw!r} in {path!r}")
        if m.group("key"):
            parts.append(("key", m.group("key")))
        for b in re.findall(r"\[([^\]]*)\]", m.group("brackets") or ""):
            b = b.strip()
            if "=" in b:
                parts.append(("select", b))
            elif re.fullmatch(r"-?\d+", b):
                parts.append(("index", b))
            else:
                raise PathError(f"malformed bracket [{b}] in {path!r}: use an index like [3] or a selector like [method=gev]")
    return parts


def _split_dots(path: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in path:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "." and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [p for p in out if p != ""]


def _coerce(text: str, like: Any) -> Any:
    if isinstance(like, bool):
        return text.lower() in ("true", "1", "yes")
    if isinstance(like, (int, float)):
        try:
            return type(like)(float(text)) if isinstance(like, float) else int(float(text))
        except ValueError:
            return text
    return text


def get_path(obj: Any, path: str) -> Any:
    """The value at ``path`` in ``obj``; :class:`PathError` naming the failing segment otherwise."""
    if path in ("", ".", None):
        return obj
    cur = obj
    walked = ""
    for kind, part in _split(path):
        here = f"{walked}.{part}" if kind == "key" and walked else (part if kind == "key" else f"{walked}[{part}]")
        if kind == "key":
            if isinstance(cur, Mapping):
                if part not in cur:
                    raise PathError(f"{here!r} not found (keys at {walked or 'the top'}: {', '.join(map(str, list(cur)[:12]))})")
                cur = cur[part]
            elif isinstance(cur, (list, tuple)) and re.fullmatch(r"-?\d+", part):
                idx = int(part)
                if not -len(cur) <= idx < len(cur):
                    raise PathError(f"index {idx} out of range at {walked or 'the top'} (length {len(cur)})")
                cur = cur[idx]
            else:
                raise PathError(f"{here!r} not found: {walked or 'the top'} is a {type(cur).__name__}, not a mapping")
        elif kind == "index":
            idx = int(part)
            if not isinstance(cur, (list, tuple)):
                raise PathError(f"{here!r}: {walked or 'the top'} is a {type(cur).__name__}, not a list")
            if not -len(cur) <= idx < len(cur):
                raise PathError(f"index {idx} out of range at {walked or 'the top'} (length {len(cur)})")
            cur = cur[idx]
        else:
            key, _, want = part.partition("=")
            key, want = key.strip(), want.strip()
            if not isinstance(cur, (list, tuple)):
                raise PathError(f"selector [{part}] needs a list at {walked or 'the top'}, found a {type(cur).__name__}")
            for item in cur:
                if isinstance(item, Mapping) and key in item and item[key] == _coerce(want, item[key]):
                    cur = item
                    break
            else:
                raise PathError(f"no item with {key}={want} at {walked or 'the top'}")
        walked = here
    return cur


def has_path(obj: Any, path: str) -> bool:
    try:
        get_path(obj, path)
        return True
    except PathError:
        return False


def find_path(obj: Any, value: float, *, rel: float = 1e-9, prefix: str = "") -> str | None:
    """The first path in ``obj`` at which a number equal to ``value`` sits (within ``rel``), or None."""
    if isinstance(obj, bool):
        return None
    if isinstance(obj, (int, float)):
        if value == obj or (obj != 0 and abs(obj - value) <= rel * abs(obj)):
            return prefix
        return None
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            if k == "meta":
                continue
            hit = find_path(v, value, rel=rel, prefix=f"{prefix}.{k}" if prefix else str(k))
            if hit is not None:
                return hit
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            hit = find_path(v, value, rel=rel, prefix=f"{prefix}[{i}]")
            if hit is not None:
                return hit
    return None


REFERENCE = re.compile(r"\{\{\s*result\.(?P<step>[A-Za-z_][\w-]*)\.(?P<path>[^}]+?)\s*\}\}")


def references_in(obj: Any) -> list[tuple[str, str]]:
    """Every ``(step_id, path)`` that ``{{ result.<step>.<path> }}`` names anywhere inside ``obj``."""
    found: list[tuple[str, str]] = []
    if isinstance(obj, str):
        found.extend((m.group("step"), m.group("path").strip()) for m in REFERENCE.finditer(obj))
    elif isinstance(obj, Mapping):
        for v in obj.values():
            found.extend(references_in(v))
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            found.extend(references_in(v))
    return found


def resolve_references(obj: Any, payloads: Mapping[str, Any]) -> Any:
    """A copy of ``obj`` with every ``{{ result.<step>.<path> }}`` replaced from ``payloads``.

    Raises :class:`PathError` when the step has no payload or the path is not in it.
    """
    if isinstance(obj, str):
        whole = REFERENCE.fullmatch(obj.strip())
        if whole:
            return _lookup(whole.group("step"), whole.group("path").strip(), payloads)
        return REFERENCE.sub(lambda m: str(_lookup(m.group("step"), m.group("path").strip(), payloads)), obj)
    if isinstance(obj, Mapping):
        return {k: resolve_references(v, payloads) for k, v in obj.items()}
    if isinstance(obj, list):
        return [resolve_references(v, payloads) for v in obj]
    return obj


def _lookup(step: str, path: str, payloads: Mapping[str, Any]) -> Any:
    if step not in payloads or payloads[step] is None:
        raise PathError(f"result.{step} is not available (the step did not run or did not succeed)")
    return get_path(payloads[step], path)
