"""The spatial index answers exactly what a scan of every row answers."""

from __future__ import annotations

import numpy as np
import pytest

from aquascope_core.data import store
from aquascope_core.data.base import haversine_km
from aquascope_core.data import spatial
from aquascope_core.data.spatial import SCAN_QUERIES, PointIndex, nearest_by_scan


@pytest.fixture(params=["scan", "tree"])
def mode(request, monkeypatch):
    """The index's first queries scan, the later ones use its k-d tree: each test runs both ways."""
    if request.param == "tree":
        monkeypatch.setattr(spatial, "SCAN_QUERIES", 1)
    return request.param


def test_haversine_known_distance():
    # One degree of latitude on the 6371.0088 km sphere: 2*pi*R/360 = 111.195 km
    assert haversine_km(0.0, 0.0, 1.0, 0.0) == pytest.approx(111.1951, abs=1e-3)
    # Antipodes: half the circumference
    assert haversine_km(0.0, 0.0, 0.0, 180.0) == pytest.approx(np.pi * 6371.0088, rel=1e-12)


def test_index_equals_scan_over_the_usgs_catalogue():
    cat = store.usgs_catalogue()
    lat, lon = cat["latitude"].to_numpy(float), cat["longitude"].to_numpy(float)
    index = PointIndex(lat, lon)
    rng = np.random.default_rng(7)
    for _ in range(SCAN_QUERIES + 40):  # the scans, then the tree built on the SCAN_QUERIES-th query
        q_lat, q_lon = rng.uniform(25, 50), rng.uniform(-125, -67)
        radius = float(rng.choice([5.0, 25.0, 50.0, 200.0]))
        rows_i, d_i = index.within(q_lat, q_lon, radius)
        rows_s, d_s = nearest_by_scan(q_lat, q_lon, lat, lon, radius)
        assert rows_i.tolist() == rows_s.tolist()
        assert np.allclose(d_i, d_s)
        assert np.all(np.diff(d_i) >= 0)
    assert index._tree is not None


def test_antimeridian_and_pole(mode):
    lat = np.array([0.0, 0.0, 89.9, -10.0, np.nan])
    lon = np.array([179.9, -179.9, 0.0, 10.0, 5.0])
    index = PointIndex(lat, lon)
    assert len(index) == 4  # the NaN row is not indexed
    rows, dist = index.within(0.0, 180.0, 20.0)
    assert sorted(rows.tolist()) == [0, 1]  # both sides of the antimeridian, ~11 km each
    assert dist == pytest.approx([11.12, 11.12], abs=0.01)
    rows, _ = index.within(90.0, 123.0, 20.0)
    assert rows.tolist() == [2]


def test_radius_edge_is_exact(mode):
    index = PointIndex(np.array([1.0]), np.array([0.0]))
    d = float(haversine_km(0.0, 0.0, 1.0, 0.0))
    assert index.within(0.0, 0.0, d + 1e-9)[0].tolist() == [0]
    assert index.within(0.0, 0.0, d - 1e-6)[0].tolist() == []
