"""Tests for aquascope_core.methods.drought: SPI, SPEI, SGI, SSI, events, classes, propagation."""

from __future__ import annotations

import importlib
import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods import drought as d


def _values(result: dict) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in result["values"]], dtype=float)


@pytest.fixture(scope="module")
def fixture_frame(reference_dir) -> pd.DataFrame:
    return pd.read_csv(reference_dir / "climate_indices_fixture_monthly.csv")


@pytest.fixture(scope="module")
def fixture_precip(fixture_frame) -> pd.Series:
    return pd.Series(fixture_frame["precip_mm"].to_numpy(), index=pd.to_datetime(fixture_frame["date"]))


@pytest.fixture(scope="module")
def leaf(reference_dir) -> pd.DataFrame:
    return pd.read_csv(reference_dir / "holmes_leaf_river_daily_1957_1987.csv.gz", parse_dates=["Date"], index_col="Date")


def _synthetic_precip(years: int, seed: int = 1, start: str = "1961-01") -> pd.Series:
    rng = np.random.default_rng(seed)
    idx = pd.period_range(start, periods=12 * years, freq="M").to_timestamp()
    return pd.Series(rng.gamma(2.0, 40.0, size=idx.size), index=idx)


# --------------------------------------------------------------------------------------------
# SPI


@pytest.mark.parametrize("scale, column", [(1, "spi1_gamma_fixture"), (6, "spi6_gamma_fixture")])
def test_spi_reproduces_climate_indices_fixture(reference_cases, fixture_frame, fixture_precip, scale, column):
    """Known answer: case ``spi_gamma_fixture``, the SPI-1 and SPI-6 (gamma) test fixtures of climate-indices
    3.1.0 (BSD-3), monthly precipitation 1895-2017, tolerance 1e-3 on every non-missing value.

    The fixture fits each calendar month over the whole record, estimates the gamma shape with
    Thom's (1958) approximation to the maximum likelihood estimate and clips at +/-3.09; the
    record has no zero months. Those are the options used here.
    """
    case = reference_cases["spi_gamma_fixture"]
    assert "1e-3" in case["tolerance"]
    r = d.standardized_precipitation_index(fixture_precip, scale, fit="thom", clip=3.09)
    got, want = _values(r), fixture_frame[column].to_numpy(dtype=float)
    assert np.array_equal(np.isfinite(got), np.isfinite(want)), "missing values must sit where the fixture has them"
    ok = np.isfinite(want)
    assert ok.sum() > 1400
    np.testing.assert_allclose(got[ok], want[ok], atol=1e-3, rtol=0)
    assert r["ok"] and r["status"] == "defensible" and r["record_years"] == 122 - (1 if scale > 2 else 0)
    assert r["n_clipped"] >= 1  # the fixture's -3.09 values


def test_spi_mle_is_the_exact_likelihood_solution(fixture_precip, fixture_frame):
    """fit='mle' solves the gamma likelihood equation: the shapes equal scipy's numerical ML fit, and
    SPI differs from the Thom-based fixture by less than 0.01 (Thom's approximation error)."""
    r = d.standardized_precipitation_index(fixture_precip, 1, fit="mle")
    months = pd.to_datetime(fixture_frame["date"]).dt.month.to_numpy()
    p = fixture_frame["precip_mm"].to_numpy()
    for m in (1, 7):
        sample = p[(months == m) & np.isfinite(p)]
        shape, _, scale = stats.gamma.fit(sample, floc=0)
        got = r["parameters_by_month"][str(m)]
        assert got["shape"] == pytest.approx(shape, rel=1e-4)
        assert got["scale"] == pytest.approx(scale, rel=1e-4)
    diff = np.abs(_values(r) - fixture_frame["spi1_gamma_fixture"].to_numpy())
    assert 1e-4 < np.nanmax(diff) < 0.01


def test_spi_month_start_month_end_and_daily_input_agree(leaf):
    """A monthly index at month start or month end, or the daily record summed per month, give one SPI."""
    daily = leaf["P"]
    monthly_ms = daily.resample("MS").sum()
    monthly_me = daily.resample("ME").sum()
    a = d.standardized_precipitation_index(daily, 3)
    b = d.standardized_precipitation_index(monthly_ms, 3)
    c = d.standardized_precipitation_index(monthly_me, 3)
    assert a["input"]["input_resolution"] == "daily" and b["input"]["input_resolution"] == "monthly"
    assert a["dates"] == b["dates"] == c["dates"]
    np.testing.assert_allclose(_values(a), _values(b), equal_nan=True)
    np.testing.assert_allclose(_values(b), _values(c), equal_nan=True)


def test_spi_gap_stays_a_gap():
    """A missing month gives a missing SPI-1 for that month and a missing SPI-3 for the three windows
    that contain it; nothing else changes and nothing is filled."""
    p = _synthetic_precip(40)
    p_gap = p.copy()
    p_gap.iloc[100] = np.nan
    s1 = _values(d.standardized_precipitation_index(p_gap, 1))
    s3 = _values(d.standardized_precipitation_index(p_gap, 3))
    assert np.flatnonzero(np.isnan(s1)).tolist() == [100]
    assert np.flatnonzero(np.isnan(s3)).tolist() == [0, 1, 100, 101, 102]
    assert not p.isna().any()  # the caller's series is untouched
    # a month absent from the index is a gap too
    s1_absent = _values(d.standardized_precipitation_index(p.drop(p.index[100]), 1))
    assert np.isnan(s1_absent[100]) and s1_absent.size == p.size


def test_spi_zero_precipitation_mixture():
    """H(0) = q, the share of zero totals in the calendar month: SPI of a dry month is Phi^-1(q)."""
    p = _synthetic_precip(40, seed=3)
    july = p.index.month == 7
    p[july & (np.arange(p.size) % 24 < 12)] = 0.0  # July is dry in every other year
    r = d.standardized_precipitation_index(p, 1)
    fit = r["parameters_by_month"]["7"]
    q = fit["p_zero"]
    assert q == pytest.approx(20 / 40)
    got = _values(r)[july & (p.to_numpy() == 0)]
    np.testing.assert_allclose(got, stats.norm.ppf(q), atol=1e-12)


def test_spi_record_length_status_and_refusal():
    """Fewer than 10 values per calendar month: refused. 10-29: computed, marginal with the reason. 30+: defensible."""
    with pytest.raises(InsufficientDataError, match="at least 10"):
        d.standardized_precipitation_index(_synthetic_precip(9), 1)
    constant = pd.Series(50.0, index=_synthetic_precip(30).index)
    with pytest.raises(InsufficientDataError, match="constant"):
        d.standardized_precipitation_index(constant, 1)
    marginal = d.standardized_precipitation_index(_synthetic_precip(15), 1)
    assert marginal["status"] == "marginal" and marginal["record_years"] == 15
    assert "30" in marginal["reason"]
    good = d.standardized_precipitation_index(_synthetic_precip(30), 1)
    assert good["status"] == "defensible" and good["record_years"] == 30
    # SPI-12 loses the first 11 months: 30 Decembers but only 29 Januaries to November
    s12 = d.standardized_precipitation_index(_synthetic_precip(30), 12)
    assert s12["record_years"] == 29 and s12["record_years_by_month"]["12"] == 30


def test_spi_calendar_month_without_enough_rain_is_not_fitted():
    """A calendar month with fewer than 10 non-zero totals gets no gamma fit: ok False, the reason, no values."""
    p = _synthetic_precip(30, seed=5)
    aug = p.index.month == 8
    p[aug] = 0.0
    p.iloc[np.flatnonzero(aug)[:4]] = 12.0
    r = d.standardized_precipitation_index(p, 1)
    assert r["ok"] is False
    assert "month 8" in r["reason"]
    v = _values(r)
    assert np.isnan(v[aug]).all() and np.isfinite(v[~aug]).all()


def test_spi_calibration_period_and_json_safe(fixture_precip):
    r = d.standardized_precipitation_index(fixture_precip, 3, calibration_years=(1981, 2010))
    assert r["record_years"] == 30 and r["calibration_years"] == [1981, 2010]
    v = _values(r)
    in_cal = (fixture_precip.index.year >= 1981) & (fixture_precip.index.year <= 2010)
    assert abs(np.nanmean(v[in_cal])) < 0.05
    json.dumps(r)  # JSON-safe, NaN as null
    assert r["meta"]["parameters"]["calibration_years"] == [1981, 2010]
    assert r["unit"] == "dimensionless" and r["latest"]["date"] == "2017-02"


@pytest.mark.parametrize("kwargs, match", [
    ({"scale_months": 0}, "scale_months"),
    ({"scale_months": 2.5}, "scale_months"),
    ({"fit": "moments"}, "fit"),
    ({"clip": -1}, "clip"),
    ({"calibration_years": (2100, 2110)}, "calibration_years"),
])
def test_spi_bad_options(kwargs, match):
    with pytest.raises(InputError, match=match):
        d.standardized_precipitation_index(_synthetic_precip(30), **kwargs)


def test_spi_malformed_series():
    p = _synthetic_precip(30)
    with pytest.raises(InputError, match="increasing"):
        d.standardized_precipitation_index(p.iloc[::-1], 1)
    with pytest.raises(InputError, match="one value per date"):
        d.standardized_precipitation_index(pd.concat([p, p.iloc[:1]]).sort_index(), 1)
    with pytest.raises(InputError, match=">= 0"):
        bad = p.copy()
        bad.iloc[5] = -1.0
        d.standardized_precipitation_index(bad, 1)
    with pytest.raises(InputError, match="time zone"):
        d.standardized_precipitation_index(p.tz_localize("UTC"), 1)
    with pytest.raises(InputError, match="Series"):
        d.standardized_precipitation_index(p.to_numpy(), 1)


# --------------------------------------------------------------------------------------------
# SPEI


def test_spei_matches_an_independent_generalised_logistic_fit(leaf):
    """SPEI-3 of the Leaf River (HOLMES/HOOPLA daily P and PET, 1957-1987) against an independent computation:
    monthly totals by pandas, a 3-month sum, the generalised logistic fitted per calendar month by
    lmoments3 (unbiased sample L-moments, as the R SPEI package's default 'ub-pwm'), Phi^-1 by scipy."""
    lm = pytest.importorskip("lmoments3.distr")
    r = d.standardized_precipitation_evapotranspiration_index(leaf["P"], leaf["E0"], 3, clip=None)
    balance = (leaf["P"].resample("MS").sum() - leaf["E0"].resample("MS").sum()).rolling(3).sum()
    want = pd.Series(np.nan, index=balance.index)
    for m in range(1, 13):
        x = balance[balance.index.month == m].dropna()
        para = lm.glo.lmom_fit(x.to_numpy())
        want[x.index] = stats.norm.ppf(lm.glo.cdf(x.to_numpy(), **para))
        assert r["parameters_by_month"][str(m)]["k"] == pytest.approx(float(para["k"]), abs=1e-9)
    np.testing.assert_allclose(_values(r), want.to_numpy(), atol=1e-9, equal_nan=True)
    ks = [r["parameters_by_month"][str(m)]["k"] for m in range(1, 13)]
    assert min(ks) < 0 < max(ks)  # both skews occur: the GLO form handles the months the log-logistic cannot
    assert r["status"] == "defensible" and r["record_years"] == 30


def test_spei_properties_and_log_logistic_form(leaf):
    """Over the fitting period SPEI has mean ~0 and sd ~1; within a calendar month it is monotone in the
    water balance; for a positively skewed month the Vicente-Serrano log-logistic form gives the same F."""
    r = d.standardized_precipitation_evapotranspiration_index(leaf["P"], leaf["E0"], 6, pwm="plotting_position")
    v = _values(r)
    assert abs(np.nanmean(v)) < 0.05 and abs(np.nanstd(v) - 1) < 0.08
    balance = (leaf["P"].resample("MS").sum() - leaf["E0"].resample("MS").sum()).rolling(6).sum().to_numpy()
    months = np.array([int(s[5:]) for s in r["dates"]])
    for m in range(1, 13):
        sel = (months == m) & np.isfinite(v)
        assert stats.spearmanr(balance[sel], v[sel])[0] == pytest.approx(1.0)
    for m in range(1, 13):
        par = r["parameters_by_month"][str(m)]
        if "log_logistic" in par:
            ll = par["log_logistic"]
            x = balance[(months == m) & np.isfinite(balance)]
            f_vs = 1.0 / (1.0 + (ll["alpha"] / (x - ll["gamma"])) ** ll["beta"])
            np.testing.assert_allclose(stats.norm.ppf(f_vs), v[(months == m) & np.isfinite(balance)], atol=1e-8)
            break
    else:
        pytest.fail("no calendar month with a positively skewed balance")


def test_spei_needs_both_records_and_counts_the_overlap(leaf):
    p = leaf["P"].resample("MS").sum()
    e = leaf["E0"].resample("MS").sum()
    r = d.standardized_precipitation_evapotranspiration_index(p, e.loc["1975":], 1)  # 13 years of overlap
    assert r["record_years"] == 13 and r["status"] == "marginal"
    assert np.isnan(_values(r)[: 12 * 18]).all()
    with pytest.raises(InsufficientDataError):
        d.standardized_precipitation_evapotranspiration_index(p, e.loc["1980":], 1)


# --------------------------------------------------------------------------------------------
# SGI and SSI


def test_sgi_normal_scores_known_answer():
    """Bloomfield & Marchant (2013) normal scores per calendar month, Hazen positions (i - 0.5)/n:
    for 12 Januaries the lowest gets Phi^-1(0.5/12), tied values share their mean rank."""
    idx = pd.period_range("2001-01", periods=12 * 12, freq="M")
    rng = np.random.default_rng(7)
    head = pd.Series(100 + rng.normal(size=idx.size), index=idx)
    jan = np.flatnonzero(idx.month == 1)
    head.iloc[jan] = [5.0, 3.0, 9.0, 1.0, 7.0, 7.0, 2.0, 8.0, 4.0, 6.0, 10.0, 11.0]
    r = d.standardized_groundwater_index(head)
    got = _values(r)[jan]
    ranks = np.array([5, 3, 10, 1, 7.5, 7.5, 2, 9, 4, 6, 11, 12])  # by hand; the two 7.0 share 7 and 8
    np.testing.assert_allclose(got, stats.norm.ppf((ranks - 0.5) / 12), atol=1e-12)
    assert got[3] == pytest.approx(stats.norm.ppf(0.5 / 12))
    assert got[4] == got[5]
    assert r["status"] == "marginal" and r["record_years"] == 12


def test_sgi_refuses_three_years_of_real_heads(reference_dir):
    """The Schwingbach site 24 heads (spotpy, 2014-2016) have three years: too short for an SGI."""
    g = pd.read_csv(reference_dir / "spotpy_schwingbach_site24_daily_gwhead_2014_2016.csv.gz",
                    parse_dates=["time"], index_col="time")
    with pytest.raises(InsufficientDataError, match="at least 10"):
        d.standardized_groundwater_index(g["gwhead_m"], max_missing_days=5)


def test_ssi_gringorten_on_the_leaf_river(leaf):
    """SSI-1 of the Leaf River daily flows (averaged per month): 31 values per calendar month, the lowest
    possible value Phi^-1(0.56/31.12) (Gringorten), and per month the scores are exactly the Gringorten scores."""
    r = d.standardized_streamflow_index(leaf["Qo"], 1)
    assert r["record_years"] == 31 and r["status"] == "defensible" and r["index"] == "SSI-1"
    lowest = stats.norm.ppf(0.56 / 31.12)
    assert r["extremes"]["lowest_possible"] == pytest.approx(lowest)
    v = _values(r)
    assert np.nanmin(v) == pytest.approx(lowest)
    q = leaf["Qo"].resample("MS").mean().to_numpy()
    months = np.array([int(s[5:]) for s in r["dates"]])
    sel = months == 9
    np.testing.assert_allclose(v[sel], stats.norm.ppf((stats.rankdata(q[sel]) - 0.44) / 31.12), atol=1e-12)


def test_ssi_daily_mean_missing_days_rule():
    idx = pd.date_range("1960-01-01", "1999-12-31", freq="D")
    q = pd.Series(np.random.default_rng(2).gamma(2, 3, idx.size), index=idx)
    q.iloc[[40, 41]] = np.nan  # two days missing in February 1960
    strict = d.standardized_streamflow_index(q, 1)
    lenient = d.standardized_streamflow_index(q, 1, max_missing_days=2)
    assert strict["values"][1] is None and lenient["values"][1] is not None
    with pytest.raises(InputError, match=">= 0"):
        d.standardized_streamflow_index(q - 100, 1)


# --------------------------------------------------------------------------------------------
# events, classes


def test_drought_events_run_theory_by_hand():
    """Runs at or below -1 with onset, end, duration, severity = sum(-1 - z), magnitude = -sum(z), peak;
    a gap ends a run and marks it censored."""
    z = [0.5, -1.2, -1.8, -0.9, 0.1, -1.0, -2.5, -1.1, np.nan, -1.4, -1.3, 0.2, -1.6]
    idx = pd.period_range("2000-01", periods=len(z), freq="M")
    r = d.drought_events(pd.Series(z, index=idx))
    ev = r["events"]
    assert [(e["onset"], e["end"], e["duration_months"]) for e in ev] == [
        ("2000-02", "2000-03", 2), ("2000-06", "2000-08", 3), ("2000-10", "2000-11", 2), ("2001-01", "2001-01", 1)]
    assert ev[0]["severity"] == pytest.approx(0.2 + 0.8)
    assert ev[0]["magnitude"] == pytest.approx(3.0)
    assert ev[1]["severity"] == pytest.approx(0.0 + 1.5 + 0.1)
    assert ev[1]["peak_intensity"] == -2.5 and ev[1]["peak_date"] == "2000-07"
    assert ev[1]["mean_intensity"] == pytest.approx(1.6 / 3)
    assert [e["censored"] for e in ev] == [False, True, True, True]
    assert ev[-1]["ongoing"] and r["summary"]["current"]["onset"] == "2001-01"
    assert r["summary"]["most_severe"]["onset"] == "2000-06"
    assert r["summary"]["fraction_of_time_in_drought"] == pytest.approx(8 / 12)
    longer = d.drought_events(pd.Series(z, index=idx), min_duration_months=3)
    assert [e["onset"] for e in longer["events"]] == ["2000-06"]
    zero = d.drought_events(pd.Series(z, index=idx), threshold=0.0)
    assert zero["events"][0]["duration_months"] == 3  # -1.2, -1.8, -0.9


def test_drought_events_accepts_an_index_result(leaf):
    spi = d.standardized_precipitation_index(leaf["P"], 3)
    r = d.drought_events(spi)
    assert r["summary"]["n_events"] > 10
    for e in r["events"]:
        assert e["peak_intensity"] <= -1.0 and e["severity"] >= 0
    with pytest.raises(InputError, match="threshold"):
        d.drought_events(spi, threshold=float("nan"))


def test_spi_classes_of_the_wmo_guide_and_boundaries():
    """WMO (2012) SPI User Guide, WMO-No. 1090, Table 1: -0.99 to 0.99 near normal, -1.0 to -1.49 moderately dry."""
    assert d.mckee_class(-1.0) == "moderate drought"
    assert d.mckee_class(-0.99) == "near normal" and d.mckee_class(-0.05) == "near normal"
    assert d.mckee_class(0.99) == "near normal" and d.mckee_class(1.0) == "moderately wet"
    assert d.mckee_class(-1.5) == "severe drought"
    assert d.mckee_class(-2.0) == "extreme drought"
    assert d.mckee_class(0.0) == "near normal"
    assert d.mckee_class(1.99) == "very wet" and d.mckee_class(2.0) == "extremely wet"
    assert d.mckee_class(float("nan")) is None
    idx = pd.period_range("2000-01", periods=5, freq="M")
    r = d.drought_classes(pd.Series([-2.1, -1.2, np.nan, 0.3, 1.7], index=idx))
    assert r["classes"] == ["extreme drought", "moderate drought", None, "near normal", "very wet"]
    assert r["counts"]["moderate drought"] == 1 and r["fractions"]["extreme drought"] == pytest.approx(0.25)
    assert r["latest"] == {"date": "2000-05", "value": 1.7, "class": "very wet"}


# --------------------------------------------------------------------------------------------
# propagation


def test_propagation_finds_a_constructed_scale_and_lag():
    """A response that is SPI-6 delayed by two months is found at scale 6, lag 2, with r = 1."""
    p = _synthetic_precip(40, seed=11)
    spi6 = d.index_series(d.standardized_precipitation_index(p, 6, clip=None))
    response = spi6.shift(2)
    r = d.drought_propagation(p, response, scales=(1, 3, 6, 9, 12), max_lag_months=4)
    assert r["best"]["scale_months"] == 6 and r["best"]["lag_months"] == 2
    assert r["best"]["r"] == pytest.approx(1.0, abs=1e-9)
    assert r["correlation"][2][0] < 0.99


def test_propagation_on_the_leaf_river(leaf):
    """Leaf River (humid, fast, 1,924 km2): streamflow drought follows SPI of one to three months with no lag."""
    ssi = d.standardized_streamflow_index(leaf["Qo"], 1)
    r = d.drought_propagation(leaf["P"], ssi)
    assert r["ok"] and 1 <= r["best"]["scale_months"] <= 3 and r["best"]["lag_months"] == 0
    assert r["best"]["r"] > 0.7 and r["best"]["n_pairs"] >= 360
    r24 = r["correlation"][23][0]
    assert r24 < r["best"]["r"] - 0.2


def test_propagation_without_overlap_is_not_ok():
    p = _synthetic_precip(30, start="1961-01")
    idx = pd.period_range("2001-01", periods=60, freq="M")
    r = d.drought_propagation(p, pd.Series(np.zeros(60), index=idx), scales=(1, 3), max_lag_months=1)
    assert r["ok"] is False and r["best"] is None and "120" in r["reason"]


# --------------------------------------------------------------------------------------------
# registry


def test_drought_registry_rows_point_at_real_functions():
    from aquascope_core.registry import METHODS, assess_method
    from aquascope_core.registry.drought import METHODS as rows

    for row in rows:
        assert METHODS[row.id] is row
        mod, _, name = row.function.rpartition(".")
        assert name == row.id and callable(getattr(importlib.import_module(mod), name))
    spi = assess_method("standardized_precipitation_index", {"years_by_variable": {"precipitation": 20}})
    assert spi["status"] == "marginal"
    spei = assess_method("standardized_precipitation_evapotranspiration_index",
                         {"years_by_variable": {"precipitation": 40}, "available": ["precipitation"]})
    assert spei["status"] == "not_defensible" and "potential_evapotranspiration" in spei["reason"]
