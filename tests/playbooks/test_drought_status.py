"""The drought_status playbook at real sites x the branch each reaches, planned and run keyless.

Embedded sites: the Leaf River outlet (31 years of daily P, PET and runoff: the climate-record branch) and Flat
Brook (80 years of daily discharge, no rain gauge: the streamflow branch). Branches no embedded site reaches are
exercised with the user's uploads of real records written from the embedded catalogue (Au Saumon, Quebec: 29
years, the marginal short-record branch; the Fulda catchment, Hesse: 10 years, too short), and the reanalysis
branch with a real reconnaissance in live mode whose sources answer 503 (no socket is opened)."""

from __future__ import annotations

import httpx
import pytest

from aquascope_core import playbooks
from aquascope_core.catalogue import callables
from aquascope_core.data import get_source
from aquascope_core.errors import InputError
from aquascope_core.recon import assess_site
from aquascope_core.runner import run_study
from aquascope_core.tools.context import DataContext
from aquascope_core.verify import matches, numbers_in
from roles.specialists import decide, key_numbers
from tests.playbooks.harness import plan_and_run

LEAF = (31.7069, -89.4069)
FLAT_BROOK = (41.10, -74.96)
QUEBEC = (45.48, -71.65)  # the Au Saumon record, uploaded at a site the test names
HESSE = (50.55, 9.68)  # the Fulda record, uploaded likewise
ATLANTIC = (30.0, -40.0)


def holmes_csv(station: str) -> str:
    """A station's daily P, PET and runoff from the embedded HOLMES data, as a user's CSV."""
    h = get_source("holmes")
    p, e, q = (h.fetch_series(station, v) for v in ("precipitation", "potential_evapotranspiration", "discharge"))
    rows = "".join(f"{t.date()},{a},{b},{c}\n" for t, a, b, c in zip(p.index, p, e, q))
    return "date,P (mm/d),PET (mm/d),Q (mm/d)\n" + rows


def fulda_csv() -> str:
    h = get_source("spotpy_hesse")
    p, q = h.fetch_series("fulda", "precipitation"), h.fetch_series("fulda", "discharge")
    return "date,P (mm/d),Q (m3/s)\n" + "".join(f"{t.date()},{a},{b}\n" for t, a, b in zip(p.index, p, q))


def answer(outcome) -> dict:
    run = outcome.run.to_dict()
    brief = {"kind": "drought_status", "intake": outcome.study.problem["params"]}
    return decide("drought_status", brief, outcome.study.to_dict(), run, key_numbers(run))


ROWS = [
    (*LEAF, {}, None, "climate_record"),
    (*LEAF, {"timescales": [6], "as_of": "1963-06"}, None, "climate_record"),
    (*FLAT_BROOK, {}, None, "streamflow_record"),
    (*QUEBEC, {}, {"au_saumon.csv": "holmes:au_saumon"}, "short_record"),
    (*HESSE, {}, {"fulda.csv": "fulda"}, "declined"),
    (*ATLANTIC, {}, None, "declined"),
]


def _tables(spec):
    if not spec:
        return None
    return {name: (holmes_csv(src.split(":")[1]) if src.startswith("holmes:") else fulda_csv())
            for name, src in spec.items()}


@pytest.mark.parametrize("lat,lon,intake,tables,expected", ROWS,
                         ids=["leaf", "leaf-1963", "flat-brook", "au-saumon-upload", "fulda-upload", "atlantic"])
def test_sites_reach_their_branch(lat, lon, intake, tables, expected):
    out = plan_and_run("drought_status", lat, lon, intake=intake, tables=_tables(tables))
    if expected == "declined":
        assert out.study is None and out.declined
        return
    assert out.branch == expected and out.declined is None
    run = out.run
    assert run.ok, {k: r.failed_reason for k, r in run.results.items() if not r.ok}
    assert all(r.gates for r in run.results.values())
    dec = answer(out)
    assert dec["grade"] == "A" and any(matches(n, {dec["value"]}) for n in numbers_in(dec["answer"]))


def test_leaf_river_is_in_severe_meteorological_drought_at_the_end_of_its_record():
    out = plan_and_run("drought_status", *LEAF)
    assert [s.tool for s in out.study.steps] == [
        "station_record", "standardized_precipitation_index", "standardized_precipitation_evapotranspiration_index",
        "standardized_streamflow_index", "drought_propagation", "drought_events", "drought_classes"]
    assert out.study.plan["notes"] == [] and any("ends on 1987-12-31" in c for c in out.study.plan["caveats"])
    spi = out.run.results["s2"].payload
    assert spi["status_month"] == "1987-12" and spi["scales"] == [3, 6, 12]
    assert [round(e["current"]["value"], 2) for e in spi["series"]] == [-1.57, -1.99, -0.05]
    ssi = out.run.results["s4"].payload
    assert ssi["series"][0]["current"]["class"] == "severe drought"
    assert out.run.results["s5"].payload["best"]["scale_months"] == 2
    ev = out.run.results["s6"].payload["by_index"][1]
    assert ev["current"]["onset"] == "1987-11" and ev["current_rank_by_severity"] == 7 and ev["n_events"] == 23
    dec = answer(out)
    assert dec["in_drought"] is True and dec["drought_class"] == "severe drought" and dec["basis"] == "s2.series[1].current.value"
    assert dec["answer"].startswith("In 1987-12, the last month of the record, LEAF RIVER NR COLLINS, MS was in "
                                    "meteorological drought by the SPI: the lowest of its time scales is SPI-6 = -1.99")
    assert "7 of the record's 23 SPI-6 events" in dec["answer"] and "SSI-3 = -1.64" in dec["answer"]


def test_a_named_month_reads_the_1963_drought():
    out = plan_and_run("drought_status", *LEAF, intake={"timescales": [6], "as_of": "1963-06"})
    spi = out.run.results["s2"].payload
    assert spi["status_month"] == "1963-06" and spi["series"][0]["current"]["value"] == pytest.approx(-1.76, abs=0.005)
    ev = out.run.results["s6"].payload["by_index"][0]
    assert ev["current"]["onset"] == "1963-02" and ev["current_rank_by_severity"] == 1
    dec = answer(out)
    assert dec["answer"].startswith("In 1963-06 LEAF RIVER NR COLLINS, MS was in meteorological drought")
    assert "SPI-6 = -1.76 (severe drought)" in dec["answer"] and "had lasted 5 month(s) by then" in dec["answer"]
    assert "over its 13 month(s) in the record" in dec["answer"]


def test_a_thirty_year_record_keeps_a_marginal_spi_through_the_fallback():
    """30 years of the Leaf River rainfall (1958-1987) uploaded at Jackson, MS: the climate-record branch, but the
    12-month windows leave 29 Januaries, so the defensible SPI fails its gate and the fallback keeps it as marginal."""
    p = get_source("holmes").fetch_series("02472000", "precipitation")["1958":]
    text = "date,P (mm/d)\n" + "".join(f"{t.date()},{v}\n" for t, v in p.items())
    out = plan_and_run("drought_status", 32.30, -90.18, tables={"leaf_1958.csv": text})
    assert out.branch == "climate_record" and [s.id for s in out.study.steps] == ["s1", "s2", "s6", "s7"]
    s2 = out.run.results["s2"]
    assert s2.ok and s2.fallback_used and s2.payload["status"] == "marginal" and s2.payload["record_years"] == 29
    dec = answer(out)
    assert dec["grade"] == "C" and dec["grade_reason"] == "a fallback method was used"
    assert "only 29 values per calendar month, so the index is marginal" in dec["answer"]


def test_flat_brook_streamflow_drought_and_low_flow_references():
    out = plan_and_run("drought_status", *FLAT_BROOK)
    assert [s.tool for s in out.study.steps] == ["station_record", "standardized_streamflow_index", "flow_duration_curve",
                                                 "low_flow_frequency", "drought_events", "drought_classes"]
    ssi = out.run.results["s2"].payload
    assert ssi["status_month"] == "2025-04" and ssi["record_years"] == 79 and ssi["status"] == "defensible"
    assert ssi["series"][2]["current"]["value"] == pytest.approx(-1.58, abs=0.005)
    assert out.run.results["s3"].payload["quantiles"]["Q95"] == pytest.approx(0.368, abs=5e-4)
    assert out.run.results["s4"].payload["value"] == pytest.approx(0.210, abs=5e-4)
    dec = answer(out)
    assert dec["in_drought"] is True and "hydrological (streamflow) drought by the SSI" in dec["answer"]
    assert dec["answer"].startswith("In 2025-04, the latest month of the record with a value at every time scale, "
                                    "Flat Brook") and "SSI-12 = -1.58 (severe drought)" in dec["answer"]
    assert any("discharge record ends on 2025-05-05" in c for c in out.study.plan["caveats"])


def test_au_saumon_upload_gives_marginal_indices_with_the_registry_note():
    out = plan_and_run("drought_status", *QUEBEC, tables=_tables({"au_saumon.csv": "holmes:au_saumon"}))
    assert out.branch == "short_record" and out.study.plan["station"]["source"] == "upload"
    assert any("marginal" in n for n in out.study.plan["notes"])
    spi = out.run.results["s2"].payload
    assert spi["status"] == "marginal" and spi["record_years"] == 27 and spi["status_month"] == "2003-12"
    assert out.run.results["s3"].ok and out.run.results["s4"].ok  # SPEI and SSI from the same upload
    dec = answer(out)
    assert "marginal and its tails are extrapolated" in dec["answer"]


def test_declines_say_why():
    atl = plan_and_run("drought_status", *ATLANTIC)
    assert atl.declined.startswith("No precipitation or streamflow record was found within 50 km of the site")
    fulda = plan_and_run("drought_status", *HESSE, tables=_tables({"fulda.csv": "fulda"}))
    assert fulda.declined.startswith("The records within reach are too short for a standardised drought index: 10 "
                                     "years of precipitation and 10 years of streamflow")


def test_reanalysis_branch_from_a_live_reconnaissance_whose_sources_are_down(monkeypatch, tmp_path):
    """Live mode on, every live source answering 503: the ERA5 grid cell is still listed (its row needs no request),
    so the plan takes the reanalysis branch; the run then fails at the read, and says so."""
    monkeypatch.setenv("AQUASCOPE_LIVE", "1")
    down = httpx.MockTransport(lambda request: httpx.Response(503, json={"error": "maintenance"}))
    opts = {name: {"transport": down, "cache_dir": tmp_path / name, "retries": 1, "sleep": lambda s: None}
            for name in ("usgs_live", "ea_hydrology", "open_meteo_era5", "glofas")}
    recon = assess_site(40.0, -3.7, live=True, live_options=opts)
    assert "precipitation" in recon["context"]["modelled"]
    study = playbooks.plan("drought_status", recon, {})
    assert study.plan["branch"] == "reanalysis" and study.step("s1").arguments["source"] == "open_meteo_era5"
    assert [s.tool for s in study.steps] == ["station_record", "standardized_precipitation_index",
                                             "standardized_precipitation_evapotranspiration_index", "drought_events"]
    run = run_study(study, callables=callables(data=DataContext(live=True, live_options=opts)))
    assert not run.ok and run.stopped_at == "s1"
    assert "503" in run.results["s1"].failed_reason or "open_meteo_era5" in run.results["s1"].failed_reason
    assert run.results["s2"].status == "not_run"


def test_intake_is_coerced_and_hints_are_read_from_the_text():
    from roles.consultant import choose_playbook, read_intake

    assert playbooks.coerce_intake("drought_status", {"timescales": "1, 3"}) == {
        "timescales": [1, 3], "as_of": "latest", "decision": "drought monitoring"}
    with pytest.raises(InputError):
        playbooks.coerce_intake("drought_status", {"decision": "vibes"})
    assert choose_playbook("Is the Leaf River catchment in drought?")[0] == "drought_status"
    text = "Drought status from SPI-3 and 12-month SPI in August 1987, for water restrictions"
    assert read_intake("drought_status", text) == {"timescales": [3, 12], "as_of": "1987-08",
                                                   "decision": "water-use restrictions"}


def test_the_crew_answers_the_drought_question_end_to_end(tmp_path):
    from graphs.studio import Studio

    with Studio(lat=LEAF[0], lon=LEAF[1], checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}",
                artifact_root=str(tmp_path / "art")) as s:
        r = s.say("Is the Leaf River catchment in drought?")
        assert r.kind == "plan" and "Standardised indices from a long precipitation record" in r.text
        r = s.approve()
        assert r.kind == "report" and r.payload["critique_ok"] is True
        run = s.workspace().run
        value = run["results"]["s2"]["payload"]["series"][1]["current"]["value"]
        assert f"SPI-6 = {value:.2f}" in r.text and "was in meteorological drought" in r.text
        paths = s.export(tmp_path / "out")
        report = next(p for p in paths if p.name == "report.md").read_text()
        assert "Drought events (runs at or below -1)" in report and "SPI at the status month" in report
