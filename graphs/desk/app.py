"""The review desk's routes: the Starlette app langgraph.json mounts beside the API (``"http": {"app":
"./graphs/desk/app.py:app"}``), so the desk runs wherever the crew is hosted, on the same server.

Every route reads the signed-in user's token from the desk's cookie (graphs.desk.session) and acts through the
server's own API as that user (graphs.desk.api): listing studies, starting one, answering the questions and the
plan (the same interrupts and answer forms as the sdk), following up, forking, and reading the files of a
study the API shows the user. A failure is a page that says in words what was not done and why.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from graphs.desk import session
from graphs.desk.api import GRAPH, STREAM, ApiError, connect, describe_error, interrupt_of, study_status
from graphs.desk.forms import FormError, answers_from_form, plan_edit_from_form
from graphs.desk.pages import login_page, message_page, studies_page, study_row
from graphs.desk.study_page import study_page

__all__ = ["app"]

STATIC = Path(__file__).with_name("static")
_ACTIVE = ("pending", "running")


def _html(text: str, status: int = 200, request: Request | None = None, basis: str | None = None) -> HTMLResponse:
    """A page, its POST forms carrying the session's check value (session.with_csrf)."""
    if basis is None and request is not None:
        basis = session.csrf_basis(request)
    return HTMLResponse(session.with_csrf(text, basis), status_code=status, headers={"Cache-Control": "no-store"})


def _see(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)


async def _user(request: Request) -> tuple[str | None, str]:
    token = session.token_of(request)
    return token, (await session.identity(token) if token else None) or "you"


def _checked(handler: Any, upload: bool = False) -> Any:
    """``handler`` acting only on a form that carries the session's check value (session.csrf_refusal).

    An ``upload`` form's text fields (a pasted table) may be as large as an upload (MAX_UPLOAD_BYTES), others
    1 MiB, the form parser's own bound."""
    async def checked(request: Request) -> Response:
        size = 1024 * 1024
        if upload:
            from aquascope_core.limits import MAX_UPLOAD_BYTES

            size = MAX_UPLOAD_BYTES + 4096
            declared = request.headers.get("content-length") or ""
            # a body larger than one upload and the form's other fields: refused before the parser spools it
            if declared.isdigit() and int(declared) > MAX_UPLOAD_BYTES + 64 * 1024:
                return _html(message_page("Not sent", f"The form is {int(declared):,} bytes, more than one upload may "
                                          f"be (the limit MAX_UPLOAD_BYTES is {MAX_UPLOAD_BYTES:,} bytes, "
                                          "aquascope_core.limits). Send the columns and years the study needs."),
                             413, request)
        try:
            form = await request.form(max_part_size=size)
        except Exception as exc:  # a body the form parser refuses (a field over its size, a broken multipart)
            return _html(message_page("Not sent", f"The form could not be read: {exc}. Send it again from the "
                                      "desk's page.", user=None), 400, request)
        refusal = session.csrf_refusal(request, form)
        if refusal:
            return _html(message_page("Not sent", refusal), 403, request)
        return await handler(request)

    checked.__name__ = handler.__name__
    return checked


# -- signing in --------------------------------------------------------------------------------------

async def login_form(request: Request) -> Response:
    nxt = request.query_params.get("next") or "/desk"
    html = login_page(next_url=nxt, auth_off=os.environ.get("AQUASCOPE_AUTH", "").lower() == "off")
    basis, pre = session.csrf_basis(request), None
    if basis is None:  # no session nor pre-login cookie yet: one set with the page, the form's value bound to it
        pre = secrets.token_urlsafe(24)
        basis = "pre:" + pre
    response = _html(html, basis=basis)
    if pre:
        session.set_pre_login(response, request, pre)
    return response


async def login(request: Request) -> Response:
    form = await request.form()
    nxt = str(form.get("next") or "/desk")
    if not nxt.startswith("/desk") or "//" in nxt:
        nxt = "/desk"  # only the desk's own pages: a login link cannot send the user elsewhere
    token = str(form.get("token") or "").strip()
    try:
        await session.check_token(token)
    except ApiError as exc:
        return _html(login_page(exc.message, nxt), exc.status, request)
    response = _see(nxt)
    session.set_token(response, request, token)
    return response


async def logout(request: Request) -> Response:
    response = _see("/desk/login")
    session.clear_token(response)
    return response


# -- the list and a new study ---------------------------------------------------------------------------

async def _studies(request: Request, error: str | None = None, form: Any = None, status: int = 200) -> Response:
    token, user = await _user(request)
    if not token:
        return session.wants_login(request)
    try:
        async with connect(token) as c:
            threads = await c.threads.search(limit=200, sort_by="updated_at", sort_order="desc")
    except Exception as exc:
        err = describe_error(exc, "list your studies")
        if err.status == 401:
            return session.wants_login(request)
        return _html(message_page("Your studies", err.message, user=user), err.status, request)
    rows = [study_row(t) for t in threads]
    return _html(studies_page(rows, user=user, error=error, form=form), status, request)


async def studies(request: Request) -> Response:
    return await _studies(request)


def _coordinate(text: str, name: str, limit: float) -> float:
    try:
        value = float(str(text).strip())
    except ValueError:
        raise FormError(f"The {name} {text!r} is not a number: write decimal degrees, for example "
                        f"{'41.10' if name == 'latitude' else '-74.96'}.") from None
    if not -limit <= value <= limit:
        raise FormError(f"The {name} {value} is outside -{limit:g} to {limit:g} degrees.")
    return value


async def start(request: Request) -> Response:
    token, user = await _user(request)
    if not token:
        return session.wants_login(request)
    form = await request.form()
    question = str(form.get("question") or "").strip()
    try:
        if not question:
            raise FormError("The question is empty: say what the study should answer, for example "
                            "\"Flood risk at the culvert\".")
        site = {"lat": _coordinate(str(form.get("lat") or ""), "latitude", 90),
                "lon": _coordinate(str(form.get("lon") or ""), "longitude", 180)}
        async with connect(token) as c:
            tid = (await c.threads.create(metadata={"via": "desk"}))["thread_id"]
            await c.runs.create(tid, GRAPH, input={"site": site, "request": {"text": question}},
                                stream_mode=STREAM)
    except FormError as exc:
        return await _studies(request, str(exc), dict(form), 400)
    except Exception as exc:
        err = describe_error(exc, "start the study")
        return await _studies(request, err.message, dict(form), err.status)
    return _see(f"/desk/studies/{tid}")


# -- a study ---------------------------------------------------------------------------------------------

async def _run_error(c: Any, tid: str) -> str | None:
    runs = await c.runs.list(tid, limit=1)
    if not runs or runs[0].get("status") not in ("error", "timeout", "interrupted"):
        return None
    try:
        out = await c.runs.join(tid, runs[0]["run_id"])
        detail = (out or {}).get("__error__") if isinstance(out, dict) else None
    except Exception:
        detail = None
    said = f"{detail.get('error')}: {detail.get('message')}" if isinstance(detail, dict) else runs[0]["status"]
    return f"The last run did not finish ({said}). The study stands at its last checkpoint; try the action again."


async def _study(request: Request, tid: str, error: str | None = None, status_code: int = 200) -> Response:
    from aquascope_core import playbooks

    from graphs.desk.forks import forks_section

    token, user = await _user(request)
    if not token:
        return session.wants_login(request)
    try:
        async with connect(token) as c:
            thread = await c.threads.get(tid)
            state = await c.threads.get_state(tid)
            runs = await c.runs.list(tid, limit=1)
            run_error = await _run_error(c, tid) if thread.get("status") == "error" else None
            forks = [t for t in await c.threads.search(metadata={"parent": tid}, limit=100)]
    except Exception as exc:
        err = describe_error(exc, "open the study")
        if err.status == 401:
            return session.wants_login(request)
        return _html(message_page("Study not found" if err.status == 404 else "Study", err.message, user=user),
                     err.status, request)
    status = "running" if runs and runs[0].get("status") in _ACTIVE else study_status(thread)
    values = state.get("values") or {}
    pb = (values.get("brief") or {}).get("playbook") if isinstance(values, dict) else None
    try:
        spec = list(playbooks.load(pb).get("intake") or []) if pb else []
    except Exception:
        spec = []
    forks.sort(key=lambda t: str(t.get("created_at") or ""))
    html = study_page(tid, state, thread, user=user, status=status, playbook_intake=spec, error=error,
                      run_error=run_error, forks_html=forks_section(tid, values, forks) if status != "running" else "")
    return _html(html, status_code, request)


async def study(request: Request) -> Response:
    return await _study(request, request.path_params["tid"])


async def _act(request: Request, what: str, act) -> Response:
    """Run ``act(client, state, form, user)`` as the signed-in user; the study page again, or with the error."""
    tid = request.path_params["tid"]
    token, user = await _user(request)
    if not token:
        return session.wants_login(request)
    form = dict(await request.form())
    try:
        async with connect(token) as c:
            state = await c.threads.get_state(tid)
            target = await act(c, tid, state, form, user)
    except (FormError, ApiError) as exc:
        return await _study(request, tid, str(exc) if isinstance(exc, FormError) else exc.message,
                            400 if isinstance(exc, FormError) else exc.status)
    except Exception as exc:
        err = describe_error(exc, what)
        return await _study(request, tid, err.message, err.status)
    return _see(target or f"/desk/studies/{tid}")


def _waiting_for(state: Any, action: str, what: str) -> dict[str, Any]:
    intr = interrupt_of(state)
    if intr is None or intr["action_request"].get("action") != action:
        raise ApiError(f"The study is not waiting for {what} now (it moved on, or someone answered already); "
                       "the page shows where it stands.", 409)
    return intr


async def _answer(c: Any, tid: str, state: Any, form: dict, user: str) -> None:
    intr = _waiting_for(state, "answer_questions", "answers")
    if form.get("do") == "decline":
        resp = {"type": "ignore", "args": None}
    else:
        resp = answers_from_form(form, intr["action_request"]["args"].get("questions") or [])
    await c.runs.create(tid, GRAPH, command={"resume": [{**resp, "by": user}]}, stream_mode=STREAM)


async def _plan(c: Any, tid: str, state: Any, form: dict, user: str) -> None:
    intr = _waiting_for(state, "approve_plan", "a decision on the plan")
    reason = str(form.get("reason") or "").strip()
    do = form.get("do")
    if do == "decline":
        resp = {"type": "ignore", "args": reason or None}
    elif do == "respond":
        if not reason:
            raise FormError("Say the change in words in the Reason box (for example \"use a 50-year return period\").")
        resp = {"type": "response", "args": reason}
    else:
        values = state.get("values") or {}
        study = intr["action_request"]["args"].get("study") or values.get("study") or {}
        edit = plan_edit_from_form(form, study, (values.get("brief") or {}).get("intake") or {})
        resp = ({"type": "edit", "args": {"action": "approve_plan", "args": edit}} if edit
                else {"type": "accept", "args": None})
    await c.runs.create(tid, GRAPH, command={"resume": [{**resp, "by": user}]}, stream_mode=STREAM)


async def _follow_up(c: Any, tid: str, state: Any, form: dict, user: str) -> None:
    text = str(form.get("follow_up") or "").strip()
    if not text:
        raise FormError("The follow-up is empty: ask a question about the results or say what to change.")
    if len(text) > 2000:
        raise FormError(f"The follow-up is {len(text)} characters long; keep it under 2,000.")
    if (state.get("values") or {}).get("status") not in ("done", "declined") or interrupt_of(state):
        raise ApiError("A follow-up needs a finished study; this one is still under way.", 409)
    await c.runs.create(tid, GRAPH, input={"request": {"follow_up": text}}, stream_mode=STREAM)


async def _fork(c: Any, tid: str, state: Any, form: dict, user: str) -> str:
    from graphs.desk.forks import chosen_edit, start_fork

    values = state.get("values") or {}
    if values.get("status") != "done" or interrupt_of(state):
        raise ApiError("Only a finished study can be forked from its plan.", 409)
    new = await start_fork(c, tid, chosen_edit(form, values), user)
    return f"/desk/studies/{new}"


async def _data(c: Any, tid: str, state: Any, form: dict, user: str) -> None:
    from aquascope_core.limits import check_upload_bytes

    from graphs.desk.data_request import data_answer

    _waiting_for(state, "provide_data", "data")
    upload, file = None, form.get("data_file")
    if file is not None and not isinstance(file, str) and getattr(file, "filename", None):
        try:
            check_upload_bytes(int(getattr(file, "size", None) or 0), what=f"the file {file.filename}")
        except ValueError as exc:
            raise FormError(f"The file {file.filename} was not added: {getattr(exc, 'message', exc)}.") from None
        upload = (file.filename, await file.read())
    resp, tables = data_answer(form, (state.get("values") or {}).get("tables"), upload)
    command: dict[str, Any] = {"resume": [{**resp, "by": user}]}
    if tables is not None:  # the table joins the study as Studio.add_table adds it, then the crew plans again
        command["update"] = {"tables": tables}
    await c.runs.create(tid, GRAPH, command=command, stream_mode=STREAM)


async def _variants(c: Any, tid: str, state: Any, form: dict, user: str) -> str:
    from graphs.desk.forks import standard_forks, start_fork

    values = state.get("values") or {}
    if values.get("status") != "done" or interrupt_of(state):
        raise ApiError("Only a finished study can be forked from its plan.", 409)
    left = standard_forks(values, await c.threads.search(metadata={"parent": tid}, limit=100))
    if not left:
        raise FormError("Every standard variant of this study has a fork already (or the study has none).")
    for fork in left:
        await start_fork(c, tid, fork, user)
    return f"/desk/studies/{tid}#forks"


async def answer(request: Request) -> Response:
    return await _act(request, "send the answers", _answer)


async def plan(request: Request) -> Response:
    return await _act(request, "send your decision on the plan", _plan)


async def follow_up(request: Request) -> Response:
    return await _act(request, "send the follow-up", _follow_up)


async def fork(request: Request) -> Response:
    return await _act(request, "fork the study", _fork)


async def variants(request: Request) -> Response:
    return await _act(request, "fork the study with its standard variants", _variants)


async def data(request: Request) -> Response:
    return await _act(request, "send the data", _data)


# -- files and progress -------------------------------------------------------------------------------------

async def files(request: Request) -> Response:
    """A file of a study the API shows the user, read from the study's artifact store."""
    from aquascope_core.workspace import ArtifactStore

    tid, name = request.path_params["tid"], request.path_params["name"]
    token, user = await _user(request)
    if not token:
        return session.wants_login(request)
    try:
        async with connect(token) as c:
            values = (await c.threads.get_state(tid)).get("values") or {}
    except Exception as exc:
        err = describe_error(exc, f"read {name}")
        return _html(message_page("File not found", err.message, user=user), err.status, request)
    ref = next((a for a in values.get("artifacts") or [] if a.get("name") == name), None)
    if ref is None:
        return _html(message_page("File not found", f"The study has no file named {name!r} (yet): the Author "
                                  "writes the files when the study finishes.", user=user, back=f"/desk/studies/{tid}"), 404, request)
    try:
        data = ArtifactStore.for_study(values.get("id") or tid).get(ref)
    except Exception as exc:
        msg = getattr(exc, "message", str(exc))
        return _html(message_page("File not available", f"{name} is listed but cannot be read: {msg}", user=user,
                                  back=f"/desk/studies/{tid}"), 410, request)
    headers = {"Cache-Control": "private, no-store", "X-Content-Type-Options": "nosniff"}
    base = name.rsplit("/", 1)[-1]
    if request.query_params.get("download") or not ref.get("media_type", "").startswith(("text/html", "image/")):
        headers["Content-Disposition"] = f'attachment; filename="{base}"'
    if ref.get("media_type", "").startswith("text/html"):  # the report: no scripts, images inline only
        headers["Content-Security-Policy"] = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
    return Response(data, media_type=ref.get("media_type") or "application/octet-stream", headers=headers)


async def progress(request: Request) -> Response:
    """The running run's progress events as server-sent events (``event: step``), then ``event: end``."""
    tid = request.path_params["tid"]
    token = session.token_of(request)
    if not token:
        return Response("sign in first", status_code=401)

    async def events():
        try:
            async with connect(token) as c:
                runs = await c.runs.list(tid, limit=1)
                if runs and runs[0].get("status") in _ACTIVE:
                    async for chunk in c.runs.join_stream(tid, runs[0]["run_id"], stream_mode="custom"):
                        if chunk.event == "custom" and isinstance(chunk.data, dict):
                            d = chunk.data
                            text = " ".join(str(x) for x in (d.get("role"), d.get("event"), d.get("step")) if x)
                            yield f"event: step\ndata: {json.dumps({'text': text, 'at': d.get('at')})}\n\n"
        except Exception as exc:
            err = describe_error(exc, "follow the run")
            yield f"event: problem\ndata: {json.dumps({'text': err.message})}\n\n"
        yield "event: end\ndata: {}\n\n"

    return StreamingResponse(events(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})


async def home(request: Request) -> Response:
    return _see("/desk")


app = Starlette(routes=[
    Route("/desk", studies, methods=["GET"], include_in_schema=False),
    Route("/desk/", home, methods=["GET"], include_in_schema=False),
    Route("/desk/login", login_form, methods=["GET"], include_in_schema=False),
    Route("/desk/login", _checked(login), methods=["POST"], include_in_schema=False),
    Route("/desk/logout", _checked(logout), methods=["POST"], include_in_schema=False),
    Route("/desk/studies", _checked(start), methods=["POST"], include_in_schema=False),
    Route("/desk/studies/{tid}", study, methods=["GET"], include_in_schema=False),
    Route("/desk/studies/{tid}/answer", _checked(answer), methods=["POST"], include_in_schema=False),
    Route("/desk/studies/{tid}/plan", _checked(plan), methods=["POST"], include_in_schema=False),
    Route("/desk/studies/{tid}/follow-up", _checked(follow_up), methods=["POST"], include_in_schema=False),
    Route("/desk/studies/{tid}/fork", _checked(fork), methods=["POST"], include_in_schema=False),
    Route("/desk/studies/{tid}/variants", _checked(variants), methods=["POST"], include_in_schema=False),
    Route("/desk/studies/{tid}/data", _checked(data, upload=True), methods=["POST"],
          include_in_schema=False),
    Route("/desk/studies/{tid}/files/{name:path}", files, methods=["GET"], include_in_schema=False),
    Route("/desk/studies/{tid}/progress", progress, methods=["GET"], include_in_schema=False),
    Mount("/desk/static", StaticFiles(directory=str(STATIC)), name="desk-static"),
])
