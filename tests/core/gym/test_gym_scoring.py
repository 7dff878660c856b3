"""The gym's pure scoring pieces: gates against the key, grades against the ceiling, the board, compare."""

from __future__ import annotations

from aquascope_core.gym.board import compare, compare_markdown, leaderboard, read_results, write_results
from aquascope_core.gym.scoring import gates_respected, grade_within

KEY = [{"id": "s1", "tool": "station_record", "optional": False,
        "expects": [{"check": "min_length", "path": "years", "value": 20}]},
       {"id": "s2", "tool": "flood_frequency", "optional": False,
        "expects": [{"check": "ci_finite", "path": "fits", "return_period": 100}]}]


def _study(*steps):
    return {"steps": list(steps)}


def test_gates_must_be_kept_as_the_key_has_them():
    s1 = {"id": "s1", "tool": "station_record", "expects": KEY[0]["expects"]}
    s2 = {"id": "s2", "tool": "flood_frequency", "expects": KEY[1]["expects"] + [{"check": "extra", "path": "x"}]}
    run = {"results": {"s1": {"status": "ok", "gates": [{"passed": True}]}, "s2": {"status": "failed", "gates": []}}}
    assert gates_respected(KEY, _study(s1, s2), run) == (True, [])  # an added gate is fine; a failed step is not used
    loose = {**s1, "expects": [{"check": "min_length", "path": "years", "value": 10}]}
    ok, why = gates_respected(KEY, _study(loose, s2), run)
    assert not ok and why == ["s1 (station_record): gates missing or changed: min_length"]
    ok, why = gates_respected(KEY, _study(s1), run)
    assert not ok and "the plan has no such step" in why[0]
    ok, why = gates_respected(KEY, _study(s1, s2), {"results": {"s1": {"status": "ok", "gates": []}}})
    assert not ok and why == ["s1: established with no gate rows"]
    # the key's step may sit under another id (a companion or a replan renames it)
    moved = {**s2, "id": "flood_s2"}
    assert gates_respected(KEY, _study(s1, moved), run)[0]


def test_grades_are_compared_with_the_ceiling():
    assert grade_within("A", "A") and grade_within("C", "A") and grade_within("not established", "B")
    assert grade_within("A", "C") is False
    assert grade_within(None, "A") is None and grade_within("A", None) is None and grade_within("Z", "A") is None


ROWS = [
    {"task": "a", "agent": "team", "model": None, "unsolvable": False, "correct": True, "branch_ok": True,
     "gates_ok": True, "decline_ok": True, "faithful": True, "critique_clean": True, "sections_ok": True,
     "figures": {"shown": 2, "present": 2, "missing": []}, "grade_ok": True, "tokens": 0, "usd": 0.0, "seconds": 0.2,
     "declined": False, "branch": "at_site"},
    {"task": "b", "agent": "team", "model": None, "unsolvable": True, "correct": True, "branch_ok": False,
     "gates_ok": None, "decline_ok": True, "faithful": True, "critique_clean": None, "sections_ok": True,
     "figures": None, "grade_ok": None, "tokens": 0, "usd": 0.0, "seconds": 0.1, "declined": True, "branch": None},
    {"task": "a", "agent": "ask", "model": "openai/x", "unsolvable": False, "correct": False, "branch_ok": False,
     "gates_ok": False, "decline_ok": True, "faithful": None, "critique_clean": None, "sections_ok": None,
     "figures": None, "grade_ok": None, "tokens": 1200, "usd": None, "seconds": 1.5, "declined": False,
     "branch": "regional", "error": None},
]


def test_the_leaderboard_has_one_row_per_agent_and_model(tmp_path):
    board = leaderboard(ROWS)
    lines = [ln for ln in board.splitlines() if ln.startswith("| ask") or ln.startswith("| team")]
    assert lines[0] == ("| ask | openai/x | 1 | 0 % (0/1) | 0 % (0/1) | 0 % (0/1) | 100 % (1/1) | — | — | — | none shown "
                        "| — | 1200 | 1.500 | unknown |")
    assert lines[1] == ("| team | keyless | 2 | 100 % (2/2) | 100 % (1/1) | 100 % (1/1) | 100 % (2/2) | 100 % (2/2) "
                        "| 100 % (1/1) | 100 % (2/2) | 2/2 | 100 % (1/1) | 0 | 0.150 | 0.0000 |")
    path = write_results(ROWS, tmp_path / "r.jsonl")
    assert read_results(path) == ROWS


def test_compare_lists_only_what_changed():
    before = ROWS[:2]
    after = [dict(ROWS[0], correct=False, branch="regional"), ROWS[1], dict(ROWS[1], task="c")]
    changes = compare(before, after)
    assert [c["task"] for c in changes] == ["a", "c"]
    assert changes[0]["fields"] == ["correct", "branch"] and changes[1]["fields"] == ["only in B"]
    md = compare_markdown(changes)
    assert "| a | correct, branch | correct=True, branch=at_site | correct=False, branch=regional |" in md
    assert compare_markdown([]) == "No task changed its outcome.\n"
