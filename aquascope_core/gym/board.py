"""Results files, the Markdown leaderboard and the comparison of two runs.

A results file is JSONL, one :func:`aquascope_core.gym.scoring.score` row a line. The leaderboard has one
row per agent x model; a rate is over the tasks it applies to (gates: solved tasks the agent solved;
faithfulness and the other deliverable scores: tasks where the agent delivered a report) and shows ``—``
when it applies to none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from aquascope_core.errors import InputError

__all__ = ["read_results", "write_results", "leaderboard", "compare", "compare_markdown", "outcome_of"]


def write_results(rows: Iterable[Mapping[str, Any]], path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(dict(r), ensure_ascii=False, default=str) + "\n" for r in rows), encoding="utf-8")
    return path


def read_results(path: str | Path) -> list[dict[str, Any]]:
    path = Path(path)
    if not path.is_file():
        raise InputError(f"no results file at {path}", argument="results", value=str(path),
                         recovery="Give a JSONL file written by `aquascope gym bench --out`.")
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InputError(f"{path} line {n} is not JSON: {exc}", argument="results", value=str(path)) from None
    return rows


def _rate(rows: Sequence[Mapping[str, Any]], field: str) -> str:
    seen = [r[field] for r in rows if r.get(field) is not None]
    if not seen:
        return "—"
    return f"{100.0 * sum(bool(x) for x in seen) / len(seen):.0f} % ({sum(bool(x) for x in seen)}/{len(seen)})"


def _figures(rows: Sequence[Mapping[str, Any]]) -> str:
    figs = [r["figures"] for r in rows if r.get("figures")]
    if not figs:
        return "none shown"
    described = sum(f.get("by_spec") or 0 for f in figs)  # scored by what they plot, not drawn (the gym's crew)
    return f"{sum(f['present'] for f in figs)}/{sum(f['shown'] for f in figs)}" + (
        f" ({described} by specification)" if described else "")


def leaderboard(rows: Iterable[Mapping[str, Any]], *, title: str = "Gym leaderboard") -> str:
    """One Markdown table row per agent x model (see the module doc)."""
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for r in rows:
        groups.setdefault((str(r.get("agent")), r.get("model") or "keyless"), []).append(r)
    head = ["Agent", "Model", "Tasks", "Accuracy", "Branch (solvable)", "Gates", "Declines", "Faithfulness",
            "Critique clean", "Sections", "Figures", "Grade within ceiling", "Tokens/task", "s/task", "USD"]
    lines = [f"## {title}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (agent, model), rs in sorted(groups.items()):
        solvable = [r for r in rs if not r.get("unsolvable")]
        costs = [r.get("usd") for r in rs]
        usd = "—" if not rs else ("unknown" if any(c is None for c in costs) and any(r.get("tokens") for r in rs)
                                  else f"{sum(c or 0.0 for c in costs):.4f}")
        n = len(rs)
        errors = sum(1 for r in rs if r.get("error"))
        lines.append("| " + " | ".join([
            agent, model, f"{n}" + (f" ({errors} errors)" if errors else ""), _rate(rs, "correct"),
            _rate(solvable, "branch_ok"), _rate(rs, "gates_ok"), _rate(rs, "decline_ok"), _rate(rs, "faithful"),
            _rate(rs, "critique_clean"), _rate(rs, "sections_ok"), _figures(rs), _rate(rs, "grade_ok"),
            f"{sum(int(r.get('tokens') or 0) for r in rs) / max(n, 1):.0f}",
            f"{sum(float(r.get('seconds') or 0.0) for r in rs) / max(n, 1):.3f}", usd]) + " |")
    return "\n".join(lines) + "\n"


def outcome_of(row: Mapping[str, Any]) -> dict[str, Any]:
    """What counts as a task's outcome when two runs are compared."""
    return {k: row.get(k) for k in ("correct", "declined", "branch", "gates_ok", "faithful", "grade_ok")}


def compare(a: Sequence[Mapping[str, Any]], b: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Tasks whose outcome changed from ``a`` to ``b`` (and tasks in one run only)."""
    by_a = {(r["task"]): r for r in a}
    by_b = {(r["task"]): r for r in b}
    changed = []
    for tid in sorted(set(by_a) | set(by_b)):
        ra, rb = by_a.get(tid), by_b.get(tid)
        if ra is None or rb is None:
            changed.append({"task": tid, "before": outcome_of(ra) if ra else None, "after": outcome_of(rb) if rb else None,
                            "fields": ["only in " + ("B" if ra is None else "A")]})
            continue
        oa, ob = outcome_of(ra), outcome_of(rb)
        diff = [k for k in oa if oa[k] != ob[k]]
        if diff:
            changed.append({"task": tid, "before": oa, "after": ob, "fields": diff})
    return changed


def compare_markdown(changes: Sequence[Mapping[str, Any]]) -> str:
    if not changes:
        return "No task changed its outcome.\n"
    lines = ["| Task | Changed | Before | After |", "|---|---|---|---|"]
    for c in changes:
        def show(o: Mapping[str, Any] | None, fields: Sequence[str]) -> str:
            if o is None:
                return "absent"
            return ", ".join(f"{k}={o.get(k)}" for k in fields if k in o)

        fields = [f for f in c["fields"] if not f.startswith("only in")] or ["correct", "branch", "declined"]
        lines.append(f"| {c['task']} | {', '.join(c['fields'])} | {show(c['before'], fields)} | {show(c['after'], fields)} |")
    return "\n".join(lines) + "\n"
