"""The regional tools on the embedded records: the donor pool and its signatures, the transfer of flows and the
index flood, each cross-checked against the registered methods called directly and against hand computations."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from aquascope_core.data import get_source
from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods import flood_frequency as ffa
from aquascope_core.methods.baseflow import lyne_hollick_baseflow
from aquascope_core.methods.flows import flow_duration_curve
from aquascope_core.methods.signatures import mean_annual_flow
from aquascope_core.tools.regional import (count_donors, donor_signatures, regional_index_flood, select_donors,
                                           transfer_signature)

# Delaware River at Belvidere NJ (USGS 01446500): position and drainage area from the embedded USGS catalogue;
# its flows are not held offline, so it stands for an ungauged site with three Delaware donors of similar size.
BELVIDERE = (40.826389, -75.0825, 11745.6)
# Schuylkill River at Philadelphia PA (USGS 01474500), likewise.
SCHUYLKILL = (39.967791, -75.188501, 4902.8)
# Oakohay Creek at Mize MS (USGS 02471500), 22 km from the Leaf River gauge.
OAKOHAY = (31.866667, -89.5475, 442.9)


@pytest.fixture(scope="module")
def belvidere_pool():
    return donor_signatures(*BELVIDERE, return_periods=[100])


@pytest.fixture(scope="module")
def flat_brook():
    return get_source("usgs").fetch_series("01440000", "discharge")


def _by_id(payload):
    return {c["id"]: c for c in payload["candidates"]}


def test_the_pool_holds_the_gauges_with_offline_records_and_counts_the_rest(belvidere_pool):
    p = belvidere_pool
    assert p["ok"] and p["unit"] == "m3/s" and p["reach_km"] == 250
    assert set(_by_id(p)) == {"01440000", "01434000", "01438500", "01463500"}  # the Leaf River is 1,500 km away
    assert p["n_in_area_window"] == 3  # Flat Brook (165.8 km2) is 0.014 times the site's area
    assert p["area_window_km2"] == pytest.approx([0.2 * 11745.6, 5 * 11745.6])
    assert p["catalogue_only"]["n"] > 0 and "no flows offline" in p["catalogue_only"]["note"]
    assert count_donors(*BELVIDERE) == 3 and count_donors(*OAKOHAY) == 1


def test_donor_signatures_are_the_registered_methods_on_the_record(belvidere_pool, flat_brook):
    fb = _by_id(belvidere_pool)["01440000"]
    assert fb["unit_read"] == "m3/s" and fb["conversion"].startswith("none")
    assert fb["mean_flow"] == pytest.approx(mean_annual_flow(flat_brook, year_start_month=10)["mean_annual_flow"],
                                            rel=1e-12)
    fdc = flow_duration_curve(flat_brook, percentiles=(5, 10, 25, 50, 75, 90, 95))["quantiles"]
    assert fb["q95"] == pytest.approx(fdc["Q95"], rel=1e-12) and fb["q5"] == pytest.approx(fdc["Q5"], rel=1e-12)
    assert fb["bfi"] == pytest.approx(lyne_hollick_baseflow(flat_brook)["baseflow_index"], rel=1e-12)
    am = ffa.annual_maxima(flat_brook)
    assert fb["n_annual_maxima"] == am["n_years"] == 79
    assert fb["mean_annual_flood"] == pytest.approx(np.mean(am["values"]), rel=1e-12)
    q100 = ffa.return_levels(ffa.fit_gev_lmoments(am["values"]), [100])[0]
    assert fb["growth_100"] == pytest.approx(q100 / fb["mean_annual_flood"], rel=1e-12)


def test_mean_flow_by_hand_from_the_daily_record(flat_brook):
    """Flat Brook's mean flow: the mean of the complete water years' (Oct-Sep) means, computed here with pandas
    alone (water years 1945-46 to 2023-24; 1944-45 and 2024-25 are incomplete)."""
    s = flat_brook
    wy = s.index.year + (s.index.month >= 10)
    counts = s.groupby(wy).size()
    days = pd.Series({y: (pd.Timestamp(y, 10, 1) - pd.Timestamp(y - 1, 10, 1)).days for y in counts.index})
    complete = counts.index[counts.to_numpy() == days.to_numpy()]
    hand = s.groupby(wy).mean().loc[complete].mean()
    got = donor_signatures(41.10, -74.96, 165.8)
    fb = _by_id(got)["01440000"]
    assert len(complete) == 79 and fb["mean_flow"] == pytest.approx(hand, rel=1e-12)
    assert 3.0 < fb["mean_flow"] < 3.6  # about 3.3 m3/s from 166 km2: 630 mm of runoff a year


def test_a_depth_record_is_turned_into_m3s_by_the_station_area():
    """The Leaf River's record is runoff depth (mm/d); as a donor it is in m3/s: depth x 1,924.4 km2 / 86.4."""
    p = donor_signatures(*OAKOHAY)
    leaf = _by_id(p)["02472000"]
    assert leaf["unit_read"] == "mm/d" and "86.4" in leaf["conversion"] and "1,924.4" in leaf["conversion"]
    depth = get_source("catalogue").fetch_series("02472000", "discharge")
    depth_mean = mean_annual_flow(depth, year_start_month=10, unit="mm/d")["mean_annual_flow"]
    assert leaf["mean_flow"] == pytest.approx(depth_mean * 1924.4 / 86.4, rel=1e-12)
    assert "converted from runoff depth by area: LEAF RIVER NR COLLINS, MS" in p["summary"]


def test_transfer_reproduces_the_geometric_mean_band_and_leave_one_out_by_hand(belvidere_pool):
    lat, lon, area = BELVIDERE
    t = transfer_signature(lat, lon, area, belvidere_pool["candidates"], flows=["mean_flow", "baseflow_index"])
    assert t["ok"] and t["quantities"] == ["mean_flow", "bfi"] and t["n_donors"] == 3
    # the summary the report quotes names the quantities in words, not by their keys
    assert "mean flow " in t["summary"] and "baseflow index " in t["summary"] and "mean_flow" not in t["summary"]
    pool = _by_id(belvidere_pool)
    donors = ["01434000", "01438500", "01463500"]
    assert {d["id"] for d in t["donors"]} == set(donors)
    scaled = np.array([pool[i]["mean_flow"] * area / pool[i]["area_km2"] for i in donors])
    est = t["estimates"]["mean_flow"]
    assert est["estimate"] == pytest.approx(math.exp(np.log(scaled).mean()), rel=1e-12)
    assert est["band"]["low"] == pytest.approx(np.quantile(scaled, 0.1), rel=1e-12)
    assert est["band"]["high"] == pytest.approx(np.quantile(scaled, 0.9), rel=1e-12)
    assert est["estimate_per_km2"] == pytest.approx(est["estimate"] / area, rel=1e-12)
    # leave one out: each donor from the other two, scaled to its own area
    errors = []
    for i in donors:
        rest = [j for j in donors if j != i]
        guess = math.exp(np.mean([math.log(pool[j]["mean_flow"] * pool[i]["area_km2"] / pool[j]["area_km2"]) for j in rest]))
        errors.append(abs(math.log(guess / pool[i]["mean_flow"])))
    assert est["skill"]["n"] == 3
    assert est["skill"]["median_factor_error"] == pytest.approx(math.exp(np.median(errors)), rel=1e-12)
    assert "at least 2" in est["skill_basis"] and "at least 3" in est["skill_basis"]
    # the baseflow index is dimensionless: transferred as it is
    bfi = t["estimates"]["bfi"]
    assert bfi["unit"] == "dimensionless"
    assert bfi["estimate"] == pytest.approx(math.exp(np.mean([math.log(pool[i]["bfi"]) for i in donors])), rel=1e-12)
    # three nested Delaware gauges: the per-area mean flow transfers within a few percent
    assert 210 < est["estimate"] < 240 and est["skill"]["median_factor_error"] < 1.1


def test_transfer_refuses_too_few_donors_and_bad_arguments(belvidere_pool):
    lat, lon, area = BELVIDERE
    two = [c for c in belvidere_pool["candidates"] if c["id"] != "01463500"]
    t = transfer_signature(lat, lon, area, two, flows=["mean_flow"])
    assert t["ok"] is False and t["estimates"]["mean_flow"]["estimate"] is None
    assert "min_donors=3" in t["reason"]
    with pytest.raises(InputError, match="flows"):
        transfer_signature(lat, lon, area, belvidere_pool["candidates"], flows=["peak_flow"])
    with pytest.raises(InsufficientDataError, match="candidates is empty"):
        transfer_signature(lat, lon, area, [], flows=["mean_flow"])
    with pytest.raises(InputError, match="area_km2"):
        transfer_signature(lat, lon, -5, belvidere_pool["candidates"])
    with pytest.raises(InputError, match="area_km2"):
        donor_signatures(lat, lon, None)


def test_select_donors_ranks_by_distance_and_area(belvidere_pool):
    lat, lon, area = BELVIDERE
    s = select_donors(lat, lon, area, belvidere_pool["candidates"])
    assert s["ok"] and s["n_donors"] == 3 and s["n_candidates"] == 4
    assert s["excluded"]["outside_area_ratio_range"] == 1
    assert [d["rank"] for d in s["donors"]] == [1, 2, 3]
    assert all(0.2 <= d["area_ratio"] <= 5 for d in s["donors"])


def test_regional_index_flood_is_index_times_growth_by_hand():
    lat, lon, area = SCHUYLKILL
    pool = donor_signatures(lat, lon, area, return_periods=[100])
    r = regional_index_flood(lat, lon, area, pool["candidates"], return_period=100)
    assert r["ok"] and r["n_donors"] == 3 and r["unit"] == "m3/s" and r["min_donor_years"] == 79
    idx, growth = r["index_flood"], r["growth_factor"]
    # fewer than 8 donors: the area exponent is the FEH QMED default, 0.851 (Kjeldsen et al. 2008)
    assert idx["exponent"] == pytest.approx(0.851) and idx["exponent_info"]["source"] == "default"
    by = _by_id(pool)
    ids = [d["id"] for d in idx["donors"]]
    hand_index = math.exp(np.mean([math.log(by[i]["mean_annual_flood"] * (area / by[i]["area_km2"]) ** 0.851) for i in ids]))
    hand_growth = math.exp(np.mean([math.log(by[i]["growth_100"]) for i in ids]))
    assert idx["estimate"] == pytest.approx(hand_index, rel=1e-12)
    assert growth["estimate"] == pytest.approx(hand_growth, rel=1e-12)
    assert r["return_level"] == pytest.approx(hand_index * hand_growth, rel=1e-12) and r["return_levels"] == [r["return_level"]]
    assert r["envelope"]["low"] == pytest.approx(idx["band"]["low"] * growth["band"]["low"], rel=1e-12)
    assert r["envelope"]["low"] < r["return_level"] < r["envelope"]["high"]
    assert idx["skill"]["median_factor_error"] is not None and growth["skill"]["median_factor_error"] is not None
    with pytest.raises(InputError, match="growth_50"):
        regional_index_flood(lat, lon, area, pool["candidates"], return_period=50)
