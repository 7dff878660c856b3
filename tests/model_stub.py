"""An OpenAI-compatible chat-completions server on loopback, for tests that drive the real litellm.

    with StubModelServer([{"intake": {...}}, "not json", StubReply(status=500), StubReply(delay=5)]) as stub:
        Model("openai/stub", base_url=stub.base_url, api_key="sk-stub", timeout=2)

Each POST to ``/v1/chat/completions`` takes the next scripted reply: a dict (sent as its JSON text), a
string (sent as is), a callable (given the request body, returns one of these) or a :class:`StubReply`
(an HTTP status, a delay before answering, or a body that is not a chat completion). When the script runs
out the server answers with ``default`` (an empty JSON object unless told otherwise). Every request body is
recorded in ``requests``; ``served`` counts the completions with their token usage, so a test can compare
the crew's ledger with what the server really served.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Sequence

__all__ = ["StubModelServer", "StubReply"]


@dataclass
class StubReply:
    content: Any = None       # the message content (dict -> JSON text)
    status: int = 200         # an HTTP status other than 200 sends an error body
    delay: float = 0.0        # seconds to wait before answering (a slow or hanging endpoint)
    raw: str | None = None    # a body sent verbatim (garbage that is not a chat completion)


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


class StubModelServer:
    def __init__(self, replies: Sequence[Any] = (), *, default: Any = None, model: str = "stub") -> None:
        self.replies = list(replies)
        self.default = {} if default is None else default
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.served = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------------------------
    def __enter__(self) -> "StubModelServer":
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                return None

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                self._send(200, {"object": "list", "data": [{"id": stub.model, "object": "model"}]})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    body = {}
                reply = stub._next(body)
                if not isinstance(reply, StubReply):
                    reply = StubReply(content=reply)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.raw is not None:
                    self._send_text(reply.status, reply.raw)
                    return
                if reply.status != 200:
                    self._send(reply.status, {"error": {"message": f"stub error {reply.status}", "type": "server_error"}})
                    return
                content = reply.content if isinstance(reply.content, str) else json.dumps(reply.content)
                prompt = _tokens(json.dumps(body.get("messages") or []))
                completion = _tokens(content)
                with stub._lock:
                    stub.served["calls"] += 1
                    stub.served["prompt_tokens"] += prompt
                    stub.served["completion_tokens"] += completion
                self._send(200, {
                    "id": f"chatcmpl-stub-{stub.served['calls']}", "object": "chat.completion", "created": int(time.time()),
                    "model": body.get("model") or stub.model,
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                              "total_tokens": prompt + completion},
                })

            def _send(self, status: int, obj: Any) -> None:
                self._send_text(status, json.dumps(obj), "application/json")

            def _send_text(self, status: int, text: str, media: str = "text/plain") -> None:
                data = text.encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", media)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
                    pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="stub-model", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    # -- the script ---------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the stub with `with StubModelServer(...) as stub:`"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def _next(self, body: dict[str, Any]) -> Any:
        with self._lock:
            self.requests.append(body)
            reply = self.replies.pop(0) if self.replies else self.default
        if callable(reply) and not isinstance(reply, StubReply):
            reply = reply(body)
        return reply

    def push(self, *replies: Any) -> None:
        with self._lock:
            self.replies.extend(replies)

    def system_prompts(self) -> list[str]:
        """The system message of every request received, in order (which role called)."""
        out = []
        for body in self.requests:
            msgs = body.get("messages") or []
            out.append(next((m.get("content", "") for m in msgs if m.get("role") == "system"), ""))
        return out


def reply_by_role(table: dict[str, Callable[[dict[str, Any]], Any] | Any], fallback: Any = None) -> Callable[[dict[str, Any]], Any]:
    """A reply chosen by which role's system prompt opens the request (a word of the prompt -> reply)."""

    def pick(body: dict[str, Any]) -> Any:
        system = next((m.get("content", "") for m in body.get("messages") or [] if m.get("role") == "system"), "")
        for word, reply in table.items():
            if word.lower() in system.lower():
                return reply(body) if callable(reply) else reply
        return fallback if fallback is not None else {}

    return pick
