"""Records fetched once from a live service and held locally, so later studies there run offline.

``$AQUASCOPE_HOME/data/<source>/<station>/`` (default ``~/.aquascope/data``) holds ``station.json`` (the
station's row and description as the service gave them, and when) and one ``<variable>.json`` per record:
its dates, values and ``attrs`` (the provenance row with its retrieval time, approval status per value,
qualifiers, the peak file as sent). :func:`save_record` writes them (``aquascope fetch`` does, see
:mod:`aquascope_core.data.fetch`); :class:`HeldSource` serves them under the live source's own name
(``usgs_live``), offline, so a study reads the same values, provenance and approval status whether it
fetched them just now or last month. :func:`held_records` lists what is held (``aquascope data``).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pandas as pd

from aquascope_core.data.base import Source, haversine_km, record_summary, station_row, validate_query, variable_entry
from aquascope_core.data.stations import finish_series
from aquascope_core.errors import DataNotFoundError, InputError

__all__ = ["held_root", "save_record", "save_station", "HeldSource", "held_sources", "held_records"]

_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:,-]{0,80}$")
_STANDARD = ("variable", "unit", "resolution", "source", "station_id", "name", "provenance", "gaps", "note")


def held_root(root: str | Path | None = None) -> Path:
    """Where held records live: ``root``, else ``$AQUASCOPE_HOME/data`` (default ``~/.aquascope/data``)."""
    if root is not None:
        return Path(root)
    home = os.environ.get("AQUASCOPE_HOME")
    return (Path(home) if home else Path.home() / ".aquascope") / "data"


def _part(what: str, value: Any) -> str:
    text = str(value)
    if not _SAFE.match(text) or ".." in text:
        raise InputError.bad_value(what, value, "letters, digits and _ . : , - (a station id or source name)")
    return text


def _folder(root: Path, source: str, station_id: str) -> Path:
    return root / _part("source", source) / _part("station_id", station_id).replace(":", "_")


def _write(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(obj, default=str, indent=1))
    tmp.replace(path)


def save_station(source: str, row: dict[str, Any], description: dict[str, Any] | None, *,
                 root: str | Path | None = None) -> Path:
    """Keep a station's row (and its description when the service gave one)."""
    folder = _folder(held_root(root), source, row["station_id"])
    _write(folder / "station.json", {"source": source, "row": row, "description": description})
    return folder


def save_record(source: str, series: pd.Series, *, root: str | Path | None = None) -> Path:
    """Keep one record as fetched (values, dates, attrs with provenance); returns its file."""
    attrs = dict(series.attrs)
    sid, variable = attrs.get("station_id"), attrs.get("variable")
    if not sid or not variable:
        raise InputError("a record to hold needs attrs station_id and variable (as fetch_series gives them)",
                         argument="series")
    path = _folder(held_root(root), source, sid) / f"{_part('variable', variable)}.json"
    _write(path, {"dates": [d.date().isoformat() for d in series.index], "values": [float(v) for v in series],
                  "attrs": attrs})
    return path


def _load(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise DataNotFoundError(f"the held record {path} cannot be read ({exc})",
                                recovery="Fetch it again with aquascope fetch, or delete the file.") from None


class HeldSource(Source):
    """The records of one live source held locally, served under that source's name, offline.

    ``fallback``: the live adapter to ask for what is not held (live mode), or None (offline).
    """

    def __init__(self, name: str, *, root: str | Path | None = None, fallback: Source | None = None) -> None:
        self.name = name
        self.title = f"{name} records held locally"
        self.root = held_root(root)
        self.fallback = fallback

    def _stations(self) -> dict[str, dict[str, Any]]:
        out = {}
        base = self.root / self.name
        if base.is_dir():
            for st in sorted(base.glob("*/station.json")):
                entry = _load(st)
                entry["folder"] = st.parent
                out[entry["row"]["station_id"]] = entry
        return out

    def _variables(self, folder: Path) -> list[dict[str, Any]]:
        out = []
        for f in sorted(folder.glob("*.json")):
            if f.name == "station.json":
                continue
            rec = _load(f)
            a = rec["attrs"]
            s = pd.Series(rec["values"], index=pd.DatetimeIndex(rec["dates"]), dtype=float)
            prov = a.get("provenance") or {}
            fetched = str(prov.get("accessed") or "")[:10]
            n_prov = (a.get("provisional") or {}).get("n") or 0
            note = (f"fetched from {prov.get('dataset') or self.name} on {fetched}, held locally"
                    + (f"; {n_prov} provisional value(s), subject to revision" if n_prov else ""))
            entry = variable_entry(a["variable"], a["unit"], a["resolution"], source=self.name, offline=True,
                                   live=self.name, note=note, **record_summary(s, a["resolution"]))
            entry["fetched"] = prov.get("accessed")
            if n_prov:
                entry["provisional"] = dict(a["provisional"])
            out.append(entry)
        return out

    def _row(self, entry: dict[str, Any], distance_km: float | None) -> dict[str, Any]:
        r = entry["row"]
        row = station_row(source=self.name, station_id=r["station_id"], name=r.get("name") or r["station_id"],
                          lat=r.get("lat"), lon=r.get("lon"), distance_km=distance_km, area_km2=r.get("area_km2"),
                          regulation=r.get("regulation"), variables=self._variables(entry["folder"]), url=r.get("url"))
        row["held"] = True
        return row

    def stations_near(self, lat: float, lon: float, *, radius_km: float = 50.0, limit: int | None = 20,
                      variable: str | None = None) -> list[dict[str, Any]]:
        lat, lon, radius_km, limit = validate_query(lat, lon, radius_km, limit)
        rows = []
        for entry in self._stations().values():
            r = entry["row"]
            if r.get("lat") is None or r.get("lon") is None:
                continue
            d = float(haversine_km(lat, lon, float(r["lat"]), float(r["lon"])))
            if d <= radius_km:
                row = self._row(entry, d)
                if variable is None or any(v["variable"] == variable for v in row["variables"]):
                    rows.append(row)
        rows.sort(key=lambda r: (r["distance_km"], r["station_id"]))
        return rows[:limit] if limit is not None else rows

    def describe_station(self, station_id: str) -> dict[str, Any]:
        entry = self._stations().get(str(station_id).removeprefix("USGS-"))
        if entry is None:
            if self.fallback is not None:
                return self.fallback.describe_station(station_id)
            raise self._missing(station_id, None)
        desc = dict(entry.get("description") or entry["row"])
        return {**desc, **self._row(entry, None), "held": True}

    def _missing(self, station_id: str, variable: str | None) -> DataNotFoundError:
        what = f"{variable} of " if variable else ""
        return DataNotFoundError(f"no {what}{self.name} station {station_id!r} is held locally",
                                 argument="station_id", value=station_id,
                                 recovery=f"Fetch it once with: aquascope fetch --station {station_id} (needs "
                                          "AQUASCOPE_LIVE=1), or upload the record.")

    def fetch_series(self, station_id: str, variable: str, *, start: Any = None, end: Any = None) -> pd.Series:
        sid = str(station_id).removeprefix("USGS-")
        entry = self._stations().get(sid)
        path = entry["folder"] / f"{_part('variable', variable)}.json" if entry else None
        if path is None or not path.exists():
            if self.fallback is not None:
                return self.fallback.fetch_series(station_id, variable, start=start, end=end)
            raise self._missing(station_id, variable)
        rec = _load(path)
        a = rec["attrs"]
        s = pd.Series(rec["values"], index=pd.DatetimeIndex(rec["dates"]), dtype=float)
        extra = {k: v for k, v in a.items() if k not in _STANDARD}
        extra["held"] = {"path": str(path), "fetched": (a.get("provenance") or {}).get("accessed")}
        return finish_series(s, variable=a["variable"], unit=a["unit"], resolution=a["resolution"], source=self.name,
                             station_id=a["station_id"], name=a.get("name") or sid, provenance=dict(a["provenance"]),
                             start=start, end=end, note=a.get("note") or "", extra=extra)


def held_sources(root: str | Path | None = None) -> dict[str, HeldSource]:
    """One :class:`HeldSource` per live source that has records held here."""
    base = held_root(root)
    if not base.is_dir():
        return {}
    return {p.name: HeldSource(p.name, root=base) for p in sorted(base.iterdir())
            if p.is_dir() and any(p.glob("*/station.json"))}


def held_records(root: str | Path | None = None) -> list[dict[str, Any]]:
    """What is held: one row per record (source, station, name, variable, unit, period, values, fetched, provisional)."""
    out = []
    for name, src in held_sources(root).items():
        for sid, entry in src._stations().items():
            for f in sorted(entry["folder"].glob("*.json")):
                if f.name == "station.json":
                    continue
                a = _load(f)["attrs"]
                s = src.fetch_series(sid, a["variable"])
                summary = record_summary(s, a["resolution"])
                out.append({"source": name, "station_id": sid, "name": entry["row"].get("name"), "variable": a["variable"],
                            "unit": a["unit"], "resolution": a["resolution"], **summary,
                            "fetched": (a.get("provenance") or {}).get("accessed"),
                            "provisional": (a.get("provisional") or {}).get("n") or 0, "path": str(f)})
    return out
