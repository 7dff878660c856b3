"""Data layer timings: stations near a point (index vs a scan of every row) and loading a daily record.

Run: ``.venv/bin/python benchmarks/bench_data.py``. Prints ratios against references run in the
same process; nothing here is asserted.
"""

from __future__ import annotations

import math
import time

import numpy as np


def _best(fn, repeat: int = 5, number: int = 1) -> float:
    """Best mean time per call (seconds) over ``repeat`` rounds of ``number`` calls."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return min(times)


def main() -> None:
    from aquascope_core.data import catalogue, store
    from aquascope_core.data.base import EARTH_RADIUS_KM
    from aquascope_core.data.spatial import PointIndex, nearest_by_scan

    t0 = time.perf_counter()
    table = store.usgs_catalogue()
    t_parse = time.perf_counter() - t0
    lat, lon = table["latitude"].to_numpy(float), table["longitude"].to_numpy(float)
    t_build = _best(lambda: PointIndex(lat, lon), repeat=5)
    index = PointIndex(lat, lon)

    rng = np.random.default_rng(1)
    points = np.column_stack([rng.uniform(25, 49, 200), rng.uniform(-124, -68, 200)])

    def run_index():
        for la, lo in points:
            index.within(la, lo, 50.0)

    def run_scan():
        for la, lo in points:
            nearest_by_scan(la, lo, lat, lon, 50.0)

    def run_python_scan():  # every row, one distance at a time, as a loop without numpy would
        la, lo = points[0]
        p1, l1 = math.radians(la), math.radians(lo)
        out = []
        for a, b in zip(lat.tolist(), lon.tolist()):
            p2, l2 = math.radians(a), math.radians(b)
            h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin((l2 - l1) / 2) ** 2
            d = 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(h))
            if d <= 50.0:
                out.append(d)
        out.sort()

    t_index = _best(run_index) / len(points)
    t_scan = _best(run_scan) / len(points)
    t_py = _best(run_python_scan, repeat=3)

    cat = catalogue()
    cat.stations_near(41.10, -74.96)  # warm: rows of the Delaware gauges read the daily file once

    def run_rows():
        for la, lo in points:
            cat.stations_near(la, lo, radius_km=50.0, limit=20)

    t_rows = _best(run_rows, repeat=3) / len(points)

    store.delaware_daily.cache_clear()
    t0 = time.perf_counter()
    q = cat.fetch_series("01440000", "discharge")
    t_first = time.perf_counter() - t0
    t_cached = _best(lambda: cat.fetch_series("01440000", "discharge"), repeat=5, number=20)

    print(f"USGS catalogue: {len(table):,} sites; CSV parse {t_parse * 1e3:.0f} ms; k-d tree build {t_build * 1e3:.1f} ms (one-off)")
    print(f"stations within 50 km, 200 random US points, per query:")
    print(f"  k-d tree + exact haversine        {t_index * 1e6:8.1f} us")
    print(f"  numpy scan of every row           {t_scan * 1e6:8.1f} us   ratio {t_scan / t_index:5.1f}x")
    print(f"  pure-Python scan of every row     {t_py * 1e6:8.1f} us   ratio {t_py / t_index:5.0f}x")
    print(f"  catalogue().stations_near (rows)  {t_rows * 1e6:8.1f} us")
    print(f"daily record 01440000 ({len(q):,} days, {len(q) / 365.25:.1f} years):")
    print(f"  first fetch_series (parse 4-gauge file) {t_first * 1e3:7.1f} ms")
    print(f"  later fetch_series (cached, copy+attrs) {t_cached * 1e3:7.2f} ms")


if __name__ == "__main__":
    main()
