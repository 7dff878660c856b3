"""One mechanism for the declarations made per family (registry rows, catalogue tools): gather them by id."""

from __future__ import annotations

import importlib
from typing import Any, Iterable

__all__ = ["collect"]


def collect(package: str, families: Iterable[str], attr: str, what: str) -> dict[str, Any]:
    """``{item.id: item}`` over ``<package>.<family>.<attr>`` for every family, refusing an id declared twice."""
    found: dict[str, Any] = {}
    for family in families:
        mod = importlib.import_module(f"{package}.{family}")
        for item in getattr(mod, attr, ()):
            if item.id in found:
                raise RuntimeError(f"{what} {item.id!r} is declared twice (again in {package}.{family})")
            found[item.id] = item
    return found
