"""Forks of a finished study from the desk, and the sensitivity table of its forks, through the server's API.

A fork is LangGraph's own, as the sdk makes one (tests/graphs/test_langgraph_server.py): the study's thread
copied (``threads.copy``: a new study of the same user, with its history), the copy branched off its plan
checkpoint (``update_state`` at that checkpoint, recording the parent and the fork decision in the request,
so the fork's study file names its parent), run to the plan interrupt, and answered there with the one edit the
reviewer chose, made to the plan as approved (an intake change is planned again for it; a step argument changes
that step of the approved study, the reviewer's earlier edits kept). The copy's
metadata keeps ``parent``, ``choice`` and ``variant``, so the parent's page finds its forks by a search.

The table is graphs.sensitivity's: one row per fork with its estimate, band, change against the estimate as
approved and grade (a fork that has not finished says where it stands).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Mapping

from graphs.desk.api import GRAPH, STREAM, interrupt_of, study_status
from graphs.desk.forms import FormError, editable, read_value, shown
from graphs.desk.pages import esc, table

__all__ = ["fork_choices", "chosen_edit", "standard_forks", "start_fork", "forks_section"]


def _workspace(values: Mapping[str, Any]) -> Any:
    from aquascope_core.workspace import Workspace
    from graphs.state import STATE_KEYS

    return Workspace.from_dict({k: v for k, v in values.items() if k in STATE_KEYS and v is not None})


def fork_choices(values: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The standard sensitivity variants of a finished flood study (graphs.sensitivity), [] for other studies."""
    if (values.get("brief") or {}).get("playbook") != "flood_risk" or values.get("status") != "done":
        return []
    from graphs.sensitivity import flood_variants

    try:
        return flood_variants(_workspace(values))
    except Exception:  # a study without a fit step has no standard variants; the argument form still works
        return []


def _arguments(values: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """(key, current value) of every setting a fork may change: the intake, then each literal step argument."""
    out = [(f"intake.{k}", v) for k, v in ((values.get("brief") or {}).get("intake") or {}).items()
           if isinstance(v, (int, float, str)) and not isinstance(v, bool)]
    for st in (values.get("study") or {}).get("steps") or []:
        for name, v in (st.get("arguments") or {}).items():
            if editable(v):
                out.append((f"arg.{st['id']}.{name}", v))
    return out


def chosen_edit(form: Mapping[str, str], values: Mapping[str, Any]) -> dict[str, Any]:
    """{choice, variant, edits} for the fork the form asks for; FormError in words otherwise."""
    pick = (form.get("variant") or "").strip()
    if not pick and (form.get("value") or "").strip():
        pick = "custom"  # a new value typed without picking the radio: the change below is meant
    if pick.startswith("v") and pick[1:].isdigit():
        choices = fork_choices(values)
        i = int(pick[1:])
        if i >= len(choices) or choices[i].get("skip"):
            raise FormError("That variant is not one this study can be forked with; pick another.")
        return {k: choices[i][k] for k in ("choice", "variant", "edits")}
    if pick != "custom":
        raise FormError("Pick what the fork changes: one of the listed variants, or an argument with its new value.")
    key = (form.get("argument") or "").strip()
    current = dict(_arguments(values))
    if key not in current:
        raise FormError(f"{key or 'No argument'} is not a setting of this study's plan; pick one from the list.")
    new = read_value(form.get("value") or "", current[key], f"The fork's new value for {key}")
    if new == current[key] or (form.get("value") or "").strip() == "":
        raise FormError(f"The fork's value for {key} is its current value ({shown(current[key])}); enter a different one.")
    # the change is made to the plan as approved (the reviewer's own edits kept), not to the plan first shown
    if key.startswith("intake."):
        name = key.split(".", 1)[1]
        intake = {**((values.get("brief") or {}).get("intake") or {}), name: new}
        return {"choice": name.replace("_", " "), "variant": f"{name} {shown(new)}", "edits": {"intake": intake}}
    from graphs.sensitivity import with_step

    _, sid, name = key.split(".", 2)
    return {"choice": f"{sid} {name}", "variant": f"{name} {shown(new)}",
            "edits": with_step(values.get("study") or {}, sid, {name: new})}


def standard_forks(values: Mapping[str, Any], forks: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The standard variants (fork_choices) the study can be forked with and has no fork of yet, as chosen_edit
    returns them; a variant counts as forked when a fork's metadata names its choice and variant."""
    done = {((t.get("metadata") or {}).get("choice"), (t.get("metadata") or {}).get("variant")) for t in forks}
    return [{k: c[k] for k in ("choice", "variant", "edits")} for c in fork_choices(values)
            if not c.get("skip") and (c["choice"], c["variant"]) not in done]


async def start_fork(client: Any, tid: str, fork: Mapping[str, Any], user: str) -> str:
    """Copy the study, branch the copy off its plan checkpoint, run it to the plan and answer with the edit.
    Returns the fork's thread id (its run goes on in the background)."""
    from aquascope_core.result import utc_now

    from graphs.desk.api import ApiError

    new = (await client.threads.copy(tid))["thread_id"]
    await client.threads.update(new, metadata={"parent": tid, "choice": fork["choice"], "variant": fork["variant"]})
    history = await client.threads.get_history(new, limit=500)
    at_plan = next((h for h in history if h.get("next") == ["review"]), None)  # newest first: the last plan
    if at_plan is None:
        await client.threads.delete(new)
        raise ApiError("This study never waited at a plan, so there is no plan to fork from.", 409)
    cid = at_plan["checkpoint"]["checkpoint_id"]
    request = {k: v for k, v in ((at_plan.get("values") or {}).get("request") or {}).items() if k != "out"}
    request["parent"] = {"study": tid, "checkpoint": cid}
    request["decisions"] = [*(request.get("decisions") or []), {
        "kind": "fork", "by": user, "at": utc_now(), "parent": tid, "checkpoint": cid, "edits": fork["edits"]}]
    branch = await client.threads.update_state(new, {"id": new, "request": request, "status": "review"},
                                               as_node="methodologist", checkpoint_id=cid)
    await client.runs.wait(new, GRAPH, input=None, checkpoint_id=branch["checkpoint"]["checkpoint_id"])
    edit = {"type": "edit", "args": {"action": "approve_plan", "args": fork["edits"]}, "by": user}
    await client.runs.create(new, GRAPH, command={"resume": [edit]}, stream_mode=STREAM)
    return new


def _row(thread: Mapping[str, Any]) -> dict[str, Any]:
    from graphs.sensitivity import outcome

    values = thread.get("values") or {}
    meta = thread.get("metadata") or {}
    row = {"choice": meta.get("choice") or "fork", "variant": meta.get("variant") or "", "study": thread["thread_id"]}
    status = study_status(thread)
    if status == "done":
        row.update(outcome(SimpleNamespace(findings=values.get("findings") or {}, brief=values.get("brief") or {})))
    else:
        errors = [m.get("text") for m in values.get("messages") or [] if m.get("kind") == "plan_errors"]
        row["skipped"] = (errors[-1] if errors and interrupt_of(thread) else f"the fork is {status}")
    return row


def forks_section(tid: str, values: Mapping[str, Any], forks: list[Mapping[str, Any]]) -> str:
    """The fork form and the sensitivity table of the study's forks (shown for a finished study)."""
    from graphs.sensitivity import outcome, sensitivity_table

    if values.get("status") != "done":
        return ""
    parts = []
    base = outcome(SimpleNamespace(findings=values.get("findings") or {}, brief=values.get("brief") or {}))
    if forks and base.get("value") is not None:
        rows = [{"choice": "as approved", "variant": f"{base['return_period']}-year, as planned", "study": tid, **base}]
        rows += [_row(t) for t in forks]
        tab = sensitivity_table(rows, base)
        cells = []
        for r in tab["rows"]:
            sid = r[-1]
            link = f'<a href="/desk/studies/{esc(sid)}">{"this study" if sid == tid else "open"}</a>' if sid else ""
            cells.append([esc(c) for c in r[:-1]] + [link])
        parts.append(table(tab["columns"], cells, raw=True, caption=tab["caption"], cls="sensitivity"))
    elif forks:
        parts.append("<p>The study's estimate is not established, so its forks have no change to show.</p>")
    else:
        parts.append('<p class="empty">No forks yet.</p>')
    choices = fork_choices(values)
    radios = []
    for i, c in enumerate(choices):
        dis = " disabled" if c.get("skip") else ""
        why = f' <span class="help">(not available: {esc(c["skip"])})</span>' if c.get("skip") else ""
        radios.append(f'<div><input type="radio" name="variant" id="variant-{i}" value="v{i}"{dis}>'
                      f'<label for="variant-{i}">{esc(c["choice"])}: {esc(c["variant"])}</label>{why}</div>')
    options = "".join(f'<option value="{esc(k)}">{esc(k.replace("arg.", "").replace("intake.", "setting "))} '
                      f'(now {esc(shown(v))[:60]})</option>' for k, v in _arguments(values))
    radios.append('<div><input type="radio" name="variant" id="variant-custom" value="custom">'
                  '<label for="variant-custom">Another change: the setting or argument below</label></div>')
    parts.append(
        f'<form method="post" action="/desk/studies/{esc(tid)}/fork" class="card action">'
        '<fieldset><legend>What the fork changes</legend>' + "".join(radios) + "</fieldset>"
        '<div class="grid"><div><label for="fork-argument">Setting or argument</label>'
        f'<select id="fork-argument" name="argument">{options}</select></div>'
        '<div><label for="fork-value">Its new value</label><input id="fork-value" name="value" '
        'aria-describedby="fork-help"></div></div>'
        '<p id="fork-help" class="help">The fork is a new study of yours: this study copied at its approved plan, '
        "answered with the one change, run through the same gates to its own report.</p>"
        '<button type="submit" class="primary">Fork the study</button></form>')
    left = standard_forks(values, forks)
    if left:
        parts.append(
            f'<form method="post" action="/desk/studies/{esc(tid)}/variants" class="card action" id="variants-form">'
            f"<p>The standard variants not forked yet ({len(left)}): "
            + esc("; ".join(f"{c['choice']}: {c['variant']}" for c in left)) + ".</p>"
            '<button type="submit">Run the standard variants</button><p class="help">One fork each, as the fork '
            "above makes one; the table fills in as they finish.</p></form>")
    elif choices:
        parts.append('<p class="help">Every standard variant has a fork.</p>')
    return (f'<section id="forks" aria-labelledby="forks-h"><h2 id="forks-h">Fork and sensitivity</h2>'
            f'{"".join(parts)}</section>')
