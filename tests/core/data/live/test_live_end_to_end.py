"""Studies end to end from a real HTTP server on 127.0.0.1 standing in for the USGS services (loopback.py):
a Bulletin 17C flood study from the recorded NWIS peak file, a drought study from paged daily values with
provisional ones, and `aquascope fetch` then the same study offline giving the same report (flood and drought)."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, parse_qsl, urlparse

import pytest

from loopback import FIXTURES, StandIn

pytestmark = [pytest.mark.slow, pytest.mark.server]

PATUXENT = (38.955917, -76.693694)  # USGS 01594440, the recorded peak file's gauge
FLAT_BROOK = (41.10, -74.96)  # USGS 01440000, the stand-in's daily record
FLOOD = "Design flood for a bridge, 50-year flood"


@pytest.fixture
def stand_in(monkeypatch):
    with StandIn() as srv:
        monkeypatch.setenv("AQUASCOPE_LIVE", "1")
        monkeypatch.setenv("AQUASCOPE_LIVE_SOURCES", "usgs_live")
        monkeypatch.setenv("AQUASCOPE_USGS_URL", srv.url + "/ogcapi/v1")
        monkeypatch.setenv("AQUASCOPE_NWIS_PEAK_URL", srv.url + "/nwis/peak")
        yield srv


def _network_off(monkeypatch):
    monkeypatch.delenv("AQUASCOPE_LIVE", raising=False)
    monkeypatch.setenv("AQUASCOPE_USGS_URL", "http://127.0.0.1:9/ogcapi/v1")  # nothing listens there
    monkeypatch.setenv("AQUASCOPE_NWIS_PEAK_URL", "http://127.0.0.1:9/nwis/peak")


def _same_form(report: dict, study_id: str) -> str:
    """The report, with what must differ between a live run and an offline one taken out: the study's id, the
    re-create command's --live, and the one sentence saying which sources were searched."""
    text = json.dumps(report, sort_keys=True).replace(study_id, "STUDY")
    text = text.replace(" --live --yes", " --yes")
    return re.sub(r"\\n- Live sources are off: [^\\]*?were searched\.", "", text)


def test_flood_b17c_live_then_fetch_and_offline_gives_the_same_report(stand_in, monkeypatch, tmp_path, capsys):
    from graphs.cli import main
    from graphs.solve import solve

    monkeypatch.setenv("AQUASCOPE_HOME", str(tmp_path / "live"))
    live = solve(FLOOD, lat=PATUXENT[0], lon=PATUXENT[1], live=True, artifact_root=str(tmp_path / "a"))
    assert not live.declined and live.study.plan["branch"] == "bulletin17c"
    assert "19,800 ft3/s" in live.answer and "20 systematic peaks, 2000-2019 (20 years)" in live.answer
    assert any("National Water Information System" in r and "retrieved " in r for r in live.report["references"])
    # the adapters asked what the real services are asked, with their query strings
    asked = [(urlparse(p).path, {k: v[0] for k, v in parse_qs(urlparse(p).query).items()}) for p in stand_in.requests]
    assert ("/nwis/peak", {"site_no": "01594440", "agency_cd": "USGS", "format": "rdb"}) in asked
    assert ("/ogcapi/v1/collections/peaks/items", {"monitoring_location_id": "USGS-01594440", "parameter_code": "00060",
                                                   "limit": "10000", "f": "json"}) in asked

    monkeypatch.setenv("AQUASCOPE_HOME", str(tmp_path / "fetched"))
    assert main(["fetch", "--lat", str(PATUXENT[0]), "--lon", str(PATUXENT[1]), "--what", "peaks"]) == 0
    assert "held peak_discharge (ft3/s): 20 values 2000-01-01 to 2019-01-01" in capsys.readouterr().out
    n_asked = len(stand_in.requests)
    _network_off(monkeypatch)
    assert main(["data"]) == 0 and "01594440" in capsys.readouterr().out
    offline = solve(FLOOD, lat=PATUXENT[0], lon=PATUXENT[1], live=False, artifact_root=str(tmp_path / "b"))
    assert len(stand_in.requests) == n_asked  # nothing asked the service
    assert _same_form(offline.report, offline.workspace["id"]) == _same_form(live.report, live.workspace["id"])
    site = next(s for s in offline.report["sections"] if s["id"] == "site_data")["text"]
    assert "records held locally" in site


def test_drought_study_live_from_paged_daily_values_marks_provisional_data(stand_in, monkeypatch, tmp_path):
    from graphs.solve import solve

    monkeypatch.setenv("AQUASCOPE_HOME", str(tmp_path))
    stand_in.page_size = 5000  # the service pages: three pages, each next link with its cursor
    r = solve("Is Flat Brook in drought now?", lat=FLAT_BROOK[0], lon=FLAT_BROOK[1], live=True,
              playbook="drought_status", artifact_root=str(tmp_path / "a"))
    assert not r.declined and "FLAT BROOK NEAR FLATBROOKVILLE NJ was in hydrological (streamflow) drought" in r.answer
    daily = [parse_qs(urlparse(p).query) for p in stand_in.requests if "/collections/daily/" in p]
    assert len(daily) == 3 and [q.get("cursor") for q in daily] == [None, ["5000"], ["10000"]]
    assert all("datetime" not in q and "time" not in q and q["statistic_id"] == ["00003"] for q in daily)
    # the first request names the parameters of a recorded one, in its order (the service's self link of
    # fixtures/usgs_ogc_v1_daily_02196000_two_series.json), less the period the study does not bound
    recorded = json.loads((FIXTURES / "usgs_ogc_v1_daily_02196000_two_series.json").read_text())
    echoed = next(x["href"] for x in recorded["links"] if x["rel"] == "self")
    first = next(p for p in stand_in.requests if "/collections/daily/" in p)
    assert urlparse(first).path == urlparse(echoed).path.replace("https://api.waterdata.usgs.gov", "")
    assert [k for k, _ in parse_qsl(urlparse(first).query)] == [k for k, _ in parse_qsl(urlparse(echoed).query)
                                                               if k != "datetime"]
    used = json.dumps(r.workspace["run"], default=str)  # the results the study holds, with their sources
    assert '"usgs_live"' in used and "provisional data, subject to revision" in used
    assert any("retrieved " in x and "includes provisional data, subject to revision" in x
               for x in r.report["references"])
    site = next(s for s in r.report["sections"] if s["id"] == "site_data")["text"]
    assert re.search(r"record of FLAT BROOK NEAR FLATBROOKVILLE NJ \(usgs_live 01440000\) was retrieved from the service "
                     r"on \d{4}-\d\d-\d\d and is held locally; 365 of its values \(2024-05-06 to 2025-05-05\) are "
                     r"provisional data, subject to revision", site), site


def test_the_same_peak_file_uploaded_offline_gives_the_same_flood(tmp_path, monkeypatch):
    """The other path the reports name: the USGS peak file (here the recorded RDB answer) uploaded, no network."""
    from recorded_answers import FIXTURES
    from graphs.solve import solve

    _network_off(monkeypatch)
    r = solve(FLOOD, lat=PATUXENT[0], lon=PATUXENT[1], tables={"01594440.rdb": FIXTURES / "nwis_peaks_01594440.rdb"},
              artifact_root=str(tmp_path / "a"))
    assert not r.declined and r.study.plan["branch"] == "bulletin17c"
    assert "19,800 ft3/s" in r.answer and "20 systematic peaks, 2000-2019 (20 years)" in r.answer


def test_drought_fetch_then_offline_gives_the_same_report_as_live(stand_in, monkeypatch, tmp_path, capsys):
    """`aquascope fetch --what daily` from the stand-in, then the drought study with the network off: the same
    report as the study run live (the held record keeps its provisional values and retrieval date)."""
    from graphs.cli import main
    from graphs.solve import solve

    ask = "Is Flat Brook in drought now?"
    monkeypatch.setenv("AQUASCOPE_HOME", str(tmp_path / "live"))
    live = solve(ask, lat=FLAT_BROOK[0], lon=FLAT_BROOK[1], live=True, playbook="drought_status",
                 artifact_root=str(tmp_path / "a"))
    assert not live.declined and "was in hydrological (streamflow) drought" in live.answer

    monkeypatch.setenv("AQUASCOPE_HOME", str(tmp_path / "fetched"))
    assert main(["fetch", "--lat", str(FLAT_BROOK[0]), "--lon", str(FLAT_BROOK[1]), "--what", "daily"]) == 0
    out = capsys.readouterr().out
    assert "held discharge (ft3/s)" in out and "01440000" in out, out
    n_asked = len(stand_in.requests)
    _network_off(monkeypatch)
    offline = solve(ask, lat=FLAT_BROOK[0], lon=FLAT_BROOK[1], live=False, playbook="drought_status",
                    artifact_root=str(tmp_path / "b"))
    assert len(stand_in.requests) == n_asked  # nothing asked the service
    assert offline.answer == live.answer
    assert _same_form(offline.report, offline.workspace["id"]) == _same_form(live.report, live.workspace["id"])
    assert any("includes provisional data, subject to revision" in x for x in offline.report["references"])
    site = next(s for s in offline.report["sections"] if s["id"] == "site_data")["text"]
    assert "is held locally; 365 of its values" in site, site
