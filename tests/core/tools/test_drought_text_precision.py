"""A drought index at the status month is written at one precision wherever the report states it: the step's
sentence, the index table and the figure's label said -0.05, -0.0497 and -0.05 for the same SPI-12 in the
printed Leaf River report (three significant figures, as roles.specialists.common.fmt writes every table)."""

from __future__ import annotations

from aquascope_core.tools.drought import _class_text
from roles.specialists.common import fmt


def test_the_sentence_states_the_index_as_the_table_does():
    for v in (-0.0497315653344, -1.5712, 0.41443863846, -2.304):
        assert _class_text({"value": v, "class": "x"}) == f"{fmt(v)} (x)", v
