"""The supply_reliability playbook at real sites: each row planned and run keyless on the embedded data (or the
user's upload), with the branch it must take or the sentence it must decline with, and its key numbers.

Sites: Flat Brook near Flatbrookville NJ (USGS 01440000, 80 years, reference catchment); the Delaware at
Montague NJ (01438500, regulated by the New York City reservoirs); the Leaf River near Collins MS (HOLMES
runoff depth in mm/d, converted with its 1,924.4 km2); the Fulda catchment's 10 years of daily discharge
(spotpy example data) uploaded at a site in Hesse; a point in the Atlantic.
"""

from __future__ import annotations

import pandas as pd
import pytest

from aquascope_core import playbooks
from aquascope_core.data import get_source
from roles.consultant import choose_playbook, read_intake
from roles.specialists import decide, key_numbers
from tests.playbooks.harness import plan_and_run

FLAT_BROOK = (41.10, -74.96)
MONTAGUE = (41.309, -74.795)
LEAF = (31.7069, -89.4069)
HESSE = (50.55, 9.68)  # Fulda, where the test places the Fulda discharge upload
ATLANTIC = (30.0, -40.0)


def _fulda_discharge() -> dict[str, str]:
    q = get_source("spotpy_hesse").fetch_series("fulda", "discharge")
    return {"fulda_q.csv": pd.DataFrame({"date": q.index.strftime("%Y-%m-%d"), "Q (m3/s)": q.to_numpy()}).to_csv(index=False)}


# (site, intake, tables, expected): expected holds the branch (or the decline's words), the steps that must fail
# (with words of their reason), key numbers at result paths (value, absolute tolerance), and caveat words.
ROWS = [
    pytest.param(FLAT_BROOK, {"demand": 0.5, "storage_hm3": 2}, None,
                 {"branch": "reservoir", "numbers": {"s1.mean_flow_m3s": (3.3025, 1e-3), "s2.reliability_time_pct": (99.9, 0.05),
                                                     "s3.required_storage_hm3": (2.272, 1e-3)},
                  "verdict": "meets_target"}, id="flat-brook-reservoir"),
    pytest.param(FLAT_BROOK, {"demand": 0.5}, None,
                 {"branch": "run_of_river", "numbers": {"s2.reliability_time_pct": (89.48, 0.01), "s2.longest_spell_days": (61, 0),
                                                        "s3.days_flow_reaches_need_pct": (89.48, 0.01)},
                  "verdict": "below_target"}, id="flat-brook-run-of-river"),
    pytest.param(FLAT_BROOK, {"demand": 10, "demand_unit": "hm3/year"}, None,
                 {"branch": "run_of_river", "numbers": {"s2.demand_m3s": (0.3169, 1e-4), "s2.reliability_time_pct": (96.40, 0.01)},
                  "verdict": "meets_target"}, id="flat-brook-volume-per-year"),
    pytest.param(MONTAGUE, {"demand": 20}, None,
                 {"branch": "run_of_river", "numbers": {"s2.reliability_time_pct": (99.71, 0.01)},
                  "caveat": "classed as regulated", "verdict": "meets_target"}, id="montague-regulated"),
    pytest.param(LEAF, {"demand": 5, "storage_hm3": 10}, None,
                 {"branch": "reservoir", "numbers": {"s1.mean_flow_m3s": (31.67, 0.01), "s2.reliability_time_pct": (96.51, 0.01),
                                                     "s3.required_storage_hm3": (37.0, 0.05)},
                  "verdict": "meets_target"}, id="leaf-runoff-depth-reservoir"),
    pytest.param(FLAT_BROOK, {"demand": 5, "storage_hm3": 2}, None,
                 {"branch": "reservoir", "failed": {"s3": "no finite storage meets this demand"},
                  "numbers": {"s1.demand.demand_to_mean_flow_pct": (151.4, 0.05), "s2.reliability_time_pct": (24.7, 0.05)},
                  "verdict": "infeasible"}, id="flat-brook-demand-above-mean-flow"),
    pytest.param(HESSE, {"demand": 12}, "fulda",
                 {"branch": "run_of_river", "note": "marginal here (10 years of discharge",
                  "numbers": {"s1.mean_flow_m3s": (31.33, 0.01)}}, id="fulda-upload-run-of-river"),
    pytest.param(HESSE, {"demand": 12, "storage_hm3": 3}, "fulda",
                 {"declined": "needs an inflow record of at least 20 years"}, id="fulda-upload-storage-too-short"),
    pytest.param(FLAT_BROOK, {}, None, {"declined": "No demand was stated"}, id="no-demand"),
    pytest.param(ATLANTIC, {"demand": 1}, None,
                 {"declined": "No daily discharge record of at least 10 years was found within 50 km"}, id="atlantic"),
]


def _value(run: dict, basis: str):
    step, _, path = basis.partition(".")
    from aquascope_core.paths import get_path

    return get_path(run["results"][step]["payload"], path)


@pytest.mark.parametrize("site,intake,tables,expected", ROWS)
def test_sites_and_branches(site, intake, tables, expected):
    out = plan_and_run("supply_reliability", *site, intake=intake, tables=_fulda_discharge() if tables else None)
    if "declined" in expected:
        assert out.branch is None and expected["declined"] in out.declined
        return
    assert out.branch == expected["branch"], out.declined
    run = out.run.to_dict()
    failed = {k: r for k, r in run["results"].items() if r["status"] != "ok"}
    assert set(failed) == set(expected.get("failed", {})), {k: r["failed_reason"] for k, r in failed.items()}
    for sid, words in expected.get("failed", {}).items():
        assert words in failed[sid]["failed_reason"]
    assert out.run.ok is (not expected.get("failed"))
    for basis, (value, tol) in expected["numbers"].items():
        assert _value(run, basis) == pytest.approx(value, abs=tol), basis
    if "caveat" in expected:
        assert any(expected["caveat"] in c for c in out.study.plan["caveats"])
    else:
        assert not any("regulated" in c for c in out.study.plan["caveats"])
    if "note" in expected:
        assert any(expected["note"] in n for n in out.study.plan["notes"])
    # the decision states its value, taken from the result it names
    brief = {"intake": playbooks.coerce_intake("supply_reliability", intake)}
    dec = decide("supply_reliability", brief, out.study.to_dict(), run, key_numbers(run))
    assert dec["value"] == _value(run, dec["basis"])
    assert f"{dec['value']:.1f} %" in dec["answer"]
    if "verdict" in expected:
        assert dec["verdict"] == expected["verdict"]


def test_the_infeasible_demand_is_said_with_the_numbers_of_the_inflow_record():
    out = plan_and_run("supply_reliability", *FLAT_BROOK, intake={"demand": 5, "storage_hm3": 2})
    run = out.run.to_dict()
    dec = decide("supply_reliability", {"intake": {"demand": 5, "reliability_target": 95}}, out.study.to_dict(), run,
                 key_numbers(run))
    assert dec["answer"].startswith("No: the demand of 5 m3/s is 151.4 % of the mean flow")
    assert "3.30 m3/s over 1945-01 to 2025-04" in dec["answer"] and "cannot be met over the record by any storage" in dec["answer"]
    assert dec["basis"] == "s1.demand.demand_to_mean_flow_pct"
    headline = [k for k in key_numbers(run) if k.get("headline")]
    assert "s1.demand.demand_to_mean_flow_pct" in [k["path"] for k in headline]


def test_the_plan_names_the_methods_and_validates():
    out = plan_and_run("supply_reliability", *FLAT_BROOK, intake={"demand": 0.5, "storage_hm3": 2}, execute=False)
    s = out.study
    assert [st.tool for st in s.steps] == ["inflow_record", "simulate_reservoir", "sequent_peak_storage", "trend_test"]
    assert [st.method for st in s.steps] == [None, "simulate_reservoir", "sequent_peak_storage", "mann_kendall"]
    assert s.step("s2").arguments["inflow_hm3"] == "{{ result.s1.monthly.volume_hm3 }}" and s.step("s2").depends_on == ["s1"]
    assert s.step("s2").arguments["storage_hm3"] == 2.0 and s.plan["citations"] and s.plan["methodology"]


@pytest.mark.parametrize("text,playbook,intake", [
    ("Can Flat Brook supply a town with 0.5 m3/s from a 2 hm3 reservoir at 95 % reliability?", "supply_reliability",
     {"demand": 0.5, "demand_unit": "m3/s", "storage_hm3": 2.0, "reliability_target": 95.0}),
    ("Water supply of 12 hm3 per year from the river, run-of-river", "supply_reliability",
     {"demand": 12.0, "demand_unit": "hm3/year", "storage_hm3": 0.0}),
    ("Is an abstraction of 300 l/s reliable 98% of the time?", "supply_reliability",
     {"demand": 300.0, "demand_unit": "l/s", "reliability_target": 98.0}),
])
def test_a_plain_question_routes_here_with_its_numbers(text, playbook, intake):
    assert choose_playbook(text)[0] == playbook
    assert read_intake(playbook, text) == intake


def test_the_crew_answers_end_to_end(tmp_path):
    """The keyless crew through the Studio: the answer states the reliability of the result, and the Critic passes."""
    from graphs.studio import Studio

    with Studio(*FLAT_BROOK, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}", artifact_root=tmp_path / "art") as s:
        r = s.say("Can Flat Brook supply a town with 0.5 m3/s from a 2 hm3 reservoir at 95 % reliability?")
        assert r.kind == "plan" and "Reservoir behaviour simulation" in r.text
        r = s.approve()
        ws = s.to_dict()
    assert r.kind == "report" and r.payload["critique_ok"] is True
    value = ws["run"]["results"]["s2"]["payload"]["reliability_time_pct"]
    assert f"{value:.1f} %" in r.text and "meeting the target of 95 %" in r.text
    assert ws["findings"]["decision"]["basis"] == "s2.reliability_time_pct"
    assert ws["report"]["critique_ok"] is True
