"""The U.S. regional peak tools in a Bulletin 17C study: at Big Sandy River at Bruceton TN (USGS 03606500, the
PeakfqSA manual's record) with the site's drainage area for Tennessee's area-only regression (Ladd & Ensminger
2025, SIR 2024-5130, NSS region GC2022; the region is illustrative for the test), the at-site EMA estimate and the
regression's are weighted by Bulletin 17C chapter 8 and the weighted estimate transferred to a site of 600 km2 on
the same stream. The checks redo the arithmetic from the payloads' own inputs."""

from __future__ import annotations

import math

import pytest

from aquascope_core import assess_site, playbooks, run_study

BIG_SANDY = (36.0, -88.2)


@pytest.fixture(scope="module")
def run():
    recon = assess_site(*BIG_SANDY, problem="flood_risk")
    intake = playbooks.coerce_intake("flood_risk", {"return_period": 100, "basin_characteristics": "DRNAREA=205",
                                                    "nss_region": "GC2022", "area_km2": 600})
    study = playbooks.plan("flood_risk", recon, intake)
    assert study.plan["branch"] == "bulletin17c"
    assert [s.tool for s in study.steps][3:] == ["nss_peak_regression", "weighted_flood_estimate", "area_ratio_transfer"]
    return run_study(study).to_dict()


def test_regression_weighting_and_transfer_in_the_bulletin17c_study(run):
    res = run["results"]
    assert all(r["status"] == "ok" for r in res.values())
    reg = res["s4"]["payload"]
    q100 = next(q for q in reg["quantiles"] if q["aep"] == 0.01)
    # TN DAO region 4, 1 % AEP: log Q = a + b log A, as printed
    eq = next(e for e in __import__("aquascope_core.methods.regression", fromlist=["x"]).nss_region(
        "TN", "GC2022")["equations"] if e[0] == 0.01)
    assert q100["log10_value"] == pytest.approx(eq[1] + eq[3][0][1] * math.log10(205), abs=1e-12)
    row = next(r for r in res["s5"]["payload"]["rows"] if r["aep"] == 0.01)
    a, r_, w = row["at_site"], row["regression"], row["weighted"]
    at_site = next(x for x in res["s2"]["payload"]["peakfq"]["table"]["rows"] if x["aep"] == 0.01)
    assert a["value"] == pytest.approx(at_site["estimate"]) and r_["value"] == pytest.approx(q100["value"])
    vs, vr = at_site["variance_log10"], q100["variance_of_prediction"]
    lw = (vr * math.log10(a["value"]) + vs * math.log10(r_["value"])) / (vs + vr)
    assert w["log10_value"] == pytest.approx(lw, abs=1e-12) and w["variance_log10"] == pytest.approx(vs * vr / (vs + vr))
    lo, hi = sorted((a["value"], r_["value"]))
    assert lo < w["value"] < hi  # between the two,
    near = a if vs < vr else r_  # nearer the one with the smaller variance
    assert abs(math.log10(w["value"]) - math.log10(near["value"])) < abs(math.log10(a["value"]) - math.log10(r_["value"])) / 2
    tr = next(x for x in res["s6"]["payload"]["rows"] if x["return_period"] == 100)
    ratio = 600 / res["s6"]["payload"]["gauge_area_km2"]
    assert 0.5 < ratio < 1.5 and tr["gauge_value"] == pytest.approx(w["value"])
    assert tr["exponent"] == eq[3][0][1] and tr["value"] == pytest.approx(w["value"] * ratio ** eq[3][0][1])
