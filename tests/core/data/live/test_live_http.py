"""The HTTP layer: opt-in gate, retries with backoff and Retry-After, cache, User-Agent, failures."""

from __future__ import annotations

import httpx
import pytest

from aquascope_core.data.live.http import LiveHttp, live_enabled
from aquascope_core.errors import DataNotFoundError, SourceError

from live_mock import Script, malformed, ok, status, timeout_error

URL = "https://example.invalid/api"


def _http(script, tmp_path, **kw):
    sleeps = []
    http = LiveHttp("test", live=True, transport=script.transport(), cache_dir=tmp_path, sleep=sleeps.append, **kw)
    return http, sleeps


def test_gate_needs_both_the_flag_and_the_environment(monkeypatch, tmp_path):
    script = Script(ok({"a": 1}))
    monkeypatch.delenv("AQUASCOPE_LIVE", raising=False)
    assert not live_enabled(True) and not live_enabled(False)
    http = LiveHttp("test", live=True, transport=script.transport(), cache_dir=tmp_path)
    with pytest.raises(SourceError, match="AQUASCOPE_LIVE=1"):
        http.get_json(URL, what="x")
    monkeypatch.setenv("AQUASCOPE_LIVE", "1")
    off = LiveHttp("test", live=False, transport=script.transport(), cache_dir=tmp_path)
    with pytest.raises(SourceError, match="live=True"):
        off.get_json(URL, what="x")
    monkeypatch.setenv("AQUASCOPE_LIVE", "yes")  # only "1" switches it on
    assert not live_enabled(True)
    assert script.requests == []


def test_success_is_cached_with_its_retrieval_time(live_env, tmp_path):
    script = Script(ok({"a": 1}))
    http, _ = _http(script, tmp_path)
    body, accessed = http.get_json(URL, {"b": 2, "a": 1}, what="x")
    again, accessed2 = http.get_json(URL, {"a": 1, "b": 2}, what="x")  # same request, other order
    assert body == again == {"a": 1} and accessed == accessed2 and accessed.endswith("Z")
    assert len(script.requests) == 1 and len(list(tmp_path.glob("*.json"))) == 1
    ua = script.requests[0].headers["User-Agent"]
    assert ua.startswith("aquascope/") and "0." in ua


def test_default_cache_lives_under_aquascope_home(live_env, _isolated_home):
    script = Script(ok({"a": 1}))
    LiveHttp("svc", live=True, transport=script.transport()).get_json(URL, what="x")
    assert len(list((_isolated_home / "cache" / "svc").glob("*.json"))) == 1


def test_500_then_success_backs_off_exponentially(live_env, tmp_path):
    script = Script(status(500), status(503), ok({"ok": True}))
    http, sleeps = _http(script, tmp_path, backoff_s=0.5)
    assert http.get_json(URL, what="x")[0] == {"ok": True}
    assert sleeps == [0.5, 1.0] and len(script.requests) == 3


def test_429_honours_retry_after(live_env, tmp_path):
    script = Script(status(429, headers={"Retry-After": "7"}), ok([1]))
    http, sleeps = _http(script, tmp_path)
    assert http.get_json(URL, what="x")[0] == [1] and sleeps == [7.0]


def test_persistent_failure_timeout_and_malformed_json(live_env, tmp_path):
    http, sleeps = _http(Script(status(502)), tmp_path, retries=2)
    with pytest.raises(SourceError, match="failed after 3 attempt.*HTTP 502"):
        http.get_json(URL, what="daily flows")
    assert sleeps == [1.0, 2.0]
    http, _ = _http(Script(timeout_error()), tmp_path, retries=1)
    with pytest.raises(SourceError, match="timed out"):
        http.get_json(URL, what="x")
    http, _ = _http(Script(httpx.ConnectError("refused")), tmp_path, retries=0)
    with pytest.raises(SourceError, match="could not connect"):
        http.get_json(URL, what="x")
    http, _ = _http(Script(malformed()), tmp_path)
    with pytest.raises(SourceError, match="malformed JSON"):
        http.get_json(URL, what="x")
    assert list(tmp_path.glob("*.json")) == []  # failures are never cached


def test_404_and_400(live_env, tmp_path):
    http, _ = _http(Script(status(404)), tmp_path)
    with pytest.raises(DataNotFoundError, match="not found"):
        http.get_json(URL, what="station 1")
    http, sleeps = _http(Script(status(400, {"error": True, "reason": "Parameter 'daily' is invalid"})), tmp_path)
    with pytest.raises(SourceError, match="Parameter 'daily' is invalid"):
        http.get_json(URL, what="x")
    assert sleeps == []  # a 400 is not retried
