"""Tests of aquascope_core.methods.baseflow: Lyne-Hollick and Eckhardt filters, baseflow index."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods.baseflow import eckhardt_baseflow, lyne_hollick_baseflow


@pytest.fixture(scope="module")
def flat_brook(reference_dir) -> pd.Series:
    d = pd.read_csv(reference_dir / "usgs_01440000_flat_brook_daily_1990_2020_m3s.csv.gz", parse_dates=["date"])
    return d.set_index("date")["discharge_m3s"]


@pytest.fixture(scope="module")
def bass_river(reference_dir) -> pd.Series:
    """67 daily flows; the published example has no dates, so any 67 consecutive days will do."""
    d = pd.read_csv(reference_dir / "bass_river_loch_ladson2013.csv")
    return pd.Series(d["flow"].to_numpy(dtype=float), index=pd.date_range("2000-01-01", periods=len(d), freq="D"))


def _daily(values, start="2001-01-01") -> pd.Series:
    values = np.asarray(values, dtype=float)
    return pd.Series(values, index=pd.date_range(start, periods=values.size, freq="D"))


# ---------------------------------------------------------------- Lyne-Hollick


def test_bass_river_bfi_ladson_2013(bass_river):
    """Ladson et al. (2013), Bass River at Loch, 67 days: BFI = 0.1965759 with alpha = 0.98, three
    passes and 30 reflected values (BFI_example.R of github.com/TonyLadson/BaseflowSeparation_LyneHollick)."""
    r = lyne_hollick_baseflow(bass_river, alpha=0.98)
    assert r["ok"] is True and r["passes"] == 3 and r["reflect_days"] == 30
    assert r["baseflow_index"] == pytest.approx(0.1965759, abs=5e-8)
    json.dumps(r)


def test_single_pass_by_hand():
    """alpha = 0.5, one forward pass, no reflection, q = 1, 3, 2, 2, 2, ...: the quickflow starts at
    q_0 (f_0 = 1, so b_0 = 0); f_1 = 0.5*1 + 0.75*(3 - 1) = 2, b_1 = 1; f_2 = 1 + 0.75*(-1) = 0.25,
    b_2 = 1.75; f_3 = 0.125, b_3 = 1.875; f_4 = 0.0625, b_4 = 1.9375."""
    q = _daily([1.0, 3.0] + [2.0] * 38)
    r = lyne_hollick_baseflow(q, alpha=0.5, passes=1, reflect_days=0, return_series=True)
    assert r["baseflow"]["values"][:5] == pytest.approx([0.0, 1.0, 1.75, 1.875, 1.9375])
    assert r["baseflow"]["dates"][0] == "2001-01-01" and len(r["baseflow"]["values"]) == 40


def test_lyne_hollick_properties_flat_brook(flat_brook):
    """0 <= baseflow <= streamflow every day; BFI in (0, 1); every further pair of passes and a
    larger alpha remove more quickflow, so the BFI falls."""
    r = lyne_hollick_baseflow(flat_brook, return_series=True)
    b = np.asarray(r["baseflow"]["values"])
    q = flat_brook.to_numpy()
    assert b.shape == q.shape and np.all(b >= 0) and np.all(b <= q + 1e-12)
    assert 0 < r["baseflow_index"] < 1
    assert r["baseflow_index"] == pytest.approx(b.sum() / q.sum())
    assert r["baseflow_index"] == pytest.approx(0.58824, abs=1e-5)  # this implementation's value (regression)
    assert set(r["annual_bfi"]) == {str(y) for y in range(1991, 2020)}  # complete calendar years only
    assert all(0 < v < 1 for v in r["annual_bfi"].values())
    one = lyne_hollick_baseflow(flat_brook, passes=1)["baseflow_index"]
    five = lyne_hollick_baseflow(flat_brook, passes=5)["baseflow_index"]
    assert one > r["baseflow_index"] > five
    assert lyne_hollick_baseflow(flat_brook, alpha=0.98)["baseflow_index"] < r["baseflow_index"]


# ---------------------------------------------------------------- Eckhardt


def test_eckhardt_recession_is_all_baseflow():
    """Eckhardt (2005): on a recession q_t = q_0 alpha^t the filter returns b_t = q_t (BFI = 1)."""
    q = _daily(10.0 * 0.98 ** np.arange(200))
    r = eckhardt_baseflow(q, alpha=0.98, bfi_max=0.8, return_series=True)
    assert r["baseflow"]["values"] == pytest.approx(q.to_numpy(), rel=1e-12)
    assert r["baseflow_index"] == pytest.approx(1.0)


def test_eckhardt_steady_flow_tends_to_bfimax():
    """A steady flow Q gives the fixed point b = BFImax Q: (1 - BFImax) alpha b + (1 - alpha) BFImax Q
    = (1 - alpha BFImax) b. After 400 days at 5 then 6 the filter sits at 0.8 x 5 and 0.8 x 6."""
    q = _daily([5.0] * 400 + [6.0] * 400)
    b = np.asarray(eckhardt_baseflow(q, return_series=True)["baseflow"]["values"])
    assert b[399] == pytest.approx(4.0, rel=1e-9)
    assert b[-1] == pytest.approx(4.8, rel=1e-9)


def test_eckhardt_properties_flat_brook(flat_brook):
    r = eckhardt_baseflow(flat_brook, return_series=True)
    b = np.asarray(r["baseflow"]["values"])
    q = flat_brook.to_numpy()
    assert np.all(b >= 0) and np.all(b <= q)
    assert 0 < r["baseflow_index"] < 1
    low = eckhardt_baseflow(flat_brook, bfi_max=0.5)["baseflow_index"]
    assert low < r["baseflow_index"]
    assert r["bfi_max"] == 0.8 and r["alpha"] == 0.98


# ---------------------------------------------------------------- bad input


def test_gaps_are_refused_with_the_first_one_named(flat_brook):
    s = flat_brook.loc["2000-01-01":"2001-12-31"].copy()
    s.loc["2000-06-15"] = np.nan
    with pytest.raises(InputError, match="2000-06-15"):
        lyne_hollick_baseflow(s)
    with pytest.raises(InputError, match="gap"):
        eckhardt_baseflow(s.drop(pd.Timestamp("2000-06-15")))


def test_bad_parameters(flat_brook):
    s = flat_brook.loc["2000-01-01":"2000-12-31"]
    with pytest.raises(InputError, match="passes"):
        lyne_hollick_baseflow(s, passes=2)
    with pytest.raises(InputError, match="alpha"):
        lyne_hollick_baseflow(s, alpha=1.0)
    with pytest.raises(InputError, match="bfi_max"):
        eckhardt_baseflow(s, bfi_max=0)
    with pytest.raises(InputError, match="negative"):
        eckhardt_baseflow(s.where(s.index != s.index[3], -0.5))
    with pytest.raises(InputError, match="daily"):
        lyne_hollick_baseflow(flat_brook.resample("W").mean())


def test_too_short_and_constant(flat_brook):
    with pytest.raises(InsufficientDataError):
        lyne_hollick_baseflow(flat_brook.iloc[:20])
    with pytest.raises(InsufficientDataError):
        eckhardt_baseflow(_daily([3.0] * 100))


def test_caller_series_not_modified(flat_brook):
    s = flat_brook.loc["2000-01-01":"2002-12-31"].copy()
    before = s.copy()
    lyne_hollick_baseflow(s)
    eckhardt_baseflow(s)
    pd.testing.assert_series_equal(s, before)
