"""The bulletin17c_ema tool as PeakFQ 8.1.0: its PeakFQ block, the weighting argument, and an uploaded .psf."""

from __future__ import annotations

import pytest

from aquascope_core.data import UploadSource, ingest
from aquascope_core.tools.context import DataContext
from aquascope_core.tools.flood import bulletin17c_ema


def test_peakfq_block_and_weighting_argument():
    # the PeakfqSA manual's example skew (-0.5, SE 0.55), where PeakFQ 8.1.0 gives 22,959.39 ft3/s; by default the
    # tool weights Tennessee's published skew instead, and the manual's is a sensitivity row
    got = bulletin17c_ema("published", "03606500", return_periods=[100], regional_skew=-0.5, regional_skew_mse=0.3025)
    pq = got["peakfq"]
    assert pq["statistics"]["skew_weighting"] == "HWN" and len(pq["table"]["rows"]) == 15
    assert got["fits"]["lp3_ema"]["return_levels"][0] == pytest.approx(22959.39, rel=2e-4)
    default = bulletin17c_ema("published", "03606500", return_periods=[100])
    manual = [r for r in default["skew_sensitivity"] if r["origin"] == "manual_example"]
    assert manual[0]["return_levels"][0] == pytest.approx(22959.39, rel=2e-4)
    erl = bulletin17c_ema("published", "03606500", return_periods=[100], skew_weighting="ERL")
    assert erl["peakfq"]["statistics"]["skew_weighting"] == "ERL"
    assert erl["fits"]["lp3_ema"]["parameters"]["skew_log"] != pytest.approx(-0.156306, rel=1e-3)
    assert erl["meta"]["parameters"]["skew_weighting"] == "ERL"


def test_an_uploaded_psf_sets_the_options(reference_dir):
    peaks = ingest("peaks", reference_dir / "usgs_03606500_big_sandy_peaks_watstore.txt")
    spec = ingest("spec", (reference_dir / "usgs_03606500_big_sandy.psf").read_text()
                  .replace("WEIGHTOPT HWN", "WEIGHTOPT INV").replace("SKEWOPT WEIGHTED", "SKEWOPT STATION"))
    ctx = DataContext({"upload": UploadSource([peaks, spec])})
    got = bulletin17c_ema("upload", "peaks", return_periods=[100], data=ctx)
    st = got["peakfq"]["statistics"]
    assert st["skew_option"] == "station" and st["skew_weighting"] == "INV"
    assert st["skew_log"] == pytest.approx(st["at_site_skew"]) and got["peakfq"]["site_no"] == "03606500"
