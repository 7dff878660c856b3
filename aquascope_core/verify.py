"""Checks on prose: every number a report states must be a number some result holds.

:func:`number_pool` gathers the numbers of the established results (payloads and gate rows), the
inventory and the brief. :func:`verify` finds the numbers in a text and matches each against the
pool at the precision it is written with: "35.2" is held by 35.24, "1,250" by 1,249.6, "25 %" by
0.25 or by 25. A number no result holds is reported with its sentence so the Author can drop or
fix that sentence.

Not checked as numbers: station ids and other long digit strings with a leading zero, dates
(``1945-01-01``), list numbering at the start of a line, and text inside backticks.
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterable, Mapping

__all__ = ["NUMBER", "numbers_in", "number_pool", "matches", "verify", "sentences"]

NUMBER = re.compile(r"(?<![\w.])(?P<sign>[-−])?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?P<pct>\s?%)?(?![\w])")
_DATE = re.compile(r"\b\d{4}-\d{2}(?:-\d{2})?\b")
_CODE = re.compile(r"`[^`]*`")
_LISTNUM = re.compile(r"^\s*\d+[.)]\s", re.M)
_ID = re.compile(r"\b0\d{5,}\b|\b\d{8,}\b")
_URL = re.compile(r"https?://\S+|doi\.org/\S+|\b10\.\d{4,}/\S+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])|\n+")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text or "") if s.strip()]


def _scrub(text: str) -> str:
    for pat in (_CODE, _URL, _DATE, _ID):
        text = pat.sub(" ", text)
    return _LISTNUM.sub(" ", text)


def numbers_in(text: str) -> list[dict[str, Any]]:
    """The numbers a text states: ``{text, value, decimals, percent}`` each."""
    out = []
    for m in NUMBER.finditer(_scrub(text or "")):
        raw = m.group("num")
        value = float(raw.replace(",", ""))
        if m.group("sign"):
            value = -value
        decimals = len(raw.split(".")[1]) if "." in raw else 0
        out.append({"text": m.group(0).strip(), "value": value, "decimals": decimals, "percent": bool(m.group("pct"))})
    return out


# Blocks of a payload whose numbers a sentence may not quote: provenance, and the compact series kept only
# for drawing (rounded, monthly: a sentence quoting one would be quoting a drawing).
UNQUOTED = ("meta", "plot")


def _walk(obj: Any, out: set[float], *, skip_meta: bool = True) -> None:
    if isinstance(obj, bool) or obj is None:
        return
    if isinstance(obj, (int, float)):
        if math.isfinite(obj):
            out.add(float(obj))
        return
    if isinstance(obj, str):
        for n in numbers_in(obj):
            out.add(n["value"])
        return
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            if skip_meta and k in UNQUOTED:
                continue
            _walk(v, out, skip_meta=skip_meta)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _walk(v, out, skip_meta=skip_meta)


def number_pool(*sources: Any) -> set[float]:
    """Every finite number inside ``sources`` (dicts, lists, strings), ``meta`` and ``plot`` blocks excluded."""
    pool: set[float] = set()
    for s in sources:
        _walk(s, pool)
    return pool


def matches(number: Mapping[str, Any], pool: Iterable[float]) -> bool:
    """Whether some pool value, rounded to the number's written precision, equals it.

    Whole numbers written without decimals also match at a coarser rounding when they carry
    trailing zeros ("1,200" is held by 1,234 only if written as "1,200" from a 2-significant-figure
    rounding). Percentages match the value or a fraction.
    """
    v = number["value"]
    d = number["decimals"]
    candidates = [v]
    if number.get("percent"):
        candidates.append(v / 100.0)
    for target in candidates:
        dd = d + (2 if target is not v else 0)
        tol = 0.5 * 10 ** (-dd) + 1e-9
        for p in pool:
            if abs(p - target) <= tol:
                return True
            # significant-figure rounding of large whole numbers ("1,200" from 1,234)
            if dd == 0 and target != 0 and p != 0 and abs(target) >= 100:
                zeros = len(str(int(abs(target)))) - len(str(int(abs(target))).rstrip("0"))
                if zeros and abs(round(p, -zeros) - target) < 1e-9:
                    return True
    return False


def verify(text: str, pool: Iterable[float], *, allowed: Iterable[float] = ()) -> dict[str, Any]:
    """Check every number in ``text`` against ``pool`` (and ``allowed`` free numbers).

    Returns ``{ok, checked, unmatched: [{number, sentence}]}``.
    """
    pool = set(pool) | {float(a) for a in allowed}
    unmatched = []
    checked = 0
    for sent in sentences(_LISTNUM.sub(" ", text or "")):
        for n in numbers_in(sent):
            checked += 1
            if not matches(n, pool):
                unmatched.append({"number": n["text"], "sentence": sent})
    return {"ok": not unmatched, "checked": checked, "unmatched": unmatched}
