"""The units layer (aquascope_core.units): every unit pair it claims, against factors written here from their
definitions (1 ft = 0.3048 m and 1 US gallon = 3.785411784 l exactly, NIST SP 811 (2008) appendix B; 1 acre =
43,560 ft2; 1 mi = 1,609.344 m; a year of 365.25 days)."""

from __future__ import annotations

import itertools

import pytest

from aquascope_core import units
from aquascope_core.errors import UnitError

FT = 0.3048
# SI value of one of each unit, written from the definitions (not read from the module)
SI = {
    "flow": {"m3/s": 1.0, "l/s": 0.001, "ft3/s": FT ** 3, "kcfs": 1000 * FT ** 3, "Ml/d": 1000 / 86400,
             "mgd": 1e6 * 3.785411784e-3 / 86400, "hm3/year": 1e6 / (365.25 * 86400),
             "acre-ft/year": 43560 * FT ** 3 / (365.25 * 86400)},
    "volume": {"m3": 1.0, "hm3": 1e6, "Ml": 1000.0, "acre-ft": 43560 * FT ** 3, "ft3": FT ** 3},
    "depth_rate": {"mm/d": 0.001 / 86400, "mm/h": 0.001 / 3600, "in/d": 0.0254 / 86400, "l/s/km2": 0.001 / 1e6,
                   "m3/s/km2": 1 / 1e6, "ft3/s/mi2": FT ** 3 / 1609.344 ** 2},
    "depth": {"mm": 0.001, "in": 0.0254, "m": 1.0},
    "area": {"km2": 1e6, "mi2": 1609.344 ** 2, "ha": 1e4, "acre": 43560 * FT ** 2, "m2": 1.0},
}


def test_every_unit_is_claimed_once():
    claimed = {u for table in SI.values() for u in table}
    assert claimed == set(units.UNITS)
    for dim, table in SI.items():
        assert all(units.dimension(u) == dim for u in table)


@pytest.mark.parametrize("dim,a,b", [(d, a, b) for d, t in SI.items() for a, b in itertools.permutations(t, 2)])
def test_every_pair_within_a_dimension(dim, a, b):
    assert units.convert(2.5, a, b) == pytest.approx(2.5 * SI[dim][a] / SI[dim][b], rel=1e-12)
    assert units.convert(units.convert(2.5, a, b), b, a) == pytest.approx(2.5, rel=1e-12)


@pytest.mark.parametrize("per_area,total", [("depth_rate", "flow"), ("depth", "volume")])
def test_every_pair_across_an_area(per_area, total):
    area_km2 = 1924.0
    for a, b in itertools.product(SI[per_area], SI[total]):
        want = 3.0 * SI[per_area][a] * area_km2 * 1e6 / SI[total][b]
        assert units.convert(3.0, a, b, area_km2=area_km2) == pytest.approx(want, rel=1e-12), (a, b)
        assert units.convert(want, b, a, area_km2=area_km2) == pytest.approx(3.0, rel=1e-12), (b, a)


def test_known_values():
    assert units.convert(1, "ft3/s", "m3/s") == pytest.approx(0.028316846592, rel=1e-12)
    assert units.convert(1, "acre-ft", "m3") == pytest.approx(1233.48183754752, rel=1e-12)
    assert units.convert(1, "mm/d", "m3/s", area_km2=100) == pytest.approx(1.157407407, rel=1e-9)
    assert units.convert(1, "l/s/km2", "mm/d") == pytest.approx(0.0864, rel=1e-12)
    assert units.convert(1, "ft3/s/mi2", "l/s/km2") == pytest.approx(10.9327, rel=1e-4)
    assert units.convert(10, "mgd", "Ml/d") == pytest.approx(37.85411784, rel=1e-12)


def test_what_does_not_convert_is_refused_naming_it():
    with pytest.raises(UnitError, match="catchment area"):
        units.convert(1, "mm/d", "m3/s")
    with pytest.raises(UnitError, match="catchment area"):
        units.convert(1, "mm", "hm3", area_km2=0)
    with pytest.raises(UnitError, match="duration"):
        units.convert(1, "acre-ft", "m3/s")
    with pytest.raises(UnitError, match="different quantities"):
        units.convert(1, "km2", "m3/s")
    with pytest.raises(UnitError, match="unit"):
        units.parse_unit("furlongs per fortnight")


@pytest.mark.parametrize("text,unit", [("cumecs", "m3/s"), ("cms", "m3/s"), ("m³/s", "m3/s"), ("cfs", "ft3/s"),
                                       ("cubic feet per second", "ft3/s"), ("cusecs", "ft3/s"), ("Ml/d", "Ml/d"),
                                       ("megalitres per day", "Ml/d"), ("acre-feet", "acre-ft"), ("hm³", "hm3"),
                                       ("million m3", "hm3"), ("l/s/km²", "l/s/km2"), ("csm", "ft3/s/mi2"),
                                       ("mm/day", "mm/d"), ("sq mi", "mi2"), ("hectares", "ha")])
def test_spellings(text, unit):
    assert units.parse_unit(text) == unit


def test_quantities_and_the_asked_unit():
    q = units.quantities_in("Can a reservoir of 5,000 acre-feet supply a demand of 10 cfs, or 2 hm3 a year?")
    assert [(x["value"], x["unit"], x["dimension"]) for x in q] == [
        (5000.0, "acre-ft", "volume"), (10.0, "ft3/s", "flow"), (2.0, "hm3/year", "flow")]
    assert units.asked_unit("What is the 50-year flood in cfs at the gauge?") == "ft3/s"
    assert units.asked_unit("How many cumecs is the 100-year flood?") == "m3/s"
    assert units.asked_unit("Can we take 10 cfs for supply?") is None  # a stated demand, not the answer's unit
    assert units.asked_unit("Give the 10-year flood in l/s/km2", "depth_rate") == "l/s/km2"
