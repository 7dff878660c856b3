"""Prose from a model (the crew's or a face's own), kept sentence by sentence only where the results hold it.

Every role that takes prose from outside the templates goes through :func:`checked_sentences`: a sentence whose
numbers no result holds is dropped and recorded, and a kept sentence is written as words only (no heading, link,
table, image or HTML can come from it).
"""

from __future__ import annotations

from typing import Any, Iterable

from aquascope_core.textsafe import md_prose
from aquascope_core.verify import sentences, verify

__all__ = ["checked_sentences"]


def checked_sentences(text: str, pool: Iterable[float], *, section: str, dropped: list[dict[str, Any]],
                      **tags: Any) -> list[str]:
    """The sentences of ``text`` whose numbers ``pool`` holds, as safe Markdown; the others appended to ``dropped``
    as ``{section, sentence, numbers, **tags}``."""
    pool = set(pool)
    kept = []
    for sent in sentences(text):
        v = verify(sent, pool)
        if v["ok"]:
            kept.append(md_prose(sent))
        else:
            dropped.append({"section": section, "sentence": sent, "numbers": [u["number"] for u in v["unmatched"]],
                            **tags})
    return kept
