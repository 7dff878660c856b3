"""Each figure laid out once and made only in the formats the files asked for need: the PNG for Markdown, HTML, Word
and the notebook, the SVG for the bundle and the workbook, a specification (no pixels) for the gym."""

from __future__ import annotations

import json

import pytest

from aquascope_core.deliverables.build import _formats, draws_pixels, figure_formats, make_deliverables
from aquascope_core.errors import InputError
from aquascope_core.workspace import ArtifactStore, Workspace

pytest.importorskip("matplotlib")


def test_the_figure_formats_follow_what_the_files_embed():
    assert figure_formats("md") == ("png",) and figure_formats("md,html,docx,ipynb") == ("png",)
    assert figure_formats(None) == ("png", "svg") and figure_formats("md,zip") == ("png", "svg")
    assert figure_formats("xlsx") == ("png", "svg")  # the workbook lists the vector files
    assert figure_formats("md,svg") == ("svg",) and figure_formats("md,png,svg") == ("png", "svg")
    assert figure_formats("md,spec") == ("spec",) and _formats("Markdown,spec") == ("md", "spec")
    assert not draws_pixels("md,spec") and draws_pixels("md") and draws_pixels("not-a-format")
    with pytest.raises(InputError, match="'spec'"):
        _formats("html,spec")  # the HTML embeds the pictures: it cannot be made from specifications
    with pytest.raises(InputError, match="pdf"):
        _formats("md,pdf")


PEAKS = [112.0, 95.5, 140.2, 88.1, 160.3, 101.7, 120.9, 99.4, 133.0, 150.8, 90.2, 118.6, 125.5, 108.3, 97.1,
         171.4, 104.9, 129.7, 115.2, 93.8]  # a made-up record: only its shape matters here


def test_one_layout_each_format_once_and_a_specification_without_pixels():
    from aquascope_core.deliverables import figures, style

    from aquascope_core.methods.flood_frequency import flood_frequency

    payload = flood_frequency(PEAKS, n_bootstrap=200)
    ctx = {"arguments": {"values": PEAKS, "years": list(range(1990, 2010))}}
    both = figures.draw("frequency_curve", payload, number=2, context=ctx)
    png_only = figures.draw("frequency_curve", payload, number=2, context=ctx, formats=("png",))
    assert png_only["png"] == both["png"] and png_only["svg"] is None  # the same pixels, no SVG drawn
    spec = figures.draw("frequency_curve", payload, number=2, context=ctx, formats=("spec",))
    assert spec["png"] is None and spec["svg"] is None and spec["caption"] == both["caption"]
    s = spec["spec"]
    assert s["marks"] >= 50 and any(a["lines"] for a in s["axes"])  # the dense curves are there
    assert any("exceedance" in a["xlabel"].lower() for a in s["axes"]), s["axes"]
    with pytest.raises(InputError):
        figures.draw("frequency_curve", payload, number=2, context=ctx, formats=("spec", "png"))
    with pytest.raises(figures.FigureDataMissing):  # a specification is refused as a drawing is
        figures.draw("frequency_curve", {"station": {}}, number=2, formats=("spec",))

    with style.house_style():  # after the one layout the figure has no layout engine: savefig draws it once
        fig, _ = style.new_figure()
        ax = fig.axes[0]
        ax.plot([1, 2, 3], [3, 1, 2], label="x")
        ax.legend()
        draws = []
        original = type(fig).draw
        type(fig).draw = lambda self, renderer: (draws.append(1), original(self, renderer))[1]
        try:
            png, svg = style.save(fig, ("png", "svg"))
        finally:
            type(fig).draw = original
    assert fig.get_layout_engine() is None and png[:4] == b"\x89PNG" and svg.lstrip().startswith(b"<?xml")
    assert len(draws) == 2  # one per format, no layout draw before each


@pytest.fixture
def flood(finished_studies, figure_makers, tmp_path):
    if figure_makers != "real":
        pytest.skip("the real figure makers are needed")
    return Workspace.from_dict(finished_studies("flood")["workspace"]), ArtifactStore(tmp_path / "store")


def test_markdown_gets_pngs_only_and_the_gym_specifications_linked_from_the_report(flood):
    ws, store = flood
    make_deliverables(ws, store, formats="md")
    names = [a["name"] for a in ws.artifacts if a["kind"] == "figure"]
    assert names and all(n.endswith(".png") for n in names)
    md = store.get(next(a for a in ws.artifacts if a["name"] == "report.md")).decode()
    assert all(f"]({n})" in md for n in names)

    make_deliverables(ws, store, formats="md,spec")
    specs = [a for a in ws.artifacts if a["kind"] == "figure"]
    assert len(specs) == len(names) and all(a["name"].endswith(".spec.json") for a in specs)
    md = store.get(next(a for a in ws.artifacts if a["name"] == "report.md")).decode()
    assert all(f"]({a['name']})" in md for a in specs) and ".png)" not in md
    for a in specs:
        spec = json.loads(store.get(a))
        assert spec["marks"] > 0 and spec["kind"] and spec["caption"].startswith("Figure ")
        assert spec["step"] is None or ws.run["results"][spec["step"]]["status"] == "ok"
