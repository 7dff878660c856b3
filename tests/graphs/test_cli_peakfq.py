"""A PeakFQ user's files through the command line: a WATSTORE peak file and its .psf give PeakFQ's tables."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REF = ROOT / "tests" / "reference"


@pytest.mark.slow
def test_watstore_and_psf_uploads_give_a_report_that_reads_like_peakfq(tmp_path):
    env = {**os.environ, "AQUASCOPE_HOME": str(tmp_path / "home")}
    env.pop("AQUASCOPE_LIVE", None)
    out = tmp_path / "study"
    run = subprocess.run([sys.executable, "-m", "graphs.cli", "studio", "Design flow for a road crossing, 100-year",
                          "--lat", "36.04", "--lon", "-88.23",
                          "--data", str(REF / "usgs_03606500_big_sandy_peaks_watstore.txt"),
                          "--data", str(REF / "usgs_03606500_big_sandy.psf"), "--yes", "--out", str(out)],
                         capture_output=True, text=True, env=env, cwd=str(ROOT), timeout=300)
    assert run.returncode == 0, run.stderr
    report = (out / "report.md").read_text()
    # the station named by the WATSTORE N card, its 100-year flood and limits as PeakFQ 8.1.0 gives them (its Fortran:
    # 22,959.17 [17,903.37, 32,590.35] in its own row order, 22,959.39 [17,903.45, 32,590.70] in the golden's); the
    # estimate is printed at the report's one precision for the design value (three figures); the upper limit, between
    # those two of PeakFQ's (the record's at-site skew is defined to ~3e-4), prints as either's 32,590 or 32,591
    assert "BIG SANDY RIVER AT BRUCETON, TN" in report
    assert ("| 0.0100 | 100 | 23,000 | 0.0057 | 17,903 | 32,590 |" in report
            or "| 0.0100 | 100 | 23,000 | 0.0057 | 17,903 | 32,591 |" in report)
    assert "| EMA with regional skew | 3.7175 | 0.2910 | -0.156 |" in report
    assert "| 0.007 | 0.0944 | ADJE | -0.5 | 0.3025 | -0.156 | 0.0719 | weighted | HWN | 1.000 |" in report
    assert "Annual frequency curve: discharges at PeakFQ's exceedance probabilities" in report
    rows = [ln for ln in report.splitlines() if ln.startswith("| 0.") and ln.count("|") == 7]
    assert [r.split("|")[1].strip() for r in rows][:15] == ["0.9950", "0.9900", "0.9500", "0.9000", "0.8000", "0.6667",
                                                           "0.5000", "0.4292", "0.2000", "0.1000", "0.0400", "0.0200",
                                                           "0.0100", "0.0050", "0.0020"]
    ws = json.loads((out / "workspace.json").read_text())
    step = next(r for r in ws["run"]["results"].values() if r.get("tool") == "bulletin17c_ema")
    pq = step["payload"]["peakfq"]
    assert pq["statistics"]["skew_log"] == pytest.approx(-0.156306, rel=2e-4)
    assert pq["format"] == "watstore" and pq["site_no"] == "03606500"
