"""The figure makers on real studies: every kind drawn from a real payload (real tools on the embedded data and
the reference uploads), PNG at the house resolution, SVG that parses, captions numbered in report order, and the
figures of a run exactly those its plan names, less the ones skipped with a reason."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

import pytest

from aquascope_core.catalogue import TOOLS, callables, step_outputs
from aquascope_core.deliverables.figures import FIGURE_KINDS, FigureDataMissing, draw, figure_outputs, figures_for_study
from aquascope_core.deliverables.style import DPI
from aquascope_core.errors import InputError
from tests.playbooks.harness import plan_and_run
from tests.playbooks.test_groundwater_decline import well_csv
from tests.playbooks.test_water_quality import au_saumon_readings, devon_long

pytestmark = pytest.mark.slow

FLAT_BROOK = (41.10, -74.96)
BIG_SANDY = (36.0, -88.2)
LEAF = (31.7069, -89.4069)
OAKOHAY = (31.866667, -89.5475)

STUDIES = {
    "flood": ("flood_risk", FLAT_BROOK, {"return_period": 100}, None),
    "bulletin17c": ("flood_risk", BIG_SANDY, {"return_period": 100}, None),
    "drought": ("drought_status", LEAF, {}, None),
    "streamflow_drought": ("drought_status", FLAT_BROOK, {}, None),
    "transfer": ("ungauged_flow", (40.83, -75.09), {"area_km2": 11745.6}, None),
    "gr4j": ("ungauged_flow", OAKOHAY, {"area_km2": 442.9, "flows": ["mean_flow", "low_flows", "baseflow_index"]},
             None),
    "reservoir": ("supply_reliability", FLAT_BROOK, {"demand": 0.5, "storage_hm3": 2}, None),
    "irrigation": ("irrigation_feasibility", LEAF, {"crop": "maize", "planting_month": 4, "area_ha": 50}, None),
    "groundwater": ("groundwater_decline", (50.50, 8.58), {}, lambda: {"schwingbach_well.csv": well_csv()}),
    "water_quality": ("water_quality", (53.36, -113.73), {}, lambda: {"devon_1997.csv": devon_long()}),
    "water_quality_trend": ("water_quality", (45.48, -71.50), {},
                            lambda: {"au_saumon_4.csv": au_saumon_readings("air temperature", "precipitation", "runoff",
                                                                           "potential evapotranspiration")}),
}


@pytest.fixture(scope="module")
def drawn():
    """name -> (study dict, run dict, recon, figures, skipped), each study planned, run and drawn once."""
    out = {}
    for name, (playbook, (lat, lon), intake, tables) in STUDIES.items():
        o = plan_and_run(playbook, lat, lon, intake=intake, tables=tables() if tables else None)
        assert o.study is not None, (name, o.declined)
        study, run = o.study.to_dict(), o.run.to_dict()
        skipped: list[dict] = []
        figs = figures_for_study(study, run, inventory=o.recon, skipped=skipped)
        out[name] = (study, run, o.recon, figs, skipped)
    return out


@pytest.fixture(scope="module")
def tool_figures() -> list[dict]:
    """The kinds no playbook step reaches on the embedded data, from their tools run on real records."""
    fn = callables()
    fb = {"source": "usgs", "station_id": "01440000"}
    cases = [("baseflow", fn["lyne_hollick_baseflow"](**fb)), ("baseflow", fn["eckhardt_baseflow"](**fb)),
             ("annual_means", fn["mean_annual_flow"](**fb)), ("annual_minima", fn["annual_minimum_flows"](**fb)),
             ("regime", fn["flow_seasonality"](**fb)),
             ("monthly_climate", fn["potential_evapotranspiration_oudin"](source="holmes", station_id="au_saumon",
                                                                          latitude_deg=45.5))]
    return [draw(kind, payload, number=i + 1) for i, (kind, payload) in enumerate(cases)]


def _png_dpi(png: bytes) -> tuple[float, float]:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as im:
        im.verify()
        return im.info["dpi"]


def test_every_figure_kind_is_drawn_from_a_real_payload(drawn, tool_figures):
    kinds = {f["kind"] for (*_, figs, _skipped) in drawn.values() for f in figs}
    kinds |= {f["kind"] for f in tool_figures}
    assert kinds == set(FIGURE_KINDS)


def test_png_at_the_house_resolution_and_svg_that_parses(drawn, tool_figures):
    figs = [f for (*_, fs, _s) in drawn.values() for f in fs] + tool_figures
    for f in figs:
        assert f["png"].startswith(b"\x89PNG"), f["id"]
        dpi = _png_dpi(f["png"])
        assert round(dpi[0]) == round(dpi[1]) == DPI >= 150, (f["id"], dpi)
        root = ET.fromstring(f["svg"])
        assert root.tag.endswith("svg"), f["id"]
        assert len(f["png"]) > 10_000, f"{f['id']} looks empty"


def test_figures_are_numbered_in_report_order_with_the_site_map_first(drawn):
    for name, (study, _run, _recon, figs, _skipped) in drawn.items():
        assert [f["number"] for f in figs] == list(range(1, len(figs) + 1)), name
        assert figs[0]["kind"] == "site_map" and figs[0]["step"] is None, name
        order = [s["id"] for s in study["steps"]]
        steps = [order.index(f["step"]) for f in figs[1:]]
        assert steps == sorted(steps), name
        for f in figs:
            assert f["id"] == f"fig-{f['number']}-{f['kind']}"
            assert f["caption"].startswith(f"Figure {f['number']}. ") and f["caption"].endswith("."), f["caption"]


def test_the_figures_drawn_are_exactly_those_the_plan_names_less_the_skipped(drawn):
    for name, (study, _run, _recon, figs, skipped) in drawn.items():
        named = [(s["id"], o["id"]) for s in study["steps"] for o in figure_outputs(s)]
        got = [(f["step"], f["kind"]) for f in figs[1:]]
        left = [(s["step"], s["kind"]) for s in skipped]
        assert sorted(got + left) == sorted(named), name
        assert all(s["reason"] for s in skipped), name


def test_the_plans_caption_is_the_figures_caption(drawn):
    study, _run, _recon, figs, _skipped = drawn["flood"]
    caption = {(s["id"], o["id"]): o["caption"] for s in study["steps"] for o in figure_outputs(s)}
    fc = next(f for f in figs if f["kind"] == "frequency_curve")
    assert fc["caption"].startswith(f"Figure {fc['number']}. {caption[fc['step'], 'frequency_curve']}.")
    assert "Cunnane plotting positions" in fc["caption"] and "100-year design return period" in fc["caption"]


def test_a_trend_test_is_drawn_on_the_annual_maxima_and_not_again(drawn):
    _study, _run, _recon, figs, skipped = drawn["flood"]
    am = next(f for f in figs if f["kind"] == "annual_maxima")
    assert "Sen's slope" in am["caption"] and "Mann-Kendall" in am["caption"]
    assert not any(f["kind"] == "trend" for f in figs)
    assert am["shows_steps"] == [am["step"], "s4"]
    assert {"kind": "trend", "step": "s4", "reason": f"shown in Figure {am['number']}"} in skipped


def test_bulletin17c_curve_shows_the_historical_record(drawn):
    _study, _run, _recon, figs, _skipped = drawn["bulletin17c"]
    fc = next(f for f in figs if f["kind"] == "frequency_curve")
    assert "Hirsch-Stedinger" in fc["caption"]
    svg = fc["svg"].decode()
    assert "historical peaks" in svg and "perception threshold 18,000 (1890-1929)" in svg


def test_a_step_not_established_is_skipped_with_its_reason(drawn):
    # every step of every run that was not established: its figures are skipped, with the run's reason
    for name, (study, run, _recon, figs, skipped) in drawn.items():
        for s in study["steps"]:
            res = run["results"].get(s["id"]) or {}
            if figure_outputs(s) and res.get("status") != "ok":
                rows = [r for r in skipped if r["step"] == s["id"]]
                assert rows and all(r["reason"].startswith(f"step {s['id']} was not established") for r in rows), name
                assert not any(f["step"] == s["id"] for f in figs), name
    # and the flood frequency step of the flagship study, failed by a gate, loses its two figures
    study, run, recon, _figs, _skipped = drawn["flood"]
    run = json.loads(json.dumps(run))
    run["results"]["s3"].update(status="failed", failed_reason="gate spread_within failed")
    skipped: list[dict] = []
    figs = figures_for_study(study, run, skipped=skipped)
    assert [(r["kind"], r["reason"]) for r in skipped if r["step"] == "s3"] == [
        ("frequency_curve", "step s3 was not established (gate spread_within failed)"),
        ("lmoment_diagram", "step s3 was not established (gate spread_within failed)")]
    assert [f["kind"] for f in figs] == ["series", "annual_maxima"]


def test_a_payload_lacking_its_series_skips_cleanly_never_an_empty_panel(drawn):
    study, run, recon, figs, _skipped = drawn["flood"]
    run = json.loads(json.dumps(run))
    del run["results"]["s1"]["payload"]["plot"]
    skipped: list[dict] = []
    again = figures_for_study(study, run, skipped=skipped)
    assert [f["kind"] for f in again] == [f["kind"] for f in figs[1:] if f["kind"] != "series"]
    assert skipped[0]["kind"] == "series" and "'plot'" in skipped[0]["reason"]
    with pytest.raises(FigureDataMissing, match="needs 'plot'"):
        draw("series", run["results"]["s1"]["payload"], number=1)


def test_bad_arguments_are_refused_with_what_would_do():
    with pytest.raises(InputError, match="a figure kind, one of"):
        draw("pie_chart", {}, number=1)
    with pytest.raises(InputError, match="positive whole number"):
        draw("series", {"plot": {}}, number=0)
    with pytest.raises(FigureDataMissing, match="needs a payload"):
        draw("series", None, number=1)


def test_the_site_map_reads_a_workspace_inventory_as_well_as_the_recon(drawn):
    _study, _run, recon, figs, _skipped = drawn["flood"]
    ws_inventory = {"site": recon["point"], "datasets": [], "recon": recon}
    a = draw("site_map", ws_inventory, number=1)
    assert a["caption"] == figs[0]["caption"]
    assert "25 stations within reach" in a["caption"]


def test_every_plan_names_the_catalogues_figures_and_tables_for_its_tools(drawn):
    for name, (study, *_rest) in drawn.items():
        for s in study["steps"]:
            outs = s.get("outputs") or []
            assert outs == step_outputs(s["tool"], outs), (name, s["id"])
            spec = TOOLS[s["tool"]]
            assert {o["id"] for o in outs if o["kind"] == "figure"} == set(spec.figures), (name, s["id"])


def test_payload_plot_series_stay_small(drawn):
    _study, run, *_ = drawn["flood"]
    p = run["results"]["s1"]["payload"]
    assert p["plot"]["form"] == "monthly" and p["plot"]["start"] == "1945-01" and len(p["plot"]["mean"]) == 965
    assert len(json.dumps(p["plot"])) < 25_000
    _study, run, *_ = drawn["gr4j"]
    plot = run["results"]["s2"]["payload"]["plot"]
    assert len(plot["dates"]) == len(plot["observed"]) == len(plot["simulated"]) == 360


def test_the_drawn_pearson3_ratio_curve_follows_the_exact_tau4():
    """The L-moment diagram's PE3 curve (a polynomial, for speed) stays within 5e-4 of the exact quadrature."""
    import numpy as np

    from aquascope_core.deliverables import figures_flood
    from aquascope_core.methods.lmoments import tau4_on_curve

    drawn = dict(zip(figures_flood._T3_GRID, figures_flood._curve("pe3")))
    at = [-0.1, 0.0, 0.2, 0.3]  # points where the quadrature is quick
    exact = tau4_on_curve("pe3", np.array(at))
    assert np.max(np.abs(np.array([drawn[t] for t in at]) - exact)) < 5e-4
    assert abs(drawn[0.0] - 0.1226) < 1e-3  # the normal distribution's tau4, 0.1226 (Hosking & Wallis 1997)
