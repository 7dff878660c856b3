"""Tests of aquascope_core.methods.signatures: mean annual flow, runoff ratio, flashiness,
seasonality and the CAMELS high/low-flow frequency and duration.

The constructed series below are chosen so each answer can be derived by hand from the definitions
of Addor et al. (2017, Table 3) / Addor et al. (2018), Baker et al. (2004), Walsh & Lawler (1981)
and Court (1962); each derivation is in the test's docstring.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from aquascope_core.errors import InputError, InsufficientDataError, UnitError
from aquascope_core.methods.signatures import (
    flow_seasonality,
    high_low_flow_events,
    mean_annual_flow,
    richards_baker_flashiness,
    runoff_ratio,
)


@pytest.fixture(scope="module")
def flat_brook(reference_dir) -> pd.Series:
    d = pd.read_csv(reference_dir / "usgs_01440000_flat_brook_daily_1990_2020_m3s.csv.gz", parse_dates=["date"])
    return d.set_index("date")["discharge_m3s"]


def _daily(values, start="2001-01-01") -> pd.Series:
    values = np.asarray(values, dtype=float)
    return pd.Series(values, index=pd.date_range(start, periods=values.size, freq="D"))


# ---------------------------------------------------------------- mean annual flow


def test_mean_annual_flow_by_hand():
    """2001 at 1 m3/s, 2002 at 3 m3/s, and 10 days of 2003: the partial year is left out, the annual
    means are 1 and 3, their mean 2 and CV sqrt(2)/2. Over 86.4 km2, 1 m3/s is 1 mm/d, so the mean
    annual runoff is 2 x 365.25 mm."""
    q = _daily([1.0] * 365 + [3.0] * 365 + [2.0] * 10)
    r = mean_annual_flow(q, area_km2=86.4)
    assert r["years"] == [2001, 2002] and r["annual_means"] == pytest.approx([1.0, 3.0])
    assert r["mean_annual_flow"] == pytest.approx(2.0)
    assert r["cv_annual"] == pytest.approx(np.sqrt(2) / 2)
    assert r["mean_annual_runoff_mm"] == pytest.approx(730.5)
    assert r["excluded"] == [{"year": 2003, "missing_days": 355}]
    json.dumps(r)


def test_mean_annual_flow_flat_brook_against_pandas(flat_brook):
    """Water years (October start): the mean of the 29 complete years' means, recomputed with pandas."""
    r = mean_annual_flow(flat_brook, year_start_month=10, area_km2=165.8)
    wy = flat_brook.index.year - (flat_brook.index.month < 10)
    means = flat_brook.groupby(wy).mean().loc[1990:2018]
    assert r["years"] == list(range(1990, 2019))
    assert r["mean_annual_flow"] == pytest.approx(means.mean())
    assert r["mean_annual_runoff_mm"] == pytest.approx(means.mean() * 86.4 / 165.8 * 365.25)
    assert 400 < r["mean_annual_runoff_mm"] < 900  # humid north-east US


# ---------------------------------------------------------------- runoff ratio


def test_runoff_ratio_by_hand_with_unit_conversion():
    """Flow alternating 0.5 and 1.5 m3/s (mean 1 m3/s = 1 mm/d over 86.4 km2) against precipitation
    alternating 1 and 3 mm/d (mean 2): ratio 0.5. The same flow in cfs, over the same area, and the
    precipitation in inches give the same ratio."""
    n = 730
    q = _daily(np.where(np.arange(n) % 2 == 0, 0.5, 1.5))
    p = _daily(np.where(np.arange(n) % 2 == 0, 1.0, 3.0))
    r = runoff_ratio(q, p, area_km2=86.4)
    assert r["runoff_ratio"] == pytest.approx(0.5)
    assert r["mean_flow_mm_per_day"] == pytest.approx(1.0)
    assert r["mean_precipitation_mm_per_day"] == pytest.approx(2.0)
    assert r["n_days"] == n and r["warnings"] == []
    r2 = runoff_ratio(q / 0.028316846592, p / 25.4, area_km2=86.4, flow_unit="cfs", precipitation_unit="in/d")
    assert r2["runoff_ratio"] == pytest.approx(0.5)
    r3 = runoff_ratio(q, p, flow_unit="mm/d")  # a depth needs no area
    assert r3["runoff_ratio"] == pytest.approx(0.5)


def test_runoff_ratio_uses_only_shared_days_and_warns_above_one():
    q = _daily(np.where(np.arange(800) % 2 == 0, 3.0, 5.0))
    p = _daily(np.where(np.arange(800) % 2 == 0, 1.0, 3.0), start="2001-03-01")
    r = runoff_ratio(q, p, flow_unit="mm/d")
    assert r["period"][0] == "2001-03-01" and r["n_days"] == 800 - 59
    assert r["runoff_ratio"] > 1 and r["warnings"]


def test_runoff_ratio_units_refused():
    q, p = _daily(np.arange(1.0, 400.0)), _daily(np.arange(1.0, 400.0))
    with pytest.raises(UnitError, match="area_km2"):
        runoff_ratio(q, p)
    with pytest.raises(UnitError, match="gpm"):
        runoff_ratio(q, p, area_km2=10, flow_unit="gpm")
    with pytest.raises(UnitError, match="precipitation_unit"):
        runoff_ratio(q, p, area_km2=10, precipitation_unit="mm/h")
    with pytest.raises(InputError, match="area_km2"):
        runoff_ratio(q, p, area_km2=-5)


# ---------------------------------------------------------------- flashiness


def test_richards_baker_by_hand():
    """q alternates 1, 3, 1, 3, ... over 2001-2002 (730 days): every day changes by 2, so the
    numerator is 2 x 729 and the denominator the flows of days 2..730 (365 threes, 364 ones, 1459):
    RB = 1458/1459. Only 2002 is a complete year of pairs (1 January 2001 has no previous day): its
    365 days start with a 3, so RB_2002 = 730/(183 x 3 + 182) = 730/731."""
    q = _daily(np.where(np.arange(730) % 2 == 0, 1.0, 3.0))
    r = richards_baker_flashiness(q)
    assert r["flashiness_index"] == pytest.approx(1458 / 1459)
    assert r["annual"] == {"2002": pytest.approx(730 / 731)}
    assert r["unit"] == "-"


def test_richards_baker_flat_brook_and_gaps(flat_brook):
    r = richards_baker_flashiness(flat_brook)
    assert 0.1 < r["flashiness_index"] < 0.6 and len(r["annual"]) == 29
    s = flat_brook.copy()
    s.loc["2005-07-04"] = np.nan
    g = richards_baker_flashiness(s)
    assert "2005" not in g["annual"] and g["n_pairs"] == r["n_pairs"] - 2


# ---------------------------------------------------------------- seasonality


def test_seasonality_all_runoff_in_january():
    """Flow 1 every January day, 0 otherwise, water years 2000-01 to 2002-03: all volume in one month,
    SI = (1/R)(|R - R/12| + 11 R/12) = 22/12. Half of each water year's 31 units has passed on the
    16th January, day 31 + 30 + 31 + 16 = 108 of the water year."""
    idx = pd.date_range("2000-10-01", "2003-09-30", freq="D")
    q = pd.Series(np.where(idx.month == 1, 1.0, 0.0), index=idx)
    r = flow_seasonality(q)
    assert r["seasonality_index"] == pytest.approx(22 / 12)
    assert r["month_of_max"] == 1 and r["monthly_mean_flow"][0] == 1.0 and r["monthly_mean_flow"][5] == 0.0
    assert r["half_flow_dates"] == {"2000": 108, "2001": 108, "2002": 108}
    assert r["half_flow_date_mean"] == 108.0


def test_seasonality_even_regime_is_zero():
    """Mean flow proportional to 1/days-in-month gives equal monthly volumes: SI = 0."""
    idx = pd.date_range("2001-01-01", "2004-12-31", freq="D")
    mean_days = {1: 31, 2: 28.25, 3: 31, 4: 30, 5: 31, 6: 30, 7: 31, 8: 31, 9: 30, 10: 31, 11: 30, 12: 31}
    q = pd.Series([100.0 / mean_days[m] for m in idx.month], index=idx)
    # February flows differ in leap years only through the count of days, not the value
    assert flow_seasonality(q)["seasonality_index"] == pytest.approx(0.0, abs=1e-12)


def test_seasonality_flat_brook(flat_brook):
    """Flat Brook: snowmelt and spring rain, high in March, low in July-September."""
    r = flow_seasonality(flat_brook)
    assert r["month_of_max"] in (3, 4) and r["month_of_min"] in (7, 8, 9)
    assert 0.1 < r["seasonality_index"] < 0.6
    assert 120 < r["half_flow_date_mean"] < 220 and len(r["half_flow_dates"]) == 29


def test_seasonality_needs_every_month():
    q = _daily(np.arange(1.0, 731.0))
    q[q.index.month == 5] = np.nan
    with pytest.raises(InsufficientDataError, match=r"\[5\]"):
        flow_seasonality(q)


# ---------------------------------------------------------------- high and low flows


def test_high_low_flow_events_by_hand():
    """400 days at 1.0 except two high runs (20 for 2 days, 20 for 3 days) and one low run (0.1 for
    4 days). Median 1, so the high threshold is 9 and 5 days in 2 events are high: frequency
    5/(400/365.25) days/yr, mean duration 2.5. Mean = (391 + 100 + 0.4)/400 = 1.2285, low threshold
    0.2457: 4 low days in one event of 4."""
    q = np.ones(400)
    q[50:52] = 20.0
    q[200:203] = 20.0
    q[300:304] = 0.1
    r = high_low_flow_events(_daily(q))
    years = 400 / 365.25
    assert r["high_flow_threshold"] == pytest.approx(9.0)
    assert r["n_high_flow_events"] == 2 and r["high_flow_mean_duration"] == pytest.approx(2.5)
    assert r["high_flow_frequency"] == pytest.approx(5 / years)
    assert r["low_flow_threshold"] == pytest.approx(0.2 * 491.4 / 400)
    assert r["n_low_flow_events"] == 1 and r["low_flow_mean_duration"] == pytest.approx(4.0)
    assert r["low_flow_frequency"] == pytest.approx(4 / years)
    assert r["zero_flow_fraction"] == 0.0


def test_a_missing_day_ends_an_event():
    q = np.ones(400)
    q[50:55] = 20.0
    s = _daily(q)
    s.iloc[52] = np.nan
    r = high_low_flow_events(s)
    assert r["n_high_flow_events"] == 2 and r["high_flow_mean_duration"] == pytest.approx(2.0)
    assert r["n"] == 399


def test_high_low_flow_events_flat_brook(flat_brook):
    r = high_low_flow_events(flat_brook)
    assert r["high_flow_threshold"] == pytest.approx(9 * flat_brook.median())
    assert r["low_flow_threshold"] == pytest.approx(0.2 * flat_brook.mean())
    assert r["high_flow_frequency"] == pytest.approx(np.sum(flat_brook > 9 * flat_brook.median()) / (len(flat_brook) / 365.25))
    assert 1 <= r["high_flow_mean_duration"] < 5 and r["low_flow_mean_duration"] > 5
    with pytest.raises(InputError, match="high_factor"):
        high_low_flow_events(flat_brook, high_factor=0)


def test_signatures_do_not_modify_the_caller(flat_brook):
    s = flat_brook.copy()
    mean_annual_flow(s)
    richards_baker_flashiness(s)
    flow_seasonality(s)
    high_low_flow_events(s)
    pd.testing.assert_series_equal(s, flat_brook)
