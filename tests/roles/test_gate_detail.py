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


def test_a_gate_value_is_one_number_in_its_sentence_and_its_seen_column():
    """KGE 0.23753 was printed 0.237 in the gate's sentence (written to four figures, 0.2375, then rounded again to
    three) and 0.238 in the Seen column: the gate writes it once, at three figures, and the report keeps that."""
    from aquascope_core.gates import evaluate_one as evaluate_gate
    from roles.author import _gate_rows

    g = evaluate_gate({"check": "kge_min", "value": 0.5}, {"validation": {"kge": 0.23752627758152622}})
    assert "KGE 0.238 against at least 0.5" in g["detail"]
    row = _gate_rows([g])[0]
    assert row[2] == "0.238" and "0.238" in row[-1] and "0.237" not in row[-1]


def test_a_value_next_to_its_threshold_keeps_the_figures_that_tell_them_apart():
    from aquascope_core.gates import evaluate_one as evaluate_gate
    from aquascope_core.verify import versus_text
    from roles.author import _gate_rows

    assert versus_text(0.4996, 0.5) == "0.4996" and versus_text(0.50004, 0.5) == "0.50004"
    assert versus_text(0.4996, None) == "0.500" and versus_text(0.6, 0.5) == "0.600"
    assert versus_text(93.0, 10) == "93" and versus_text(22927.4, 10) == "22,900"
    g = evaluate_gate({"check": "nse_min", "value": 0.5}, {"validation": {"nse": 0.4996}})
    assert g["passed"] is False and "NSE 0.4996 against at least 0.5" in g["detail"]
    row = _gate_rows([g])[0]
    assert row[2] == "0.4996" and "0.4996 against at least 0.5" in row[-1]  # never "0.500 against at least 0.5"


def test_a_seen_value_of_several_parts_is_named_in_words():
    """Looked at: the Bulletin 17C gates table's Seen cell read 'return_period 106, probability 0.547'."""
    from roles.author import _gate_rows

    row = _gate_rows([{"check": "fit_envelopes_max", "passed": True, "seen": {"return_period": 105.9,
                      "probability": 0.5473}, "threshold": [0.025, 0.975], "detail": "record maximum at 106 years"}])[0]
    assert row[2] == "return period 106, probability 0.547"
