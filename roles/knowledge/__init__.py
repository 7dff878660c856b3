"""Specialist knowledge per problem kind: Markdown bundles spliced into the roles' prompts.

Each ``<kind>.md`` beside this file has named sections: ``Planning`` (the Methodologist's and the Analysts'
fallback proposals), ``Interpretation`` (the Interpreter), ``Critique`` (the Critic), ``Recommendations``
(the Author) and ``Tools`` (catalogue tools a plan for the kind may use beyond those of its playbook). The
bundles are prose for a model; nothing keyless reads them, and no number in them reaches a report unless a
result holds it.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

__all__ = ["bundle", "section", "tools_for", "with_knowledge", "SECTIONS"]

SECTIONS = ("planning", "interpretation", "critique", "recommendations", "tools")
_HERE = Path(__file__).parent


@functools.lru_cache(maxsize=None)
def bundle(kind: str | None) -> dict[str, str]:
    """The sections of the kind's bundle (lower-case names), empty for an unknown kind."""
    path = _HERE / f"{kind}.md"
    if not kind or not path.is_file():
        return {}
    out: dict[str, str] = {}
    name = None
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^##\s+(.+?)\s*$", line)
        if m:
            name = m.group(1).strip().lower()
            out[name] = ""
        elif name is not None:
            out[name] += line + "\n"
    return {k: v.strip() for k, v in out.items()}


def section(kind: str | None, name: str) -> str:
    return bundle(kind).get(name.lower(), "")


@functools.lru_cache(maxsize=None)
def tools_for(kind: str | None) -> tuple[str, ...]:
    """The catalogue tools a plan for ``kind`` may use: its playbook's and those its bundle adds."""
    from aquascope_core import playbooks

    tools: set[str] = set()

    def walk(obj) -> None:
        if isinstance(obj, dict):
            if isinstance(obj.get("tool"), str):
                tools.add(obj["tool"])
            for v in obj.values():
                walk(v)
        elif isinstance(obj, list):
            for v in obj:
                walk(v)

    if kind:
        try:
            walk(playbooks.load(kind))
        except Exception:  # noqa: BLE001 - an unknown kind has no playbook tools
            pass
    tools.update(re.findall(r"^-\s*([a-z0-9_]+)\s*$", section(kind, "tools"), re.M))
    return tuple(sorted(tools))


def with_knowledge(system: str, kind: str | None, name: str) -> str:
    """``system`` with the kind's section appended (unchanged when the bundle has none)."""
    text = section(kind, name)
    if not text:
        return system
    return f"{system}\n\nWhat a consulting hydrologist knows about {str(kind).replace('_', ' ')} studies ({name}):\n{text}"
