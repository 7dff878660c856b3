"""Tests for aquascope_core.tools.supply: the inflow record, reservoir, sequent-peak, run-of-river and FDC tools.

Known answers are computed by hand in the docstrings (a 12-month reservoir case, a two-year run-of-river
record with three failure spells, unit conversions); the station tools are cross-checked against the
methods called directly on the same embedded records.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from aquascope_core.data import get_source
from aquascope_core.errors import InputError, UnitError
from aquascope_core.methods import supply as methods
from aquascope_core.tools.context import DataContext, table_entry
from aquascope_core.tools.supply import (
    demand_flow_m3s,
    flow_duration_at_demand,
    inflow_record,
    run_of_river_reliability,
    sequent_peak_storage,
    simulate_reservoir,
)

SECONDS = 86_400.0


@pytest.fixture(scope="module")
def flat_brook():
    return inflow_record("usgs", "01440000", demand=0.5)


def _upload(name: str, frame: pd.DataFrame, site=(50.55, 9.68)) -> DataContext:
    entry = table_entry(name, frame.to_csv(index=False))
    return DataContext.from_tables({name: entry}, {"lat": site[0], "lon": site[1]} if site else None)


# --------------------------------------------------------------------------- units


@pytest.mark.parametrize("value,unit,expected", [
    (0.5, "m3/s", 0.5), (500, "l/s", 0.5), (43.2, "Ml/d", 0.5),
    (10, "hm3/year", 10e6 / (365.25 * 86400)),  # 0.31688 m3/s
    (2.63, "hm3/month", 2.63e6 / (365.25 / 12 * 86400)),
])
def test_demand_as_a_flow(value, unit, expected):
    assert demand_flow_m3s(value, unit) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("value,unit,error", [(0, "m3/s", InputError), (-1, "m3/s", InputError),
                                              (None, "m3/s", InputError), (1, "gallons", UnitError)])
def test_demand_refused_with_the_reason(value, unit, error):
    with pytest.raises(error) as e:
        demand_flow_m3s(value, unit)
    assert e.value.argument in ("demand", "demand_unit")


# --------------------------------------------------------------------------- inflow record


def test_inflow_record_at_flat_brook_against_the_daily_record(flat_brook):
    """Monthly volumes of complete months only (May 2025 is partial and dropped); the mean flow is
    the mean of the daily values of the months used; 1 hm3 = 10^6 m3."""
    p = flat_brook
    json.dumps(p)
    q = get_source("usgs").fetch_series("01440000", "discharge")
    used = q["1945-01-01":"2025-04-30"]
    assert p["n_months"] == 964 and p["months_dropped"] == 1
    assert p["period_used"] == {"start": "1945-01", "end": "2025-04"}
    assert p["mean_flow_m3s"] == pytest.approx(used.mean(), rel=1e-12)
    assert p["mean_annual_volume_hm3"] == pytest.approx(used.mean() * 365.25 * SECONDS / 1e6, rel=1e-12)
    jan = q["1945-01-01":"1945-01-31"]
    assert p["monthly"]["volume_hm3"][0] == pytest.approx(jan.sum() * SECONDS / 1e6, rel=1e-12)
    assert p["monthly"]["flow_m3s"][0] == pytest.approx(jan.mean(), rel=1e-12)
    # 1965, the drought of the 1960s, is the driest complete year of the record
    assert p["driest_year"]["year"] == 1965
    assert p["driest_year"]["mean_flow_m3s"] == pytest.approx(q["1965"].mean(), rel=1e-12)
    assert p["annual"]["years"][0] == 1945 and p["annual"]["years"][-1] == 2024 and p["n_complete_years"] == 80
    d = p["demand"]
    assert d["demand_m3s"] == 0.5 and d["demand_to_mean_flow"] == pytest.approx(0.5 / used.mean())
    assert d["exceeds_mean_flow"] is False and p["conversion"]["factor"] == 1.0


def test_inflow_record_converts_a_runoff_depth_with_the_catchment_area():
    """The Leaf River (HOLMES) runoff is in mm/d over 1,924.4 km2: 1 mm/d = 1924.4e6 m2 x 1e-3 m / 86400 s
    = 22.273 m3/s."""
    p = inflow_record("catalogue", "02472000")
    depth = get_source("holmes").fetch_series("02472000", "discharge")
    factor = 1924.4e6 * 1e-3 / SECONDS
    assert p["conversion"]["from_unit"] == "mm/d" and p["conversion"]["factor"] == pytest.approx(factor)
    assert "1,924.4 km2" in p["conversion"]["note"]
    assert p["mean_flow_m3s"] == pytest.approx(depth.mean() * factor, rel=1e-12)
    assert p["mean_flow_m3s"] == pytest.approx(31.67, abs=0.01)
    assert p["n_months"] == 372 and "demand" not in p


def test_a_runoff_depth_without_an_area_is_refused():
    days = pd.date_range("2001-01-01", periods=400, freq="D")
    ctx = _upload("depth.csv", pd.DataFrame({"date": days.strftime("%Y-%m-%d"), "Q (mm/d)": np.linspace(0.5, 2.0, 400)}))
    with pytest.raises(UnitError, match="runoff depth in mm/d and the station has no catchment area"):
        inflow_record("upload", "depth.csv", data=ctx)


# --------------------------------------------------------------------------- reservoir and sequent peak

HAND_MONTHS = [f"2001-{m:02d}" for m in range(1, 13)]
HAND_INFLOW = [10.0, 8.0, 6.0, 2.0, 1.0, 1.0, 1.0, 2.0, 4.0, 8.0, 12.0, 15.0]


def test_sequent_peak_hand_case():
    """Demand 5 hm3 a month against the inflows above (70 hm3 in, 60 out). K = max(0, K + 5 - Q):
    0, 0, 0, 3, 7, 11, 15, 18, 19, 16, 9, 0, and the second cycle repeats it: 19 hm3, the drawdown
    from April (index 3) to September (6 months)."""
    p = sequent_peak_storage(HAND_INFLOW, HAND_MONTHS, 5.0, demand_unit="hm3/month", storage_hm3=10.0,
                             yield_fractions=[0.5])
    assert p["ok"] is True and p["required_storage_hm3"] == pytest.approx(19.0)
    assert p["critical_period"] == {"start": "2001-04", "end": "2001-09", "months": 6, "peak_in_second_cycle": False}
    assert p["storage_sufficient"] is False and p["storage_ratio"] == pytest.approx(10 / 19)
    assert p["demand_to_inflow"] == pytest.approx(60 / 70)


def test_reservoir_hand_case():
    """Capacity 10 hm3 from full, demand 5 hm3 a month: storage 10, 10, 10, 7, 3, then June has 3 + 1 = 4
    (short 1), July 1 (short 4), August 2 (short 3), September 4 (short 1); October refills to 3.
    Four failed months in one event: reliability 8/12, volume (60 - 9)/60, resilience 1/4,
    vulnerability 4 hm3 (0.8 of the demand). With 19 hm3 (the sequent peak) nothing fails."""
    p = simulate_reservoir(HAND_INFLOW, HAND_MONTHS, 10.0, 5.0, demand_unit="hm3/month")
    json.dumps(p)
    assert p["reliability_time"] == pytest.approx(8 / 12)
    assert p["reliability_volume"] == pytest.approx(51 / 60)
    assert p["resilience"] == pytest.approx(0.25) and p["n_failure_events"] == 1
    assert p["vulnerability_hm3"] == pytest.approx(4.0) and p["vulnerability_relative"] == pytest.approx(0.8)
    assert p["worst_failures"][0] == {"start": "2001-06", "end": "2001-09", "months": 4, "shortfall_hm3": 9.0,
                                      "largest_monthly_shortfall_pct": pytest.approx(80.0)}
    assert p["reliability_annual"] == 0.0 and p["n_complete_years"] == 1
    assert p["min_storage_hm3"] == 0.0 and p["min_storage_month"] == "2001-06"
    assert abs(p["mass_balance_error_hm3"]) < 1e-9
    full = simulate_reservoir(HAND_INFLOW, HAND_MONTHS, 19.0, 5.0, demand_unit="hm3/month")
    assert full["reliability_time"] == 1.0 and full["resilience"] is None


def test_reservoir_tool_matches_the_method_at_flat_brook(flat_brook):
    m = flat_brook["monthly"]
    p = simulate_reservoir(m["volume_hm3"], m["months"], 2.0, 0.5)
    idx = pd.PeriodIndex(m["months"], freq="M")
    demand = 0.5 * idx.days_in_month.to_numpy() * SECONDS / 1e6
    direct = methods.simulate_reservoir(pd.Series(m["volume_hm3"], index=idx.to_timestamp()),
                                        pd.Series(demand, index=idx.to_timestamp()), 2.0, unit="hm3")
    perf = direct["performance"]
    assert p["reliability_time"] == perf["reliability_time"] and p["reliability_volume"] == perf["reliability_volume"]
    assert p["n_failure_events"] == perf["n_failure_events"] and p["min_storage_hm3"] == direct["min_storage"]
    assert p["demand_hm3_per_year"] == pytest.approx(0.5 * 365.25 * SECONDS / 1e6, rel=1e-3)
    # the sequent-peak storage meets the demand in every month; a reservoir that size never fails
    spa = sequent_peak_storage(m["volume_hm3"], m["months"], 0.5, storage_hm3=2.0)
    assert spa["required_storage_hm3"] == pytest.approx(2.272, abs=1e-3)
    assert spa["critical_period"]["start"] == "1964-08"
    enough = simulate_reservoir(m["volume_hm3"], m["months"], spa["required_storage_hm3"] * (1 + 1e-9), 0.5)
    assert enough["reliability_time"] == 1.0
    # the storage-yield curve rises with the yield
    curve = spa["storage_yield"]["required_storage_hm3"]
    assert all(b > a for a, b in zip(curve, curve[1:]))


def test_sequent_peak_refuses_a_demand_above_the_mean_flow(flat_brook):
    m = flat_brook["monthly"]
    p = sequent_peak_storage(m["volume_hm3"], m["months"], 5.0)
    assert p["ok"] is False and p["required_storage_hm3"] is None
    assert "no finite storage meets this demand" in p["reason"]
    assert p["demand_to_mean_flow"] == pytest.approx(5.0 / flat_brook["mean_flow_m3s"])


def test_frame_tools_refuse_misaligned_months():
    with pytest.raises(InputError, match="consecutive months"):
        simulate_reservoir(HAND_INFLOW, HAND_MONTHS[:6] + ["2002-01"] + HAND_MONTHS[7:], 10.0, 5.0, demand_unit="hm3/month")
    with pytest.raises(InputError, match="one volume per month"):
        sequent_peak_storage(HAND_INFLOW[:-1], HAND_MONTHS, 5.0, demand_unit="hm3/month")


# --------------------------------------------------------------------------- run of river


def _hand_river() -> DataContext:
    """Two years of 1.0 m3/s with three low spells: 10 days at 0.2 (2001-04-11 to 04-20) and two of 5 days
    at 0.3 (2002-02-05 to 02-09, 2002-05-15 to 05-19)."""
    days = pd.date_range("2001-01-01", "2002-12-31", freq="D")
    q = pd.Series(1.0, index=days)
    q["2001-04-11":"2001-04-20"] = 0.2
    q["2002-02-05":"2002-02-09"] = 0.3
    q["2002-05-15":"2002-05-19"] = 0.3
    return _upload("hand.csv", pd.DataFrame({"date": days.strftime("%Y-%m-%d"), "Q (m3/s)": q.to_numpy()}))


def test_run_of_river_hand_case():
    """Demand 0.5 m3/s on 730 days; 20 fail in 3 spells (10, 5, 5 days). Reliability 710/730; volume
    (365 - (10 x 0.3 + 10 x 0.2))/365 in m3/s-days; resilience 3/20; vulnerability the mean of the largest
    relative shortfall of each spell, (0.6 + 0.4 + 0.4)/3; both years have a failure."""
    ctx = _hand_river()
    p = run_of_river_reliability("upload", "hand.csv", demand=0.5, data=ctx)
    json.dumps(p)
    assert p["n_demand_days"] == 730 and p["n_failed_days"] == 20
    assert p["reliability_time"] == pytest.approx(710 / 730)
    assert p["reliability_volume"] == pytest.approx((365 - 5) / 365)
    assert p["resilience"] == pytest.approx(3 / 20)
    assert p["vulnerability_relative"] == pytest.approx((0.6 + 0.4 + 0.4) / 3)
    assert p["vulnerability_m3s"] == pytest.approx((0.3 + 0.2 + 0.2) / 3)
    assert p["n_failure_spells"] == 3 and p["longest_spell_days"] == 10 and p["mean_spell_days"] == pytest.approx(20 / 3)
    assert p["longest_spells"][0] == {"start": "2001-04-11", "end": "2001-04-20", "days": 10,
                                      "shortfall_hm3": pytest.approx(10 * 0.3 * SECONDS / 1e6)}
    assert p["reliability_annual"] == 0.0 and p["n_years"] == 2
    assert [r["failed_days"] for r in p["by_year"]] == [10, 10]
    # an environmental flow of 0.4 leaves 0.6 on ordinary days and nothing in the spells
    e = run_of_river_reliability("upload", "hand.csv", demand=0.5, environmental_flow_m3s=0.4, data=ctx)
    assert e["n_failed_days"] == 20 and e["vulnerability_relative"] == pytest.approx(1.0)
    # 0.6 leaves 0.4: every day fails, in one spell
    assert run_of_river_reliability("upload", "hand.csv", demand=0.5, environmental_flow_m3s=0.6,
                                    data=ctx)["reliability_time"] == 0.0


def test_run_of_river_with_a_seasonal_schedule():
    """April of each year at 0.5 m3/s: 60 demand days, the 10-day spell of 2001 fails; May 2002 at
    0.25 m3/s never fails (0.3 >= 0.25). Days outside the schedule carry no demand."""
    ctx = _hand_river()
    schedule = {"start": ["2001-04-01", "2002-04-01", "2002-05-01"], "end": ["2001-04-30", "2002-04-30", "2002-05-31"],
                "m3s": [0.5, 0.5, 0.25]}
    p = run_of_river_reliability("upload", "hand.csv", demand_schedule=schedule, data=ctx)
    assert p["demand_basis"] == "schedule" and p["n_demand_days"] == 91
    assert p["n_failed_days"] == 10 and p["reliability_time"] == pytest.approx(81 / 91)
    assert p["peak_demand_m3s"] == 0.5 and p["reliability_annual"] == 0.5
    with pytest.raises(InputError, match="do not overlap"):
        run_of_river_reliability("upload", "hand.csv", data=ctx, demand_schedule={
            "start": ["2001-04-01", "2001-04-15"], "end": ["2001-04-30", "2001-05-15"], "m3s": [0.5, 0.5]})
    with pytest.raises(InputError, match="not both or neither"):
        run_of_river_reliability("upload", "hand.csv", demand=0.5, demand_schedule=schedule, data=ctx)


def test_run_of_river_at_flat_brook_matches_the_method():
    p = run_of_river_reliability("usgs", "01440000", demand=0.5)
    q = get_source("usgs").fetch_series("01440000", "discharge")
    supplied = np.minimum(q.to_numpy(), 0.5)
    direct = methods.supply_reliability(pd.Series(supplied, index=q.index), 0.5, unit="m3/s")
    assert p["reliability_time"] == pytest.approx(direct["reliability_time"], abs=1e-12)
    assert p["n_failure_spells"] == direct["n_failure_events"]
    assert p["reliability_time"] == pytest.approx(float(np.mean(q.to_numpy() >= 0.5)), abs=1e-12)
    assert p["record"] == {"start": "1945-01-01", "end": "2025-05-05", "n_days_missing": 0}
    assert p["n_years"] == 80  # 1945-2024; the few days of 2025 are not a year


def test_flow_duration_at_demand():
    ctx = _hand_river()
    p = flow_duration_at_demand("upload", "hand.csv", 0.5, data=ctx)
    assert p["quantiles"]["Q50"] == 1.0 and p["mean_flow_m3s"] == pytest.approx((710 + 10 * 0.2 + 10 * 0.3) / 730)
    assert p["days_flow_reaches_need_pct"] == pytest.approx(100 * 710 / 730)
    fb = flow_duration_at_demand("usgs", "01440000", 0.5)
    q = get_source("usgs").fetch_series("01440000", "discharge")
    assert fb["days_flow_reaches_need_pct"] == pytest.approx(100 * float(np.mean(q >= 0.5)))
    assert fb["quantiles"]["Q95"] == pytest.approx(0.368, abs=5e-4)


def test_inflow_record_uses_the_longest_stretch_of_complete_months():
    """Three years of daily flow with 2002-03-10 to 2002-03-12 missing: March 2002 is not complete, so the
    months before it (14) and after it (21) are two stretches; the longer, April 2002 to December 2003, is used
    and the other 15 months are dropped, never bridged."""
    days = pd.date_range("2001-01-01", "2003-12-31", freq="D")
    q = pd.Series(1.0 + 0.5 * np.sin(np.arange(days.size) / 58.0), index=days)
    q = q.drop(pd.date_range("2002-03-10", "2002-03-12"))
    ctx = _upload("gap.csv", pd.DataFrame({"date": q.index.strftime("%Y-%m-%d"), "Q (m3/s)": q.to_numpy()}))
    p = inflow_record("upload", "gap.csv", data=ctx)
    assert p["period_used"] == {"start": "2002-04", "end": "2003-12"} and p["n_months"] == 21
    assert p["months_dropped"] == 15 and p["record"]["n_days_missing"] == 3
    assert p["mean_flow_m3s"] == pytest.approx(q["2002-04-01":].mean(), rel=1e-12)
    assert p["annual"]["years"] == [2003]
