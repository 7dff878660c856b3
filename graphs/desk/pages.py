"""The desk's page frame, its small HTML helpers, and the pages that are not a study: sign-in and the list.

Everything a user or a study wrote passes through :func:`esc` (``html.escape``): text never becomes markup.
Pages are plain HTML forms (labelled fields, real buttons, a skip link), readable at a laptop's width and
printable (desk.css hides the forms in print).
"""

from __future__ import annotations

import html
import re
from datetime import datetime
from typing import Any, Iterable, Mapping, Sequence

__all__ = ["esc", "prose", "page", "when", "table", "error_box", "login_page", "studies_page", "message_page",
           "STATUS_ORDER"]

STATUS_ORDER = ("waiting for answers", "waiting for approval", "waiting for data", "waiting", "running")


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def prose(value: Any) -> str:
    """The crew's text (escaped) with its `inline code` shown as code, as the Markdown report shows it."""
    return re.sub(r"`([^`\n]+)`", r"<code>\1</code>", esc(value))


def when(stamp: Any) -> str:
    """An ISO time as 'YYYY-MM-DD HH:MM UTC' (as given when it does not parse)."""
    if not stamp:
        return ""
    try:
        dt = datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
    except ValueError:
        return str(stamp)
    return dt.strftime("%Y-%m-%d %H:%M UTC")


def table(columns: Sequence[str], rows: Iterable[Sequence[Any]], *, caption: str = "", raw: bool = False,
          cls: str = "") -> str:
    """A table with a caption and header cells; cells are escaped unless ``raw`` (already HTML)."""
    head = "".join(f'<th scope="col">{esc(c)}</th>' for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{c if raw else esc(c)}</td>" for c in row) + "</tr>" for row in rows)
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return f'<table class="{esc(cls)}">{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def error_box(message: str | None) -> str:
    if not message:
        return ""
    return f'<div class="error" role="alert" id="error"><strong>Not done.</strong> {esc(message)}</div>'


def page(title: str, body: str, *, user: str | None = None, refresh: int | None = None) -> str:
    """The frame every page shares: title, header with the user and sign-out, main content."""
    who = ""
    if user:
        who = (f'<span class="who">Signed in as <strong>{esc(user)}</strong></span>'
               '<form method="post" action="/desk/logout" class="inline"><button type="submit">Sign out</button>'
               "</form>")
    meta = f'<noscript><meta http-equiv="refresh" content="{refresh}"></noscript>' if refresh else ""
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)} · aquascope review desk</title>{meta}"
            '<link rel="stylesheet" href="/desk/static/desk.css">'
            '<script src="/desk/static/desk.js" defer></script></head><body>'
            '<a class="skip" href="#main">Skip to the content</a>'
            '<header class="top"><a class="brand" href="/desk">aquascope review desk</a>'
            f'<nav aria-label="Account">{who}</nav></header>'
            f'<main id="main" tabindex="-1">{body}</main></body></html>')


def message_page(title: str, message: str, *, user: str | None = None, back: str = "/desk") -> str:
    return page(title, f"<h1>{esc(title)}</h1>{error_box(message)}"
                       f'<p><a href="{esc(back)}">Back to your studies</a></p>', user=user)


def login_page(error: str | None = None, next_url: str = "/desk", auth_off: bool = False) -> str:
    note = ("<p class=\"note\">This server runs with authentication off (development): any token signs you in "
            "as the user <code>local</code>.</p>" if auth_off else "")
    body = (
        "<h1>Sign in</h1>"
        "<p>The review desk uses the same access tokens as the server's API: the one the operator gave you "
        "(you send it to the API as <code>Authorization: Bearer &lt;token&gt;</code>).</p>"
        f"{note}{error_box(error)}"
        '<form method="post" action="/desk/login" class="card narrow">'
        f'<input type="hidden" name="next" value="{esc(next_url)}">'
        '<label for="token">Access token</label>'
        '<input id="token" name="token" type="password" autocomplete="current-password" required autofocus '
        'aria-describedby="token-help">'
        '<p id="token-help" class="help">Kept in a cookie for this desk only; sign out to remove it.</p>'
        '<button type="submit" class="primary">Sign in</button></form>')
    return page("Sign in", body)


def _rank(row: Mapping[str, Any]) -> int:
    status = row["status"]
    return STATUS_ORDER.index(status) if status in STATUS_ORDER else len(STATUS_ORDER)


def studies_page(rows: list[dict[str, Any]], *, user: str, error: str | None = None,
                 form: Mapping[str, str] | None = None) -> str:
    """The user's studies, waiting ones first (then running, then the rest, newest first), and a new-study form."""
    form = dict(form or {})
    rows = sorted(sorted(rows, key=lambda r: str(r.get("updated") or ""), reverse=True), key=_rank)
    if rows:
        cells = []
        for r in rows:
            badge = f'<span class="status s-{esc(r["status"].split()[0])}">{esc(r["status"])}</span>'
            link = f'<a href="/desk/studies/{esc(r["id"])}">{esc(r["question"] or r["id"])}</a>'
            if r.get("parent"):
                link += f' <span class="tag">fork: {esc(r.get("variant") or "changed")}</span>'
            cells.append([badge, esc(r["site"]), link, esc(r["grade"]), esc(r["last_step"]), esc(when(r["updated"]))])
        listing = table(["Status", "Site", "Question", "Grade", "Last step", "When"], cells, raw=True,
                        caption=f"Your studies ({len(rows)}), waiting ones first", cls="studies")
    else:
        listing = '<p class="empty">You have no studies yet. Start one below.</p>'
    new = (
        '<section aria-labelledby="new-h" class="card"><h2 id="new-h">Start a study</h2>'
        f"{error_box(error)}"
        '<form method="post" action="/desk/studies" class="grid">'
        '<div class="wide"><label for="question">Question</label>'
        f'<textarea id="question" name="question" rows="2" required aria-describedby="q-help">{esc(form.get("question"))}'
        '</textarea><p id="q-help" class="help">In words, as you would ask a hydrologist: for example '
        '"Flood risk at the culvert" or "Design flow for a road crossing, 100-year".</p></div>'
        '<div><label for="lat">Latitude (decimal degrees, north positive)</label>'
        f'<input id="lat" name="lat" inputmode="decimal" required value="{esc(form.get("lat"))}" '
        'aria-describedby="lat-help"><p id="lat-help" class="help">For example 41.10 (Flat Brook, New Jersey).</p></div>'
        '<div><label for="lon">Longitude (decimal degrees, east positive)</label>'
        f'<input id="lon" name="lon" inputmode="decimal" required value="{esc(form.get("lon"))}" '
        'aria-describedby="lon-help"><p id="lon-help" class="help">For example -74.96 (west is negative).</p></div>'
        '<div class="wide"><button type="submit" class="primary">Start the study</button></div></form></section>')
    body = f"<h1>Your studies</h1>{listing}{new}"
    refresh = 5 if any(r["status"] == "running" for r in rows) else None
    return page("Your studies", body, user=user, refresh=refresh)


def study_row(thread: Mapping[str, Any]) -> dict[str, Any]:
    """One row of the list from a thread the API returned (values included)."""
    from graphs.desk.api import study_status

    values = thread.get("values") or {}
    if not isinstance(values, Mapping):
        values = {}
    brief = values.get("brief") or {}
    site = values.get("site") or {}
    decision = (values.get("findings") or {}).get("decision") or {}
    last = ""
    for ev in reversed(values.get("events") or []):
        if isinstance(ev, Mapping) and ev.get("role"):
            last = " ".join(str(x) for x in (ev.get("role"), ev.get("step"), ev.get("event")) if x)
            break
    return {
        "id": thread["thread_id"], "status": study_status(thread),
        "site": f"{site['lat']:.4f}, {site['lon']:.4f}" if {"lat", "lon"} <= set(site) else "",
        "question": str(brief.get("problem") or (values.get("request") or {}).get("text") or ""),
        "grade": decision.get("grade") or "", "last_step": last, "updated": thread.get("updated_at"),
        "parent": (thread.get("metadata") or {}).get("parent"),
        "variant": (thread.get("metadata") or {}).get("variant"),
    }
