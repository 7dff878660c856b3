"""Tests for aquascope_core.tools.climate: reference ET0 at a station and the crop water demand over a record.

The crop demand is checked against a hand computation with the FAO-56 Table 11-12 values for maize
(constant ET0, no rain), and against the method called directly for one Leaf River season; the ET0
tool against the Leaf River PET record and against Hargreaves-Samani called directly on the Fulda
temperatures.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from aquascope_core.data import get_source
from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods import crops
from aquascope_core.methods.evapotranspiration import et_series, hargreaves_samani
from aquascope_core.tools.climate import crop_water_demand, reference_evapotranspiration
from aquascope_core.tools.context import DataContext, table_entry

FULDA_SITE = (50.55, 9.68)  # Fulda, Hesse: where the test places the Fulda climate upload


def _upload(name: str, frame: pd.DataFrame, site=FULDA_SITE) -> DataContext:
    entry = table_entry(name, frame.to_csv(index=False))
    return DataContext.from_tables({name: entry}, {"lat": site[0], "lon": site[1]} if site else None)


@pytest.fixture(scope="module")
def fulda():
    """The Fulda catchment's daily Tmax, Tmin and rainfall (spotpy 1.6.7 example data), as a user's CSV."""
    src = get_source("spotpy_hesse")
    tx = src.fetch_series("fulda", "air_temperature_max")
    frame = pd.DataFrame({"date": tx.index.strftime("%Y-%m-%d"), "tmax (degC)": tx.to_numpy(),
                          "tmin (degC)": src.fetch_series("fulda", "air_temperature_min").to_numpy(),
                          "precip (mm/d)": src.fetch_series("fulda", "precipitation").to_numpy()})
    return frame


def _constant(years: int = 5) -> pd.DataFrame:
    days = pd.date_range("2001-01-01", f"{2000 + years}-12-31", freq="D")
    return pd.DataFrame({"date": days.strftime("%Y-%m-%d"), "PET (mm/d)": 5.0, "P (mm/d)": 0.0})


# --------------------------------------------------------------------------- ET0


def test_reference_et_from_the_leaf_river_record():
    p = reference_evapotranspiration("catalogue", "02472000")
    json.dumps(p)
    pet = get_source("holmes").fetch_series("02472000", "potential_evapotranspiration")
    annual = pet.groupby(pet.index.year).sum()
    assert p["annual_years"] == list(range(1957, 1988)) and p["n_years"] == 31
    assert p["mean_annual_mm"] == pytest.approx(annual.mean(), rel=1e-12)
    june = pet[pet.index.month == 6]
    assert p["by_month"]["mean_mm_per_month"][5] == pytest.approx(june.groupby(june.index.year).sum().mean())
    assert p["by_month"]["mean_mm_per_day"][5] == pytest.approx(june.mean())
    assert p["peak_month"] == 6 and p["method"] == "record" and p["unit"] == "mm/d"


def test_reference_et_by_hargreaves_from_an_upload_matches_the_method(fulda):
    ctx = _upload("fulda.csv", fulda)
    p = reference_evapotranspiration("upload", "fulda.csv", method="hargreaves_samani", data=ctx)
    tx = pd.Series(fulda["tmax (degC)"].to_numpy(), index=pd.to_datetime(fulda["date"]))
    tn = pd.Series(fulda["tmin (degC)"].to_numpy(), index=tx.index)
    direct = et_series(hargreaves_samani(tx, tn, latitude_deg=FULDA_SITE[0], time_step="daily"))
    assert p["et0"]["latitude_deg"] == FULDA_SITE[0]  # the upload sits where the test placed it
    assert p["annual_years"] == list(range(1979, 1989))
    assert p["annual_mm"][4] == pytest.approx(direct["1983"].sum(), rel=1e-12)
    assert p["mean_annual_mm"] == pytest.approx(direct.groupby(direct.index.year).sum().mean(), rel=1e-12)
    assert p["peak_month"] == 7 and 600 < p["mean_annual_mm"] < 800


def test_hargreaves_needs_a_latitude(fulda):
    ctx = _upload("fulda.csv", fulda, site=None)
    with pytest.raises(InputError, match="latitude_deg"):
        reference_evapotranspiration("upload", "fulda.csv", method="hargreaves_samani", data=ctx)
    p = reference_evapotranspiration("upload", "fulda.csv", method="hargreaves_samani", latitude_deg=50.55, data=ctx)
    assert p["ok"]
    with pytest.raises(InputError, match="elevation_m"):
        reference_evapotranspiration("upload", "fulda.csv", method="fao56_penman_monteith", latitude_deg=50.55, data=ctx)


# --------------------------------------------------------------------------- crop water demand


def test_crop_demand_hand_case_maize_constant_et0():
    """Maize (FAO-56 Table 12: Kc 0.30, 1.20, 0.35; Table 11: 30/40/50/30 days) planted 1 April, ET0 5 mm/d,
    no rain. Sum of the daily Kc: 30 x 0.30 + (40 x 0.30 + 0.90 x 41/2) + 50 x 1.20 + (30 x 1.20 - 0.85 x 31/2)
    = 9 + 30.45 + 60 + 22.825 = 122.275, so ETc = net = 611.375 mm and gross = 611.375 / 0.75 = 815.17 mm.
    July is the peak month: 29 mid-season days at 1.20 and two late days (1.1717, 1.1433) average 1.19726,
    so 5.98629 mm/d of ETc, 7.98172 mm/d gross, x 10,000/86,400 = 0.92381 l/s/ha."""
    ctx = _upload("const.csv", _constant(5))
    p = crop_water_demand("upload", "const.csv", "maize", 4, area_ha=100, data=ctx)
    json.dumps(p)
    assert p["n_seasons"] == 5 and p["seasons_skipped"] == []
    assert p["mean"]["etc_mm"] == pytest.approx(611.375, rel=1e-9)
    assert p["mean"]["net_mm"] == pytest.approx(611.375, rel=1e-9)
    assert p["design"]["gross_mm"] == pytest.approx(611.375 / 0.75, rel=1e-9)
    assert p["mean"]["effective_rainfall_mm"] == 0.0
    assert p["peak_month_most_often"] == 7
    assert p["design"]["peak_gross_mm_per_day"] == pytest.approx(5 * 37.115 / 31 / 0.75, rel=1e-9)
    assert p["design"]["peak_l_per_s_per_ha"] == pytest.approx(0.92381, abs=1e-5)
    area = p["area"]
    assert area["design_gross_m3"] == pytest.approx(611.375 / 0.75 * 10 * 100, rel=1e-9)
    assert area["design_peak_l_per_s"] == pytest.approx(92.381, abs=1e-3)
    # the schedule carries the whole gross volume of every season as flows over its days
    sch = area["schedule"]
    days = (pd.to_datetime(sch["end"]) - pd.to_datetime(sch["start"])).days + 1
    assert float(np.sum(np.asarray(sch["m3s"]) * days * 86400)) == pytest.approx(5 * area["design_gross_m3"], rel=1e-9)
    assert sch["start"][:2] == ["2001-04-01", "2001-05-01"] and sch["end"][4] == "2001-08-28"
    assert p["by_month"]["month"] == [4, 5, 6, 7, 8] and p["by_month"]["days_in_season"] == [30, 31, 30, 31, 28]


def test_crop_demand_matches_the_method_for_one_leaf_river_season():
    p = crop_water_demand("catalogue", "02472000", "maize", 4, application_efficiency=0.7)
    src = get_source("holmes")
    pet = src.fetch_series("02472000", "potential_evapotranspiration")
    rain = src.fetch_series("02472000", "precipitation")
    direct = crops.crop_water_demand("maize", "1962-04-01", pet["1962-04-01":"1962-08-28"], rain["1962-04":"1962-08"],
                                     application_efficiency=0.7)
    s62 = next(s for s in p["seasons"] if s["year"] == 1962)
    assert s62["gross_mm"] == pytest.approx(direct["totals"]["gross_irrigation_mm"], rel=1e-12)
    assert s62["effective_rainfall_mm"] == pytest.approx(direct["totals"]["effective_rainfall_mm"], rel=1e-12)
    assert s62["peak_month"] == direct["peak"]["month"]
    gross = sorted(s["gross_mm"] for s in p["seasons"])
    assert p["n_seasons"] == 31 and p["largest"]["gross_mm"] == gross[-1]
    # the design season: the 0.8 quantile with Weibull plotting positions, (n + 1) p = 25.6 -> between the
    # 25th and 26th smallest of 31
    assert p["design"]["gross_mm"] == pytest.approx(gross[24] + 0.6 * (gross[25] - gross[24]), rel=1e-12)
    assert p["mean"]["gross_mm"] == pytest.approx(np.mean(gross), rel=1e-12)
    assert "area" not in p


def test_crop_demand_with_hargreaves_from_the_fulda_upload(fulda):
    ctx = _upload("fulda.csv", fulda)
    p = crop_water_demand("upload", "fulda.csv", "potato", 4, area_ha=20, et0_method="hargreaves_samani",
                          latitude_deg=FULDA_SITE[0], data=ctx)
    assert p["et0"]["et0_method"] == "hargreaves_samani" and p["n_seasons"] == 10
    et0 = reference_evapotranspiration("upload", "fulda.csv", method="hargreaves_samani", data=ctx)
    april = et0["by_month"]["mean_mm_per_month"][3]
    assert p["by_month"]["et0_mm"][0] == pytest.approx(april, rel=1e-9)  # the same ET0 in both tools
    assert 0 < p["mean"]["gross_mm"] < p["design"]["gross_mm"] < p["largest"]["gross_mm"]


def test_crop_demand_refusals():
    ctx = _upload("const.csv", _constant(5))
    with pytest.raises(InputError, match="one of maize"):
        crop_water_demand("upload", "const.csv", "banana", 4, data=ctx)
    with pytest.raises(InputError, match="planting_month"):
        crop_water_demand("upload", "const.csv", "maize", 13, data=ctx)
    with pytest.raises(InputError, match="application_efficiency"):
        crop_water_demand("upload", "const.csv", "maize", 4, application_efficiency=1.5, data=ctx)
    short = _upload("short.csv", _constant(2))
    with pytest.raises(InsufficientDataError, match="2 complete season"):
        crop_water_demand("upload", "short.csv", "maize", 4, data=short)
