"""Tests of aquascope_core.methods.lmoments: sample L-moments, L-moment fits, distribution functions."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods import lmoments as lm


@pytest.fixture(scope="module")
def port_pirie(reference_dir) -> np.ndarray:
    return pd.read_csv(reference_dir / "portpirie_ismev.csv")["SeaLevel"].to_numpy()


def test_sample_lmoments_port_pirie(reference_cases, port_pirie):
    """Sample L-moments of the Port Pirie annual maximum sea levels.

    Source: R lmom 3.2 samlmu(portpirie) as recorded in tests/reference/cases.json (port_pirie_lmoments).
    """
    exp = reference_cases["port_pirie_lmoments"]["expected"]
    got = lm.sample_lmoments(port_pirie)
    assert got["method"] == "sample_lmoments" and got["ok"] and got["n"] == 65
    for key in ("l1", "l2", "t3", "t4"):
        assert got[key] == pytest.approx(exp[key], rel=1e-6)
    assert got["meta"]["tool"] == "sample_lmoments"


def test_sample_lmoments_small_known_answer():
    """Hand-computed: for 1, 2, 3, 4 the PWMs are b0=2.5, b1=5/3, b2=1.25, b3=1, so l1=2.5, l2=5/6, l3=0, l4=0."""
    got = lm.sample_lmoments([4.0, 1.0, 3.0, 2.0])
    assert got["l1"] == pytest.approx(2.5)
    assert got["l2"] == pytest.approx(5.0 / 6.0)
    assert got["l3"] == pytest.approx(0.0, abs=1e-12)
    assert got["l4"] == pytest.approx(0.0, abs=1e-12)


def test_lmoments_of_matrix_equal_row_by_row(port_pirie):
    rng = np.random.default_rng(1)
    m = np.sort(rng.choice(port_pirie, size=(7, 30)), axis=1)
    whole = lm.lmoments_of_sorted(m, 4)
    for i in range(7):
        assert np.allclose(whole[i], lm.lmoments_of_sorted(m[i], 4), rtol=1e-13)


def test_sample_lmoments_bad_input_and_input_untouched():
    data = [3.0, 1.0, 2.0, 5.0]
    before = list(data)
    lm.sample_lmoments(data)
    assert data == before
    with pytest.raises(InputError, match="NaN"):
        lm.sample_lmoments([1.0, float("nan"), 2.0, 3.0, 4.0])
    with pytest.raises(InsufficientDataError):
        lm.sample_lmoments([1.0, 2.0, 3.0])
    with pytest.raises(InsufficientDataError, match="equal"):
        lm.sample_lmoments([2.0] * 10)


def test_gev_shape_round_trip_over_the_whole_range():
    """k from tau3 inverts the exact tau3(k) relation within Hosking's stated accuracy, incl. the Newton branch."""
    k = np.array([-0.95, -0.6, -0.3, -0.1, -1e-3, 0.0, 1e-3, 0.1, 0.3, 0.6, 1.5, 3.0, 6.0])
    t3 = lm._gev_tau3(k)
    back = lm._gev_k_from_t3(t3)
    assert np.allclose(back, k, atol=5e-6)
    assert np.isnan(lm._gev_k_from_t3(np.array([-1.0, 1.0, 1.5]))).all()


def test_gev_fit_reproduces_population_lmoments():
    """GEV with xi=10, alpha=2, k=-0.2 has l1 = xi + alpha(1 - Gamma(1+k))/k and l2 = alpha(1-2^-k)Gamma(1+k)/k."""
    xi, alpha, k = 10.0, 2.0, -0.2
    g = math.gamma(1 + k)
    l1 = xi + alpha * (1 - g) / k
    l2 = alpha * (1 - 2 ** (-k)) * g / k
    t3 = 2 * (1 - 3 ** (-k)) / (1 - 2 ** (-k)) - 3
    got = [float(v) for v in lm.gev_from_lmoments(l1, l2, t3)]
    assert got == pytest.approx([xi, alpha, k], abs=2e-5)


def test_pe3_fit_matches_moments_of_a_gamma_variable():
    """PE3 from the exact L-moments of a gamma(shape 4) variable: skew 2/sqrt(4) = 1, mean 4, sd 2.

    tau3 of a gamma variable is 6 I_{1/3}(a, 2a) - 3 (Hosking & Wallis 1997, A.9); l2 = Gamma(a+1/2)/(sqrt(pi) Gamma(a)).
    """
    from scipy import special

    a = 4.0
    t3 = 6 * special.betainc(a, 2 * a, 1 / 3) - 3
    l2 = math.exp(special.gammaln(a + 0.5) - special.gammaln(a)) / math.sqrt(math.pi)
    mu, sigma, gamma = (float(v) for v in lm.pe3_from_lmoments(a, l2, t3))
    assert mu == pytest.approx(4.0)
    assert sigma == pytest.approx(2.0, rel=1e-4)
    assert gamma == pytest.approx(1.0, rel=1e-4)


@pytest.mark.parametrize("skew", [-1.5, -0.5, 0.0, 0.3, 2.0])
def test_pearson3_frequency_factor_against_scipy(skew):
    """K(skew, F) is scipy.stats.pearson3's standardised quantile."""
    from scipy import stats

    F = np.array([0.002, 0.1, 0.5, 0.9, 0.99, 0.999])
    assert np.allclose(lm.pearson3_frequency_factor(skew, F), stats.pearson3.ppf(F, skew), rtol=1e-9, atol=1e-9)


def test_pearson3_frequency_factor_bulletin17b_table():
    """Bulletin 17B Appendix 3 table: K(skew=0.5, 1 %) = 2.68572, K(skew=-0.5, 1 %) = 1.95472, K(0, 1 %) = 2.32635."""
    got = lm.pearson3_frequency_factor(np.array([0.5, -0.5, 0.0]), 0.99)
    assert got == pytest.approx([2.68572, 1.95472, 2.32635], abs=1e-5)


@pytest.mark.parametrize(
    "dist, q, cdf, theta",
    [
        ("gev", lm.gev_quantile, lm.gev_cdf, (3.0, 0.5, 0.2)),
        ("gev", lm.gev_quantile, lm.gev_cdf, (3.0, 0.5, -0.2)),
        ("gev0", lm.gev_quantile, lm.gev_cdf, (3.0, 0.5, 0.0)),
        ("glo", lm.glo_quantile, lm.glo_cdf, (3.0, 0.5, -0.15)),
        ("gumbel", lm.gumbel_quantile, lm.gumbel_cdf, (3.0, 0.5)),
        ("pe3", lm.pe3_quantile, lm.pe3_cdf, (3.0, 0.5, 1.2)),
        ("pe3neg", lm.pe3_quantile, lm.pe3_cdf, (3.0, 0.5, -0.7)),
    ],
)
def test_quantile_and_cdf_are_inverse(dist, q, cdf, theta):
    F = np.array([0.01, 0.2, 0.5, 0.8, 0.99, 0.999])
    assert np.allclose(cdf(q(F, *theta), *theta), F, atol=1e-10)


def test_gev_quantile_matches_scipy_genextreme():
    """scipy's genextreme shape c equals Hosking's k."""
    from scipy import stats

    F = np.array([0.5, 0.9, 0.99])
    assert np.allclose(lm.gev_quantile(F, 3.0, 0.5, 0.2), stats.genextreme.ppf(F, 0.2, loc=3.0, scale=0.5))


def test_gev_cdf_outside_support():
    # k > 0: bounded above at xi + alpha/k = 5.5
    assert float(lm.gev_cdf(6.0, 3.0, 0.5, 0.2)) == 1.0
    # k < 0: bounded below at xi + alpha/k = 0.5
    assert float(lm.gev_cdf(0.0, 3.0, 0.5, -0.2)) == 0.0


def test_tau4_curves_known_points():
    """Normal (tau3 0): tau4 = 30 arctan(sqrt 2)/pi - 9 = 0.122602; Gumbel: 0.150375; GLO at 0: 1/6;
    GEV at the Gumbel tau3 (0.169925) passes through the Gumbel point (Hosking & Wallis 1997, table 2.2/A)."""
    assert float(lm.tau4_on_curve("pe3", 0.0)) == pytest.approx(30 * math.atan(math.sqrt(2)) / math.pi - 9, abs=1e-6)
    assert float(lm.tau4_on_curve("gumbel", 0.3)) == pytest.approx(0.150375, abs=1e-6)
    assert float(lm.tau4_on_curve("glo", 0.0)) == pytest.approx(1 / 6)
    assert float(lm.tau4_on_curve("gev", 0.169925)) == pytest.approx(0.150375, abs=2e-5)
    with pytest.raises(InputError):
        lm.tau4_on_curve("weibull", 0.1)
