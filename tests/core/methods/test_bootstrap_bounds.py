"""The parametric bootstrap works in chunks of resamples (the same draws, in the same order, as one array: the band
is identical) and bounds its total work (a 300,000-value record gets fewer resamples, said in the payload)."""

from __future__ import annotations

import numpy as np
import pytest

from aquascope_core.methods import flood_frequency as ff


@pytest.mark.parametrize("method", ["gev_lmoments", "lp3_moments"])
def test_chunks_give_the_band_of_one_array(monkeypatch, method):
    from aquascope_core.methods import lmoments as lm

    x = np.random.default_rng(7).gumbel(100.0, 30.0, 60)
    fit = lm.fit_gev_lmoments(x) if method == "gev_lmoments" else ff.fit_lp3_moments(x)
    whole = ff.bootstrap_band(fit, 60, [10, 100], n_resamples=500, seed=3)
    monkeypatch.setattr(ff, "BOOTSTRAP_CHUNK_VALUES", 60 * 7)  # 7 resamples a chunk, the last one short
    chunked = ff.bootstrap_band(fit, 60, [10, 100], n_resamples=500, seed=3)
    assert whole["ok"] and chunked["ok"]
    assert chunked["lower"] == whole["lower"] and chunked["upper"] == whole["upper"]
    assert chunked["median"] == whole["median"] and "note" not in whole


@pytest.mark.slow
def test_a_long_record_gets_a_bounded_number_of_resamples_and_says_so():
    from aquascope_core.methods import lmoments as lm

    n = 300_000
    x = np.random.default_rng(1).gumbel(100.0, 30.0, n)
    out = ff.bootstrap_band(lm.fit_gev_lmoments(x), n, [10, 100], n_resamples=1000)
    assert out["ok"] and out["n_resamples"] == ff.BOOTSTRAP_MAX_DRAWS // n == 100
    assert out["n_resamples_requested"] == 1000 and "BOOTSTRAP_MAX_DRAWS" in out["note"]
    assert out["lower"][1] < out["median"][1] < out["upper"][1]
