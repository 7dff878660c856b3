"""The Critic with a model: an independent reading of the draft report, then the Author's fix round.

    issues = model_review(ws, model, sections)          # one pass: issues with a section, a severity, a fix
    fix_round(ws, author_model, sections, issues, pool)  # the Author rewrites the sections named (checked)
    issues = model_review(ws, model, sections, pass_no=2)

The model reads the draft's sections and the compact results; it never sees the whole workspace. Its
issues are validated (a known section, a known severity, a fix) and recorded in the critique; they do not
replace the deterministic checks, which run after the fix round and always win: a report whose numbers
no result holds gets its notice whatever the model said.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from aquascope_core.verify import verify
from roles.prose import checked_sentences

__all__ = ["model_review", "fix_round", "compact_results", "checked_issues", "SEVERITIES"]

ROLE = "critic"
SEVERITIES = ("blocking", "major", "minor")
_MAX_SECTION_CHARS = 4000


def compact_results(ws: Any) -> dict[str, Any]:
    """Key numbers, gates per step and what was not established: the evidence a reviewer reads against."""
    run = ws.run or {}
    gates = {}
    for sid, r in (run.get("results") or {}).items():
        gates[sid] = {"status": r.get("status"), "tool": r.get("tool"),
                      "gates": [{k: g.get(k) for k in ("check", "passed", "seen", "threshold")} for g in r.get("gates") or []]}
    findings = ws.findings or {}
    return {"decision": {k: (findings.get("decision") or {}).get(k) for k in ("answer", "value", "unit", "grade")},
            "key_numbers": [{k: f.get(k) for k in ("label", "value", "unit", "band", "basis")}
                            for f in findings.get("findings") or []],
            "steps": gates,
            "not_established": (ws.critique or {}).get("not_established") or []}


def _section_rows(sections: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for s in sections:
        text = s.get("text") or ""
        for sub in s.get("subsections") or []:
            text += f"\n\n{sub.get('title', '')}\n{sub.get('text') or ''}"
        rows.append({"id": s["id"], "title": s.get("title"), "text": text[:_MAX_SECTION_CHARS]})
    return rows


def model_review(ws: Any, model: Any, sections: Sequence[Mapping[str, Any]], *, pass_no: int = 1) -> list[dict[str, Any]] | None:
    """The model's issues with the draft (validated), or None when its reply could not be used."""
    from roles.prompts import CRITIC_SYSTEM

    ids = {s["id"] for s in sections}

    def check(obj: Any) -> list[dict[str, Any]]:
        issues = obj.get("issues") if isinstance(obj, Mapping) else None
        if not isinstance(issues, list):
            raise ValueError("the reply needs an 'issues' list (empty when the draft stands)")
        out = []
        for it in issues:
            if not isinstance(it, Mapping):
                continue
            section, severity = str(it.get("section") or ""), str(it.get("severity") or "").lower()
            fix = str(it.get("fix") or "").strip()
            if section not in ids or severity not in SEVERITIES or not fix:
                continue  # an issue naming no section of this draft, or no fix, cannot be acted on
            out.append({"section": section, "severity": severity, "problem": str(it.get("problem") or "").strip(),
                        "fix": fix, "source": "model", "pass": pass_no})
        return out

    payload = {"sections": _section_rows(sections), "results": compact_results(ws), "pass": pass_no}
    from roles.knowledge import with_knowledge

    system = with_knowledge(CRITIC_SYSTEM, (ws.brief or {}).get("playbook"), "critique")
    issues = model.call_json(ws, ROLE, system, payload, check)
    ws.event(ROLE, "model_review", {"pass": pass_no, "issues": None if issues is None else len(issues)})
    return issues


def fix_round(ws: Any, model: Any, sections: list[dict[str, Any]], issues: Sequence[Mapping[str, Any]],
              pool: set[float], written_by: dict[str, str], dropped: list[dict[str, Any]], *,
              editable: Sequence[str], keyless: Mapping[str, str] | None = None) -> list[str]:
    """The Author rewrites the sections the issues name (only those it may edit); returns the ids rewritten.

    Every sentence of the rewrite goes through ``verify`` against ``pool``; a sentence whose numbers no result
    holds is dropped and listed in ``dropped``. Without an author model the issues stay recorded for the reader.
    """
    from roles.prompts import AUTHOR_FIX_SYSTEM

    named = [s for s in sections if s["id"] in {i["section"] for i in issues} and s["id"] in editable]
    if model is None or not named:
        return []

    def check(obj: Any) -> dict[str, str]:
        secs = obj.get("sections") if isinstance(obj, Mapping) else None
        if not isinstance(secs, Mapping):
            raise ValueError("the reply needs a 'sections' object")
        return {k: v for k, v in secs.items() if k in {s["id"] for s in named} and isinstance(v, str) and v.strip()}

    payload = {"sections": _section_rows(named), "issues": [dict(i) for i in issues if i["section"] in
                                                             {s["id"] for s in named}],
               "results": compact_results(ws)}
    reply = model.call_json(ws, "author", AUTHOR_FIX_SYSTEM, payload, check)
    if not reply:
        return []
    rewritten = []
    for sec in named:
        text = reply.get(sec["id"])
        if not text:
            continue
        kept = checked_sentences(text, pool, section=sec["id"], dropped=dropped, round="fix")
        if kept:
            tail = (keyless or {}).get(sec["id"]) if sec["id"] == "summary" else None  # the answer and grade stay
            sec["text"] = " ".join(kept) + ("\n\n" + tail if tail else "")
            written_by[sec["id"]] = "model"
            rewritten.append(sec["id"])
    return rewritten


def checked_issues(issues: Sequence[Mapping[str, Any]], pool: set[float]) -> list[dict[str, Any]]:
    """The issues whose words state no number outside ``pool`` (a model's issue is prose like any other)."""
    return [dict(i) for i in issues if verify(f"{i.get('problem', '')} {i.get('fix', '')}", pool)["ok"]]
