"""Axes as a reviewer reads them: a concentration axis starts at 0 (the water-quality samples figure drew a panel of
mercury samples that all read 0 on a linear axis from -0.05 to 0.05, negative concentrations on its scale), and a
trend figure's axis names the tested quantity and its unit (it read "Tested series"). The makers are called with
payloads of the shape the tools write and their matplotlib axes inspected."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from aquascope_core.deliverables import figures_flood, figures_quality  # noqa: E402

DATES = [f"1997-{m:02d}-05" for m in range(1, 12)]


def _samples(values, unit):
    return {"plot": {"parameters": {"mercury": {"dates": DATES, "values": values, "unit": unit},
                                    "pH": {"dates": DATES, "values": [7.9 + 0.03 * i for i in range(11)], "unit": None}}}}


def test_a_concentration_panel_starts_at_zero_even_when_every_sample_reads_zero():
    import matplotlib.pyplot as plt

    fig, _ = figures_quality.samples_by_parameter(_samples([0.0] * 11, "ug/L"), {})
    mercury, ph = [ax for ax in fig.axes if ax.get_visible()][:2]
    lo, hi = mercury.get_ylim()
    assert lo == 0 and hi > 0, (lo, hi)
    assert any("read 0" in t.get_text() for t in mercury.texts)
    assert ph.get_ylim()[0] > 7  # pH is not a concentration: its axis is the data's
    plt.close(fig)
    fig, _ = figures_quality.samples_by_parameter(_samples([0.1 * (i + 5) for i in range(11)], "mg/L"), {})
    assert fig.axes[0].get_ylim()[0] == 0
    plt.close(fig)


def test_the_trend_axis_names_the_quantity_and_its_unit():
    import matplotlib.pyplot as plt

    payload = {"unit": "m3/s", "trend": {"sen_slope": 0.05, "sen_intercept": -90.0, "p_value": 0.5, "trend": "no trend",
                                         "slope_unit": "m3/s per year"}}
    ctx = {"arguments": {"values": [float(10 + i % 5) for i in range(30)], "times": list(range(1990, 2020))},
           "caption": "Annual maxima with Sen's slope"}
    fig, _ = figures_flood.trend(payload, ctx)
    assert fig.axes[0].get_ylabel() == "Annual maxima (m³/s)"
    plt.close(fig)
    fig, _ = figures_flood.trend(payload, {**ctx, "caption": "Series with Sen's slope",  # the default caption
                                           "title": "Trend in the systematic peaks"})
    assert fig.axes[0].get_ylabel() == "Systematic peaks (m³/s)"
    plt.close(fig)
    fig, _ = figures_flood.trend(payload, {**ctx, "caption": None})  # neither: the quantity its unit measures
    assert fig.axes[0].get_ylabel() == "Discharge (m³/s)"
    assert "Tested series" not in fig.axes[0].get_ylabel()
    plt.close(fig)


def test_the_site_map_states_a_record_length_as_the_tables_do():
    """The site map's legend wrote the well's 2.67 years of values as '3 y' (and Flat Brook's 80.3 as '80 y')."""
    from aquascope_core.deliverables.figures_site import holds

    well = {"variables": [{"variable": "groundwater_level", "resolution": "daily", "years": 2.67, "usable": True}]}
    assert "2.67 y" in holds(well)
    gauge = {"variables": [{"variable": "discharge", "resolution": "daily", "years": 80.34, "usable": True},
                           {"variable": "discharge", "resolution": "daily", "years": 57.0, "usable": False}]}
    assert "80.3 y" in holds(gauge) and "57 y" in holds(gauge)


def test_the_trend_caption_says_what_is_drawn():
    """Looked at: the Bulletin 17C report's 'Figure 4. Series with Sen's slope. 44 values; ...': the default
    caption named only the figure kind. It names the tested series, its station, its period and the slope with its
    unit."""
    from aquascope_core.deliverables.figures import draw

    payload = {"unit": "ft3/s", "trend": {"sen_slope": -42.02, "sen_intercept": 87117.4, "p_value": 0.2489,
                                          "trend": "no trend", "slope_unit": "ft3/s per year"}}
    ctx = {"arguments": {"values": [float(9000 + 50 * (i % 7)) for i in range(44)], "times": list(range(1930, 1974))},
           "caption": "Series with Sen's slope", "title": "Trend in the systematic peaks",
           "station": {"source": "catalogue", "station_id": "03606500", "name": "Big Sandy River at Bruceton TN"}}
    cap = draw("trend", payload, number=4, caption=ctx["caption"], context=ctx, formats="spec")["caption"]
    assert cap.startswith("Figure 4. Systematic peaks with Sen's slope. Big Sandy River at Bruceton TN (USGS "
                          "03606500), 1930-1973, 44 values"), cap
    assert "-42.0 ft3/s per year" in cap and "Series" not in cap and "CATALOGUE" not in cap
    own = draw("trend", payload, number=1, caption="Annual peaks with Sen's slope", context=ctx, formats="spec")
    assert own["caption"].startswith("Figure 1. Annual peaks with Sen's slope.")  # the plan's own caption stands


def test_the_regime_legend_gives_the_mean_flow_with_its_unit():
    import matplotlib.pyplot as plt

    from aquascope_core.deliverables import figures_flow

    payload = {"monthly_mean_flow": [5.0 + i for i in range(12)], "unit": "m3/s",
               "estimates": {"mean_flow": {"estimate": 7.8812, "unit": "m3/s"}}, "model": "gr4j"}
    fig, note = figures_flow.regime(payload, {})
    labels = fig.axes[0].get_legend_handles_labels()[1] or [t.get_text() for lg in fig.legends for t in lg.get_texts()]
    assert "mean flow 7.88 m³/s" in labels, labels
    assert "mean flow 7.88 m³/s" in note
    plt.close(fig)
