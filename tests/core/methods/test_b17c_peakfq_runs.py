"""Known answers from PeakFQ's own output files (.PRT), read as PeakFQ printed them.

USGS 04031500 Presque Isle River at Marenisco MI: PeakFQ 7.1 (3/14/2014), EMA with station skew on 38 complete
systematic peaks, 95 % limits (tests/reference/README.md). The quantiles agree to PeakFQ's print precision; the
limits within 1.5e-3 (PeakFQ 7.1 predates the 2014 revision of Cohn's interval code that 8.1.0 carries: on the
Big Sandy case the 8.1.0 limits agree within 2e-4).

USGS 03606500 Big Sandy River at Bruceton TN, a variant with historical peaks: PeakfqSA 0.997 (Cohn's EMA program,
2014), the regional skew held fixed; everything it prints agrees within 1e-4.
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


# --- PeakfqSA 0.997 (Cohn's EMA program) on a Big Sandy variant with historical peaks -------------------------

SA_SPEC = "usgs_03606500_big_sandy_peakfqsa0997.spc"
SA_OUT = "usgs_03606500_big_sandy_peakfqsa0997.out"


@pytest.fixture(scope="module")
def big_sandy_sa(reference_dir):
    """The run's own input (its specification file holds the peaks) and its printed results."""
    spec = (reference_dir / SA_SPEC).read_text()
    systematic, historical = {}, {}
    for year, q, code in re.findall(r"^Q\s+(\d{4})\s+([\d.]+)[ \t]*(H?)", spec, re.M):
        (historical if code else systematic)[int(year)] = float(q)
    thresholds = [{"start": int(a), "end": int(b), "lower": float(lo)}
                  for a, b, lo in re.findall(r"^THRESHOLD\s+(\d+)\s+(\d+)\s+([\d.]+)", spec, re.M)]
    out = (reference_dir / SA_OUT).read_text()
    num = r"([-\d.]+)"
    moments = {name: [float(x) for x in re.search(rf"{label}\s+{num}\s+{num}\s+{num}", out).groups()]
               for name, label in (("at_site", r"EMA, At-Site Data, w/o Reg\. Info"),
                                   ("final", r"EMA w/Reg\. Info & Spec\. MSE\(G\)"))}
    rows = [[float(x) for x in r] for r in re.findall(rf"^EMA-Q\s+{num}\s+{num}\s+{num}\s+{num}\s+{num}\s+{num}",
                                                      out, re.M)]
    return {"systematic": systematic, "historical": historical, "thresholds": thresholds, "moments": moments,
            "rows": rows, "mse_b17b": float(re.search(rf"B17B Est\. of MSE\[G_atsite\]\s+{num}", out).group(1)),
            "mse_adje": float(re.search(rf"EMA \(ADJE\) Est\. of MSE\[G_ats\s+{num}", out).group(1)),
            "p_smallest": float(re.search(r"P-value obs:\s+1 .*p=([\d.]+)", out).group(1))}


def test_big_sandy_variant_against_peakfqsa(big_sandy_sa):
    """EMA with three historical peaks over an 18,500 cfs threshold (1897-1929) and the regional skew -0.5 held
    fixed (GENERALIZED: without error, so no regional MSE is passed; its GENERAL/VAR, like PeakFQ 8.1.0's Regional,
    carries the MSE into the limits), against PeakfqSA 0.997's printed output (tests/reference/README.md): the at-site moments
    and both at-site skew MSEs, the final moments, and at all 32 probabilities the estimate, the variance of its
    log and the 90 % limits. The run prints 4 to 6 significant digits; all agree within 1e-4 relative, the limits
    within 5e-5, the variances (printed to 3 significant digits) within their rounding."""
    case = big_sandy_sa
    assert len(case["systematic"]) == 44 and sorted(case["historical"]) == [1897, 1919, 1927]
    fit = b17.fit_lp3_ema(list(case["systematic"].values()), years=list(case["systematic"]),
                          historical_peaks=case["historical"], perception_thresholds=case["thresholds"],
                          regional_skew=-0.5, regional_skew_mse=None, skew_option="regional")
    assert fit["ok"] and fit["record_years"] == 77 and fit["n_censored_years"] == 30
    site = fit["at_site"]
    assert [site["mean_log"], site["sd_log"]] == pytest.approx(case["moments"]["at_site"][:2], rel=2e-6)
    assert site["skew_log"] == pytest.approx(case["moments"]["at_site"][2], rel=1e-4)
    assert fit["skew_mse_b17b"] == pytest.approx(case["mse_b17b"], rel=1e-4)
    assert fit["skew_mse_at_site"] == pytest.approx(case["mse_adje"], rel=2e-4) and fit["skew_mse_rule"] == "ADJE"
    p = fit["parameters"]
    assert [p["mean_log"], p["sd_log"], p["skew_log"]] == pytest.approx(case["moments"]["final"], rel=2e-6)
    lo_info = fit["low_outliers"]
    assert lo_info["n_low"] == 0 and lo_info["p_values"][0] == pytest.approx(case["p_smallest"], abs=1e-3)
    aeps = [r[0] for r in case["rows"]]
    band = b17.ema_confidence_band(fit, [1 / a for a in aeps], confidence=0.90)
    for (aep, est, var, _site, lo, hi), e, s, l, h in zip(case["rows"], band["return_levels"], band["se_log10"],
                                                         band["lower"], band["upper"]):
        assert e == pytest.approx(est, rel=1e-4), aep
        assert s ** 2 == pytest.approx(var, abs=5e-6), aep
        assert l == pytest.approx(lo, rel=5e-5), aep
        assert h == pytest.approx(hi, rel=5e-5), aep
