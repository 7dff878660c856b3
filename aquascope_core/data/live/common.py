"""What the live adapters share: construction (the HTTP layer), provenance rows, point ids."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Callable

import httpx

from aquascope_core.data.base import Source, validate_point
from aquascope_core.data.live.http import DEFAULT_TIMEOUT, LiveHttp
from aquascope_core.errors import InputError
from aquascope_core.result import source as source_row

__all__ = ["LiveSource", "point_id", "parse_point_id", "bbox_around"]


class LiveSource(Source):
    """A source behind a web service. ``live``: the caller's opt-in (see :mod:`aquascope_core.data.live.http`)."""

    base_url: str = ""
    #: the environment variable that points the adapter at another host (a mirror, a stand-in on 127.0.0.1)
    base_url_env: str = ""
    citation: str = ""
    licence: str = ""

    def __init__(self, *, live: bool = False, client: httpx.Client | None = None,
                 transport: httpx.BaseTransport | None = None, base_url: str | None = None,
                 cache_dir: str | Path | None = None, use_cache: bool = True, retries: int = 3,
                 backoff_s: float = 1.0, timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
                 sleep: Callable[[float], None] | None = None) -> None:
        base_url = base_url or (os.environ.get(self.base_url_env, "").strip() if self.base_url_env else "")
        if base_url:
            self.base_url = base_url.rstrip("/")
        extra = {"sleep": sleep} if sleep is not None else {}
        self.http = LiveHttp(self.name, live=live, client=client, transport=transport, timeout=timeout,
                             retries=retries, backoff_s=backoff_s, cache_dir=cache_dir, use_cache=use_cache, **extra)

    def provenance(self, url: str, accessed: str, *, citation: str | None = None, dataset: str | None = None,
                   **extra: Any) -> dict[str, Any]:
        return source_row(self.name, url=url, dataset=dataset or self.title, citation=citation or self.citation,
                          accessed=accessed, licence=self.licence, offline=False, **extra)


def point_id(prefix: str, lat: float, lon: float) -> str:
    return f"{prefix}:{lat:.4f},{lon:.4f}"


def parse_point_id(prefix: str, station_id: Any) -> tuple[float, float]:
    """(lat, lon) from ``"<prefix>:<lat>,<lon>"`` (the prefix may be left out)."""
    if not isinstance(station_id, str):
        raise InputError.bad_value("station_id", station_id, f"'{prefix}:<lat>,<lon>', e.g. '{prefix}:41.1000,-74.9600'")
    text = station_id.strip()
    if text.lower().startswith(prefix + ":"):
        text = text[len(prefix) + 1:]
    try:
        lat_s, lon_s = text.split(",")
        return validate_point(float(lat_s), float(lon_s))
    except (ValueError, TypeError):
        raise InputError.bad_value("station_id", station_id,
                                   f"'{prefix}:<lat>,<lon>', e.g. '{prefix}:41.1000,-74.9600'") from None


def bbox_around(lat: float, lon: float, radius_km: float) -> tuple[float, float, float, float]:
    """(min_lon, min_lat, max_lon, max_lat) enclosing the circle (clipped at the poles and +-180)."""
    dlat = radius_km / 111.195
    coslat = max(math.cos(math.radians(lat)), 1e-6)
    dlon = min(radius_km / (111.195 * coslat), 180.0)
    return (max(-180.0, lon - dlon), max(-90.0, lat - dlat), min(180.0, lon + dlon), min(90.0, lat + dlat))
