"""Tests of aquascope_core.methods.flows: flow duration curve, annual n-day minima, 7Q10."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods.flows import annual_minimum_flows, flow_duration_curve, low_flow_frequency


@pytest.fixture(scope="module")
def flat_brook(reference_dir) -> pd.Series:
    """USGS 01440000 Flat Brook nr Flatbrookville NJ, daily m3/s, climatic years 1990-2019."""
    d = pd.read_csv(reference_dir / "usgs_01440000_flat_brook_daily_1990_2020_m3s.csv.gz", parse_dates=["date"])
    return d.set_index("date")["discharge_m3s"]


def _daily(values, start="2001-01-01") -> pd.Series:
    values = np.asarray(values, dtype=float)
    return pd.Series(values, index=pd.date_range(start, periods=values.size, freq="D"))


# ---------------------------------------------------------------- flow duration curve


def test_fdc_hand_computed_weibull():
    """365 distinct flows 1..365 (in a scrambled order). The i-th largest is 366 - i at Weibull
    exceedance i/366, so the flow exceeded p of the time is 366 - 366 p: Q50 = 183,
    Q5 = 366 - 18.3 = 347.7, Q95 = 366 - 347.7 = 18.3; the FDC slope is
    (ln(366 - 120.78) - ln(366 - 241.56)) / 0.33."""
    values = (np.arange(365) * 7) % 365 + 1  # 7 and 365 are coprime: a permutation of 1..365
    r = flow_duration_curve(_daily(values), percentiles=(5, 50, 95, 0.1))
    assert r["ok"] is True and r["n"] == 365 and r["plotting_position"] == "weibull"
    assert r["quantiles"]["Q50"] == pytest.approx(183.0)
    assert r["quantiles"]["Q5"] == pytest.approx(347.7)
    assert r["quantiles"]["Q95"] == pytest.approx(18.3)
    assert r["quantiles"]["Q0.1"] is None and r["beyond_record"] == ["Q0.1"]  # 0.001 < 1/366: not extrapolated
    assert r["slope_fdc"] == pytest.approx((math.log(245.22) - math.log(124.44)) / 0.33)
    json.dumps(r)


@pytest.mark.parametrize("position,a", [("hazen", 0.5), ("gringorten", 0.44), ("cunnane", 0.4)])
def test_fdc_other_plotting_positions(position, a):
    """p_i = (i - a)/(n + 1 - 2a), so the flow at exceedance p is 366 - (p (366 - 2a) + a)."""
    values = (np.arange(365) * 7) % 365 + 1
    r = flow_duration_curve(_daily(values), plotting_position=position)
    for pct in (5, 50, 95):
        p = pct / 100
        assert r["quantiles"][f"Q{pct}"] == pytest.approx(366 - (p * (366 - 2 * a) + a))


def test_fdc_flat_brook_properties(flat_brook):
    r = flow_duration_curve(flat_brook)
    assert r["n"] == 10958 and r["n_missing"] == 0
    assert r["period"] == ["1990-04-01", "2020-03-31"]
    # an even count: the Weibull Q50 falls half-way between the two middle values, the sample median
    assert r["quantiles"]["Q50"] == pytest.approx(float(np.median(flat_brook)))
    flows = np.asarray(r["curve"]["flow"])
    pct = np.asarray(r["curve"]["exceedance_pct"])
    assert 100 <= flows.size <= 110
    assert np.all(np.diff(pct) > 0) and np.all(np.diff(flows) <= 0)  # monotone
    assert flows[0] <= flat_brook.max() and flows[-1] >= flat_brook.min()
    q = r["quantiles"]
    assert q["Q1"] > q["Q5"] > q["Q50"] > q["Q95"] > q["Q99"] > 0
    # Q95 is exceeded on 95 % of days (to within the interpolation of one rank)
    assert np.mean(flat_brook.to_numpy() > q["Q95"]) == pytest.approx(0.95, abs=1e-3)


def test_fdc_drops_missing_days_and_counts_them(flat_brook):
    s = flat_brook.loc["2000-01-01":"2004-12-31"].copy()
    s.iloc[10:20] = np.nan
    s = s.drop(s.index[100:105])  # absent days count as missing too
    before = s.copy()
    r = flow_duration_curve(s)
    assert r["n_missing"] == 15 and r["n"] == len(before) - 10
    pd.testing.assert_series_equal(s, before)


# ---------------------------------------------------------------- input validation (shared by every flow method)


@pytest.mark.parametrize("make,match", [
    (lambda s: s.to_numpy(), "Series"),
    (lambda s: s.reset_index(drop=True), "DatetimeIndex"),
    (lambda s: s.iloc[::-1], "increasing"),
    (lambda s: pd.concat([s.iloc[:10], s.iloc[9:]]), "duplicated"),
    (lambda s: s.resample("MS").mean(), "daily"),
    (lambda s: pd.Series(np.arange(1000.0), index=pd.date_range("2000-01-01", periods=1000, freq="h")), "daily"),
    (lambda s: s.where(s.index != s.index[50], -1.0), "negative"),
])
def test_bad_daily_records_are_refused(flat_brook, make, match):
    s = flat_brook.loc["2000-01-01":"2003-12-31"]
    with pytest.raises(InputError, match=match):
        flow_duration_curve(make(s))


def test_too_short_and_constant_records():
    with pytest.raises(InsufficientDataError):
        flow_duration_curve(_daily(np.arange(1.0, 101.0)))
    with pytest.raises(InsufficientDataError, match="constant"):
        flow_duration_curve(_daily(np.full(800, 2.5)))


def test_bad_options():
    s = _daily(np.arange(1.0, 400.0))
    with pytest.raises(InputError, match="plotting_position"):
        flow_duration_curve(s, plotting_position="california")
    with pytest.raises(InputError, match="percentiles"):
        flow_duration_curve(s, percentiles=(0, 50))
    with pytest.raises(InputError, match="year_start_month"):
        annual_minimum_flows(s, year_start_month=13)
    with pytest.raises(InputError, match="days"):
        annual_minimum_flows(s, days=0)
    with pytest.raises(InputError, match="distribution"):
        low_flow_frequency(s, distribution="gev")
    with pytest.raises(InputError, match="return_period"):
        low_flow_frequency(s, return_period=1)


# ---------------------------------------------------------------- annual minima


def _climatic_years(minima, first_year=1990, dip_month=8, base=10.0) -> pd.Series:
    """One climatic year (April-March) per entry: flow ``base`` except a 7-day dip to the given
    minimum from the 1st of ``dip_month`` (in the following calendar year when it is Jan-Mar)."""
    idx = pd.date_range(f"{first_year}-04-01", f"{first_year + len(minima)}-03-31", freq="D")
    q = pd.Series(base, index=idx)
    for k, m in enumerate(minima):
        y = first_year + k + (1 if dip_month < 4 else 0)
        start = pd.Timestamp(year=y, month=dip_month, day=1)
        q.loc[start:start + pd.Timedelta(days=6)] = m
    return q


def test_annual_7day_minima_by_climatic_year():
    """A 7-day dip of known depth in each climatic year: the 7-day minimum is the dip, ending on the
    7th; a dip in February belongs to the climatic year that began the previous April."""
    q = _climatic_years([1.0, 2.0, 0.5], dip_month=2)
    r = annual_minimum_flows(q)
    assert r["years"] == [1990, 1991, 1992]
    assert r["minima"] == pytest.approx([1.0, 2.0, 0.5])
    assert r["window_end"] == ["1991-02-07", "1992-02-07", "1993-02-07"]
    assert r["excluded"] == [] and r["days"] == 7 and r["year_start_month"] == 4


def test_windows_do_not_cross_the_climatic_year_boundary():
    """0.5 from 28 March to 3 April (7 days) around the boundary of climatic years 1990/1991: no
    window holds all seven; the last window of 1990 (25-31 March) has four of them,
    (4*0.5 + 3*10)/7, the first of 1991 (1-7 April) three, (3*0.5 + 4*10)/7."""
    idx = pd.date_range("1990-04-01", "1992-03-31", freq="D")
    q = pd.Series(10.0, index=idx)
    q.loc["1991-03-28":"1991-04-03"] = 0.5
    r = annual_minimum_flows(q)
    assert r["minima"] == pytest.approx([(4 * 0.5 + 30) / 7, (3 * 0.5 + 40) / 7])
    assert r["window_end"] == ["1991-03-31", "1991-04-07"]


def test_incomplete_years_are_left_out_unless_allowed():
    q = _climatic_years([1.0, 2.0, 3.0])
    q.loc["1991-12-25"] = np.nan
    q = pd.concat([pd.Series(5.0, index=pd.date_range("1990-01-01", "1990-03-31")), q])  # a partial year 1989
    r = annual_minimum_flows(q)
    assert r["years"] == [1990, 1992]
    assert r["excluded"] == [{"year": 1989, "missing_days": 275}, {"year": 1991, "missing_days": 1}]
    r1 = annual_minimum_flows(q, max_missing_days=1)
    assert r1["years"] == [1990, 1991, 1992] and r1["minima"] == pytest.approx([1.0, 2.0, 3.0])


def test_calendar_year_and_other_durations():
    q = _climatic_years([1.0, 2.0, 3.0], dip_month=8)
    r = annual_minimum_flows(q, days=1, year_start_month=1)
    assert r["years"] == [1991, 1992]  # 1990 and 1993 are partial calendar years
    assert r["minima"] == pytest.approx([2.0, 3.0])
    r30 = annual_minimum_flows(q, days=30)
    assert r30["minima"] == pytest.approx([(7 * 1.0 + 23 * 10) / 30, (7 * 2 + 230) / 30, (7 * 3 + 230) / 30])


# ---------------------------------------------------------------- low-flow frequency


def test_7q10_log_pearson3_with_zero_skew_is_lognormal():
    """Minima 10^(-1.0), 10^(-0.9), ..., 10^(0.0): their log10 values are symmetric about -0.5, so the
    skew is 0, the Pearson III frequency factor at 0.1 is the normal quantile -1.2815516 and
    7Q10 = 10^(-0.5 - 1.2815516 * 0.1 * sqrt(11)) (sample sd of k/10, k = -5..5, is 0.1 sqrt(11))."""
    minima = 10 ** np.linspace(-1.0, 0.0, 11)
    order = [3, 7, 0, 10, 5, 1, 9, 2, 8, 4, 6]
    r = low_flow_frequency(_climatic_years(minima[order]))
    assert r["ok"] is True and r["statistic"] == "7Q10" and r["n_years"] == 11
    assert r["parameters"]["mean_log10"] == pytest.approx(-0.5)
    assert r["parameters"]["sd_log10"] == pytest.approx(0.1 * math.sqrt(11))
    assert abs(r["parameters"]["skew_log10"]) < 1e-10
    assert r["frequency_factor"] == pytest.approx(-1.2815515655446004, abs=1e-9)
    assert r["value"] == pytest.approx(10 ** (-0.5 - 1.2815515655446004 * 0.1 * math.sqrt(11)), rel=1e-10)
    assert r["non_exceedance_probability"] == pytest.approx(0.1)


def test_7q10_log_pearson3_skewed_against_wilson_hilferty():
    """With skew g the frequency factor is close to the Wilson-Hilferty approximation
    K = (2/g)[(1 + g z/6 - g^2/36)^3 - 1] (accurate to about 0.01 for |g| < 1)."""
    logs = np.array([-1.2, -0.9, -0.8, -0.75, -0.7, -0.6, -0.55, -0.5, -0.45, -0.3, -0.1, 0.1])
    r = low_flow_frequency(_climatic_years(10 ** logs))
    g, z = r["parameters"]["skew_log10"], -1.2815515655446004
    assert 0.1 < abs(g) < 1
    wh = (2 / g) * ((1 + g * z / 6 - g * g / 36) ** 3 - 1)
    assert r["frequency_factor"] == pytest.approx(wh, abs=0.01)
    assert r["value"] == pytest.approx(10 ** (logs.mean() + r["frequency_factor"] * logs.std(ddof=1)))


def test_7q10_weibull_matches_an_independent_fit(flat_brook):
    """The two-parameter Weibull maximum-likelihood fit (profile equation solved by root finding)
    agrees with scipy's general-purpose optimiser, weibull_min.fit(floc=0), to 1e-4."""
    r = low_flow_frequency(flat_brook, distribution="weibull")
    x = np.asarray(r["minima"])
    shape, _, scale = stats.weibull_min.fit(x, floc=0)
    assert r["parameters"]["shape"] == pytest.approx(shape, rel=1e-4)
    assert r["parameters"]["scale"] == pytest.approx(scale, rel=1e-4)
    assert r["value"] == pytest.approx(stats.weibull_min.ppf(0.1, r["parameters"]["shape"], scale=r["parameters"]["scale"]))


def test_7q10_flat_brook(flat_brook):
    """30 climatic years 1990-2019. Both fits put 7Q10 inside the observed 7-day minima, below their
    median and within 20 % of each other; these are this implementation's values (regression)."""
    lp3 = low_flow_frequency(flat_brook)
    wei = low_flow_frequency(flat_brook, distribution="weibull")
    x = np.asarray(lp3["minima"])
    assert lp3["n_years"] == 30 and lp3["years"][0] == 1990 and lp3["years"][-1] == 2019
    for r in (lp3, wei):
        assert r["ok"] is True and x.min() < r["value"] < np.median(x)
    assert abs(lp3["value"] - wei["value"]) / lp3["value"] < 0.2
    assert lp3["value"] == pytest.approx(0.18783, rel=1e-4)
    assert wei["value"] == pytest.approx(0.16302, rel=1e-4)


def test_7q10_zero_minima_are_an_honest_null():
    r = low_flow_frequency(_climatic_years([0.0, 0.3, 0.5, 0.2, 0.0, 0.4, 0.6, 0.3, 0.2, 0.5, 0.1]))
    assert r["ok"] is False and r["value"] is None and "zero" in r["reason"]
    assert r["zero_fraction"] == pytest.approx(2 / 11)


def test_7q10_needs_ten_years():
    with pytest.raises(InsufficientDataError, match="at least 10"):
        low_flow_frequency(_climatic_years([1.0, 2.0, 3.0, 1.5, 2.5]))


def test_caller_series_not_modified(flat_brook):
    s = flat_brook.copy()
    low_flow_frequency(s)
    annual_minimum_flows(s)
    pd.testing.assert_series_equal(s, flat_brook)
