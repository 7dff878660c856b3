"""The site's basin characteristics for the USGS regression equations, read from the request or a StreamStats upload.

Two readers for the flood_risk intake (``basin_characteristics``, ``nss_region``) over the request's words, and
:func:`intake_from_tables` for a StreamStats basin-characteristics report brought as a table. Only NSS variable
codes the equation library knows are read ("DRNAREA 64.0", "STORAGE=2.9"); nothing is guessed.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Mapping

__all__ = ["read_characteristics", "read_region", "intake_from_tables"]

_STOP = {"in", "the", "of", "for", "at", "a", "an", "nss", "usgs", "regression", "peak", "flow", "and"}


@lru_cache(maxsize=1)
def _codes() -> frozenset[str]:
    from aquascope_core.methods.regression import equation_library

    return frozenset(c for st in equation_library()["states"].values() for r in st["regions"].values()
                     for c in r["variables"])


def read_characteristics(low: str) -> str | None:
    """``CODE=value; ...`` for the NSS codes the text names with a number after them, else None."""
    found: dict[str, str] = {}
    for code, num in re.findall(r"\b([a-z][a-z0-9_]{1,15})\s*(?:=|:|\bis\b)?\s*(-?\d+(?:\.\d+)?)", low or ""):
        if code.upper() in _codes():
            found.setdefault(code.upper(), num)
    return "; ".join(f"{k}={v}" for k, v in found.items()) or None


def read_region(low: str) -> str | None:
    """The words before "region" (``valley and ridge``), or an NSS region code (``gc1259``)."""
    m = re.search(r"\b(gc\d{2,5})\b", low or "")
    if m:
        return m.group(1).upper()
    m = re.search(r"([a-z][a-z \-]*?)\s+region\b", low or "")
    if not m:
        return None
    words = [w for w in m.group(1).split() if w not in _STOP or w == "and"]
    while words and words[0] in _STOP:
        words.pop(0)
    return " ".join(words) or None


def intake_from_tables(tables: Mapping[str, Mapping[str, Any]] | None) -> dict[str, Any]:
    """The intake a StreamStats basin-characteristics report among the tables gives (first report wins)."""
    from aquascope_core.data.streamstats import characteristics_text

    for entry in (tables or {}).values():
        rep = entry.get("basin_characteristics") if isinstance(entry, Mapping) else None
        if rep and rep.get("characteristics"):
            out: dict[str, Any] = {"basin_characteristics": characteristics_text(rep["characteristics"])}
            if rep.get("regions"):
                out["nss_region"] = rep["regions"][0]
            return out
    return {}
