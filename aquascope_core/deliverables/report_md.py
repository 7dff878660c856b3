"""The report and the plan as Markdown, from the report dict the Author writes."""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping, Sequence

__all__ = ["table_markdown", "render_markdown", "plan_markdown", "SECTION_ORDER"]

SECTION_ORDER = ("summary", "problem", "site_data", "methodology", "results", "limitations", "recommendations",
                 "references", "appendix")


def _cell(x: Any) -> str:
    if x is None:
        return ""
    return re.sub(r"(?<!\\)\|", r"\\|", str(x)).replace("\n", " ")  # a pipe md_inline escaped stays escaped once


def table_markdown(columns: Sequence[str], rows: Iterable[Sequence[Any]], caption: str | None = None) -> str:
    lines = []
    if caption:
        lines.append(f"*{caption}*")
        lines.append("")
    lines.append("| " + " | ".join(_cell(c) for c in columns) + " |")
    lines.append("|" + "|".join("---" for _ in columns) + "|")
    for r in rows:
        lines.append("| " + " | ".join(_cell(c) for c in r) + " |")
    return "\n".join(lines)


def _section_md(sec: Mapping[str, Any], level: int = 2) -> str:
    out = [f"{'#' * level} {sec['title']}", ""]
    if sec.get("text"):
        out += [sec["text"].rstrip(), ""]
    for f in sec.get("figures", []) or []:
        label = str(f.get("caption") or "")
        if f.get("number") and not label.lower().startswith("figure"):
            label = f"Figure {f['number']}. {label}"
        out += [f"![{label}]({f.get('name')})", "", f"*{label}*", ""]
    for note in sec.get("figure_notes", []) or []:
        out += [f"_{note}_", ""]
    for t in sec.get("tables", []) or []:
        out += [table_markdown(t["columns"], t["rows"], t.get("caption")), ""]
    for sub in sec.get("subsections", []) or []:
        out += [_section_md(sub, level + 1)]
    return "\n".join(out).rstrip() + "\n"


def render_markdown(report: Mapping[str, Any]) -> str:
    """The whole report as Markdown, sections in the order the report dict lists them."""
    parts = [f"# {report.get('title', 'Study report')}", ""]
    if report.get("subtitle"):
        parts += [f"_{report['subtitle']}_", ""]
    for sec in report.get("sections", []):
        parts.append(_section_md(sec))
    footer = report.get("footer") or {}
    if footer.get("text"):
        parts += ["---", "", footer["text"], ""]
    return "\n".join(parts).rstrip() + "\n"


def plan_markdown(study: Any) -> str:
    """The plan as a person reviews it: objective, branch and why, methodology, steps with their gates."""
    from aquascope_core.study import Study

    s = study if isinstance(study, Study) else Study.from_dict(study)
    p = s.plan or {}
    lines = [f"## Plan: {s.title or p.get('playbook', '')}", ""]
    if p.get("objective"):
        lines += [f"**Objective.** {p['objective']}", ""]
    asked = [a["text"] for a in p.get("asks") or [] if a.get("text")]
    for text in asked:  # the data the plan asks for, first: reply with it, or approve the plan to go on without it
        lines += [f"**{text}**" if not text.startswith("**") else text, ""]
    if p.get("branch"):
        lines += [f"**Approach.** {p.get('branch_label', p['branch'])} ({p.get('playbook')} / {p['branch']}). "
                  f"{p.get('rationale', '')}".rstrip(), ""]
    if p.get("methodology"):
        from aquascope_core.methodology import texts

        lines += ["**Methodology.**", ""] + [f"{i}. {m}" for i, m in enumerate(texts(p["methodology"]), 1)] + [""]
    rows = []
    for st in s.steps:
        gates = "; ".join(_gate_text(g) for g in st.expects) or "none"
        rows.append([st.id, st.title or st.tool, st.tool + (" (optional)" if st.optional else ""), gates])
    lines += [table_markdown(["Step", "What", "Tool", "Gates"], rows), ""]
    if p.get("assumptions"):
        lines += ["**Assumptions.**", ""] + [f"- {a}" for a in p["assumptions"]] + [""]
    notes = [n for n in p.get("notes") or [] if n not in asked]
    if notes:
        lines += ["**Notes.**", ""] + [f"- {n}" for n in notes] + [""]
    return "\n".join(lines).rstrip() + "\n"


def _gate_text(g: Mapping[str, Any]) -> str:
    bits = [str(g.get("check"))]
    if g.get("value") is not None:
        bits.append(f"{g['value']}")
    if g.get("return_period") is not None:
        bits.append(f"at T={g['return_period']}")
    return " ".join(bits)
