"""Shared helpers: coordinate checks, record summaries, gap listing, period slicing."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from aquascope_core.data.base import list_gaps, record_summary, slice_period, validate_point, validate_query
from aquascope_core.errors import DataNotFoundError, InputError


@pytest.mark.parametrize("lat, lon, arg", [(91, 0, "lat"), (-90.5, 0, "lat"), (0, 180.01, "lon"), (0, -181, "lon"),
                                           (math.nan, 0, "lat"), (0, math.nan, "lon"), ("abc", 0, "lat"),
                                           (None, 0, "lat"), (0, math.inf, "lon")])
def test_invalid_points_name_the_argument_and_range(lat, lon, arg):
    with pytest.raises(InputError) as err:
        validate_point(lat, lon)
    assert err.value.argument == arg
    assert ("[-90, 90]" if arg == "lat" else "[-180, 180]") in str(err.value)


def test_lon_given_as_lat_gets_a_hint():
    with pytest.raises(InputError, match="latitude comes first"):
        validate_point(-120.0, 45.0)


@pytest.mark.parametrize("radius, limit, arg", [(0, 5, "radius_km"), (-1, 5, "radius_km"), (math.nan, 5, "radius_km"),
                                                (10, 0, "limit"), (10, 2.5, "limit"), (10, True, "limit")])
def test_invalid_query_arguments(radius, limit, arg):
    with pytest.raises(InputError) as err:
        validate_query(0, 0, radius, limit)
    assert err.value.argument == arg


def test_record_summary_counts_true_coverage_not_span():
    idx = pd.date_range("2000-01-01", "2009-12-31", freq="D")
    s = pd.Series(1.0, index=idx)
    s.iloc[: 365 * 5] = np.nan  # five years missing
    out = record_summary(s, "daily")
    assert out["period_start"] == "2004-12-30"  # day 1826 (2000 and 2004 are leap years)
    assert out["n_values"] == len(idx) - 365 * 5
    assert out["years"] == pytest.approx((len(idx) - 1825) / 365.25)


def test_list_gaps_daily_and_annual():
    idx = pd.DatetimeIndex(["2000-01-01", "2000-01-02", "2000-01-06", "2000-01-07", "2000-01-09"])
    g = list_gaps(idx, "daily")
    assert g["n_missing"] == 4 and g["n_gaps"] == 2
    assert g["gaps"][0] == {"start": "2000-01-03T00:00:00", "end": "2000-01-05T00:00:00", "steps": 3}
    yrs = pd.to_datetime(["1897-01-01", "1919-01-01", "1920-01-01"])
    g = list_gaps(yrs, "annual")
    assert g == {"n_missing": 21, "n_gaps": 1, "gaps": [{"start": "1898", "end": "1918", "steps": 21}]}


def test_slice_period_inclusive_and_errors():
    s = pd.Series(np.arange(10.0), index=pd.date_range("2000-01-01", periods=10, freq="D"))
    assert len(slice_period(s, "2000-01-03", "2000-01-05", what="x")) == 3
    with pytest.raises(DataNotFoundError, match="holds 2000-01-01 to 2000-01-10"):
        slice_period(s, "2001-01-01", None, what="x")
    with pytest.raises(InputError, match="after end"):
        slice_period(s, "2000-01-05", "2000-01-03", what="x")
    with pytest.raises(InputError) as err:
        slice_period(s, "not a date", None, what="x")
    assert err.value.argument == "start"
