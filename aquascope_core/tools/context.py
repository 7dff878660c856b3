"""Where a tool's data comes from during a run: the named sources plus the user's uploads.

The user's tables live in the workspace verbatim (``tables``: name -> the original bytes as text or
base64, with the options they were read with), so a run re-reads them the same way every time and
nothing but JSON is kept between steps. :func:`table_entry` makes such an entry from what a user
gives (a path, bytes, text or a DataFrame) and refuses an unreadable table with the reason.
"""

from __future__ import annotations

from typing import Any, Mapping

from aquascope_core.errors import DataNotFoundError, InputError

__all__ = ["DataContext", "resolve", "table_entry", "INGEST_OPTIONS", "station_fields", "provenance_rows",
           "summary_number"]

INGEST_OPTIONS = ("value_column", "date_column", "unit", "variable", "dayfirst")


def summary_number(x: Any) -> str:
    """A measured value as a tool's summary writes it, by the report's rule (the tables' numbers): three significant
    figures, rounded once (0.0547459 -> "0.0547", 178.7 -> "179", 22,927 -> "22,900"); an exactly whole value below
    a thousand written whole (-42.0 -> "-42", as the table of the same step prints it)."""
    from aquascope_core.verify import sig_text

    x = float(x)
    if abs(x) < 1000 and x.is_integer():
        return f"{int(x)}"
    return sig_text(x, 3)


def table_entry(name: str, content: Any, **options: Any) -> dict[str, Any]:
    """Read ``content`` once (refusing it with the reason when it is not a usable table) and return the
    JSON-safe entry the workspace keeps: the user's original, the options, and what was found."""
    from aquascope_core.data import ingest
    from aquascope_core.data.upload_store import hold

    unknown = set(options) - set(INGEST_OPTIONS)
    if unknown:
        raise InputError.bad_value("options", sorted(unknown), "among " + ", ".join(INGEST_OPTIONS))
    opts = {k: v for k, v in options.items() if v is not None}
    ds = ingest(name, content, **opts)
    return {
        "name": ds["name"],
        "original": hold(ds["original"]),  # a large upload by reference: once on disk, not in every checkpoint
        "options": opts,
        "variables": [{**{k: v.get(k) for k in ("variable", "unit", "resolution", "period_start", "period_end", "years",
                                                "n_values", "column")},
                       **{k: v[k] for k in ("parameters", "n_parameters", "n_sampling_dates") if k in v}}
                      for v in ds["variables"]],
        "questions": list(ds.get("questions") or []),
        "warnings": list(ds.get("warnings") or []),
        **({"basin_characteristics": ds["basin_characteristics"]} if ds.get("basin_characteristics") else {}),
    }


def _content(entry: Mapping[str, Any]) -> Any:
    from aquascope_core.data.upload_store import original_content

    return original_content(entry["original"])


class DataContext:
    """The sources a run may read: the embedded catalogue's (and live ones when enabled) plus extras.

    ``extra`` maps a source name (``upload``) to an object with the source interface
    (``describe_station``, ``fetch_series``); it shadows a named source of the same name.
    """

    def __init__(self, extra: Mapping[str, Any] | None = None, *, live: bool = False,
                 live_options: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.extra = dict(extra or {})
        self.live = live
        self.live_options = {k: dict(v) for k, v in (live_options or {}).items()}

    @classmethod
    def from_tables(cls, tables: Mapping[str, Mapping[str, Any]] | None, site: Mapping[str, Any] | None = None, *,
                    live: bool = False, live_options: Mapping[str, Mapping[str, Any]] | None = None) -> "DataContext":
        """A context whose ``upload`` source serves the workspace's tables, placed at the site."""
        ctx = cls(live=live, live_options=live_options)
        if tables:
            from aquascope_core.data import UploadSource, ingest

            uploads = UploadSource()
            for name, entry in tables.items():
                ds = ingest(name, _content(entry), **dict(entry.get("options") or {}))
                if site and site.get("lat") is not None:
                    uploads.add(ds, lat=site["lat"], lon=site["lon"])
                else:
                    uploads.add(ds)
            ctx.extra["upload"] = uploads
        return ctx

    @property
    def uploads(self) -> Any:
        return self.extra.get("upload")

    def source(self, name: str) -> Any:
        if name in self.extra:
            return self.extra[name]
        from aquascope_core.data import get_source
        from aquascope_core.data.live import LIVE_SOURCES

        if name in LIVE_SOURCES:
            from aquascope_core.data.held import HeldSource, held_sources

            from aquascope_core.errors import SourceError

            try:
                live = get_source(name, live=True, **self.live_options.get(name, {})) if self.live else None
            except SourceError:
                if name not in held_sources():
                    raise
                live = None
            if name in held_sources():  # a record fetched once is read from the local store, live or not
                return HeldSource(name, fallback=live)
            return live if live is not None else get_source(name, live=False)
        try:
            return get_source(name)
        except InputError:
            if name == "upload":
                raise DataNotFoundError("the study has no uploaded tables", argument="source", value=name,
                                        recovery="Add the table (Studio.add_table or --data FILE).") from None
            raise

    def fetch_series(self, source: str, station_id: str, variable: str, start: str | None = None,
                     end: str | None = None):
        return self.source(source).fetch_series(station_id, variable, start=start, end=end)

    def fetch_samples(self, source: str, station_id: str, start: str | None = None, end: str | None = None):
        """A table of samples (date, parameter, value, unit) from a source that holds them (the uploads)."""
        src = self.source(source)
        if not hasattr(src, "fetch_samples"):
            raise DataNotFoundError(f"the source {source!r} holds no tables of samples", argument="source", value=source,
                                    recovery="Upload a table of samples (date, parameter, value, unit).")
        return src.fetch_samples(station_id, start=start, end=end)

    def describe_station(self, source: str, station_id: str) -> dict[str, Any]:
        return self.source(source).describe_station(station_id)


def resolve(data: DataContext | None) -> DataContext:
    return data if data is not None else DataContext()


def station_fields(desc: Mapping[str, Any], source: str, station_id: str) -> dict[str, Any]:
    """The station block a payload carries: where its data came from, as the report names it."""
    return {"source": source, "station_id": station_id, "name": desc.get("name"), "lat": desc.get("lat"),
            "lon": desc.get("lon"), "area_km2": desc.get("area_km2"), "regulation": desc.get("regulation")}


def provenance_rows(*series: Any) -> list[dict[str, Any]]:
    """The ``meta.sources`` rows of the series a tool read (their ``attrs["provenance"]``), each once."""
    out: list[dict[str, Any]] = []
    for s in series:
        prov = getattr(s, "attrs", {}).get("provenance")
        if isinstance(prov, dict) and prov not in out:
            out.append(dict(prov))
    return out
