"""A gate's detail as the report prints it (roles.author._detail): a detail the gate already rounded keeps its
digits but is written out as a reader writes numbers (the printed Bulletin 17C report showed
'interval at 100 years [1.89e+04, 3.607e+04]'); one the gate did not round is rounded like the prose."""

from __future__ import annotations

from roles.author import _detail


def test_a_rounded_detail_is_written_out_with_its_digits():
    assert _detail("interval at 100 years [1.89e+04, 3.607e+04]") == "interval at 100 years [18,900, 36,070]"
    assert _detail("p = 1.2e-05 against 0.05") == "p = 0.000012 against 0.05"


def test_an_unrounded_detail_is_rounded_like_the_prose():
    assert _detail("interval at 100 years [97.53, 189.2]") == "interval at 100 years [97.5, 189]"


def test_a_presence_gate_says_in_words_what_it_checked():
    """The not_empty gate's detail names the internal field it read ("best.r holds 1 value(s)"); the report says
    what was checked instead, with the count in words."""
    from roles.author import _gate_rows

    rows = _gate_rows([{"check": "not_empty", "passed": True, "seen": 1, "threshold": "at least one value",
                        "detail": "best.r holds 1 value(s)"},
                       {"check": "not_empty", "passed": True, "seen": 79, "threshold": "at least one value",
                        "detail": "values holds 79 value(s)"},
                       {"check": "not_empty", "passed": False, "seen": 0, "threshold": "at least one value",
                        "detail": "by_index is empty"}])
    details = [r[-1] for r in rows]
    assert details == ["the result the report quotes is present (one value)",
                       "the result the report quotes is present (79 values)",
                       "the result the report quotes is missing or empty"]
    assert not any("value(s)" in d or "best.r" in d or "by_index" in d for d in details)
