"""The rainfall-runoff diagnostics figure as a hydrologist reads it. Looked at (the README's GR4J study, rendered
through LibreOffice): the periods labelled by year only ("calibration 1958-1972", "validation 1972-1987", which read
as overlapping) and the validation label running into the calibration's; "Runoff (mm/day)" over what are monthly
means; the residual axis labelled "Month" under year ticks; no key to the 1:1 line or to the residual colours; a
caption that did not say the scores are on the daily flows."""

from __future__ import annotations

import pytest

from aquascope_core.deliverables.figures_model import rainfall_runoff
from aquascope_core.tools.rainfall_runoff import gr4j_calibration


@pytest.fixture(scope="module")
def leaf():
    return gr4j_calibration("catalogue", "02472000")


@pytest.mark.slow
def test_the_hydrograph_draws_observed_and_simulated_with_the_periods_and_their_scores(leaf):
    import matplotlib.pyplot as plt

    fig, note = rainfall_runoff(leaf, {})
    try:
        top, residuals, scatter = fig.axes[:3]
        lines = {ln.get_label(): ln for ln in top.get_lines()}
        assert set(lines) >= {"observed", "simulated (GR4J)"}
        n = len(leaf["plot"]["dates"])
        assert len(lines["observed"].get_xdata()) == len(lines["simulated (GR4J)"].get_xdata()) == n == 360
        assert top.get_ylabel().startswith("Monthly mean runoff") and "mm/day" in top.get_ylabel()
        texts = [t.get_text() for t in top.texts]
        # each period by its months (whole calendar years since the split moved to a 1 January) and its scores
        assert any(t.startswith(" Calibration, Jan 1958 to Dec 1972\n NSE 0.87") for t in texts), texts
        assert any(t.startswith(" Validation, Jan 1973 to Dec 1987\n NSE 0.88") for t in texts), texts
        assert all(t.get_position()[1] <= 1.0 for t in top.texts)  # inside the axes, under the legend
        assert top.get_ylim()[1] >= 1.2 * max(leaf["plot"]["observed"])  # head room for them
        assert residuals.get_xlabel() == "Year" and "mm/day" in residuals.get_ylabel()
        assert [t.get_text() for t in scatter.get_legend().get_texts()] == ["1:1 line"]
        assert "NSE and KGE on the daily flows" in note and "orange where the simulation is above" in note
    finally:
        plt.close(fig)


@pytest.mark.slow
def test_the_workbooks_model_series_carry_their_unit_and_their_month(leaf):
    # Looked at: the workbook's GR4J sheets headed "dates observed simulated" (no unit) and a regime without months
    from aquascope_core.deliverables.datasets import payload_tables

    tables = {t["name"]: t for t in payload_tables(leaf)}
    assert tables["plot"]["columns"] == ["dates", "observed (mm/d)", "simulated (mm/d)"]
    regime = tables["plot.regime"]
    assert regime["columns"] == ["month", "observed (mm/d)", "simulated (mm/d)"]
    assert [r[0] for r in regime["rows"]] == list(range(1, 13))
