"""An edit of the plan rewrites its methodology (roles/review.py apply_review_edit through the links of
aquascope_core/methodology.py), on the plans the crew makes keyless at real sites: every optional step
dropped in turn takes its lines and its method's names, a changed argument is read in its line, and an added
step gets a line. The drought cases (SPEI and SPI dropped at the Leaf River) are the ones word matching missed."""

from __future__ import annotations

import copy

import pytest

from aquascope_core import methodology
from aquascope_core.workspace import Workspace
from roles.review import apply_review_edit
from tests.core.test_methodology import described_by, method_terms
from tests.playbooks.harness import plan_and_run

LEAF = (31.7069, -89.4069)
FLAT_BROOK = (41.10, -74.96)


def text(m) -> str:
    return m["text"] if isinstance(m, dict) else m


def plan_ws(playbook: str, lat: float, lon: float, intake: dict | None = None, tables: dict | None = None):
    out = plan_and_run(playbook, lat, lon, intake=intake, tables=tables, execute=False)
    assert out.study is not None, out.declined
    study = out.study
    study.id = "w"
    brief = {"playbook": playbook, "intake": dict(study.problem["params"]), "problem": ""}
    return Workspace(id="w", brief=brief, inventory={"recon": out.recon}, study=study.to_dict())


def edited(ws: Workspace, edit: dict) -> dict:
    trial = Workspace.from_dict(copy.deepcopy(ws.to_dict()))
    errors, _ = apply_review_edit(trial, edit)
    assert errors == [], errors
    return trial.study


def lines_of(study: dict) -> list[str]:
    """The methodology's words, without the line that records the review (it names what was dropped)."""
    return [text(m) for m in study["plan"]["methodology"] if not text(m).startswith("Changed at review")]


def assert_dropped_cleanly(before: dict, after: dict, gone: set[str]) -> None:
    words = " ".join(lines_of(after))
    kept = [st for st in after["steps"]]
    uses = " ".join(described_by(st) for st in kept)
    for m in after["plan"]["methodology"]:
        assert not set((m.get("steps") if isinstance(m, dict) else None) or []) & gone, m
    for st in before["steps"]:
        if st["id"] in gone:
            for term in method_terms(st):
                if term not in uses:
                    assert f" {term}" not in f" {words}", (st["id"], term, words)


# the plans the crew makes keyless at the embedded sites, one or more per playbook
PLANS = [
    ("drought_status", *LEAF, {}, None, "climate_record"),
    ("drought_status", *FLAT_BROOK, {}, None, "streamflow_record"),
    ("drought_status", *FLAT_BROOK, {"focus": "trend"}, None, "low_flow_trend"),
    ("flood_risk", *FLAT_BROOK, {"return_period": 100}, None, "at_site"),
    ("flood_risk", 36.037016, -88.229112, {"return_period": 100}, None, "bulletin17c"),
    ("flood_risk", 43.96875, -88.950306, {"return_period": 50}, None, "bulletin17c_published"),
    ("flood_risk", 39.967791, -75.188501, {"return_period": 100, "area_km2": 4902.8}, None, "regional"),
    ("supply_reliability", *FLAT_BROOK, {"demand": 0.5, "storage_hm3": 2}, None, "reservoir"),
    ("supply_reliability", *FLAT_BROOK, {"demand": 0.5}, None, "run_of_river"),
    ("ungauged_flow", 40.826389, -75.0825, {"area_km2": 11745.6}, None, "transfer"),
    ("irrigation_feasibility", *LEAF, {"crop": "maize", "area_ha": 50, "planting_month": 4}, None, "pet_record"),
    ("ungauged_flow", 31.866667, -89.5475, {"area_km2": 442.9, "flows": ["mean_flow", "low_flows", "baseflow_index"]},
     None, "rainfall_runoff"),
    # the user's tables, made by the playbook tests' own helpers
    ("flood_risk", *FLAT_BROOK, {"return_period": 25}, "flood_short", "short_record"),
    ("groundwater_decline", 50.55, 9.68, {}, "well", "short_record"),
    ("water_quality", 53.36, -113.73, {}, "devon", "index"),
    ("water_quality", 53.36, -113.73, {}, "devon_guidelines", "exceedances"),
    ("water_quality", 45.48, -71.50, {}, "au_saumon", "trend"),
]


def tables_for(name: str | None) -> dict | None:
    if name is None:
        return None
    if name == "flood_short":
        from tests.playbooks.test_flood_risk_branches import SHORT
        return SHORT
    if name == "well":
        from tests.playbooks.test_groundwater_decline import well_csv
        return {"schwingbach_well.csv": well_csv()}
    from tests.playbooks.test_water_quality import au_saumon_readings, devon_long
    return {"devon": {"devon_1997.csv": devon_long()}, "devon_guidelines": {"devon_1997.csv": devon_long(objectives=False)},
            "au_saumon": {"au_saumon_t.csv": au_saumon_readings("air temperature")}}[name]


@pytest.mark.parametrize("playbook,lat,lon,intake,tables,branch", PLANS, ids=[f"{p[0]}-{p[-1]}" for p in PLANS])
def test_each_optional_step_dropped_takes_its_lines_and_only_those(playbook, lat, lon, intake, tables, branch):
    ws = plan_ws(playbook, lat, lon, intake, tables_for(tables))
    before = ws.study
    assert before["plan"]["branch"] == branch
    ids = {st["id"] for st in before["steps"]}
    assert all(isinstance(m, dict) and set(m["steps"]) <= ids for m in before["plan"]["methodology"])
    for st in before["steps"]:
        if not st.get("optional"):
            continue
        after = edited(ws, {"drop": [st["id"]]})
        gone = {st["id"]} | {s["id"] for s in before["steps"]} - {s["id"] for s in after["steps"]}
        assert_dropped_cleanly(before, after, gone)
        # the lines of the steps that stay are all still there
        still = [text(m) for m in before["plan"]["methodology"]
                 if not isinstance(m, dict) or not m["steps"] or set(m["steps"]) - gone]
        assert lines_of(after) == still, st["id"]


def test_dropping_spei_at_the_leaf_river_takes_its_p_minus_pet_line():
    ws = plan_ws("drought_status", *LEAF)
    assert [s["id"] for s in ws.study["steps"]] == ["s1", "s2", "s3", "s4", "s5", "s6", "s7"]
    after = lines_of(edited(ws, {"drop": ["s3"]}))
    words = " ".join(after)
    assert "log-logistic" not in words and "P - PET" not in words and "SPEI" not in words, after
    assert "gamma" in words and "WMO SPI User Guide" in words and "(SSI)" in words


def test_dropping_spi_at_the_leaf_river_takes_its_gamma_line():
    """SPI is required, so the reviewer sends the plan whole without it (and the steps that read its series)."""
    ws = plan_ws("drought_status", *LEAF)
    study = copy.deepcopy(ws.study)
    study["steps"] = [s for s in study["steps"] if s["id"] not in ("s2", "s6", "s7")]
    after = lines_of(edited(ws, {"study": study}))
    words = " ".join(after)
    assert "gamma" not in words and "(SPI)" not in words, after
    assert "log-logistic" in words and "WMO SPI User Guide" in words  # SPEI and the classes stay


def test_a_changed_spi_scale_is_read_in_its_line():
    ws = plan_ws("drought_status", *LEAF)
    after = lines_of(edited(ws, {"steps": {"s2": {"arguments": {"scales": [1, 24]}}}}))
    assert any(m.startswith("Sum the precipitation") and m.endswith("over 1, 24 months.") for m in after), after
    assert any("P - PET accumulated over 3, 6, 12 months" in m for m in after)  # SPEI keeps its own scales
    after = lines_of(edited(ws, {"intake": {"timescales": [6]}}))
    assert any(m.endswith("accumulate the totals over 6 months.") for m in after), after


def test_a_changed_flood_return_period_and_confidence_are_read_in_their_lines():
    ws = plan_ws("flood_risk", *FLAT_BROOK, {"return_period": 100})
    after = lines_of(edited(ws, {"intake": {"return_period": 50}}))
    assert any(m.startswith("Accept the 50-year estimate") for m in after) and not any("100-year" in m for m in after)
    study = copy.deepcopy(ws.study)
    for g in next(s for s in study["steps"] if s["id"] == "s3")["expects"]:
        if "return_period" in g:
            g["return_period"] = 50  # the gates alone edited: the line follows the gate it quotes
    after = lines_of(edited(ws, {"study": study}))
    assert any(m.startswith("Accept the 50-year estimate") for m in after), after
    after = lines_of(edited(ws, {"steps": {"s3": {"arguments": {"confidence": 0.8}}}}))
    assert any("with 80 % parametric bootstrap bands (1,000 resamples" in m for m in after), after
    assert not any("90 % parametric" in m for m in after)


def test_an_added_step_gets_its_own_line():
    ws = plan_ws("flood_risk", *FLAT_BROOK, {"return_period": 100})
    study = copy.deepcopy(ws.study)
    s1 = study["steps"][0]["arguments"]
    study["steps"].append({"id": "s8", "tool": "flow_duration_curve", "title": "Flow duration curve",
                           "method": "flow_duration_curve", "rationale": "The reviewer asks for the flow regime too.",
                           "arguments": {"source": s1["source"], "station_id": s1["station_id"],
                                         "variable": "discharge"},
                           "depends_on": ["s1"], "expects": [{"check": "not_empty", "path": "quantiles.Q95"}]})
    after = edited(ws, {"study": study})
    line = next(m for m in after["plan"]["methodology"] if m.get("steps") == ["s8"])
    assert line["text"].startswith("Flow duration curve: Flow duration curve (Weibull plotting position)"), line
    assert lines_of(after)[:-1] == lines_of(ws.study)  # the plan's own lines are unchanged


def test_a_study_written_before_the_link_is_relinked_by_its_first_edit():
    ws = plan_ws("flood_risk", *FLAT_BROOK, {"return_period": 100})
    ws.study["plan"]["methodology"] = methodology.texts(ws.study["plan"]["methodology"])  # the old plain strings
    after = edited(ws, {"drop": ["s4"]})
    assert all(isinstance(m, dict) for m in after["plan"]["methodology"])
    assert not any("Mann-Kendall" in m for m in lines_of(after))
