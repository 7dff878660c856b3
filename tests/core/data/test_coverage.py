"""Who gauges the region a site lies in (aquascope_core.data.coverage)."""

from __future__ import annotations

import pytest

from aquascope_core.data.coverage import gauged_by, gauged_sentence


@pytest.mark.parametrize("lat,lon,authority", [
    (51.415, -0.308, "the Environment Agency"),      # the Thames at Kingston
    (54.0, -2.8, "the Environment Agency"),          # the Lune near Lancaster
    (52.6, 1.3, "the Environment Agency"),           # Norwich
    (51.48, -3.18, "Natural Resources Wales"),       # Cardiff
    (56.4, -3.45, "the Scottish Environment Protection Agency (SEPA)"),  # the Tay at Perth
    (36.0, -88.2, "the U.S. Geological Survey"),     # Big Sandy River, TN
    (30.0, -40.0, None),                             # the Atlantic
    (50.55, 9.68, None),                             # Hesse: no authority known here
])
def test_gauged_by(lat, lon, authority):
    got = gauged_by(lat, lon)
    assert (got or {}).get("authority") == authority


def test_the_sentence_says_who_and_how_to_bring_it():
    s = gauged_sentence(51.415, -0.308)
    assert "Environment Agency" in s and "--live" in s and "upload" in s and "not ungauged" in s
    assert "--live" not in gauged_sentence(51.48, -3.18)  # no live source for Wales: the upload only
    assert gauged_sentence(30.0, -40.0) is None and gauged_sentence(None, None) is None
