"""Tests for aquascope_core.methods.crops: the FAO-56 crop table, the Kc curve, effective rainfall and
crop water demand."""

from __future__ import annotations

import importlib
import json

import numpy as np
import pandas as pd
import pytest

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods import crops as c

REQUIRED = ("maize", "wheat_spring", "rice", "potato", "tomato", "cotton", "soybean", "alfalfa", "citrus", "grapes")


def test_crop_table_holds_the_fao56_values():
    """FAO-56 Table 12 (Kc ini, mid, end, height) and Table 11 (stage lengths) for the required crops,
    spot-checked against the published tables."""
    rows = {r["crop"]: r for r in c.crop_table()["crops"]}
    assert set(REQUIRED) <= set(rows)
    want = {  # crop: (Kc ini, Kc mid, Kc end, L ini, L dev, L mid, L late)
        "maize": (0.30, 1.20, 0.35, 30, 40, 50, 30),
        "tomato": (0.60, 1.15, 0.80, 30, 40, 45, 30),
        "potato": (0.50, 1.15, 0.75, 30, 35, 50, 30),
        "rice": (1.05, 1.20, 0.75, 30, 30, 60, 30),
        "cotton": (0.35, 1.175, 0.60, 30, 50, 60, 55),
        "soybean": (0.40, 1.15, 0.50, 20, 35, 60, 25),
        "wheat_spring": (0.30, 1.15, 0.25, 20, 25, 60, 30),
        "citrus": (0.70, 0.65, 0.70, 60, 90, 120, 95),
        "grapes": (0.30, 0.85, 0.45, 20, 50, 75, 60),
        "alfalfa": (0.40, 1.20, 1.15, 10, 20, 20, 10),
    }
    for crop, values in want.items():
        r = rows[crop]
        got = (r["kc_ini"], r["kc_mid"], r["kc_end"], r["l_ini"], r["l_dev"], r["l_mid"], r["l_late"])
        assert got == pytest.approx(values), crop
        assert r["stage_source"] and r["kc_note"]
    assert sum(rows["citrus"][k] for k in ("l_ini", "l_dev", "l_mid", "l_late")) == 365
    with pytest.raises(InputError, match="maize"):
        c.crop_table("corn")


def test_kc_curve_by_hand():
    """FAO-56 Eq. 66 for maize (30/40/50/30 days; 0.30/1.20/0.35): day 50 = 0.30 + 20/40 x 0.90 = 0.75;
    days 71-120 = 1.20; the last day = Kc end; the day after the initial stage 0.30 + 0.90/40."""
    r = c.crop_coefficient_curve("maize", "2024-04-15")
    kc = np.array(r["kc"])
    assert kc.size == 150 and r["dates"][0] == "2024-04-15" and r["dates"][-1] == "2024-09-11"
    assert np.all(kc[:30] == 0.30)
    assert kc[30] == pytest.approx(0.30 + 0.9 / 40)
    assert kc[49] == pytest.approx(0.75)
    assert np.allclose(kc[70:120], 1.20)
    assert kc[-1] == pytest.approx(0.35) and kc[134] == pytest.approx(1.20 - 15 / 30 * 0.85)
    assert [s["stage"] for s in r["stages"]] == ["initial", "development", "mid-season", "late season"]
    assert r["stages"][2]["start"] == "2024-06-24" and r["stage_by_day"][70] == "mid-season"
    assert r["climate_adjustment"].startswith("none")


def test_kc_climate_adjustment_eq62_eq65():
    """FAO-56 Eq. 62 / 65: Kc + [0.04 (u2 - 2) - 0.004 (RHmin - 45)] (h/3)^0.3. Tomato (h 0.6 m) at
    u2 = 3 m/s, RHmin = 30 %: + 0.10 x 0.2^0.3 on Kc mid and on Kc end (0.80 >= 0.45); maize's Kc end
    0.35 < 0.45 is not adjusted."""
    step = (0.04 * 1 - 0.004 * (-15)) * (0.6 / 3) ** 0.3
    r = c.crop_coefficient_curve("tomato", "2024-04-15", wind_speed_2m=3.0, rh_min=30.0)
    assert r["kc_mid"] == pytest.approx(1.15 + step) and r["kc_end"] == pytest.approx(0.80 + step)
    assert "Eq. 65" in r["climate_adjustment"]
    m = c.crop_coefficient_curve("maize", "2024-04-15", wind_speed_2m=3.0, rh_min=30.0)
    assert m["kc_end"] == 0.35 and m["kc_mid"] == pytest.approx(1.20 + 0.10 * (2.0 / 3) ** 0.3)
    assert "Eq. 65" not in m["climate_adjustment"]
    with pytest.raises(InputError, match="rh_min"):
        c.crop_coefficient_curve("tomato", "2024-04-15", wind_speed_2m=3.0, rh_min=90.0)
    with pytest.raises(InputError, match="both"):
        c.crop_coefficient_curve("tomato", "2024-04-15", wind_speed_2m=3.0)


def test_effective_rainfall_usda_scs_and_fixed():
    """USDA-SCS as in CROPWAT: 100 mm -> 100 x (125 - 20)/125 = 84 mm; 250 mm -> 150 mm from both sides;
    300 mm -> 125 + 30 = 155 mm. Fixed fraction 0.8: 80 % of P."""
    idx = pd.period_range("2020-01", periods=4, freq="M")
    p = pd.Series([100.0, 250.0, 300.0, 0.0], index=idx)
    r = c.effective_rainfall(p)
    assert r["effective_rainfall"] == pytest.approx([84.0, 150.0, 155.0, 0.0])
    assert r["unit"] == "mm/month"
    f = c.effective_rainfall(p, method="fixed_fraction", fraction=0.8)
    assert f["effective_rainfall"] == pytest.approx([80.0, 200.0, 240.0, 0.0])
    with pytest.raises(InputError, match="fraction"):
        c.effective_rainfall(p, method="fixed_fraction", fraction=1.5)
    with pytest.raises(InputError, match="method"):
        c.effective_rainfall(p, method="cropwat")


def test_crop_water_demand_by_hand():
    """Maize planted 15 April with ET0 5 mm/d: season ETc = 5 x sum(Kc) = 5 x (9 + 30.45 + 60 + 22.825)
    = 611.375 mm. April: 16 days at Kc 0.3 -> 24 mm; P 40 mm -> Peff 37.44 counted for 16/30 of the month;
    gross = net / 0.7."""
    days = pd.date_range("2024-04-01", "2024-10-31", freq="D")
    et0 = pd.Series(5.0, index=days)
    p = pd.Series([40, 60, 20, 5, 10, 30, 80.0], index=pd.period_range("2024-04", "2024-10", freq="M"))
    r = c.crop_water_demand("maize", "2024-04-15", et0, p, application_efficiency=0.7)
    assert r["totals"]["etc_mm"] == pytest.approx(611.375)
    assert r["season_days"] == 150 and r["harvest_date"] == "2024-09-11"
    april = r["months"][0]
    assert april["month"] == "2024-04" and april["days_in_season"] == 16
    assert april["etc_mm"] == pytest.approx(24.0)
    assert april["effective_rainfall_mm"] == pytest.approx(37.44 * 16 / 30)
    assert april["net_irrigation_mm"] == pytest.approx(24.0 - 37.44 * 16 / 30)
    for row in r["months"]:
        assert row["net_irrigation_mm"] >= 0
        assert row["gross_irrigation_mm"] == pytest.approx(row["net_irrigation_mm"] / 0.7)
    assert r["totals"]["gross_irrigation_mm"] == pytest.approx(r["totals"]["net_irrigation_mm"] / 0.7)
    assert r["peak"]["month"] == "2024-07"
    assert r["peak"]["gross_l_per_s_per_ha"] == pytest.approx(r["peak"]["gross_mm_per_day"] * 10000 / 86400)
    assert r["gross_volume_m3_per_ha"] == pytest.approx(10 * r["totals"]["gross_irrigation_mm"])
    assert [m["month"] for m in r["months"]] == ["2024-04", "2024-05", "2024-06", "2024-07", "2024-08", "2024-09"]
    json.dumps(r)


def test_crop_water_demand_monthly_et0_units_agree():
    """Monthly ET0 as a mean daily rate (mm/d) or as a monthly total (mm/month) gives the same demand."""
    months = pd.period_range("2024-04", "2024-10", freq="M")
    rate = pd.Series([3.0, 4.0, 5.0, 6.0, 5.5, 4.0, 2.5], index=months)
    total = rate * months.days_in_month
    p = pd.Series(30.0, index=months)
    a = c.crop_water_demand("tomato", "2024-04-20", rate, p, application_efficiency=0.9)
    b = c.crop_water_demand("tomato", "2024-04-20", total, p, application_efficiency=0.9, et0_unit="mm/month")
    assert a["totals"] == pytest.approx(b["totals"])
    assert a["months"][0]["et0_mm"] == pytest.approx(11 * 3.0)


def test_crop_water_demand_refuses_gaps_and_bad_options():
    days = pd.date_range("2024-04-01", "2024-10-31", freq="D")
    et0 = pd.Series(5.0, index=days)
    p = pd.Series(30.0, index=pd.period_range("2024-04", "2024-10", freq="M"))
    gap = et0.copy()
    gap.loc["2024-06-10"] = np.nan
    with pytest.raises(InsufficientDataError, match="2024-06-10"):
        c.crop_water_demand("maize", "2024-04-15", gap, p, application_efficiency=0.7)
    with pytest.raises(InsufficientDataError, match="2024-09"):
        c.crop_water_demand("maize", "2024-04-15", et0, p.drop(p.index[5]), application_efficiency=0.7)
    with pytest.raises(InsufficientDataError):
        c.crop_water_demand("maize", "2024-07-01", et0, p, application_efficiency=0.7)  # ET0 ends 31 Oct
    with pytest.raises(InputError, match="application_efficiency"):
        c.crop_water_demand("maize", "2024-04-15", et0, p, application_efficiency=70)
    with pytest.raises(InputError, match="stage_lengths_days"):
        c.crop_water_demand("maize", "2024-04-15", et0, p, application_efficiency=0.7, stage_lengths_days=(30, 40, 50))
    with pytest.raises(InputError, match="et0_unit"):
        c.crop_water_demand("maize", "2024-04-15", et0, p, application_efficiency=0.7, et0_unit="mm/month")


def test_fulda_1983_maize_season_end_to_end(reference_dir):
    """Real data (spotpy Fulda climate, Hesse, 1983): daily FAO-56 ET0 from temperatures only (the stated
    conventions), then a maize season planted on 1 May. Temperate-climate magnitudes: seasonal ETc of
    250-550 mm; Hargreaves within 25 % of Penman-Monteith over the season."""
    from aquascope_core.methods import evapotranspiration as et

    f = pd.read_csv(reference_dir / "spotpy_fulda_daily_1983.csv", parse_dates=["date"], index_col="date")
    lat = 50.55  # the Fulda basin; the package does not name the gauge
    pm = et.fao56_penman_monteith(f["tmax_c"], f["tmin_c"], latitude_deg=lat, elevation_m=300)
    hs = et.hargreaves_samani(f["tmax_c"], f["tmin_c"], latitude_deg=lat)
    et0_pm, et0_hs = et.et_series(pm), et.et_series(hs)
    r = c.crop_water_demand("maize", "1983-05-01", et0_pm, f["prec_mm"], application_efficiency=0.75)
    r_hs = c.crop_water_demand("maize", "1983-05-01", et0_hs, f["prec_mm"], application_efficiency=0.75)
    assert 250 < r["totals"]["etc_mm"] < 550
    assert abs(r_hs["totals"]["etc_mm"] / r["totals"]["etc_mm"] - 1) < 0.25
    assert r["input"]["precipitation"]["input_resolution"] == "daily"
    july = next(m for m in r["months"] if m["month"] == "1983-07")
    assert july["precipitation_mm"] == pytest.approx(f.loc["1983-07", "prec_mm"].sum())


def test_registry_rows_for_climate_family():
    from aquascope_core.registry import METHODS
    from aquascope_core.registry.climate import METHODS as rows

    for row in rows:
        assert METHODS[row.id] is row
        mod, _, name = row.function.rpartition(".")
        assert name == row.id and callable(getattr(importlib.import_module(mod), name))
    assert "irrigation_feasibility" in METHODS["crop_water_demand"].problems
