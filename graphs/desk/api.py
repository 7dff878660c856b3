"""The desk's one way to act: the LangGraph HTTP API of the server it runs in, called as the signed-in user.

Every read and every action of the desk is a langgraph_sdk call carrying the user's own
``Authorization: Bearer <token>``, so the server's auth handler (graphs.auth) decides what the user may see
and do, exactly as it does for the sdk: another user's study is "not found". The calls go in-process: an
ASGI transport onto the server's own app with authentication applied (not the sdk's ``/noauth`` loopback,
which would skip it).

The answers to the interrupts are the agent-inbox forms the sdk sends (graphs.nodes): ``accept``, ``edit``
with the inbox's ActionRequest, ``response`` in words, ``ignore``; each carries ``by`` (the user), so the
decision lands in the study file under the reviewer's name.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Mapping

import httpx

__all__ = ["GRAPH", "STREAM", "ApiError", "connect", "interrupt_of", "study_status", "describe_error"]

GRAPH = "aquascope"  # the graph id langgraph.json names; the API takes it where an assistant id goes
# what a run the desk starts publishes for its progress stream: the roles' events (stream_mode="custom")
STREAM = ["custom"]
_TIMEOUT = httpx.Timeout(connect=5, read=120, write=60, pool=10)


class ApiError(Exception):
    """An API answer the desk shows in words (status code kept for the page's own status)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def describe_error(exc: Exception, what: str) -> ApiError:
    """An sdk failure as a sentence naming what was tried, what the server said and what to do."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, httpx.HTTPStatusError):
        code = exc.response.status_code
        try:
            body = exc.response.json()
            detail = body.get("detail") or body.get("message") or body.get("error") or exc.response.text
        except ValueError:
            detail = exc.response.text
        detail = str(detail)[:600]
        if code == 401:
            return ApiError(f"The server did not accept your token while trying to {what}: {detail}. "
                            "Sign in again with a token the operator configured.", 401)
        if code == 404:
            return ApiError(f"Could not {what}: there is no such study among yours (it may belong to another "
                            "user, or the id is mistyped).", 404)
        if code == 409:
            return ApiError(f"Could not {what}: the study is busy with a run; wait for it to finish and try "
                            f"again ({detail}).", 409)
        return ApiError(f"Could not {what}: the server answered {code}: {detail}", code if code >= 400 else 400)
    if isinstance(exc, httpx.HTTPError):
        return ApiError(f"Could not {what}: the server's API did not answer ({type(exc).__name__}: {exc}).", 502)
    return ApiError(f"Could not {what}: {type(exc).__name__}: {exc}", 500)


def _transport() -> tuple[str, httpx.AsyncBaseTransport]:
    from langgraph_api.server import app  # the running server; imported at request time, never at start-up

    try:
        from langgraph_api.asgi_transport import ASGITransport
    except ImportError:  # older servers
        ASGITransport = httpx.ASGITransport  # type: ignore[misc,assignment]
    return "http://desk.local", ASGITransport(app)  # root_path "": the auth middleware runs as for any client


@asynccontextmanager
async def connect(token: str) -> AsyncIterator[Any]:
    """A langgraph_sdk client acting as the holder of ``token`` (closed on exit)."""
    from langgraph_sdk.client import LangGraphClient

    base, transport = _transport()
    http = httpx.AsyncClient(base_url=base, transport=transport, timeout=_TIMEOUT,
                             headers={"Authorization": f"Bearer {token}"})
    try:
        yield LangGraphClient(http)
    finally:
        await http.aclose()


def interrupt_of(state_or_thread: Mapping[str, Any]) -> dict[str, Any] | None:
    """The HumanInterrupt a thread (or its state) waits on, or None."""
    found = state_or_thread.get("interrupts") or []
    if isinstance(found, Mapping):  # a thread: {task_id: [interrupts]}
        found = [i for group in found.values() for i in (group or [])]
    for intr in found:
        value = intr.get("value") if isinstance(intr, Mapping) else None
        if isinstance(value, list) and value:
            value = value[0]
        if isinstance(value, Mapping) and value.get("action_request"):
            return dict(value)
    return None


WAITING = {"answer_questions": "waiting for answers", "approve_plan": "waiting for approval",
           "provide_data": "waiting for data"}


def study_status(thread: Mapping[str, Any]) -> str:
    """One phrase for a thread: waiting for answers/approval/data, running, done, declined, failed."""
    intr = interrupt_of(thread)
    if intr is not None:
        return WAITING.get(intr["action_request"].get("action"), "waiting")
    status = thread.get("status")
    if status == "busy":
        return "running"
    if status == "error":
        return "failed"
    values = thread.get("values") or {}
    return str(values.get("status") or ("new" if not values else status or "idle"))
