"""Bulletin 17C paths PeakFQ 8.1.0 takes that the Big Sandy case does not: HWN weighting, interval peaks, zero
flows, the single Grubbs-Beck fallback, finite upper thresholds. Checked for their properties."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from aquascope_core.methods import b17c_weights as bw
from aquascope_core.methods import bulletin17c as b17


@pytest.fixture(scope="module")
def big_sandy(reference_dir) -> dict:
    return json.loads((reference_dir / "usgs_03606500_big_sandy_b17c_case.json").read_text())


def _skewed(case):
    """Big Sandy's record on a square-root scale, plus a step: an at-site skew of 0.16, so that HWN acts."""
    years = [int(y) for y in case["systematic_peaks"]]
    q = np.array(list(case["systematic_peaks"].values()), dtype=float)
    t = lambda v: math.sqrt(v) * 60 + (3000 if v > 6000 else 0)  # noqa: E731
    hist = {int(y): t(v) for y, v in case["historical_peaks"].items()}
    thr = [{"start": 1890, "end": 1929, "lower": t(18000.0)}]
    return [t(v) for v in q], dict(years=years, historical_peaks=hist, perception_thresholds=thr,
                                   regional_skew=-0.5, regional_skew_mse=0.3025)


def test_hwn_weight_is_one_without_censoring_and_acts_with_it(big_sandy):
    peaks, kw = _skewed(big_sandy)
    hwn = b17.fit_lp3_ema(peaks, **kw)
    inv = b17.fit_lp3_ema(peaks, **kw, skew_weighting="INV")
    assert abs(hwn["at_site_skew"]) >= bw.HWN_MIN_SKEW
    assert inv["skew_weight_factor"] == 1.0 and 0.0 < hwn["skew_weight_factor"] < 1.0
    # fewer regional-skew years: the weighted skew stays nearer the at-site skew
    assert hwn["regional_skew_years"] < inv["regional_skew_years"]
    assert abs(hwn["parameters"]["skew_log"] - hwn["at_site_skew"]) < abs(inv["parameters"]["skew_log"] - inv["at_site_skew"])
    # a complete record: the determinant ratio is exactly 1 (the update's Jacobian is strictly lower triangular)
    m = (3.7, 0.09, 0.4)
    assert bw.determinant_ratio(m, [(50.0, -np.inf, np.inf)]) == pytest.approx(1.0, abs=1e-12)


def test_erl_weight_inverts_griffis(big_sandy):
    """ERL: the record length whose Griffis et al. (2004) skew MSE equals the given one."""
    n = bw.effective_record_length(0.3, 0.1)
    assert bw._griffis_mse(n, 0.3) == pytest.approx(0.1, rel=1e-9)
    assert bw.effective_record_length(0.3, 0.05) > n


def test_an_interval_peak_between_close_bounds_acts_as_the_peak(big_sandy):
    years = [int(y) for y in big_sandy["systematic_peaks"]]
    peaks = list(big_sandy["systematic_peaks"].values())
    exact = b17.fit_lp3_ema(peaks, years=years, skew_option="station")
    v = big_sandy["systematic_peaks"]["1950"]
    near = b17.fit_lp3_ema(peaks, years=years, skew_option="station", interval_peaks={1950: (v * 0.999, v * 1.001)})
    wide = b17.fit_lp3_ema(peaks, years=years, skew_option="station", interval_peaks={1950: (0, v)})
    assert near["n_interval_peaks"] == 1 and near["n_censored_years"] == 1
    for k in ("mean_log", "sd_log"):
        assert near["parameters"][k] == pytest.approx(exact["parameters"][k], rel=1e-4)
    assert wide["parameters"]["mean_log"] < exact["parameters"]["mean_log"]  # "less than" pulls the mean down
    band = b17.ema_confidence_band(wide, [100])
    assert band["ok"] and band["lower"][0] < band["return_levels"][0] < band["upper"][0]


def test_zero_flows_are_recoded_as_peakfq_does(big_sandy):
    """Zeros enter the test as 1e-20 (PeakFQ 8.1.0's value) and so are low outliers; the floods the sweeps flag with them are censored
    below the smallest flood kept, which becomes every year's lower perception threshold (PeakFQ's recoding)."""
    years = [int(y) for y in big_sandy["systematic_peaks"]]
    peaks = list(big_sandy["systematic_peaks"].values())
    peaks[3] = peaks[17] = 0.0
    fit = b17.fit_lp3_ema(peaks, years=years, skew_option="station")
    lo = fit["low_outliers"]
    qmin = min(p for p in peaks if p > 0)
    assert fit["n_zero"] == 2 and lo["n_zero"] == 2
    assert lo["n_low"] >= 2 and lo["p_values"][1] < 1e-12  # the second zero: p ~ 0
    kept = sorted(peaks)[lo["n_low"]]
    assert lo["threshold"] == pytest.approx(kept) and lo["critical_log10"] == pytest.approx(math.log10(kept))
    assert kept > qmin and fit["n_censored_years"] == lo["n_low"]
    assert all(g["lower_log10"] == pytest.approx(math.log10(kept)) for g in fit["censoring_pattern"])
    assert fit["skew_mse_rule"] == "B17B"  # low outliers censored by the test: Bulletin 17B's MSE, as PeakFQ
    assert b17.ema_confidence_band(fit, [100])["ok"]


def test_over_half_zero_switches_to_the_single_grubbs_beck_test():
    rng = np.random.default_rng(3)
    q = 10 ** rng.normal(3.0, 0.3, 40)
    q[:22] = 0.0
    fit = b17.fit_lp3_ema(q, skew_option="station")
    assert fit["low_outliers"]["test"] == "grubbs_beck" and fit["low_outliers"]["n_low"] >= 22


def test_a_finite_upper_threshold_is_a_censoring_bound(big_sandy):
    years = [int(y) for y in big_sandy["systematic_peaks"]]
    peaks = list(big_sandy["systematic_peaks"].values())
    thr = [{"start": 1930, "end": 1973, "lower": 0.0, "upper": 1e6}]
    fit = b17.fit_lp3_ema(peaks, years=years, perception_thresholds=thr, skew_option="station")
    plain = b17.fit_lp3_ema(peaks, years=years, skew_option="station")
    assert fit["censoring_pattern"][0]["upper_log10"] == pytest.approx(6.0)
    assert fit["parameters"]["mean_log"] == pytest.approx(plain["parameters"]["mean_log"], rel=1e-12)


def test_a_regional_skew_carries_its_mse_into_the_limits(big_sandy):
    """skew_option='regional': without an MSE the quadrature holds G fixed and the band is narrower than the weighted
    skew's; with its MSE (PeakFQ 8.1.0's Regional) Var(G) is that MSE, wider than the weighted skew's, whose MSE is
    at most the smaller of the two."""
    years = [int(y) for y in big_sandy["systematic_peaks"]]
    peaks = list(big_sandy["systematic_peaks"].values())
    kw = dict(years=years, historical_peaks={int(y): v for y, v in big_sandy["historical_peaks"].items()},
              perception_thresholds=big_sandy["thresholds"], regional_skew=-0.5)
    fixed = b17.ema_confidence_band(b17.fit_lp3_ema(peaks, skew_option="regional", **kw), [100])
    with_mse = b17.ema_confidence_band(b17.fit_lp3_ema(peaks, skew_option="regional", regional_skew_mse=0.3025, **kw),
                                       [100])
    weighted = b17.ema_confidence_band(b17.fit_lp3_ema(peaks, regional_skew_mse=0.3025, **kw), [100])
    assert fixed["ok"] and fixed["lower"][0] < fixed["return_levels"][0] < fixed["upper"][0]
    width = {k: b["upper"][0] / b["lower"][0] for k, b in (("fixed", fixed), ("mse", with_mse), ("w", weighted))}
    assert width["fixed"] < width["w"] < width["mse"]
    assert with_mse["return_levels"] == pytest.approx(fixed["return_levels"], rel=1e-12)
