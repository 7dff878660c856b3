"""The score of one agent's outcome on one task.

An outcome is the dict an agent returns (``graphs/gym_agents.py``)::

    {"agent", "model", "declined", "reason", "playbook", "branch", "study", "run",
     "workspace", "store_root", "tokens", "usd", "seconds", "error"}

``workspace``/``store_root`` are present when the agent delivered a report (the crew); the tree and the
single-call agent deliver a run only, and their deliverable scores are ``None`` (not applicable), never a pass.

The row :func:`score` returns (one line of the results JSONL):

- ``correct``: declined exactly when the task is unsolvable, and otherwise the playbook and branch of the key;
- ``gates_ok``: on a solved task, every gate the key expects is in the agent's plan with the same check and
  thresholds (a plan may add gates, never drop or loosen one), and every step established (status ok) recorded
  its gate rows (a step that failed before its gates is not established, which the grade and the critique
  already count);
- ``decline_ok``: declined if and only if unsolvable;
- the deliverable's ``faithful``, ``critique_clean``, ``sections_ok``, ``figures`` and ``grade_ok`` (the grade
  the report states is no better than the key's ceiling) from :func:`aquascope_core.gym.deliverable.check_deliverable`;
- ``tokens``, ``usd``, ``seconds``.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from aquascope_core.gym.tasks import GRADES, Task

__all__ = ["score", "gates_respected", "grade_within"]


def _canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, default=str)


def gates_respected(key_steps: list[Mapping[str, Any]], study: Mapping[str, Any] | None,
                    run: Mapping[str, Any] | None) -> tuple[bool, list[str]]:
    """(ok, what is missing) for the key's gates against the agent's plan and run."""
    problems: list[str] = []
    steps = list((study or {}).get("steps") or [])
    for ks in key_steps:
        same_tool = [s for s in steps if s.get("tool") == ks["tool"]]
        if not same_tool:
            problems.append(f"{ks['id']} ({ks['tool']}): the plan has no such step")
            continue
        want = [_canon(g) for g in ks.get("expects") or []]
        best = max(same_tool, key=lambda s: (s.get("id") == ks["id"],
                                             sum(w in {_canon(g) for g in s.get("expects") or []} for w in want)))
        have = {_canon(g) for g in best.get("expects") or []}
        lost = [json.loads(w).get("check", "?") for w in want if w not in have]
        if lost:
            problems.append(f"{ks['id']} ({ks['tool']}): gates missing or changed: {', '.join(map(str, lost))}")
    for sid, r in ((run or {}).get("results") or {}).items():
        if r.get("status") == "ok" and not r.get("gates"):  # a result taken without its checks
            problems.append(f"{sid}: established with no gate rows")
    return not problems, problems


def grade_within(grade: str | None, ceiling: str | None) -> bool | None:
    """True when ``grade`` is no better than ``ceiling`` (None when either is unknown)."""
    if grade is None or ceiling is None or grade not in GRADES or ceiling not in GRADES:
        return None
    return GRADES.index(grade) >= GRADES.index(ceiling)


def score(task: Task, outcome: Mapping[str, Any]) -> dict[str, Any]:
    """One results row (see the module doc)."""
    from aquascope_core.gym.deliverable import check_deliverable

    key = task.key or {}
    unsolvable = bool(key.get("unsolvable"))
    declined = bool(outcome.get("declined"))
    error = outcome.get("error")
    playbook_ok = outcome.get("playbook") == task.playbook
    branch_ok = (not unsolvable) and playbook_ok and outcome.get("branch") == key.get("branch")
    decline_ok = declined == unsolvable and not error
    row: dict[str, Any] = {
        "task": task.id, "split": task.split, "playbook": task.playbook, "site": task.site.get("id"),
        "agent": outcome.get("agent"), "model": outcome.get("model"),
        "unsolvable": unsolvable, "declined": declined, "reason": outcome.get("reason"),
        "expected_branch": key.get("branch"), "branch": outcome.get("branch"), "chosen_playbook": outcome.get("playbook"),
        "playbook_ok": playbook_ok, "branch_ok": branch_ok, "decline_ok": decline_ok,
        "correct": decline_ok and (unsolvable or branch_ok),
        "gates_ok": None, "gate_problems": [],
        "tokens": int(outcome.get("tokens") or 0), "usd": outcome.get("usd"),
        "seconds": round(float(outcome.get("seconds") or 0.0), 4), "error": error,
    }
    if not unsolvable and not declined and not error:
        row["gates_ok"], row["gate_problems"] = gates_respected(key.get("steps") or [], outcome.get("study"),
                                                                outcome.get("run"))
    ws = outcome.get("workspace")
    deliverable = {"faithful": None, "numbers_checked": 0, "critique_clean": None, "sections_ok": None, "figures": None,
                   "grade": None, "grade_ok": None, "unmatched": [], "missing_sections": []}
    if ws is not None:
        d = check_deliverable(ws, outcome.get("store_root"))
        deliverable.update({k: d.get(k) for k in ("faithful", "critique_clean", "sections_ok", "figures", "grade",
                                                  "unmatched", "missing_sections", "basis_not_established")})
        deliverable["numbers_checked"] = d.get("checked") or 0
        deliverable["grade_ok"] = grade_within(d.get("grade"), key.get("ceiling")) if not declined else None
    row.update(deliverable)
    row["ceiling"] = key.get("ceiling")
    return row
