"""Known answers from PeakFQ's own output files (.PRT), read as PeakFQ printed them.

USGS 04031500 Presque Isle River at Marenisco MI: PeakFQ 7.1 (3/14/2014), EMA with station skew on 38 complete
systematic peaks, 95 % limits (tests/reference/README.md). The quantiles agree to PeakFQ's print precision; the
limits within 1.5e-3 (PeakFQ 7.1 predates the 2014 revision of Cohn's interval code that 8.1.0 carries: on the
Big Sandy case the 8.1.0 limits agree within 2e-4).
"""

from __future__ import annotations

import re

import pytest

from aquascope_core.data import peakfq_files as pf
from aquascope_core.methods import bulletin17c as b17

PRT = "usgs_04031500_presque_isle_peakfq71.prt"


@pytest.fixture(scope="module")
def presque_isle(reference_dir):
    text = (reference_dir / PRT).read_text()
    listing = text[text.index("I N P U T   D A T A   L I S T I N G"):text.index("Explanation of peak")]
    peaks = [(int(y), float(q)) for y, q in re.findall(r"^\s+(\d{4})\s+([\d.]+)\s*$", listing, re.M)]
    table = [tuple(float(x) for x in row) for row in
             re.findall(r"^\s+(0\.\d{4})\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$", text, re.M)]
    moments = re.search(r"EMA W/O REG. INFO\s+([\d.]+)\s+([\d.]+)\s+([-\d.]+)", text).groups()
    mse = float(re.search(r"MSE OF SKEW W/O REG. INFO \(AT-SITE\)\s+([\d.]+)", text).group(1))
    return {"peaks": peaks, "table": table, "moments": [float(x) for x in moments], "mse": mse}


def _digits(printed: float) -> float:
    """Half a unit of the last digit PeakFQ printed, relative (4 or 5 significant digits)."""
    s = f"{printed:.6g}"
    sig = len(s.replace(".", "").lstrip("0").rstrip("0")) or 1
    return 0.5 * 10 ** (-(max(sig, 4) - 1))


def test_presque_isle_against_peakfq_7_1(presque_isle):
    years = [y for y, _ in presque_isle["peaks"]]
    peaks = [q for _, q in presque_isle["peaks"]]
    assert len(peaks) == 38
    fit = b17.fit_lp3_ema(peaks, years=years, skew_option="station")
    p = fit["parameters"]
    mean, sd, skew = presque_isle["moments"]
    assert p["mean_log"] == pytest.approx(mean, abs=5e-5) and p["sd_log"] == pytest.approx(sd, abs=5e-5)
    assert p["skew_log"] == pytest.approx(skew, abs=5e-4)
    assert fit["skew_mse_at_site"] == pytest.approx(presque_isle["mse"], abs=5e-5)
    assert fit["low_outliers"]["n_low"] == 0
    table = b17.peakfq_quantile_table(fit, confidence=0.95)
    assert [r["aep"] for r in table["rows"]] == [row[0] for row in presque_isle["table"]]
    for r, (aep, est, _, var, lo, hi) in zip(table["rows"], presque_isle["table"]):
        assert r["estimate"] == pytest.approx(est, rel=_digits(est) + 1e-4), aep
        assert r["variance_log10"] == pytest.approx(var, abs=5e-5), aep
        assert r["lower"] == pytest.approx(lo, rel=1.5e-3), aep
        assert r["upper"] == pytest.approx(hi, rel=1.5e-3), aep


def test_real_watstore_file_with_a_blank_period(reference_dir):
    """USGS 04033000's WATSTORE file and .psf (PeakFQ run files): 1996-2000 have an infinite threshold (no record)."""
    st, = pf.read_peaks((reference_dir / "usgs_04033000_ontonagon_peaks_watstore.txt").read_text())
    assert st["name"] == "MIDDLE BRANCH ONTONAGON RIVER NEAR PAULDING, MI" and len(st["peaks"]) == 66
    assert st["lat"] == pytest.approx(46 + 21 / 60 + 25 / 3600)
    spec = pf.read_psf((reference_dir / "usgs_04033000_ontonagon.psf").read_text())
    got = pf.ema_inputs(st, spec)
    assert got["fit_kwargs"]["skew_option"] == "station" and not got["excluded"]
    assert {f["code"] for f in got["flags"]} == {"1", "2"}
    fit = b17.fit_lp3_ema(**got["fit_kwargs"])
    assert fit["ok"] and fit["record_years"] == 66 and fit["gaps"] == [1996, 1997, 1998, 1999, 2000]
