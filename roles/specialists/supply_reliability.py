"""Supply reliability: the key numbers of the supply tools and the answer to "can the river meet this demand?"."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from roles.specialists.common import fmt, grade_for_study, kn

__all__ = ["HARVESTERS", "TABLES", "decide", "recommendations", "DATA_REQUESTS", "pct", "steps_by_tool"]


def pct(x: Any) -> str:
    """A percentage already in per cent, written with one decimal ("93.4 %")."""
    return "n/a" if x is None else f"{x:.1f} %"


def steps_by_tool(run: Mapping[str, Any]) -> dict[str, tuple[str, Mapping[str, Any]]]:
    """Tool id -> (step id, result) for the run's steps, the first step of each tool."""
    out: dict[str, tuple[str, Mapping[str, Any]]] = {}
    for sid, r in (run.get("results") or {}).items():
        out.setdefault(r.get("tool"), (sid, r))
    return out


def _rows(*rows: Any) -> list[dict[str, Any]]:
    return [r for r in rows if r]


# --------------------------------------------------------------------------- key numbers


def _inflow_record(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    dry = p.get("driest_year") or {}
    return _rows(
        kn(step, "mean_flow_m3s", p, "mean flow of the record", "m3/s"),
        kn(step, "n_years", p, "years of complete months used", "years"),
        kn(step, "mean_annual_volume_hm3", p, "mean annual flow volume", "hm3"),
        kn(step, "driest_year.mean_flow_m3s", p, f"mean flow of the driest year ({dry.get('year')})", "m3/s"),
        kn(step, "demand.demand_m3s", p, "the demand as a flow", "m3/s"),
        # at or above the mean flow the demand's share is the answer: no storage meets it
        kn(step, "demand.demand_to_mean_flow_pct", p, "the demand as a share of the mean flow", "%",
           headline=bool((p.get("demand") or {}).get("exceeds_mean_flow"))),
    )


def _simulate_reservoir(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    return _rows(
        kn(step, "reliability_time_pct", p, "months the reservoir met the demand in full", "%", headline=True,
           method="simulate_reservoir"),
        kn(step, "reliability_volume_pct", p, "share of the demanded volume supplied (reservoir)", "%"),
        kn(step, "reliability_annual_pct", p, "years with no failed month (reservoir)", "%"),
        kn(step, "resilience", p, "resilience (chance a failed month is followed by a good one)", None),
        kn(step, "vulnerability_hm3", p, "vulnerability (mean largest monthly shortfall of a failure)", "hm3"),
        kn(step, "n_failure_events", p, "failure events (reservoir)", None),
        kn(step, "max_failure_duration_months", p, "longest failure (reservoir)", "months"),
        kn(step, "min_storage_hm3", p, "lowest storage over the record", "hm3"),
    )


def _sequent_peak(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    return _rows(
        kn(step, "required_storage_hm3", p, "storage that meets the demand in every month of the record", "hm3"),
        kn(step, "critical_period.months", p, "length of the critical drawdown", "months"),
    )


def _run_of_river(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    # the answer of a supply study; in an irrigation study (a seasonal schedule) a check on the answer
    headline = p.get("demand_basis") == "constant"
    return _rows(
        kn(step, "reliability_time_pct", p, "days the river met the demand in full", "%", headline=headline,
           method="supply_reliability"),
        kn(step, "reliability_volume_pct", p, "share of the demanded volume the river supplied", "%"),
        kn(step, "reliability_annual_pct", p, "years with no day short of the demand", "%"),
        kn(step, "resilience", p, "resilience (chance a failed day is followed by a good one)", None),
        kn(step, "vulnerability_pct", p, "vulnerability (mean largest daily shortfall of a spell, share of demand)", "%"),
        kn(step, "n_failure_spells", p, "failure spells", None),
        kn(step, "longest_spell_days", p, "longest failure spell", "days"),
    )


def _flow_duration(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    return _rows(
        kn(step, "quantiles.Q50", p, "median daily flow (Q50)", "m3/s"),
        kn(step, "quantiles.Q95", p, "flow exceeded 95 % of the time (Q95)", "m3/s"),
        kn(step, "days_flow_reaches_need_pct", p, "days the flow reached the demand plus the environmental flow", "%"),
    )


HARVESTERS = {"inflow_record": _inflow_record, "simulate_reservoir": _simulate_reservoir,
              "sequent_peak_storage": _sequent_peak, "run_of_river_reliability": _run_of_river,
              "flow_duration_at_demand": _flow_duration}


# --------------------------------------------------------------------------- the decision


def _payload(found: Mapping[str, tuple[str, Mapping[str, Any]]], tool: str) -> tuple[str | None, Mapping[str, Any] | None]:
    sid, r = found.get(tool, (None, None))
    if r is None or r.get("status") != "ok":
        return sid, None
    return sid, r.get("payload") or {}


def _not_established(where: str, found: Mapping[str, tuple[str, Mapping[str, Any]]], tools: Sequence[str]) -> dict[str, Any]:
    reason = "the supply steps did not run"
    for t in tools:
        sid, r = found.get(t, (None, None))
        if r is not None and r.get("status") != "ok":
            reason = r.get("failed_reason") or r.get("status")
            break
    return {"answer": f"The reliability of the supply at {where} is not established: {reason}.", "value": None,
            "unit": None, "band": None, "grade": "not established", "grade_reason": reason, "basis": None,
            "conditions": [], "what_would_change_it": ["a longer or more complete flow record", "a flow record nearer the intake"]}


def _conditions(inflow: Mapping[str, Any] | None, study: Mapping[str, Any]) -> list[str]:
    out = ["the flows of the record represent the flows to come", "the gauge's flow is the flow at the intake",
           "no other abstraction draws on the flow first"]
    conv = (inflow or {}).get("conversion") or {}
    if conv.get("from_unit") == "mm/d":
        out.append(f"the flows are the record's runoff depth times the catchment area ({fmt(conv.get('area_km2'))} km2)")
    if any("regulated" in str(c) for c in (study.get("plan") or {}).get("caveats") or []):
        out.append("the upstream regulation continues as it was over the record")
    return out


def decide(brief: Mapping[str, Any], study: Mapping[str, Any], run: Mapping[str, Any],
           kns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    intake = brief.get("intake") or {}
    target = intake.get("reliability_target")
    station = (study.get("plan") or {}).get("station") or {}
    where = station.get("name") or "the site"
    found = steps_by_tool(run)
    s_in, inflow = _payload(found, "inflow_record")
    s_sim, sim = _payload(found, "simulate_reservoir")
    s_spa, spa = _payload(found, "sequent_peak_storage")
    s_ror, ror = _payload(found, "run_of_river_reliability")
    conditions = _conditions(inflow, study)
    demand = (inflow or {}).get("demand") or {}
    # a demand at or above the mean flow: no storage meets it, whatever the rest of the run says
    if inflow and demand.get("exceeds_mean_flow"):
        grade, why = grade_for_study(run, [s_in])
        period = inflow.get("period_used") or {}
        ans = (f"No: the demand of {fmt(demand['demand_m3s'])} m3/s is {pct(demand['demand_to_mean_flow_pct'])} of the "
               f"mean flow of {where}, {fmt(inflow['mean_flow_m3s'])} m3/s over {period.get('start')} to "
               f"{period.get('end')}. A demand at or above the mean flow cannot be met over the record by any storage: "
               "the deficit grows with every year.")
        if sim:
            ans += (f" The stated {fmt(sim['storage_hm3'])} hm3 reservoir would have met it in full in "
                    f"{pct(sim['reliability_time_pct'])} of months.")
        elif ror:
            ans += f" The river alone would have met it in full on {pct(ror['reliability_time_pct'])} of days."
        return {"answer": ans, "value": demand["demand_to_mean_flow_pct"], "unit": "%", "band": None,
                "basis": f"{s_in}.demand.demand_to_mean_flow_pct", "verdict": "infeasible", "grade": grade,
                "grade_reason": why, "conditions": conditions,
                "what_would_change_it": ["a smaller demand (below the mean flow)", "a second source"]}
    if sim is not None:
        return _reservoir_decision(where, target, inflow, s_sim, sim, spa, run, conditions)
    if ror is not None:
        return _run_of_river_decision(where, target, inflow, s_ror, ror, spa, run, conditions)
    return _not_established(where, found, ("inflow_record", "simulate_reservoir", "run_of_river_reliability"))


def _count(n: Any, what: str) -> str:
    return f"{fmt(n)} {what}" + ("" if n == 1 else "s")


def _verdict(value: float, target: Any) -> tuple[str, str]:
    if target is None:
        return "", "unknown"
    if value >= float(target):
        return f", meeting the target of {fmt(target)} %", "meets_target"
    return f", short of the target of {fmt(target)} %", "below_target"


def _reservoir_decision(where: str, target: Any, inflow: Mapping[str, Any] | None, sid: str, sim: Mapping[str, Any],
                        spa: Mapping[str, Any] | None, run: Mapping[str, Any], conditions: list[str]) -> dict[str, Any]:
    grade, why = grade_for_study(run, [sid])
    value = sim["reliability_time_pct"]
    tail, verdict = _verdict(value, target)
    period = sim.get("period") or {}
    ans = (f"With a reservoir of {fmt(sim['storage_hm3'])} hm3, the demand of {fmt(sim['demand_m3s'])} m3/s at {where} "
           f"would have been met in full in {pct(value)} of the {fmt(sim['n_months'])} months from {period.get('start')} "
           f"to {period.get('end')}{tail}; {pct(sim['reliability_volume_pct'])} of the demanded volume was supplied")
    if sim.get("reliability_annual_pct") is not None:
        ans += f", and {pct(sim['reliability_annual_pct'])} of years had no failed month"
    ans += "."
    n_ev = sim.get("n_failure_events")
    if n_ev:
        events = "in 1 event lasting" if n_ev == 1 else f"in {fmt(n_ev)} events, the longest"
        ans += (f" It failed {events} {_count(sim['max_failure_duration_months'], 'month')}; resilience "
                f"{fmt(sim['resilience'])}, vulnerability {fmt(sim['vulnerability_hm3'])} hm3 "
                f"({pct(sim['vulnerability_pct'])} of a month's demand).")
    if spa:
        need = spa["required_storage_hm3"]
        enough = "so the stated storage is enough" if sim["storage_hm3"] >= need else "so the stated storage falls short of it"
        ans += f" The storage that meets the demand in every month of the record is {fmt(need)} hm3 (sequent peak), {enough}."
    return {"answer": ans, "value": value, "unit": "%", "band": None, "basis": f"{sid}.reliability_time_pct",
            "method": "simulate_reservoir", "verdict": verdict, "grade": grade, "grade_reason": why,
            "conditions": conditions + ["the reservoir starts full and releases the demand whenever it can"],
            "what_would_change_it": ["net evaporation from the reservoir surface", "a compensation flow below the dam",
                                     "a drier future than the record", "a daily rather than a monthly simulation"]}


def _run_of_river_decision(where: str, target: Any, inflow: Mapping[str, Any] | None, sid: str, ror: Mapping[str, Any],
                           spa: Mapping[str, Any] | None, run: Mapping[str, Any], conditions: list[str]) -> dict[str, Any]:
    grade, why = grade_for_study(run, [sid])
    value = ror["reliability_time_pct"]
    tail, verdict = _verdict(value, target)
    rec = ror.get("record") or {}
    ef = ror.get("environmental_flow_m3s") or 0
    left = f" after leaving {fmt(ef)} m3/s in the river" if ef else ""
    ans = (f"Without storage, the river at {where} would have met the demand of {fmt(ror['demand_m3s'])} m3/s{left} in "
           f"full on {pct(value)} of the {fmt(ror['n_demand_days'])} days from {rec.get('start')} to {rec.get('end')}"
           f"{tail}; {pct(ror['reliability_volume_pct'])} of the demanded volume was supplied")
    if ror.get("reliability_annual_pct") is not None:
        ans += f", and {pct(ror['reliability_annual_pct'])} of years had no day short"
    ans += "."
    spells = ror.get("longest_spells") or []
    if spells:
        s0 = spells[0]
        ans += (f" Shortfalls came in {_count(ror['n_failure_spells'], 'spell')}; the longest lasted "
                f"{_count(s0['days'], 'day')} ({s0['start']} to {s0['end']}).")
    if spa and spa.get("required_storage_hm3"):
        ans += (f" A storage of {fmt(spa['required_storage_hm3'])} hm3 would have met the demand in every month of the "
                "record (sequent peak).")
    gap = None
    if not ef:
        fdc = _fdc_payload(run)
        q95 = ((fdc or {}).get("quantiles") or {}).get("Q95")
        ans += (" This assumes an environmental flow of 0: the abstraction may take the whole flow of the river in a "
                "dry spell. A pass-by flow should be set (by the regulator or a local method) and the study repeated"
                + (f"; the record's Q95, {fmt(q95)} m3/s, is a common starting point." if q95 is not None else "."))
        gap = {"ceiling": "B", "why": "no flow is left in the river (an environmental flow of 0)"}
    return {"answer": ans, "value": value, "unit": "%", "band": None, "basis": f"{sid}.reliability_time_pct",
            "method": "supply_reliability", "verdict": verdict, "grade": grade, "grade_reason": why,
            "quantity_gap": gap, "environmental_flow_m3s": ef,
            "conditions": conditions,
            "what_would_change_it": ["other abstractions upstream", "a larger environmental flow",
                                     "a drier future than the record"]}


def _fdc_payload(run: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for r in (run.get("results") or {}).values():
        if r.get("tool") in ("flow_duration_at_demand", "flow_duration_curve") and r.get("status") == "ok":
            return r.get("payload") or {}
    return None


def recommendations(run: Mapping[str, Any], decision: Mapping[str, Any]) -> list[str]:
    verdict = decision.get("verdict")
    recs: list[str] = []
    if decision.get("environmental_flow_m3s") == 0:
        recs.append("Set a pass-by flow before any abstraction (the regulator's figure, or a local method; the "
                    "record's Q95 is a common starting point) and repeat the study with it: an environmental flow of 0 "
                    "lets the intake dry the river.")
    if verdict == "infeasible":
        recs.append("Reduce the demand below the mean flow of the river, or add a second source: no reservoir on this "
                    "river can carry the demand through the record.")
    elif verdict == "below_target":
        recs.append("Size a storage (or a larger one) from the sequent-peak result and the storage-yield curve, or "
                    "lower the demand, before committing to this supply.")
    elif verdict == "meets_target":
        recs.append("Confirm the water right or abstraction licence and the flows other users and the river itself "
                    "need; the reliability here assumes the whole flow is available.")
    trend = [r for r in (run.get("results") or {}).values() if r.get("tool") == "trend_test"]
    if trend and trend[0].get("status") != "ok":
        recs.append("The annual flows show a trend or could not be tested: check the reliability on the recent part "
                    "of the record.")
    recs.append("Test the answer against a drier future: repeat the study with the flows of the driest decade.")
    return recs


DATA_REQUESTS = [
    {"what": "the abstraction licences and other users upstream of the intake",
     "why": "the whole flow at the gauge is taken as available", "effect": "a lower and more realistic reliability"},
    {"what": "net evaporation and the area-storage curve of the reservoir",
     "why": "losses from the reservoir surface are not modelled", "effect": "a reliability for the water actually kept"},
    {"what": "a short flow record at the intake itself",
     "why": "the gauge's flow stands in for the flow at the intake", "effect": "a transfer factor from the gauge to the site"},
]


# --------------------------------------------------------------------------- tables


def _inflow_tables(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    per = p.get("period_used") or {}
    dry = p.get("driest_year") or {}
    conv = (p.get("conversion") or {}).get("note") or ""
    rows = [[f"{per.get('start')} to {per.get('end')}", fmt(p.get("n_months")), fmt(p.get("mean_flow_m3s")),
             fmt(p.get("mean_annual_volume_hm3")), f"{fmt(dry.get('mean_flow_m3s'))} ({dry.get('year')})", conv]]
    out = [{"columns": ["Months used", "Complete months", "Mean flow (m3/s)", "Mean annual volume (hm3)",
                        "Driest year, mean flow (m3/s)", "Conversion"], "rows": rows, "caption": "The inflow record"}]
    d = p.get("demand")
    if d:
        out.append({"columns": ["Demand", "Unit", "As a flow (m3/s)", "Share of the mean flow"],
                    "rows": [[fmt(d.get("demand")), d.get("demand_unit"), fmt(d.get("demand_m3s")),
                              pct(d.get("demand_to_mean_flow_pct"))]], "caption": "The demand against the mean flow"})
    return out


def _reservoir_tables(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = [["Reliability by time (months met in full)", pct(p.get("reliability_time_pct"))],
            ["Reliability by volume", pct(p.get("reliability_volume_pct"))],
            ["Reliability by year (years with no failed month)", pct(p.get("reliability_annual_pct"))],
            ["Resilience", fmt(p.get("resilience"))],
            ["Vulnerability (hm3)", fmt(p.get("vulnerability_hm3"))],
            ["Failure events", fmt(p.get("n_failure_events"))],
            ["Longest failure (months)", fmt(p.get("max_failure_duration_months"))],
            ["Lowest storage (hm3)", f"{fmt(p.get('min_storage_hm3'))} ({p.get('min_storage_month')})"]]
    out = [{"columns": ["Measure", "Value"], "rows": rows, "caption": "Performance of the reservoir over the record"}]
    worst = p.get("worst_failures") or []
    if worst:
        out.append({"columns": ["From", "To", "Months", "Shortfall (hm3)", "Largest monthly shortfall"],
                    "rows": [[w["start"], w["end"], fmt(w["months"]), fmt(w["shortfall_hm3"]),
                              pct(w["largest_monthly_shortfall_pct"])] for w in worst],
                    "caption": "The largest failures"})
    return out


def _sequent_peak_tables(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    sy = p.get("storage_yield") or {}
    rows = [[pct(100 * f) if f is not None else "n/a", fmt(y), fmt(k)] for f, y, k in
            zip(sy.get("fraction_of_mean_flow") or [], sy.get("yield_m3s") or [], sy.get("required_storage_hm3") or [])]
    return [{"columns": ["Yield (share of the mean flow)", "Yield (m3/s)", "Storage needed (hm3)"], "rows": rows,
             "caption": "Storage-yield curve (sequent peak, double cycle)"}] if rows else []


def _run_of_river_tables(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = [["Reliability by time (days met in full)", pct(p.get("reliability_time_pct"))],
            ["Reliability by volume", pct(p.get("reliability_volume_pct"))],
            ["Reliability by year (years with no day short)", pct(p.get("reliability_annual_pct"))],
            ["Resilience", fmt(p.get("resilience"))],
            ["Vulnerability (share of the demand)", pct(p.get("vulnerability_pct"))],
            ["Failure spells", fmt(p.get("n_failure_spells"))],
            ["Mean spell (days)", fmt(p.get("mean_spell_days"))],
            ["Longest spell (days)", fmt(p.get("longest_spell_days"))]]
    out = [{"columns": ["Measure", "Value"], "rows": rows, "caption": "Run-of-river reliability"}]
    spells = p.get("longest_spells") or []
    if spells:
        out.append({"columns": ["From", "To", "Days", "Shortfall (hm3)"],
                    "rows": [[s["start"], s["end"], fmt(s["days"]), fmt(s["shortfall_hm3"])] for s in spells[:5]],
                    "caption": "The longest failure spells"})
    return out


def _flow_duration_tables(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    q = p.get("quantiles") or {}
    keys = [k for k in ("Q5", "Q10", "Q25", "Q50", "Q75", "Q90", "Q95", "Q99") if k in q]
    return [{"columns": ["Exceedance"] + keys, "rows": [["Flow (m3/s)"] + [fmt(q[k]) for k in keys]],
             "caption": "Flow duration curve (daily flows)"}] if keys else []


TABLES = {"inflow_record": _inflow_tables, "simulate_reservoir": _reservoir_tables,
          "sequent_peak_storage": _sequent_peak_tables, "run_of_river_reliability": _run_of_river_tables,
          "flow_duration_at_demand": _flow_duration_tables}
