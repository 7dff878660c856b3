"""Prose from outside the crew (a client's own model, a person), held to the same rule as the Author's.

- :func:`role_context` is what a role's model would be given (its system prompt and the evidence), so a
  client that runs its own model (an MCP host) can write the prose itself;
- :func:`narrate` takes that prose back for a finished study: each sentence is checked against the
  numbers the results hold (aquascope_core.verify) and dropped when one of its numbers is in no result;
  the report records who wrote which section and the files are written again.
"""

from __future__ import annotations

from typing import Any, Mapping

from aquascope_core.errors import InputError, StudyError
from aquascope_core.verify import sentences, verify
from aquascope_core.workspace import ArtifactStore, Workspace

__all__ = ["role_context", "narrate", "NARRATABLE"]

NARRATABLE = ("summary", "problem", "recommendations")
_ROLES = ("consultant", "interpreter", "author")


def role_context(ws: Workspace, role: str, text: str | None = None) -> dict[str, Any]:
    """{role, system, payload, sections}: what the role's model would read."""
    from roles import prompts

    if role not in _ROLES:
        raise InputError.bad_value("role", role, "one of " + ", ".join(_ROLES))
    system = {"consultant": prompts.CONSULTANT_SYSTEM, "interpreter": prompts.INTERPRETER_SYSTEM,
              "author": prompts.AUTHOR_SYSTEM}[role]
    if role == "consultant":
        payload = {"problem": text or (ws.brief or {}).get("problem") or ws.request.get("text"), "site": ws.site,
                   "brief": ws.brief}
    elif role == "interpreter":
        payload = {"findings": (ws.findings or {}).get("findings"), "run": {"summary": (ws.run or {}).get("summary"),
                                                                             "failed_steps": (ws.run or {}).get("failed_steps")}}
    else:
        payload = {"decision": (ws.findings or {}).get("decision"),
                   "key_numbers": [{k: f.get(k) for k in ("label", "value", "unit", "band")}
                                   for f in (ws.findings or {}).get("findings", [])],
                   "critique": {"ok": (ws.critique or {}).get("ok"), "issues": (ws.critique or {}).get("issues")},
                   "caveats": ((ws.study or {}).get("plan") or {}).get("caveats"), "sections": list(NARRATABLE)}
    return {"role": role, "system": system, "payload": payload, "sections": list(NARRATABLE) if role == "author" else []}


def narrate(ws: Workspace, sections: Mapping[str, str], source: str, store: ArtifactStore) -> dict[str, Any]:
    """Put checked prose into a finished study's report; {dropped, kept, written_by}."""
    from roles.author import write_files
    from roles.critic import evidence_pool

    if ws.status != "done" or not ws.report:
        raise StudyError(f"narrate needs a finished study (status {ws.status!r})",
                         recovery="Approve the plan so the Author writes the report first.")
    if not isinstance(sections, Mapping) or not sections:
        raise InputError.bad_value("sections", sections, "a mapping of section id to text, ids among "
                                   + ", ".join(NARRATABLE))
    unknown = [k for k in sections if k not in NARRATABLE]
    if unknown:
        raise InputError.bad_value("sections", unknown, "section ids among " + ", ".join(NARRATABLE))
    if not isinstance(source, str) or not source.strip():
        raise InputError.bad_value("source", source, "who wrote the prose (a model name or a person)")
    pool = evidence_pool(ws)
    report = dict(ws.report)
    written_by = dict(report.get("written_by") or {})
    dropped, kept_n = [], 0
    new_sections = []
    for sec in report.get("sections") or []:
        text = sections.get(sec.get("id"))
        if not isinstance(text, str) or not text.strip():
            new_sections.append(sec)
            continue
        kept = []
        for sent in sentences(text):
            v = verify(sent, pool)
            if v["ok"]:
                kept.append(sent)
            else:
                dropped.append({"section": sec["id"], "sentence": sent, "numbers": [u["number"] for u in v["unmatched"]]})
        if kept:
            kept_n += len(kept)
            sec = {**sec, "text": " ".join(kept) + ("\n\n" + sec["text"] if sec["id"] == "summary" else "")}
            written_by[sec["id"]] = source.strip()
        new_sections.append(sec)
    report.update(sections=new_sections, written_by=written_by, dropped=[*(report.get("dropped") or []), *dropped])
    ws.report = report
    write_files(ws, store)
    return {"dropped": len(dropped), "kept": kept_n, "written_by": written_by, "dropped_sentences": dropped}
