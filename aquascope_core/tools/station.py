"""Station tools: read a station's record and summarise it; water-year maxima."""

from __future__ import annotations

from typing import Any, Sequence

from aquascope_core.data.base import YEAR_LENGTH
from aquascope_core.result import finish
from aquascope_core.toolspec import ToolSpec
from aquascope_core.tools.context import DataContext, provenance_rows, resolve, station_fields, summary_number
from aquascope_core.tools.plotdata import plot_series

__all__ = ["station_record", "annual_maxima", "SPECS", "STATION_ARGS"]

STATION_ARGS = {
    "source": "the data source of the station (e.g. usgs, holmes, upload)",
    "station_id": "the station's id as its source spells it",
    "variable": "the variable to read (discharge, precipitation, groundwater_level, ...)",
}






def station_record(source: str, station_id: str, variable: str = "discharge", start: str | None = None,
                   end: str | None = None, *, data: DataContext | None = None) -> dict[str, Any]:
    """The record a station holds for ``variable``: period, completeness, resolution, unit, counts by year."""
    ctx = resolve(data)
    desc = ctx.describe_station(source, station_id)
    s = ctx.fetch_series(source, station_id, variable, start=start, end=end)
    values = s.dropna()
    first, last = values.index.min(), values.index.max()
    span_years = ((last - first).days + 1) / 365.25
    resolution = s.attrs.get("resolution", "daily")
    by_year = values.groupby(values.index.year).size()
    per_year = YEAR_LENGTH.get(resolution)
    # the steps of a daily record between its first and last value that hold none (an upload lists no blank day)
    expected = (last - first).days + 1 if resolution == "daily" else s.size
    payload = {
        "station": station_fields(desc, source, station_id),
        "variable": variable,
        "unit": s.attrs.get("unit"),
        "resolution": resolution,
        "period": {"start": first.date().isoformat(), "end": last.date().isoformat()},
        "n_values": int(values.size),
        "n_missing": int(max(expected - values.size, s.size - values.size)),
        "years": round(span_years, 2),  # the span, first to last value (the sampling density's base)
        # the record's length as the inventory states it: its values in years (gaps do not count)
        "years_of_values": round(values.size / per_year, 2) if per_year else round(span_years, 2),
        "statistics": {"mean": float(values.mean()), "min": float(values.min()), "max": float(values.max()),
                       "median": float(values.median())},
        "record_by_year": [{"year": int(y), "n_values": int(n)} for y, n in by_year.items()],
        "plot": plot_series(s),
        "summary": (f"{desc.get('name') or station_id}: {values.size:,} {resolution} values of {variable} "
                    f"({s.attrs.get('unit')}) from {first.date()} to {last.date()}"),
    }
    return finish(payload, "station_record",
                  {"source": source, "station_id": station_id, "variable": variable, "start": start, "end": end},
                  provenance_rows(s))


def annual_maxima(source: str, station_id: str, variable: str = "discharge", water_year_start_month: int = 10,
                  min_days: int = 360, exclude_years: Sequence[int] = (), *,
                  data: DataContext | None = None) -> dict[str, Any]:
    """Water-year maxima of a station's daily record (years with fewer than ``min_days`` days excluded, and
    the water years in ``exclude_years``: a reviewer's choice, listed under ``excluded_by_request``)."""
    from aquascope_core.errors import InputError
    from aquascope_core.methods.flood_frequency import annual_maxima as amax

    ctx = resolve(data)
    desc = ctx.describe_station(source, station_id)
    s = ctx.fetch_series(source, station_id, variable)
    basis = "instantaneous" if variable == "peak_discharge" else "daily_mean"
    out = amax(s, water_year_start_month=water_year_start_month, min_days=min_days, basis=basis,
               unit=s.attrs.get("unit"))
    payload = {k: v for k, v in out.items() if k != "meta"}
    drop = sorted({int(y) for y in exclude_years or ()})
    if drop:
        unknown = [y for y in drop if y not in payload["water_years"]]
        if unknown:
            raise InputError.bad_value("exclude_years", list(exclude_years),
                                       f"water years of the maxima ({payload['water_years'][0]}-"
                                       f"{payload['water_years'][-1]}); {unknown} are not among them")
        keep = [i for i, y in enumerate(payload["water_years"]) if y not in drop]
        removed = [{"water_year": payload["water_years"][i], "value": payload["values"][i]}
                   for i in range(len(payload["water_years"])) if i not in keep]
        for key in ("water_years", "values", "dates"):
            payload[key] = [payload[key][i] for i in keep]
        payload["n_years"] = len(keep)
        payload["excluded_by_request"] = removed
    payload["station"] = station_fields(desc, source, station_id)
    payload["variable"] = variable
    if payload.get("ok", True) and payload.get("values"):
        vals = payload["values"]
        payload["summary"] = (f"{payload['n_years']} annual maxima, {payload.get('label', basis)}, "
                              f"{min(payload['water_years'])}-{max(payload['water_years'])}, "
                              f"largest {summary_number(max(vals))} {payload.get('unit') or ''}").rstrip()
    return finish(payload, "annual_maxima",
                  {"source": source, "station_id": station_id, "variable": variable,
                   "water_year_start_month": water_year_start_month, "min_days": min_days, "exclude_years": drop},
                  provenance_rows(s) + [r for r in out.get("meta", {}).get("sources", []) if r.get("name") != "aquascope"])


SPECS = [
    ToolSpec(
        id="station_record",
        purpose="Read a station's record and describe it: period, completeness, resolution, unit.",
        kind="station",
        function="aquascope_core.tools.station:station_record",
        yields=("series_summary", "completeness"),
        gates=({"check": "sampling_density", "value": 0.9}, {"check": "min_years", "value": 10, "path": "years_of_values"},
               {"check": "unit_present"}),
        figures=("series",),
        tables=("record_by_year",),
        citation="The source's own citation (see meta.sources).",
        arguments={**STATION_ARGS, "start": "first date to read (ISO), default the whole record",
                   "end": "last date to read (ISO)"},
    ),
    ToolSpec(
        id="annual_maxima",
        purpose="Water-year maxima of a daily discharge record (incomplete years excluded and listed).",
        kind="station",
        function="aquascope_core.tools.station:annual_maxima",
        yields=("annual_maxima",),
        methods=("annual_maxima",),
        gates=({"check": "min_years", "value": 20}, {"check": "not_empty", "path": "values"},
               {"check": "unit_present"}),
        figures=("annual_maxima",),
        tables=("annual_maxima",),
        citation="USGS water year (October-September), named by the year in which it ends.",
        arguments={**STATION_ARGS, "water_year_start_month": "first month of the water year (10 = October)",
                   "min_days": "days with data a year needs to count",
                   "exclude_years": "water years to leave out of the maxima (a reviewer's choice, listed in the result)"},
    ),
]
