"""The one units rule of the reports (aquascope_core/report_units.py): ft3/s and mi2 first at a U.S. site, SI in
brackets; SI elsewhere. 1 ft3 = 0.028316846592 m3 and 1 mi2 = 2.589988110336 km2 (exact, by the definition of the
international foot)."""

from __future__ import annotations

import pytest

from aquascope_core.report_units import area_text, convert, display, flow_text, is_us_site, restated_numbers


def test_the_rule():
    assert display("m3/s", True) == ("ft3/s", "m3/s") and display("ft3/s", True) == ("ft3/s", "m3/s")
    assert display("m3/s", False) == ("m3/s", None) and display("kcfs", False) == ("m3/s", "kcfs")
    assert display("km2", True) == ("mi2", "km2") and display("mm/d", True) == ("mm/d", None)


def test_statements_round_to_three_figures_and_keep_the_other_unit_in_brackets():
    assert flow_text(24607.0, "ft3/s", True) == ("24,600 ft3/s (697 m3/s)", [24600.0, 697.0])
    # 138.2 m3/s / 0.028316846592 = 4,880.5 ft3/s
    assert flow_text(138.2, "m3/s", True)[0] == "4,880 ft3/s (138 m3/s)"
    assert flow_text(138.2, "m3/s", False)[0] == "138 m3/s"
    assert area_text(20795.0, True)[0] == "8,030 mi2 (20,800 km2)"
    assert convert(1.0, "kcfs", "ft3/s") == pytest.approx(1000.0)


def test_a_us_site_is_told_by_its_gauge_or_its_position():
    assert is_us_site({"source": "catalogue", "station_id": "06324500"})
    assert is_us_site({"state": "MT"}) and not is_us_site({"state": "ON"})
    assert is_us_site(None, lat=39.97, lon=-75.19)            # Philadelphia: USGS gauges within 25 km
    assert not is_us_site(None, lat=53.55, lon=-113.49)       # Edmonton
    assert not is_us_site({"source": "holmes", "station_id": "au_saumon"})


def test_restated_numbers_are_the_results_numbers_in_the_other_unit():
    got = restated_numbers([{"unit": "m3/s", "fits": {"x": {"return_levels": [100.0]}}, "n": 5, "meta": {"v": 1.0}}])
    assert got == pytest.approx([100.0 / 0.028316846592, 5 / 0.028316846592])  # meta is never restated
