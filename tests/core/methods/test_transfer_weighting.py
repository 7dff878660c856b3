"""Drainage-area-ratio transfer, Bulletin 17C chapter 8 weighting and Fuller's daily-to-peak ratio, worked by hand."""

from __future__ import annotations

import math

import pytest

from aquascope_core.errors import InputError
from aquascope_core.methods.daily_to_peak import fuller_ratio, indicative_peaks
from aquascope_core.methods.transfer import drainage_area_transfer
from aquascope_core.methods.weighting import weighted_estimates


def test_area_ratio_transfer_by_hand():
    """Gauge 64.0 mi2, 100-year 10,000 ft3/s; site 80.0 mi2; b = 0.728 (NJ Valley and Ridge, 1 % AEP):
    ratio 1.25, factor 1.25^0.728 = exp(0.728 x 0.2231436) = exp(0.1624485) = 1.1763877 -> 11,763.9 ft3/s."""
    out = drainage_area_transfer([10000.0], 64.0, 80.0, exponent=0.728, exponent_source="NJ report", unit="ft3/s")
    assert out["ok"] and out["ratio"] == pytest.approx(1.25)
    assert out["factor"] == pytest.approx(1.1763877, rel=1e-6) and out["values"][0] == pytest.approx(11763.88, rel=1e-6)
    one = drainage_area_transfer([10000.0], 64.0, 48.0)  # no exponent held: 1, stated
    assert one["values"][0] == pytest.approx(7500.0) and "1" in one["exponent_source"]


def test_area_ratio_beyond_the_range_defers_to_the_regression():
    out = drainage_area_transfer([10000.0], 64.0, 20.0, exponent=0.728)
    assert out["ok"] is False and out["values"] is None and out["use_regression"] is True
    assert "0.5-1.5" in out["reason"]
    with pytest.raises(InputError, match="site_area"):
        drainage_area_transfer([1.0], 64.0, -1.0)


def test_bulletin17c_chapter8_weighting_by_hand():
    """At-site 100-year 10,000 ft3/s with V_s = 0.01; regression 5,000 ft3/s with V_r = 0.04 (log10 units):
    log Q_w = (0.04 x 4 + 0.01 x 3.698970) / 0.05 = (0.16 + 0.0369897) / 0.05 = 3.939794 -> 8,705.5 ft3/s;
    V_w = 0.01 x 0.04 / 0.05 = 0.008; weight on the at-site estimate 0.8."""
    out = weighted_estimates([0.01], [10000.0], [0.01], [5000.0], [0.04])
    row = out["rows"][0]
    assert [row[k]["estimate"] for k in ("at_site", "regression", "weighted")] == ["at-site", "regression", "weighted"]
    assert row["weighted"]["log10_value"] == pytest.approx(3.939794, abs=1e-6)
    assert row["weighted"]["value"] == pytest.approx(8705.5, rel=1e-4)
    assert row["weighted"]["variance_log10"] == pytest.approx(0.008) and row["weight_at_site"] == pytest.approx(0.8)
    z = 1.6448536269514722
    assert row["weighted"]["upper"] == pytest.approx(10 ** (3.939794 + z * math.sqrt(0.008)), rel=1e-5)
    assert row["design"] == "weighted"
    none = weighted_estimates([0.01], [10000.0], [0.01], [5000.0], [None])["rows"][0]
    assert none["weighted"] is None and none["design"] == "at-site" and "no variance" in none["reason"]


def test_fuller_ratio_by_hand():
    """Fuller (1914): 1 + 2 A^-0.3 with A in mi2. Flat Brook's 64.0 mi2 = 165.76 km2:
    64^-0.3 = exp(-0.3 x 4.158883) = exp(-1.247665) = 0.287175 -> ratio 1.574349; the km2 form of Fill & Steiner
    (2003), 1 + 2.66 x 165.76^-0.3, agrees to 0.1 %."""
    a_km2 = 64.0 * 2.589988110336
    assert fuller_ratio(a_km2) == pytest.approx(1.574349, rel=1e-6)
    assert fuller_ratio(a_km2) == pytest.approx(1 + 2.66 * a_km2 ** -0.3, rel=1e-3)
    out = indicative_peaks([138.0], a_km2, unit="m3/s", return_periods=[100])
    assert out["indicative"] is True and out["grade_cap"] == "C"
    assert out["values"][0] == pytest.approx(138.0 * 1.574349, rel=1e-6) and out["daily_mean_values"] == [138.0]
    with pytest.raises(InputError, match="area_km2"):
        fuller_ratio(0)
