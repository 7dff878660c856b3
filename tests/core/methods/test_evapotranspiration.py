"""Tests for aquascope_core.methods.evapotranspiration against the FAO-56 worked examples.

FAO-56 = Allen, Pereira, Raes & Smith (1998) Crop evapotranspiration, FAO Irrigation and Drainage
Paper 56. Its examples print values rounded to the digits shown, so tolerances are half a unit of
the last printed digit unless a test says otherwise.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from aquascope_core.errors import InputError
from aquascope_core.methods import evapotranspiration as et

BANGKOK_LAT = 13 + 44 / 60
BRUSSELS_LAT = 50 + 48 / 60
RIO_LAT = -(22 + 54 / 60)
LYON_LAT = 45 + 43 / 60


def test_example_17_bangkok_monthly(reference_cases):
    """Known answer: case ``fao56_example17_penman_monteith`` (FAO-56 Example 17, Bangkok, April, monthly):
    ET0 5.72 mm/d within 0.02; Ra 38.06 within 0.05; N 12.31, Rs 22.65, Rnl 3.11, Rn 14.33, G 0.14."""
    case = reference_cases["fao56_example17_penman_monteith"]
    want = case["expected"]
    r = et.fao56_penman_monteith(34.8, 25.6, latitude_deg=BANGKOK_LAT, elevation_m=2, day_of_year=105,
                                 time_step="monthly", wind_speed=2.0, actual_vapour_pressure=2.85,
                                 sunshine_hours=8.5, tmean_previous=29.2)
    assert r["et0"] == pytest.approx(want["et0_mm_per_day"], abs=0.02)
    got = r["intermediate"]
    assert got["Ra"] == pytest.approx(want["intermediate"]["Ra"], abs=0.05)
    for key in ("N", "Rs", "Rnl", "Rn", "G"):
        assert got[key] == pytest.approx(want["intermediate"][key], abs=0.006), key
    assert got["es"] == pytest.approx(4.42, abs=0.005) and got["delta"] == pytest.approx(0.246, abs=0.0005)
    assert got["gamma"] == pytest.approx(0.0674, abs=0.0001)  # FAO rounds P to 101.3 kPa first
    assert r["unit"] == "mm/d" and r["humidity_source"] == "actual vapour pressure given"
    json.dumps(r)


def test_example_18_brussels_daily():
    """FAO-56 Example 18: Brussels (50 deg 48' N, 100 m), 6 July (day 187), Tmax 21.5, Tmin 12.3, RHmax 84,
    RHmin 63, wind 10 km/h at 10 m, n = 9.25 h: ET0 3.9 mm/d, with Ra 41.09, N 16.1, Rs 22.07, Rso 30.90,
    Rnl 3.71, Rn 13.28, es 1.997, ea 1.409, u2 2.078, delta 0.122, gamma 0.0666."""
    r = et.fao56_penman_monteith(21.5, 12.3, latitude_deg=BRUSSELS_LAT, elevation_m=100, day_of_year=187,
                                 wind_speed=10 / 3.6, wind_height_m=10, rh_max=84, rh_min=63, sunshine_hours=9.25)
    assert r["et0"] == pytest.approx(3.9, abs=0.05)
    got = r["intermediate"]
    expected = {"Ra": (41.09, 0.005), "N": (16.1, 0.05), "Rs": (22.07, 0.005), "Rso": (30.90, 0.005),
                "Rnl": (3.71, 0.005), "Rn": (13.28, 0.005), "es": (1.997, 0.0005), "ea": (1.409, 0.0005),
                "u2": (2.078, 0.0005), "delta": (0.122, 0.0005), "gamma": (0.0666, 0.00005), "G": (0.0, 1e-12)}
    for key, (value, tol) in expected.items():
        assert got[key] == pytest.approx(value, abs=tol), key
    assert r["humidity_source"] == "RHmax and RHmin (Eq. 17)"
    assert "Eq. 47" in r["wind_source"] and "Eq. 35" in r["radiation_source"]


def test_examples_2_3_5_14_atmosphere_humidity_wind():
    """FAO-56 Example 2 (1800 m: P 81.8 kPa, gamma 0.054), Example 3 (Tmax 24.5, Tmin 15: es 2.39 kPa),
    Example 5 (Tmin 18, Tmax 25, RHmax 82, RHmin 54: ea 1.70 kPa; from RHmean 68: 1.78), Example 14
    (3.2 m/s at 10 m: u2 2.4 m/s)."""
    r = et.fao56_penman_monteith(25, 18, latitude_deg=0, elevation_m=1800, day_of_year=100, rh_max=82, rh_min=54)
    assert r["intermediate"]["P"] == pytest.approx(81.8, abs=0.05)
    assert r["intermediate"]["gamma"] == pytest.approx(0.054, abs=0.0005)
    assert r["intermediate"]["ea"] == pytest.approx(1.70, abs=0.005)
    r = et.fao56_penman_monteith(25, 18, latitude_deg=0, elevation_m=1800, day_of_year=100, rh_mean=68)
    assert r["intermediate"]["ea"] == pytest.approx(1.78, abs=0.005)
    r = et.fao56_penman_monteith(24.5, 15, latitude_deg=0, elevation_m=0, day_of_year=100, wind_speed=3.2, wind_height_m=10)
    assert r["intermediate"]["es"] == pytest.approx(2.39, abs=0.005)
    assert r["intermediate"]["u2"] == pytest.approx(2.4, abs=0.05)


def test_examples_8_9_extraterrestrial_radiation():
    """FAO-56 Examples 8 and 9: 20 deg S on 3 September (day 246): dr 0.985, declination 0.120 rad,
    sunset hour angle 1.527 rad, Ra 32.2 MJ m-2 d-1, N 11.7 h."""
    r = et.extraterrestrial_radiation(-20.0, 246)
    assert r["dr"] == pytest.approx(0.985, abs=0.0005)
    assert r["declination_rad"] == pytest.approx(0.120, abs=0.0005)
    assert r["sunset_hour_angle_rad"] == pytest.approx(1.527, abs=0.0005)
    assert r["Ra"] == pytest.approx(32.2, abs=0.05)
    assert r["N"] == pytest.approx(11.7, abs=0.05)
    assert r["Ra_mm_per_day"] == pytest.approx(0.408 * r["Ra"])
    many = et.extraterrestrial_radiation(-20.0, [1, 246, 365])
    assert many["Ra"][1] == pytest.approx(r["Ra"]) and len(many["N"]) == 3
    polar = et.extraterrestrial_radiation(80.0, [355, 172])
    assert polar["Ra"][0] == 0.0 and polar["N"][0] == 0.0 and polar["N"][1] == pytest.approx(24.0)


def test_examples_10_11_12_rio_de_janeiro_radiation():
    """FAO-56 Examples 10-12: Rio de Janeiro (22 deg 54' S), May (day 135), 220 h of sunshine in 31 days:
    Ra 25.1, N 10.9, Rs 14.5; with Tmax 25.1, Tmin 19.1, ea 2.1 kPa: Rso 18.8, Rnl 3.5, Rns 11.1, Rn 7.6."""
    r = et.fao56_penman_monteith(25.1, 19.1, latitude_deg=RIO_LAT, elevation_m=0, day_of_year=135, time_step="monthly",
                                 actual_vapour_pressure=2.1, sunshine_hours=220 / 31, tmean_previous=22.0)
    got = r["intermediate"]
    for key, value in {"Ra": 25.1, "N": 10.9, "Rs": 14.5, "Rso": 18.8, "Rnl": 3.5, "Rns": 11.1, "Rn": 7.6}.items():
        assert got[key] == pytest.approx(value, abs=0.05), key


def test_example_13_monthly_soil_heat_flux_from_a_monthly_series():
    """FAO-56 Example 13: mean temperature 14.1 C in March and 18.8 C in May: G(April) = 0.07 (18.8 - 14.1) =
    0.33 MJ m-2 d-1 (Eq. 43). May has no next month: Eq. 44, 0.14 (18.8 - 16.1). March has no previous
    month: no G, so no ET0 (never assumed zero)."""
    idx = pd.period_range("2001-03", "2001-05", freq="M")
    tmean = np.array([14.1, 16.1, 18.8])
    r = et.fao56_penman_monteith(pd.Series(tmean + 5, index=idx), pd.Series(tmean - 5, index=idx),
                                 latitude_deg=-35.0, elevation_m=100)
    assert r["time_step"] == "monthly" and r["dates"] == ["2001-03", "2001-04", "2001-05"]
    g = r["intermediate"]["G"]
    assert g[0] is None and g[1] == pytest.approx(0.33, abs=0.005) and g[2] == pytest.approx(0.14 * 2.7)
    assert r["et0"][0] is None and r["et0"][1] > 0 and r["n_missing"] == 1
    assert r["et0_mm_per_month"][1] == pytest.approx(r["et0"][1] * 30)
    assert "no G and no ET0" in r["soil_heat_flux_rule"]


def test_examples_15_20_lyon_missing_data_conventions():
    """FAO-56 Example 15 (Lyon, 45 deg 43' N, July, Tmax 26.6, Tmin 14.8, inland): Ra 40.6 and Rs = 0.16
    sqrt(11.8) Ra = 22.3 MJ m-2 d-1; Example 20 (same data, 200 m): dew point = Tmin gives ea 1.68 kPa,
    P 98.96 kPa; wind missing: u2 = 2 m/s. The conventions are stated in the payload."""
    r = et.fao56_penman_monteith(26.6, 14.8, latitude_deg=LYON_LAT, elevation_m=200, day_of_year=196)
    got = r["intermediate"]
    assert got["Ra"] == pytest.approx(40.6, abs=0.05)
    assert got["Rs"] == pytest.approx(22.3, abs=0.05)
    assert got["ea"] == pytest.approx(1.68, abs=0.005)
    assert got["P"] == pytest.approx(98.96, abs=0.005)
    assert got["u2"] == 2.0
    assert "dew point taken as Tmin" in r["humidity_source"]
    assert "Hargreaves radiation" in r["radiation_source"] and "kRs=0.16" in r["radiation_source"]
    assert "default u2 = 2 m/s" in r["wind_source"]
    arid = et.fao56_penman_monteith(26.6, 14.8, latitude_deg=LYON_LAT, elevation_m=200, day_of_year=196,
                                    tdew_below_tmin_c=2.0, krs=0.19)
    assert arid["intermediate"]["ea"] < got["ea"] and arid["intermediate"]["Rs"] > got["Rs"]
    assert "Tmin - 2 C" in arid["humidity_source"]


def test_hargreaves_samani_lyon_by_hand():
    """Hargreaves-Samani (FAO-56 Eq. 52) on the Example 20 data (Lyon, 15 July): by hand
    0.0023 x (20.7 + 17.8) x sqrt(11.8) x 0.408 x 40.55 = 5.03 mm/d, the 5.0 mm/d usually quoted."""
    r = et.hargreaves_samani(26.6, 14.8, latitude_deg=LYON_LAT, day_of_year=196)
    ra = et.extraterrestrial_radiation(LYON_LAT, 196)["Ra"]
    assert r["et0"] == pytest.approx(0.0023 * 38.5 * np.sqrt(11.8) * 0.408 * ra, rel=1e-12)
    assert round(r["et0"], 1) == 5.0


def test_oudin_by_hand_and_below_minus_five():
    """Oudin et al. (2005): PE = Ra/2.45 x (T + 5)/100 mm/d, zero when T <= -5 C."""
    ra = et.extraterrestrial_radiation(45.0, 196)["Ra"]
    r = et.oudin([20.0, -5.0, -12.0], latitude_deg=45.0, day_of_year=[196, 196, 196])
    assert r["pet"][0] == pytest.approx(ra / 2.45 * 0.25, rel=1e-12)
    assert r["pet"][1:] == [0.0, 0.0]


def test_oudin_against_hoopla_au_saumon(reference_dir):
    """Real data: the HOOPLA/HOLMES Au Saumon catchment (Quebec, 45.482 N) ships daily temperature and an
    Oudin PET, E0 (1976-1980 slice). Zero on exactly the same days (T <= -5 C); elsewhere within 0.05 mm/d
    and within 4 % when E0 > 0.5 mm/d. The small seasonal difference comes from the two Ra formulas."""
    a = pd.read_csv(reference_dir / "holmes_au_saumon_daily_T_E0_1976_1980.csv.gz", parse_dates=["Date"], index_col="Date")
    r = et.oudin(a["T"], latitude_deg=45.482)
    assert r["time_step"] == "daily" and r["dates"][0] == "1976-01-01"
    pe = np.array(r["pet"], dtype=float)
    e0 = a["E0"].to_numpy()
    assert np.array_equal(pe == 0, e0 == 0)
    assert np.max(np.abs(pe - e0)) < 0.05
    wet = e0 > 0.5
    assert np.max(np.abs(pe[wet] / e0[wet] - 1)) < 0.04


def test_series_input_daily_and_gaps():
    """A daily Series supplies the day of the year; a missing temperature gives a missing ET0 that day only."""
    idx = pd.date_range("2001-07-04", periods=5, freq="D")
    tx = pd.Series([21.5, 22.0, np.nan, 23.0, 21.5], index=idx)
    tn = pd.Series([12.3, 12.0, 11.0, 13.0, 12.3], index=idx)
    r = et.fao56_penman_monteith(tx, tn, latitude_deg=BRUSSELS_LAT, elevation_m=100,
                                 wind_speed=pd.Series(2.078, index=idx), rh_max=84, rh_min=63, sunshine_hours=9.25)
    assert r["time_step"] == "daily" and r["dates"][2] == "2001-07-06"
    assert r["et0"][2] is None and r["n_missing"] == 1
    single = et.fao56_penman_monteith(21.5, 12.3, latitude_deg=BRUSSELS_LAT, elevation_m=100, day_of_year=idx[4].day_of_year,
                                      wind_speed=2.078, rh_max=84, rh_min=63, sunshine_hours=9.25)
    assert r["et0"][4] == pytest.approx(single["et0"])
    assert tx.isna().sum() == 1  # the caller's Series is not modified


def test_et_series_feeds_spei(reference_dir):
    """A monthly Hargreaves ET0 as a Series of mm/month (et_series) is the PET an SPEI takes."""
    from aquascope_core.methods.drought import standardized_precipitation_evapotranspiration_index

    idx = pd.period_range("1971-01", periods=12 * 30, freq="M")
    season = 10 + 12 * np.sin(2 * np.pi * (idx.month.to_numpy() - 4) / 12)
    rng = np.random.default_rng(4)
    r = et.hargreaves_samani(pd.Series(season + 6 + rng.normal(0, 1, idx.size), index=idx),
                             pd.Series(season - 6 + rng.normal(0, 1, idx.size), index=idx), latitude_deg=40.0)
    pet = et.et_series(r)
    assert isinstance(pet.index, pd.PeriodIndex)
    assert pet.iloc[6] == pytest.approx(r["et0"][6] * 31)
    p = pd.Series(rng.gamma(2, 30, idx.size), index=idx)
    spei = standardized_precipitation_evapotranspiration_index(p, pet, 3)
    assert spei["ok"] and spei["record_years"] == 29


@pytest.mark.parametrize("kwargs, match", [
    ({"tmin": 30.0}, "tmin"),
    ({"rh_max": 120.0, "rh_min": 50.0}, "rh_max"),
    ({"sunshine_hours": 17.0}, "daylight hours"),
    ({"latitude_deg": 95.0}, "latitude_deg"),
    ({"day_of_year": None}, "day_of_year"),
    ({"day_of_year": 400}, "day_of_year"),
    ({"time_step": "hourly"}, "time_step"),
    ({"wind_speed": -1.0}, "wind_speed"),
])
def test_input_errors_name_the_argument(kwargs, match):
    args = {"tmin": 12.3, "latitude_deg": BRUSSELS_LAT, "elevation_m": 100.0, "day_of_year": 187}
    args.update(kwargs)
    tmin = args.pop("tmin")
    with pytest.raises(InputError, match=match):
        et.fao56_penman_monteith(21.5, tmin, **args)


def test_registry_rows_for_evapotranspiration():
    from aquascope_core.registry import METHODS

    for name in ("fao56_penman_monteith", "hargreaves_samani", "oudin", "extraterrestrial_radiation"):
        row = METHODS[name]
        assert row.function == f"aquascope_core.methods.evapotranspiration.{name}"
        assert callable(getattr(et, name))
