"""The USGS regression region a flood plan uses when the site's basin characteristics are given
(aquascope_core.playbooks._nss_region): the one the request names, else the state's only region, else none and
the state's regions named for the question. Massachusetts holds one region and New Jersey five in the NSS
snapshot (aquascope_core/methods/data/nss_peak_equations.json.gz)."""

from __future__ import annotations

from aquascope_core.methods.regression import nss_regions
from aquascope_core.playbooks import _nss_region


def _scope(state, region=None):
    return {"intake": {"basin_characteristics": "DRNAREA=10", **({"nss_region": region} if region else {})},
            "catchment": {"state": state}}


def test_a_named_region_is_used():
    assert _nss_region(_scope("NJ", "Valley and Ridge")) == {"nss_region": "Valley and Ridge"}


def test_a_state_of_one_region_needs_none_named():
    (only,) = nss_regions("MA")
    assert _nss_region(_scope("MA")) == {"nss_region": only["code"]}


def test_a_state_of_several_regions_names_them_for_the_question():
    got = _nss_region(_scope("NJ"))
    assert "nss_region" not in got
    assert got["nss_region_names"].split("; ") == [
        "Glaciated Piedmont (GC1255)", "Inner Coastal (GC1256)", "Outer Coastal (GC1257)",
        "Unglaciated Piedmont (GC1258)", "Valley and Ridge (GC1259)"]


def test_no_state_no_region():
    assert _nss_region(_scope(None)) == {}
