"""An OpenAI-compatible chat endpoint on loopback for the bring-your-own-model example: it answers each role
by its system prompt with a fixed reply (one of them carries a number no result holds, which the crew must
drop) and records the requests. Started and stopped by the test, on a free port."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

REPLIES = {
    "consultant": {"intake": {"return_period": 100, "decision": "design flow"}, "questions": []},
    "interpreter": {"findings": [], "answer": "not a JSON the interpreter can use without findings"},
    "author": {"sections": {"summary": "The gauge next to the crossing has a long daily record, so the design flood "
                                       "is estimated from it directly. A flood of 4321 m3/s is certain."}},
}


def _role(system: str) -> str:
    for role in REPLIES:
        if f"the {role} of" in system:
            return role
    return "author"


@contextmanager
def stub_model_server() -> Iterator[tuple[str, list[dict]]]:
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server protocol
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            system = next((m["content"] for m in body.get("messages", []) if m.get("role") == "system"), "")
            role = _role(system)
            seen.append({"path": self.path, "role": role, "model": body.get("model")})
            reply = {"id": f"stub-{len(seen)}", "object": "chat.completion", "created": 0, "model": body.get("model"),
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": json.dumps(REPLIES[role])}}],
                     "usage": {"prompt_tokens": 100, "completion_tokens": 40, "total_tokens": 140}}
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args) -> None:  # quiet
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
