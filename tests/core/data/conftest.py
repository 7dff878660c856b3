"""Fixtures for the data-layer tests: where the shared extract lives, and a socket that refuses."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

_REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared real-data extract (beside the repository, or /work/shared/data); skip when absent."""
    for candidate in (_REPO.parent / "shared" / "data", Path("/work/shared/data")):
        if (candidate / "README.md").exists():
            return candidate
    pytest.skip("the shared data extract is not beside the repository")


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a connection fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"a network connection was attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    yield
