"""The catalogue, the figure kinds and the plans kept in step; the engine imports without matplotlib; the house
style; plot blocks are drawings, not quotable numbers."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from aquascope_core.catalogue import TOOLS, fill_outputs, step_outputs, validate_step
from aquascope_core.deliverables.figures import FIGURE_KINDS, SITE_MAP, figure_outputs
from aquascope_core.deliverables.style import COLOURS, DPI, PALETTE, RC, house_style
from aquascope_core.study import Step, Study
from aquascope_core.verify import number_pool
from tests.playbooks.harness import plan_and_run

# The README's studies that run on the embedded data alone (the upload ones are planned in test_figures.py).
README_SITES = [
    ("flood_risk", 41.10, -74.96, {"return_period": 100}),
    ("flood_risk", 36.0, -88.2, {"return_period": 100}),
    ("drought_status", 31.7069, -89.4069, {}),
    ("ungauged_flow", 40.83, -75.09, {"area_km2": 11745}),
    ("supply_reliability", 41.10, -74.96, {"demand": 0.5}),
    ("irrigation_feasibility", 31.7069, -89.4069, {"crop": "maize", "area_ha": 50, "planting_month": 4}),
]


def test_importing_the_engine_and_planning_a_study_leave_matplotlib_out():
    code = textwrap.dedent("""
        import importlib, pkgutil, sys
        import aquascope_core
        for m in pkgutil.walk_packages(aquascope_core.__path__, "aquascope_core."):
            importlib.import_module(m.name)
        from aquascope_core.deliverables.figures import FIGURE_KINDS
        from aquascope_core.catalogue import step_outputs
        step_outputs("flood_frequency")
        print(",".join(n for n in ("matplotlib", "matplotlib.pyplot", "PIL") if n in sys.modules))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_every_figure_the_catalogue_names_is_drawable_and_every_kind_is_named():
    named = {f for spec in TOOLS.values() for f in spec.figures}
    assert named <= set(FIGURE_KINDS), sorted(named - set(FIGURE_KINDS))
    assert set(FIGURE_KINDS) - named == {SITE_MAP}


def test_a_step_gets_the_catalogues_outputs_after_the_plans_own():
    own = [{"kind": "figure", "id": "frequency_curve", "caption": "Flood frequency curves"}]
    outs = step_outputs("flood_frequency", own)
    assert outs[0] == own[0]
    assert [(o["kind"], o["id"]) for o in outs] == [("figure", "frequency_curve"), ("figure", "lmoment_diagram"),
                                                    ("table", "return_levels")]
    assert outs[1]["caption"] == FIGURE_KINDS["lmoment_diagram"].title
    assert outs[2]["caption"] == "Return levels"
    study = fill_outputs(Study(steps=[Step(id="s1", tool="station_record", arguments={"source": "usgs",
                                                                                       "station_id": "01440000"})],
                               version=3))
    assert [o["id"] for o in study.steps[0].outputs] == ["series", "record_by_year"]
    assert study.to_dict()["steps"][0]["outputs"][0] == {"kind": "figure", "id": "series",
                                                         "caption": "The gauge record"}


def test_a_plan_naming_a_figure_its_tool_does_not_feed_is_refused():
    step = {"id": "s1", "tool": "station_record", "arguments": {"source": "usgs", "station_id": "01440000"},
            "outputs": [{"kind": "figure", "id": "frequency_curve", "caption": "x"}]}
    errors = validate_step(step)
    assert errors == ["step s1: station_record feeds no figure 'frequency_curve' (its figures: series)"]
    bad = {**step, "outputs": [{"kind": "chart", "id": "series"}]}
    assert "must be {kind: figure|table, id, caption}" in validate_step(bad)[0]


@pytest.mark.parametrize("playbook,lat,lon,intake", README_SITES,
                         ids=[f"{p}-{lat}" for p, lat, _lon, _i in README_SITES])
def test_every_readme_study_plan_names_the_figures_its_steps_feed(playbook, lat, lon, intake):
    out = plan_and_run(playbook, lat, lon, intake=intake, execute=False)
    assert out.study is not None, out.declined
    study = out.study.to_dict()
    assert study["version"] == 3
    for s in study["steps"]:
        figs = [o["id"] for o in figure_outputs(s)]
        assert figs == list(TOOLS[s["tool"]].figures), s["id"]
        assert all(o.get("caption") for o in s["outputs"]), s["id"]


def test_the_house_style_is_colour_blind_safe_and_sized_for_a4():
    assert [COLOURS[c] for c in PALETTE[:4]] == ["#0072B2", "#D55E00", "#009E73", "#E69F00"]  # Okabe-Ito
    w, _h = RC["figure.figsize"]
    assert w * 2.54 <= 16.5 and DPI >= 150 and RC["font.size"] >= 8
    with house_style() as mpl:
        assert mpl.rcParams["savefig.dpi"] == DPI
        assert mpl.rcParams["axes.prop_cycle"].by_key()["color"][0] == COLOURS["blue"]
    assert mpl.rcParams["savefig.dpi"] == "figure"  # restored on the way out: no global change


def test_the_numbers_a_figure_draws_are_not_numbers_a_sentence_may_quote():
    payload = {"statistics": {"mean": 3.3025}, "plot": {"form": "monthly", "mean": [2.9075, 123.456]}}
    pool = number_pool(payload)
    assert 3.3025 in pool and 123.456 not in pool
