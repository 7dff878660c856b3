"""Frequency and duration plots as PeakFQ and Bulletin 17C draw them, checked on the axes objects: AEP on a
normal-probability scale from 99.5 % to 0.2 %, the curves evaluated densely, historical peaks and low outliers
in their own legend entries, the thresholds and the historical period on the annual peaks."""

from __future__ import annotations

import numpy as np
import pytest

from aquascope_core.deliverables.figures_flood import annual_maxima, frequency_curve
from aquascope_core.deliverables.figures_flow import flow_duration_curve
from aquascope_core.deliverables.figures_prob import SCALE, dense_aeps, dense_quantiles, smooth_through
from aquascope_core.deliverables.style import house_style
from tests.playbooks.harness import plan_and_run

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def big_sandy():
    o = plan_and_run("flood_risk", 36.0, -88.2, intake={"return_period": 100})
    steps = {st.tool: st for st in o.study.steps}
    res = {st.tool: o.run.results[st.id] for st in o.study.steps}
    return steps, res


def _ctx(res, step, **kw):
    return {"step": step.id, "tool": step.tool, "arguments": res.arguments or {}, "params": {"return_period": 100}, **kw}


def test_the_b17c_frequency_curve_is_on_a_normal_probability_aep_axis(big_sandy):
    steps, res = big_sandy
    r = res["bulletin17c_ema"]
    with house_style():
        fig, note = frequency_curve(r.payload, _ctx(r, steps["bulletin17c_ema"]))
    ax = fig.axes[0]
    assert ax.get_xscale() == SCALE
    lo, hi = sorted(ax.get_xlim())
    assert lo == pytest.approx(0.002) and hi == pytest.approx(0.995)
    assert ax.get_xlim()[0] > ax.get_xlim()[1]  # the larger exceedance probability on the left
    assert [t.get_text() for t in ax.get_xticklabels()][:2] == ["99.5", "99"]
    assert ax.get_yscale() == "log"
    fit = max(ax.get_lines(), key=lambda ln: len(ln.get_xdata()))
    assert len(fit.get_xdata()) >= 50 and min(fit.get_xdata()) <= 0.0021 and max(fit.get_xdata()) >= 0.994
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "historical peaks" in labels and "systematic peaks" in labels
    assert any(lab.startswith("low outliers") for lab in labels)
    assert any(lab.startswith("perception threshold 18,000") for lab in labels)
    # the 100-year value on the curve is the payload's (no other number drawn)
    y = fit.get_ydata()
    x = list(fit.get_xdata())
    i = min(range(len(x)), key=lambda k: abs(x[k] - 0.01))
    assert abs(x[i] - 0.01) < 0.001 and y[i] == pytest.approx(r.payload["fits"]["lp3_ema"]["return_levels"][5], rel=0.02)
    assert "Hirsch-Stedinger" in note and "Weibull form" in note and "90% EMA confidence interval" in note
    assert "44 systematic peaks 1930-1973 and 3 historical peaks, 1890-1973 (84 years)" in note
    # the return periods on the second axis
    top = fig.axes[1]
    assert top.get_xscale() == SCALE and "100" in [t.get_text() for t in top.get_xticklabels()]


def test_the_annual_peaks_show_the_threshold_over_its_years_and_the_historical_period(big_sandy):
    steps, res = big_sandy
    r = res["annual_maximum_series"]
    dep = {"step": steps["bulletin17c_ema"].id, "tool": "bulletin17c_ema", "payload": res["bulletin17c_ema"].payload}
    with house_style():
        fig, note = annual_maxima(r.payload, _ctx(r, steps["annual_maximum_series"], dependents=[dep]))
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "historical period" in labels and "perception threshold 18,000 (1890-1929)" in labels
    span = next(p for p in ax.patches if p.get_label() == "historical period")
    x0 = span.get_x()
    assert x0 == pytest.approx(1889.5) and x0 + span.get_width() == pytest.approx(1929.5)
    assert "(84 years)" in note


def test_dense_quantiles_reproduce_the_fit_and_the_band_is_joined_within_its_table():
    fit = {"distribution": "lp3", "parameters": {"mean_log": 3.7175, "sd_log": 0.29104, "skew_log": -0.1563}}
    aeps = dense_aeps()
    q = dense_quantiles(fit, aeps)
    assert len(q) == len(aeps) >= 100 and all(a > b for a, b in zip(q[1:], q))  # rising as the AEP falls
    # Big Sandy, PeakFQ's 1 % AEP estimate with these moments: about 22,960 ft3/s (the study's own table)
    assert dense_quantiles(fit, [0.01])[0] == pytest.approx(22960, rel=0.002)
    xs, ys = smooth_through([0.5, 0.1, 0.01], [5310, 12170, 22960])
    assert min(xs) == pytest.approx(0.01) and max(xs) == pytest.approx(0.5) and len(xs) >= 50


def test_the_flow_duration_curve_is_on_the_same_scale():
    o = plan_and_run("drought_status", 41.10, -74.96)
    st = next(s for s in o.study.steps if s.tool == "flow_duration_curve")
    with house_style():
        fig, note = flow_duration_curve(o.run.results[st.id].payload, {"step": st.id})
    assert fig.axes[0].get_xscale() == SCALE and "normal-probability" in note


@pytest.mark.parametrize("n", [2, 3, 5, 9])
def test_the_monotone_cubic_is_scipys_pchip(n):
    """figures_prob.pchip against scipy's PchipInterpolator (the reference it replaces in the figures), on random
    and monotone data with flat stretches, at 57 points over the data's range."""
    from scipy.interpolate import PchipInterpolator

    from aquascope_core.deliverables.figures_prob import pchip

    rng = np.random.default_rng(n)
    for trial in range(40):
        x = np.sort(rng.choice(np.linspace(-3, 3, 301), n, replace=False))
        y = rng.normal(size=n) if trial % 2 else np.cumsum(rng.uniform(0, 1, n))
        if trial % 5 == 0 and n > 2:
            y[1] = y[0]
        grid = np.linspace(x[0], x[-1], 57)
        assert np.allclose(pchip(x, y, grid), PchipInterpolator(x, y)(grid), rtol=0, atol=1e-12)


def test_the_second_unit_axis_is_labelled_like_the_first(big_sandy):
    """The right-hand axis in the other unit (m3/s beside ft3/s) on a log scale: 100, 200, 500, 1,000 as the left
    one, not 10^2 and 10^3 alone (looked at in the printed report)."""
    steps, res = big_sandy
    r = res["bulletin17c_ema"]
    with house_style():
        fig, _ = frequency_curve(r.payload, _ctx(r, steps["bulletin17c_ema"]))
        fig.canvas.draw()
    sec = fig.axes[0].child_axes[0]
    lo, hi = sec.get_ylim()
    shown = [t.get_text() for t, v in zip(sec.get_yticklabels(), sec.get_yticks()) if lo <= v <= hi]
    assert len(shown) >= 4 and not any("10^" in s or "$" in s for s in shown), shown
    assert "1,000" in shown, shown


def test_the_annual_peaks_axes_separate_thousands(big_sandy):
    """The annual-peaks plot's flow axes read 25,000 as the text does (it printed 25000)."""
    steps, res = big_sandy
    r = res["annual_maximum_series"]
    with house_style():
        fig, _ = annual_maxima(r.payload, _ctx(r, steps["annual_maximum_series"]))
        fig.canvas.draw()
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert "25,000" in labels or "20,000" in labels, labels
    assert not any(len(s) > 4 and s.isdigit() for s in labels), labels


def test_the_caption_names_every_band_the_figure_draws():
    """Flat Brook's frequency curve draws a band for each of its two fits (GEV and LP3): the caption says both,
    not "the band is the GEV fit"."""
    from matplotlib.collections import PolyCollection

    o = plan_and_run("flood_risk", 41.10, -74.96, intake={"return_period": 100})
    st = next(s for s in o.study.steps if s.tool == "flood_frequency")
    r = o.run.results[st.id]
    with house_style():
        fig, note = frequency_curve(r.payload, _ctx(r, st))
    ax = fig.axes[0]
    bands = [c.get_label() for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 2, bands
    for lab in bands:  # "GEV 90% confidence band" -> "confidence interval of the GEV fit"
        short, pct = lab.split(" ")[0], lab.split(" ")[1]
        assert f"{pct} confidence interval of the {short} fit" in note, (lab, note)
    assert "the shaded bands are" in note and "the shaded band is" not in note
