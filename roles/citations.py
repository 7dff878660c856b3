"""The references of a report: only works the study used, each a whole citation, none twice.

- A tool's source may join several works in one string (``"A (1993) ...; B (1997) ..."`` or ``" | "``);
  :func:`split_citations` splits it into works, gluing back a piece that is not a citation on its own (no
  year, or a few words such as ``"Eqs. 58, 62, 65, 66"``) to the work it belongs to.
- :func:`cite_key` is the first author's surname, the year and the first words of the title, so one work
  cited in two wordings is listed once.
- :func:`references` gathers the sources of the steps that ran and, from the playbook's list, only the works
  the methodology of the chosen branch names (by surname and year).
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

__all__ = ["split_citations", "cite_key", "is_whole", "references", "retrieval_note"]

_YEAR = re.compile(r"\b(1[6-9]\d{2}|20\d{2})[a-z]?\b")
_SPLIT = re.compile(r";\s+|\s+\|\s+")


def is_whole(cite: str) -> bool:
    """A citation on its own: a year, an author or body before it, and a few words of title."""
    c = cite.strip()
    return (bool(_YEAR.search(c)) and len(c.split()) >= 4 and c[:1].isupper() and "..." not in c
            and not re.match(r"(?i)(eqs?|pp?|ch|vol)\.", c))


def split_citations(text: str) -> list[str]:
    parts = [p.strip().rstrip(".").strip() for p in _SPLIT.split(text or "") if p.strip()]
    out: list[str] = []
    for p in parts:
        if out and not is_whole(p):
            out[-1] = f"{out[-1]}; {p}"
        else:
            out.append(p)
    return [o if o.endswith(".") else o + "." for o in out]


def cite_key(cite: str) -> str:
    """first surname | first three title words (lower case, no punctuation): one work in two wordings (or with
    its version year) is one key."""
    c = cite.strip()
    m = _YEAR.search(c)
    surname = re.split(r"[,\s(]", c, 1)[0].lower()
    if not m:
        return " ".join(re.findall(r"[a-z0-9]+", c.lower())[:6])
    rest = c[m.end():]
    opened = c[:m.start()].count("(") > c[:m.start()].count(")")
    if opened and ")" in rest:
        rest = rest[rest.index(")") + 1:]
    words = re.findall(r"[a-z][a-z0-9]*", rest.lower())[:3]
    return f"{surname}|{' '.join(words)}"


def _named_in(cite: str, text: str) -> bool:
    """Whether ``text`` names the work (its first author's surname and its year)."""
    m = _YEAR.search(cite)
    surname = re.split(r"[,\s(]", cite.strip(), 1)[0]
    if not m or len(surname) < 3:
        return False
    return bool(re.search(rf"\b{re.escape(surname)}\b[^;()]{{0,60}}?\b{m.group(1)}\b", text))


def references(plan: Mapping[str, Any], results: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The works a report lists, in order: those the chosen methodology names, then the steps' sources."""
    refs: list[str] = []
    seen: set[str] = set()

    def add(cites: Iterable[str]) -> None:
        for c in cites:
            key = cite_key(c)
            if c and key not in seen:
                seen.add(key)
                refs.append(c)

    method_text = " ".join(str(x) for x in (plan.get("methodology") or [])) + " " + str(plan.get("rationale") or "")
    for c in plan.get("citations") or []:
        for work in split_citations(str(c)):
            if _named_in(work, method_text):
                add([work])
    for r in results.values():
        if r.get("status") not in ("ok", "failed"):
            continue
        for src in ((r.get("payload") or {}).get("meta") or {}).get("sources", []):
            if src.get("name") in ("aquascope", "upload"):
                continue  # the engine itself, and the user's own tables (listed under Site and data)
            works = split_citations(str(src.get("citation") or src.get("dataset") or src.get("name") or ""))
            if works and src.get("offline") is False:  # a service's answer: when it was retrieved, and its status
                works[-1] = works[-1].rstrip(".") + retrieval_note(src)
            add(works)
    return refs


def retrieval_note(src: Mapping[str, Any]) -> str:
    """``", retrieved 2026-12-01; includes provisional data, subject to revision."`` for a live source's row."""
    out = f", retrieved {str(src['accessed'])[:10]}" if src.get("accessed") else ""
    if src.get("provisional"):
        out += "; includes provisional data, subject to revision"
    return out + "."
