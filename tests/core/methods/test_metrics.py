"""Goodness-of-fit scores: hand-computed values, the reference GR4J run, gaps and bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods import metrics

OBS = [1.0, 2.0, 3.0, 4.0, 5.0]


def test_nse_by_hand():
    """Errors 0.5, 0, -0.5, 0.5, 0: SSE 0.75 over SST 10 -> NSE 0.925 (Nash & Sutcliffe 1970)."""
    assert metrics.nse(OBS, [1.5, 2.0, 2.5, 4.5, 5.0]) == pytest.approx(0.925, abs=1e-15)
    assert metrics.nse(OBS, OBS) == 1.0
    assert metrics.nse(OBS, [3.0] * 5) == 0.0  # the observed mean scores 0
    assert metrics.nse(OBS, [5.0, 4.0, 3.0, 2.0, 1.0]) == pytest.approx(1 - 40 / 10)


def test_nse_on_transformed_flows_by_hand():
    # sqrt: simulated [2..6] against observed [1..5]: every error 1, SSE 5, SST 10 -> 0.5
    assert metrics.nse_sqrt([1.0, 4.0, 9.0, 16.0, 25.0], [4.0, 9.0, 16.0, 25.0, 36.0]) == pytest.approx(0.5)
    # log: exp-spaced flows, simulated one log-unit high on the last day only: SSE 1, SST 10 -> 0.9
    obs = np.exp([1.0, 2.0, 3.0, 4.0, 5.0])
    sim = np.exp([1.0, 2.0, 3.0, 4.0, 6.0])
    assert metrics.nse_log(obs, sim) == pytest.approx(0.9, abs=1e-12)
    # with epsilon: the same arithmetic on q + epsilon
    assert metrics.nse_log(obs - 0.5, sim - 0.5, epsilon=0.5) == pytest.approx(0.9, abs=1e-12)


def test_kge_and_its_parts_by_hand():
    """sim = 2 obs: r 1, alpha 2, beta 2 -> KGE 1 - sqrt(2) (Gupta et al. 2009); the 2012 variant
    compares coefficients of variation (equal here) -> 1 - 1 = 0 (Kling et al. 2012)."""
    parts = metrics.kge_components(OBS, [2 * v for v in OBS])
    assert parts["r"] == pytest.approx(1.0) and parts["alpha"] == pytest.approx(2.0)
    assert parts["beta"] == pytest.approx(2.0) and parts["kge"] == pytest.approx(1 - math.sqrt(2))
    assert metrics.kge(OBS, [2 * v for v in OBS], variant="2012") == pytest.approx(0.0, abs=1e-12)
    # a constant offset: r 1, alpha 1, beta 4/3 -> KGE 2/3
    assert metrics.kge(OBS, [v + 1 for v in OBS]) == pytest.approx(2 / 3)
    # reversed: r -1, alpha 1, beta 1 -> KGE -1
    assert metrics.kge(OBS, OBS[::-1]) == pytest.approx(-1.0)
    assert metrics.kge(OBS, OBS) == pytest.approx(1.0)


def test_bias_by_hand():
    sim = [v + 1 for v in OBS]
    assert metrics.bias(OBS, sim) == pytest.approx(1.0)
    assert metrics.percent_bias(OBS, sim) == pytest.approx(100 * 5 / 15)
    assert metrics.percent_bias(OBS, [v / 2 for v in OBS]) == pytest.approx(-50.0)


def test_scores_of_the_airgr_reference_run(reference_dir):
    """The airGR 1.7.6 GR4J run of cases.json gr4j_model_l0123001 against the observed 1990-1999
    discharge (57 missing days skipped); the NSE by its textbook formula on the complete pairs."""
    frame = pd.read_csv(reference_dir / "L0123001_gr4j_qsim_airGR.csv")
    obs, sim = frame["Qobs_mm"], frame["Qsim_mm"]
    keep = obs.notna()
    o, s = obs[keep].to_numpy(), sim[keep].to_numpy()
    assert keep.sum() == 3652 - 57
    expected = 1 - np.sum((s - o) ** 2) / np.sum((o - o.mean()) ** 2)
    assert metrics.nse(obs, sim) == pytest.approx(expected, abs=1e-13)
    assert metrics.nse(obs, sim) == pytest.approx(0.798822, abs=1e-6)
    parts = metrics.kge_components(obs, sim)
    assert parts["r"] == pytest.approx(np.corrcoef(o, s)[0, 1], abs=1e-12)
    assert parts["beta"] == pytest.approx(s.mean() / o.mean(), abs=1e-12)
    assert parts["alpha"] == pytest.approx(s.std() / o.std(), abs=1e-12)


def test_missing_observations_are_skipped():
    obs = [1.0, np.nan, 2.0, 3.0, np.nan, 4.0, 5.0]
    sim = [1.5, 99.0, 2.0, 2.5, -99.0, 4.5, 5.0]
    assert metrics.nse(obs, sim) == pytest.approx(0.925, abs=1e-15)
    assert metrics.bias(obs, sim) == pytest.approx(0.1)
    out = metrics.goodness_of_fit(obs, sim, log_epsilon=None)
    assert out["n_days"] == 5 and out["n_missing"] == 2


def test_bad_input_is_refused():
    with pytest.raises(InputError, match="position 2"):
        metrics.nse(OBS, [1.0, 2.0, np.nan, 4.0, 5.0])
    with pytest.raises(InputError, match="5 values and simulated 4"):
        metrics.nse(OBS, OBS[:4])
    with pytest.raises(InsufficientDataError, match="all observed"):
        metrics.nse([2.0, 2.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(InsufficientDataError, match="at least 2"):
        metrics.nse([1.0, np.nan, np.nan], [1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="epsilon"):
        metrics.nse_log([0.0, 1.0, 2.0], [0.5, 1.0, 2.0])
    with pytest.raises(InputError, match="epsilon"):
        metrics.nse_log(OBS, OBS, epsilon=-1.0)
    with pytest.raises(InputError, match="non-negative"):
        metrics.nse_sqrt(OBS, [-1.0, 2.0, 3.0, 4.0, 5.0])
    with pytest.raises(InputError, match="variant"):
        metrics.kge(OBS, OBS, variant="2020")
    with pytest.raises(InputError, match="constant"):
        metrics.kge(OBS, [2.0] * 5)
    a = pd.Series(OBS, index=pd.date_range("2000-01-01", periods=5))
    b = pd.Series(OBS, index=pd.date_range("2000-01-02", periods=5))
    with pytest.raises(InputError, match="align"):
        metrics.nse(a, b)


def test_inputs_are_not_modified():
    obs = np.array([1.0, np.nan, 3.0, 4.0])
    sim = pd.Series([1.0, 2.0, 3.5, 4.0])
    obs_before, sim_before = obs.copy(), sim.copy()
    metrics.goodness_of_fit(obs, sim)
    np.testing.assert_array_equal(obs, obs_before)
    pd.testing.assert_series_equal(sim, sim_before)


def test_goodness_of_fit_payload():
    obs = np.exp([1.0, 2.0, 3.0, 4.0, 5.0])
    sim = np.exp([1.0, 2.0, 3.0, 4.0, 6.0])
    out = metrics.goodness_of_fit(obs, sim, log_epsilon=None)
    assert out["method"] == "goodness_of_fit" and out["ok"] is True and out["unit"] == "mm/d"
    assert out["nse_log"] == pytest.approx(0.9) and out["log_epsilon"] is None
    assert out["nse"] == pytest.approx(metrics.nse(obs, sim))
    assert out["kge"] == pytest.approx(metrics.kge(obs, sim)) and out["kge_variant"] == "2009"
    assert out["percent_bias"] == pytest.approx(metrics.percent_bias(obs, sim))
    auto = metrics.goodness_of_fit(obs, sim)
    assert auto["log_epsilon"] == pytest.approx(obs.mean() / 100)
    assert auto["nse_log"] == pytest.approx(metrics.nse_log(obs, sim, epsilon=obs.mean() / 100))
    assert out["meta"]["tool"] == "goodness_of_fit"
    json.dumps(out)
