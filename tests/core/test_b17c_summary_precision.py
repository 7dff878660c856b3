"""One precision per quantity: the Bulletin 17C step's summary sentence prints the weighted skew as the report's
tables do (three significant figures: Big Sandy's 0.0261, not 0.026)."""

from __future__ import annotations

import re

import pytest

from aquascope_core.verify import sig_text
from tests.playbooks.harness import plan_and_run

pytestmark = pytest.mark.slow


def test_the_weighted_skew_in_the_sentence_is_at_the_tables_precision():
    o = plan_and_run("flood_risk", 36.0, -88.2, intake={"return_period": 100})
    st = next(s for s in o.study.steps if s.tool == "bulletin17c_ema")
    p = o.run.results[st.id].payload
    skew = p["fits"]["lp3_ema"]["parameters"]["skew_log"]
    said = re.search(r"weighted skew (-?[0-9.]+);", p["summary"]).group(1)
    assert said == sig_text(skew), (said, skew, p["summary"])
