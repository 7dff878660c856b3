"""Sensitivity of a finished flood study: forks over the choices a reviewer questions, and their table.

Each variant is one fork of the study at its plan (graphs.forks) with one edit, run to its own report:

- return period: the standard return periods either side of the study's (an intake edit: the plan, its
  gates and its text are re-planned for it);
- distribution: each fitted distribution alone (its gates kept, the other fits' gates dropped);
- confidence level: the band at 95 % (or 90 % when the study used 95 %);
- a record excluded: the largest annual maximum left out (``exclude_years`` on the maxima step);
- regional skew: off (at-site skew only) for a Bulletin 17C fit that weighted one in.

A choice that does not apply to the plan (regional skew for at-site fits) is a row saying why, not a fork.
The table joins the parent's report (a "Sensitivity" section after the results) and its report.md.
"""

from __future__ import annotations

import copy
from typing import Any, Mapping

from aquascope_core.errors import InputError, StudyError

__all__ = ["flood_variants", "run_sensitivity", "outcome", "sensitivity_table", "with_step", "STANDARD_RETURN_PERIODS"]

STANDARD_RETURN_PERIODS = (2, 5, 10, 25, 50, 100, 200, 500, 1000)
FIT_TOOLS = ("flood_frequency", "bulletin17c_ema")


def _clean_study(study: Mapping[str, Any]) -> dict[str, Any]:
    """The approved study as an edit ({"study": ...}): no results, not yet approved, decisions left to the fork."""
    out = copy.deepcopy(dict(study))
    out.pop("results", None)
    for st in out.get("steps") or []:
        st.pop("result", None)
    out["plan"] = {k: v for k, v in (out.get("plan") or {}).items() if k not in ("approved", "decisions", "parent")}
    return out


def with_step(study: Mapping[str, Any], sid: str, arguments: Mapping[str, Any] | None = None,
               expects: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    out = _clean_study(study)
    for st in out["steps"]:
        if st["id"] == sid:
            st["arguments"] = {**(st.get("arguments") or {}), **dict(arguments or {})}
            if expects is not None:
                st["expects"] = expects
    return {"study": out}


def _names(gate: Mapping[str, Any]) -> str:
    return " ".join([str(gate.get("path") or "")] + [str(p) for p in gate.get("paths") or []])


def flood_variants(ws: Any) -> list[dict[str, Any]]:
    """The variants of a finished flood_risk study: {choice, variant, edits} or {choice, variant, skip}."""
    from roles.specialists.common import LABELS

    study = ws.study or {}
    steps = study.get("steps") or []
    fit = next((s for s in steps if s.get("tool") in FIT_TOOLS), None)
    if fit is None:
        raise StudyError("the study has no flood frequency step to vary",
                         recovery="Sensitivity applies to flood_risk studies fitted at a gauge.")
    T = (ws.brief.get("intake") or {}).get("return_period")
    results = (ws.run or {}).get("results") or {}
    out: list[dict[str, Any]] = []
    # return period
    lower = [t for t in STANDARD_RETURN_PERIODS if T is not None and t < float(T)]
    upper = [t for t in STANDARD_RETURN_PERIODS if T is not None and t > float(T)]
    for t in ([lower[-1]] if lower else []) + ([upper[0]] if upper else []):
        out.append({"choice": "return period", "variant": f"{t}-year", "edits": {"intake": {"return_period": t}}})
    # distribution
    dists = list((fit.get("arguments") or {}).get("distributions") or [])
    if fit["tool"] == "flood_frequency" and len(dists) >= 2:
        for d in dists:
            others = [o for o in dists if o != d]
            kept = [g for g in fit.get("expects") or [] if not any(o in _names(g) for o in others)]
            out.append({"choice": "distribution", "variant": f"{LABELS.get(d, d)} alone",
                        "edits": with_step(study, fit["id"], {"distributions": [d]}, kept)})
    else:
        out.append({"choice": "distribution", "variant": "another distribution",
                    "skip": "Bulletin 17C prescribes log-Pearson III; no other distribution is fitted"})
    # confidence level
    conf = float((fit.get("arguments") or {}).get("confidence") or 0.9)
    other = 0.95 if abs(conf - 0.95) > 1e-9 else 0.90
    out.append({"choice": "confidence level", "variant": f"{other * 100:.0f} % band",
                "edits": with_step(study, fit["id"], {"confidence": other})})
    # a record excluded
    amax = next((s for s in steps if s.get("tool") == "annual_maxima"), None)
    payload = (results.get(amax["id"]) or {}).get("payload") if amax else None
    if amax and payload and payload.get("values"):
        vals, years = payload["values"], payload["water_years"]
        i = max(range(len(vals)), key=lambda k: vals[k])
        out.append({"choice": "record excluded", "variant": f"largest annual maximum (water year {years[i]}) left out",
                    "edits": with_step(study, amax["id"], {"exclude_years": [years[i]]})})
    else:
        out.append({"choice": "record excluded", "variant": "largest annual maximum left out",
                    "skip": "the fit reads its record directly; no maxima step to leave a year out of"})
    # regional skew
    if fit["tool"] == "bulletin17c_ema":
        used = ((results.get(fit["id"]) or {}).get("payload") or {}).get("regional_skew_used") or {}
        if used.get("skew") is not None:
            out.append({"choice": "regional skew", "variant": "off (at-site skew only)",
                        "edits": with_step(study, fit["id"], {"skew_from": "station", "regional_skew": None,
                                                               "regional_skew_mse": None})})
        else:
            out.append({"choice": "regional skew", "variant": "on",
                        "skip": f"no regional skew is available to weight in ({used.get('source')})"})
    else:
        out.append({"choice": "regional skew", "variant": "on/off",
                    "skip": "the at-site fits use the record's own skew; a regional skew is weighted in by Bulletin 17C only"})
    return out


def outcome(ws: Any) -> dict[str, Any]:
    decision = (ws.findings or {}).get("decision") or {}
    return {"value": decision.get("value"), "unit": decision.get("unit"), "band": decision.get("band") or {},
            "grade": decision.get("grade"), "method": decision.get("method"), "answer": decision.get("answer"),
            "quantity": decision.get("quantity"),
            "return_period": (ws.brief.get("intake") or {}).get("return_period")}


def _fmt(x: Any) -> str:
    from roles.specialists.common import fmt

    return fmt(x) if isinstance(x, (int, float)) else "-"


def run_sensitivity(studio: Any, variants: list[Mapping[str, Any]] | None = None, *,
                    by: str | None = None) -> dict[str, Any]:
    """Run the forks and add the sensitivity table to ``studio``'s report; see the module docstring."""
    from aquascope_core.workspace import ArtifactStore
    from roles.author import write_files

    ws = studio.workspace()
    if ws.status != "done":
        raise StudyError(f"sensitivity needs a finished study (status {ws.status!r})",
                         recovery="Approve the plan so the study runs to its report first.")
    if (ws.brief or {}).get("playbook") != "flood_risk":
        raise InputError.bad_value("playbook", (ws.brief or {}).get("playbook"),
                                   "a flood_risk study (sensitivity forks vary a flood estimate's choices)")
    base = outcome(ws)
    if base["value"] is None:
        raise StudyError("the study's flood estimate is not established, so there is nothing to vary",
                         recovery="Look at the report's 'not established' list first.")
    chosen = list(variants) if variants is not None else flood_variants(ws)
    rows: list[dict[str, Any]] = [{"choice": "as approved", "variant": f"{base['return_period']}-year, as planned",
                                   "study": ws.id, **base}]
    forks = []
    for v in chosen:
        if v.get("skip"):
            rows.append({"choice": v["choice"], "variant": v["variant"], "skipped": v["skip"]})
            continue
        child = studio.fork("plan", v["edits"], by=by)
        forks.append(child)
        cws = child.workspace()
        row = {"choice": v["choice"], "variant": v["variant"], "study": child.id, "edits": v["edits"], **outcome(cws)}
        if cws.status != "done":
            errs = [m.get("text") for m in cws.messages if m.get("kind") in ("plan_errors", "declined")]
            row["skipped"] = (errs[-1] if errs else f"the fork stopped at {cws.status}")
        rows.append(row)
    table = sensitivity_table(rows, base)
    section = {"id": "sensitivity", "title": "Sensitivity",
               "text": (f"Each row is a fork of this study (study {ws.id}) at its approved plan with one choice changed, "
                        "run through the same gates to its own report; the change is against the estimate as approved. "
                        "Rows without a value say why the choice does not apply or was not established."),
               "tables": [table]}
    report = dict(ws.report)
    sections = [s for s in report.get("sections") or [] if s.get("id") != "sensitivity"]
    at = next((i + 1 for i, s in enumerate(sections) if s.get("id") == "results"), len(sections))
    sections.insert(at, section)
    report["sections"] = sections
    report["sensitivity"] = [{k: v for k, v in r.items() if k != "edits"} for r in rows]
    ws.report = report
    from aquascope_core.result import utc_now

    ws.request = {**ws.request, "decisions": [*(ws.request.get("decisions") or []),
                                              {"kind": "sensitivity", "by": by or "reviewer", "at": utc_now(),
                                               "forks": [r.get("study") for r in rows[1:] if r.get("study")]}]}
    from graphs.nodes import mirror_decisions

    ws.study = mirror_decisions(ws.study, ws.request)
    store = ArtifactStore(studio.artifact_root)  # the host's folder, never one read from the state
    write_files(ws, store)
    studio.graph.update_state(studio.config, {"report": ws.report, "artifacts": ws.artifacts, "request": ws.request,
                                              "study": ws.study}, as_node="author")
    return {"rows": rows, "forks": forks, "table": table}


def _change(row: Mapping[str, Any], base: Mapping[str, Any]) -> str:
    """The row's estimate against the approved one, in the approved estimate's unit and only for the same quantity.

    A fork whose headline is another quantity (a daily-mean flood where the study headlines a peak, say) or a
    unit of another dimension gets words, never a percentage of two different things.
    """
    from aquascope_core.errors import UnitError
    from aquascope_core.units import convert, parse_unit

    v, b = row.get("value"), base.get("value")
    if not isinstance(v, (int, float)) or not isinstance(b, (int, float)) or not b:
        return ""
    q, bq = row.get("quantity"), base.get("quantity")
    if q and bq and str(q) != str(bq):
        return f"not comparable: {q}, not {bq}"
    unit, bunit = row.get("unit"), base.get("unit")
    if unit and bunit and unit != bunit:
        try:
            v = convert(float(v), parse_unit(unit), parse_unit(bunit))
        except (UnitError, ValueError, KeyError):
            return f"not comparable: in {unit}, not {bunit}"
    return f"{(v - b) / b * 100:+.1f} %"


def sensitivity_table(rows: list[dict[str, Any]], base: Mapping[str, Any]) -> dict[str, Any]:
    out = []
    for r in rows:
        v = r.get("value")
        band = r.get("band") or {}
        change = _change(r, base) if r.get("choice") != "as approved" else ""
        conf = band.get("confidence")
        out.append([r["choice"], r["variant"], f"{_fmt(r.get('return_period'))}" if v is not None else "",
                    _fmt(v) if v is not None else ("not run: " + str(r.get("skipped"))[:160] if r.get("skipped") else "-"),
                    r.get("unit") or "",
                    (f"{_fmt(band.get('lower'))} to {_fmt(band.get('upper'))}" + (f" ({conf * 100:.0f} %)" if conf else ""))
                    if band.get("lower") is not None else "",
                    change, r.get("grade") or "", r.get("study") or ""])
    return {"columns": ["Choice", "Variant", "Return period (years)", "Estimate", "Unit", "Band", "Change", "Grade",
                        "Study"], "rows": out,
            "caption": "Sensitivity of the flood estimate to the reviewer's choices (one fork per row)"}
