"""The method's manuals in their right editions (roles.citations): the USGS publication records are the source.

- Veilleux, Cohn, Flynn, Mason and Hummel (2014), "Estimating magnitude and frequency of floods using the PeakFQ 7.0
  program", is U.S. Geological Survey Fact Sheet 2013-3108 (doi 10.3133/fs20133108).
- Techniques and Methods book 4, chapter B4 is Flynn, Kirby and Hummel (2006), "User's manual for program PeakFQ",
  the Bulletin 17B program's manual: a PeakFQ 7 or 8 study cites the 2014 fact sheet, never "Veilleux 2014, TM 4-B4".
- Bulletin 17C is England and others (2019, ver. 1.1), Techniques and Methods book 4, chapter B5 (doi 10.3133/tm4B5).
"""

from __future__ import annotations

from roles.citations import BULLETIN_17C, PEAKFQ_7, primary_method_reference


def test_the_peakfq_7_reference_is_the_2014_fact_sheet():
    assert PEAKFQ_7.startswith("Veilleux, A.G.") and "(2014)" in PEAKFQ_7
    assert "Fact Sheet 2013-3108" in PEAKFQ_7 and "10.3133/fs20133108" in PEAKFQ_7
    assert "4-B4" not in PEAKFQ_7 and "chap. B4" not in PEAKFQ_7  # that number is the 2006 Bulletin 17B manual's


def test_bulletin_17c_is_england_and_others_2019_tm_4_b5():
    assert BULLETIN_17C.startswith("England, J.F., Jr.") and "(2019)" in BULLETIN_17C
    assert "book 4, chap. B5" in BULLETIN_17C and "10.3133/tm4B5" in BULLETIN_17C


def test_the_2006_manual_as_a_tool_cites_it_becomes_the_peakfq_7_reference():
    tool = ("Flynn, K.M., Kirby, W.H. and Hummel, P.R. (2006) User's manual for program PeakFQ, annual flood-frequency "
            "analysis. U.S. Geological Survey Techniques and Methods 4-B4 (PeakFQ 8.1.0, Bulletin 17C EMA ...).")
    assert primary_method_reference(tool) == PEAKFQ_7
