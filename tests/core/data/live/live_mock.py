"""Scripted httpx.MockTransport answers for the live-adapter tests: the transport, not the services' shapes.

What a service answers comes from ``fixtures/`` (answers it really sent, sources in fixtures/README.md);
``status()``'s default body is a placeholder for the HTTP layer's own tests (test_live_http.py) and for the
Environment Agency, whose error bodies were not found recorded.
"""

from __future__ import annotations

from typing import Any

import httpx


class Script:
    """A MockTransport handler that answers from a list of steps and records the requests.

    A step is an ``httpx.Response``, an exception instance to raise, or a callable(request) -> Response.
    The last step repeats.
    """

    def __init__(self, *steps: Any) -> None:
        self.steps = list(steps)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        step = self.steps[min(len(self.requests) - 1, len(self.steps) - 1)]
        if isinstance(step, BaseException):
            raise step
        if callable(step) and not isinstance(step, httpx.Response):
            return step(request)
        return step

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)


def ok(body: Any) -> httpx.Response:
    return httpx.Response(200, json=body)


def status(code: int, body: Any = None, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(code, json=body if body is not None else {"error": True, "reason": f"status {code}"},
                          headers=headers)


def malformed() -> httpx.Response:
    return httpx.Response(200, content=b"<html>Service Unavailable</html>", headers={"Content-Type": "text/html"})


def timeout_error() -> httpx.ReadTimeout:
    return httpx.ReadTimeout("read timed out")
