"""The data request on the desk: the crew asks the user for a record it could use (an annual peak file, a flow
record, basin characteristics), the ``provide_data`` interrupt of graphs.nodes.

The form offers what the sdk can send: a file (CSV, XLSX, the USGS peak file) or the table pasted as text, read
exactly as ``Studio.add_table`` reads one (``aquascope_core.tools.context.table_entry``: the upload limits of
aquascope_core.limits, bytes, rows, columns and cells, the date and value checks of the ingest, the original kept
verbatim and by reference when large) and answered as the Studio answers it: the table joins the study's
``tables`` with the resume ``{"type": "response", "args": "table added: <name>"}``; the missing value in words
(a ``response``); "continue without it" (``accept``, offered only where the request allows a continuation); or
ending the study (``ignore``). A table the ingest refuses is an error in words, and nothing is sent.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from graphs.desk.forms import FormError
from graphs.desk.pages import esc, prose

__all__ = ["MAX_NAME", "data_section", "upload_name", "data_answer"]

MAX_NAME = 100
ACCEPT = ".csv,.txt,.tsv,.xlsx,.rdb"


def upload_name(name: str, default: str = "pasted.csv") -> str:
    """A table's name as the study keeps it: the file's base name, letters, digits, ``._-`` only."""
    base = re.split(r"[\\/]", str(name or "").strip())[-1]
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", base).strip("._")[:MAX_NAME]
    return safe or default


def _words(req: Mapping[str, Any]) -> str:
    try:
        from roles.methodologist import request_text

        return request_text(dict(req))
    except Exception:  # a request of another shape: what it holds, in words
        return " ".join(str(req.get(k)) for k in ("why", "what") if req.get(k))


def _wanted(req: Mapping[str, Any]) -> str:
    """What the request names, structured: each characteristic with its unit, the regions, where to find them."""
    rows = "".join(f"<tr><td><code>{esc(c.get('code'))}</code></td><td>{esc(c.get('unit'))}</td>"
                   f"<td>{esc(c.get('description') or '')}</td></tr>"
                   for c in req.get("characteristics") or [] if isinstance(c, Mapping))
    table = (f'<table class="wanted"><caption>The characteristics asked for</caption><thead><tr><th scope="col">'
             f'Code</th><th scope="col">Unit</th><th scope="col">What it is</th></tr></thead><tbody>{rows}</tbody>'
             '</table>' if rows else "")
    regions = f"<p>The regions: {esc(req['regions'])}.</p>" if req.get("regions") else ""
    where = f"<p>Where to find them: {esc(req['where'])}.</p>" if req.get("where") else ""
    return table + regions + where


def data_section(intr: Mapping[str, Any], tid: str) -> str:
    """The request in words and its form: a file, or the table pasted, or the value in words, or go on without."""
    req = (intr.get("action_request") or {}).get("args", {}).get("request") or {}
    from roles.requests import can_continue

    can_go_on = bool((intr.get("config") or {}).get("allow_accept")) and can_continue(req)
    grade = f" (graded at most {req['grade_without']})" if req.get("grade_without") else ""
    codes = [c["code"] for c in req.get("characteristics") or [] if isinstance(c, Mapping) and c.get("code")]
    asked = str(req.get("what") or "a record") if req.get("stands_without") else "a record"
    example = ('"' + ", ".join(f"{c} ..." for c in codes[:3]) + '; the region"' if codes
               else '"the catchment area is 120 km2"')
    without = ('<button type="submit" name="do" value="continue">Continue without it</button>'
               f'<p class="help">{esc("Goes on to " + str(req.get("without") or "work without it") + grade)}.</p>'
               if can_go_on else
               '<button type="submit" name="do" value="decline">End the study without it</button>'
               '<p class="help">The study cannot go on without it; ending it keeps the reason (what would help) in '
               "the report.</p>")
    return (
        f'<section id="data" aria-labelledby="data-h" class="waiting"><h2 id="data-h">Data: the crew asks you for '
        f'{esc(asked)}</h2><p>{prose(_words(req))}</p>{_wanted(req)}'
        f'<form method="post" action="/desk/studies/{esc(tid)}/data" enctype="multipart/form-data" '
        'class="card action" id="data-form">'
        '<h3>Bring it</h3>'
        f'<div><label for="data-file">The file (CSV, XLSX, the USGS peak file, or a StreamStats basin-characteristics '
        'report)</label>'
        f'<input type="file" id="data-file" name="data_file" accept="{ACCEPT}" aria-describedby="data-file-help">'
        '<p id="data-file-help" class="help">A date column (or a year for annual values) and the values, one row '
        "each; checked before anything is sent (size, rows, dates, values), and kept verbatim in the study.</p></div>"
        '<div><label for="data-text">Or paste the table (CSV text, header first)</label>'
        '<textarea id="data-text" name="data_text" rows="5" aria-describedby="data-text-help"></textarea>'
        '<p id="data-text-help" class="help">For example a header line <code>year,peak (ft3/s)</code> and one line '
        "a year.</p></div>"
        '<div><label for="data-words">Or say the missing value in words</label>'
        '<input id="data-words" name="data_words" aria-describedby="data-words-help">'
        f'<p id="data-words-help" class="help">For example {esc(example)}.</p></div>'
        '<div class="buttons"><button type="submit" name="do" value="send" class="primary">Send it and plan '
        f"again</button></div>{without}</form></section>")


def _entry(name: str, content: bytes | str) -> dict[str, Any]:
    from aquascope_core.errors import AquascopeError
    from aquascope_core.limits import check_upload_bytes
    from aquascope_core.tools.context import table_entry

    try:
        check_upload_bytes(len(content if isinstance(content, bytes) else content.encode("utf-8")),
                           what=f"the table {name}")
        return table_entry(name, content)
    except AquascopeError as exc:
        fix = f" {exc.recovery}" if getattr(exc, "recovery", None) and exc.recovery != exc.default_recovery else ""
        raise FormError(f"The table {name} was not added: {exc.message}.{fix}".replace("..", ".")) from None
    except (ValueError, TypeError, UnicodeError) as exc:
        raise FormError(f"The table {name} was not added: it could not be read as a table ({exc}).") from None


def data_answer(form: Mapping[str, Any], tables: Mapping[str, Any] | None,
                upload: tuple[str, bytes] | None = None) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The resume answer to the data request, and the study's tables with the new one (None when no table).

    ``upload`` is the file chosen (its name and bytes; None or empty when none was). FormError in words when
    the form holds nothing to send, more than one answer, or a table the ingest refuses."""
    do = str(form.get("do") or "send")
    if do == "continue":
        return {"type": "accept", "args": None}, None
    if do == "decline":
        return {"type": "ignore", "args": None}, None
    text = str(form.get("data_text") or "")
    words = str(form.get("data_words") or "").strip()
    given = [k for k, v in (("the file", upload and upload[1]), ("the pasted table", text.strip()),
                            ("the value in words", words)) if v]
    if not given:
        raise FormError("Nothing was sent: choose the file, paste the table, or say the missing value in words "
                        "(or continue without it, where the study can).")
    if len(given) > 1:
        raise FormError(f"Send one answer at a time: the form holds {' and '.join(given)}.")
    if words:
        from aquascope_core.limits import check_brief

        try:
            check_brief(words, what="the value in words")
        except ValueError as exc:
            raise FormError(str(getattr(exc, "message", exc))) from None
        return {"type": "response", "args": words}, None
    name, content = (upload_name(upload[0]), upload[1]) if upload and upload[1] else ("pasted.csv", text)
    kept = dict(tables or {})  # a table of the same name replaced, as Studio.add_table replaces it
    kept[name] = _entry(name, content)
    return {"type": "response", "args": f"table added: {name}"}, kept
