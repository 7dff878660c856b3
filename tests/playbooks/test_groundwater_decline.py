"""The groundwater_decline playbook at sites x the branch each reaches, planned and run keyless.

The only real groundwater record held is the Schwingbach site 24 head (Hesse, 2014-2016, no coordinates), so it
reaches a study only as the user's upload, written here from the embedded catalogue and placed at a Hesse site
the test names: the short-record branch. A one-year slice of it is declined as too short; a site with no level
record (Flat Brook, the open Atlantic) is declined with the request for the well record. No embedded record
reaches the long-record branch: a reconnaissance constructed as a 12-year record would present it plans that
branch, and its run shows the gates refusing the three real years behind it."""

from __future__ import annotations

import copy

import pytest

from aquascope_core import playbooks
from aquascope_core.data import get_source
from aquascope_core.errors import DeclinedError
from roles.specialists import decide, key_numbers
from tests.playbooks.harness import plan_and_run

HESSE = (50.50, 8.58)  # near Rechtenbach, where Schwingbach site 24 lies
FLAT_BROOK = (41.10, -74.96)
ATLANTIC = (30.0, -40.0)


def well_csv(start: str | None = None) -> str:
    s = get_source("spotpy_hesse").fetch_series("schwingbach_site24", "groundwater_level")
    s = s[start:] if start else s
    return "date,gwhead (m)\n" + "".join(f"{t.date()},{v}\n" for t, v in s.items())


def answer(outcome) -> dict:
    run = outcome.run.to_dict()
    brief = {"kind": "groundwater_decline", "intake": outcome.study.problem["params"]}
    return decide("groundwater_decline", brief, outcome.study.to_dict(), run, key_numbers(run))


@pytest.mark.parametrize("lat,lon,intake,tables,expected", [
    (*HESSE, {}, {"schwingbach_well.csv": None}, "short_record"),
    (*HESSE, {"decision": "abstraction licensing", "period": "2014-2016"}, {"schwingbach_well.csv": None}, "short_record"),
    (*HESSE, {}, {"well_2016.csv": "2016-01-01"}, "declined"),
    (*FLAT_BROOK, {}, None, "declined"),
    (*ATLANTIC, {}, None, "declined"),
], ids=["schwingbach-upload", "schwingbach-licensing", "one-year-upload", "flat-brook", "atlantic"])
def test_sites_reach_their_branch(lat, lon, intake, tables, expected):
    uploads = {name: well_csv(start) for name, start in (tables or {}).items()}
    out = plan_and_run("groundwater_decline", lat, lon, intake=intake, tables=uploads or None)
    if expected == "declined":
        assert out.study is None and out.declined
        return
    assert out.branch == expected and out.run.ok
    assert all(r.gates and all(g["passed"] for g in r.gates) for r in out.run.results.values())
    dec = answer(out)
    assert dec["value"] == pytest.approx(0.105, abs=5e-4) and dec["basis"] == "s2.sen_slope"


def test_the_schwingbach_well_is_rising_over_its_three_years_a_screening_figure():
    out = plan_and_run("groundwater_decline", *HESSE, tables={"schwingbach_well.csv": well_csv()})
    assert [s.tool for s in out.study.steps] == ["station_record", "groundwater_level_trend"]
    assert out.study.step("s2").arguments["basis"] == "seasonal"
    assert any("marginal" in n for n in out.study.plan["notes"])
    p = out.run.results["s2"].payload
    assert p["seasonal"] == {"n_years": 3, "n_months": 31} and p["monthly"]["n_missing"] == 5
    assert p["trend"] == "increasing" and p["p_value"] == pytest.approx(0.0138, abs=5e-5)
    assert p["sen_slope_ci"][0] == pytest.approx(0.0293, abs=5e-5) and p["sen_slope_ci"][1] == pytest.approx(0.1755, abs=5e-5)
    dec = answer(out)
    assert dec["declining"] is False
    assert dec["answer"].startswith("Screening only: the groundwater level at schwingbach_well.csv is rising, not "
                                    "declining: the seasonal Kendall slope of the monthly mean levels over 3 calendar "
                                    "years is 0.105 m per year (95 % interval 0.0293 to 0.175)")
    assert "one wet or dry year decides the sign" in dec["answer"]


def test_declines_say_why_and_ask_for_the_well_record():
    recon_fb = plan_and_run("groundwater_decline", *FLAT_BROOK, execute=False).recon
    with pytest.raises(DeclinedError) as e:
        playbooks.plan("groundwater_decline", recon_fb, {})
    assert e.value.message.startswith("No groundwater level record was found within 50 km of the site")
    assert "Bring your well record" in e.value.message and e.value.recovery.startswith("Bring your well record")
    short = plan_and_run("groundwater_decline", *HESSE, tables={"well_2016.csv": well_csv("2016-01-01")})
    assert short.declined.startswith("The groundwater level record within reach holds 0.93 years of values")  # the inventory's figure, as its table prints it


def test_long_record_branch_from_a_constructed_recon_and_the_gates_refuse_what_it_overstates():
    tables = {"schwingbach_well.csv": well_csv()}
    real = plan_and_run("groundwater_decline", *HESSE, tables=tables, execute=False).recon
    recon = copy.deepcopy(real)
    recon["context"]["years_by_variable"]["groundwater_level"] = 12.0
    for v in recon["stations"][0]["variables"]:
        if v["variable"] == "groundwater_level":
            v["years"] = 12.0
    out = plan_and_run("groundwater_decline", *HESSE, tables=tables, recon=recon)
    assert out.branch == "long_record"
    assert [s.tool for s in out.study.steps] == ["station_record", "groundwater_level_trend"]
    notes = " ".join(out.study.plan["notes"])
    assert "s3 (Standardised Groundwater level Index) dropped" in notes and "s5 (From rainfall to groundwater levels) dropped" in notes
    s2 = out.study.step("s2")
    assert s2.arguments["basis"] == "annual" and {"check": "min_years", "value": 10, "path": "annual.n_years"} in s2.expects
    run = out.run
    assert not run.ok and run.stopped_at == "s1"
    assert "2.64 years of record against at least 10 required" in run.results["s1"].failed_reason  # its values, not its span
    assert run.results["s2"].status == "not_run"
    assert answer(out)["answer"].startswith("Whether the groundwater level at schwingbach_well.csv is declining is not "
                                            "established")


def test_intake_and_routing():
    from roles.consultant import choose_playbook, read_intake

    assert playbooks.coerce_intake("groundwater_decline", {}) == {"period": "whole record", "decision": "monitoring"}
    text = "Is the groundwater level at our borehole declining since the 1990s? We need it for abstraction licensing."
    assert choose_playbook(text)[0] == "groundwater_decline"
    assert read_intake("groundwater_decline", "Water table falling from 1995 to 2010?") == {"period": "1995-2010"}
    assert read_intake("groundwater_decline", text)["decision"] == "abstraction licensing"


def test_the_crew_answers_the_groundwater_question_end_to_end(tmp_path):
    from graphs.studio import Studio

    with Studio(lat=HESSE[0], lon=HESSE[1], data={"schwingbach_well.csv": well_csv()},
                checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}", artifact_root=str(tmp_path / "art")) as s:
        r = s.say("Is the groundwater level in our well declining?")
        assert r.kind == "plan" and "Screening trend of monthly levels from a short record" in r.text
        r = s.approve()
        assert r.kind == "report" and r.payload["critique_ok"] is True
        slope = s.workspace().run["results"]["s2"]["payload"]["sen_slope"]
        assert f"{slope:.3g} m per year" in r.text and r.text.startswith("Screening only")


def test_the_record_length_is_one_value_wherever_it_is_stated():
    """The well's record has days without a reading (between 2014-01-01 and 2016-12-31): its length was stated as
    2.67 years (the inventory's table), 2.7 (the branch's sentence, rounded again) and 3 (the record step's span, its
    gate and the method's adequacy note). Its length is its values in years, one figure everywhere; the days of the
    span without a value are its missing ones; the calendar years the seasonal test compares are said as a count."""
    from datetime import date

    from aquascope_core.registry import assess_method

    out = plan_and_run("groundwater_decline", *HESSE, tables={"schwingbach_well.csv": well_csv()})
    held = next(v for v in out.recon["stations"][0]["variables"] if v["variable"] == "groundwater_level")
    years = f"{held['years']:.3g}"
    s1 = out.run.results["s1"].payload
    span_days = (date.fromisoformat(s1["period"]["end"]) - date.fromisoformat(s1["period"]["start"])).days + 1
    assert f"{s1['years_of_values']:.3g}" == years != f"{s1['years']:.3g}"
    assert s1["n_missing"] == span_days - s1["n_values"] > 0
    assert f"holds only {years} years of groundwater levels" in out.study.plan["rationale"]
    gate = next(g for g in out.run.results["s1"].gates if g["check"] == "min_years")
    assert gate["detail"].startswith(f"{years} years of record"), gate["detail"]
    seasonal = next(g for g in out.run.results["s2"].gates if g["check"] == "min_years")
    assert "years with values" in seasonal["detail"], seasonal["detail"]
    note = assess_method("groundwater_level_trend", out.recon["context"])["reason"]
    assert note.startswith(f"{years} years of groundwater level"), note
