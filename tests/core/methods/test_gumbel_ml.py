"""Gumbel by maximum likelihood: against an independent ML implementation (scipy.stats.gumbel_r.fit) on Port Pirie."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from aquascope_core.errors import InsufficientDataError
from aquascope_core.methods import flood_frequency as ff
from aquascope_core.registry import method as registered_method


@pytest.fixture(scope="module")
def port_pirie(reference_dir) -> np.ndarray:
    return pd.read_csv(reference_dir / "portpirie_ismev.csv")["SeaLevel"].to_numpy()


def test_port_pirie_gumbel_ml_equals_an_independent_fit(port_pirie):
    """scipy's gumbel_r.fit maximises the same likelihood by a different route; the estimates agree to 1e-10,
    the negative log-likelihood too, and the likelihood equations hold (sum exp(-z) = n)."""
    fit = ff.fit_gumbel_ml(port_pirie, unit="m")
    loc, scale = stats.gumbel_r.fit(port_pirie)
    assert fit["ok"] and fit["method"] == "gumbel_ml" and fit["distribution"] == "gumbel"
    assert fit["parameters"]["xi"] == pytest.approx(loc, rel=1e-10)
    assert fit["parameters"]["alpha"] == pytest.approx(scale, rel=1e-10)
    assert fit["neg_log_likelihood"] == pytest.approx(-stats.gumbel_r.logpdf(port_pirie, loc, scale).sum(), rel=1e-10)
    z = (port_pirie - fit["parameters"]["xi"]) / fit["parameters"]["alpha"]
    assert np.exp(-z).sum() == pytest.approx(port_pirie.size, rel=1e-10)
    # standard errors: near the expected-information ones, Var(xi) = 1.1087 a^2/n, Var(a) = 0.6079 a^2/n
    a, n = fit["parameters"]["alpha"], port_pirie.size
    assert fit["standard_errors"]["xi"] == pytest.approx(math.sqrt(1.1087 * a * a / n), rel=0.1)
    assert fit["standard_errors"]["alpha"] == pytest.approx(math.sqrt(0.6079 * a * a / n), rel=0.1)
    # the L-moment and ML fits differ, and both evaluate through the same functions
    lmom = ff.fit_gumbel_lmoments(port_pirie)
    assert lmom["parameters"]["alpha"] != pytest.approx(fit["parameters"]["alpha"], rel=1e-3)
    q = ff.return_levels(fit, [100])[0]
    assert q == pytest.approx(stats.gumbel_r.ppf(0.99, loc, scale), rel=1e-10)
    json.dumps(fit)


def test_gumbel_ml_in_the_flood_frequency_analysis(port_pirie):
    out = ff.flood_frequency(port_pirie, distributions=("gumbel_ml", "gumbel_lmoments"), n_bootstrap=200, unit="m")
    g = out["fits"]["gumbel_ml"]
    assert g["ok"] and all(lo < q < hi for lo, q, hi in zip(g["ci"]["lower"], g["return_levels"], g["ci"]["upper"]))
    row = registered_method("gumbel_ml")
    assert row.tool == "flood_frequency" and row.function.endswith("fit_gumbel_ml")
    with pytest.raises(InsufficientDataError):
        ff.fit_gumbel_ml([1.0, 2.0, 3.0])
