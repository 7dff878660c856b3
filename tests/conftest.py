"""Shared fixtures: the reference cases and a clean AQUASCOPE_HOME per test session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REFERENCE_DIR = Path(__file__).parent / "reference"


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    return REFERENCE_DIR


@pytest.fixture(scope="session")
def reference_cases() -> dict[str, dict]:
    """The cases of tests/reference/cases.json keyed by id."""
    data = json.loads((REFERENCE_DIR / "cases.json").read_text())
    return {case["id"]: case for case in data["cases"]}


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory, monkeypatch):
    """Every test gets its own AQUASCOPE_HOME so no test writes into the user's home or sees another's state."""
    home = tmp_path_factory.mktemp("aquascope_home")
    monkeypatch.setenv("AQUASCOPE_HOME", str(home))
    monkeypatch.delenv("AQUASCOPE_LIVE", raising=False)
    yield home
