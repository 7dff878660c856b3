"""Tests of aquascope_core.methods.trends (Mann-Kendall, its variants, Sen's slope)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods.trends import mann_kendall, seasonal_mann_kendall, sens_slope


@pytest.fixture(scope="module")
def precip_gl() -> pd.DataFrame:
    from pathlib import Path

    return pd.read_csv(Path(__file__).parents[2] / "reference" / "PrecipGL_Kendall.csv")


# ---------------------------------------------------------------- known answers


def test_great_lakes_mann_kendall(reference_cases, precip_gl):
    """R Kendall 2.2.1 ``MannKendall(PrecipGL)`` documentation example (A.I. McLeod): S = 989,
    varS = 74398.33, tau = 0.2645801, two-sided p = 0.0002920628; Sen's slope 0.04 in/year
    (tests/reference/cases.json, case great_lakes_mann_kendall)."""
    exp = reference_cases["great_lakes_mann_kendall"]["expected"]
    r = mann_kendall(precip_gl["precip_in"], times=precip_gl["year"], unit="in")
    assert r["ok"] is True
    assert r["n"] == 87 and r["n_missing"] == 0
    assert r["S"] == exp["S"]
    assert r["var_S"] == pytest.approx(exp["varS"], abs=0.005)
    assert r["var_S"] == pytest.approx(223195 / 3, abs=1e-9)  # exact: 87 values with ties, /18
    assert r["p_value"] == pytest.approx(exp["p_two_sided"], abs=1e-6)
    assert r["tau"] == pytest.approx(exp["tau_b"], abs=1e-7)
    assert r["sen_slope"] == pytest.approx(exp["sen_slope_per_year"], abs=1e-4)
    assert r["trend"] == "increasing" and r["significant"] is True
    assert r["slope_unit"] == "in per year" and r["time_unit"] == "year"
    lo, hi = r["sen_slope_ci"]
    assert lo < r["sen_slope"] < hi and lo > 0
    json.dumps(r)  # JSON-safe


def test_great_lakes_series_indexed_by_year_gives_the_same_answer(precip_gl):
    s = pd.Series(precip_gl["precip_in"].to_numpy(), index=precip_gl["year"].to_numpy())
    r = mann_kendall(s)
    assert r["S"] == 989 and r["sen_slope"] == pytest.approx(0.04, abs=1e-12) and r["time_unit"] == "year"


def test_hand_computed_small_series_with_a_tie():
    """x = 1, 1, 2, 3: S = 0+1+1+1+1+1 = 5; one tie group of 2, so
    Var S = (4*3*13 - 2*1*9)/18 = 138/18; z = (5-1)/sqrt(138/18); tau-b = 5/sqrt((6-1)*6)."""
    r = mann_kendall([1.0, 1.0, 2.0, 3.0])
    assert r["S"] == 5
    assert r["var_S"] == pytest.approx(138 / 18)
    assert r["z"] == pytest.approx(4 / math.sqrt(138 / 18))
    assert r["tau"] == pytest.approx(5 / math.sqrt(30))
    assert r["p_value"] == pytest.approx(2 * (1 - 0.5 * (1 + math.erf(r["z"] / math.sqrt(2)))))
    assert r["trend"] == "no trend"  # n = 4 cannot reach p < 0.05
    assert r["slope_unit"] == "per time step"


def test_decreasing_series_sign_and_continuity_correction():
    x = np.arange(20, 0, -1, dtype=float)
    r = mann_kendall(x)
    assert r["S"] == -190
    var = 20 * 19 * 45 / 18
    assert r["z"] == pytest.approx((-190 + 1) / math.sqrt(var))
    assert r["tau"] == pytest.approx(-1.0)
    assert r["trend"] == "decreasing" and r["significant"] is True
    assert r["sen_slope"] == pytest.approx(-1.0)
    assert r["sen_slope_ci"] == pytest.approx([-1.0, -1.0])


def test_sens_slope_on_a_line_with_datetimes_is_per_year():
    idx = pd.to_datetime([f"{y}-01-01" for y in range(1990, 2010)])
    s = pd.Series(3.0 + 0.5 * np.arange(20), index=idx)
    r = sens_slope(s, unit="m3/s")
    assert r["ok"] is True and r["slope_unit"] == "m3/s per year"
    # Jan 1 of successive years is exactly one decimal year apart
    assert r["slope"] == pytest.approx(0.5, rel=1e-12)
    assert r["intercept"] + r["slope"] * 1999.5 == pytest.approx(3.0 + 0.5 * 9.5)


def test_sens_slope_interval_widens_with_confidence(precip_gl):
    a = sens_slope(precip_gl["precip_in"], times=precip_gl["year"], confidence=0.90)
    b = sens_slope(precip_gl["precip_in"], times=precip_gl["year"], confidence=0.99)
    assert a["slope"] == b["slope"] == pytest.approx(0.04)
    assert b["slope_ci"][0] < a["slope_ci"][0] < a["slope"] < a["slope_ci"][1] < b["slope_ci"][1]


def test_sens_slope_interval_order_statistics_by_hand():
    """x = 0, 1, 3, 2, 5 at t = 0..4: the 10 pairwise slopes sorted are
    -1, 1/2, 2/3, 1, 1, 5/4, 4/3, 3/2, 2, 3 (median 1.125). With no ties Var S = 5*4*15/18 = 50/3;
    at 80 % confidence C = 1.2815516 * sqrt(50/3) = 5.2319; M1 = (10 - C)/2 = 2.3840 and
    M2 + 1 = (10 + C)/2 + 1 = 8.6160, so the interval runs from 1/2 + 0.3840*(2/3 - 1/2) to
    3/2 + 0.6160*(2 - 3/2) (Gilbert 1987 sec. 16.5, linear interpolation between ranks)."""
    r = sens_slope([0.0, 1.0, 3.0, 2.0, 5.0], confidence=0.80)
    assert r["slope"] == pytest.approx(1.125)
    c = 1.2815515655446004 * math.sqrt(50 / 3)
    m1, m2p1 = (10 - c) / 2, (10 + c) / 2 + 1
    assert r["slope_ci"][0] == pytest.approx(0.5 + (m1 - 2) * (2 / 3 - 0.5))
    assert r["slope_ci"][1] == pytest.approx(1.5 + (m2p1 - 8) * 0.5)
    assert r["slope_ci"] == pytest.approx([0.5640, 1.8080], abs=1e-4)


# ---------------------------------------------------------------- variants, cross-checked
#
# Monthly rainfall at Bogra (Bangladesh), 1981-2010, 7 months missing: the test series of
# pyMannKendall (Hussain & Mahmud 2019, JOSS 4(39) 1556; tests/data/Monthly Rainfall.csv, MIT),
# whose test suite publishes its results for each test. pyMannKendall drops the missing months and
# treats the remaining 353 values as consecutive, so the series is passed here the same way.


@pytest.fixture(scope="module")
def bogra(reference_dir) -> pd.DataFrame:
    return pd.read_csv(reference_dir / "bogra_monthly_rainfall_pymannkendall.csv")


def test_bogra_original_matches_pymannkendall(bogra):
    """pyMannKendall test_original_test: s = -1959, var_s = 4889800.333, z = -0.8854562842589916,
    p = 0.37591058740506833, slope = -0.0064516129 (per step), no trend. Its Tau (-0.0315317) is
    tau-a = S/(n(n-1)/2); ours is tau-b, whose denominator discounts the tied pairs."""
    x = bogra["bogra_mm"].dropna().to_numpy()
    r = mann_kendall(x)
    assert r["n"] == 353 and r["S"] == -1959
    assert r["var_S"] == pytest.approx(4889800.333333333, rel=1e-12)
    assert r["z"] == pytest.approx(-0.8854562842589916, rel=1e-10)
    assert r["p_value"] == pytest.approx(0.37591058740506833, rel=1e-10)
    assert r["sen_slope"] == pytest.approx(-0.0064516129032258064, rel=1e-12)
    assert r["S"] / (353 * 352 / 2) == pytest.approx(-0.03153167653875869, rel=1e-12)
    assert abs(r["tau"]) > 0.0315 and r["trend"] == "no trend"


def test_bogra_hamed_rao_matches_pymannkendall(bogra):
    """pyMannKendall test_hamed_rao_modification_test (all significant lags, alpha 0.05):
    var_s = 257403.38678462413, z = -3.859273515045842, p = 0.00011372459883540742, decreasing.
    The strong seasonal autocorrelation of monthly rainfall shrinks Var S by n/n* = 0.0526."""
    x = bogra["bogra_mm"].dropna().to_numpy()
    r = mann_kendall(x, variant="hamed_rao")
    assert r["S"] == -1959
    assert r["var_S"] == pytest.approx(257403.38678462413, rel=1e-10)
    assert r["var_S_tie_corrected"] == pytest.approx(4889800.333333333, rel=1e-12)
    assert r["variance_correction"] == pytest.approx(257403.38678462413 / 4889800.333333333, rel=1e-10)
    assert r["z"] == pytest.approx(-3.859273515045842, rel=1e-10)
    assert r["p_value"] == pytest.approx(0.00011372459883540742, rel=1e-8)
    assert r["trend"] == "decreasing" and r["significant"] is True
    # the interval uses the corrected variance: narrower than the original test's here
    o = mann_kendall(x)
    assert (r["sen_slope_ci"][1] - r["sen_slope_ci"][0]) < (o["sen_slope_ci"][1] - o["sen_slope_ci"][0])


def test_bogra_trend_free_prewhitening_close_to_pymannkendall(bogra):
    """pyMannKendall test_trend_free_pre_whitening_modification_test: s = -634, var_s = 4866576,
    z = -0.2869405688895601, p = 0.7741578265217384, no trend (352 whitened values).

    Here S = -632 and Var S = 4866574: in exact arithmetic (checked with fractions, r1 as the float
    0.5627112) the whitened series holds two pairs of tied values and S is -632; pyMannKendall's
    floating-point residuals break those ties at random. The verdict and p agree to 1e-3."""
    x = bogra["bogra_mm"].dropna().to_numpy()
    r = mann_kendall(x, variant="prewhitened")
    assert r["prewhitening_applied"] is True
    assert r["lag1_autocorrelation"] == pytest.approx(0.5627112024421685, rel=1e-9)
    assert r["n_tested"] == 352
    assert r["S"] == -632 and r["var_S"] == pytest.approx(4866574.0)
    assert r["p_value"] == pytest.approx(0.7741578265217384, abs=1e-3)
    assert r["trend"] == "no trend"
    assert r["sen_slope"] == pytest.approx(-0.0064516129032258064)  # the original series' slope


def test_prewhitening_skipped_when_lag1_not_significant(precip_gl):
    """Great Lakes precipitation has r1 = -0.051 (|r1| < 1.96/sqrt(87) = 0.21): Yue et al. (2002)
    then test the original series, so the answer is the original test's."""
    r = mann_kendall(precip_gl["precip_in"], times=precip_gl["year"], variant="prewhitened")
    assert r["prewhitening_applied"] is False and r["n_tested"] == 87
    assert r["lag1_autocorrelation"] == pytest.approx(-0.0512196, abs=1e-6)
    assert r["S"] == 989 and r["p_value"] == pytest.approx(0.0002920628, abs=1e-6)


def test_hamed_rao_inflates_variance_for_a_persistent_series():
    """An AR(1) series with phi = 0.8 around a weak trend: positive serial correlation must inflate
    Var S (n/n* > 1) and raise the p-value above the original test's."""
    rng = np.random.default_rng(7)
    e = np.zeros(80)
    for i in range(1, 80):
        e[i] = 0.8 * e[i - 1] + rng.normal()
    x = e + 0.03 * np.arange(80)
    o, h = mann_kendall(x), mann_kendall(x, variant="hamed_rao")
    assert h["variance_correction"] > 1.5
    assert h["var_S"] == pytest.approx(o["var_S"] * h["variance_correction"])
    assert h["p_value"] > o["p_value"]


def test_variants_refuse_an_unequally_spaced_series():
    with pytest.raises(InputError, match="equally spaced"):
        mann_kendall([1.0, 2.0, 4.0, 3.0, 5.0, 6.0], times=[1, 2, 3, 7, 8, 9], variant="hamed_rao")
    # the original test does not care
    assert mann_kendall([1.0, 2.0, 4.0, 3.0, 5.0, 6.0], times=[1, 2, 3, 7, 8, 9])["ok"] is True


# ---------------------------------------------------------------- seasonal Kendall


def _bogra_series(bogra: pd.DataFrame) -> pd.Series:
    idx = pd.to_datetime(pd.DataFrame({"year": bogra["year"], "month": bogra["month"], "day": 1}))
    return pd.Series(bogra["bogra_mm"].to_numpy(dtype=float, na_value=np.nan), index=idx)


def test_bogra_seasonal_kendall_matches_pymannkendall(bogra):
    """pyMannKendall test_seasonal_test (period 12): s = -399, var_s = 34702.333333333336,
    z = -2.136504114534638, p = 0.03263834596177739, decreasing. The missing months keep their
    place (month and year), as in pyMannKendall.

    The slope is the median of the 5,019 within-month pairwise slopes, -2/23 mm/year by direct
    enumeration (pyMannKendall 1.4.2's seasonal_sens_slope, read in its source, computes the same;
    the -1/6 in its test file could not be reproduced and is not used)."""
    s = _bogra_series(bogra)
    before = s.copy()
    r = seasonal_mann_kendall(s, unit="mm")
    assert r["ok"] is True and r["n"] == 353 and r["n_missing"] == 7 and r["n_seasons_used"] == 12
    assert r["S"] == -399
    assert r["var_S"] == pytest.approx(34702.333333333336, rel=1e-12)
    assert r["z"] == pytest.approx(-2.136504114534638, rel=1e-10)
    assert r["p_value"] == pytest.approx(0.03263834596177739, rel=1e-9)
    assert r["trend"] == "decreasing"
    assert r["sen_slope"] == pytest.approx(-2 / 23)
    assert r["slope_unit"] == "mm per year"
    lo, hi = r["sen_slope_ci"]
    assert lo < r["sen_slope"] <= hi
    assert sum(row["S"] for row in r["by_season"]) == -399
    pd.testing.assert_series_equal(s, before)


def test_seasonal_plain_sequence_uses_positions(bogra):
    r = seasonal_mann_kendall(bogra["bogra_mm"].to_numpy(dtype=float, na_value=np.nan), period=12)
    assert r["S"] == -399 and r["time_unit"] == "cycle" and r["slope_unit"] == "per cycle"


def test_seasonal_hand_computed():
    """Two seasons over 4 years: season A = 1, 2, 3, 4 (S = 6, Var = 4*3*13/18 = 26/3),
    season B = 4, 3, 3, 1 (S = -1-1-3+0-2-2 = -5 with one tie of 2: Var = (156 - 18)/18 = 23/3).
    S = 1, Var S = 49/3, z = 0. Slopes: A all 1; B -1, -1/2, -1, 0, -1, -2; the 12 sorted are
    -2, -1, -1, -1, -1/2, 0, 1, 1, 1, 1, 1, 1, median (0 + 1)/2 = 0.5."""
    x = [1, 4, 2, 3, 3, 3, 4, 1]
    r = seasonal_mann_kendall(x, period=2)
    assert r["S"] == 1 and r["var_S"] == pytest.approx(49 / 3) and r["z"] == 0.0
    assert r["sen_slope"] == pytest.approx(0.5)
    assert [row["S"] for row in r["by_season"]] == [6, -5]


def test_seasonal_bad_input():
    idx = pd.date_range("2000-01-01", periods=40, freq="D")
    with pytest.raises(InputError, match="one value per season"):
        seasonal_mann_kendall(pd.Series(np.arange(40.0), index=idx))
    with pytest.raises(InputError, match="period"):
        seasonal_mann_kendall(pd.Series(np.arange(40.0), index=pd.date_range("2000-01-01", periods=40, freq="MS")), period=6)
    with pytest.raises(InsufficientDataError):
        seasonal_mann_kendall(np.arange(24.0), period=12)
    r = seasonal_mann_kendall(np.tile(np.arange(12.0), 5), period=12)
    assert r["ok"] is False and "equal within every season" in r["reason"] and r["p_value"] is None


# ---------------------------------------------------------------- bad input and honest nulls


def test_nan_without_times_is_refused():
    with pytest.raises(InputError, match="times"):
        mann_kendall([1.0, 2.0, np.nan, 4.0, 5.0])


def test_nan_with_times_is_dropped_and_counted(precip_gl):
    x = precip_gl["precip_in"].to_numpy().copy()
    x[[3, 40]] = np.nan
    before = x.copy()
    r = mann_kendall(x, times=precip_gl["year"])
    assert r["n"] == 85 and r["n_missing"] == 2
    full = np.delete(precip_gl["precip_in"].to_numpy(), [3, 40])
    assert r["S"] == mann_kendall(full)["S"]
    np.testing.assert_array_equal(x, before)  # the caller's array is untouched


def test_too_few_values():
    with pytest.raises(InsufficientDataError):
        mann_kendall([1.0, 2.0, 3.0])
    with pytest.raises(InsufficientDataError):
        sens_slope([1.0, np.nan, 2.0, 3.0], times=[1, 2, 3, 4])


def test_all_equal_values_are_an_honest_null():
    r = mann_kendall([2.5] * 12)
    assert r["ok"] is False and "equal" in r["reason"]
    assert r["p_value"] is None and r["sen_slope"] is None and r["trend"] is None
    s = sens_slope([2.5] * 12)
    assert s["ok"] is False and s["slope"] is None


@pytest.mark.parametrize("times", [[1, 2, 2, 3, 4], [1, 3, 2, 4, 5]])
def test_duplicated_or_unsorted_times_are_refused(times):
    with pytest.raises(InputError, match="times"):
        mann_kendall([1.0, 2.0, 3.0, 4.0, 5.0], times=times)


def test_bad_options_are_refused():
    with pytest.raises(InputError, match="variant"):
        mann_kendall([1.0, 2.0, 3.0, 4.0], variant="modified")
    with pytest.raises(InputError, match="alpha"):
        mann_kendall([1.0, 2.0, 3.0, 4.0], alpha=1.5)
    with pytest.raises(InputError, match="values"):
        mann_kendall([1.0, 2.0, np.inf, 4.0])
    with pytest.raises(InputError, match="times"):
        mann_kendall([1.0, 2.0, 3.0, 4.0], times=[1, 2, 3])


def test_caller_series_not_modified(precip_gl):
    s = pd.Series(precip_gl["precip_in"].to_numpy(), index=precip_gl["year"].to_numpy())
    s.iloc[5] = np.nan
    copy = s.copy()
    mann_kendall(s)
    sens_slope(s)
    pd.testing.assert_series_equal(s, copy)


def test_meta_records_resolved_parameters():
    r = mann_kendall([1.0, 3.0, 2.0, 4.0, 5.0])
    p = r["meta"]["parameters"]
    assert p["alpha"] == 0.05 and p["variant"] == "original" and p["times"] is None
    assert any("Mann" in s.get("citation", "") for s in r["meta"]["sources"])


# ---------------------------------------------------------------- continuity conventions

def test_continuity_conventions_are_stated_and_selectable(bogra, precip_gl):
    """Hirsch's corrected z = (S - sign S)/sqrt(Var S) (the default, R Kendall's MannKendall and pyMannKendall) and the
    uncorrected z = S/sqrt(Var S) (continuity="none"); Bogra: S = -399, Var S = 34702.333...
    (pyMannKendall), so the uncorrected z is -399/sqrt(34702.333...) = -2.14187..."""
    s = _bogra_series(bogra)
    hirsch = seasonal_mann_kendall(s, unit="mm")
    kendall = seasonal_mann_kendall(s, unit="mm", continuity="none")
    assert hirsch["continuity_correction"] == "corrected" and "S - sign(S)" in hirsch["continuity_rule"]
    assert kendall["continuity_correction"] == "none" and "no continuity correction" in kendall["continuity_rule"]
    assert kendall["z"] == pytest.approx(-399 / math.sqrt(34702.333333333336), rel=1e-12)
    assert kendall["p_value"] == pytest.approx(2 * 0.5 * math.erfc(399 / math.sqrt(34702.333333333336) / math.sqrt(2)),
                                               rel=1e-10)
    assert kendall["p_value"] < hirsch["p_value"] and kendall["S"] == hirsch["S"]
    plain = mann_kendall(precip_gl["precip_in"].to_numpy(), continuity="none") if "precip_in" in precip_gl else \
        mann_kendall(precip_gl.iloc[:, -1].to_numpy(), continuity="none")
    assert plain["z"] == pytest.approx(plain["S"] / math.sqrt(plain["var_S"]), rel=1e-12)
    with pytest.raises(InputError, match="continuity"):
        mann_kendall([1, 2, 3, 5, 4], continuity="yates")
