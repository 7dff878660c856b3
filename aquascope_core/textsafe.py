"""Text from outside (the user's brief, upload names, column headers, follow-ups, a model's prose) made safe.

- :func:`md_inline` turns any text into one line of Markdown that renders as exactly that text: no heading,
  list, table, block quote, code block, link, image, emphasis or HTML can be forged from it, because every
  line break is folded into a space and every Markdown or HTML punctuation mark is backslash-escaped.
- :func:`clean_text` removes what no text should carry (lone surrogates, control characters other than tab and
  line breaks) so a brief pasted from anywhere can be stored, checkpointed and printed.
- :func:`looks_like_credential` and :func:`redact` find and blank anything resembling an API key, a bearer token
  or a password, by key name (``api_key``, ``token``, ...) or by shape (``sk-...``, ``ghp_...``, ...).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Mapping

__all__ = ["clean_text", "md_inline", "md_prose", "looks_like_credential", "redact", "REDACTED", "SECRET_KEY_NAMES"]

REDACTED = "[redacted]"

# Every ASCII punctuation mark CommonMark lets a backslash escape that can start or close a construct.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+!|~&:@])")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def clean_text(text: Any, *, max_chars: int | None = None) -> str:
    """``text`` as a str without lone surrogates, control or bidi-override characters (NFC-normalised)."""
    s = text if isinstance(text, str) else ("" if text is None else str(text))
    s = _SURROGATE.sub("\ufffd", s)
    s = unicodedata.normalize("NFC", s)
    s = _CONTROL.sub(" ", s)
    if max_chars is not None and len(s) > max_chars:
        s = s[:max_chars] + "…"
    return s


def md_inline(text: Any, *, max_chars: int | None = 2000) -> str:
    """One line of Markdown that shows ``text`` literally (see the module docstring)."""
    s = clean_text(text, max_chars=max_chars)
    s = " ".join(s.split())  # line breaks, tabs and runs of spaces fold into single spaces
    s = _MD_SPECIAL.sub(r"\\\1", s)
    s = re.sub(r"(?i)\bwww\.", lambda m: m.group(0)[:3] + "\\.", s)  # no bare www. autolink either
    # a number followed by '.' or ')' at the very start would still open a list if the text were put on a line
    # of its own; escaping the punctuation after the digits keeps it text
    s = re.sub(r"^(\d+)([.)])", r"\1\\\2", s)
    return s


_PROSE_SPECIAL = re.compile(r"([\\\[\]<>|#!`~&])")


def md_prose(text: Any, *, max_chars: int | None = 5000) -> str:
    """A model's sentence as one line of Markdown: bold and italic marks stay, but no heading, table, link, image,
    code or HTML can come from it."""
    s = " ".join(clean_text(text, max_chars=max_chars).split())
    s = _PROSE_SPECIAL.sub(r"\\\1", s)
    return re.sub(r"(?i)\bwww\.", lambda m: m.group(0)[:3] + "\\.", s)


# -- credentials ------------------------------------------------------------------------------

SECRET_KEY_NAMES = re.compile(r"(api[_-]?key|apikey|secret|token|password|passwd|authori[sz]ation|credential|"
                              r"private[_-]?key|access[_-]?key|session[_-]?key|cookie)", re.I)
_CREDENTIAL = re.compile(
    r"(?<![A-Za-z0-9])("
    r"sk-(?:proj-|ant-|or-)?[A-Za-z0-9_-]{16,}"       # OpenAI, Anthropic, OpenRouter style keys
    r"|(?:ghp|gho|ghu|ghs|github_pat)_[A-Za-z0-9_]{20,}"  # GitHub tokens
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"                  # Slack tokens
    r"|AKIA[0-9A-Z]{16}"                               # AWS access key ids
    r"|AIza[0-9A-Za-z_-]{30,}"                         # Google API keys
    r"|hf_[A-Za-z0-9]{30,}"                            # Hugging Face tokens
    r"|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"  # JSON web tokens
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r")"
    r"|(?i:\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=-]{16,})"
    r"|(?i:\b(?:api[_-]?key|token|secret|password|authorization)\b\s*[:=]\s*\S{8,})"
)


def looks_like_credential(text: Any) -> bool:
    """True when ``text`` holds something shaped like a key, token or password assignment."""
    return isinstance(text, str) and bool(_CREDENTIAL.search(text))


def redact(obj: Any, *, secrets: tuple[str, ...] = (), shapes: bool = True) -> Any:
    """A copy of ``obj`` with credential-named entries (string values under a key such as ``api_key``) and,
    with ``shapes``, credential-shaped strings replaced by REDACTED.

    ``secrets`` are exact values to blank as well (the key a caller passed, in whatever field it turns up).
    Without ``shapes`` only names and exact secrets count, so bulky data (an upload's bytes) is left as it is.
    """
    known = tuple(s for s in secrets if isinstance(s, str) and len(s) >= 6)
    if isinstance(obj, str):
        out = obj
        for s in known:
            out = out.replace(s, REDACTED)
        return _CREDENTIAL.sub(REDACTED, out) if shapes else out
    if isinstance(obj, Mapping):
        return {k: (REDACTED if isinstance(k, str) and SECRET_KEY_NAMES.search(k) and isinstance(v, str)
                    and v not in ("", REDACTED) else redact(v, secrets=known, shapes=shapes)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [redact(v, secrets=known, shapes=shapes) for v in obj]
    if isinstance(obj, tuple):
        return tuple(redact(v, secrets=known, shapes=shapes) for v in obj)
    return obj
