"""graphs/auth.py's token check without a server: the tokens file (lines or JSON) and the variable, a file changed
while serving (a token revoked, one added), each refusal a 401 saying what to send, a malformed file a 500 naming
the line, and the development switch."""

from __future__ import annotations

import asyncio
import os

import pytest

pytest.importorskip("langgraph_sdk")

from langgraph_sdk import Auth  # noqa: E402

from graphs import auth as A  # noqa: E402


def _check(header):
    try:
        return asyncio.run(A.authenticate(header))
    except Auth.exceptions.HTTPException as exc:
        return exc


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    for k in ("AQUASCOPE_TOKENS_FILE", "AQUASCOPE_TOKENS", "AQUASCOPE_AUTH"):
        monkeypatch.delenv(k, raising=False)
    A._cache.update(key=None, tokens={})


def test_tokens_from_a_file_and_the_variable(tmp_path, monkeypatch):
    f = tmp_path / "tokens"
    f.write_text("# user token\nalice tok-alice-1\n\nbob tok-bob-1  # the night shift\n")
    monkeypatch.setenv("AQUASCOPE_TOKENS_FILE", str(f))
    monkeypatch.setenv("AQUASCOPE_TOKENS", '{"tok-carol-1": "carol"}')
    assert _check("Bearer tok-alice-1")["identity"] == "alice"
    assert _check("bearer  tok-bob-1 ")["identity"] == "bob"
    assert _check("Bearer tok-carol-1")["identity"] == "carol"
    for header, says in ((None, "no Authorization header"), ("tok-alice-1", "not 'Bearer <token>'"),
                         ("Basic YWxpY2U=", "not 'Bearer <token>'"), ("Bearer tok-alice-2", "not one this server")):
        err = _check(header)
        assert isinstance(err, Auth.exceptions.HTTPException) and err.status_code == 401, header
        assert says in err.detail and "AQUASCOPE_TOKENS_FILE" in err.detail, header
    # revoked and added while serving: the file is read again when it changes
    f.write_text("alice tok-alice-2\n")
    os.utime(f, ns=(1, 1))
    assert _check("Bearer tok-alice-1").status_code == 401
    assert _check("Bearer tok-alice-2")["identity"] == "alice"


def test_no_tokens_a_bad_file_and_the_development_switch(tmp_path, monkeypatch):
    err = _check("Bearer anything")
    assert err.status_code == 401 and "no tokens configured" in err.detail
    f = tmp_path / "tokens"
    f.write_text("alice\n")
    monkeypatch.setenv("AQUASCOPE_TOKENS_FILE", str(f))
    err = _check("Bearer anything")
    assert err.status_code == 500 and "line 1" in err.detail and "USER TOKEN" in err.detail
    monkeypatch.setenv("AQUASCOPE_AUTH", "off")
    assert _check(None)["identity"] == "local"
