"""Water quality: the key numbers of the water-quality tools and the answer to "does the water meet its guidelines?"."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from roles.specialists.common import band, fmt, grade_for_study, kn

__all__ = ["HARVESTERS", "TABLES", "decide", "recommendations", "DATA_REQUESTS"]

_SETS = {"ccme_freshwater_aquatic_life": "CCME freshwater aquatic-life guidelines (long-term)",
         "who_drinking_water": "WHO drinking-water guidelines", "table": "the objectives stated in the table",
         "plan": "the site-specific objectives of the plan"}
_TESTS = {"seasonal_kendall": "seasonal Kendall", "mann_kendall": "Mann-Kendall"}


def _rows(rows: Sequence[Any | None]) -> list[dict[str, Any]]:
    return [r for r in rows if r]


def _samples(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    return _rows([kn(step, "n_parameters", p, "parameters sampled", None),
                  kn(step, "n_samples", p, "sampled values", None),
                  kn(step, "years", p, "calendar years with samples", "years")])


def _exceedances(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = [kn(step, "n_exceeding_parameters", p, "parameters exceeding their objective", None),
            kn(step, "n_exceeding_samples", p, "samples exceeding their objective", None)]
    for i, r in enumerate(p.get("by_parameter") or []):
        if r.get("n_exceeding"):
            rows.append(kn(step, f"by_parameter[{i}].n_exceeding", p, f"{r['parameter']}: samples above its objective", None))
            rows.append(kn(step, f"by_parameter[{i}].worst_value", p, f"{r['parameter']}: worst sample", r.get("unit")))
    return _rows(rows)


def _index(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    return _rows([kn(step, "wqi", p, f"CCME Water Quality Index ({p.get('category')})", None, headline=True,
                     method="ccme_water_quality_index"),
                  kn(step, "f1_scope", p, "F1 scope (% of parameters failing)", None),
                  kn(step, "f2_frequency", p, "F2 frequency (% of tests failing)", None),
                  kn(step, "f3_amplitude", p, "F3 amplitude", None)])


def _trend(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    first = True
    for i, t in enumerate(p.get("trends") or []):
        if not t.get("ok"):
            continue
        b = band(p, f"trends[{i}].sen_slope_ci[0]", f"trends[{i}].sen_slope_ci[1]", step, t.get("sen_slope_confidence"))
        rows.append(kn(step, f"trends[{i}].sen_slope", p, f"{t['parameter']}: Sen's slope ({_TESTS.get(t['test'])})",
                       t.get("slope_unit"), band=b, headline=first, method=t.get("test")))
        rows.append(kn(step, f"trends[{i}].p_value", p, f"{t['parameter']}: trend p-value", None))
        first = False
    return _rows(rows)


HARVESTERS = {"water_quality_samples": _samples, "water_quality_exceedances": _exceedances,
              "ccme_water_quality_index": _index, "water_quality_trend": _trend}


def _by_tool(run: Mapping[str, Any], tool: str) -> tuple[str | None, Mapping[str, Any] | None, Mapping[str, Any] | None]:
    """(step id, the result, its payload when established) of the first step running ``tool``."""
    for sid, r in (run.get("results") or {}).items():
        if r.get("tool") == tool:
            return sid, r, (r.get("payload") or {}) if r.get("status") == "ok" else None
    return None, None, None


def _objective_text(row: Mapping[str, Any]) -> str:
    lo, hi, unit = row.get("lower"), row.get("upper"), row.get("objective_unit") or row.get("unit") or ""
    if lo is not None and hi is not None:
        return f"{fmt(lo)} to {fmt(hi)} {unit}".strip()
    return (f"at most {fmt(hi)}" if hi is not None else f"at least {fmt(lo)}") + (f" {unit}" if unit else "")


def _exceedance_text(p: Mapping[str, Any], limit: int = 4) -> str:
    rows = [r for r in p.get("by_parameter") or [] if r.get("n_exceeding")]
    if not rows:
        return (f"{p.get('n_exceeding_parameters')} of the {p.get('n_with_objective')} parameters with an objective "
                f"exceeded it in the {p.get('n_samples')} samples")
    parts = [f"{r['parameter']} in {r['n_exceeding']} of {r['n_samples']} samples (objective "
             f"{_objective_text(r)}, worst {fmt(r.get('worst_value'))} on {r.get('worst_date')})" for r in rows[:limit]]
    more = f" and {len(rows) - limit} more" if len(rows) > limit else ""
    return (f"{p.get('n_exceeding_parameters')} of {p.get('n_with_objective')} parameters with an objective exceeded it: "
            + "; ".join(parts) + more)


def _sources_text(rows: Sequence[Mapping[str, Any]], fallback: str | None) -> str:
    srcs = list(dict.fromkeys(r.get("objective_source") for r in rows if r.get("objective_source")))
    return " and ".join(_SETS.get(s, s) for s in srcs) if srcs else _SETS.get(fallback or "", fallback or "the guidelines")


def _trend_text(p: Mapping[str, Any], limit: int = 4) -> str:
    parts = []
    for t in [t for t in p.get("trends") or [] if t.get("ok")][:limit]:
        lo, hi = (t.get("sen_slope_ci") or [None, None])[:2]
        conf = t.get("sen_slope_confidence")
        verdict = t["trend"] if t.get("significant") else "no significant trend"
        parts.append(f"{t['parameter']}, {t['first_year']} to {t['last_year']}: {verdict} ({_TESTS.get(t['test'])}, "
                     f"p = {fmt(t['p_value'])}), Sen's slope {fmt(t['sen_slope'])} {t.get('slope_unit') or ''} "
                     f"({fmt(conf * 100) if isinstance(conf, (int, float)) else ''} % interval {fmt(lo)} to {fmt(hi)})")
    return "; ".join(parts)


def decide(brief: Mapping[str, Any], study: Mapping[str, Any], run: Mapping[str, Any],
           kns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    plan = study.get("plan") or {}
    branch = plan.get("branch")
    where = ((plan.get("station") or {}).get("name")) or "the site"
    use = (brief.get("intake") or {}).get("use") or "aquatic life"
    ex_id, ex_res, ex = _by_tool(run, "water_quality_exceedances")
    ix_id, ix_res, ix = _by_tool(run, "ccme_water_quality_index")
    tr_id, tr_res, tr = _by_tool(run, "water_quality_trend")
    conditions = ["the samples represent the water body over the period",
                  f"the objectives applied are the right ones for {use}"]
    change = ["site-specific objectives (hardness-dependent metals, ammonia at the site's pH and temperature)",
              "more samples, spread over the seasons and flows", "a different treatment of values below detection"]
    if branch in ("index", "index_and_trend"):
        grade, why = grade_for_study(run, [ix_id] if ix_id else [])
        if ix is None:
            reason = (ix_res or {}).get("failed_reason") or "the index step did not run"
            answer = f"The CCME Water Quality Index at {where} is not established: {reason}."
            if ex is not None:
                answer += (f" Against {_sources_text(ex.get('by_parameter') or [], ex.get('guideline_set'))}, "
                           f"{_exceedance_text(ex)}.")
            if tr is not None:
                answer += f" Trend: {_trend_text(tr)}."
            return {"answer": answer, "value": None, "unit": None, "band": None, "grade": "not established",
                    "grade_reason": reason, "basis": None, "conditions": conditions, "what_would_change_it": change}
        period = ix.get("period") or {}
        when = f"in {period['year']}" if period.get("year") else f"from {period.get('start')} to {period.get('end')}"
        failed = [r for r in ix.get("by_parameter") or [] if r.get("n_failed")]
        answer = (f"The CCME Water Quality Index of the samples at {where} {when} is {ix['wqi_rounded']}, "
                  f"\"{ix['category']}\" ({fmt(ix['wqi'])} before rounding), against "
                  f"{_sources_text(ix.get('by_parameter') or [], ix.get('guideline_set'))}: "
                  f"{ix['n_failed_parameters']} of {ix['n_parameters']} parameters failed their objective in "
                  f"{ix['n_failed_tests']} of {ix['n_tests']} tests (F1 scope {fmt(ix['f1_scope'])}, "
                  f"F2 frequency {fmt(ix['f2_frequency'])}, F3 amplitude {fmt(ix['f3_amplitude'])}).")
        if failed and ex is not None:
            answer += f" By parameter, {_exceedance_text(ex)}."
        if ix.get("left_out"):
            answer += (" Left out of the index: " + ", ".join(r["parameter"] for r in ix["left_out"]) +
                       " (no objective or too few samples; see the results).")
        if tr is not None:
            answer += f" Trend: {_trend_text(tr)}."
        return {"answer": answer, "value": ix["wqi"], "unit": None, "band": None, "basis": f"{ix_id}.wqi",
                "method": "ccme_water_quality_index", "category": ix["category"], "grade": grade, "grade_reason": why,
                "conditions": conditions, "what_would_change_it": change}
    if branch == "trend":
        grade, why = grade_for_study(run, [tr_id] if tr_id else [])
        if tr is None:
            reason = (tr_res or {}).get("failed_reason") or "the trend step did not run"
            return {"answer": f"The trend of the samples at {where} is not established: {reason}.", "value": None,
                    "unit": None, "band": None, "grade": "not established", "grade_reason": reason, "basis": None,
                    "conditions": conditions, "what_would_change_it": change}
        head = next(k for k in kns if k.get("headline") and k.get("step") == tr_id)
        answer = f"At {where}, {_trend_text(tr)}."
        if ex is not None:
            answer += f" Against {_sources_text(ex.get('by_parameter') or [], ex.get('guideline_set'))}, {_exceedance_text(ex)}."
        return {"answer": answer, "value": head["value"], "unit": head.get("unit"), "band": head.get("band"),
                "basis": head["path"], "method": head.get("method"), "grade": grade, "grade_reason": why,
                "conditions": ["the sampling method and laboratory did not change over the record",
                               "the seasons are independent of one another (seasonal test)"],
                "what_would_change_it": ["a change of method or detection limit during the record",
                                         "discharge on the sampling dates (a flow-adjusted trend)"]}
    # exceedances only
    grade, why = grade_for_study(run, [ex_id] if ex_id else [])
    if ex is None:
        reason = (ex_res or {}).get("failed_reason") or "the exceedance step did not run"
        return {"answer": f"Whether the water at {where} meets its guidelines is not established: {reason}.",
                "value": None, "unit": None, "band": None, "grade": "not established", "grade_reason": reason,
                "basis": None, "conditions": conditions, "what_would_change_it": change}
    answer = (f"Against {_sources_text(ex.get('by_parameter') or [], ex.get('guideline_set'))}, at {where} "
              f"{_exceedance_text(ex)}. No Water Quality Index is given: the CCME index needs at least four "
              "parameters each sampled at least four times, and the table holds fewer.")
    if ex.get("without_objective"):
        answer += " No objective for: " + ", ".join(r["parameter"] for r in ex["without_objective"]) + "."
    return {"answer": answer, "value": ex.get("n_exceeding_parameters"), "unit": "parameters", "band": None,
            "basis": f"{ex_id}.n_exceeding_parameters", "grade": grade, "grade_reason": why,
            "conditions": conditions, "what_would_change_it": change}


def recommendations(run: Mapping[str, Any], decision: Mapping[str, Any]) -> list[str]:
    recs: list[str] = []
    _, _, ex = _by_tool(run, "water_quality_exceedances")
    _, ix_res, ix = _by_tool(run, "ccme_water_quality_index")
    _, _, tr = _by_tool(run, "water_quality_trend")
    if ex is not None and ex.get("exceeding_parameters"):
        recs.append("Trace the sources of " + ", ".join(ex["exceeding_parameters"]) + " and sample them more often "
                    "around the dates they failed (season, flow, upstream discharges) before any remedy is chosen.")
    if ex is not None and ex.get("without_objective"):
        recs.append("Set site-specific objectives for " + ", ".join(r["parameter"] for r in ex["without_objective"])
                    + " (the reasons are listed with the exceedances) so that every sampled parameter is judged.")
    if ix is not None:
        recs.append("Compute the index the same way every year, with the same parameters and objectives: its value "
                    "is comparable only within one set.")
    elif ix_res is not None:
        recs.append("Sample at least four parameters that have objectives at least four times a year to support the "
                    "CCME index.")
    if tr is not None and any(t.get("significant") for t in tr.get("trends") or []):
        recs.append("Confirm the trend(s) the test finds (p below its alpha) with the laboratory's method history: a change of method or "
                    "detection limit can look like a trend.")
    recs.append("Keep the detection limits with the data and say how values below them were entered.")
    return recs


DATA_REQUESTS = [
    {"what": "more samples: monthly or more often, over several years, with the sampling time",
     "why": "a single year of samples gives one index and no trend",
     "effect": "an index for each year and a defensible trend"},
    {"what": "site-specific objectives (hardness-dependent metals, ammonia at the site's pH and temperature)",
     "why": "parameters without a single-number guideline are left out of the index",
     "effect": "a complete index over every sampled parameter"},
    {"what": "the detection limits and how values below them were entered",
     "why": "a substitution for values below detection changes exceedances near the objective",
     "effect": "a defensible count of failures for trace substances"},
    {"what": "discharge on the sampling dates", "why": "concentrations depend on flow",
     "effect": "flow-adjusted trends and loads"},
]


# -- tables ----------------------------------------------------------------------------------------

def _samples_tables(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = [[r["parameter"], r.get("unit") or "", r["n_samples"], f"{r['period_start']} to {r['period_end']}",
             r["years"], fmt(r["min"]), fmt(r["median"]), fmt(r["max"])] for r in p.get("parameters") or []]
    return [{"columns": ["Parameter", "Unit", "Samples", "Period", "Calendar years", "Min", "Median", "Max"],
             "rows": rows, "caption": "Sampled parameters"}]


def _exceedance_tables(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for r in p.get("by_parameter") or []:
        rows.append([r["parameter"], r["n_samples"], r["n_exceeding"], f"{fmt(r['fraction_exceeding'] * 100)} %",
                     _objective_text(r), fmt(r["max_excursion"]) if r.get("max_excursion") is not None else "n/a",
                     f"{fmt(r['worst_value'])} ({r['worst_date']})" if r.get("worst_value") is not None else "",
                     _SETS.get(r.get("objective_source"), r.get("objective_source"))])
    out = [{"columns": ["Parameter", "Samples", "Exceeding", "Share", "Objective", "Largest excursion", "Worst sample",
                        "Objective from"], "rows": rows, "caption": "Exceedances by parameter"}]
    if p.get("without_objective"):
        out.append({"columns": ["Parameter", "Why no objective"],
                    "rows": [[r["parameter"], r["reason"]] for r in p["without_objective"]],
                    "caption": "Parameters without an objective"})
    return out


def _index_tables(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    period = p.get("period") or {}
    out = [{"columns": ["WQI", "Category", "F1 scope", "F2 frequency", "F3 amplitude", "Parameters", "Tests",
                        "Failed tests", "Period"],
            "rows": [[fmt(p.get("wqi")), p.get("category"), fmt(p.get("f1_scope")), fmt(p.get("f2_frequency")),
                      fmt(p.get("f3_amplitude")), p.get("n_parameters"), p.get("n_tests"), p.get("n_failed_tests"),
                      f"{period.get('start')} to {period.get('end')}"]],
            "caption": "CCME Water Quality Index 1.0"}]
    rows = [[r["parameter"], r["n_tests"], r["n_failed"], _objective_text({**r, "objective_unit": r.get("unit")}),
             fmt(r["max_excursion"]), _SETS.get(r.get("objective_source"), r.get("objective_source"))]
            for r in p.get("by_parameter") or []]
    out.append({"columns": ["Parameter", "Tests", "Failed", "Objective", "Largest excursion", "Objective from"],
                "rows": rows, "caption": "Tests and failures by parameter"})
    if p.get("by_year"):
        out.append({"columns": ["Year", "WQI", "Category", "Parameters", "Tests"],
                    "rows": [[y["year"], fmt(y["wqi"]), y["category"], y["n_parameters"], y["n_tests"]]
                             for y in p["by_year"]], "caption": "The index by calendar year"})
    if p.get("left_out"):
        out.append({"columns": ["Parameter", "Left out because"], "rows": [[r["parameter"], r["reason"]]
                                                                           for r in p["left_out"]],
                    "caption": "Parameters left out of the index"})
    return out


def _trend_tables(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for t in p.get("trends") or []:
        if not t.get("ok"):
            rows.append([t["parameter"], _TESTS.get(t["test"]), t["n_years"], t["n_samples"], "not tested", "", "", "",
                         t.get("reason") or ""])
            continue
        lo, hi = (t.get("sen_slope_ci") or [None, None])[:2]
        rows.append([t["parameter"], _TESTS.get(t["test"]), t["n_years"], t["n_samples"], t["trend"],
                     fmt(t["p_value"]), fmt(t["sen_slope"]), f"{fmt(lo)} to {fmt(hi)}", t.get("slope_unit") or ""])
    out = [{"columns": ["Parameter", "Test", "Years", "Samples", "Trend", "p-value", "Sen's slope", "Interval", "Unit"],
            "rows": rows, "caption": "Trend by parameter"}]
    if p.get("skipped"):
        out.append({"columns": ["Parameter", "Not tested because"],
                    "rows": [[r["parameter"], r["reason"]] for r in p["skipped"]], "caption": "Parameters not tested"})
    return out


TABLES = {"water_quality_samples": _samples_tables, "water_quality_exceedances": _exceedance_tables,
          "ccme_water_quality_index": _index_tables, "water_quality_trend": _trend_tables}
