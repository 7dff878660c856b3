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
