"""Records fetched once and held locally: fetch_gauge, HeldSource, the CLI's fetch and data (recorded answers)."""

from __future__ import annotations

import httpx
import pytest

from aquascope_core.data.fetch import fetch_gauge
from aquascope_core.data.held import HeldSource, held_records, held_sources
from aquascope_core.errors import DataNotFoundError, InputError, SourceError
from aquascope_core.tools.context import DataContext
from recorded_answers import recorded
from live_mock import Script, ok


def _transport():
    """The recorded answers by path: the Yahara feature, its two provisional daily values, no peaks anywhere."""
    empty = recorded("usgs_ogc_v1_daily_02196000_ended_series_empty.json")  # the service's empty answer, recorded

    def answer(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path.endswith("/monitoring-locations/items") and request.url.params.get("id") == "USGS-05427718":
            # the recorded Yahara feature in the FeatureCollection of one a by-id query is answered with
            # (recorded for 01646500: usgs_ogc_v1_monitoring_locations_by_id_01646500.json)
            feat = recorded("usgs_ogc_combined_metadata_05427718_feature.json")
            return ok({"type": "FeatureCollection", "features": [feat], "numberReturned": 1, "links": []})
        if path.endswith("/daily/items"):
            return ok(recorded("usgs_ogc_daily_05427718.json"))
        if path.endswith("/peaks/items"):
            return ok(empty)
        return httpx.Response(404)

    return Script(answer).transport()


def test_fetch_holds_the_record_with_its_provenance_and_serves_it_offline(live_env, tmp_path, monkeypatch):
    out = fetch_gauge(43.2, -89.35, station="05427718", transport=_transport(), cache_dir=tmp_path / "c")
    assert [r["variable"] for r in out["records"]] == ["discharge"] and out["records"][0]["provisional"] == 2
    assert out["failed"][0]["variable"] == "peak_discharge" and "NWIS peak file of 05427718 not found" in out["failed"][0]["reason"]
    monkeypatch.delenv("AQUASCOPE_LIVE")  # offline from here
    src = held_sources()["usgs_live"]
    s = src.fetch_series("USGS-05427718", "discharge")
    assert s.tolist() == [20.2, 27.1] and s.attrs["source"] == "usgs_live" and s.attrs["provisional"]["n"] == 2
    assert s.attrs["provenance"]["accessed"] == out["records"][0]["fetched"] and s.attrs["held"]["path"]
    row = src.stations_near(43.2, -89.35, radius_km=5)[0]
    assert row["held"] and row["area_km2"] == pytest.approx(190.6, abs=0.1)
    v = row["variables"][0]
    assert v["offline"] and v["n_values"] == 2 and v["provisional"]["n"] == 2 and "held locally" in v["note"]
    assert DataContext().source("usgs_live").fetch_series("05427718", "discharge").tolist() == [20.2, 27.1]
    assert [r["variable"] for r in held_records()] == ["discharge"]
    with pytest.raises(DataNotFoundError, match="no peak_discharge of usgs_live station") as err:
        src.fetch_series("05427718", "peak_discharge")
    assert "aquascope fetch --station 05427718" in err.value.recovery


def test_fetch_refuses_bad_input_and_stays_opt_in(monkeypatch, tmp_path):
    with pytest.raises(InputError, match="daily, peaks"):
        fetch_gauge(43.2, -89.35, what="hourly")
    monkeypatch.delenv("AQUASCOPE_LIVE", raising=False)
    with pytest.raises(SourceError, match="AQUASCOPE_LIVE=1"):
        fetch_gauge(43.2, -89.35, station="05427718", transport=_transport())
    from graphs.cli import main

    assert main(["fetch", "--lat", "43.2", "--lon", "-89.35"]) == 2
    assert held_sources() == {}


def test_no_gauge_near_and_nothing_written(live_env, tmp_path):
    wells = recorded("usgs_ogc_monitoring_locations_ct.json")  # the recorded answer lists wells only
    with pytest.raises(DataNotFoundError, match="no stream gauge within"):
        fetch_gauge(41.05, -73.5, transport=Script(ok(wells)).transport(), cache_dir=tmp_path / "c")
    assert held_sources() == {}
    with pytest.raises(DataNotFoundError, match="is held locally"):  # looked up by id, never as a path
        HeldSource("usgs_live").fetch_series("../etc", "discharge")
