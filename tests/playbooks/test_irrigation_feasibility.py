"""The irrigation_feasibility playbook at real sites: each row planned and run keyless on the embedded data (or
the user's upload), with the branch it must take or the sentence it must decline with, and its key numbers.

Sites: the Leaf River outlet near Collins MS (HOLMES: 31 years of daily rainfall, PET and runoff depth); the
Fulda catchment's daily Tmax, Tmin, rainfall and discharge (spotpy example data, no coordinates in the source)
uploaded as the user's CSV at a site in Hesse; Flat Brook NJ (discharge only); a point in the Atlantic.
"""

from __future__ import annotations

import pandas as pd
import pytest

from aquascope_core import playbooks
from aquascope_core.data import get_source
from aquascope_core.paths import get_path
from roles.consultant import choose_playbook, read_intake
from roles.specialists import decide, key_numbers
from tests.playbooks.harness import plan_and_run

LEAF = (31.7069, -89.4069)
HESSE = (50.55, 9.68)  # Fulda, where the test places the Fulda uploads
FLAT_BROOK = (41.10, -74.96)
ATLANTIC = (30.0, -40.0)

_COLUMNS = {"tmax": ("tmax (degC)", "air_temperature_max"), "tmin": ("tmin (degC)", "air_temperature_min"),
            "p": ("precip (mm/d)", "precipitation"), "q": ("Q (m3/s)", "discharge")}


def fulda_csv(*names: str) -> dict[str, str]:
    """The Fulda record's columns ``names`` written as the user's CSV."""
    src = get_source("spotpy_hesse")
    idx = src.fetch_series("fulda", "precipitation").index
    frame = pd.DataFrame({"date": idx.strftime("%Y-%m-%d")})
    for n in names:
        column, variable = _COLUMNS[n]
        frame[column] = src.fetch_series("fulda", variable).to_numpy()
    return {"fulda.csv": frame.to_csv(index=False)}


MAIZE_APRIL = {"crop": "maize", "area_ha": 50, "planting_month": 4}

# (site, intake, upload columns, expected): the branch (or the decline's words), the steps that must not be
# established or were dropped, key numbers at result paths (value, absolute tolerance), the verdict.
ROWS = [
    pytest.param(LEAF, MAIZE_APRIL, None,
                 {"branch": "pet_record", "numbers": {"s2.mean_annual_mm": (1049.0, 0.5), "s3.mean.gross_mm": (252.3, 0.05),
                                                      "s3.design.gross_mm": (314.4, 0.05),
                                                      "s3.design.peak_l_per_s_per_ha": (0.7409, 1e-4),
                                                      "s3.area.design_peak_l_per_s": (37.05, 0.01),
                                                      "s4.reliability_time_pct": (100.0, 0)},
                  "verdict": "supply_sufficient"}, id="leaf-maize-50ha"),
    pytest.param(LEAF, {**MAIZE_APRIL, "area_ha": 20000}, None,
                 {"branch": "pet_record", "numbers": {"s4.reliability_time_pct": (55.65, 0.01),
                                                      "s4.reliability_annual_pct": (9.68, 0.01)},
                  "verdict": "supply_short"}, id="leaf-maize-20000ha-short"),
    pytest.param(LEAF, {"crop": "cotton", "planting_month": 5}, None,
                 {"branch": "pet_record", "not_established": {"s4": "'area' not found"},
                  "numbers": {"s3.design.gross_mm": (438.0, 0.05)}, "verdict": "supply_not_established"},
                 id="leaf-cotton-no-area"),
    pytest.param(HESSE, {"crop": "potato", "area_ha": 20, "planting_month": 4}, ("tmax", "tmin", "p"),
                 {"branch": "temperature", "note": "dropped: no station with discharge within reach",
                  "numbers": {"s2.mean_annual_mm": (732.0, 0.5), "s3.design.gross_mm": (415.7, 0.05),
                              "s3.n_seasons": (10, 0)},
                  "verdict": "demand_only"}, id="fulda-upload-temperature"),
    pytest.param(HESSE, {"crop": "maize", "area_ha": 3000, "planting_month": 5}, ("tmax", "tmin", "p", "q"),
                 {"branch": "temperature", "note": "marginal here (10 years of discharge",
                  "numbers": {"s3.area.design_peak_l_per_s": (1961.1, 0.05), "s4.reliability_time_pct": (100.0, 0),
                              "s4.n_years": (10, 0)},
                  "verdict": "supply_sufficient"}, id="fulda-upload-temperature-and-river"),
    pytest.param(HESSE, MAIZE_APRIL, ("p",), {"declined": "neither potential evapotranspiration nor daily maximum"},
                 id="fulda-upload-rain-only"),
    pytest.param(FLAT_BROOK, MAIZE_APRIL, None,
                 {"declined": "No daily precipitation record of at least 5 years was found within 50 km"}, id="flat-brook"),
    pytest.param(ATLANTIC, MAIZE_APRIL, None, {"declined": "No daily precipitation record"}, id="atlantic"),
    pytest.param(LEAF, {"area_ha": 50, "planting_month": 4}, None, {"declined": "No crop was named"}, id="no-crop"),
    pytest.param(LEAF, {"crop": "rice", "area_ha": 50}, None, {"declined": "No planting month was given"},
                 id="no-planting-month"),
]


@pytest.mark.parametrize("site,intake,upload,expected", ROWS)
def test_sites_and_branches(site, intake, upload, expected):
    out = plan_and_run("irrigation_feasibility", *site, intake=intake, tables=fulda_csv(*upload) if upload else None)
    if "declined" in expected:
        assert out.branch is None and expected["declined"] in out.declined
        return
    assert out.branch == expected["branch"], out.declined
    run = out.run.to_dict()
    missing = {k: r for k, r in run["results"].items() if r["status"] != "ok"}
    assert set(missing) == set(expected.get("not_established", {})), {k: r["failed_reason"] for k, r in missing.items()}
    for sid, words in expected.get("not_established", {}).items():
        assert words in missing[sid]["failed_reason"] and missing[sid]["optional"]
    assert out.run.ok  # the supply check is optional: the demand stands without it
    for basis, (value, tol) in expected["numbers"].items():
        step, _, path = basis.partition(".")
        assert get_path(run["results"][step]["payload"], path) == pytest.approx(value, abs=tol), basis
    if "note" in expected:
        assert any(expected["note"] in n for n in out.study.plan["notes"])
    brief = {"intake": playbooks.coerce_intake("irrigation_feasibility", intake)}
    dec = decide("irrigation_feasibility", brief, out.study.to_dict(), run, key_numbers(run))
    assert dec["basis"] == "s3.design.gross_mm" and dec["value"] == run["results"]["s3"]["payload"]["design"]["gross_mm"]
    assert f"{dec['value']:.0f} mm of gross irrigation in the design season" in dec["answer"]
    assert dec["verdict"] == expected["verdict"]


def test_the_supply_check_takes_the_demand_schedule_at_run_time():
    out = plan_and_run("irrigation_feasibility", *LEAF, intake=MAIZE_APRIL, execute=False)
    s4 = out.study.step("s4")
    assert s4.tool == "run_of_river_reliability" and s4.method == "supply_reliability"
    assert s4.arguments["demand_schedule"] == "{{ result.s3.area.schedule }}" and s4.depends_on == ["s3"]
    assert s4.arguments["source"] == "catalogue" and s4.arguments["station_id"] == "02472000"
    assert out.study.step("s3").arguments["et0_method"] == "record"
    assert any("supply check takes the gauge's flow" in c for c in out.study.plan["caveats"])


def test_the_runoff_depth_is_converted_for_the_supply_check():
    out = plan_and_run("irrigation_feasibility", *LEAF, intake=MAIZE_APRIL)
    s4 = out.run.results["s4"].payload
    assert s4["conversion"]["from_unit"] == "mm/d" and s4["conversion"]["area_km2"] == pytest.approx(1924.4)
    s3 = out.run.results["s3"].payload
    # the schedule's flows are the design-area gross demand of each month spread over its days
    assert s4["peak_demand_m3s"] == pytest.approx(max(s3["area"]["schedule"]["m3s"]))


@pytest.mark.parametrize("text,intake", [
    ("Is it feasible to irrigate 50 ha of maize planted in April at the Leaf River outlet?",
     {"crop": "maize", "area_ha": 50.0, "planting_month": 4}),
    ("Irrigation of 120 hectares of winter wheat sown in late October, drip at 90 % efficiency",
     {"crop": "wheat_winter", "area_ha": 120.0, "planting_month": 10, "application_efficiency": 0.9}),
    ("How much water do 12.5 ha of corn need if planted mid-May?", {"crop": "maize", "area_ha": 12.5, "planting_month": 5}),
])
def test_a_plain_question_routes_here_with_its_numbers(text, intake):
    assert choose_playbook(text)[0] == "irrigation_feasibility"
    assert read_intake("irrigation_feasibility", text) == intake


def test_the_crew_answers_end_to_end(tmp_path):
    """The keyless crew through the Studio at the Leaf River outlet: the answer states the design-season demand
    of the result, and the Critic passes."""
    from graphs.studio import Studio

    with Studio(*LEAF, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}", artifact_root=tmp_path / "art") as s:
        r = s.say("Is it feasible to irrigate 50 ha of maize planted in April at the Leaf River outlet?")
        assert r.kind == "plan"
        r = s.approve()
        ws = s.to_dict()
    assert r.kind == "report" and r.payload["critique_ok"] is True
    gross = ws["run"]["results"]["s3"]["payload"]["design"]["gross_mm"]
    assert f"needs {gross:.0f} mm of gross irrigation in the design season" in r.text
    assert ws["findings"]["decision"]["basis"] == "s3.design.gross_mm"
    assert ws["study"]["plan"]["branch"] == "pet_record"


def test_the_crew_answers_from_an_upload(tmp_path):
    """The Fulda temperatures and rainfall as the user's table at a Hesse site: the temperature branch end to end."""
    from graphs.studio import Studio

    with Studio(*HESSE, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}", artifact_root=tmp_path / "art",
                data=fulda_csv("tmax", "tmin", "p")) as s:
        r = s.say("Irrigation demand of 20 ha of potatoes planted in April?")
        assert r.kind == "plan" and "Hargreaves" in r.text
        r = s.approve()
        ws = s.to_dict()
    assert r.kind == "report" and r.payload["critique_ok"] is True
    gross = ws["run"]["results"]["s3"]["payload"]["design"]["gross_mm"]
    assert f"needs {gross:.0f} mm" in r.text and "No river gauge" in r.text
