"""Pull a gauge's records once from a live service into the local store (:mod:`aquascope_core.data.held`).

    from aquascope_core.data.fetch import fetch_gauge
    fetch_gauge(38.96, -76.69, what=("daily", "peaks"))          # the nearest USGS stream gauge
    fetch_gauge(38.96, -76.69, station="01594440", what=("peaks",))

Live access stays opt-in: this needs ``AQUASCOPE_LIVE=1`` in the environment (the caller's ``live=True``
is this call itself). Later studies at the place read the held records offline, with the provenance of the
fetch (its retrieval time) and the approval status the service gave each value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from aquascope_core.data.base import validate_point
from aquascope_core.data.held import held_root, save_record, save_station
from aquascope_core.errors import AquascopeError, DataNotFoundError, InputError

__all__ = ["fetch_gauge", "WHAT"]

WHAT = {"daily": "discharge", "peaks": "peak_discharge"}


def _what(what: Iterable[str] | str) -> list[str]:
    items = [w.strip() for w in (what.split(",") if isinstance(what, str) else what) if str(w).strip()]
    bad = [w for w in items if w not in WHAT]
    if bad or not items:
        raise InputError.bad_value("what", what, "one or more of " + ", ".join(WHAT) + " (e.g. 'daily,peaks')")
    return list(dict.fromkeys(items))


def fetch_gauge(lat: float, lon: float, *, station: str | None = None, what: Iterable[str] | str = ("daily", "peaks"),
                source: str = "usgs_live", radius_km: float = 50.0, root: str | Path | None = None,
                start: Any = None, end: Any = None, **options: Any) -> dict[str, Any]:
    """Fetch the records ``what`` of ``station`` (default: the stream gauge nearest (lat, lon)) and hold them.

    Returns ``{"station", "records": [{variable, n_values, period_start, period_end, provisional, path}],
    "failed": [{variable, reason}], "root"}``. A record the service does not have is listed in ``failed``;
    a service that cannot be reached raises :class:`SourceError` (nothing half-written is kept).
    """
    from aquascope_core.data import get_source
    from aquascope_core.data.base import record_summary

    la, lo = validate_point(lat, lon)
    wanted = _what(what)
    src = get_source(source, live=True, **options)  # refuses unless AQUASCOPE_LIVE=1
    if station is None:
        rows = src.stations_near(la, lo, radius_km=radius_km, limit=10, variable=WHAT[wanted[0]])
        if not rows:
            raise DataNotFoundError(f"{source} lists no stream gauge within {radius_km:g} km of {la:.4f}, {lo:.4f}",
                                    recovery="Give --station ID, widen --radius, or upload the record.")
        row = rows[0]
    else:
        row = None
    sid = str(station or row["station_id"]).strip().removeprefix("USGS-")
    try:
        desc = src.describe_station(sid)
    except DataNotFoundError:
        raise
    except AquascopeError:  # the description is context; the row from the list stands in
        if row is None:
            raise
        desc = None
    base = {k: (desc or row).get(k) for k in ("station_id", "name", "lat", "lon", "area_km2", "regulation", "url")}
    base["station_id"] = sid
    records, failed, series = [], [], []
    for w in wanted:
        try:
            s = src.fetch_series(sid, WHAT[w], start=start, end=end)
        except DataNotFoundError as exc:
            failed.append({"variable": WHAT[w], "reason": exc.message})
            continue
        series.append(s)
    for s in series:  # written only when every answer came back: no half-fetched gauge
        path = save_record(source, s, root=root)
        records.append({"variable": s.attrs["variable"], "unit": s.attrs["unit"], **record_summary(s, s.attrs["resolution"]),
                        "provisional": (s.attrs.get("provisional") or {}).get("n") or 0,
                        "fetched": s.attrs["provenance"].get("accessed"), "path": str(path)})
    if records:
        save_station(source, base, desc, root=root)
    return {"station": base, "records": records, "failed": failed, "root": str(held_root(root))}
