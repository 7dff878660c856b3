"""A study's page: brief and questions, inventory, plan (with its form while it waits), progress, report,
downloads, follow-up, fork and sensitivity, decisions. Built from the thread's state as the API returns it."""

from __future__ import annotations

import re
from typing import Any, Mapping

from aquascope_core.methodology import texts
from graphs.desk.data_request import data_section
from graphs.desk.forms import editable, shown
from graphs.desk.pages import error_box, esc, page, prose, table, when

__all__ = ["study_page", "DOWNLOADS"]

DOWNLOADS = (("report.docx", "Word report"), ("workbook.xlsx", "Excel workbook"),
             ("notebook.ipynb", "Jupyter notebook"), ("bundle.zip", "Bundle (every file, zipped)"),
             ("report.md", "Markdown report"), ("study.yaml", "Study file (replays with no model)"))


def _section(sid: str, title: str, body: str, cls: str = "") -> str:
    return (f'<section id="{sid}" aria-labelledby="{sid}-h" class="{cls}"><h2 id="{sid}-h">{esc(title)}</h2>'
            f"{body}</section>")


def _dl(pairs: list[tuple[str, str]]) -> str:
    return "<dl class=\"facts\">" + "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in pairs if v) + "</dl>"


def _brief(values: Mapping[str, Any], intr: Mapping[str, Any] | None, tid: str, labels: Mapping[str, str]) -> str:
    brief = values.get("brief") or {}
    intake = brief.get("intake") or {}
    parts = [_dl([("Question", esc(brief.get("problem") or (values.get("request") or {}).get("text"))),
                  ("Playbook", esc(brief.get("playbook"))), ("Decision", esc(brief.get("decision")))])]
    if intake:
        parts.append(table(["Setting", "Value"], [[labels.get(k, k), shown(v)] for k, v in intake.items()],
                           caption="What the study is asked to do (the intake)", cls="kv"))
    if brief.get("assumptions"):
        parts.append("<h3>Assumptions</h3><ul>" + "".join(f"<li>{esc(a)}</li>" for a in brief["assumptions"]) + "</ul>")
    if brief.get("declined_reason"):
        parts.append(f'<p class="notice"><strong>Declined:</strong> {esc(brief["declined_reason"])}</p>')
    questions = (brief.get("questions") or []) if intr is None else (intr["action_request"]["args"].get("questions") or [])
    if intr is not None and intr["action_request"].get("action") == "answer_questions":
        fields = []
        for q in questions:
            f = esc(q.get("field"))
            help_ = (f"Empty takes the default, {esc(shown(q.get('default')))}." if q.get("default") is not None
                     else "")
            if q.get("options"):
                opts = "".join(f'<option value="{esc(o)}">{esc(o)}</option>' for o in q["options"])
                control = f'<select id="answer-{f}" name="answer.{f}"><option value="">(the default)</option>{opts}</select>'
            else:
                control = f'<input id="answer-{f}" name="answer.{f}" aria-describedby="answer-{f}-help">'
            fields.append(f'<div><label for="answer-{f}">{esc(q.get("question"))}</label>{control}'
                          f'<p id="answer-{f}-help" class="help">{help_}</p></div>')
        parts.insert(0,
            '<form method="post" action="/desk/studies/' + esc(tid) + '/answer" class="card action" id="questions">'
            "<h3>The consultant asks</h3><p>Answer what you can; an empty answer takes the default.</p>"
            + "".join(fields) +
            '<div class="buttons"><button type="submit" name="do" value="answer" class="primary">Send the answers</button>'
            '<button type="submit" name="do" value="decline">Decline to answer (ends the study)</button></div></form>')
    elif questions:
        parts.append("<h3>Questions asked</h3><ul>" + "".join(f"<li>{esc(q.get('question'))}</li>" for q in questions) + "</ul>")
    waiting = intr is not None and intr["action_request"].get("action") == "answer_questions"
    return _section("brief", "Brief: the consultant's question waits for you" if waiting else "Brief", "".join(parts),
                    cls="waiting" if waiting else "")


def _inventory(values: Mapping[str, Any]) -> str:
    inv = values.get("inventory") or {}
    usable, other = [], []
    for d in inv.get("datasets") or []:
        for v in d.get("variables") or [{}]:
            (usable if v.get("usable") else other).append([
                d.get("name") or d.get("kind"), f"{d.get('source', '')} {d.get('station_id', '')}".strip(),
                shown(d.get("distance_km")), shown(d.get("area_km2")), v.get("variable"), v.get("resolution"),
                f"{v.get('period_start', '')} to {v.get('period_end', '')}" if v.get("period_start") else "",
                shown(v.get("years")), "held offline" if v.get("offline") else "catalogue only"])
    if not usable and not other:
        return _section("inventory", "Inventory", "<p class=\"empty\">The scout has not looked at the site yet.</p>")
    cols = ["Dataset", "Source and id", "Distance (km)", "Area (km2)", "Variable", "Resolution", "Period", "Years", "Held"]
    body = (table(cols, usable, caption=f"Data the study can use at the site ({len(usable)})", cls="compact")
            if usable else "<p>No dataset at the site is usable as it stands.</p>")
    if other:
        body += (f"<details><summary>{len(other)} more records known at the site, not usable as they stand "
                 "(catalogue only, or too short)</summary>"
                 + table(cols, other, caption="Records the study cannot use as they stand", cls="compact") + "</details>")
    notes = inv.get("notes") or []
    if notes:
        body += "<ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>"
    return _section("inventory", "Inventory", body)


def _gates(expects: list[Mapping[str, Any]]) -> str:
    items = []
    for g in expects or []:
        rest = ", ".join(f"{k} {shown(v)}" for k, v in g.items() if k != "check")
        items.append(f"<li><code>{esc(g.get('check'))}</code> {esc(rest)}</li>")
    return "<ul class=\"gates\">" + "".join(items) + "</ul>" if items else ""


def _plan(values: Mapping[str, Any], intr: Mapping[str, Any] | None, tid: str, playbook_intake: list[dict],
          running: bool = False) -> str:
    waiting = intr is not None and intr["action_request"].get("action") == "approve_plan"
    study = (intr["action_request"]["args"].get("study") if waiting else None) or values.get("study") or {}
    if not study.get("steps"):
        return _section("plan", "Plan", "<p class=\"empty\">No plan yet.</p>")
    plan = study.get("plan") or {}
    parts = [f"<p><strong>Objective.</strong> {esc(plan.get('objective'))}</p>"]
    if plan.get("methodology"):
        parts.append("<h3>Methodology</h3><ol>" + "".join(f"<li>{esc(m)}</li>" for m in texts(plan["methodology"])) + "</ol>")
    refused = None
    for m in reversed(values.get("messages") or []):
        if m.get("kind") == "plan":
            break
        if m.get("kind") == "plan_errors":
            refused = m.get("text")
            break
    if waiting and refused:
        parts.append(error_box(f"Your edit was not applied: {refused}"))
    steps = []
    for st in study["steps"]:
        sid = esc(st.get("id"))
        args = []
        for name, value in (st.get("arguments") or {}).items():
            n = esc(name)
            if waiting and editable(value):
                args.append(f'<div class="arg"><label for="arg-{sid}-{n}">{n}</label>'
                            f'<input id="arg-{sid}-{n}" name="arg.{sid}.{n}" value="{esc(shown(value))}"></div>')
            elif not editable(value):  # a reference to an earlier step's result: wiring, not a setting
                refs = ", ".join(m.strip().removeprefix("result.") for m in re.findall(r"\{\{([^}]*)\}\}", shown(value)))
                args.append(f'<div class="arg"><span class="argname">{n}</span> <span class="ref">from '
                            f'{esc(refs)}</span></div>')
            else:
                args.append(f'<div class="arg"><span class="argname">{n}</span> <code>{esc(shown(value))}</code></div>')
        keep = ""
        if waiting and st.get("optional"):
            keep = (f'<div class="keep"><input type="checkbox" id="keep-{sid}" name="keep.{sid}" value="1" checked>'
                    f'<label for="keep-{sid}">Run this optional step</label></div>')
        steps.append(f'<li class="step"><h3>{sid}. {esc(st.get("title"))} <span class="tool">tool '
                     f'<code>{esc(st.get("tool"))}</code></span>{" <span class=tag>optional</span>" if st.get("optional") else ""}'
                     f'</h3><p class="help">{esc(st.get("rationale"))}</p>'
                     f'<div class="args"><h4>Arguments</h4>{"".join(args)}</div>'
                     f'<div><h4>Gates</h4>{_gates(st.get("expects") or [])}</div>{keep}</li>')
    steps_html = '<ol class="steps">' + "".join(steps) + "</ol>"
    if not waiting:
        parts.append(f"<details><summary>The {len(steps)} steps with their tools, arguments and gates</summary>"
                     f"{steps_html}</details>")
        approved = " (approved)" if plan.get("approved") else ""
        if running and not plan.get("approved"):
            parts.insert(0, '<p class="note">The plan as it stood when the run began; the run is applying your '
                            "decision (an edit re-plans it), and the page shows the result when it ends.</p>")
        return _section("plan", "Plan" + approved, "".join(parts))
    intake = (values.get("brief") or {}).get("intake") or {}
    fields = []
    for q in playbook_intake:
        name = q.get("name")
        if q.get("silent") or (name not in intake and q.get("optional")):
            continue
        value = intake.get(name)
        fid = f"intake-{esc(name)}"
        if q.get("options"):
            opts = "".join(f'<option value="{esc(o)}"{" selected" if o == value else ""}>{esc(o)}</option>'
                           for o in q["options"])
            control = f'<select id="{fid}" name="intake.{esc(name)}">{opts}</select>'
        else:
            control = f'<input id="{fid}" name="intake.{esc(name)}" value="{esc(shown(value))}">'
        fields.append(f'<div><label for="{fid}">{esc(q.get("label") or name)}</label>{control}</div>')
    parts.append(
        f'<form method="post" action="/desk/studies/{esc(tid)}/plan" class="action">'
        '<input type="hidden" name="plan_form" value="1">'
        '<div class="card"><h3>Study settings</h3><p class="help">Changing a setting plans the study again for it '
        "(its steps, gates and text follow); changing an argument changes that step only. The edit is validated, "
        "gates included, before anything runs.</p>"
        f'<div class="grid">{"".join(fields)}</div></div>'
        f"<h3>Steps</h3>{steps_html}"
        '<div class="card decide"><h3>Your decision</h3>'
        '<button type="submit" name="do" value="approve" class="primary">Approve and run</button>'
        '<p class="help">Runs the plan with the settings and arguments above (the changes you made are recorded '
        "with your name in the study file).</p>"
        '<label for="reason">Reason (for a decline, or a change in words)</label>'
        '<textarea id="reason" name="reason" rows="2"></textarea>'
        '<div class="buttons"><button type="submit" name="do" value="decline">Decline the plan</button>'
        '<button type="submit" name="do" value="respond">Ask for a change in words</button></div></div></form>')
    return _section("plan", "Plan: waiting for your approval", "".join(parts), cls="waiting")


def _progress(values: Mapping[str, Any], tid: str, running: bool, run_error: str | None) -> str:
    events = [e for e in values.get("events") or [] if isinstance(e, Mapping)]
    rows = "".join(f"<li><span class=\"role\">{esc(e.get('role'))}</span> {esc(e.get('event'))}"
                   f"{(' ' + esc(e.get('step'))) if e.get('step') else ''} <time>{esc(when(e.get('at')))}</time></li>"
                   for e in events[-60:])
    stream = f' data-stream="/desk/studies/{esc(tid)}/progress"' if running else ""
    state = ('<p class="running" role="status">Running: the steps appear below as they finish; the page reloads when '
             "the run ends.</p>" if running else "")
    listing = f'<ol class="events" id="events" aria-live="polite"{stream}>{rows}</ol>'
    if not running and not run_error and len(events) > 12:
        listing = f"<details><summary>{len(events)} steps, from the brief to the report</summary>{listing}</details>"
    return _section("progress", "Progress", error_box(run_error) + state + listing)


def _report(values: Mapping[str, Any], tid: str, names: set[str]) -> str:
    if "report.html" not in names:
        return ""
    return _section("report", "Report", 
                    f'<p class="screen-only">The report as the Author wrote it (its headline is the Summary). '
                    f'<a href="/desk/studies/{esc(tid)}/files/report.html" target="_blank" rel="noopener">Open it '
                    'alone</a> to read it full width or print it.</p>'
                    f'<iframe id="report-frame" title="The report" src="/desk/studies/{esc(tid)}/files/report.html" '
                    'sandbox="allow-same-origin allow-popups"></iframe>')


def _downloads(tid: str, names: set[str]) -> str:
    items = [f'<li><a href="/desk/studies/{esc(tid)}/files/{esc(n)}?download=1" download>{esc(label)}</a> '
             f'<span class="help">{esc(n)}</span></li>' for n, label in DOWNLOADS if n in names]
    if not items:
        return ""
    return _section("downloads", "Downloads", "<ul class=\"downloads\">" + "".join(items) + "</ul>")


def _follow_up(values: Mapping[str, Any], tid: str, done: bool) -> str:
    asked = [m for m in values.get("messages") or [] if m.get("kind") == "answer" and (m.get("payload") or {}).get("follow_up")]
    items = "".join(f'<li><p class="q">{esc(m["payload"]["follow_up"])}</p><p class="a">{prose(m.get("text"))}</p></li>'
                    for m in asked)
    body = f'<ol class="follow-ups">{items}</ol>' if items else ""
    if done:
        body += (f'<form method="post" action="/desk/studies/{esc(tid)}/follow-up" class="card action">'
                 '<label for="follow_up">A question about the results, or a change to plan again</label>'
                 '<textarea id="follow_up" name="follow_up" rows="2" required aria-describedby="fu-help"></textarea>'
                 '<p id="fu-help" class="help">For example "What was the largest annual maximum?" (answered from '
                 'the results) or "redo it with a 200-year return period" (planned again for your approval).</p>'
                 '<button type="submit" class="primary">Send the follow-up</button></form>')
    return _section("follow-up", "Follow-up", body) if body else ""


def _detail(d: Mapping[str, Any]) -> str:
    """A decision's detail in words: the answers, the changes (from -> to), the reason, the parent of a fork."""
    if d.get("changes"):
        said = []
        for c in d["changes"]:
            where = f"{c['intake']}" if "intake" in c else f"{c.get('step')} {c.get('field') or c.get('change')}"
            simple = all(not isinstance(c.get(k), (list, dict)) for k in ("from", "to"))
            said.append(f"{where} {shown(c.get('from'))} -> {shown(c.get('to'))}" if simple and "from" in c
                        else f"{where} changed")
        return "; ".join(said[:12]) + (f"; and {len(said) - 12} more" if len(said) > 12 else "")
    if isinstance(d.get("answers"), Mapping):
        return "; ".join(f"{k}: {shown(v)}" for k, v in d["answers"].items())
    if d.get("kind") == "fork":
        return f"from study {d.get('parent')}"
    return shown(d.get("answers") or d.get("reason") or d.get("text") or "")[:300]


def _decisions(values: Mapping[str, Any]) -> str:
    rows = [[d.get("kind"), d.get("point") or "", d.get("by"), when(d.get("at")), _detail(d)]
            for d in ((values.get("study") or {}).get("plan") or {}).get("decisions") or []]
    if not rows:
        return ""
    return _section("decisions", "Decisions", table(["Decision", "At", "By", "When", "Detail"], rows,
                                                   caption="The reviewer's decisions, as the study file records them"))


def _waiting(intr: Mapping[str, Any] | None) -> str:
    if intr is None:
        return ""
    action = intr["action_request"].get("action")
    link = {"answer_questions": ("#questions", "answer the consultant's question"),
            "approve_plan": ("#plan", "review the plan: edit its settings or arguments, approve or decline it"),
            "provide_data": ("#data", "bring the record the crew asks for, or go on without it")}.get(
        action, ("#brief", "answer the crew"))
    return f'<p class="callout" role="status">The study waits for you: <a href="{link[0]}">{esc(link[1])}</a>.</p>'


def study_page(tid: str, state: Mapping[str, Any], thread: Mapping[str, Any], *, user: str,
               status: str, playbook_intake: list[dict], error: str | None = None, run_error: str | None = None,
               forks_html: str = "") -> str:
    from graphs.desk.api import interrupt_of

    values = state.get("values") or {}
    if not isinstance(values, Mapping):
        values = {}
    running = status == "running"
    intr = None if running else interrupt_of(state)  # a run under way has taken the answer: no second one
    names = {a.get("name") for a in values.get("artifacts") or [] if isinstance(a, Mapping)}
    study = values.get("study") or {}
    title = study.get("title") or (values.get("brief") or {}).get("problem") or f"Study {tid}"
    site = values.get("site") or {}
    meta = thread.get("metadata") or {}
    parent = meta.get("parent")
    decision = (values.get("findings") or {}).get("decision") or {}
    done = values.get("status") in ("done", "declined") and intr is None and not running
    head = (f'<p class="crumbs"><a href="/desk">Your studies</a></p><h1>{esc(title)}</h1>'
            + _dl([("Status", f'<span class="status s-{esc(status.split()[0])}">{esc(status)}</span>'),
                   ("Site", esc(f"{site['lat']}, {site['lon']}") if {"lat", "lon"} <= set(site) else ""),
                   ("Grade", esc(" ".join(x for x in (decision.get("grade"), f"({decision['grade_reason']})"
                                                        if decision.get("grade_reason") else "") if x))),
                   ("Study id", f"<code>{esc(tid)}</code>"), ("Owner", esc(meta.get("owner"))),
                   ("Updated", esc(when(thread.get("updated_at")))),
                   ("Fork of", f'<a href="/desk/studies/{esc(parent)}">{esc(parent)}</a> ({esc(meta.get("variant"))})'
                    if parent else "")]))
    labels = {q["name"]: q.get("label") or q["name"] for q in playbook_intake if q.get("name")}
    parts = {"brief": _brief(values, intr, tid, labels), "inventory": _inventory(values),
             "plan": _plan(values, intr, tid, playbook_intake, running), "progress": _progress(values, tid, running, run_error),
             "report": _report(values, tid, names), "downloads": _downloads(tid, names),
             "follow-up": _follow_up(values, tid, done), "forks": forks_html, "decisions": _decisions(values),
             "data": data_section(intr, tid) if intr and intr["action_request"].get("action") == "provide_data" else ""}
    # what the reviewer came for first: the report of a finished study, the question or plan of a waiting one
    if running:
        order = ("progress", "brief", "plan", "inventory", "report", "downloads", "follow-up", "forks", "decisions", "data")
    elif "report.html" in names and not intr:
        order = ("downloads", "report", "follow-up", "forks", "brief", "plan", "inventory", "progress", "decisions", "data")
    else:
        order = ("data", "brief", "inventory", "plan", "progress", "report", "downloads", "follow-up", "forks", "decisions")
    titles = {"brief": "Brief", "inventory": "Inventory", "plan": "Plan", "progress": "Progress", "report": "Report",
              "downloads": "Downloads", "follow-up": "Follow-up", "forks": "Fork and sensitivity",
              "decisions": "Decisions", "data": "Data asked for"}
    toc = ('<nav aria-label="On this page" class="toc"><ul>' + "".join(
        f'<li><a href="#{k}">{titles[k]}</a></li>' for k in order if parts[k]) + "</ul></nav>")
    body = head + error_box(error) + _waiting(intr) + toc + "".join(parts[k] for k in order)
    return page(title, body, user=user, refresh=4 if running else None)
