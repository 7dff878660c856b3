"""The units a report states flows and areas in: one rule for the text, the tables, the figures and the workbook.

At a U.S. site the client works in ft3/s and mi2 (the USGS's units): flows and areas are stated in those first,
SI in brackets. Elsewhere SI (m3/s, km2), the record's own unit in brackets when it is not SI. :func:`display`
is the rule; everything else here applies it. A runoff depth (mm/d) or an unknown unit is stated as it is.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

__all__ = ["display", "is_us_site", "flow_text", "area_text", "axis_label", "convert", "FACTORS", "restated_numbers"]

_FT3 = 0.028316846592  # m3 per ft3 (exact by the definition of the foot)
_MI2 = 2.589988110336  # km2 per mi2
# unit -> (dimension, factor to the SI unit of that dimension)
FACTORS: dict[str, tuple[str, float]] = {"m3/s": ("flow", 1.0), "ft3/s": ("flow", _FT3), "cfs": ("flow", _FT3),
                                         "kcfs": ("flow", 1000 * _FT3), "l/s": ("flow", 0.001),
                                         "km2": ("area", 1.0), "mi2": ("area", _MI2), "sq mi": ("area", _MI2)}
_US = {"flow": "ft3/s", "area": "mi2"}
_SI = {"flow": "m3/s", "area": "km2"}
_US_STATES = set("AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY "
                 "NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR VI GU AS MP".split())
_US_SOURCES = {"usgs", "usgs_live", "wymt_2022", "published", "catalogue"}


def convert(value: float, unit: str, to: str) -> float:
    """``value`` in ``unit`` expressed in ``to`` (same dimension)."""
    a, b = FACTORS[unit], FACTORS[to]
    if a[0] != b[0]:
        raise ValueError(f"cannot convert {unit} to {to}")
    return float(value) * a[1] / b[1]


def display(unit: str | None, us: bool) -> tuple[str | None, str | None]:
    """The rule: (the unit stated first, the unit in brackets or None) for a quantity recorded in ``unit``."""
    u = str(unit or "").strip()
    if u not in FACTORS:
        return (u or None), None
    dim = FACTORS[u][0]
    if us:
        return _US[dim], _SI[dim]
    return _SI[dim], (u if u != _SI[dim] else None)


def _fmt(x: float) -> str:
    """Three significant figures, thousands separated (as the report rounds prose)."""
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    digits = max(0, 2 - int(math.floor(math.log10(abs(x)))))
    return f"{_three(x):,.{digits}f}"


def _three(x: float) -> float:
    if x == 0 or not math.isfinite(x):
        return x
    return round(x, 2 - int(math.floor(math.log10(abs(x)))))


def flow_text(value: float | None, unit: str | None, us: bool) -> tuple[str, list[float]]:
    """``"24,600 ft3/s (697 m3/s)"`` and the numbers written (for the report's evidence), by :func:`display`."""
    if value is None:
        return "not established", []
    first, second = display(unit, us)
    if unit not in FACTORS:
        return f"{_fmt(value)} {unit or ''}".strip(), [float(value)]
    a = convert(value, unit, first)
    text = f"{_fmt(a)} {first}"
    written = [_three(a)]
    if second:
        b = convert(value, unit, second)
        text += f" ({_fmt(b)} {second})"
        written.append(_three(b))
    return text, written


def area_text(km2: float | None, us: bool) -> tuple[str, list[float]]:
    """``"8,030 mi2 (20,800 km2)"`` at a U.S. site, ``"20,800 km2"`` elsewhere."""
    if km2 is None:
        return "not known", []
    return flow_text(km2, "km2", us)


def axis_label(quantity: str, unit: str | None, us: bool) -> str:
    """A figure axis label under the rule: ``"Peak flow (ft³/s; m³/s right)"``-style labels are drawn by the figure;
    this gives the primary one, ``"Peak flow (ft3/s)"``."""
    first, _ = display(unit, us)
    return f"{quantity} ({first})" if first else quantity


def is_us_site(station: Mapping[str, Any] | None = None, *, lat: float | None = None, lon: float | None = None) -> bool:
    """Whether a study is at a U.S. site: its station is a USGS gauge (a state, or a USGS site number from a USGS
    source or a peak file), else the site lies within 25 km of a gauge of the USGS catalogue."""
    st = dict(station or {})
    state = st.get("state") or (st.get("attributes") or {}).get("state")
    if state:
        return str(state).upper() in _US_STATES
    sid = str(st.get("station_id") or "").split(".")[0]
    if sid.isdigit() and 8 <= len(sid) <= 15 and (st.get("source") in _US_SOURCES or st.get("peakfq")):
        return True
    if st.get("lat") is not None and st.get("lon") is not None:
        lat, lon = st.get("lat"), st.get("lon")
    if lat is None or lon is None:
        return False
    try:
        from aquascope_core.data import catalogue

        near = catalogue().sources["usgs"].stations_near(float(lat), float(lon), radius_km=25, limit=1)
    except Exception:  # an invalid point is no U.S. site
        return False
    return bool(near)


def restated_numbers(obj: Any, unit: str | None = None) -> list[float]:
    """Every number of a result restated in the rule's other units: a value under a dict whose ``unit`` is a flow
    or an area, converted to ft3/s and m3/s (mi2 and km2). The report's checks accept these as held by the result."""
    out: list[float] = []
    _restate(obj, unit, out)
    return out


def _restate(obj: Any, unit: str | None, out: list[float]) -> None:
    t = type(obj)
    if t is float or t is int:  # the common leaves first (isinstance against the abstract types is slow)
        if unit and math.isfinite(obj):
            dim = FACTORS[unit][0]
            for to in (_US[dim], _SI[dim]):
                if to != unit:
                    out.append(convert(obj, unit, to))
        return
    if t is str or obj is None:
        return
    if t is dict or (t is not list and t is not tuple and isinstance(obj, Mapping)):
        u = obj.get("unit") if isinstance(obj.get("unit"), str) and obj.get("unit") in FACTORS else unit
        for k, v in obj.items():
            if k in ("meta", "plot"):
                continue
            _restate(v, u, out)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _restate(v, unit, out)
    elif unit and isinstance(obj, (int, float)) and not isinstance(obj, bool) and math.isfinite(obj):
        dim = FACTORS[unit][0]
        for to in (_US[dim], _SI[dim]):
            if to != unit:
                out.append(convert(obj, unit, to))


def figure_quantity(payload: Mapping[str, Any], context: Mapping[str, Any], default: str) -> str:
    """What a flood figure's value axis shows, named as the report names it: a step may say so with ``basis``
    (in its payload or its arguments: ``instantaneous``/``peak``, ``daily_mean``) or ``quantity`` (the words)."""
    args = context.get("arguments") or {}
    for src in (payload, args):
        if isinstance(src.get("quantity"), str) and src["quantity"].strip():
            return src["quantity"].strip()[:1].upper() + src["quantity"].strip()[1:]
    basis = str(payload.get("basis") or args.get("basis") or payload.get("label") or "").lower()
    if "daily" in basis:
        return "Maximum daily-mean flow"
    if "instantaneous" in basis or "peak" in basis or context.get("tool") == "bulletin17c_ema":
        return "Peak flow"
    return default


def label_flow_axis(ax: Any, quantity: str, unit: str | None, payload: Mapping[str, Any],
                    context: Mapping[str, Any]) -> None:
    """Label a figure's value axis by the rule: the data's unit on the left, the rule's other unit on a right-hand
    axis (ft3/s and m3/s at a U.S. site; the SI unit beside a non-SI record elsewhere)."""
    from aquascope_core.deliverables.figures_base import unit_label

    site = ((context.get("inventory") or {}).get("site") or {})
    us = is_us_site(payload.get("station") or None, lat=site.get("lat"), lon=site.get("lon"))
    ax.set_ylabel(unit_label(unit, quantity))
    first, second = display(unit, us)
    other = first if first != unit else second
    if unit in FACTORS and other and other != unit:
        k = convert(1.0, unit, other)
        sec = ax.secondary_yaxis("right", functions=(lambda y, k=k: y * k, lambda y, k=k: y / k))
        sec.set_ylabel(unit_label(other, quantity))
        from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

        plain = FuncFormatter(lambda v, _pos: f"{v:,.10g}" if abs(v) >= 1 or v == 0 else f"{v:.3g}")
        if ax.get_yscale() == "log":  # labelled as the left axis is (1,000 2,000 5,000), not 10^3 and 10^4 alone
            sec.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            sec.yaxis.set_minor_locator(NullLocator())
        else:  # thousands separated as in the text (25,000 ft3/s), on both sides
            ax.yaxis.set_major_formatter(plain)
        sec.yaxis.set_major_formatter(plain)
