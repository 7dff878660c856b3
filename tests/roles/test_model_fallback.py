"""A model that cannot be used (nothing listening, or an endpoint that never answers) costs each role one
bounded attempt through the real litellm; the study ends with the keyless report and a note of the fallback."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from aquascope_core.errors import ModelError
from graphs.studio import Studio
from roles.model import Model, ScriptedModel, resolve_key
from tests.answers import past_request

TEXT = "Design flow for a road crossing, 100-year"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Silent:
    """A loopback server that accepts connections and never answers (a hung endpoint)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.held: list[socket.socket] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
                self.held.append(conn)
            except OSError:
                continue

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        for c in self.held:
            c.close()
        self.sock.close()


@pytest.fixture
def silent():
    server = _Silent()
    yield server
    server.close()


@pytest.mark.slow
@pytest.mark.parametrize("endpoint", ["nothing listening", "never answers"])
def test_an_unusable_model_gives_the_keyless_report_with_the_fallback_noted(endpoint, silent, monkeypatch, tmp_path):
    port = _free_port() if endpoint == "nothing listening" else silent.port
    monkeypatch.setenv("AQUASCOPE_MODEL_TIMEOUT", "1")
    monkeypatch.setenv("AQUASCOPE_FORMATS", "md")
    monkeypatch.setenv("AQ_TEST_MODEL_KEY", "sk-test-0123456789abcdefghij")
    t0 = time.monotonic()
    with Studio(41.10, -74.96, model="openai/stub-model", base_url=f"http://127.0.0.1:{port}/v1",
                api_key="env:AQ_TEST_MODEL_KEY") as s:
        assert past_request(s, s.say(TEXT)).kind == "plan"
        reply = s.approve()
        files = {p.name: p for p in s.export(tmp_path / "out")}
        report = s.to_dict()["report"]
    elapsed = time.monotonic() - t0
    assert reply.kind == "report" and "138 m3/s" in reply.text  # the keyless answer, numbers from the results
    roles = [fb["role"] for fb in report["model_fallbacks"]]
    assert {"consultant", "author"} <= set(roles) and len(roles) == len(set(roles))  # one attempt per role
    word = "unreachable" if endpoint == "nothing listening" else "did not answer within 1 s"
    assert all(word in fb["reason"] for fb in report["model_fallbacks"]), report["model_fallbacks"]
    assert all("API key" not in fb["reason"] for fb in report["model_fallbacks"])
    md = files["report.md"].read_text()
    assert "**Model fallback.**" in md and "- consultant:" in md
    assert "sk-test-0123456789abcdefghij" not in md + files["workspace.json"].read_text()
    assert elapsed < 60  # bounded: about one timeout per role, not litellm's default of minutes


def test_a_reply_shaped_like_a_credential_is_rejected_then_the_role_falls_back():
    from aquascope_core.workspace import Workspace

    ws = Workspace()
    echo = '{"sections": {"summary": "Authorization: Bearer abcdefghijklmnopqrstuvwx"}}'
    model = ScriptedModel([echo, echo])
    assert model.call_json(ws, "author", "system", {"x": 1}) is None
    assert [e["event"] for e in ws.events] == ["model_reply_rejected", "model_reply_rejected", "model_fallback"]
    assert "abcdefghijklmnop" not in str(ws.to_dict())


def test_a_key_reference_names_an_environment_variable(monkeypatch):
    monkeypatch.setenv("AQ_SOME_KEY", "sk-abc")
    assert resolve_key("env:AQ_SOME_KEY") == "sk-abc"
    monkeypatch.delenv("AQ_SOME_KEY")
    with pytest.raises(ModelError, match="AQ_SOME_KEY"):
        resolve_key("env:AQ_SOME_KEY")
    assert Model("openai/x", api_key="env:AQ_SOME_KEY").api_key == "env:AQ_SOME_KEY"  # resolved only at call time
