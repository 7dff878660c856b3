"""The report's section text, read into blocks the HTML and Word makers both lay out.

The Author writes section text in a small subset of Markdown: paragraphs, ``- `` bullets,
``1. `` numbered items, fenced code blocks, and inline ``**bold**``, ``_italic_`` / ``*italic*``
and `` `code` ``. :func:`blocks` reads it into ``(kind, content)`` pairs:

- ``("p", runs)``, ``("ul", [runs, ...])``, ``("ol", [runs, ...])``, ``("code", text)``;

where ``runs`` is a list of ``(text, style)`` with ``style`` a frozenset of ``bold``, ``italic``,
``code``. Nothing here knows an output format, and no text is interpreted as markup beyond those
few marks: the makers escape every run they write.
"""

from __future__ import annotations

import re
from typing import Iterator, Sequence

__all__ = ["blocks", "runs", "plain"]

Run = tuple[str, frozenset]

_BULLET = re.compile(r"^\s*[-*]\s+(.*)$")
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+(.*)$")
# one inline mark at a time; the first one found wins, nothing nests
_INLINE = re.compile(r"\*\*(?P<bold>.+?)\*\*|`(?P<code>[^`]+)`|(?<![\w*])[_*](?P<italic>[^_*\s][^_*]*?)[_*](?![\w*])")


# a backslash before ASCII punctuation (how aquascope_core.textsafe.md_inline quotes the user's text) makes it literal
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
_HIDDEN = re.compile("\ue000(\\d+)\ue001")


def runs(text: str) -> list[Run]:
    """Inline runs of one line of text (see the module docstring); backslash-escaped marks stay literal text."""
    escaped: list[str] = []

    def hide(m: re.Match) -> str:
        escaped.append(m.group(1))
        return f"\ue000{len(escaped) - 1}\ue001"

    hidden = _ESCAPED.sub(hide, text)

    def shown(part: str) -> str:
        return _HIDDEN.sub(lambda m: escaped[int(m.group(1))], part) if escaped else part

    out: list[Run] = []
    pos = 0
    for m in _INLINE.finditer(hidden):
        if m.start() > pos:
            out.append((shown(hidden[pos:m.start()]), frozenset()))
        for style in ("bold", "code", "italic"):
            if m.group(style) is not None:
                out.append((shown(m.group(style)), frozenset({style})))
                break
        pos = m.end()
    if pos < len(hidden):
        out.append((shown(hidden[pos:]), frozenset()))
    return out


def plain(text: str) -> str:
    """The text with its inline marks removed (for captions, cells and titles)."""
    return "".join(t for t, _ in runs(text or ""))


def blocks(text: str | None) -> Iterator[tuple[str, object]]:
    """The blocks of ``text`` in order (see the module docstring)."""
    lines = (text or "").replace("\r\n", "\n").split("\n")
    i, n = 0, len(lines)
    para: list[str] = []

    def flush() -> Iterator[tuple[str, object]]:
        if para:
            yield "p", runs(" ".join(s.strip() for s in para))
            para.clear()

    while i < n:
        line = lines[i]
        if line.strip().startswith("```"):
            yield from flush()
            body = []
            i += 1
            while i < n and not lines[i].strip().startswith("```"):
                body.append(lines[i])
                i += 1
            yield "code", "\n".join(body)
            i += 1
            continue
        if not line.strip():
            yield from flush()
            i += 1
            continue
        for kind, pattern in (("ul", _BULLET), ("ol", _NUMBERED)):
            if pattern.match(line):
                yield from flush()
                items = []
                while i < n and pattern.match(lines[i]):
                    items.append(runs(pattern.match(lines[i]).group(1)))
                    i += 1
                yield kind, items
                break
        else:
            para.append(line)
            i += 1
    yield from flush()


def is_lead(runs: Sequence[tuple[str, frozenset]]) -> bool:
    """A paragraph that is all bold ("**Caveats.**"): a run-in heading, kept on the page of what follows it."""
    return bool(runs) and all("bold" in style or not text.strip() for text, style in runs) and \
        any(text.strip() for text, _ in runs)
