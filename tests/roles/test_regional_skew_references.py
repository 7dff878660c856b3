"""Every published regional skew the package uses reaches a flood report's References whole: the report of each
verified row of the USGS table, and the WY/MT study's own statement of its skews (no report is named for them) with
the Bulletin 17B map and the Montana methods report whose practice they follow."""

from __future__ import annotations

import csv
from importlib import resources

import pytest

from aquascope_core.result import source
from aquascope_core.tools.flood_skew import published_skew_for
from roles.citations import references, split_citations


def _verified() -> list[dict[str, str]]:
    path = resources.files("aquascope_core.methods").joinpath("data", "usgs_regional_skew.csv")
    with path.open(encoding="utf-8") as fh:
        return [r for r in csv.DictReader(fh) if r["status"] == "verified"]


def _refs(citation: str) -> list[str]:
    """The References of a report whose Bulletin 17C step weighted in a skew of this citation, as flood.py cites it."""
    result = {"status": "ok", "payload": {"meta": {"sources": [source("regional skew", citation=citation)]}}}
    return references({}, {"s2": result})


def test_every_verified_table_skew_has_its_report_in_references():
    rows = _verified()
    assert len(rows) >= 30
    for r in rows:
        assert r["citation"], (r["state"], r["skew_region"])
        refs = _refs(r["citation"])
        works = split_citations(r["citation"])
        assert refs == works and all(" U.S. Geological Survey" in w or "USGS" in w for w in works), refs
        assert any(w.split(",")[0] == r["citation"].split(",")[0] for w in refs)


def test_big_sandy_tennessee_skew_is_cited_by_its_report():
    got = published_skew_for({"station_id": "03606500", "state": "TN", "huc8": "06040005"}, {})
    assert got["origin"] == "usgs_table" and got["skew"] == pytest.approx(0.048) and got["mse"] == pytest.approx(0.16)
    (ref,) = _refs(got["citation"])
    assert ref.startswith("Messinger, T., Duda, J.M.") and "Scientific Investigations Report 2025-5110" in ref


def test_the_wymt_study_skew_is_cited_as_its_specification_states_it():
    got = published_skew_for({"station_id": "06324500"}, {})
    assert got["origin"] == "published_study" and got["skew"] == pytest.approx(-0.0053)
    ref, map_, practice = _refs(got["citation"])
    assert "wymt_ffa_2022A" in ref and "SkewSE 0.64" in ref and "name no report" in ref
    # no report derives them: the generalized skew map they are taken from and the report stating that practice
    assert map_.startswith("Interagency Advisory Committee on Water Data (1982)") and "Plate I" in map_
    assert practice.startswith("Sando, S.K., and McCarthy, P.M., 2018") and "Report 2018-5046" in practice
    assert "https://doi.org/10.3133/sir20185046" in practice
