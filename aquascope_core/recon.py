"""Reconnaissance: what exists at a point, and which methods it can defend.

``assess_site(lat, lon, *, radius_km=50, problem=None, return_period=None)`` returns::

    point:       {lat, lon}
    stations:    nearest first, with their true spans and distance (the catalogue's rows)
    catchment:   describe_catchment's answer for the site
    context:     years_by_variable, resolution_by_variable, area_km2, donors, available, radius_km,
                 ungauged, station_by_variable
    sufficiency: sufficiency_table(context, problem), each row with the station it would use
    notes:       sentences for the report ("live sources are off", "the catalogue lists ... ")

Spans come from the catalogue and the records held locally (``aquascope fetch``; in live mode the
nearest USGS gauge's records are fetched into that store first); stations are found by position,
never by name. A variable counts at the site only when its data can be read now: held offline (embedded
or fetched earlier), or from a live source's own row when the caller switched live mode on.
"""

from __future__ import annotations

import logging
from typing import Any, Mapping, Sequence

from aquascope_core.errors import InputError
from aquascope_core.registry import SiteContext, sufficiency_table

__all__ = ["assess_site", "describe_catchment", "site_context"]

log = logging.getLogger(__name__)

# Donor catchments for a regional estimate: a usable discharge record of at least this many years
# and a drainage area within this ratio of the site's (the usual similarity bounds).
DONOR_MIN_YEARS = 10
DONOR_AREA_RATIO = (0.2, 5.0)


def _validate(lat: Any, lon: Any, radius_km: Any) -> tuple[float, float, float]:
    from aquascope_core.data.base import validate_point

    la, lo = validate_point(lat, lon)
    try:
        radius = float(radius_km)
    except (TypeError, ValueError):
        raise InputError.bad_value("radius_km", radius_km, "a positive number of kilometres") from None
    if not radius > 0:
        raise InputError.bad_value("radius_km", radius_km, "a positive number of kilometres")
    return la, lo, radius


def _usable(var: Mapping[str, Any], live: bool) -> bool:
    return bool(var.get("offline")) or bool(live and var.get("live"))


def _stations(lat: float, lon: float, radius_km: float, *, live: bool, extra: Sequence[Any] = (),
              live_options: Mapping[str, Mapping[str, Any]] | None = None, notes: list[str]) -> list[dict[str, Any]]:
    from aquascope_core.data import catalogue
    from aquascope_core.data.held import held_sources

    rows = list(catalogue().stations_near(lat, lon, radius_km=radius_km, limit=25))
    live_rows = _live_rows(lat, lon, radius_km, live_options or {}, notes) if live else []
    held = [r for src in held_sources().values() for r in src.stations_near(lat, lon, radius_km=radius_km, limit=25)]
    kept = {(r["source"], r["station_id"]) for r in held}
    rows.extend(held)
    rows.extend(r for r in live_rows if (r.get("source"), r.get("station_id")) not in kept)
    for src in extra:
        rows.extend(src.stations_near(lat, lon, radius_km=radius_km, limit=25))

    def rank(r: Mapping[str, Any]) -> int:  # at equal distance: a record held locally, the catalogue's, a live row
        return 0 if r.get("held") else 2 if r.get("source", "").endswith(_LIVE_SUFFIXES) else 1

    # the user's data at the site first, then nearest first
    rows.sort(key=lambda r: (r.get("source") != "upload", r.get("distance_km") is None, r.get("distance_km") or 0.0,
                             rank(r)))
    for r in rows:
        # a record the catalogue lists but does not hold counts only once fetched (then it is held): in live mode
        # the nearest gauge's are; the live sources' own rows count in live mode
        from_live = rank(r) == 2
        for v in r.get("variables", []):
            v["usable"] = _usable(v, live and from_live)
    return rows


_LIVE_SUFFIXES = ("_live", "_hydrology", "_era5", "glofas")


def _live_rows(lat: float, lon: float, radius_km: float, options: Mapping[str, Mapping[str, Any]],
               notes: list[str]) -> list[dict[str, Any]]:
    """Stations of the live sources near the point; a source that fails is noted and the study goes on.

    A live gauge's records have no known span until they are read, so the records of the nearest USGS stream
    gauge are fetched into the local store (:func:`aquascope_core.data.fetch.fetch_gauge`) and the study reads
    them from there, as it would after ``aquascope fetch``.
    """
    from aquascope_core.data import get_source
    from aquascope_core.data.fetch import fetch_gauge
    from aquascope_core.data.live import enabled_live_sources
    from aquascope_core.errors import AquascopeError

    rows: list[dict[str, Any]] = []
    for name in enabled_live_sources():
        try:
            src = get_source(name, live=True, **dict(options.get(name) or {}))
            got = src.stations_near(lat, lon, radius_km=radius_km, limit=10)
        except AquascopeError as exc:
            notes.append(f"The live source {name} failed ({exc.message}); the study goes on with the embedded catalogue.")
            continue
        for r in got:
            for v in r.get("variables", []):
                v["live"] = True
        if name == "usgs_live" and got:
            try:
                fetch_gauge(lat, lon, station=got[0]["station_id"], what=("daily", "peaks"), source=name,
                            **dict(options.get(name) or {}))
            except AquascopeError as exc:
                notes.append(f"The records of {got[0]['name']} could not be fetched ({exc.message}).")
        rows.extend(got)
    return rows


# Sources whose records are model output (reanalysis, a hydrological model), not observations.
MODELLED_SOURCES = ("open_meteo_era5", "glofas")
# A modelled record of these variables is never taken for an observed one: it is listed under its own name.
_OBSERVED_ONLY = {"discharge": "discharge_modelled"}


def _is_modelled(st: Mapping[str, Any]) -> bool:
    return st.get("source") in MODELLED_SOURCES


def site_context(stations: Sequence[Mapping[str, Any]], *, radius_km: float,
                 extra_variables: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """The SiteContext dict the registry reads, from the stations found (nearest first).

    Observed records come first; reanalysis and model output stand in only for a variable no
    observation provides (and modelled discharge is listed as ``discharge_modelled``, never as a gauge).
    """
    years: dict[str, float] = {}
    resolution: dict[str, str] = {}
    by_var: dict[str, dict[str, Any]] = {}
    modelled: list[str] = []
    for st in sorted(stations, key=_is_modelled):
        for v in st.get("variables", []):
            name = v.get("variable")
            if _is_modelled(st):
                name = _OBSERVED_ONLY.get(name, name)
            if not name or not v.get("usable") or name in years:
                continue
            if _is_modelled(st):
                modelled.append(name)
            years[name] = float(v.get("years") or 0.0)
            resolution[name] = v.get("resolution") or "daily"
            by_var[name] = {"source": st.get("source"), "station_id": st.get("station_id"), "name": st.get("name"),
                            "distance_km": st.get("distance_km")}
    for v in extra_variables:  # the user's uploads count at the site
        name = v.get("variable")
        if name and (v.get("years") or 0) > years.get(name, 0):
            years[name] = float(v.get("years") or 0.0)
            resolution[name] = v.get("resolution") or "daily"
            by_var[name] = {"source": v.get("source", "upload"), "station_id": v.get("station_id"),
                            "name": v.get("name"), "distance_km": None}
    at_site = by_var.get("discharge")
    area = None
    if at_site:
        for st in stations:
            if st.get("station_id") == at_site["station_id"] and st.get("source") == at_site["source"]:
                area = st.get("area_km2")
                break
    elif stations:
        area = None  # a gauge elsewhere does not tell the site's area
    donors = None
    if not any(v.get("variable") == "discharge" and v.get("usable") for st in stations if not _is_modelled(st)
               for v in st.get("variables", [])):
        donors = 0  # looked, and no gauged record is within reach
    elif area:
        lo, hi = DONOR_AREA_RATIO
        donors = sum(
            1 for st in stations
            if st.get("area_km2") and lo <= st["area_km2"] / area <= hi
            and not (at_site and st.get("station_id") == at_site["station_id"])
            and any(v.get("variable") == "discharge" and v.get("usable") and (v.get("years") or 0) >= DONOR_MIN_YEARS
                    for v in st.get("variables", []))
        )
    ctx = SiteContext(years_by_variable=years, resolution_by_variable=resolution, area_km2=area, donors=donors,
                      available=set(years)).to_dict()
    ctx.update({"radius_km": radius_km, "ungauged": "discharge" not in years, "station_by_variable": by_var,
                "modelled": modelled})
    return ctx


def describe_catchment(lat: float, lon: float, *, station: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What is known offline about the catchment at the site.

    Offline, the catchment is the gauge's: its drainage area, regulation class, HUC8 and state from
    the catalogue. Without a gauge the attributes are unavailable and the note says so.
    """
    la, lo, _ = _validate(lat, lon, 1.0)
    if not station:
        return {"area_km2": None, "source": None,
                "note": "catchment attributes are unavailable offline for a site without a gauge"}
    from aquascope_core.data import get_source

    try:
        desc = get_source(station["source"]).describe_station(station["station_id"])
    except Exception as exc:  # noqa: BLE001 - the catchment is context, not a result
        log.debug("describe_station failed: %s", exc)
        desc = dict(station)
    return {
        "area_km2": desc.get("area_km2"),
        "upstream_area_km2": desc.get("area_km2"),
        "regulation": desc.get("regulation"),
        "huc8": desc.get("huc8"),
        "state": desc.get("state"),
        "dams": True if desc.get("regulation") == "regulated" else None,
        "from_station": {"source": station["source"], "station_id": station["station_id"], "name": desc.get("name")},
        "source": "the gauge's catalogue row",
        "note": (f"catchment attributes are those of the gauge {desc.get('name') or station['station_id']} "
                 f"({station.get('distance_km')} km from the site); elevation and aridity are unavailable offline"),
    }


def assess_site(lat: float, lon: float, *, radius_km: float = 50.0, problem: str | None = None,
                return_period: float | None = None, live: bool = False, extra_sources: Sequence[Any] = (),
                extra_variables: Sequence[Mapping[str, Any]] = (),
                live_options: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """What exists at (lat, lon) and which methods it can defend; see the module docstring.

    ``live=True`` also asks the live sources (which need AQUASCOPE_LIVE=1 as well); ``live_options``
    passes per-source options (``{"usgs_live": {"client": ...}}``). ``extra_sources`` (the user's
    uploads) are inventoried first.
    """
    la, lo, radius = _validate(lat, lon, radius_km)
    live_notes: list[str] = []
    stations = _stations(la, lo, radius, live=live, extra=extra_sources, live_options=live_options, notes=live_notes)
    ctx = site_context(stations, radius_km=radius, extra_variables=extra_variables)
    ctx["return_period"] = return_period
    gauge = ctx["station_by_variable"].get("discharge")
    catchment = describe_catchment(la, lo, station=gauge) if gauge and gauge.get("source") != "upload" else \
        describe_catchment(la, lo)
    if catchment.get("area_km2") and not ctx.get("area_km2"):
        ctx["area_km2"] = catchment["area_km2"]
    rows = sufficiency_table(ctx, problem=problem)
    for r in rows:
        r["station"] = ctx["station_by_variable"].get(r.get("variable")) if r.get("variable") else None
    notes = _notes(stations, ctx, radius, live) + live_notes
    return {
        "point": {"lat": la, "lon": lo},
        "radius_km": radius,
        "stations": stations,
        "catchment": catchment,
        "context": ctx,
        "sufficiency": rows,
        "notes": notes,
        "live": bool(live),
    }


def _notes(stations: Sequence[Mapping[str, Any]], ctx: Mapping[str, Any], radius: float, live: bool) -> list[str]:
    notes = []
    if not live:
        if any(s.get("held") for s in stations):
            notes.append("Live sources are off: the embedded catalogue and the records held locally (fetched earlier "
                         "from the services) were searched.")
        else:
            notes.append("Live sources are off: only the embedded catalogue was searched.")
    for st in stations:
        for v in st.get("variables", []) if st.get("held") else []:
            if v.get("usable") and v.get("fetched"):
                p = v.get("provisional") or {}
                notes.append(f"The {v['resolution']} {v['variable'].replace('_', ' ')} record of {st.get('name')} "
                             f"({st.get('source')} {st.get('station_id')}) was retrieved from the service on "
                             f"{str(v['fetched'])[:10]} and is held locally"
                             + (f"; {p['n']} of its values ({p['first']} to {p['last']}) are provisional data, subject "
                                "to revision." if p.get("n") else "."))
    uploads = [s for s in stations if s.get("source") == "upload"]
    if uploads:
        notes.append("The user's data: " + ", ".join(f"{s['name']} ("
                     + ", ".join(v["variable"] for v in s.get("variables", [])) + ")" for s in uploads) + ".")
    if not stations:
        notes.append(f"No station of the catalogue lies within {radius:g} km of the site.")
        return notes
    usable = [s for s in stations if any(v.get("usable") for v in s.get("variables", []))]
    meta_only = len(stations) - len(usable)
    if meta_only:
        notes.append(f"{meta_only} of the {len(stations)} stations within {radius:g} km are known from the catalogue's "
                     "metadata only; their data is not held offline.")
    if not usable:
        notes.append(f"No station within {radius:g} km holds data that can be read offline.")
    for st in usable[:5]:
        held = [v for v in st.get("variables", []) if v.get("usable")]
        listed = [v for v in st.get("variables", []) if not v.get("usable")]
        for v in listed:
            if v.get("period_start") and held:
                h = held[0]
                notes.append(
                    f"The catalogue lists {v.get('n_values') or 'some'} {v.get('variable').replace('_', ' ')} values for "
                    f"{st.get('name')} ({st.get('station_id')}) up to {str(v.get('period_end'))[:4]}, not held offline; "
                    f"the {h.get('resolution')} {str(h.get('variable')).replace('_', ' ')} record held here spans "
                    f"{str(h.get('period_start'))[:10]} to {str(h.get('period_end'))[:10]}.")
    gauge = (ctx.get("station_by_variable") or {}).get("discharge")
    if gauge and gauge.get("distance_km") is not None and gauge["distance_km"] > 5:
        notes.append(f"The nearest discharge record ({gauge.get('name')}) is {gauge['distance_km']:.1f} km from the site.")
    return notes
