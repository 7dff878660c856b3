"""The embedded catalogue: every offline source behind the one interface, and the source registry.

Sources (``get_source(name)``):

==============  ====================================================================================
``usgs``        20,746 USGS streamgages (metadata, annual-peak span); daily discharge at four gauges
``holmes``      three HOLMES/HOOPLA catchments: Leaf River (as USGS ``02472000``), ``au_saumon``, ``baskatong``
``spotpy_hesse``  Hesse, Germany: ``schwingbach_site24`` (groundwater head, weather) and ``fulda``
``published``   published annual-maximum series: Fox (``04073500``, ``04084500``), Ocmulgee (``02215000``,
                ``02213000``), Big Sandy (``03606500``), ``north_saskatchewan_edmonton``, ``uccle``
``wymt_2022``   the USGS Wyoming-Montana 2022 flood-frequency study: annual peaks to water year 2022 at 21
                gauges with the study's PeakFQ specification (:mod:`aquascope_core.data.wymt_2022`)
``catalogue``   all of the above as one source (also :func:`catalogue`)
==============  ====================================================================================

A place that is a USGS gauge carries its USGS site number in every source, so the catalogue
shows it as one station: the Leaf River is ``02472000`` in ``usgs`` (catalogue metadata) and in
``holmes`` (daily P, PET, runoff), and ``catalogue().stations_near`` returns one row listing the
variables of both, each variable naming its ``source``; such a merged row has ``source: "catalogue"``
(``get_source("catalogue")`` serves every variable of it) and ``sources: ["usgs", "holmes"]``.
Word ids are aliases too (``leaf_river``).

Stations without coordinates in their source (Au Saumon and Baskatong, whose source gives only a
latitude; Schwingbach, Fulda, the North Saskatchewan and Uccle) never appear in ``stations_near``;
find them with ``find_stations(name)`` or by id.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import pandas as pd

from aquascope_core.data import store
from aquascope_core.data.base import Source, match_text, validate_query
from aquascope_core.data.provenance import CITATIONS
from aquascope_core.data.stations import OfflineSource, StationSpec, TableSource, VariableSpec, normalise_id
from aquascope_core.data.usgs import UsgsSource, usgs_url
from aquascope_core.errors import DataNotFoundError, InputError

__all__ = ["Catalogue", "catalogue", "get_source", "source_names", "OFFLINE_SOURCES", "embedded_peak_thresholds"]

OFFLINE_SOURCES = ("usgs", "holmes", "published", "spotpy_hesse", "wymt_2022")


# ----------------------------------------------------------------------------- helpers

def _usgs_place(site: str) -> dict[str, Any]:
    """Coordinates, area and regulation of a USGS site from the embedded catalogue."""
    rec = store.usgs_catalogue().loc[site]
    return {"lat": float(rec["latitude"]), "lon": float(rec["longitude"]),
            "area_km2": float(rec["drainage_area_km2"]), "regulation": rec["regulation_class"], "url": usgs_url(site),
            "attributes": {"state": rec["state"], "huc8": rec["huc8"], "drainage_area_sqmi": float(rec["drainage_area_sqmi"]),
                           "place_from": "USGS catalogue (by site number)"}}


def _annual(values: pd.Series) -> pd.Series:
    """A year-indexed series on a DatetimeIndex at 1 January of each labelled year."""
    out = pd.Series(values.to_numpy(float), index=pd.to_datetime([f"{int(y)}-01-01" for y in values.index]))
    return out.sort_index()


def _column(loader: Callable[[], pd.DataFrame], column: str) -> Callable[[], pd.Series]:
    return lambda: loader()[column]


# ----------------------------------------------------------------------------- HOLMES

def _holmes() -> list[StationSpec]:
    daily = "daily"
    note_q = "observed streamflow as depth over the catchment (source column Qo)"

    def variables(key: str, with_t: bool) -> list[VariableSpec]:
        f = f"holmes_{key}_daily.csv.gz"
        load = functools.partial(store.holmes_daily, key)
        out = [VariableSpec("discharge", "mm/d", daily, note_q, _column(load, "Qo"), f),
               VariableSpec("precipitation", "mm/d", daily, "source column P", _column(load, "P"), f),
               VariableSpec("potential_evapotranspiration", "mm/d", daily, "source column E0", _column(load, "E0"), f)]
        if with_t:
            out.append(VariableSpec("air_temperature", "degC", daily, "daily mean (source column T)", _column(load, "T"), f))
        return out

    def quebec(key: str, name: str) -> StationSpec:
        info = store.holmes_snow_info(key)
        attrs = {"latitude_only": float(info["Lat"]) if "Lat" in info else None,
                 "median_elevation_m": float(info["Z50"]) if "Z50" in info else None,
                 "elevation_bands_m": [float(x) for x in info.get("AltiBand", "").split(";") if x],
                 "QNBV": info.get("QNBV"),
                 "place_note": "the source gives a latitude but no longitude: not placed on a map"}
        return StationSpec(key, name, variables(key, True), citation=CITATIONS["holmes"], attributes=attrs,
                           aliases=(key.replace("_", " "),))

    leaf = _usgs_place("02472000")
    return [
        StationSpec("02472000", "Leaf River near Collins, MS", variables("leaf_river", False), lat=leaf["lat"],
                    lon=leaf["lon"], area_km2=leaf["area_km2"], regulation=leaf["regulation"], url=leaf["url"],
                    aliases=("leaf_river", "leaf"), citation=CITATIONS["holmes"] + " " + CITATIONS["leaf_mopex"],
                    attributes=leaf["attributes"]),
        quebec("au_saumon", "Au Saumon (Quebec)"),
        quebec("baskatong", "Baskatong (Quebec), reservoir inflow"),
    ]


# ----------------------------------------------------------------------------- spotpy (Hesse)

def _hesse() -> list[StationSpec]:
    daily = "daily"
    sf, ff = "spotpy_schwingbach_site24_daily.csv.gz", "spotpy_fulda_daily.csv.gz"
    sch, ful = store.schwingbach_daily, store.fulda_daily
    no_place = {"place_note": "the source gives no coordinates: not placed on a map", "region": "Hesse, Germany"}
    return [
        StationSpec("schwingbach_site24", "Schwingbach site 24 near Rechtenbach, Hesse", [
            VariableSpec("groundwater_level", "m a.s.l.", daily,
                         "daily mean of 24 hourly heads; days with fewer than 24 are gaps", _column(sch, "gwhead_m"), sf),
            VariableSpec("precipitation", "mm/d", daily, "daily mean of the hourly rain rate (= daily total)",
                         _column(sch, "rain_mm"), sf),
            VariableSpec("air_temperature", "degC", daily, "daily mean of hourly values", _column(sch, "tmean_c"), sf),
        ], aliases=("schwingbach",), citation=CITATIONS["spotpy"], attributes=dict(no_place)),
        StationSpec("fulda", "Fulda catchment, Hesse (gauge not named by the source)", [
            VariableSpec("discharge", "m3/s", daily, "daily discharge (source column Q)", _column(ful, "Q"), ff),
            VariableSpec("precipitation", "mm/d", daily, "source column Prec", _column(ful, "Prec"), ff),
            VariableSpec("air_temperature", "degC", daily, "daily mean (source column tmean)", _column(ful, "tmean"), ff),
            VariableSpec("air_temperature_max", "degC", daily, "source column tmax", _column(ful, "tmax"), ff),
            VariableSpec("air_temperature_min", "degC", daily, "source column tmin", _column(ful, "tmin"), ff),
        ], citation=CITATIONS["spotpy"], attributes=dict(no_place)),
    ]


# ----------------------------------------------------------------------------- published series

def _big_sandy_peaks() -> pd.Series:
    case = store.big_sandy_case()
    peaks = {int(y): float(v) for y, v in case["systematic_peaks"].items()}
    peaks.update({int(y): float(v) for y, v in case["historical_peaks"].items()})
    return _annual(pd.Series(peaks))


def embedded_peak_thresholds(site_no: str) -> dict[str, Any] | None:
    """The perception thresholds of the embedded peak record of a gauge (a published analysis held offline, such
    as the PeakfqSA manual's Big Sandy): ``{"perception_thresholds", "historical_period", "name", "note"}``, None
    when no embedded record of the gauge carries any."""
    sid = str(site_no or "").strip().split(".")[0]
    for spec in _published():
        if spec.station_id != sid:
            continue
        for v in spec.variables:
            if v.variable == "peak_discharge" and v.extra_attrs.get("perception_thresholds"):
                return {"perception_thresholds": list(v.extra_attrs["perception_thresholds"]),
                        "historical_period": v.extra_attrs.get("historical_period"), "name": spec.name,
                        "note": v.note}
    return None


def _published() -> list[StationSpec]:
    annual = "annual"
    case = store.big_sandy_case()
    evd_note = ("annual maximum discharge as published ({ref}); year as labelled by the source; "
                "USGS site number matched by the gauge's name")

    def evd_station(site: str, name: str, table: str, column: str, ref: str, citation: str) -> StationSpec:
        place = _usgs_place(site)
        f = f"evd_{table}_kcfs.csv.gz"
        load = lambda: _annual(store.evd_table(table)[column])  # noqa: E731
        return StationSpec(site, name, [VariableSpec("annual_max_discharge", "kcfs", annual, evd_note.format(ref=ref),
                                                     load, f, extra_attrs={"unit_meaning": "1000 ft3/s"})],
                           lat=place["lat"], lon=place["lon"], area_km2=place["area_km2"], regulation=place["regulation"],
                           url=place["url"], aliases=(f"{table}_{column}",),
                           citation=citation + " " + CITATIONS["evd"], attributes=place["attributes"])

    bs = _usgs_place("03606500")
    b17 = {"historical_years": sorted(int(y) for y in case["historical_peaks"]),
           "perception_thresholds": case["thresholds"], "historical_period": [case["begyear"], case["endyear"]],
           "regional_skew": case["regional_skew"], "regional_skew_sd": case["regional_skew_sd"],
           # the manual's worked-example skew: a sensitivity row, not the gauge's published regional skew
           "regional_skew_origin": "manual_example",
           "regional_skew_note": "the PeakfqSA manual's example regional skew (Cohn 2012), not a current published value"}
    uccle_f = "evd_uccle_mm.csv.gz"
    uccle = [VariableSpec(f"annual_max_precipitation_{d}", "mm", annual, f"annual maximum rainfall over {label} at Uccle",
                          (lambda c=c: _annual(store.evd_table("uccle")[c])), uccle_f)
             for d, c, label in (("1d", "day", "1 day"), ("1h", "hour", "1 hour"), ("10min", "tmin", "10 minutes"),
                                 ("1min", "min", "1 minute"))]
    return [
        evd_station("04073500", "Fox River at Berlin, WI", "fox", "berlin", "Gumbel & Mustafi 1967", CITATIONS["fox"]),
        evd_station("04084500", "Fox River at Wrightstown, WI", "fox", "wright", "Gumbel & Mustafi 1967", CITATIONS["fox"]),
        evd_station("02215000", "Ocmulgee River at Hawkinsville, GA", "ocmulgee", "hawk", "Gumbel & Goldstein 1964",
                    CITATIONS["ocmulgee"]),
        evd_station("02213000", "Ocmulgee River at Macon, GA", "ocmulgee", "macon", "Gumbel & Goldstein 1964",
                    CITATIONS["ocmulgee"]),
        StationSpec("03606500", "Big Sandy River at Bruceton, TN", [
            VariableSpec("peak_discharge", "ft3/s", annual,
                         "annual peaks: 44 systematic (1930-1973) and 3 historical (1897, 1919, 1927) above an "
                         "18,000 ft3/s perception threshold for 1890-1929; water years",
                         _big_sandy_peaks, "usgs_03606500_big_sandy_b17c.json.gz", extra_attrs=b17)],
            lat=bs["lat"], lon=bs["lon"], area_km2=bs["area_km2"], regulation=bs["regulation"], url=bs["url"],
            aliases=("big_sandy",), citation=CITATIONS["big_sandy"], attributes=bs["attributes"]),
        StationSpec("north_saskatchewan_edmonton", "North Saskatchewan River at Edmonton", [
            VariableSpec("annual_max_discharge", "kcfs", annual,
                         "48 annual maxima published sorted ascending: the years are lost (use fetch_sample)",
                         lambda: store.evd_table("sask")["peak_kcfs"], "evd_sask_kcfs_sorted.csv.gz",
                         extra_attrs={"unit_meaning": "1000 ft3/s"}, sample_only=True)],
            aliases=("sask", "edmonton"), citation=CITATIONS["sask"] + " " + CITATIONS["evd"],
            attributes={"place_note": "the source gives no coordinates: not placed on a map", "region": "Alberta, Canada"}),
        StationSpec("uccle", "Uccle (Brussels), Belgium: rainfall maxima", uccle, citation=CITATIONS["uccle"] + " " + CITATIONS["evd"],
                    attributes={"place_note": "the source gives no coordinates: not placed on a map", "region": "Belgium"}),
    ]


# ----------------------------------------------------------------------------- the aggregate

class Catalogue(Source):
    """Every embedded source as one. Rows at the same station id (a USGS site) are merged."""

    name = "catalogue"
    title = "aquascope embedded catalogue"

    def __init__(self, sources: dict[str, OfflineSource]) -> None:
        self.sources = dict(sources)

    def _holders(self, station_id: Any) -> list[tuple[OfflineSource, str]]:
        normalise_id(station_id)  # InputError for a non-string id
        # An alias known to one source ("leaf_river") names the place in all of them ("02472000").
        canonical = [sid for src in self.sources.values() if (sid := src._resolve(station_id)) is not None]
        out = []
        for src in self.sources.values():
            sid = src._resolve(station_id) or next((c for c in canonical if src._resolve(c) is not None), None)
            if sid is not None:
                out.append((src, src._resolve(sid)))
        return out

    def _known(self, station_id: Any) -> list[tuple[OfflineSource, str]]:
        holders = self._holders(station_id)
        if not holders:
            raise DataNotFoundError(
                f"the embedded catalogue has no station {station_id!r} (sources: {', '.join(self.sources)})",
                argument="station_id", value=station_id,
                recovery="List stations with catalogue().stations_near(lat, lon) or catalogue().find_stations('name').")
        return holders

    @staticmethod
    def _merge(rows: list[dict[str, Any]]) -> dict[str, Any]:
        out = dict(rows[0])
        out["variables"] = [v for r in rows for v in r["variables"]]
        for key in ("lat", "lon", "area_km2", "regulation", "url", "distance_km"):
            if out.get(key) is None:
                out[key] = next((r[key] for r in rows if r.get(key) is not None), None)
        out["sources"] = [r["source"] for r in rows]
        if len(rows) > 1:  # one place held by several sources: only the catalogue serves all its variables
            out["source"] = "catalogue"
        out["catalogue_only"] = not any(v["offline"] for v in out["variables"])
        return out

    def stations_near(self, lat: float, lon: float, *, radius_km: float = 50.0, limit: int | None = 20,
                      variable: str | None = None) -> list[dict[str, Any]]:
        lat, lon, radius_km, limit = validate_query(lat, lon, radius_km, limit)
        found: dict[str, list[tuple[OfflineSource, float]]] = {}
        for src in self.sources.values():
            for sid, dist in src._within(lat, lon, radius_km):
                found.setdefault(sid, []).append((src, dist))
        order = sorted(found, key=lambda sid: (min(d for _, d in found[sid]), sid))
        rows = []
        for sid in order:
            row = self._merge([src._row(sid, dist) for src, dist in found[sid]])
            if variable is not None and not any(v["variable"] == variable for v in row["variables"]):
                continue
            rows.append(row)
            if limit is not None and len(rows) >= limit:
                break
        return rows

    def find_stations(self, text: str, *, limit: int | None = 20) -> list[dict[str, Any]]:
        names: dict[str, str] = {}
        for src in self.sources.values():
            for sid, name in src._names():
                names[sid] = (names.get(sid, "") + " " + name).strip()
        ids = match_text(text, names.items())
        if limit is not None:
            ids = ids[:limit]
        return [self._merge([src._row(sid, None) for src, sid in self._holders(sid)]) for sid in ids]

    def describe_station(self, station_id: str) -> dict[str, Any]:
        parts = [src.describe_station(sid) for src, sid in self._known(station_id)]
        out = self._merge(parts)
        out["datasets"] = [d for p in parts for d in p["datasets"]]
        out["citation"] = " | ".join(dict.fromkeys(p["citation"] for p in parts if p["citation"]))
        out["aliases"] = list(dict.fromkeys(a for p in parts for a in p.get("aliases", [])))
        attributes: dict[str, Any] = {}
        for p in parts:
            for k, v in p.get("attributes", {}).items():
                attributes.setdefault(k, v)
        out["attributes"] = attributes
        for key in ("state", "huc8", "drainage_area_sqmi", "drainage_area_km2"):
            out[key] = next((p[key] for p in parts if p.get(key) is not None), None)
        return out

    def fetch_series(self, station_id: str, variable: str, *, start: Any = None, end: Any = None) -> pd.Series:
        holders = self._known(station_id)
        rows = [(src, sid, src._row(sid, None)) for src, sid in holders]
        offline = [(src, sid) for src, sid, row in rows
                   if any(v["variable"] == variable and v["offline"] for v in row["variables"])]
        listed = [(src, sid) for src, sid, row in rows if any(v["variable"] == variable for v in row["variables"])]
        if offline or listed:
            src, sid = (offline or listed)[0]
            return src.fetch_series(sid, variable, start=start, end=end)
        held = ", ".join(f"{v['variable']} ({v['unit']}, {v['resolution']}, {v['source']}"
                         f"{'' if v['offline'] else ', catalogue-only'})" for _, _, r in rows for v in r["variables"])
        raise DataNotFoundError(f"station {station_id!r} holds no {variable!r} in the embedded catalogue; it holds {held}",
                                argument="variable", value=variable, recovery=f"Ask for one of: {held}.")

    def fetch_sample(self, station_id: str, variable: str) -> pd.Series:
        """Values without dates (the North Saskatchewan sample); see :meth:`TableSource.fetch_sample`."""
        for src, sid in self._known(station_id):
            if isinstance(src, TableSource) and any(v.variable == variable for v in src._stations[sid].variables):
                return src.fetch_sample(sid, variable)
        return self.fetch_series(station_id, variable)  # raises with what the station holds


@functools.cache
def catalogue() -> Catalogue:
    """The embedded catalogue: one instance per process; files are read on first use and cached."""
    return Catalogue({
        "usgs": UsgsSource(),
        "holmes": TableSource("holmes", "HOLMES / HOOPLA teaching catchments (Université Laval)", _holmes),
        "published": TableSource("published", "Published annual-maximum series", _published),
        "spotpy_hesse": TableSource("spotpy_hesse", "Schwingbach and Fulda, Hesse (spotpy examples, JLU Gießen)", _hesse),
        "wymt_2022": TableSource("wymt_2022", "USGS Wyoming-Montana 2022 flood-frequency study (peaks to WY2022)",
                                 _wymt_2022),
    })


def _wymt_2022() -> list[StationSpec]:
    from aquascope_core.data.wymt_2022 import station_specs

    return station_specs()


def source_names() -> list[str]:
    """Names ``get_source`` knows: the offline sources, ``catalogue`` and the live adapters."""
    from aquascope_core.data.live import LIVE_SOURCES

    return [*OFFLINE_SOURCES, "catalogue", *LIVE_SOURCES]


def get_source(name: str, *, live: bool = False, **options: Any) -> Source:
    """The source called ``name``.

    Offline names return the embedded sources (shared instances). Live names (``usgs_live``,
    ``ea_hydrology``, ``open_meteo_era5``, ``glofas``) need ``live=True`` *and* the environment
    variable ``AQUASCOPE_LIVE=1``; ``options`` go to the adapter (``client=``, ``cache_dir=``, ...).
    """
    if not isinstance(name, str):
        raise InputError.bad_value("name", name, "a source name, one of " + ", ".join(source_names()))
    key = name.strip().lower()
    if key == "catalogue":
        return catalogue()
    if key in OFFLINE_SOURCES:
        return catalogue().sources[key]
    from aquascope_core.data.live import LIVE_SOURCES, live_source

    if key in LIVE_SOURCES:
        return live_source(key, live=live, **options)
    raise InputError.bad_value("name", name, "a source name, one of " + ", ".join(source_names()))
