"""Live data sources, opt-in: USGS Water Data, UK EA hydrology, Open-Meteo ERA5 and GloFAS.

Live mode is OFF unless both hold:

1. the caller asks for it: ``get_source("usgs_live", live=True)`` (or an adapter built with ``live=True``);
2. the environment sets ``AQUASCOPE_LIVE=1``.

With either missing, every request raises :class:`~aquascope_core.errors.SourceError` before a socket
is opened (and the on-disk cache is not read either). A failed request raises ``SourceError`` saying
what failed (``DataNotFoundError`` when the service answers that the station or the data is not there);
callers decide whether to go on with the embedded catalogue. ``AQUASCOPE_LIVE_SOURCES`` (comma-separated)
narrows the sources a study asks.

Records fetched once (``aquascope fetch``, :func:`aquascope_core.data.fetch.fetch_gauge`) are held under
``$AQUASCOPE_HOME/data`` and read offline afterwards (:mod:`aquascope_core.data.held`).

Every adapter takes ``client=`` (an ``httpx.Client``) or ``transport=`` so tests can use
``httpx.MockTransport``; answers are cached under ``$AQUASCOPE_HOME/cache/<source>/`` (default
``~/.aquascope/cache``) and the retrieval time is the provenance row's ``accessed``.
"""

from __future__ import annotations

from typing import Any

from aquascope_core.data.live.http import LIVE_ENV, live_enabled
from aquascope_core.errors import SourceError

__all__ = ["LIVE_SOURCES", "LIVE_ENV", "SOURCES_ENV", "live_enabled", "live_source", "enabled_live_sources"]

LIVE_SOURCES: tuple[str, ...] = ("usgs_live", "ea_hydrology", "open_meteo_era5", "glofas")
SOURCES_ENV = "AQUASCOPE_LIVE_SOURCES"


def enabled_live_sources() -> tuple[str, ...]:
    """The live sources a study asks: all of :data:`LIVE_SOURCES`, or those ``AQUASCOPE_LIVE_SOURCES`` lists
    (comma-separated, e.g. ``usgs_live``)."""
    import os

    text = os.environ.get(SOURCES_ENV, "").strip()
    if not text:
        return LIVE_SOURCES
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    bad = [n for n in names if n not in LIVE_SOURCES]
    if bad:
        raise SourceError(f"{SOURCES_ENV} names unknown live source(s) {', '.join(bad)}; known: {', '.join(LIVE_SOURCES)}")
    return names


def live_source(name: str, *, live: bool = False, **options: Any):
    """The live adapter ``name`` (see :data:`LIVE_SOURCES`); refused unless live mode is on."""
    if not live_enabled(live):
        raise SourceError(
            f"live source {name!r} is off: live mode needs live=True from the caller AND {LIVE_ENV}=1 in the environment",
            recovery="Run offline on the embedded catalogue, or enable live mode as the message says.")
    if name == "usgs_live":
        from aquascope_core.data.live.usgs import UsgsLive as cls
    elif name == "ea_hydrology":
        from aquascope_core.data.live.ea import EaHydrologyLive as cls
    elif name == "open_meteo_era5":
        from aquascope_core.data.live.open_meteo import OpenMeteoEra5Live as cls
    elif name == "glofas":
        from aquascope_core.data.live.open_meteo import GlofasLive as cls
    else:
        raise SourceError(f"no live source called {name!r}; known: {', '.join(LIVE_SOURCES)}")
    return cls(live=True, **options)
