"""The flood path through the contract layer: recon at Flat Brook, the playbook's plan, its validation, the run."""

from __future__ import annotations

import pytest

from aquascope_core import playbooks
from aquascope_core.catalogue import TOOLS, compact, schema, validate_plan
from aquascope_core.errors import DeclinedError, InputError
from aquascope_core.recon import assess_site
from aquascope_core.runner import run_study
from aquascope_core.study import Study
from aquascope_core.verify import matches, numbers_in, verify

FLAT_BROOK = (41.10, -74.96)


@pytest.fixture(scope="module")
def recon():
    return assess_site(*FLAT_BROOK, problem="flood_risk", return_period=100)


def test_recon_at_flat_brook_finds_the_gauge_with_its_true_span(recon):
    st = recon["stations"][0]
    assert (st["source"], st["station_id"]) == ("usgs", "01440000") and st["distance_km"] < 2
    daily = next(v for v in st["variables"] if v["variable"] == "discharge")
    assert daily["period_start"] == "1945-01-01" and daily["period_end"] == "2025-05-05"
    assert daily["years"] == pytest.approx(80.34, abs=0.01) and daily["usable"]
    ctx = recon["context"]
    assert ctx["years_by_variable"]["discharge"] == pytest.approx(80.34, abs=0.01)
    assert ctx["area_km2"] == pytest.approx(165.8) and ctx["ungauged"] is False
    gev = next(r for r in recon["sufficiency"] if r["method"] == "gev_lmoments")
    assert gev["status"] == "defensible" and gev["station"]["station_id"] == "01440000"
    assert any("Live sources are off" in n for n in recon["notes"])


def test_recon_in_the_atlantic_says_so_plainly():
    r = assess_site(30.0, -40.0, problem="flood_risk")
    assert r["stations"] == [] and r["context"]["ungauged"] is True
    assert any("No station of the catalogue lies within 50 km" in n for n in r["notes"])


@pytest.mark.parametrize("lat,lon,arg", [(95, 0, "lat"), (0, 200, "lon"), (float("nan"), 0, "lat"), ("x", 0, "lat")])
def test_recon_refuses_a_point_off_the_globe(lat, lon, arg):
    with pytest.raises(InputError) as e:
        assess_site(lat, lon)
    assert e.value.argument == arg


def test_plan_fills_the_at_site_branch_and_validates(recon):
    study = playbooks.plan("flood_risk", recon, {"return_period": 100})
    assert study.version == 3 and study.plan["branch"] == "at_site" and study.plan["author"] == "playbook"
    # a U.S. gauge with a daily record only: the indicative peak (Fuller 1914) follows the daily-mean fit
    assert [s.tool for s in study.steps] == ["station_record", "annual_maxima", "flood_frequency", "trend_test",
                                             "indicative_peak"]
    s3 = study.step("s3")
    assert s3.arguments["values"] == "{{ result.s2.values }}" and 100 in s3.arguments["return_periods"]
    assert s3.expects[0]["return_period"] == 100 and study.plan["methodology"] and study.plan["citations"]
    assert validate_plan(study, site=recon["context"]) == []
    # an unusual return period joins the list the gates look it up in
    s = playbooks.plan("flood_risk", recon, {"return_period": 150})
    assert 150 in s.step("s3").arguments["return_periods"]


def test_plan_declines_a_return_period_far_beyond_the_record(recon):
    with pytest.raises(DeclinedError, match="beyond 3 times the 80.3-year record"):
        playbooks.plan("flood_risk", recon, {"return_period": 1000})


def test_plan_declines_where_there_is_no_gauge():
    r = assess_site(30.0, -40.0, problem="flood_risk")
    with pytest.raises(DeclinedError, match="No discharge record of at least 10 years"):
        playbooks.plan("flood_risk", r, {"return_period": 100})


def test_intake_is_coerced_or_refused():
    assert playbooks.coerce_intake("flood_risk", {"return_period": "200-year", "decision": "Insurance"}) == {
        "return_period": 200, "decision": "insurance"}
    with pytest.raises(InputError, match="return_period"):
        playbooks.coerce_intake("flood_risk", {"return_period": "often"})
    with pytest.raises(InputError, match="one of design flow"):
        playbooks.coerce_intake("flood_risk", {"decision": "vibes"})


def test_validate_plan_names_the_step_for_each_kind_of_error(recon):
    base = playbooks.plan("flood_risk", recon, {"return_period": 100}).to_dict()

    def errors_after(change):
        d = Study.from_dict(base).to_dict()
        change(d)
        return validate_plan(d, site=recon["context"])

    e = errors_after(lambda d: d["steps"][0].update(tool="fetch_everything"))
    assert e and e[0].startswith("step s1: unknown tool 'fetch_everything'")
    e = errors_after(lambda d: d["steps"][1]["arguments"].update(station="x"))
    assert e and e[0].startswith("step s2: annual_maxima does not take 'station'")
    e = errors_after(lambda d: d["steps"][1]["arguments"].update(min_days="many"))
    assert any("step s2: argument 'min_days'" in x for x in e)
    e = errors_after(lambda d: d["steps"][1]["arguments"].pop("station_id"))
    assert any("step s2: annual_maxima needs 'station_id'" in x for x in e)
    e = errors_after(lambda d: d["steps"][1]["arguments"].update(source="{{ result.s3.unit }}"))
    assert any("step s2: refers to result.s3, which is not an earlier step" in x for x in e)
    e = errors_after(lambda d: d["steps"][2]["expects"].append({"check": "looks_plausible"}))
    assert any("step s3: gate unknown check 'looks_plausible'" in x for x in e)
    e = errors_after(lambda d: d["steps"][2].update(method="gr4j_calibration"))
    assert any("step s3: flood_frequency does not apply method 'gr4j_calibration'" in x for x in e)
    # a method the registry refuses at this site
    e = validate_plan(base, site={"years_by_variable": {"discharge": 5}, "resolution_by_variable": {"discharge": "daily"}})
    assert any(x.startswith("step s3: method gev_lmoments is not defensible at the site") for x in e)


def test_catalogue_schema_is_read_off_the_signatures():
    sch = schema("flood_frequency")
    assert sch["values"]["required"] and not sch["n_bootstrap"]["required"] and sch["n_bootstrap"]["default"] == 1000
    assert "data" not in schema("annual_maxima")
    rows = compact("flood_risk")
    assert {r["id"] for r in rows} >= set(TOOLS)


@pytest.fixture(scope="module")
def flood_run(recon):
    study = playbooks.plan("flood_risk", recon, {"return_period": 100})
    return study, run_study(study)


def test_the_flood_study_runs_with_every_gate_recorded(flood_run):
    study, run = flood_run
    assert run.ok and run.summary["ok"] == 5
    s3 = run.results["s3"].payload
    i = s3["return_periods"].index(100)
    gev, lp3 = s3["fits"]["gev_lmoments"], s3["fits"]["lp3_moments"]
    # Flat Brook's 100-year daily-mean flood: both fits between 120 and 160 m3/s, with finite 90 % bands around them
    for fit in (gev, lp3):
        assert 120 < fit["return_levels"][i] < 160
        assert fit["ci"]["lower"][i] < fit["return_levels"][i] < fit["ci"]["upper"][i]
        assert fit["ci"]["confidence"] == 0.9 and fit["ci"]["n_resamples"] == 1000
    assert s3["unit"] == "m3/s" and run.results["s2"].payload["n_years"] == 79
    assert {g["check"] for g in run.results["s3"].gates} == {"ci_finite", "spread_within", "max_return_period_factor",
                                                             "fit_envelopes_max"}
    assert all(g["passed"] for g in run.results["s3"].gates)
    assert "not the instantaneous peak" in run.results["s2"].payload["label"]


def test_a_replayed_study_gives_identical_numbers(flood_run):
    study, run = flood_run
    again = run_study(Study.from_yaml(study.to_yaml()))
    for sid in run.results:
        a, b = run.results[sid].payload, again.results[sid].payload
        a, b = ({k: v for k, v in p.items() if k != "meta"} for p in (a, b))
        assert a == b
        assert [g["seen"] for g in run.results[sid].gates] == [g["seen"] for g in again.results[sid].gates]


def test_verify_matches_numbers_at_their_written_precision():
    pool = {136.54, 0.9, 1249.6, 80.34, 0.0117}
    assert verify("The 100-year flood is 137 m3/s (90 % band).", pool | {100})["ok"]
    assert verify("It is 136.5 m3/s over 80.3 years, 1,250 in all; the spread is 1.2 %.", pool)["ok"]
    bad = verify("The design flow is 150 m3/s.", pool)
    assert not bad["ok"] and bad["unmatched"][0]["number"] == "150"
    # ids, dates, list numbering and code are not numbers to check
    assert verify("USGS 01440000 from 1945-01-01.\n1. Read `s3.fits[5]`.", set())["ok"]
    assert numbers_in("−3.5 and 2,000") == [
        {"text": "−3.5", "value": -3.5, "decimals": 1, "percent": False},
        {"text": "2,000", "value": 2000.0, "decimals": 0, "percent": False}]
    assert matches({"value": 25.0, "decimals": 0, "percent": True}, {0.25})


def test_plan_branch_prefixes_ids_and_rewrites_references(recon):
    steps = playbooks.plan_branch("flood_risk", recon, {"return_period": 100}, "at_site", prefix="alt")
    assert [s.id for s in steps] == ["alt_s1", "alt_s2", "alt_s3", "alt_s4", "alt_s6"]
    s3 = steps[2]
    assert s3.depends_on == ["alt_s2"] and s3.arguments["values"] == "{{ result.alt_s2.values }}"
    study = Study.from_dict({"version": 3, "steps": [s.to_dict() for s in steps]})
    assert validate_plan(study, site=recon["context"]) == []
    with pytest.raises(Exception, match="no branch 'nowhere'"):
        playbooks.plan_branch("flood_risk", recon, {}, "nowhere")


def test_companions_are_named_by_the_primary_playbook_and_the_text():
    assert playbooks.companions("Design flow for a road crossing", "flood_risk") == []
    assert playbooks.companions("", "flood_risk") == []
