"""Known answers from PeakFQ 7.5.1's own EMA routines on real records with low outliers and historical peaks.

tests/reference/peakfq751_ema_cases.json: USGS 04156000 (Tittabawassee River at Midland MI: 104 systematic peaks,
2 historical ones, 20 low outliers), 04151500 (Cass River at Frankenmuth MI: 74 systematic, 1 historical, 10 low
outliers) and 04145000 (Shiawassee River near Fergus MI: 61 systematic, two periods without record, 15 low
outliers), each with the station skew of its PeakFQ specification and, for the first two, a weighted skew with
HWN weighting; 04161000 (Clinton River at Auburn Hills MI, 22 of 51 years below the low-outlier threshold, skew
-1.21), whose EMA covariance lies on the edge of the positive definite ones at a node of the quadrature; and
04159492 (Black River near Jeddo MI, a near-zero skew), where ours and PeakFQ part (an expected failure, the
measured gap in its reason). The numbers are what the public PeakFQ 7.5.1 Fortran returns
(scripts/peakfq_oracle), not a printed PeakFQ report.

Measured agreement: the low-outlier count and threshold exactly; the MGBT p-values within 1e-3 (ours integrate
Cohn's formula to 1e-12, PeakFQ's carry about 1e-3 of numerical error: 0.37427 exact against its 0.37373 for Big
Sandy's smallest flood); the moments within 4e-6 relative; the HWN weight within 2e-5; the quantiles within 1e-5
(the moments' gap); the 90 % limits between the 0.2 % and 99.8 % probabilities within 1.5e-4 for three cases,
3.1e-4 for 04151500 with station skew (its 99.8 %-chance lower limit) and 4.3e-4 for 04145000 (the 80 %-chance
lower limit, next to its low-outlier threshold): held here at 5e-4, above the 2e-4 of the Big Sandy case.
04161000: moments within 3e-5, quantiles within 8e-5, limits within 7.4e-4, log variances within 2.9e-4, MGBT
p-values within 1.4e-3.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from aquascope_core.methods import bulletin17c as b17

_SPEC = importlib.util.spec_from_file_location(
    "make_cases", Path(__file__).resolve().parents[3] / "scripts" / "peakfq_oracle" / "make_cases.py")
make_cases = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(make_cases)


@pytest.fixture(scope="module")
def cases(reference_dir):
    return json.loads((reference_dir / "peakfq751_ema_cases.json").read_text())["cases"]


def _id(case):
    return f"{case['site_no']}-{case['skew_option']}"


_GAPS = {
    5: "04159492 (Black River near Jeddo MI, 25 low outliers, at-site skew -0.0118): PeakFQ 7.5.1 gives the skew "
       "-0.012136 and ours -0.011816 (2.7 %). The same PeakFQ routines with its Wilson-Hilferty moments used up to "
       "|G| = 0.07 instead of 0.001 give -0.011823: the gap is PeakFQ's incomplete-gamma moments at a near-zero "
       "skew (as for Big Sandy's at-site skew), not the EMA equations.",
}


#: tolerances (moments, quantiles, limits, log variances: relative; MGBT p-values: absolute), as measured and
#: rounded up; 04161000 is censored hardest
_TOL = {6: (5e-5, 1e-4, 1e-3, 3e-4, 2e-3)}


@pytest.mark.slow
@pytest.mark.parametrize("k", [pytest.param(k, marks=pytest.mark.xfail(strict=True, reason=_GAPS[k]))
                               if k in _GAPS else k for k in range(7)])
def test_against_peakfq_751(cases, k):
    case = cases[k]
    tol_m, tol_q, tol, tol_v, tol_p = _TOL.get(k, (1e-5, 1e-5, 5e-4, 1e-4, 1e-3))
    fit = b17.fit_lp3_ema(**make_cases.fit_kwargs(case["site_no"], case["skew_option"], case["regional_skew"],
                                                  case["regional_skew_se"]))
    assert fit["ok"], _id(case)
    lo = fit["low_outliers"]
    assert lo["n_low"] == case["n_low"] and lo["n_zero"] == case["n_zero"] and lo["test"] == "mgbt"
    assert lo["sample_size"] == case["n_systematic_tested"]
    assert lo["critical_log10"] == pytest.approx(case["low_outlier_critical_log10"], abs=1e-12)
    assert lo["p_values"][:len(case["mgbt_p_values"])] == pytest.approx(case["mgbt_p_values"], abs=tol_p)
    p, s = fit["parameters"], fit["at_site"]
    assert [p["mean_log"], p["sd_log"] ** 2, p["skew_log"]] == pytest.approx(case["final_moments"], rel=tol_m)
    assert [s["mean_log"], s["sd_log"] ** 2, s["skew_log"]] == pytest.approx(case["at_site_moments"], rel=tol_m)
    assert fit["skew_mse_at_site"] == pytest.approx(case["at_site_skew_mse"], rel=tol_m)
    if case["skew_option"] == "weighted":
        assert fit["skew_weight_factor"] == pytest.approx(case["skew_weight_factor"], rel=2e-5)
    rows = [r for r in case["grid"] if 0.002 <= r["non_exceedance"] <= 0.998]
    F = np.array([r["non_exceedance"] for r in rows])
    lim = b17._limits(fit, F, 0.90)
    for i, r in enumerate(rows):
        assert 10 ** lim["quantile"][i] == pytest.approx(10 ** r["log10_quantile"], rel=tol_q), r
        assert lim["variance"][i] == pytest.approx(r["variance_log10"], rel=tol_v), r
        assert 10 ** lim["lower"][i] == pytest.approx(10 ** r["log10_lower"], rel=tol), r
        assert 10 ** lim["upper"][i] == pytest.approx(10 ** r["log10_upper"], rel=tol), r
