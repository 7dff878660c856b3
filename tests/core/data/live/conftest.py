"""Fixtures for the live-adapter tests: live mode on, and a scripted MockTransport."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from live_mock import Script


@pytest.fixture
def live_env(monkeypatch):
    monkeypatch.setenv("AQUASCOPE_LIVE", "1")


@pytest.fixture
def make_source(live_env, tmp_path) -> Callable[..., Any]:
    """Build an adapter on a scripted transport with no real waiting: make_source(cls, script)."""
    sleeps: list[float] = []

    def build(cls, script: Script, **kw):
        src = cls(live=True, transport=script.transport(), cache_dir=tmp_path / cls.name, sleep=sleeps.append,
                  **kw)
        src.sleeps = sleeps
        return src

    return build




from recorded_answers import FIXTURES, recorded  # noqa: E402,F401  (kept importable here too)
