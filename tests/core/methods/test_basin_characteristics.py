"""Every characteristic the NSS library's equations take is said in words: what it is, its unit, where it is found."""

from __future__ import annotations

from aquascope_core.methods import basin_characteristics as bc
from aquascope_core.methods.regression import equation_library


def _codes() -> dict[str, str]:
    seen: dict[str, str] = {}
    for st in equation_library()["states"].values():
        for reg in st["regions"].values():
            for code, (unit, _lo, _hi) in reg["variables"].items():
                seen.setdefault(code, unit)
    return seen


def test_the_common_codes_are_described_and_every_code_gets_words():
    codes = _codes()
    counts: dict[str, int] = {}
    for st in equation_library()["states"].values():
        for code in {c for reg in st["regions"].values() for c in reg["variables"]}:
            counts[code] = counts.get(code, 0) + 1
    common = [c for c, n in counts.items() if n >= 3]  # a code three or more states' equations take
    assert len(common) >= 15 and all(c in bc.DESCRIPTIONS for c in common), [c for c in common
                                                                          if c not in bc.DESCRIPTIONS]
    for code, unit in codes.items():
        text = bc.characteristic_text(code, unit)
        assert text.startswith(f"{code} ({unit}): ") and len(text) > len(code) + len(unit) + 10, text
        assert (bc.describe(code) == "as the region's report defines it") == (code not in bc.DESCRIPTIONS)


def test_drainage_area_and_the_entry_a_data_request_carries():
    e = bc.characteristic_entry("DRNAREA", "mi^2")
    assert e["code"] == "DRNAREA" and e["unit"] == "mi^2"
    assert "drainage area" in e["description"] and "upstream of the site" in e["description"]
    assert "StreamStats basin-characteristics report" in e["where"]
    assert bc.characteristic_text("I24H50Y", "in").endswith("24-hour storm with a 50-year recurrence interval "
                                                             "(2 % annual exceedance probability)")
    assert bc.unit_text("mi^2") == "mi2" and bc.unit_text("dim") == "dimensionless"
    assert bc.characteristics_text({"DRNAREA": "mi^2", "XYZ": "%"}).split("; ")[1] == (
        "XYZ (%): as the region's report defines it")
