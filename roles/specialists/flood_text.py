"""How a flood report states its flows (by the one units rule of aquascope_core.report_units) and its skew."""

from __future__ import annotations

from typing import Any, Mapping

from aquascope_core.report_units import display, flow_text, is_us_site

__all__ = ["us_study", "us_payload", "stated", "stated_band", "skew_clause", "table_units", "key_number_cells"]


def us_study(study: Mapping[str, Any], brief: Mapping[str, Any]) -> bool:
    """Whether the study is at a U.S. site (its gauge, else its position)."""
    plan = study.get("plan") or {}
    station = plan.get("station") or {}
    site = (brief.get("site") or plan.get("site") or (study.get("problem") or {}).get("site") or study.get("site")
            or {})
    return is_us_site(station or None, lat=site.get("lat"), lon=site.get("lon"))


def us_payload(payload: Mapping[str, Any]) -> bool:
    """Whether a step's result is of a U.S. gauge (its station block, the site number of its peak file, or the
    position it was asked for)."""
    station = dict(payload.get("station") or {})
    site_no = (payload.get("peakfq") or {}).get("site_no")
    if site_no and not str(station.get("station_id") or "").split(".")[0].isdigit():
        station.update({"station_id": str(site_no), "peakfq": True})
    where = payload.get("target") if isinstance(payload.get("target"), Mapping) else payload
    return is_us_site(station or None, lat=where.get("lat"), lon=where.get("lon"))


def stated(value: Any, unit: str, us: bool, said: list[float]) -> str:
    """The value as the report states it (``"24,600 ft3/s (697 m3/s)"``); the numbers written go into ``said``."""
    text, nums = flow_text(value, unit, us)
    said.extend(nums)
    return text


def stated_band(lower: Any, upper: Any, unit: str, us: bool, said: list[float]) -> str:
    """``"18,900 to 36,100 ft3/s (535 to 1,020 m3/s)"`` under the rule."""
    if lower is None or upper is None:
        return "not established"
    lo, lo_n = flow_text(lower, unit, us)
    hi, hi_n = flow_text(upper, unit, us)
    said.extend(lo_n + hi_n)
    first, second = display(unit, us)
    if not second or first is None or "(" not in lo:
        return f"{lo.rsplit(' ', 1)[0]} to {hi}"
    lo1, lo2 = lo.split(" (")
    hi1, hi2 = hi.split(" (")
    return f"{lo1.rsplit(' ', 1)[0]} to {hi1}; {lo2.rsplit(' ', 1)[0]} to {hi2.rstrip(')')}"


def skew_clause(b17: Mapping[str, Any]) -> str:
    """The one sentence part that says which skew was used and where it comes from (one gauge, one sentence)."""
    from roles.specialists.common import fmt

    fit = (b17.get("fits") or {}).get("lp3_ema") or {}
    skew = b17.get("regional_skew_used") or {}
    at_site = fmt(fit.get("at_site_skew"))
    if skew.get("skew") is None:
        why = str(skew.get("source") or "none").removeprefix("none: ").removeprefix("none ")
        return f"the at-site skew {at_site} alone (no published regional skew is available: {why})"
    option = fit.get("skew_option")
    if option == "station":
        return (f"the at-site skew {at_site} alone, as the specification asks (the regional skew "
                f"{fmt(skew['skew'])} of {skew.get('source')} is not weighted in)")
    return (f"the at-site skew {at_site} weighted with the regional skew {fmt(skew['skew'])} (MSE "
            f"{fmt(skew.get('mse'))}), {skew.get('source')}")


def table_units(unit: str | None, payload: Mapping[str, Any]) -> tuple[str | None, str | None, float, float | None]:
    """(the unit a table states first, the one in brackets, factor from the result's unit to each)."""
    from aquascope_core.report_units import FACTORS, convert

    first, second = display(unit, us_payload(payload))
    if unit not in FACTORS:
        return unit, None, 1.0, None
    return first, second, convert(1.0, unit, first), (convert(1.0, unit, second) if second else None)


def key_number_cells(kn: Mapping[str, Any], us: bool) -> tuple[str, str, str]:
    """(value, unit, band) cells of a key number under the rule: the first unit's value, the unit with the other
    unit's value in brackets, the band in the first unit."""
    from aquascope_core.report_units import FACTORS, convert
    from roles.specialists.common import band_text, fmt

    unit = kn.get("unit") or ""
    first, second = display(unit, us)
    if unit not in FACTORS or first is None:
        return fmt(kn["value"]), unit, band_text(kn.get("band"))
    b = dict(kn.get("band") or {})
    if b.get("lower") is not None:
        b = {**b, "lower": convert(b["lower"], unit, first), "upper": convert(b["upper"], unit, first)}
    unit_cell = first + (f" ({fmt(convert(kn['value'], unit, second))} {second})" if second else "")
    return fmt(convert(kn["value"], unit, first)), unit_cell, band_text(b)
