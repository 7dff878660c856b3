"""The PeakFQ reference in its right edition (USGS publication records): Techniques and Methods 4-B4 is Flynn, Kirby
and Hummel (2006), the Bulletin 17B program's manual; Veilleux and others (2014) is Fact Sheet 2013-3108, PeakFQ 7.0.
A Bulletin 17C result (PeakFQ 7 and later) cites the fact sheet, and no reference anywhere pairs Veilleux 2014 with
the 2006 manual's number."""

from __future__ import annotations

import re
from pathlib import Path

from aquascope_core.methods import bulletin17c

ROOT = Path(__file__).resolve().parents[3]


def test_the_bulletin_17c_results_cite_the_peakfq_7_fact_sheet():
    res = bulletin17c.fit_lp3_ema([1200.0, 3400.0, 2100.0, 5600.0, 1800.0, 2900.0, 4100.0, 2500.0, 3300.0, 1500.0,
                                   2700.0, 6100.0, 2200.0, 3800.0, 1900.0], skew_option="station")
    cites = [s.get("citation") or "" for s in res["meta"]["sources"] if s.get("name") == "PeakFQ"]
    assert cites and all("Fact Sheet 2013-3108" in c and "4-B4" not in c for c in cites)


def test_no_reference_pairs_veilleux_2014_with_tm_4_b4():
    bad = []
    for folder in ("aquascope_core", "roles", "graphs", "playbooks"):
        for f in (ROOT / folder).rglob("*"):
            if f.suffix not in (".py", ".md", ".yaml", ".yml", ".json") or not f.is_file():
                continue
            text = f.read_text(encoding="utf-8", errors="replace")
            for m in re.finditer(r"4-B4|book 4, chap(?:ter|\.) B4", text):
                before = text[max(0, m.start() - 400):m.start()]
                authors = re.findall(r"Veilleux|Flynn", before)
                if authors and authors[-1] == "Veilleux":
                    bad.append(f"{f.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}")
    assert not bad, bad
