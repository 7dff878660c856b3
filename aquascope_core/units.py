"""Units and quantities: the one conversion layer for flows, volumes, depths over an area and rates per area.

Every unit the crew meets is a dimension and a factor to SI:

============  ==========  ==========================================================================
dimension     SI          units
============  ==========  ==========================================================================
flow          m3/s        m3/s (cumecs), l/s, ft3/s (cfs, cusecs), kcfs, Ml/d, mgd, hm3/year, acre-ft/year
volume        m3          m3, hm3 (million m3), Ml, acre-ft, ft3
depth_rate    m/s         mm/d, mm/h, in/d, l/s/km2, m3/s/km2, ft3/s/mi2 (a flow per unit of catchment area)
depth         m           mm, in, m (a volume spread over the catchment)
area          m2          km2, mi2, ha, acre, m2
============  ==========  ==========================================================================

:func:`convert` converts within a dimension, and between a flow and a depth rate (or a volume and a depth)
when the catchment area is given: a runoff depth of 1 mm/d over 100 km2 is 1.157 m3/s. Nothing else is
converted (a volume is not a flow without a duration); a unit it does not know, or an area it needs and was
not given, is a :class:`UnitError` naming the unit and what would be valid.

:func:`parse_unit` reads a unit as people write it ("cumecs", "cubic feet per second", "acre-feet",
"l/s/km²"); :func:`quantities_in` reads the numbers with a unit in a text ("a demand of 10 cfs", "5,000
acre-feet of storage"); :func:`asked_unit` is the unit a question asks its answer in ("the 50-year flood in
cfs", "how many cumecs"). This module is the source of truth for conversions: a display default elsewhere
(a US site shown in ft3/s first) gives way to the unit the request names.

Factors: 1 ft = 0.3048 m exactly; 1 US gallon = 3.785411784 l exactly; 1 acre-foot = 43,560 ft3 =
1,233.48183754752 m3; 1 mi = 1,609.344 m; a year of 365.25 days.
"""

from __future__ import annotations

import re
from typing import Any

from aquascope_core.errors import UnitError

__all__ = ["UNITS", "DIMENSIONS", "parse_unit", "dimension", "convert", "conversion_factor", "quantities_in",
           "asked_unit", "units_named", "label"]

_FT = 0.3048
_FT3 = 0.028316846592  # 0.3048 ** 3, exactly
_MI2 = 1609.344 ** 2
_DAY = 86_400.0
_YEAR = 365.25 * _DAY
_ACRE = 43_560 * _FT ** 2
_ACRE_FT = _ACRE * _FT
_GALLON = 3.785411784e-3

# unit -> (dimension, factor to SI)
UNITS: dict[str, tuple[str, float]] = {
    "m3/s": ("flow", 1.0),
    "l/s": ("flow", 1e-3),
    "ft3/s": ("flow", _FT3),
    "kcfs": ("flow", 1e3 * _FT3),
    "Ml/d": ("flow", 1e3 / _DAY),
    "mgd": ("flow", 1e6 * _GALLON / _DAY),
    "hm3/year": ("flow", 1e6 / _YEAR),
    "acre-ft/year": ("flow", _ACRE_FT / _YEAR),
    "m3": ("volume", 1.0),
    "hm3": ("volume", 1e6),
    "Ml": ("volume", 1e3),
    "acre-ft": ("volume", _ACRE_FT),
    "ft3": ("volume", _FT3),
    "mm/d": ("depth_rate", 1e-3 / _DAY),
    "mm/h": ("depth_rate", 1e-3 / 3600.0),
    "in/d": ("depth_rate", 0.0254 / _DAY),
    "l/s/km2": ("depth_rate", 1e-3 / 1e6),
    "m3/s/km2": ("depth_rate", 1.0 / 1e6),
    "ft3/s/mi2": ("depth_rate", _FT3 / _MI2),
    "mm": ("depth", 1e-3),
    "in": ("depth", 0.0254),
    "m": ("depth", 1.0),
    "km2": ("area", 1e6),
    "mi2": ("area", _MI2),
    "ha": ("area", 1e4),
    "acre": ("area", _ACRE),
    "m2": ("area", 1.0),
}
DIMENSIONS = ("flow", "volume", "depth_rate", "depth", "area")
# A depth rate times an area is a flow; a depth times an area is a volume.
_OVER_AREA = {"depth_rate": "flow", "depth": "volume"}

# Spellings (lowercase, as written; longest first when matched in text) -> unit.
_SPELLINGS: tuple[tuple[str, str], ...] = (
    (r"l\s*/\s*s\s*/\s*km\s*(?:2|²|\^2)|l/s per (?:sq\.? ?)?km(?:2|²)?|lit(?:re|er)s? per second per square kilomet(?:re|er)", "l/s/km2"),
    (r"m(?:3|³)\s*/\s*s\s*/\s*km\s*(?:2|²)", "m3/s/km2"),
    (r"(?:cfs|ft(?:3|³)\s*/\s*s)\s*(?:/|per)\s*(?:sq\.? ?mi(?:le)?|mi(?:2|²))|csm", "ft3/s/mi2"),
    (r"acre[- ]?f(?:ee|oo)?t\s*(?:/|per|a|each)\s*(?:yr|year|annum)|af\s*(?:/|per)\s*(?:yr|year)|afy", "acre-ft/year"),
    (r"(?:hm(?:3|³)|million (?:m(?:3|³)|cubic met(?:re|er)s?))\s*(?:/|per|a|each)\s*(?:yr|year|annum)", "hm3/year"),
    (r"cumecs?|cms|m(?:3|³|\^3)\s*/\s*s(?:ec)?|cubic met(?:re|er)s? (?:per|a) second", "m3/s"),
    (r"kcfs|thousand cfs", "kcfs"),
    (r"cfs|cusecs?|ft(?:3|³|\^3)\s*/\s*s(?:ec)?|cubic f(?:ee|oo)t (?:per|a) second|second[- ]feet", "ft3/s"),
    (r"ml\s*/\s*d(?:ay)?|mld|megalit(?:re|er)s? (?:per|a) day", "Ml/d"),
    (r"mgd|million (?:us )?gallons (?:per|a) day", "mgd"),
    (r"l\s*/\s*s(?:ec)?|lps|lit(?:re|er)s? (?:per|a) second", "l/s"),
    (r"mm\s*/\s*d(?:ay)?|mm d-1|mm per day|millimet(?:re|er)s? (?:per|a) day", "mm/d"),
    (r"mm\s*/\s*h(?:r|our)?|mm per hour", "mm/h"),
    (r"in(?:ches)?\s*/\s*d(?:ay)?|inch(?:es)? per day", "in/d"),
    (r"acre[- ]?f(?:ee|oo)?t|acre[- ]?ft|ac[- ]?ft", "acre-ft"),
    (r"hm(?:3|³)|million (?:m(?:3|³)|cubic met(?:re|er)s?)|gigalit(?:re|er)s?|gl", "hm3"),
    (r"megalit(?:re|er)s?|ml", "Ml"),
    (r"m(?:3|³)|cubic met(?:re|er)s?", "m3"),
    (r"ft(?:3|³)|cubic f(?:ee|oo)t", "ft3"),
    (r"km(?:2|²|\^2)|sq\.? ?km|square kilomet(?:re|er)s?", "km2"),
    (r"mi(?:2|²)|sq\.? ?mi(?:les?)?|square miles?", "mi2"),
    (r"hectares?|ha", "ha"),
    (r"acres?", "acre"),
    (r"mm|millimet(?:re|er)s?", "mm"),
)
_COMPILED = [(re.compile(r"(?<![a-z0-9])(?:" + p + r")(?![a-z0-9²³])"), u) for p, u in _SPELLINGS]


def _clean(text: str) -> str:
    return " ".join(str(text).lower().replace("³", "3").replace("²", "2").replace("\u00a0", " ").split())


def parse_unit(text: Any) -> str:
    """The canonical unit a text names ("cumecs" -> "m3/s", "acre-feet" -> "acre-ft"); UnitError when unknown."""
    if isinstance(text, str) and text in UNITS:
        return text
    low = _clean(text) if isinstance(text, str) else ""
    for rx, unit in _COMPILED:
        if rx.fullmatch(low):
            return unit
    raise UnitError.bad_value("unit", text, "a unit such as " + ", ".join(UNITS))


def dimension(unit: str) -> str:
    """The dimension of a unit: flow, volume, depth_rate, depth or area."""
    return UNITS[parse_unit(unit)][0]


def _clean_float(x: float) -> float:
    """The factor to 15 significant figures: 86.4, not 86.39999999999999 (binary noise of the SI round trip)."""
    return float(f"{x:.15g}")


def conversion_factor(from_unit: str, to_unit: str, *, area_km2: float | None = None) -> float:
    """The factor that turns a value in ``from_unit`` into ``to_unit`` (see :func:`convert`)."""
    a, b = parse_unit(from_unit), parse_unit(to_unit)
    (da, fa), (db, fb) = UNITS[a], UNITS[b]
    if da == db:
        return _clean_float(fa / fb)
    if _OVER_AREA.get(da) == db or _OVER_AREA.get(db) == da:
        if area_km2 is None or isinstance(area_km2, bool) or not float(area_km2) > 0:
            raise UnitError(f"converting {a} to {b} needs the catchment area (got area_km2={area_km2!r}); "
                            "a depth over the catchment is a flow or a volume only with its area",
                            argument="area_km2", value=area_km2, recovery="Give the catchment area in km2 (> 0).")
        area_m2 = float(area_km2) * 1e6
        return _clean_float(fa * area_m2 / fb if _OVER_AREA.get(da) == db else fa / (area_m2 * fb))
    raise UnitError(f"{a} ({da}) cannot be converted to {b} ({db}): "
                    + ("a volume is a flow only over a stated duration" if {da, db} == {"flow", "volume"}
                       else "they measure different quantities"),
                    argument="to_unit", value=to_unit, recovery=f"Convert {a} to another {da} unit.")


def convert(value: float, from_unit: str, to_unit: str, *, area_km2: float | None = None) -> float:
    """``value`` in ``from_unit`` expressed in ``to_unit``; a depth rate and a flow (or a depth and a volume)
    convert through the catchment area ``area_km2``."""
    return float(value) * conversion_factor(from_unit, to_unit, area_km2=area_km2)


def label(unit: str) -> str:
    """The unit as a report writes it."""
    return parse_unit(unit)


_NUMBER = r"(?P<num>[-−]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[-−]?\d+(?:[.,]\d+)?)"


def _find(low: str) -> list[tuple[int, int, str]]:
    """(start, end, unit) of every unit spelled in ``low``, longest spelling first, without overlaps."""
    spans: list[tuple[int, int, str]] = []
    for rx, unit in _COMPILED:
        for m in rx.finditer(low):
            if not any(s < m.end() and m.start() < e for s, e, _ in spans):
                spans.append((m.start(), m.end(), unit))
    return sorted(spans)


def units_named(text: str) -> list[str]:
    """The units a text names, in order (each once)."""
    out: list[str] = []
    for _, _, unit in _find(_clean(text)):
        if unit not in out:
            out.append(unit)
    return out


def quantities_in(text: str) -> list[dict[str, Any]]:
    """The numbers stated with a unit: ``{value, unit, dimension, stated}`` each, in order."""
    low = _clean(text)
    out = []
    for start, end, unit in _find(low):
        m = re.search(_NUMBER + r"\s*(?:-\s*)?$", low[:start])
        if not m:
            continue
        raw = m.group("num").replace("−", "-")
        num = float(raw.replace(",", "") if re.fullmatch(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?", raw) else raw.replace(",", "."))
        out.append({"value": num, "unit": unit, "dimension": UNITS[unit][0], "stated": low[m.start():end].strip()})
    return out


def asked_unit(text: str, dimension_wanted: str = "flow") -> str | None:
    """The unit of ``dimension_wanted`` a question asks its answer in: one named without a number before it
    ("the 100-year flood in cfs", "how many cumecs", "give it in l/s"); None when the text names none."""
    low = _clean(text)
    for start, end, unit in _find(low):
        if UNITS[unit][0] != dimension_wanted:
            continue
        if re.search(r"\d[\d,.]*\s*(?:-\s*)?$", low[:start]):
            continue  # a stated quantity (a demand), not the unit of the answer
        return unit
    return None
