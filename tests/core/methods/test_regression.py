"""NSS regional regression: estimates equal the printed equations worked by hand, state by state.

The equations are the USGS National Streamflow Statistics ones held in methods/data/nss_peak_equations.json.gz
(snapshot retrieved 2026-10-25, see aquascope_core/data/README.md); each case writes the equation out with its
printed coefficients (log10 Q = a + sum b T(x)) and the arithmetic, and the module must agree. Together they use
every transform the snapshots hold: log10, log10_plus1, identity, power, and log10 with an offset and a
negative scale.
"""

from __future__ import annotations

import math

import pytest

from aquascope_core.errors import InputError
from aquascope_core.methods.regression import area_exponent, nss_region, nss_states, peak_flow_regression

lg = math.log10


def q100(state, chars, region=None):
    out = peak_flow_regression(state, chars, region=region, aeps=[0.01])
    return out, out["quantiles"][0]


def test_new_jersey_valley_and_ridge_log10_and_log10_plus1():
    """Watson & Schopp (2009, SIR 2009-5167), Valley and Ridge, 1 % AEP:
    log Q = 2.0253059 + 0.728 log A - 0.158 log(S+1) + 0.271 log CSL + 0.062 log(P+1)
    A 64 mi2, S 2.9 %, CSL 20 ft/mi, P 40 /mi2: 2.0253059 + 1.3149030 - 0.0934036 + 0.3525760 + 0.0999920
    = 3.6993733 -> 5005 ft3/s; 90 % PI 10^(3.69937 -+ 1.64485 x 0.239091) = 2024 to 12380."""
    out, r = q100("NJ", {"DRNAREA": 64.0, "STORAGE": 2.9, "CSL10_85": 20.0, "POPDENS": 40.0}, "valley and ridge")
    hand = 2.0253058652647704 + 0.728 * lg(64) - 0.158 * lg(3.9) + 0.271 * lg(20) + 0.062 * lg(41)
    assert r["log10_value"] == pytest.approx(hand, abs=1e-12)
    assert r["value"] == pytest.approx(5005, rel=2e-4)
    assert r["lower"] == pytest.approx(2024, rel=1e-3) and r["upper"] == pytest.approx(12380, rel=1e-3)
    assert r["variance_of_prediction"] == pytest.approx(0.23909149315871686 ** 2)
    assert out["outside_range"] is False and out["grade_cap"] is None
    assert "Watson" in out["citation"] and out["region"]["code"] == "GC1259"


def test_iowa_identity_and_power():
    """Eash et al. (2013, SIR 2013-5086), Region 1, 1 % AEP:
    log Q = 0.917 + 0.566 log A + 0.567 I24H10Y - 0.742 CCM^0.55
    A 100 mi2, I 4.0 in, CCM 1.5: 0.917 + 1.132 + 2.268 - 0.742 x 1.249878 = 3.389610 -> 2453 ft3/s."""
    _, r = q100("IA", {"DRNAREA": 100.0, "I24H10Y": 4.0, "CCM": 1.5}, "GC1561")
    assert r["log10_value"] == pytest.approx(0.917 + 1.132 + 2.268 - 0.742 * 1.5 ** 0.55, abs=1e-12)
    assert r["value"] == pytest.approx(2452.6, rel=1e-4)


def test_texas_power_of_area_without_a_standard_error():
    """Asquith & Thompson (2008, SIR 2008-5084), statewide, 1 % AEP:
    log Q = 6.776 - 3.758 A^-0.0903 + 0.08212 log P; A 200 mi2, P 30 in:
    200^-0.0903 = 0.620 0... : 6.776 - 3.758 x 0.619949 + 0.08212 x 1.477121 = 4.568286 -> 37,007 ft3/s.
    The report's equations carry no standard error in the snapshot: no interval, said."""
    out, r = q100("TX", {"DRNAREA": 200.0, "PRECIPCENT": 30.0}, "GC2146")
    assert r["log10_value"] == pytest.approx(6.776 - 3.758 * 200 ** -0.0903 + 0.08212 * lg(30), abs=1e-12)
    assert r["value"] == pytest.approx(37006.5, rel=1e-4)
    assert r["lower"] is None and any("no standard error" in w for w in out["warnings"])


def test_kentucky_negated_scale_with_offset():
    """Kentucky, Jefferson County urban, 1 % AEP: the basin development factor enters as log(13 - BDF):
    log Q = 2.8920946 + 0.538 log CONTDA + 0.31 log CSL - 0.181 log(13 - BDF)
    CONTDA 20, CSL 30, BDF 5: 2.8920946 + 0.6999532 + 0.4579060 - 0.1634630 = 3.8864908 -> 7700 ft3/s."""
    _, r = q100("KY", {"CONTDA": 20.0, "CSL10_85": 30.0, "BDF": 5.0}, "jefferson county urban")
    assert r["log10_value"] == pytest.approx(2.8920946026904804 + 0.538 * lg(20) + 0.31 * lg(30) - 0.181 * lg(8),
                                             abs=1e-12)
    assert r["value"] == pytest.approx(7700.1, rel=1e-4)


def test_new_york_positive_offset():
    """Lumia et al. (2006), New York region 1, 1 % AEP: forest enters as log(FOREST + 80):
    log Q = 4.0128372 + 0.962 log A - 0.52 log(LAG+1) - 0.202 log(S+1) - 1.638 log(F+80) + 1.106 log P
    A 100, LAG 1.5, S 2, F 60, P 40 -> 7763 ft3/s."""
    _, r = q100("NY", {"DRNAREA": 100.0, "LAGFACTOR": 1.5, "STORAGE": 2.0, "FOREST": 60.0, "PRECIP": 40.0},
                "GC1071")
    hand = 4.012837224705172 + 0.962 * 2 - 0.52 * lg(2.5) - 0.202 * lg(3) - 1.638 * lg(140) + 1.106 * lg(40)
    assert r["log10_value"] == pytest.approx(hand, abs=1e-12)
    assert r["value"] == pytest.approx(7763.4, rel=1e-4)


def test_minnesota_negated_longitude():
    """Minnesota (SIR 2023-5079) region B, 1 % AEP: longitude enters as log(-LONG_OUT):
    log Q = 52.112 + 0.795 log A - 0.63 log(LAKE+1) - 0.227 log(SOILA+1) - 25.324 log(-LONG)
    A 50, LAKE 3, SOILA 20, LONG -94.0 -> 654.3 ft3/s."""
    _, r = q100("MN", {"DRNAREA": 50.0, "LAKEAREA": 3.0, "SOILA": 20.0, "LONG_OUT": -94.0}, "GC1929")
    hand = 52.112 + 0.795 * lg(50) - 0.63 * lg(4) - 0.227 * lg(21) - 25.324 * lg(94.0)
    assert r["log10_value"] == pytest.approx(hand, abs=1e-10)
    assert r["value"] == pytest.approx(654.26, rel=1e-4)


def test_louisiana_negative_offset():
    """Louisiana Pine Hills region (NSS region 231, GC880), 1 % AEP: precipitation enters as log(PRECIP - 35):
    log Q = 1.6148972 + 0.791 log A + 0.412 log CSL + 0.61 log(P - 35)
    A 100 mi2, CSL 5 ft/mi, P 60 in: 1.6148972 + 1.5820000 + 0.2879756 + 0.8527434 = 4.3376163 -> 21,758 ft3/s
    (no standard error of prediction in the library for this region: no interval)."""
    _, r = q100("LA", {"DRNAREA": 100.0, "CSL10_85": 5.0, "PRECIP": 60.0}, "GC880")
    hand = 1.6148972160331345 + 0.791 * lg(100) + 0.412 * lg(5) + 0.61 * lg(60 - 35)
    assert r["log10_value"] == pytest.approx(hand, abs=1e-12)
    assert r["value"] == pytest.approx(21758, rel=1e-4) and r["lower"] is None


def test_the_cases_above_cover_every_transform_the_library_holds():
    """Each kind of term in the equation library (transform; negated scale; positive or negative offset) is one a
    case above works by hand: NJ log10 and log10_plus1, IA identity and power, NY a positive offset, LA a negative
    one, KY a negated scale with an offset, MN a negated scale."""
    from aquascope_core.methods.regression import equation_library

    kinds = set()
    for sd in equation_library()["states"].values():
        for reg in (sd.get("regions") or {}).values():
            for eq in reg["equations"]:
                for t in (eq[3] if eq[1] is not None else []):  # a constant form has no terms
                    p = t[3] if len(t) > 3 else {}
                    off = float(p.get("offset", 0.0))
                    kinds.add((t[2], float(p.get("scale", 1.0)) < 0, (off > 0) - (off < 0)))
    covered = {("log10", False, 0), ("log10_plus1", False, 0), ("identity", False, 0), ("power", False, 0),
               ("log10", False, 1), ("log10", False, -1), ("log10", True, 1), ("log10", True, 0)}
    assert kinds <= covered, kinds - covered


def test_out_of_range_characteristics_are_flagged_and_cap_the_grade():
    out = peak_flow_regression("NJ", {"DRNAREA": 64.0, "STORAGE": 2.9, "CSL10_85": 20.0, "POPDENS": 20.0},
                               region="valley and ridge")
    rows = {c["code"]: c for c in out["characteristics"]}
    assert rows["POPDENS"]["outside_range"] is True and rows["DRNAREA"]["outside_range"] is False
    assert out["outside_range"] is True and out["grade_cap"] == "C" and out["outside"] == ["POPDENS"]
    assert "outside the equations' range" in out["warnings"][0]


def test_bad_input_names_the_problem():
    with pytest.raises(InputError, match="missing .*CSL10_85 \\(ft/mi\\)"):
        peak_flow_regression("NJ", {"DRNAREA": 64.0, "STORAGE": 2.9, "POPDENS": 40}, region="valley and ridge")
    with pytest.raises(InputError, match="NSS regions"):
        peak_flow_regression("NJ", {"DRNAREA": 64.0})
    with pytest.raises(InputError, match="state"):
        peak_flow_regression("ZZ", {"DRNAREA": 64.0})
    with pytest.raises(InputError, match="log10"):
        peak_flow_regression("KY", {"CONTDA": 20.0, "CSL10_85": 30.0, "BDF": 13.0}, region="jefferson county urban")


def test_library_holds_every_snapshot_state_and_the_area_exponent():
    assert len(nss_states()) == 41 and {"NJ", "TX", "IA", "NY"} <= set(nss_states())
    assert nss_region("NJ", "GC1259")["name"].startswith("Peak_Valley_and_Ridge")
    b = area_exponent("NJ", "valley and ridge", 0.01)
    assert b["exponent"] == 0.728 and "Watson" in b["citation"]
    assert area_exponent("TX", "GC2146", 0.01)["exponent"] is None  # a power of area is not an exponent of area
