"""PeakFQ's Wilson-Hilferty form of the Pearson III interval moments near G = 0 (b17c_p3.cond_moments).

Below |G| = 0.0007 PeakFQ (emafit.f, mP3) takes a Pearson III value as the Wilson-Hilferty cubic of a normal
deviate, x = M + S ((2/G)(1 + G z/6 - G^2/36)^3 - 2/G); the moments over an interval are those of that cubic over
the corresponding normal interval. Checked here against a direct quadrature of the cubic over the normal density.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, special

from aquascope_core.methods import b17c_p3 as p3


def _wh_x(z, m):
    M, S2, g = m
    return M + math.sqrt(S2) * ((2.0 / g) * (1.0 + g * z / 6.0 - g * g / 36.0) ** 3 - 2.0 / g if g else z)


def _z_of(x, m):
    M, S2, g = m
    u = (x - M) / math.sqrt(S2)
    return u if g == 0 else (6.0 / g) * (g * g / 36.0 - 1.0 + max(0.0, 1.0 + g * u / 2.0) ** (1.0 / 3.0))


@pytest.mark.parametrize("g", [0.0, 4e-4, -6e-4])
@pytest.mark.parametrize("ab", [(-np.inf, 1.3), (1.4, 2.3), (2.1, np.inf), (1.2, 1.25)])
def test_wilson_hilferty_moments_match_a_direct_quadrature(g, ab):
    m = (1.86, 0.158, g)
    a, b = ab
    zl = -np.inf if a == -np.inf else _z_of(a, m)
    zu = np.inf if b == np.inf else _z_of(b, m)
    mass = special.ndtr(zu) - special.ndtr(zl)
    want = [integrate.quad(lambda z: _wh_x(z, m) ** j * math.exp(-z * z / 2) / math.sqrt(2 * math.pi), zl, zu,
                           epsabs=0, epsrel=1e-13)[0] / mass for j in range(1, 7)]
    got = p3.cond_moments(a, b, m, 6)
    np.testing.assert_allclose(got, want, rtol=1e-9)


def test_the_blend_runs_from_wilson_hilferty_to_the_gamma_form_between_0_0007_and_0_001():
    assert p3.wilson_hilferty_weight(0.0) == 1.0 and p3.wilson_hilferty_weight(-0.0007) == 1.0
    assert p3.wilson_hilferty_weight(0.001) == 0.0 and p3.wilson_hilferty_weight(0.02) == 0.0
    assert 0.0 < p3.wilson_hilferty_weight(0.00085) < 1.0
    # the two forms agree closely where they are blended, so the moments move continuously through the band
    m_lo, m_hi = (1.86, 0.158, 0.00099999), (1.86, 0.158, 0.00100001)
    np.testing.assert_allclose(p3.cond_moments(1.4, 2.3, m_lo, 3, peakfq=False),
                               p3.cond_moments(1.4, 2.3, m_hi, 3, peakfq=False), rtol=1e-6)
