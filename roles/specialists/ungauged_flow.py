"""Flows at an ungauged site: the key numbers of the donor and rainfall-runoff tools, and the answer.

Every number the answer states is a key number (a value at a path of an established step's payload) or the
brief's own area; the band of a transferred flow is its donors' 10-90 % range, and the skill the median
factor between each donor's record and its leave-one-out estimate.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from roles.specialists.common import band, fmt, given, grade_for_study, kn

__all__ = ["HARVESTERS", "TABLES", "decide", "recommendations", "DATA_REQUESTS"]

# The flow a report leads with, in order of preference.
_HEADLINE_ORDER = ("mean_flow", "q95", "q50", "bfi")


def _headline_quantity(quantities: Sequence[str]) -> str | None:
    return next((q for q in _HEADLINE_ORDER if q in quantities), quantities[0] if quantities else None)


def _donor_signatures(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = [kn(step, "n_candidates", p, "gauged catchments with a usable daily record within reach", None),
            kn(step, "n_in_area_window", p, "of them within 0.2-5 times the site's area", None),
            kn(step, "catalogue_only.n", p, "catalogued gauges of similar area with no flows held offline", None)]
    return [r for r in rows if r]


def _estimates(step: str, p: Mapping[str, Any], with_band: bool) -> list[dict[str, Any]]:
    quantities = list(p.get("quantities") or [])
    top = _headline_quantity(quantities)
    labels = p.get("labels") or {}
    rows = []
    for q in quantities:
        est = (p.get("estimates") or {}).get(q) or {}
        b = band(p, f"estimates.{q}.band.low", f"estimates.{q}.band.high", step, None) if with_band else None
        row = kn(step, f"estimates.{q}.estimate", p, f"{labels.get(q, q)} at the site", est.get("unit"), band=b,
                 quantity=q, headline=(q == top))
        if row:
            rows.append(row)
        if with_band:
            skill = kn(step, f"estimates.{q}.skill.median_factor_error", p,
                       f"leave-one-out median factor error of the {labels.get(q, q)}", None, quantity=q)
            if skill:
                rows.append(skill)
    return rows


def _transfer_signature(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [kn(step, "n_donors", p, "donor catchments behind each estimate (at least)", None), *_estimates(step, p, True)]


def _gr4j_calibration(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = [kn(step, "calibration.nse", p, "Nash-Sutcliffe efficiency, calibration period", None),
            kn(step, "validation.nse", p, "Nash-Sutcliffe efficiency, validation period", None),
            kn(step, "validation.kge", p, "Kling-Gupta efficiency, validation period", None),
            kn(step, "validation.percent_bias", p, "volume bias, validation period", "%")]
    return [r for r in rows if r]


def _gr4j_simulation(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = _estimates(step, p, False)
    extra = kn(step, "mean_runoff_mm_per_year", p, "mean simulated runoff at the site", "mm/yr")
    return rows + ([extra] if extra else [])


HARVESTERS = {"donor_signatures": _donor_signatures, "transfer_signature": _transfer_signature,
              "gr4j_calibration": _gr4j_calibration, "gr4j_simulation": _gr4j_simulation}


def _payload(run: Mapping[str, Any], tool: str) -> dict[str, Any] | None:
    for r in (run.get("results") or {}).values():
        if r.get("tool") == tool and r.get("status") == "ok":
            return r.get("payload") or {}
    return None


def decide(brief: Mapping[str, Any], study: Mapping[str, Any], run: Mapping[str, Any],
           kns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    plan = study.get("plan") or {}
    branch = plan.get("branch")
    area = (brief.get("intake") or {}).get("area_km2")
    where = f"the site ({given(area)} km2)" if area is not None else "the site"
    estimates = [k for k in kns if k.get("quantity") and k["path"].endswith(".estimate")]
    head = next((k for k in estimates if k.get("headline")), None)
    grade, why = grade_for_study(run, [head["step"]] if head else [])
    if head is None or grade == "not established":
        failed = [r for r in (run.get("results") or {}).values() if r.get("status") != "ok" and not r.get("optional")]
        reason = (failed[0].get("failed_reason") if failed else None) or "no flow estimate passed its gates"
        # why a rainfall-runoff model failed, when its calibration could tell (the tool's diagnosis, no number in it)
        why = next((r["payload"]["diagnosis"] for r in (run.get("results") or {}).values()
                    if r.get("tool") == "gr4j_calibration" and (r.get("payload") or {}).get("diagnosis")), None)
        change = ["a few months of flow gaugings at the site", "more gauged catchments of similar size nearby"]
        if why:
            change.insert(0, "a rainfall-runoff model with a snow module, and the catchment's daily air temperature")
        return {"answer": f"The flows at {where} are not established: {reason}." + (f" {why}." if why else ""),
                "value": None, "unit": None, "band": None, "grade": "not established", "grade_reason": reason,
                "basis": None, "conditions": [], "what_would_change_it": change}
    skills = {k["quantity"]: k for k in kns if k.get("quantity") and k["path"].endswith("median_factor_error")}
    parts = []
    for k in estimates:
        unit = "" if k.get("unit") in (None, "dimensionless") else k["unit"]
        text = f"{k['label'].replace(' at the site', '')} {fmt(k['value'])} {unit}".rstrip()
        b = k.get("band") or {}
        extras = []
        if b.get("lower") is not None:
            extras.append(f"donor range {fmt(b['lower'])} to {fmt(b['upper'])}")
        s = skills.get(k["quantity"])
        if s is not None:
            extras.append(f"leave-one-out median factor error {fmt(s['value'])}")
        parts.append(text + (f" ({'; '.join(extras)})" if extras else ""))
    if branch == "rainfall_runoff":
        cal = _payload(run, "gr4j_calibration") or {}
        gauge = (cal.get("station") or {}).get("name") or "the calibration gauge"
        val = cal.get("validation") or {}
        how = (f"simulated by GR4J calibrated on {gauge} (validation NSE {fmt(val.get('nse'))}, "
               f"KGE {fmt(val.get('kge'))})")
        conditions = ["the site's catchment responds to rain like the calibration gauge's",
                      "the forcing read for the site is its catchment's average precipitation and PET",
                      "no snow, reservoir or abstraction shapes the site's flows"]
        change = ["a few months of flow gaugings at the site", "rainfall and PET of the site's own catchment",
                  "a calibration gauge more like the site (size, soils, geology)"]
        method = "gr4j_simulation"
    else:
        tr = _payload(run, "transfer_signature") or {}
        names = ", ".join(d.get("name") or d.get("id") for d in tr.get("donors") or [])
        how = f"transferred per unit of area from {fmt(tr.get('n_donors'))} gauged donor catchments ({names})"
        conditions = ["the site's runoff per unit of area is the donors'",
                      "the donors' records describe the climate the flows are wanted for",
                      "regulation at a donor does not carry into the site's low flows"]
        change = ["a few months of flow gaugings at the site (especially at low flow)",
                  "donors closer in size and climate (live USGS records)", "a regulated donor set aside"]
        method = "transfer_signature"
    answer = f"At {where}, {how}: " + "; ".join(parts) + "."
    return {
        "answer": answer,
        "value": head["value"],
        "unit": head.get("unit"),
        "band": head.get("band"),
        "basis": head["path"],
        "method": method,
        "grade": grade,
        "grade_reason": why,
        "conditions": conditions,
        "what_would_change_it": change,
    }


def recommendations(run: Mapping[str, Any], decision: Mapping[str, Any]) -> list[str]:
    recs: list[str] = []
    if decision.get("value") is not None:
        recs.append("Gauge the site for a season (spot gaugings at low and moderate flows) and compare with the same "
                    "days at the donors or in the model before relying on the low flows.")
    tr = _payload(run, "transfer_signature")
    if tr:
        cands = {c.get("id"): c for c in ((_payload(run, "donor_signatures") or {}).get("candidates") or [])}
        regulated = [d.get("name") for d in tr.get("donors") or [] if (cands.get(d.get("id")) or {}).get("regulation")
                     == "regulated"]
        if regulated:
            recs.append("Donors classed as regulated (" + ", ".join(regulated) + ") carry reservoir releases into "
                        "their low flows: check the low-flow estimates against an unregulated donor before using them "
                        "for abstraction or environmental-flow limits.")
    if _payload(run, "gr4j_simulation"):
        recs.append("Check that the forcing read for the site is representative of its catchment; where the site's "
                    "rainfall differs from the gauge's, supply the site's own daily rainfall and PET and re-run.")
    return recs


DATA_REQUESTS = [
    {"what": "spot flow gaugings at the site", "why": "no record at the site tests the estimates",
     "effect": "a check of the transferred or simulated flows, and a basis for correcting them"},
    {"what": "daily flow records of further gauges nearby (live USGS data)",
     "why": "more donors of similar size make the transfer and its skill firmer",
     "effect": "a narrower donor range and a better-founded leave-one-out skill"},
    {"what": "the site catchment's own daily rainfall and PET", "why": "the rainfall-runoff model is driven by them",
     "effect": "simulated flows that reflect the site's climate rather than the gauge's"},
]


def _donor_table(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for c in payload.get("candidates") or []:
        rows.append([c.get("name"), c.get("id"), fmt(c.get("distance_km")), fmt(c.get("area_km2")),
                     fmt(c.get("area_ratio")), c.get("regulation") or "", " to ".join(c.get("period") or []),
                     fmt(c.get("mean_flow")), fmt(c.get("q95")), fmt(c.get("bfi")), c.get("conversion")])
    out = [{"columns": ["Station", "Id", "Distance (km)", "Area (km2)", "Area / site's", "Regulation", "Record",
                        "Mean flow (m3/s)", "Q95 (m3/s)", "BFI", "Unit conversion"], "rows": rows,
            "caption": "Donor candidates, their signatures from their own records"}] if rows else []
    note = (payload.get("catalogue_only") or {}).get("note")
    if note:
        out.append({"columns": ["Note"], "rows": [[note]], "caption": "Gauges with no flows offline"})
    return out


def _transfer_table(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    labels = payload.get("labels") or {}
    rows = []
    for q in payload.get("quantities") or []:
        e = (payload.get("estimates") or {}).get(q) or {}
        b, s = e.get("band") or {}, e.get("skill") or {}
        rows.append([labels.get(q, q), fmt(e.get("estimate")), e.get("unit"),
                     f"{fmt(b.get('low'))} to {fmt(b.get('high'))}" if b.get("low") is not None else "",
                     fmt(s.get("median_factor_error")), fmt(s.get("fraction_within_factor_2")), e.get("n_donors")])
    out = [{"columns": ["Flow", "Estimate", "Unit", "Donor range (10-90 %)", "Leave-one-out median factor",
                        "Share within a factor of 2", "Donors"], "rows": rows,
            "caption": "Flows at the site, each with its donors' range and leave-one-out skill"}]
    first = (payload.get("estimates") or {}).get((payload.get("quantities") or [None])[0]) or {}
    drows = [[d.get("name"), fmt(d.get("distance_km")), fmt(d.get("area_ratio")), fmt(d.get("value")),
              fmt(d.get("scaled_value"))] for d in first.get("donors") or []]
    if drows:
        q0 = (payload.get("quantities") or [""])[0]
        out.append({"columns": ["Donor", "Distance (km)", "Area / site's", f"{labels.get(q0, q0)} at the donor",
                                "Scaled to the site"], "rows": drows, "caption": "The donors behind the first estimate"})
    return out


def _calibration_table(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for name in ("calibration", "validation"):
        part = payload.get(name) or {}
        per = part.get("period") or {}
        rows.append([name, f"{per.get('run_start')} to {per.get('run_end')}", fmt(part.get("observed_days")),
                     fmt(part.get("nse")), fmt(part.get("kge")), fmt(part.get("percent_bias"))])
    out = [{"columns": ["Period", "Dates scored", "Days scored", "NSE", "KGE", "Bias (%)"], "rows": rows,
            "caption": "GR4J split-sample test (scores on the daily flows, each period after a year of warm-up)"}]
    par = payload.get("parameters") or {}
    units = payload.get("parameter_units") or {}
    if par:
        out.append({"columns": ["Parameter", "Meaning", "Value", "Unit"],
                    "rows": [[k, _GR4J_MEANING.get(k, ""), fmt(v), units.get(k, "")] for k, v in par.items()],
                    "caption": "Calibrated parameters"})
    return out


# GR4J's parameters in words (Perrin et al. 2003)
_GR4J_MEANING = {"x1": "capacity of the production (soil moisture) store",
                 "x2": "groundwater exchange coefficient (negative: water lost)",
                 "x3": "capacity of the routing store",
                 "x4": "time base of the unit hydrograph"}


def _simulation_table(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    labels = payload.get("labels") or {}
    rows = [[labels.get(q, q), fmt(((payload.get("estimates") or {}).get(q) or {}).get("estimate")),
             ((payload.get("estimates") or {}).get(q) or {}).get("unit")] for q in payload.get("quantities") or []]
    months = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
    monthly = payload.get("monthly_mean_flow") or []
    out = [{"columns": ["Flow", "Simulated", "Unit"], "rows": rows, "caption": "Simulated flows at the site"}]
    if monthly:
        out.append({"columns": list(months), "rows": [[fmt(v) for v in monthly]],
                    "caption": "Mean simulated flow by calendar month (m3/s)"})
    return out


TABLES = {"donor_signatures": _donor_table, "transfer_signature": _transfer_table,
          "gr4j_calibration": _calibration_table, "gr4j_simulation": _simulation_table}
