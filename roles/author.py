"""The Author: the report a consulting hydrologist would sign, and the files that carry it.

Sections in this order: Summary (the answer and the key numbers), Problem and decision, Site and
data, Methodology (numbered, with the gates and the assumptions), Results (one subsection per
step, with its gates), Limitations and what this study does not establish, Recommendations,
References, Appendix (reproducibility: the study, the commands, the ledger).

Keyless, the prose is made from templates over the results; with a model, the prose of each
section is proposed by one call and every sentence whose numbers no result holds is dropped.
Before anything is written the report's text is verified once more against the evidence; if it
still fails, the answer opens with a notice. The files (the report as Markdown, HTML and Word, the
workbook, the notebook, the figures, study.yaml, workspace.json, the bundle) go to the artifact store
through aquascope_core.deliverables.build; the workspace keeps their references.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from aquascope_core import __version__, methodology
from aquascope_core.study import Study
from aquascope_core.textsafe import md_inline, md_prose
from aquascope_core.verify import plural_counts, round_prose, verify, versus_text
from aquascope_core.workspace import ArtifactStore, Workspace
from roles.critic import evidence_pool
from roles.prose import checked_sentences
from roles.specialists import recommendations, step_tables
from roles.report_parts import column_precision, drop_empty_columns, glossary_section, one_precision, requests_not_met, scrub_paths, signoff_section, step_source
from roles.specialists.common import band_text, fmt

__all__ = ["author", "build_report", "write_files", "study_file", "recreate_command", "narrate", "author_payload",
           "model_notes"]

ROLE = "author"
VERIFIED_SECTIONS = ("summary", "problem", "site_data", "methodology", "results", "limitations", "recommendations")


def _summary(ws: Workspace) -> dict[str, Any]:
    f = ws.findings or {}
    dec = f.get("decision") or {}
    rows = []
    from roles.specialists.flood_text import key_number_cells, us_study  # the one units rule

    flood = (ws.brief or {}).get("kind") == "flood_risk"  # the kinds whose reports state flows by the rule
    us = flood and us_study(ws.study or {}, ws.brief or {})
    for kn in f.get("findings", []):
        if kn.get("headline") or kn.get("summary"):
            conf = (kn.get("band") or {}).get("confidence")
            value, unit, band = (key_number_cells(kn, us) if flood else
                                 (fmt(kn["value"]), kn.get("unit") or "", band_text(kn.get("band"))))
            rows.append([kn["label"], value, unit, band,
                         f"{conf * 100:.0f} %" if isinstance(conf, (int, float)) else "",
                         step_source(kn["basis"], (ws.study or {}).get("steps") or [])])
    text = dec.get("answer", "")
    if dec.get("grade"):
        text += f"\n\nGrade: **{dec['grade']}** ({dec.get('grade_reason', '')})."
    from roles.specialists.design_use import GRADE_LEGEND

    text += f"\n\n_{GRADE_LEGEND}_"
    # the result path of each number is in the workbook's Trace sheet; the client reads the step it comes from
    tables = [{"columns": ["Quantity", "Value", "Unit", "Band", "Confidence", "Source"], "rows": rows,
               "caption": "Key numbers"}] if rows else []
    return {"id": "summary", "title": "Summary", "text": text, "tables": tables}


def quoted_question(ws: Workspace) -> str:
    """The user's question as the report quotes it: one escaped line between quotation marks."""
    return f"“{md_inline((ws.brief or {}).get('problem') or (ws.request or {}).get('text') or '')}”"


def _problem(ws: Workspace) -> dict[str, Any]:
    b, plan = ws.brief or {}, (ws.study or {}).get("plan") or {}
    lines = [f"**Question.** {quoted_question(ws)}", "", f"**Decision.** {plan.get('decision') or b.get('decision') or 'not stated'}"]
    if plan.get("objective"):
        lines += ["", f"**Objective.** {plan['objective']}"]
    if b.get("assumptions"):
        lines += ["", "**Taken as given (defaults).** " + " ".join(f"{str(a).rstrip('.')}." for a in b["assumptions"])]
    return {"id": "problem", "title": "Problem and decision", "text": "\n".join(lines)}


def _site_data(ws: Workspace) -> dict[str, Any]:
    inv = ws.inventory or {}
    site = inv.get("site") or ws.site
    rows = []
    for d in (inv.get("datasets") or [])[:12]:
        held = [v for v in d.get("variables", []) if v.get("usable")]
        listed = [v for v in d.get("variables", []) if not v.get("usable")]
        v = held[0] if held else (listed[0] if listed else {})
        where = "the user's table" if d.get("kind") == "upload" else f"{d.get('source')} {d.get('station_id')}"
        rows.append([md_inline(d.get("name")) if d.get("kind") == "upload" else d.get("name"), where, fmt(d.get("distance_km")),
                     ", ".join(x.get("variable", "") for x in held) or "metadata only",
                     f"{str(v.get('period_start') or '')[:10]} to {str(v.get('period_end') or '')[:10]}" if v else "",
                     fmt(v.get("years")) if v.get("years") is not None else ""])
    cat = inv.get("catchment") or {}
    text = f"Site: latitude {site.get('lat')}, longitude {site.get('lon')}."
    if cat.get("area_km2"):
        text += f" Catchment at the gauge: {fmt(cat['area_km2'])} km2" + (
            f", regulation class {cat['regulation']}" if cat.get("regulation") else "") + "."
    if cat.get("note"):
        text += f" {cat['note'][0].upper()}{cat['note'][1:]}."
    notes = inv.get("notes") or []
    if notes:
        text += "\n\n" + "\n".join(f"- {n}" for n in notes)
    tables = [{"columns": ["Station", "Id", "Distance (km)", "Data held", "Period", "Years"], "rows": rows,
               "caption": "Stations within reach, nearest first"}] if rows else []
    return {"id": "site_data", "title": "Site and data", "text": text, "tables": tables}


def _gate_rows(gates: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    rows = []
    for g in gates:
        seen = g.get("seen")
        if isinstance(seen, dict):
            seen = ", ".join(f"{str(k).replace('_', ' ')} {fmt(v)}" for k, v in seen.items())  # words, not keys
        elif isinstance(seen, list):
            seen = " to ".join(fmt(x) for x in seen)
        elif isinstance(seen, float):
            seen = versus_text(seen, g.get("threshold"))  # as the gate's sentence writes it
        else:
            seen = fmt(seen) if isinstance(seen, (int, float)) else (seen if seen is not None else "")
        thr = g.get("threshold")
        thr = " to ".join(fmt(x) for x in thr) if isinstance(thr, list) and all(isinstance(x, (int, float)) for x in thr) \
            else (fmt(thr) if isinstance(thr, (int, float)) else (", ".join(map(str, thr)) if isinstance(thr, list) else (thr or "")))
        rows.append([g.get("check"), "passed" if g.get("passed") else "FAILED", seen, thr, _gate_detail(g)])
    return rows


def _gate_detail(g: Mapping[str, Any]) -> str:
    """What the gate checked, in words: a presence gate (not_empty) says the result the report quotes is there and
    how many values it holds, not the internal field it read ("best.r holds 1 value(s)")."""
    if g.get("check") == "not_empty":
        n = g.get("seen")
        if not g.get("passed"):
            return "the result the report quotes is missing or empty"
        count = f"{n:,} values" if isinstance(n, int) and n != 1 else "one value"
        return f"the result the report quotes is present ({count})"
    return _detail(g.get("detail", ""), gate_kept([g]))


def gate_kept(gates: Iterable[Mapping[str, Any]]) -> set[float]:
    """The numbers a gate's sentence writes beyond three figures so they stay on their side of the threshold
    (0.4996 against at least 0.5): prose rounding keeps them as written."""
    out = set()
    for g in gates:
        seen, thr = g.get("seen"), g.get("threshold")
        if isinstance(seen, float) and isinstance(thr, (int, float)) and not isinstance(thr, bool):
            out |= {float(versus_text(seen, thr).replace(",", "")), float(thr)}
    return out


def _detail(text: Any, keep: Iterable[float] = ()) -> str:
    """A gate's detail as the report prints it: without internal paths, its numbers at the report's precision; a
    detail already rounded by the gate (written as 1.565e+04) keeps its digits (rounding twice shifts it), written
    out as a reader writes them (15,650)."""
    import re
    from decimal import Decimal

    text = scrub_paths(str(text or ""))
    sci = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?[eE][+-]?\d+\b")
    if not sci.search(text):
        return round_prose(text, keep=keep)
    return sci.sub(lambda m: format(Decimal(m.group(0)), ",f"), text)


def _methodology(ws: Workspace) -> dict[str, Any]:
    plan = (ws.study or {}).get("plan") or {}
    lines = []
    if plan.get("rationale"):
        lines += [plan["rationale"], ""]
    lines += [f"{i}. {m}" for i, m in enumerate(methodology.texts(plan.get("methodology")), 1)]
    if plan.get("assumptions"):
        lines += ["", "**Assumptions.**", ""] + [f"- {a}" for a in plan["assumptions"]]
    if plan.get("alternatives"):
        lines += ["", "**Alternatives considered.**", ""]
        for a in plan["alternatives"]:
            lines.append(f"- {a.get('method')}: not used because {a.get('why_not')}." if isinstance(a, Mapping) else f"- {a}")
    rows = []
    results = (ws.run or {}).get("results") or {}
    for st in (ws.study or {}).get("steps", []):
        for g in _gate_rows((results.get(st["id"]) or {}).get("gates") or []):
            rows.append([st["id"], *g])
    tables = [{"columns": ["Step", "Gate", "Result", "Seen", "Threshold", "Detail"], "rows": rows,
               "caption": "Every gate with the value it saw"}] if rows else []
    return {"id": "methodology", "title": "Methodology", "text": "\n".join(lines), "tables": tables}


def _results(ws: Workspace) -> dict[str, Any]:
    subs = []
    results = (ws.run or {}).get("results") or {}
    for st in (ws.study or {}).get("steps", []):
        r = results.get(st["id"]) or {}
        title = f"{st['id']}. {st.get('title') or st['tool']}"
        lines = [st.get("rationale", "")] if st.get("rationale") else []
        if r.get("status") == "ok":
            if r.get("summary"):
                lines.append(r["summary"][0].upper() + r["summary"][1:] + ".")
            tables = step_tables(st["tool"], r.get("payload") or {})
            inputs = _frequency_inputs(r.get("payload") or {})
            if inputs:
                lines.append(inputs[0])
                tables.insert(0, inputs[1])
        else:
            lines.append(f"**Not established** ({r.get('status', 'not run')}): {r.get('failed_reason') or 'the step did not run'}.")
            if (r.get("payload") or {}).get("diagnosis"):  # the tool's own account of why (words, no number)
                lines.append(str(r["payload"]["diagnosis"]).rstrip(".") + ".")
            tables = []
        if r.get("fallback_used"):
            lines.append("The step's fallback method was used.")
        gates = _gate_rows(r.get("gates") or [])
        if gates:
            tables.append({"columns": ["Gate", "Result", "Seen", "Threshold", "Detail"], "rows": gates, "caption": "Gates"})
        drop_empty_columns(tables)
        subs.append({"id": f"results-{st['id']}", "title": title, "text": "\n\n".join(lines), "tables": tables})
    return {"id": "results", "title": "Results", "text": "", "subsections": subs}


def _frequency_inputs(payload: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """A Bulletin 17C analysis' inputs: the record length in its one sentence form and the table by period (the
    table by water year is in the workbook)."""
    from aquascope_core.deliverables.flood_inputs import historical_source, input_summary, record_sentence

    rows = input_summary(payload, payload.get("unit"), historical_source(payload))
    if not rows:
        return None
    sentence = f"The analysis uses {record_sentence(payload)}; every water year with its peak, threshold, interval " \
               "and treatment is in the workbook."
    return sentence, {"columns": ["Period", "Treatment", "Perception threshold", "Peaks", "Source"],
                      "rows": rows, "caption": "Frequency analysis input by period"}


def _quoted_sources(ws: Workspace) -> list[str]:
    from aquascope_core.deliverables.flood_inputs import historical_source

    found = {historical_source(r.get("payload") or {}) for r in ((ws.run or {}).get("results") or {}).values()}
    return sorted((q for q in found if q), key=len, reverse=True)


def _limitations(ws: Workspace) -> dict[str, Any]:
    crit = ws.critique or {}
    plan = (ws.study or {}).get("plan") or {}
    lines = []
    ne = crit.get("not_established") or []
    if ne:
        lines += ["**What this study does not establish.**", ""]
        lines += [f"- {n['title']} ({n['step']}{', optional' if n.get('optional') else ''}): {n['reason']}." for n in ne]
    else:
        lines += ["Every step of the plan passed its gates."]
    time_notes = ((ws.findings or {}).get("decision") or {}).get("time_notes") or []
    if time_notes:
        lines += ["", "**The record in time.**", ""] + [f"- {t}" for t in time_notes]
    caveats = plan.get("caveats") or []
    if caveats:
        lines += ["", "**Caveats.**", ""] + [f"- {c}" for c in caveats]
    lim = plan.get("limitations_expected") or []
    if lim:
        lines += ["", "**Limitations of the method.**", ""] + [f"- {x}" for x in lim]
    notes = plan.get("notes") or []
    if notes:
        lines += ["", "**Plan notes.**", ""] + [f"- {x}" for x in notes]
    return {"id": "limitations", "title": "Limitations and what this study does not establish", "text": "\n".join(lines)}


def _recommendations(ws: Workspace) -> dict[str, Any]:
    f = ws.findings or {}
    recs = recommendations((ws.brief or {}).get("kind"), ws.run or {}, f.get("decision") or {})
    reqs = requests_not_met(f.get("data_requests") or [], (ws.run or {}).get("results") or {})
    lines = [f"- {r}" for r in recs]
    if reqs:
        lines += ["", "**Data that would firm this up.**", ""]
        lines += [f"- {r['what']}: {r['why']} ({r['effect']})." for r in reqs]
    return {"id": "recommendations", "title": "Recommendations", "text": "\n".join(lines)}


def _references(ws: Workspace) -> tuple[dict[str, Any], list[str]]:
    """Only the works the study used (roles.citations): each whole, none twice."""
    from roles.citations import references

    refs = references((ws.study or {}).get("plan") or {}, (ws.run or {}).get("results") or {})
    return {"id": "references", "title": "References", "text": "\n".join(f"- {r}" for r in refs)}, refs


def recreate_command(ws: Workspace) -> str:
    """The command that re-creates this study from the question (the same site, uploads and options)."""
    import shlex

    import re

    req, site = ws.request or {}, ws.site or {}
    text = req.get("text") or (ws.brief or {}).get("problem") or ""
    if "\n" in text or len(text) > 200 or not re.fullmatch(r"[\w\s,.;:'%?!/()+-]*", text):
        # the user's text goes into the report only quoted and escaped, under Problem and decision
        text = "THE QUESTION (as quoted under Problem and decision)"
    forced = req.get("playbook")
    parts = ["aquascope", "solve" if forced else "studio", shlex.quote(text), "--lat", f"{site.get('lat')}",
             "--lon", f"{site.get('lon')}"]
    if req.get("radius_km") not in (None, 50, 50.0):
        parts += ["--radius", f"{float(req['radius_km']):g}"]
    if forced:
        parts += ["--playbook", str(forced)]
    for name in (ws.tables or {}):
        parts += ["--data", shlex.quote(str(name))]
    if req.get("live") and not forced:
        parts.append("--live")
    parts.append("--yes")
    return " ".join(parts)


def _appendix(ws: Workspace, *, declined: bool = False) -> dict[str, Any]:
    again = recreate_command(ws)
    if declined:
        lines = [f"Study `{ws.id}`, aquascope {__version__}. `study.yaml` beside this report holds the question, the "
                 "site, what was found there and the decline; it replays the decline with no model:", "",
                 "```", "aquascope run study.yaml", "```"]
    else:
        lines = [f"Study `{ws.id}`, aquascope {__version__}. The study replays with no model and no network:", "",
                 "```", "aquascope run study.yaml", "```", "",
                 "The files beside this report, and in `bundle.zip`: the study file `study.yaml` (the approved plan "
                 "with its gates and results; attached, not reproduced here), `workspace.json` (everything the crew "
                 "wrote) and `workbook.xlsx`, whose Trace sheet gives the result path of every number quoted."]
    lines += ["", "The command that re-creates the study from the question" +
              (" (the uploads named by --data from where they are kept)" if ws.tables else "") + ":", "",
              "```", again, "```"]
    notes = model_notes(ws)
    if notes:
        lines += ["", "**The model.**", ""] + [f"- {n}" for n in notes]
    ledger = ws.ledger or {}
    if ledger:
        rows = [[role, v.get("calls"), v.get("prompt_tokens"), v.get("completion_tokens"),
                 "unknown" if v.get("cost_usd") is None else f"{v['cost_usd']:.4f}"] for role, v in ledger.items()]
        return {"id": "appendix", "title": "Appendix: reproducibility", "text": "\n".join(lines),
                "tables": [{"columns": ["Role", "Calls", "Prompt tokens", "Completion tokens", "Cost (USD)"], "rows": rows,
                            "caption": "Model ledger"}]}
    if not model_fallbacks(ws):
        lines += ["", "No model was called: every role ran keyless."]
    return {"id": "appendix", "title": "Appendix: reproducibility", "text": "\n".join(lines)}


def _declined(ws: Workspace) -> dict[str, Any]:
    b = ws.brief or {}
    reason = b.get("declined_reason") or "The crew declined the study."
    inv = _site_data(ws) if ws.inventory else None
    from roles.specialists.record import near_gauge_sentence

    near = near_gauge_sentence(ws.inventory or {}) if ws.inventory else None
    # a decline may quote what the user gave (an upload's column header): shown as text, never as markup
    sections = [{"id": "summary", "title": "Summary", "text": f"**Declined.** {md_prose(reason)}" + (f"\n\n{near}" if near else "")},
                {"id": "problem", "title": "Problem and decision", "text": f"**Question.** {quoted_question(ws)}"}]
    if inv:
        sections.append(inv)
    sections.append(_appendix(ws, declined=True))
    _round_prose(sections, _kept_as_written(ws))
    return {"title": "Study declined", "answer": round_prose(reason, keep=_kept_as_written(ws)), "declined": True, "key_numbers": [], "sections": sections,
            "not_established": [], "critique_ok": None, "references": [], "written_by": {"all": "keyless"}}


def build_report(ws: Workspace, *, model: Any = None, critic_model: Any = None) -> dict[str, Any]:
    """The report dict (sections in order), verified against the evidence.

    With ``critic_model`` the draft is read by the Critic's model, the Author rewrites what it names (a fix
    round, with ``model``), and the Critic reads it once more (roles.critic_review); the deterministic checks
    run last and win.
    """
    if ws.status == "declined" or (ws.brief or {}).get("declined_reason"):
        return _declined(ws)
    refs_section, refs = _references(ws)
    sections = [_summary(ws), _problem(ws), _site_data(ws), _methodology(ws), _results(ws), _limitations(ws),
                _recommendations(ws)]
    _round_prose(sections, _kept_as_written(ws))
    one_precision(sections, [f.get("value") for f in (ws.findings or {}).get("findings", [])])
    column_precision(sections)
    glossary = glossary_section(sections)
    sections += [glossary] if glossary else []
    sections += [refs_section, signoff_section(ws.id, ws.created, (ws.study or {}).get("title") or "Study report"),
                 _appendix(ws)]
    written_by = {s["id"]: "keyless" for s in sections}
    pool = evidence_pool(ws)
    dropped: list[dict[str, Any]] = []
    keyless_text = {s["id"]: s.get("text") or "" for s in sections}
    if model is not None:
        _model_prose(ws, model, sections, pool, written_by, dropped)
    if critic_model is not None:
        _model_critique(ws, model, critic_model, sections, pool, written_by, dropped, keyless_text)
    if model is not None or critic_model is not None:  # the ledger and the budget as they stand now
        sections[-1] = _appendix(ws)
    fallbacks = model_fallbacks(ws)
    if fallbacks:  # the appendix says which role could not use the model, and why
        sections[-1]["text"] += "\n\n" + fallback_note(fallbacks)
    # the user's question is quoted and escaped, never evidence: its numbers are not checked against the results
    text = _verified_text(sections).replace(quoted_question(ws), " ")
    for quoted in _quoted_sources(ws):  # the record's source quoted as it names itself (a manual, its year and pages)
        text = text.replace(quoted, " ")
    check = verify(text, pool)
    decided = (ws.findings or {}).get("decision", {}).get("answer", "")
    answer = plural_counts(round_prose(decided, keep=_kept_as_written(ws)))
    critique_ok = bool((ws.critique or {}).get("ok")) and check["ok"]
    if not critique_ok:
        problems = [u["number"] for u in check["unmatched"]] + list((ws.critique or {}).get("failed") or [])
        notice = ("Notice: the critique of this report is not clean (" + ", ".join(map(str, problems[:8])) +
                  "); treat its numbers with care.")
        answer = f"{notice} {answer}"
        sections[0]["text"] = f"**{notice}**\n\n" + sections[0]["text"]
    station = ((ws.study or {}).get("plan") or {}).get("station") or {}
    return {
        "title": (ws.study or {}).get("title") or "Study report",
        "subtitle": f"{station.get('name') or ''} — prepared by the aquascope crew".strip(" —"),
        "answer": answer,
        "key_numbers": [{k: f.get(k) for k in ("label", "value", "unit", "band", "basis", "method", "return_period")}
                        for f in (ws.findings or {}).get("findings", [])],
        "sections": sections,
        "not_established": (ws.critique or {}).get("not_established") or [],
        "critique": ws.critique,
        "critique_ok": critique_ok,
        "final_check": check,
        "dropped": dropped,
        "references": refs,
        "written_by": written_by,
        "model_fallbacks": fallbacks,
        "footer": {"text": f"aquascope {__version__} · study {ws.id} · written by: "
                           + ("keyless templates" if set(written_by.values()) == {"keyless"} else "model prose checked against the results")
                           + " · " + _ledger_line(ws)},
    }


def _kept_as_written(ws: Workspace) -> set[float]:
    """The numbers prose rounding leaves as written: the user's, and the gates' values written beyond three figures
    to stay on their side of a threshold."""
    results = ((ws.run or {}).get("results") or {}).values()
    return stated_numbers(ws) | gate_kept(g for r in results for g in (r or {}).get("gates") or [])


def stated_numbers(ws: Workspace) -> set[float]:
    """The numbers the user stated (in the question and the intake they gave): quoted as given, never rounded."""
    from aquascope_core.verify import numbers_in

    b = ws.brief or {}
    out = {n["value"] for n in numbers_in(str(b.get("problem") or (ws.request or {}).get("text") or ""))}
    out |= {float(v) for v in (b.get("intake_stated") or {}).values()
            if isinstance(v, (int, float)) and not isinstance(v, bool)}
    return out


def _round_prose(sections: Sequence[dict[str, Any]], keep: set[float] | None = None) -> None:
    """Prose quotes three significant figures (full precision stays in the results and the tables); the
    question as the user asked it, and the numbers they stated, are kept as given."""
    keep = keep or set()

    def walk(sec: dict[str, Any]) -> None:
        if sec.get("text"):
            sec["text"] = "\n".join(ln if ln.startswith("**Question.**") else plural_counts(round_prose(ln, keep=keep))
                                    for ln in sec["text"].split("\n"))
        for sub in sec.get("subsections") or []:
            walk(sub)

    for sec in sections:
        if sec["id"] in VERIFIED_SECTIONS:
            walk(sec)


MODEL_EDITABLE = ("summary", "problem", "recommendations")


def _model_critique(ws: Workspace, model: Any, critic_model: Any, sections: list[dict[str, Any]], pool: set[float],
                    written_by: dict[str, str], dropped: list[dict[str, Any]], keyless: Mapping[str, str]) -> None:
    from roles.critic_review import checked_issues, fix_round, model_review

    first = model_review(ws, critic_model, sections)
    rewritten: list[str] = []
    second = None
    if first:
        rewritten = fix_round(ws, model, sections, first, pool, written_by, dropped, editable=MODEL_EDITABLE,
                              keyless=keyless)
        second = model_review(ws, critic_model, sections, pass_no=2)
    remaining = checked_issues(second if second is not None else (first or []), pool)
    ws.critique = {**(ws.critique or {}), "model_review": {
        "passes": 0 if first is None else (2 if second is not None else 1), "first": first or [],
        "second": second or [], "rewritten": rewritten, "remaining": remaining}}
    if remaining:
        lim = next(s for s in sections if s["id"] == "limitations")
        lim["text"] += "\n\n**Points the review raised that stand.**\n\n" + "\n".join(
            f"- {i['section']} ({i['severity']}): {i['problem'] or i['fix']} Fix: {i['fix']}" for i in remaining)


def model_notes(ws: Workspace) -> list[str]:
    """The roles that ran keyless after the budget was spent (the fallbacks for other reasons: fallback_note)."""
    req = ws.request or {}
    notes = []
    after = req.get("keyless_after_budget") or []
    if after:
        notes.append(f"The budget of USD {req.get('max_usd')} was spent; after it "
                     + ", ".join(after) + " ran keyless.")
    return notes


def model_fallbacks(ws: Workspace) -> list[dict[str, Any]]:
    """The roles whose model could not be used, each with why (from the ``model_fallback`` events)."""
    return [{"role": ev.get("role"), "model": (ev.get("detail") or {}).get("model"),
             "reason": (ev.get("detail") or {}).get("reason")} for ev in ws.events if ev.get("event") == "model_fallback"]


def fallback_note(fallbacks: Sequence[Mapping[str, Any]]) -> str:
    lines = ["**Model fallback.** These roles asked the model and could not use it, so they ran keyless "
             "(templates over the results):", ""]
    lines += [f"- {fb['role']}: {md_inline(fb.get('reason'))}" for fb in fallbacks]
    return "\n".join(lines)


def _ledger_line(ws: Workspace) -> str:
    if (ws.request or {}).get("keyless_after_budget"):
        return _ledger_calls(ws) + f" · budget USD {ws.request.get('max_usd')} spent"
    return _ledger_calls(ws)


def _ledger_calls(ws: Workspace) -> str:
    if not ws.ledger:
        return "no model calls"
    calls = sum(v.get("calls", 0) for v in ws.ledger.values())
    toks = sum(v.get("prompt_tokens", 0) + v.get("completion_tokens", 0) for v in ws.ledger.values())
    costs = [v.get("cost_usd") for v in ws.ledger.values()]
    cost = "unknown cost" if any(c is None for c in costs) else f"USD {sum(costs):.4f}"
    return f"{calls} model calls, {toks:,} tokens, {cost}"


def _verified_text(sections: Sequence[Mapping[str, Any]]) -> str:
    from aquascope_core.deliverables.report_md import _section_md

    return "\n".join(_section_md(s) for s in sections if s["id"] in VERIFIED_SECTIONS)


def author_payload(ws: Workspace, issues: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """What the Author's model reads: the decision, the key numbers, the critique (or the issues of a fix
    round), the caveats and the sections it may write."""
    return {"decision": (ws.findings or {}).get("decision"),
            "key_numbers": [{k: f.get(k) for k in ("label", "value", "unit", "band")}
                            for f in (ws.findings or {}).get("findings", [])],
            "critique": {"ok": (ws.critique or {}).get("ok"),
                         "issues": list(issues) if issues is not None else (ws.critique or {}).get("issues")},
            "caveats": ((ws.study or {}).get("plan") or {}).get("caveats"), "sections": sorted(MODEL_EDITABLE)}


def narrate(ws: Workspace, sections: Mapping[str, str], *, source: str = "device",
            store: ArtifactStore | None = None) -> dict[str, Any]:
    """Prose a face's own model wrote for a finished report: every sentence is checked against the results and
    dropped when its numbers are in none; the report says who wrote which section and its files are rewritten.

    ``sections`` maps section ids (and ``answer``) to Markdown. Returns ``{"dropped": n, "written_by": {...}}``.
    """
    from aquascope_core.errors import StudyError

    if ws.status != "done" or not ws.report:
        raise StudyError(f"narrate needs a finished report (status {ws.status!r})",
                         recovery="Approve the plan and let the crew write the report first.")
    pool = evidence_pool(ws)
    report = dict(ws.report)
    secs = [dict(s) for s in report["sections"]]
    written_by = dict(report.get("written_by") or {})
    dropped = list(report.get("dropped") or [])
    n_before = len(dropped)
    known = {s["id"] for s in secs} | {"answer"}
    for sid, text in (sections or {}).items():
        if sid not in known or not isinstance(text, str) or not text.strip():
            continue
        kept = checked_sentences(text, pool, section=sid, dropped=dropped, source=source)
        if not kept:
            continue
        prose = " ".join(kept)
        if sid == "answer":
            report["answer"] = prose
        else:
            sec = next(s for s in secs if s["id"] == sid)
            if sid == "summary":  # the keyless answer and grade stay under the prose, and so does a notice
                notice = sec["text"].split("\n\n", 1)[0] if sec["text"].startswith("**Notice") else ""
                prose = "\n\n".join(x for x in (notice, prose, _summary(ws)["text"]) if x)
            sec["text"] = prose
        written_by[sid] = source
    report.update(sections=secs, written_by=written_by, dropped=dropped)
    report["footer"] = {**(report.get("footer") or {}), "text": (
        f"aquascope {__version__} · study {ws.id} · written by: " +
        ", ".join(f"{k}: {v}" for k, v in written_by.items() if v != "keyless") + " (checked against the results)"
        + " · " + _ledger_line(ws))}
    ws.report = report
    write_files(ws, store or ArtifactStore.for_study(ws.id))
    ws.event(ROLE, "narrated", {"source": source, "dropped": len(dropped) - n_before})
    return {"dropped": len(dropped) - n_before, "written_by": written_by}


def _model_prose(ws: Workspace, model: Any, sections: list[dict[str, Any]], pool: set[float],
                 written_by: dict[str, str], dropped: list[dict[str, Any]]) -> None:
    from roles.prompts import AUTHOR_SYSTEM

    editable = set(MODEL_EDITABLE)

    def check(obj: Any) -> dict[str, str]:
        secs = obj.get("sections") if isinstance(obj, Mapping) else None
        if not isinstance(secs, Mapping):
            raise ValueError("the reply needs a 'sections' object")
        return {k: v for k, v in secs.items() if k in editable and isinstance(v, str) and v.strip()}

    from roles.knowledge import with_knowledge

    prose = model.call_json(ws, ROLE, with_knowledge(AUTHOR_SYSTEM, (ws.brief or {}).get("playbook"), "recommendations"),
                            author_payload(ws), check)
    if not prose:
        return
    for sec in sections:
        text = prose.get(sec["id"])
        if not text:
            continue
        kept = checked_sentences(text, pool, section=sec["id"], dropped=dropped)  # words only, numbers checked
        if kept:
            # the model's prose leads; the keyless tables stay (their numbers are the results')
            sec["text"] = " ".join(kept) + ("\n\n" + sec["text"] if sec["id"] == "summary" else "")
            written_by[sec["id"]] = "model"


def study_file(ws: Workspace) -> Study | None:
    """The study the files carry (see aquascope_core.deliverables.build.study_file)."""
    from aquascope_core.deliverables.build import study_file as _study_file

    return _study_file(ws)


def write_files(ws: Workspace, store: ArtifactStore, *, formats: Any = None) -> list[dict[str, Any]]:
    """Every file of the study (report.md, .html, .docx, the workbook, the notebook, figures, study.yaml,
    workspace.json, the bundle) into the store; their references replace the old ones. A file whose
    library is missing is skipped with a note in the report's appendix. A declined study's study.yaml
    holds the brief, the inventory and the decline, so the decline replays."""
    from aquascope_core.deliverables.build import make_deliverables

    return make_deliverables(ws, store, formats=formats, study=study_file(ws))["artifacts"]


def author(ws: Workspace, *, model: Any = None, critic_model: Any = None,
           store: ArtifactStore | None = None, formats: Any = None) -> Workspace:
    """Write ``ws.report`` and the report files; status ``done`` (or ``declined`` kept)."""
    declined = ws.status == "declined"
    ws.status = "declined" if declined else "authoring"
    ws.event(ROLE, "start", None)
    ws.report = build_report(ws, model=model, critic_model=critic_model)
    ws.status = "declined" if declined else "done"
    store = store or ArtifactStore.for_study(ws.id)
    write_files(ws, store, formats=formats)
    ws.say(ROLE, ws.report["answer"], kind="declined" if declined else "report",
           payload={"title": ws.report["title"], "critique_ok": ws.report.get("critique_ok"),
                    "artifacts": [a["name"] for a in ws.artifacts]})
    ws.event(ROLE, "report", {"critique_ok": ws.report.get("critique_ok"), "files": [a["name"] for a in ws.artifacts]})
    return ws
