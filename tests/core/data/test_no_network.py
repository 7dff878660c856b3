"""With live mode off, no code path opens a socket: catalogue, stations_near, fetch_series, ingest, live sources."""

from __future__ import annotations

import pytest

from aquascope_core.data import catalogue, get_source, ingest, store
from aquascope_core.data.ingest import UploadSource
from aquascope_core.data.live import LIVE_SOURCES
from aquascope_core.data.live.ea import EaHydrologyLive
from aquascope_core.data.live.open_meteo import GlofasLive, OpenMeteoEra5Live
from aquascope_core.data.live.usgs import UsgsLive
from aquascope_core.errors import SourceError


def test_offline_paths_never_touch_the_network(no_network):
    for loader in (store.usgs_catalogue, store.delaware_daily, store.schwingbach_daily, store.fulda_daily,
                   store.holmes_daily, store.evd_table, store.big_sandy_case, store.manifest):
        loader.cache_clear()
    cat = catalogue()
    assert cat.stations_near(41.10, -74.96)[0]["station_id"] == "01440000"
    assert len(cat.fetch_series("01440000", "discharge")) == 29345
    assert cat.describe_station("leaf_river")["sources"] == ["usgs", "holmes"]
    assert cat.fetch_series("schwingbach", "groundwater_level").attrs["unit"] == "m a.s.l."
    assert cat.fetch_sample("sask", "annual_max_discharge").size == 48
    assert cat.find_stations("saumon")[0]["station_id"] == "au_saumon"
    d = ingest("up", b"date,Q (m3/s)\n2020-01-01,1\n2020-01-02,2\n")
    up = UploadSource([d])
    up.add(d, lat=41.0, lon=-75.0)
    assert up.stations_near(41.0, -75.0)[0]["station_id"] == "up"


@pytest.mark.parametrize("env", [None, "0", "1"])
def test_live_sources_refuse_unless_both_switches_are_on(no_network, monkeypatch, env):
    if env is None:
        monkeypatch.delenv("AQUASCOPE_LIVE", raising=False)
    else:
        monkeypatch.setenv("AQUASCOPE_LIVE", env)
    for name in LIVE_SOURCES:
        with pytest.raises(SourceError, match="AQUASCOPE_LIVE=1"):
            get_source(name)  # live=False
        if env != "1":
            with pytest.raises(SourceError, match="AQUASCOPE_LIVE=1"):
                get_source(name, live=True)
    # Adapters built directly (with the default client) refuse before opening anything.
    for cls in (UsgsLive, EaHydrologyLive):
        with pytest.raises(SourceError, match="is off"):
            cls().stations_near(41.0, -75.0)
    with pytest.raises(SourceError, match="is off"):
        UsgsLive().fetch_series("01440000", "discharge")
    with pytest.raises(SourceError, match="is off"):
        OpenMeteoEra5Live().fetch_series("41.1,-74.96", "precipitation", start="2020-01-01", end="2020-01-02")
    with pytest.raises(SourceError, match="is off"):
        GlofasLive().fetch_series("41.1,-74.96", "discharge", start="2020-01-01", end="2020-01-02")


def test_live_on_builds_the_adapter_without_a_request(no_network, monkeypatch):
    monkeypatch.setenv("AQUASCOPE_LIVE", "1")
    src = get_source("open_meteo_era5", live=True)
    assert src.name == "open_meteo_era5" and src.stations_near(41.1, -74.96)[0]["distance_km"] == 0.0
