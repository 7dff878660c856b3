"""trend_test with variant="auto": serial correlation is tested first and handled only when significant."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aquascope_core.methods.trends import mann_kendall
from aquascope_core.tools.flood import trend_test


def _flat_brook_maxima(reference_dir):
    df = pd.read_csv(reference_dir / "usgs_01440000_flat_brook_annual_max_daily_mean_m3s.csv").dropna()
    return df.iloc[:, 1].tolist(), df["water_year"].tolist()


def test_auto_on_an_independent_series_is_the_original_test(reference_dir):
    """Flat Brook's annual maxima (USGS 01440000): lag-1 autocorrelation inside the 5 % bounds, so the
    test is the original Mann-Kendall, number for number."""
    values, years = _flat_brook_maxima(reference_dir)
    got = trend_test(values, years, "m3/s", variant="auto")
    direct = mann_kendall(values, times=years, unit="m3/s")
    assert got["serial_correlation"]["checked"] and not got["serial_correlation"]["significant"]
    assert abs(got["serial_correlation"]["lag1_autocorrelation"]) < 1.96 / np.sqrt(len(values))
    assert got["trend"]["variant"] == "original" and got["trend"]["p_value"] == pytest.approx(direct["p_value"])


def test_auto_prewhitens_a_serially_correlated_series(reference_dir):
    """Annual precipitation over the Great Lakes (R Kendall's PrecipGL) made persistent by a 3-year moving sum
    has a significant lag-1 autocorrelation: the test is made on the trend-free pre-whitened series."""
    df = pd.read_csv(reference_dir / "PrecipGL_Kendall.csv")
    x = pd.Series(df.iloc[:, -1].to_numpy(dtype=float)).rolling(3).sum().dropna()
    years = list(range(len(x)))
    got = trend_test(x.tolist(), years, "in", variant="auto")
    assert got["serial_correlation"]["significant"] and got["trend"]["prewhitening_applied"]
    assert got["serial_correlation"]["handled_by"].startswith("trend-free pre-whitening")


def test_auto_with_missing_years_says_serial_correlation_was_not_tested():
    got = trend_test([1.0, 3.0, 2.0, 5.0, 4.0, 6.0, 8.0, 7.0], [1, 2, 3, 5, 6, 7, 9, 10], None, variant="auto")
    assert got["ok"] and got["serial_correlation"]["checked"] is False
    assert "not tested" in got["serial_correlation"]["reason"]


def test_the_summary_rounds_the_slope_once_as_the_table_does():
    """Sen's slope 0.0547459 written at four figures in the summary (0.05475) and rounded again for the report reads
    0.0548, while the table's three figures of the value read 0.0547: one value, one rounding. A straight line has
    its slope as Sen's slope."""
    from roles.specialists.common import fmt

    slope = 0.0547459
    out = trend_test([10 + slope * i for i in range(30)], times=list(range(1990, 2020)), unit="m3/s")
    assert abs(out["trend"]["sen_slope"] - slope) < 1e-9
    assert f"Sen's slope {fmt(out['trend']['sen_slope'])} " in out["summary"], out["summary"]
    assert "0.0547 " in out["summary"] and "0.05475" not in out["summary"]


def test_a_whole_slope_reads_as_the_table_prints_it():
    """A slope exactly whole (-42 ft3/s per year) is written whole, as fmt writes it in the step's table; one of
    -42.02 is -42.0 in the summary, the table, the gate's detail and the figure's legend (the gate and the legend
    wrote "%.3g", which drops the zero: -42)."""
    from roles.specialists.common import fmt

    out = trend_test([5000 - 42.0 * i for i in range(20)], times=list(range(1930, 1950)), unit="ft3/s")
    assert out["trend"]["sen_slope"] == -42.0
    assert f"Sen's slope {fmt(out['trend']['sen_slope'])} ft3/s per year" in out["summary"], out["summary"]


def test_the_gate_and_the_legend_print_the_slope_as_the_summary_does():
    from aquascope_core.gates import evaluate

    out = trend_test([5000 - 42.0202 * i + (60 if i % 2 else -60) for i in range(20)], times=list(range(1930, 1950)),
                     unit="ft3/s")
    slope = out["trend"]["sen_slope"]
    assert f"{slope:.3g}" != f"{slope:.1f}" and f"Sen's slope {slope:.1f} " in out["summary"]  # -42.0, not -42
    gate = evaluate([{"check": "trend_on_series", "path": "trend", "value": 0.0}], out)[0]
    assert f"Sen's slope {slope:.1f} ft3/s per year" in gate["detail"], gate["detail"]
