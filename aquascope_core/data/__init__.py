"""Where the data comes from: the embedded catalogue, uploads and (opt-in) live sources.

Every source implements :class:`~aquascope_core.data.base.Source`::

    from aquascope_core.data import catalogue, get_source
    cat = catalogue()                                   # the embedded catalogue, loaded lazily, cached
    cat.stations_near(41.10, -74.96)                    # nearest first, within 50 km
    cat.describe_station("01440000")
    q = cat.fetch_series("01440000", "discharge")       # pandas Series, m3/s, attrs carry provenance
    get_source("holmes").fetch_series("leaf_river", "precipitation")

Nothing here opens a network connection unless a live source is asked for with ``live=True``
and the environment sets ``AQUASCOPE_LIVE=1`` (see :mod:`aquascope_core.data.live`).
"""

from __future__ import annotations

from aquascope_core.data.base import Source, haversine_km, validate_point
from aquascope_core.data.catalogue import Catalogue, catalogue, get_source, source_names
from aquascope_core.data.ingest import UploadSource, ingest  # binds the function over the submodule's name
from aquascope_core.data.store import embedded_table

__all__ = [
    "Source",
    "Catalogue",
    "catalogue",
    "get_source",
    "source_names",
    "embedded_table",
    "haversine_km",
    "validate_point",
    "ingest",
    "UploadSource",
]
