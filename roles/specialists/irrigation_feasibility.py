"""Irrigation feasibility: the key numbers of the ET0 and crop-demand tools and the answer to "what does the crop
need, and can the river supply it?"."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from roles.specialists.common import fmt, grade_for_study, kn
from roles.specialists.supply_reliability import pct, steps_by_tool

__all__ = ["HARVESTERS", "TABLES", "decide", "recommendations", "DATA_REQUESTS"]

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def _rows(*rows: Any) -> list[dict[str, Any]]:
    return [r for r in rows if r]


def _reference_et(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    label = (p.get("et0") or {}).get("label", "")
    return _rows(
        kn(step, "mean_annual_mm", p, f"mean annual reference evapotranspiration ({label})", "mm"),
        kn(step, "peak_mm_per_day", p, f"reference evapotranspiration of the peak month ({MONTHS[p['peak_month'] - 1]})"
           if p.get("peak_month") else "reference evapotranspiration of the peak month", "mm/d"),
    )


def _crop_water_demand(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    share = p.get("design_non_exceedance")
    design = f"design season, not exceeded in {share * 100:.0f} % of seasons" if share else "design season"
    return _rows(
        kn(step, "design.gross_mm", p, f"gross irrigation demand, {design}", "mm", headline=True,
           method="crop_water_demand"),
        kn(step, "design.net_mm", p, f"net irrigation demand, {design}", "mm"),
        kn(step, "mean.gross_mm", p, "gross irrigation demand, mean season", "mm"),
        kn(step, "mean.net_mm", p, "net irrigation demand, mean season", "mm"),
        kn(step, "mean.etc_mm", p, "crop evapotranspiration, mean season", "mm"),
        kn(step, "mean.effective_rainfall_mm", p, "effective rainfall, mean season", "mm"),
        kn(step, "design.peak_l_per_s_per_ha", p, "peak gross demand as a continuous flow, design", "l/s/ha"),
        kn(step, "area.design_gross_m3", p, "gross irrigation volume for the whole area, design season", "m3"),
        kn(step, "area.design_peak_l_per_s", p, "peak gross demand for the whole area, design", "l/s"),
        kn(step, "n_seasons", p, "seasons in the climate record", None),
    )


HARVESTERS = {"reference_evapotranspiration": _reference_et, "crop_water_demand": _crop_water_demand}


def _result(found: Mapping[str, tuple[str, Mapping[str, Any]]], tool: str) -> tuple[str | None, Mapping[str, Any] | None,
                                                                                    Mapping[str, Any] | None]:
    sid, r = found.get(tool, (None, None))
    return sid, r, ((r.get("payload") or {}) if r is not None and r.get("status") == "ok" else None)


def decide(brief: Mapping[str, Any], study: Mapping[str, Any], run: Mapping[str, Any],
           kns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    intake = brief.get("intake") or {}
    station = (study.get("plan") or {}).get("station") or {}
    where = station.get("name") or "the site"
    found = steps_by_tool(run)
    sid, res, p = _result(found, "crop_water_demand")
    if p is None:
        reason = (res or {}).get("failed_reason") or "the crop water demand step did not run"
        return {"answer": f"The irrigation demand of {intake.get('crop')} at {where} is not established: {reason}.",
                "value": None, "unit": None, "band": None, "grade": "not established", "grade_reason": reason,
                "basis": None, "conditions": [], "what_would_change_it": ["a longer or more complete climate record"]}
    grade, why = grade_for_study(run, [sid])
    d, m = p["design"], p["mean"]
    month = int(p["planting"][:2])
    day = int(p["planting"][3:5])
    peak_month = MONTHS[p["peak_month_most_often"] - 1]
    ans = (f"{p['label']} planted on {day} {MONTHS[month - 1]} at {where} needs {fmt(d['gross_mm'])} mm of gross "
           f"irrigation in the design season (not exceeded in {pct(100 * p['design_non_exceedance'])} of the "
           f"{fmt(p['n_seasons'])} seasons of the record; {fmt(d['net_mm'])} mm net) and {fmt(m['gross_mm'])} mm in the "
           f"mean season, at an application efficiency of {fmt(p['application_efficiency'])}. The peak demand, most "
           f"often in {peak_month}, is {fmt(d['peak_l_per_s_per_ha'])} l/s per hectare")
    area = p.get("area")
    if area:
        ans += (f"; for {fmt(area['area_ha'])} ha that is {fmt(area['design_gross_m3'])} m3 in the design season and a "
                f"peak of {fmt(area['design_peak_l_per_s'])} l/s")
    ans += "."
    verdict = "demand_only"
    s_ror, r_ror, ror = _result(found, "run_of_river_reliability")
    if ror is not None:
        ef = ror.get("environmental_flow_m3s") or 0
        left = f" after leaving {fmt(ef)} m3/s in the river" if ef else ""
        ans += (f" The river at the gauge would have met this demand in full on {pct(ror['reliability_time_pct'])} of "
                f"the {fmt(ror['n_demand_days'])} irrigation days{left} ({pct(ror['reliability_volume_pct'])} of the "
                "volume)")
        seasons_ok = ror.get("reliability_annual_pct")
        if seasons_ok is not None:
            enough = seasons_ok >= 100 * p["design_non_exceedance"]
            verdict = "supply_sufficient" if enough else "supply_short"
            ans += (f", and in {pct(seasons_ok)} of seasons never fell short: "
                    + ("enough for the usual standard of the full demand in four seasons of five." if enough else
                       "short of the usual standard of the full demand in four seasons of five."))
        else:
            ans += "."
    elif r_ror is not None and not area:
        ans += " No irrigated area was given, so the river's supply was not checked against the demand."
        verdict = "supply_not_established"
    elif r_ror is not None:
        ans += f" Whether the river can supply it is not established: {r_ror.get('failed_reason') or r_ror.get('status')}."
        verdict = "supply_not_established"
    else:
        ans += " No river gauge with a daily record is within reach, so the supply is not assessed here."
    return {"answer": ans, "value": d["gross_mm"], "unit": "mm", "band": None, "basis": f"{sid}.design.gross_mm",
            "method": "crop_water_demand", "verdict": verdict, "grade": grade, "grade_reason": why,
            "conditions": ["the climate record represents the seasons to come",
                           "FAO-56 Table 12 crop coefficients for a sub-humid climate",
                           f"{(p.get('et0') or {}).get('label', 'the reference evapotranspiration')} stands for the "
                           "FAO-56 grass reference",
                           "a monthly balance without soil-water carry-over"],
            "what_would_change_it": ["a different planting date or crop variety (stage lengths)",
                                     "a drier or hotter climate than the record", "soil-water storage at planting",
                                     "conveyance losses between the source and the field"]}


def recommendations(run: Mapping[str, Any], decision: Mapping[str, Any]) -> list[str]:
    verdict = decision.get("verdict")
    recs = []
    if verdict == "supply_short":
        recs.append("The river alone falls short in too many seasons: size on-farm storage or a second source for the "
                    "peak months, or plant a smaller area.")
    elif verdict == "supply_sufficient":
        recs.append("Confirm the abstraction licence for the peak flow and the seasonal volume; the check assumes the "
                    "river's whole flow at the gauge is available.")
    elif verdict == "supply_not_established":
        recs.append("State the irrigated area (or bring a longer flow record) so the river's supply can be checked "
                    "against the demand.")
    elif verdict == "demand_only":
        recs.append("Find the source: the demand above is what the scheme must be sized for, and no river record "
                    "was available to check it against.")
    recs.append("Size the pumps and the conveyance on the design peak flow and check the annual volume against the "
                "source's licence.")
    recs.append("Where humidity, radiation and wind are measured near the site, recompute ET0 by FAO-56 "
                "Penman-Monteith and adjust the crop coefficients to the climate.")
    return recs


DATA_REQUESTS = [
    {"what": "daily humidity, solar radiation and wind near the site",
     "why": "ET0 is from a PET record or from temperatures only", "effect": "FAO-56 Penman-Monteith ET0 and climate-adjusted Kc"},
    {"what": "the soil's available water and the root depth",
     "why": "the monthly balance carries no soil water over", "effect": "a daily soil-water balance and schedule"},
    {"what": "the local planting dates and the variety's season length",
     "why": "the FAO-56 Table 11 stage lengths are generic", "effect": "a demand for the crop as grown here"},
]


def _et_tables(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    b = p.get("by_month") or {}
    rows = [[MONTHS[m - 1], fmt(r), fmt(t), fmt(n)] for m, r, t, n in
            zip(b.get("month") or [], b.get("mean_mm_per_day") or [], b.get("mean_mm_per_month") or [],
                b.get("n_years") or [])]
    return [{"columns": ["Month", "Mean ET0 (mm/d)", "Mean ET0 (mm/month)", "Years"], "rows": rows,
             "caption": f"Reference evapotranspiration by month ({(p.get('et0') or {}).get('label', '')})"}] if rows else []


def _demand_tables(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    b = p.get("by_month") or {}
    keys = ("days_in_season", "et0_mm", "kc_mean", "etc_mm", "precipitation_mm", "effective_rainfall_mm", "net_mm",
            "gross_mm")
    rows = [[MONTHS[m - 1]] + [fmt(b[k][i]) for k in keys] for i, m in enumerate(b.get("month") or [])]
    out = [{"columns": ["Month", "Days", "ET0 (mm)", "Kc", "ETc (mm)", "Rain (mm)", "Effective rain (mm)", "Net (mm)",
                        "Gross (mm)"], "rows": rows, "caption": "Mean of the seasons, by month of the season"}]
    d, m = p.get("design") or {}, p.get("mean") or {}
    out.append({"columns": ["Season", "Net (mm)", "Gross (mm)", "Peak (l/s/ha)"],
                "rows": [["Mean", fmt(m.get("net_mm")), fmt(m.get("gross_mm")), fmt(p.get("mean_peak_l_per_s_per_ha"))],
                         ["Design", fmt(d.get("net_mm")), fmt(d.get("gross_mm")), fmt(d.get("peak_l_per_s_per_ha"))],
                         [f"Largest ({(p.get('largest') or {}).get('year')})", "", fmt((p.get("largest") or {}).get("gross_mm")), ""]],
                "caption": "Mean, design and largest season"})
    seasons = p.get("seasons") or []
    if seasons:
        out.append({"columns": ["Season", "ETc (mm)", "Effective rain (mm)", "Net (mm)", "Gross (mm)", "Peak (l/s/ha)"],
                    "rows": [[s["year"], fmt(s["etc_mm"]), fmt(s["effective_rainfall_mm"]), fmt(s["net_mm"]),
                              fmt(s["gross_mm"]), fmt(s["peak_l_per_s_per_ha"])] for s in seasons],
                    "caption": "Season by season"})
    return out


TABLES = {"reference_evapotranspiration": _et_tables, "crop_water_demand": _demand_tables}
