"""assess_site at real places: a long daily gauge, a rainfall-runoff catchment, the open ocean, a gauge just out of
reach; live sources that fail; the user's tables."""

from __future__ import annotations

import socket

import httpx
import pytest

from aquascope_core.data import get_source
from aquascope_core.errors import InputError
from aquascope_core.recon import assess_site
from aquascope_core.tools.context import DataContext, table_entry


def status_of(recon, method):
    return next(r for r in recon["sufficiency"] if r["method"] == method)


def test_flat_brook_the_at_site_flood_method_is_defensible():
    r = assess_site(41.10, -74.96, problem="flood_risk", return_period=100)
    assert r["stations"][0]["station_id"] == "01440000"
    for m in ("gev_lmoments", "lp3_moments", "annual_maxima"):
        assert status_of(r, m)["status"] == "defensible"
    assert status_of(r, "gev_lmoments")["station"]["station_id"] == "01440000"
    # a rainfall-runoff model needs rain and PET, which Flat Brook's record does not hold
    assert status_of(assess_site(41.10, -74.96), "gr4j_calibration")["status"] == "not_defensible"


def test_leaf_river_outlet_rainfall_runoff_and_drought_methods_are_defensible():
    """Leaf River near Collins, MS (USGS 02472000): 31 years of daily P, PET and runoff (HOLMES / MOPEX)."""
    r = assess_site(31.7069, -89.4069)
    st = r["stations"][0]
    assert st["station_id"] == "02472000" and st["distance_km"] < 1
    years = r["context"]["years_by_variable"]
    assert years["precipitation"] == pytest.approx(31.0, abs=0.1)
    assert set(years) >= {"discharge", "precipitation", "potential_evapotranspiration"}
    for m in ("gr4j_calibration", "gr4j_simulation", "standardized_precipitation_index",
              "standardized_precipitation_evapotranspiration_index", "standardized_streamflow_index"):
        assert status_of(r, m)["status"] == "defensible", status_of(r, m)
    drought = assess_site(31.7069, -89.4069, problem="drought_status")["sufficiency"]
    assert drought[0]["status"] == "defensible" and all(
        "drought_status" in __import__("aquascope_core.registry", fromlist=["METHODS"]).METHODS[row["method"]].problems
        for row in drought)


def test_middle_of_the_atlantic_nothing_within_reach_is_said_plainly():
    r = assess_site(30.0, -40.0, problem="flood_risk")
    assert r["stations"] == [] and r["context"]["years_by_variable"] == {}
    assert "No station of the catalogue lies within 50 km of the site." in r["notes"]
    assert r["catchment"]["area_km2"] is None and "unavailable" in r["catchment"]["note"]
    assert all(row["status"] == "not_defensible" for row in r["sufficiency"] if row["method"] != "regional_skew")


def test_the_nearest_station_just_outside_the_radius_is_not_used():
    inside = assess_site(41.10, -74.96, radius_km=2)
    assert inside["stations"][0]["station_id"] == "01440000"  # 0.93 km away
    outside = assess_site(41.10, -74.96, radius_km=0.5)
    assert outside["stations"] == [] and outside["context"]["ungauged"] is True
    assert "No station of the catalogue lies within 0.5 km of the site." in outside["notes"]


def test_catalogue_only_stations_are_listed_but_not_counted():
    r = assess_site(41.10, -74.96)
    meta_only = [s for s in r["stations"] if not any(v["usable"] for v in s["variables"])]
    assert meta_only and all(v["offline"] is False for s in meta_only for v in s["variables"])
    assert any("metadata only" in n for n in r["notes"])
    assert any("102 peak discharge values" in n and "01440000" in n for n in r["notes"])


@pytest.mark.parametrize("args", [dict(lat=95, lon=0), dict(lat=0, lon=-181), dict(lat=0, lon=0, radius_km=0),
                                  dict(lat=0, lon=0, radius_km="far")])
def test_invalid_points_and_radii_are_refused(args):
    with pytest.raises(InputError):
        assess_site(**args)


@pytest.fixture
def no_sockets(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("a socket was opened")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_live_off_is_noted_and_opens_no_socket(no_sockets):
    r = assess_site(41.10, -74.96, live=True)  # asked for, but AQUASCOPE_LIVE is not set
    failed = [n for n in r["notes"] if n.startswith("The live source")]
    assert len(failed) == 4 and all("AQUASCOPE_LIVE=1" in n for n in failed)
    assert r["stations"][0]["station_id"] == "01440000"  # the study goes on with the catalogue


def test_failing_live_sources_leave_the_catalogue_and_a_note(monkeypatch, tmp_path, no_sockets):
    monkeypatch.setenv("AQUASCOPE_LIVE", "1")
    down = httpx.MockTransport(lambda request: httpx.Response(503, json={"error": "maintenance"}))
    opts = {name: {"transport": down, "cache_dir": tmp_path / name, "retries": 1, "sleep": lambda s: None}
            for name in ("usgs_live", "ea_hydrology", "open_meteo_era5", "glofas")}
    r = assess_site(41.10, -74.96, live=True, live_options=opts)
    notes = [n for n in r["notes"] if n.startswith("The live source")]
    assert any("usgs_live" in n for n in notes) and all("goes on with the embedded catalogue" in n for n in notes)
    gauge = r["context"]["station_by_variable"]["discharge"]
    assert (gauge["source"], gauge["station_id"]) == ("usgs", "01440000")


FLOWS = "date;Q (m3/s)\n" + "".join(f"2020-01-{d:02d};{d},5\n" for d in range(1, 29))


def test_an_upload_is_inventoried_first_and_its_bytes_are_kept():
    entry = table_entry("flows.csv", FLOWS.encode())
    assert entry["variables"][0]["variable"] == "discharge" and entry["variables"][0]["unit"] == "m3/s"
    assert entry["original"]["data"] == FLOWS  # verbatim
    data = DataContext.from_tables({"flows.csv": entry}, {"lat": 41.10, "lon": -74.96})
    r = assess_site(41.10, -74.96, extra_sources=[data.uploads])
    assert r["stations"][0]["source"] == "upload" and r["stations"][0]["distance_km"] == 0
    assert any("The user's data: flows.csv (discharge)" in n for n in r["notes"])
    s = data.fetch_series("upload", "flows.csv", "discharge")
    assert s.iloc[0] == 1.5 and s.attrs["unit"] == "m3/s"


@pytest.mark.parametrize("content,fragment", [
    (b"", "empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00binary", "not a table"),
    ("date,flow\n2020-01-01,1\n2020-01-01,2\n2020-01-02,3\n", "more than once"),
    ("date,flow\n2020-01-01,1\n2020-01-02,high\n2020-01-03,3\n", "text"),
])
def test_an_unreadable_upload_is_refused_with_the_reason(content, fragment):
    with pytest.raises(InputError) as e:
        table_entry("bad.csv", content)
    assert fragment in str(e.value).lower()


def test_the_upload_source_is_not_a_named_source():
    with pytest.raises(InputError):
        get_source("upload")
