"""The recorded service answers under fixtures/ (sources in its README), for the live-adapter tests.

Imported by name (``from recorded_answers import recorded``): a module called ``conftest`` is not unique in the
suite, so tests never import from it.
"""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"


def recorded(name: str):
    """A recorded service answer (tests/core/data/live/fixtures; sources in its README): JSON decoded, else text."""
    import json

    text = (FIXTURES / name).read_text(encoding="utf-8")
    return json.loads(text) if name.endswith(".json") else text
