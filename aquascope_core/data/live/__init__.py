"""Live data sources (opt-in): USGS Water Data, UK EA hydrology, Open-Meteo ERA5 and GloFAS."""

from __future__ import annotations

from typing import Any

from aquascope_core.errors import SourceError

__all__ = ["LIVE_SOURCES", "live_source"]

LIVE_SOURCES: tuple[str, ...] = ()


def live_source(name: str, *, live: bool = False, **options: Any):
    raise SourceError(f"live source {name!r} is not available")
