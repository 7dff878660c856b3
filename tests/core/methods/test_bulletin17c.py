"""Tests of aquascope_core.methods.bulletin17c: EMA, the multiple Grubbs-Beck test, regional skew."""

from __future__ import annotations

import copy
import json

import numpy as np
import pandas as pd
import pytest

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods import b17c_p3 as p3
from aquascope_core.methods import b17c_variance as bv
from aquascope_core.methods import bulletin17c as b17
from aquascope_core.methods import mgbt
from aquascope_core.methods import flood_frequency as ff


@pytest.fixture(scope="module")
def big_sandy(reference_dir) -> dict:
    return json.loads((reference_dir / "usgs_03606500_big_sandy_b17c_case.json").read_text())


def _fit_big_sandy(case, **kw):
    years = [int(y) for y in case["systematic_peaks"]]
    peaks = list(case["systematic_peaks"].values())
    hist = {int(y): v for y, v in case["historical_peaks"].items()}
    args = dict(years=years, historical_peaks=hist, perception_thresholds=case["thresholds"],
                regional_skew=case["regional_skew"], regional_skew_mse=case["regional_skew_sd"] ** 2)
    args.update(kw)
    return b17.fit_lp3_ema(peaks, **args)


@pytest.fixture(scope="module")
def big_sandy_fit(big_sandy):
    return _fit_big_sandy(big_sandy)


@pytest.fixture(scope="module")
def flat_brook(reference_dir) -> np.ndarray:
    df = pd.read_csv(reference_dir / "usgs_01440000_flat_brook_annual_max_daily_mean_m3s.csv").dropna()
    return df["annual_max_daily_mean_m3s"].to_numpy()


# --- Big Sandy River: Bulletin 17C worked example against PeakFQ ---------------------------------

def test_big_sandy_ema_reproduces_peakfq(big_sandy, big_sandy_fit):
    """EMA with historical peaks, a perception threshold and weighted regional skew, against PeakFQ 8.1.0.

    Source: Big Sandy River at Bruceton TN (USGS 03606500), the PeakfqSA/Bulletin 17C example; reference result of
    PeakFQ 8.1.0 as recorded in flowfreq 0.16.0's validation data (tests/reference/usgs_03606500_big_sandy_b17c_case.json).
    Moments, the weighted skew and all 14 tabulated quantiles within 2e-4 relative; the low-outlier count exact. The
    at-site (station) skew is judged against PeakFQ 8.1.0's own Fortran, within that Fortran's spread between row
    orders (test_b17c_peakfq810.py; tests/reference/README.md).
    """
    fit = big_sandy_fit
    ref = big_sandy["reference"]
    assert fit["ok"] and fit["method"] == "lp3_ema" and fit["distribution"] == "lp3"
    assert fit["record_years"] == 84 and fit["n_systematic"] == 44
    assert fit["n_historical_peaks"] == 3 and fit["n_censored_years"] == 37
    assert fit["low_outliers"]["n_low"] == 0 and fit["skew_mse_rule"] == "ADJE"
    assert fit["skew_weighting"] == "HWN" and fit["skew_weight_factor"] == 1.0  # |G_site| < 0.04: HWN keeps W = 1
    p = fit["parameters"]
    assert p["mean_log"] == pytest.approx(ref["parameters"]["mean_log"], rel=2e-4)
    assert p["sd_log"] == pytest.approx(ref["parameters"]["std_log"], rel=2e-4)
    assert p["skew_log"] == pytest.approx(ref["parameters"]["skew_weighted"], rel=2e-4)
    for aep, q in ref["quantiles"].items():
        assert ff.return_levels(fit, [1 / float(aep)])[0] == pytest.approx(q, rel=2e-4), aep


def test_big_sandy_confidence_limits_reproduce_peakfq(big_sandy, big_sandy_fit):
    """90 % limits against PeakFQ 8.1.0's for the 1, 2 and 10 %-chance floods, within 2e-4 relative."""
    ci = big_sandy["reference"]["confidence_intervals"]
    aeps = ["0.01", "0.02", "0.1"]
    band = b17.ema_confidence_band(big_sandy_fit, [1 / float(a) for a in aeps], confidence=0.90)
    assert band["ok"]
    for a, lo, hi in zip(aeps, band["lower"], band["upper"]):
        assert lo == pytest.approx(ci[a][0], rel=2e-4), a
        assert hi == pytest.approx(ci[a][1], rel=2e-4), a
    with pytest.raises(InputError, match="EMA"):
        ff.bootstrap_band(big_sandy_fit, 84, [100])
    est = band["return_levels"]
    assert all(lo < e < hi for lo, e, hi in zip(band["lower"], est, band["upper"]))
    json.dumps(band)


def test_big_sandy_peakfq_table(big_sandy, big_sandy_fit):
    """PeakFQ's table: 15 AEPs in its order, limits bracketing each estimate, the reference limits where known."""
    table = b17.peakfq_quantile_table(big_sandy_fit)
    assert table["ok"] and [r["aep"] for r in table["rows"]] == list(b17.PEAKFQ_AEPS)
    ci = big_sandy["reference"]["confidence_intervals"]
    for r in table["rows"]:
        assert r["lower"] < r["estimate"] < r["upper"]
        if f"{r['aep']:g}" in ci:
            assert r["lower"] == pytest.approx(ci[f"{r['aep']:g}"][0], rel=2e-4)
    est = [r["estimate"] for r in table["rows"]]
    assert est == sorted(est)
    stats = b17.peakfq_statistics(big_sandy_fit)
    assert stats["skew_log"] == pytest.approx(-0.156306, rel=2e-4) and stats["n_low_outliers"] == 0
    assert stats["weighted_skew_mse"] < min(stats["at_site_skew_mse"], stats["regional_skew_mse"])


def test_big_sandy_inverse_mse_weighting_is_the_older_scheme(big_sandy):
    """INV (W = 1) equals HWN here (|G_site| < 0.04); ERL counts the regional skew differently."""
    inv = _fit_big_sandy(big_sandy, skew_weighting="INV")
    erl = _fit_big_sandy(big_sandy, skew_weighting="ERL")
    assert inv["parameters"]["skew_log"] == pytest.approx(-0.156306, rel=2e-4)
    assert erl["skew_weight_factor"] != pytest.approx(1.0, abs=1e-3)
    with pytest.raises(InputError, match="skew_weighting"):
        _fit_big_sandy(big_sandy, skew_weighting="XYZ")


def test_big_sandy_skew_options(big_sandy):
    station = _fit_big_sandy(big_sandy, skew_option="station")
    regional = _fit_big_sandy(big_sandy, skew_option="regional")
    weighted = _fit_big_sandy(big_sandy)
    assert station["parameters"]["skew_log"] == pytest.approx(station["at_site_skew"])
    assert regional["parameters"]["skew_log"] == pytest.approx(-0.5)
    # the weighted skew lies between the at-site and the regional skew
    assert -0.5 < weighted["parameters"]["skew_log"] < station["parameters"]["skew_log"]


def test_big_sandy_input_is_not_modified(big_sandy):
    before = copy.deepcopy(big_sandy)
    _fit_big_sandy(big_sandy)
    assert big_sandy == before


# --- EMA reduces to Bulletin 17B moments on a complete record ---------------------------------------

def test_ema_on_a_complete_record_equals_the_moments_of_the_logs(flat_brook):
    """With no censoring EMA's bias-corrected moments are Bulletin 17B's (n-1 variance, corrected skew) exactly."""
    ema = b17.fit_lp3_ema(flat_brook, skew_option="station")
    mom = ff.fit_lp3_moments(flat_brook)
    assert ema["low_outliers"]["n_low"] == 0
    for key in ("mean_log", "sd_log", "skew_log"):
        assert ema["parameters"][key] == pytest.approx(mom["parameters"][key], rel=1e-10)


def test_at_site_skew_mse_equals_bulletin17b_on_a_complete_record(flat_brook):
    """The ADJE rule scales the EMA MSE to Bulletin 17B's: on an uncensored record it is B17B's formula itself."""
    fit = b17.fit_lp3_ema(flat_brook, skew_option="station")
    assert fit["skew_mse_at_site"] == pytest.approx(b17.b17b_skew_mse(flat_brook.size, fit["at_site_skew"]), rel=1e-9)


def test_b17b_skew_mse_formula():
    """Bulletin 17B eq. 6: at G = 0 and n = 10 the MSE is 10^-0.33; at |G| = 1 and n = 100 it is 10^(-0.22 - 0.68)."""
    assert b17.b17b_skew_mse(10, 0.0) == pytest.approx(10**-0.33)
    assert b17.b17b_skew_mse(100, -1.0) == pytest.approx(10 ** (-0.52 + 0.30 - (0.94 - 0.26)))
    assert b17.b17b_skew_mse(100, 2.0) == pytest.approx(10 ** (-0.52 + 0.60 - 0.55))


def test_first_order_variances_of_mean_and_variance():
    """For n complete P3 values: Var(M) = S2/n and Var(S2) = S2^2 (2 + 1.5 G^2)/n (the P3's fourth moment).

    The first-order covariance of the non-central moments carried by the delta method gives them exactly.
    """
    n, m = 50, (3.0, 0.09, 0.8)
    s_mn = bv.noncentral_cov([(n, -np.inf, np.inf)], m)
    J = p3.central_jacobian(p3.to_noncentral((0.0, m[1], m[2])))
    V = J @ s_mn @ J.T
    assert V[0, 0] == pytest.approx(m[1] / n, rel=1e-6)
    assert V[1, 1] == pytest.approx(m[1] ** 2 * (2 + 1.5 * m[2] ** 2) / n, rel=1e-4)


def test_inverse_quadrature_reproduces_the_noncentral_covariance():
    """The covariance of (M, S2, G) found by the inverse quadrature gives back the non-central one on its grid."""
    m = (0.0, 0.09, -0.4)
    s_mn = bv.noncentral_cov([(40, -np.inf, np.inf), (30, 0.25, np.inf)], m)
    V = bv.central_cov(m, s_mn)
    back = bv._noncentral_of_grid(m, V)
    assert np.allclose(back, s_mn, rtol=1e-8, atol=1e-14)
    # the vectorised pass Newton's method uses gives what the plain quadrature gives, covariance by covariance
    probes = np.array([bv._tri(V) * f for f in (1.0, 1.1, 0.9)] + [bv._tri(V) * np.array([1, 1, 1, 1, 1, -50.0])])
    many, ok = bv._noncentral_of_grids(m, probes)
    assert ok.tolist() == [True, True, True, False]
    for row, x in zip(many[:3], probes[:3]):
        assert np.allclose(bv._untri(row), bv._noncentral_of_grid(m, bv._untri(x)), rtol=1e-13, atol=1e-18)
    assert bv._noncentral_of_grid(m, bv._untri(probes[3])) is None
    assert np.all(np.linalg.eigvalsh(V) > 0)
    # the quadrature's grid has the mean and covariance it was given
    pts, w = bv.quadrature_grid(m, V)
    assert np.allclose(w @ pts, m, atol=1e-12) and w.sum() == pytest.approx(1.0)
    assert np.allclose(((pts - m).T * w) @ (pts - m), V, rtol=1e-9, atol=1e-15)


def test_censoring_below_every_flood_changes_nothing(flat_brook):
    plain = b17.fit_lp3_ema(flat_brook, skew_option="station", low_outlier_test="none")
    low = b17.fit_lp3_ema(flat_brook, skew_option="station", low_outlier_threshold=float(flat_brook.min()) * 0.5)
    assert low["low_outliers"]["n_low"] == 0
    assert low["parameters"]["mean_log"] == pytest.approx(plain["parameters"]["mean_log"], rel=1e-12)


def test_low_outliers_are_censored_and_zero_flows_handled(flat_brook):
    data = flat_brook.copy()
    data[[3, 10]] = 0.0
    data[20] = 0.02
    before = data.copy()
    fit = b17.fit_lp3_ema(data, skew_option="station")
    assert np.array_equal(data, before)
    lo = fit["low_outliers"]
    assert fit["ok"] and fit["n_zero"] == 2 and lo["n_low"] >= 3
    assert lo["threshold"] > 0.02
    assert fit["n_censored_years"] == lo["n_low"]
    # zeros without a low-outlier test cannot be logged
    with pytest.raises(InputError, match="zero flows"):
        b17.fit_lp3_ema(data, skew_option="station", low_outlier_test="none")


# --- multiple Grubbs-Beck test ---------------------------------------------------------------------

def test_mgbt_flags_planted_low_outliers_and_not_normal_data():
    rng = np.random.default_rng(11)
    flows = 10 ** rng.normal(3.0, 0.25, 40)
    clean = b17.multiple_grubbs_beck(flows)
    assert clean["n_low"] == 0 and clean["threshold"] is None
    planted = flows.copy()
    planted[[5, 17, 30]] = [5.0, 8.0, 3.0]
    got = b17.multiple_grubbs_beck(planted)
    # the three planted floods fail the outward test at 0.005; B17C's inward sweep (consecutive p < 0.10) may
    # add a few more of the smallest floods, never a flood above the median
    assert all(p < 0.005 for p in got["p_values"][:3])
    assert 3 <= got["n_low"] <= 20
    assert got["threshold"] == pytest.approx(np.sort(planted)[got["n_low"]])
    assert all(p < 0.10 for p in got["p_values"][: got["n_low"]])


def test_mgbt_p_values_are_calibrated_under_normality():
    """Under a normal sample the p-value of omega_1 is uniform: about 10 % fall below 0.10 (Cohn et al. 2013)."""
    rng = np.random.default_rng(5)
    n = 25
    p = []
    for _ in range(150):
        x = np.sort(rng.standard_normal(n))
        omega = (x[0] - x[1:].mean()) / x[1:].std(ddof=1)
        p.append(mgbt.mgbt_pvalue(n, 1, omega))
    share = np.mean(np.array(p) < 0.10)
    assert 0.04 < share < 0.17
    assert 0.35 < np.mean(np.array(p) < 0.5) < 0.65


def test_mgbt_bad_input():
    with pytest.raises(InsufficientDataError):
        b17.multiple_grubbs_beck([1.0, 2.0, 3.0])
    with pytest.raises(InputError):
        b17.multiple_grubbs_beck([1.0] * 5 + [-2.0] + [3.0] * 6)


# --- regional skew ------------------------------------------------------------------------------------

def test_regional_skew_tennessee():
    """Tennessee: Skew Region 2, G = 0.048, MSE 0.16 (Messinger et al. 2026, USGS SIR 2025-5110, p. 25)."""
    got = b17.regional_skew(state="tn")
    assert got["ok"] and got["skew"] == pytest.approx(0.048) and got["skew_mse"] == pytest.approx(0.16)
    assert got["skew_se"] == pytest.approx(0.4)
    assert "2025-5110" in got["citation"]
    assert any("2025-5110" in s.get("citation", "") for s in got["meta"]["sources"])


def test_regional_skew_needs_huc_where_a_state_has_several_regions():
    ny = b17.regional_skew(state="NY")
    assert ny["ok"] is False and len(ny["candidates"]) == 3 and "huc8" in ny["reason"]
    az = b17.regional_skew(huc8="15010001")
    assert az["ok"] and az["state"] == "AZ" and az["skew"] == pytest.approx(-0.09)
    idaho = b17.regional_skew(state="ID", huc8="17060101")
    assert idaho["ok"] and idaho["skew_region"] == "Pacific Northwest"


def test_regional_skew_refuses_pending_and_provisional_values():
    co = b17.regional_skew(state="CO")
    assert co["ok"] is False and co["skew"] is None and "pending" in co["reason"]
    mt = b17.regional_skew(state="MT", huc8="10020001")
    assert mt["ok"] is False and "provisional" in mt["reason"]


def test_regional_skew_bad_arguments():
    with pytest.raises(InputError, match="state"):
        b17.regional_skew(state="XX")
    with pytest.raises(InputError, match="huc8"):
        b17.regional_skew(state="TN", huc8="123")
    with pytest.raises(InputError):
        b17.regional_skew()


# --- bad input ----------------------------------------------------------------------------------------------

def test_fit_lp3_ema_bad_input(big_sandy):
    peaks = list(big_sandy["systematic_peaks"].values())
    years = [int(y) for y in big_sandy["systematic_peaks"]]
    with pytest.raises(InputError, match="NaN"):
        b17.fit_lp3_ema(peaks[:-1] + [float("nan")], skew_option="station")
    with pytest.raises(InputError, match="peaks"):
        b17.fit_lp3_ema(peaks[:-1] + [-5.0], skew_option="station")
    with pytest.raises(InsufficientDataError):
        b17.fit_lp3_ema(peaks[:8], skew_option="station")
    with pytest.raises(InsufficientDataError, match="equal"):
        b17.fit_lp3_ema([100.0] * 20, skew_option="station")
    with pytest.raises(InputError, match="regional_skew_mse"):
        b17.fit_lp3_ema(peaks, regional_skew=-0.5)
    with pytest.raises(InputError, match="regional_skew"):
        b17.fit_lp3_ema(peaks, skew_option="regional")
    with pytest.raises(InputError, match="years"):
        b17.fit_lp3_ema(peaks, historical_peaks={1897: 25000.0}, skew_option="station")
    with pytest.raises(InputError, match="below its perception threshold"):
        b17.fit_lp3_ema(peaks, years=years, historical_peaks={1897: 9000.0},
                        perception_thresholds=big_sandy["thresholds"], skew_option="station")
    with pytest.raises(InputError, match="no perception threshold"):
        b17.fit_lp3_ema(peaks, years=years, historical_peaks={1850: 30000.0}, skew_option="station")
    with pytest.raises(InputError, match="skew_option"):
        b17.fit_lp3_ema(peaks, skew_option="mixed")


def test_flood_frequency_with_ema(flat_brook):
    out = ff.flood_frequency(flat_brook, distributions=("lp3_ema", "lp3_moments"), n_bootstrap=100, unit="m3/s")
    ema, mom = out["fits"]["lp3_ema"], out["fits"]["lp3_moments"]
    assert ema["ok"] and ema["ci"]["method"] == "peakfq_ema_quadrature"
    assert ema["return_levels"] == pytest.approx(mom["return_levels"], rel=1e-9)
    i = out["return_periods"].index(100.0)
    assert ema["ci"]["lower"][i] < ema["return_levels"][i] < ema["ci"]["upper"][i]
    json.dumps(out)
