"""Intake items the site's own data can give, derived once the Scout knows what is there.

A playbook marks such an item ``derive: <rule>`` (and gives it no default). When the user did not state it,
the rule reads the record the study will use and sets the value, with an assumption that says how it was
found; when the record cannot give it, the item is left out and the playbook's decline names it (and the
question that would settle it). Rules:

- ``planting_month``: the month a crop goes in, from the climate record's season: the first month after the
  coldest one whose mean daily air temperature reaches the crop's minimum for growth; without a temperature
  record, the first month after the least evaporative one whose mean potential evapotranspiration rises
  above its annual mean (the start of the warm season).
- ``q95_pass_by``: the flow to leave in the river, the record's Q95 (the daily flow exceeded on 95 % of days,
  a common hands-off flow), in m3/s.

An item with a default is derived too when the user did not state it (the default is what the engine alone
uses, and what stays, said as such, when the records cannot give the value).
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Mapping

from aquascope_core import units
from aquascope_core import playbooks
from aquascope_core.workspace import Workspace

__all__ = ["derive_intake", "RULES", "CROP_MIN_TEMPERATURE_C"]

log = logging.getLogger(__name__)

_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                "November", "December")
# Mean daily air temperature (deg C) a crop needs before it is planted: 10 for warm-season crops (maize, sorghum,
# soybean, cotton, rice, tomato; the usual soil-temperature rule for maize and soybean), 5-7 for cool-season ones.
CROP_MIN_TEMPERATURE_C = {"maize": 10.0, "maize_high_moisture": 10.0, "sorghum": 12.0, "soybean": 10.0,
                          "cotton": 15.0, "rice": 12.0, "tomato": 12.0, "potato": 7.0, "wheat_spring": 5.0,
                          "wheat_winter": 5.0, "alfalfa": 5.0, "sugar_beet": 5.0, "citrus": 12.0, "grapes": 10.0}
_TO_M3S = {u: units.conversion_factor(u, "m3/s") for u in ("m3/s", "l/s", "ft3/s", "kcfs")}  # aquascope_core.units


def _station_with(recon: Mapping[str, Any], variables: tuple[str, ...]) -> tuple[dict[str, Any], str] | None:
    for st in recon.get("stations") or []:
        for v in st.get("variables") or []:
            if v.get("variable") in variables and v.get("usable", v.get("offline", True)):
                return st, v["variable"]
    return None


def _monthly_climatology(series: Any) -> list[float] | None:
    s = series.dropna()
    if len(s) < 365:
        return None
    by_month = s.groupby(s.index.month).mean()
    if len(by_month) < 12:
        return None
    return [float(by_month.loc[m]) for m in range(1, 13)]


def _first_after(values: list[float], start: int, holds: Callable[[float], bool]) -> int | None:
    """The first month (1-12) after month ``start`` (1-12), going round the year, whose value holds."""
    for k in range(1, 13):
        m = (start - 1 + k) % 12 + 1
        if holds(values[m - 1]):
            return m
    return None


def _planting_month(ws: Workspace, data: Any, intake: Mapping[str, Any]) -> tuple[Any, str]:
    recon = (ws.inventory or {}).get("recon") or {}
    crop = intake.get("crop")
    threshold = CROP_MIN_TEMPERATURE_C.get(str(crop), 10.0)
    found = _station_with(recon, ("air_temperature",)) or _station_with(recon, ("air_temperature_max",))
    if found:
        st, var = found
        clim = _monthly_climatology(data.fetch_series(st["source"], st["station_id"], var))
        if clim:
            coldest = min(range(12), key=lambda i: clim[i]) + 1
            month = _first_after(clim, coldest, lambda t: t >= threshold)
            if month is not None and month != coldest:
                return month, (f"derived from the season at {st.get('name') or st['station_id']}: "
                               f"{_MONTH_NAMES[month - 1]} is the first month after the coldest "
                               f"({_MONTH_NAMES[coldest - 1]}) whose mean daily {var.replace('_', ' ')} reaches "
                               f"{threshold:g} degC, the minimum for {str(crop).replace('_', ' ')}")
            return None, (f"the {var.replace('_', ' ')} record at {st.get('name') or st['station_id']} has no "
                          f"month that rises to {threshold:g} degC after a colder one")
    found = _station_with(recon, ("potential_evapotranspiration",))
    if found:
        st, var = found
        clim = _monthly_climatology(data.fetch_series(st["source"], st["station_id"], var))
        if clim:
            mean = sum(clim) / 12.0
            lowest = min(range(12), key=lambda i: clim[i]) + 1
            month = _first_after(clim, lowest, lambda e: e > mean)
            if month is not None:
                return month, (f"derived from the season at {st.get('name') or st['station_id']}: "
                               f"{_MONTH_NAMES[month - 1]} is the first month after the least evaporative "
                               f"({_MONTH_NAMES[lowest - 1]}) whose mean potential evapotranspiration rises above "
                               "its annual mean, taken as the start of the warm season (no temperature record is "
                               "held)")
    return None, "no temperature or evapotranspiration record within reach shows the season"


def _q95_pass_by(ws: Workspace, data: Any, intake: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.methods.flows import flow_duration_curve

    recon = (ws.inventory or {}).get("recon") or {}
    found = _station_with(recon, ("discharge",))
    if not found:
        return None, "no daily discharge record within reach gives a Q95"
    st, var = found
    series = data.fetch_series(st["source"], st["station_id"], var)
    unit = str(series.attrs.get("unit") or "")
    out = flow_duration_curve(series.dropna(), unit=unit or "m3/s")
    q95 = (out.get("quantiles") or {}).get("Q95")
    if q95 is None:
        return None, "the discharge record gives no Q95"
    if unit in _TO_M3S:
        value = q95 * _TO_M3S[unit]
    elif unit == "mm/d" and st.get("area_km2"):
        value = q95 * float(st["area_km2"]) / 86.4
    else:
        return None, f"the discharge record's unit ({unit or 'unknown'}) cannot be turned into m3/s"
    value = float(f"{value:.3g}")
    s = series.dropna()
    return value, (f"the Q95 of the daily flow at {st.get('name') or st['station_id']} (the flow exceeded on 95 % "
                   f"of days, {s.index[0].date().isoformat()} to {s.index[-1].date().isoformat()}), left in the "
                   "river as a hands-off flow before any abstraction")


RULES: dict[str, Callable[[Workspace, Any, Mapping[str, Any]], tuple[Any, str]]] = {
    "planting_month": _planting_month,
    "q95_pass_by": _q95_pass_by,
}


def derive_intake(ws: Workspace, data: Any) -> list[str]:
    """Set the brief's missing ``derive:`` items from the site's data; returns the assumptions added."""
    brief = ws.brief or {}
    pid = brief.get("playbook")
    if not pid or not brief.get("ready"):
        return []
    pb = playbooks.load(pid)
    intake = dict(brief.get("intake") or {})
    stated = brief.get("intake_stated") or {}
    added: list[str] = []
    underived: list[dict[str, str]] = []
    for q in pb.get("intake", []):
        rule = q.get("derive")
        name = q["name"]
        if not rule or name in stated or rule not in RULES:
            continue
        try:
            value, how = RULES[rule](ws, data, intake)
        except Exception as exc:  # noqa: BLE001 - a record that cannot be read derives nothing
            log.info("derive %s failed: %s", name, exc)
            value, how = None, f"the record could not be read ({exc})"
        if value is None:
            underived.append({"field": name, "why": how})
            if intake.get(name) is not None:  # the playbook's default stands, and says why
                added.append(f"{q.get('label', name)}: {intake[name]:g} (default; the site's records could not "
                             f"give it: {how})" if isinstance(intake[name], (int, float)) else
                             f"{q.get('label', name)}: {intake[name]} (default; {how})")
            continue
        intake[name] = value
        shown = _MONTH_NAMES[value - 1] if rule == "planting_month" else f"{value:g}"
        added.append(f"{q.get('label', name)}: {shown}, {how}")
    if added or underived:
        intake = playbooks.coerce_intake(pb, intake)
        ws.brief = {**brief, "intake": intake, "assumptions": [*(brief.get("assumptions") or []), *added],
                    **({"derived": [a for a in added]} if added else {}),
                    **({"underived": underived} if underived else {})}
        for a in added:
            ws.event("scout", "derived", {"assumption": a})
    return added
