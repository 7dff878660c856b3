"""Tests of aquascope_core.methods.trends (Mann-Kendall, its variants, Sen's slope)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods.trends import mann_kendall, sens_slope


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
