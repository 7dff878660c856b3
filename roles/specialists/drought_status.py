"""Drought status: the key numbers of the drought and flow tools, and the answer to "is it in drought?".

The answer is read from the primary index of the plan's branch (SPI, or SSI where only streamflow is
held): the site is in drought at a time scale when the index at the status month is at or below the
events' threshold (-1.0, McKee's moderate drought), and the headline is the lowest index among the
time scales asked for. Every number the answer states sits in a result at the path given.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from roles.specialists.common import fmt, grade_for_study, kn

__all__ = ["HARVESTERS", "TABLES", "decide", "recommendations", "DATA_REQUESTS", "IN_DROUGHT_AT"]

# An index at or below this is drought (McKee et al. 1993: moderate drought and worse).
IN_DROUGHT_AT = -1.0
_INDEX_TOOLS = {"standardized_precipitation_index": "SPI", "standardized_precipitation_evapotranspiration_index": "SPEI",
                "standardized_streamflow_index": "SSI", "standardized_groundwater_index": "SGI"}
_HEADLINE_INDICES = ("SPI", "SSI")


def _pct(x: Any) -> str:
    return "n/a" if x is None else f"{x * 100:.0f} %"


# -- harvesters ---------------------------------------------------------------------------------

def _index(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    series = p.get("series") or []
    month = p.get("status_month")
    known = [(i, e) for i, e in enumerate(series) if (e.get("current") or {}).get("value") is not None]
    lowest = min(known, key=lambda ie: ie[1]["current"]["value"])[0] if known else None
    rows = []
    for i, e in known:
        cur = e["current"]
        rows.append(kn(step, f"series[{i}].current.value", p, f"{e['index']} in {month} ({cur['class']})", None,
                       index=e["index"], scale_months=e.get("scale_months"), drought_class=cur["class"],
                       headline=(i == lowest and p.get("index") in _HEADLINE_INDICES)))
    rows.append(kn(step, "record_years", p, f"values per calendar month behind the {p.get('index')}", "years"))
    return [r for r in rows if r]


def _events(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for i, b in enumerate(p.get("by_index") or []):
        idx = b.get("index")
        rows.append(kn(step, f"by_index[{i}].n_events", p, f"{idx} drought events in the record", None))
        rows.append(kn(step, f"by_index[{i}].fraction_of_time_in_drought", p, f"share of months in drought by {idx}", None))
        if b.get("current"):
            rows.append(kn(step, f"by_index[{i}].current.duration_months", p,
                           f"months of the {idx} event holding {b.get('status_month')}", "months"))
            rows.append(kn(step, f"by_index[{i}].current.severity", p,
                           f"severity of the {idx} event holding {b.get('status_month')}", "index-months"))
        if b.get("most_severe"):
            rows.append(kn(step, f"by_index[{i}].most_severe.severity", p,
                           f"severity of the record's most severe {idx} event ({b['most_severe']['onset']})", "index-months"))
    return [r for r in rows if r]


def _classes(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [r for r in (kn(step, f"by_index[{i}].fraction_moderate_or_worse", p,
                           f"share of months in moderate or worse drought by {b.get('index')}", None)
                        for i, b in enumerate(p.get("by_index") or [])) if r]


def _propagation(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    resp = p.get("response_index") or "the response"
    return [r for r in (kn(step, "best.scale_months", p, f"SPI time scale best matching {resp}", "months"),
                        kn(step, "best.lag_months", p, f"lag of {resp} behind that SPI", "months"),
                        kn(step, "best.r", p, f"correlation of {resp} with that SPI", None)) if r]


def _fdc(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    unit = p.get("unit")
    return [r for r in (kn(step, f"quantiles.{q}", p, f"{q} (flow exceeded {q[1:]} % of the time)", unit)
                        for q in ("Q5", "Q50", "Q95")) if r]


def _low_flow(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [r for r in (kn(step, "value", p, f"{p.get('statistic')} low flow", p.get("unit")),
                        kn(step, "n_years", p, "climatic years of annual minima", "years")) if r]


def _annual_minima(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [r for r in (kn(step, "n_years", p, f"climatic years of annual {p.get('days')}-day minima", "years"),) if r]


def _one(path: str, label: str, unit_key: str | None = None, unit: str | None = None):
    def harvest(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
        row = kn(step, path, p, label, p.get(unit_key) if unit_key else unit)
        return [row] if row else []
    return harvest


HARVESTERS = {
    **{tool: _index for tool in _INDEX_TOOLS},
    "drought_events": _events,
    "drought_classes": _classes,
    "drought_propagation": _propagation,
    "flow_duration_curve": _fdc,
    "low_flow_frequency": _low_flow,
    "annual_minimum_flows": _annual_minima,
    "lyne_hollick_baseflow": _one("baseflow_index", "baseflow index (Lyne-Hollick)"),
    "eckhardt_baseflow": _one("baseflow_index", "baseflow index (Eckhardt)"),
    "mean_annual_flow": _one("mean_annual_flow", "mean annual flow", unit_key="unit"),
    "runoff_ratio": _one("runoff_ratio", "runoff ratio"),
    "richards_baker_flashiness": _one("flashiness_index", "Richards-Baker flashiness index"),
    "flow_seasonality": _one("seasonality_index", "seasonality index of the flow regime"),
    "high_low_flow_events": _one("low_flow_frequency", "days a year of low flow (below 0.2 x mean)", unit="days/year"),
}


# -- the decision -------------------------------------------------------------------------------

def _primary(study: Mapping[str, Any], run: Mapping[str, Any]) -> tuple[str | None, Mapping[str, Any] | None, str]:
    """(step id, result, tool) of the index that carries the answer for the plan's branch."""
    branch = (study.get("plan") or {}).get("branch")
    tool = "standardized_streamflow_index" if branch == "streamflow_record" else "standardized_precipitation_index"
    for sid, r in (run.get("results") or {}).items():
        if r.get("tool") == tool:
            return sid, r, tool
    return None, None, tool


def _by_tool(run: Mapping[str, Any], tool: str) -> tuple[str | None, Mapping[str, Any] | None]:
    for sid, r in (run.get("results") or {}).items():
        if r.get("tool") == tool and r.get("status") == "ok":
            return sid, r.get("payload") or {}
    return None, None


def _values_text(p: Mapping[str, Any], skip: int | None = None) -> str:
    parts = [f"{e['index']} = {fmt(e['current']['value'])} ({e['current']['class']})"
             for i, e in enumerate(p.get("series") or []) if i != skip and (e.get("current") or {}).get("value") is not None]
    return ", ".join(parts)


def _event_text(ev: Mapping[str, Any] | None, index: str, month: str) -> str:
    if not ev:
        return ""
    for b in ev.get("by_index") or []:
        if b.get("index") != index:
            continue
        cur = b.get("current")
        if cur:
            return (f" The {index} drought holding {month} began in {cur['onset']} and had lasted "
                    f"{cur['months_to_status_month']} month(s) by then; over its {cur['duration_months']} month(s) in the "
                    f"record its severity is {fmt(cur['severity'])} index-months, and "
                    f"{b['current_rank_by_severity']} of the record's {b['n_events']} {index} events were at least as "
                    f"severe.")
        return (f" No {index} drought event holds {month}; the record has {b['n_events']} {index} events, with "
                f"{_pct(b['fraction_of_time_in_drought'])} of its months in drought.")
    return ""


def decide(brief: Mapping[str, Any], study: Mapping[str, Any], run: Mapping[str, Any],
           kns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    sid, res, tool = _primary(study, run)
    name = _INDEX_TOOLS[tool]
    where = ((study.get("plan") or {}).get("station") or {}).get("name") or "the site"
    grade, why = grade_for_study(run, [sid] if sid else [])
    if res is None or res.get("status") != "ok" or grade == "not established":
        reason = (res or {}).get("failed_reason") or f"no {name} result"
        return {"answer": f"The drought status at {where} is not established: {reason}.", "value": None, "unit": None,
                "band": None, "grade": "not established", "grade_reason": reason, "basis": None, "conditions": [],
                "what_would_change_it": ["a longer or more complete record", "a record that reaches the present"]}
    p = res.get("payload") or {}
    month = p.get("status_month")
    known = [(i, e) for i, e in enumerate(p.get("series") or []) if (e.get("current") or {}).get("value") is not None]
    if not known:
        reason = f"no {name} value exists for {month} (a missing month)"
        return {"answer": f"The drought status at {where} in {month} is not established: {reason}.", "value": None,
                "unit": None, "band": None, "grade": "not established", "grade_reason": reason, "basis": None,
                "conditions": [], "what_would_change_it": ["a record without a gap at the status month"]}
    i, low = min(known, key=lambda ie: ie[1]["current"]["value"])
    value, cls = low["current"]["value"], low["current"]["class"]
    in_drought = value <= IN_DROUGHT_AT
    last = (p.get("period") or {}).get("last_month")
    if month == last:
        when = f"In {month}, the last month of the record,"
    elif p.get("as_of") in (None, "latest"):
        when = f"In {month}, the latest month of the record with a value at every time scale,"
    else:
        when = f"In {month}"
    kind = "hydrological (streamflow) drought" if name == "SSI" else "meteorological drought"
    verdict = f"was in {kind}" if in_drought else f"was not in {kind}"
    answer = (f"{when} {where} {verdict} by the {name}: the lowest of its time scales is {low['index']} = "
              f"{fmt(value)} ({cls})")
    rest = _values_text(p, skip=i)
    answer += (f"; {rest}." if rest else ".")
    if p.get("status") == "marginal":
        answer += (f" The record gives only {p.get('record_years')} values per calendar month, so the index is "
                   "marginal and its tails are extrapolated.")
    _, ev = _by_tool(run, "drought_events")
    answer += _event_text(ev, low["index"], month)
    for other in ("standardized_precipitation_evapotranspiration_index", "standardized_streamflow_index"):
        if other == tool:
            continue
        _, op = _by_tool(run, other)
        if op and op.get("status_month") == month and _values_text(op):
            answer += f" {_INDEX_TOOLS[other]} in {month}: {_values_text(op)}."
    conditions = ["the record's period is the climate the status is judged against",
                  "the station represents the catchment at the site"]
    if p.get("status") == "marginal":
        conditions.append("a short record: the classes severe and extreme are indicative only")
    return {
        "answer": answer,
        "value": value,
        "unit": None,
        "band": None,
        "basis": f"{sid}.series[{i}].current.value",
        "method": tool,
        "in_drought": in_drought,
        "drought_class": cls,
        "status_month": month,
        "grade": grade,
        "grade_reason": why,
        "conditions": conditions,
        "what_would_change_it": ["the months after the status month (a drought can end or deepen within weeks)",
                                 "a record brought up to the present",
                                 "a different reference period for the distributions"],
    }


def recommendations(run: Mapping[str, Any], decision: Mapping[str, Any]) -> list[str]:
    recs: list[str] = []
    if decision.get("value") is None:
        return ["Bring a precipitation or streamflow record that covers the month in question."]
    if decision.get("in_drought"):
        recs.append("Read the index again each month: the drought ends when the index at the time scale of the "
                    "decision rises back above the threshold, and deepens as it falls through the next class.")
        _, fdc = _by_tool(run, "flow_duration_curve")
        _, low = _by_tool(run, "low_flow_frequency")
        refs = [f"Q95 = {fmt((fdc.get('quantiles') or {}).get('Q95'))} {fdc.get('unit')}" if fdc else None,
                f"{low.get('statistic')} = {fmt(low.get('value'))} {low.get('unit')}" if low else None]
        refs = [r for r in refs if r]
        recs.append("Before restrictions are set, check water-use commitments against the gauge's low-flow references ("
                    + (", ".join(refs) + " over the period of record" if refs else "Q95 and 7Q10, not computed here")
                    + ").")
    else:
        recs.append("Keep monitoring monthly; the time scale with the lowest value, though near normal, is the first to "
                    "watch.")
    results = run.get("results") or {}
    if not any(r.get("tool") == "standardized_precipitation_evapotranspiration_index" and r.get("status") == "ok"
               for r in results.values()):
        recs.append("Add a potential evapotranspiration record (or air temperature to estimate it) so SPEI can show "
                    "whether evaporative demand is deepening the drought.")
    return recs


DATA_REQUESTS = [
    {"what": "the record up to the present month", "why": "the status is that of the record's last complete month",
     "effect": "the drought status of today rather than of the record's end"},
    {"what": "abstraction and regulation upstream of the gauge",
     "why": "water use lowers streamflow indices without a rainfall deficit", "effect": "a cleaner hydrological signal"},
    {"what": "soil moisture or groundwater levels in the catchment",
     "why": "they show whether the deficit has reached storage", "effect": "agricultural and groundwater drought status"},
]


# -- tables ---------------------------------------------------------------------------------------

def _index_table(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for e in p.get("series") or []:
        cur = e.get("current") or {}
        rows.append([e.get("index"), cur.get("date"), fmt(cur.get("value")), cur.get("class") or "no value",
                     e.get("record_years"), e.get("status")])
    return [{"columns": ["Index", "Month", "Value", "Class (WMO 2012)", "Values per calendar month", "Status"],
             "rows": rows, "caption": f"{p.get('index')} at the status month"}]


def _events_table(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows, worst = [], []
    for b in p.get("by_index") or []:
        cur, ms = b.get("current"), b.get("most_severe") or {}
        rows.append([b.get("index"), b.get("n_events"), b.get("months_in_drought"), _pct(b.get("fraction_of_time_in_drought")),
                     f"{ms.get('onset')} to {ms.get('end')}, {fmt(ms.get('severity'))}" if ms else "none",
                     f"since {cur['onset']}, {cur['duration_months']} month(s), rank {b.get('current_rank_by_severity')}"
                     if cur else "none"])
        top = sorted(b.get("events") or [], key=lambda e: -e["severity"])[:5]
        worst += [[b.get("index"), e["onset"], e["end"], e["duration_months"], fmt(e["severity"]), fmt(e["peak_intensity"])]
                  for e in top]
    out = [{"columns": ["Index", "Events", "Months in drought", "Share of months", "Most severe (severity)",
                        "Event at the status month"], "rows": rows,
            "caption": f"Drought events (runs at or below {fmt(p.get('threshold'))})"}]
    if worst:
        out.append({"columns": ["Index", "Onset", "End", "Months", "Severity (index-months)", "Peak"], "rows": worst,
                    "caption": "The five most severe events of each index"})
    return out


def _classes_table(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    by = p.get("by_index") or []
    names = [d["class"] for d in p.get("definitions") or []]
    rows = [[n] + [_pct((b.get("fractions") or {}).get(n)) for b in by] for n in names]
    return [{"columns": ["Class"] + [b.get("index") for b in by], "rows": rows, "caption": "Share of months in each class"}]


def _propagation_table(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    b = p.get("best") or {}
    return [{"columns": ["Response", "Best SPI time scale (months)", "Lag (months)", "r", "Months paired"],
             "rows": [[p.get("response_index"), b.get("scale_months"), b.get("lag_months"), fmt(b.get("r")),
                       b.get("n_pairs")]], "caption": "Propagation from precipitation to the response"}]


def _fdc_table(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    q = p.get("quantiles") or {}
    return [{"columns": ["Quantile", f"Flow ({p.get('unit')})"], "rows": [[k, fmt(v)] for k, v in q.items()],
             "caption": f"Flow duration quantiles, {(p.get('period') or ['', ''])[0]} to {(p.get('period') or ['', ''])[-1]}"}]


def _low_flow_table(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [{"columns": ["Statistic", "Value", "Unit", "Distribution", "Climatic years"],
             "rows": [[p.get("statistic"), fmt(p.get("value")), p.get("unit"), p.get("distribution"), p.get("n_years")]],
             "caption": "Low-flow frequency"}]


TABLES = {
    **{tool: _index_table for tool in _INDEX_TOOLS},
    "drought_events": _events_table,
    "drought_classes": _classes_table,
    "drought_propagation": _propagation_table,
    "flow_duration_curve": _fdc_table,
    "low_flow_frequency": _low_flow_table,
}
