"""The embedded files: present, intact (checksums of MANIFEST.json), readable with no network."""

from __future__ import annotations

import hashlib

import pandas as pd
import pytest

from aquascope_core.data import store
from aquascope_core.data.provenance import EMBEDDED
from aquascope_core.errors import InputError

_LOADERS = [store.usgs_catalogue, store.usgs_catalogue_meta, store.delaware_daily, store.big_sandy_case,
            store.schwingbach_daily, store.fulda_daily, store.manifest]


def test_every_declared_file_is_shipped_and_matches_the_manifest():
    files = store.manifest()["files"]
    for f in EMBEDDED:
        path = store.EMBEDDED_DIR / f.filename
        assert path.exists(), f.filename
        assert hashlib.sha256(path.read_bytes()).hexdigest() == files[f.filename]["sha256"], f.filename
    total = sum(p.stat().st_size for p in store.EMBEDDED_DIR.iterdir())
    assert total < 4_000_000  # "a few MB"


def test_files_load_with_no_network(no_network):
    for loader in _LOADERS:
        loader.cache_clear()
    for name in ("leaf_river", "au_saumon", "baskatong"):
        store.holmes_daily.cache_clear()
        assert len(store.holmes_daily(name)) > 10_000
    for loader in _LOADERS:
        assert loader() is not None
    for name in ("fox", "ocmulgee", "uccle", "sask"):
        assert not store.evd_table(name).empty


def test_usgs_catalogue_has_every_site_with_string_ids_and_km2():
    cat = store.usgs_catalogue()
    assert len(cat) == 20_746 == store.usgs_catalogue_meta()["rows"]
    assert cat["site_no"].is_unique
    row = cat.loc["01440000"]
    assert row["drainage_area_sqmi"] == 64.0
    assert row["drainage_area_km2"] == pytest.approx(165.8, abs=0.05)  # 64 sq mi x 2.58999
    assert row["huc8"] == "02040104"


def test_loaders_parse_once_per_process():
    store.delaware_daily.cache_clear()
    first = store.delaware_daily()
    assert store.delaware_daily() is first
    assert store.delaware_daily.cache_info().hits >= 1


def test_daily_files_have_sorted_unique_dates():
    for frame in (store.delaware_daily(), store.schwingbach_daily(), store.fulda_daily(), store.holmes_daily("baskatong")):
        assert isinstance(frame.index, pd.DatetimeIndex)
        assert frame.index.is_monotonic_increasing and frame.index.is_unique


def test_fulda_period_and_units_row_skipped():
    fu = store.fulda_daily()
    assert fu.index[0] == pd.Timestamp("1979-01-01") and fu.index[-1] == pd.Timestamp("1988-12-31")
    assert len(fu) == 3653
    assert fu.loc["1979-01-01", "Q"] == 143.0  # first line of the source after its units row


def test_embedded_table_is_a_copy_and_names_are_checked():
    t = store.embedded_table("regional_skew")
    assert {"state", "skew_region", "skew", "citation"} <= set(t.columns)
    t.loc[:, "skew"] = 99.0
    assert (store.embedded_table("regional_skew")["skew"] != 99.0).any()
    with pytest.raises(InputError, match="regional_skew"):
        store.embedded_table("skew")


def test_schwingbach_daily_values_against_the_shared_extract(shared_data):
    """The rebuilt daily file puts each column on its own time axis (see the data README).

    Groundwater head follows the timestamps as written, so it agrees with the shared extract on
    every day with 24 hourly heads; the weather columns move between days 1-12 of a month and the
    matching month of the same year, so annual precipitation totals agree while single days differ.
    """
    mine = store.schwingbach_daily()
    theirs = pd.read_csv(shared_data / "spotpy_hesse" / "schwingbach_site24_daily_gwhead.csv",
                         parse_dates=["time"], index_col="time")
    full = mine["gwhead_hours"] == 24
    assert int(full.sum()) == 964
    diff = (mine.loc[full, "gwhead_m"] - theirs.loc[full[full].index, "gwhead_m"]).abs()
    assert diff.max() < 1e-3
    assert mine["gwhead_m"].isna().sum() == 1096 - 964
    yearly_mine = mine["rain_mm"].groupby(mine.index.year).sum()
    yearly_theirs = theirs["rain_mm"].groupby(theirs.index.year).sum()
    assert (yearly_mine - yearly_theirs).abs().max() < 0.01
    # 2 January 2014: the rain of that day, not of 1 February
    assert mine.loc["2014-01-02", "rain_mm"] != pytest.approx(theirs.loc["2014-01-02", "rain_mm"], abs=0.01)
