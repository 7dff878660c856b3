"""The tables a study's results hold, read out of the payloads for the workbook.

A payload carries its series in a few shapes: parallel lists in one dict (``water_years``,
``values``, ``dates``; ``curve.exceedance_pct`` and ``curve.flow``), or lists of records
(``by_year``, ``longest_spells``, ``record_by_year``), possibly inside a list of records (one
series per index and scale). :func:`payload_tables` walks a payload and returns each such table
once, named by where it sits, with the unit in the header of the value columns when the payload
states one. Nothing is filled or resampled: the rows are the payload's.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

__all__ = ["payload_tables", "MIN_ROWS"]

MIN_ROWS = 3
_SKIP = {"meta", "station", "response_station", "pet_station", "conversion", "parameter_units", "labels"}
_VALUE_WORDS = ("value", "flow", "discharge", "peak", "level", "mean", "median", "min", "max", "return_level",
                "lower", "upper", "estimate", "q", "shortfall", "supplied", "demand", "storage", "deficit", "observed",
                "simulated")


def _scalar(x: Any) -> bool:
    return x is None or isinstance(x, (str, int, float, bool))


def _scalar_list(v: Any) -> bool:
    return isinstance(v, list) and len(v) >= MIN_ROWS and all(_scalar(x) for x in v)


def _records(v: Any) -> bool:
    return isinstance(v, list) and len(v) >= MIN_ROWS and all(isinstance(x, Mapping) for x in v)


_UNIT_MARKS = ("_m3s", "_hm3", "_mm", "_km2", "_pct", "_percent", "fraction", "ratio", "share", "_days", "(")


def _header(name: str, values: list[Any], unit: str | None) -> str:
    floats = any(isinstance(x, float) for x in values)
    low = name.lower()
    if any(m in low for m in _UNIT_MARKS):
        return name
    if unit and floats and any(low.startswith(w) or low.endswith(w) for w in _VALUE_WORDS):
        return f"{name} ({unit})"
    return name


def _label(item: Mapping[str, Any], i: int) -> str:
    for key in ("index", "name", "parameter", "scale_months", "station_id", "id"):
        if _scalar(item.get(key)) and item.get(key) not in (None, ""):
            return f"{item[key]}"
    return str(i + 1)


def _date_column(obj: Mapping[str, Any], own: dict[int, tuple[list[str], list[list[Any]]]]) -> None:
    """A compact series (``start`` and ``form`` daily or monthly, then its values) gets its date column first."""
    start, form = obj.get("start"), obj.get("form")
    if not isinstance(start, str) or form not in ("daily", "monthly"):
        return
    import datetime as dt

    for n, (cols, vals) in own.items():
        if any(c.lower() in ("date", "dates", "month", "months") for c in cols):
            continue
        if form == "daily":
            d0 = dt.date.fromisoformat(start[:10])
            dates = [(d0 + dt.timedelta(days=k)).isoformat() for k in range(n)]
        else:
            y, m = (int(x) for x in start.split("-")[:2])
            dates = [f"{y + (m - 1 + k) // 12:04d}-{(m - 1 + k) % 12 + 1:02d}" for k in range(n)]
        cols.insert(0, "date" if form == "daily" else "month")
        vals.insert(0, dates)


def _walk(obj: Any, path: str, unit: str | None, depth: int,
          index: Mapping[int, tuple[list[str], list[list[Any]]]] | None = None,
          used: set[int] | None = None) -> Iterator[dict[str, Any]]:
    """Tables under ``obj``. ``index`` holds the parallel columns of the enclosing dicts by length:
    a child's table of the same length starts with them (return periods beside each fit's levels)."""
    if depth > 4:
        return
    if isinstance(obj, Mapping):
        unit = obj.get("unit") if isinstance(obj.get("unit"), str) else unit
        lists = {k: v for k, v in obj.items() if k not in _SKIP and _scalar_list(v)}
        own: dict[int, tuple[list[str], list[list[Any]]]] = {}
        for k, v in lists.items():
            cols, vals = own.setdefault(len(v), ([], []))
            cols.append(_header(k, v, unit))
            vals.append(v)
        inherited = dict(index or {})
        mine = used if used is not None else set()
        for n, (cols, vals) in own.items():
            if n in inherited:
                mine.add(id(inherited[n]))
                pcols, pvals = inherited[n]
                keep = [i for i, c in enumerate(pcols) if c not in cols]
                cols[:0] = [pcols[i] for i in keep]
                vals[:0] = [pvals[i] for i in keep]
        _date_column(obj, own)
        below = {**inherited, **own}
        children = []
        for k, v in obj.items():
            if k in _SKIP or k in lists:
                continue
            sub = f"{path}.{k}" if path else k
            if isinstance(v, Mapping):
                children += list(_walk(v, sub, unit, depth + 1, below, mine))
            elif _records(v):
                children += list(_records_table(v, sub, unit, depth))
        for n, (cols, vals) in sorted(own.items(), key=lambda kv: -len(kv[1][0])):
            if id(own[n]) in mine:
                continue  # its columns lead a child's table
            if len(cols) == 1 and n < 10 and not any(isinstance(x, float) for x in vals[0]):
                continue  # a short list of labels (scales, lags, quantities), not a data table
            yield {"name": path or "values", "columns": cols, "rows": [list(r) for r in zip(*vals)]}
        yield from children
    elif _records(obj):
        yield from _records_table(obj, path, unit, depth)


def _records_table(items: list[Mapping[str, Any]], path: str, unit: str | None, depth: int) -> Iterator[dict[str, Any]]:
    cols: list[str] = []
    for it in items:
        for k, v in it.items():
            if k not in cols and k not in _SKIP and _scalar(v):
                cols.append(k)
    if cols:
        yield {"name": path, "columns": [_header(c, [it.get(c) for it in items], unit) for c in cols],
               "rows": [[it.get(c) for c in cols] for it in items]}
    for i, it in enumerate(items):
        if any(_scalar_list(v) or isinstance(v, Mapping) or _records(v) for k, v in it.items() if k not in _SKIP):
            yield from _walk(it, f"{path}[{_label(it, i)}]", unit, depth + 1)


def payload_tables(payload: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Every table a payload holds: ``{"name", "columns", "rows"}`` (see the module docstring)."""
    if not isinstance(payload, Mapping):
        return []
    seen: set[tuple[str, ...]] = set()
    out = []
    for t in _walk(payload, "", None, 0):
        key = (t["name"], *t["columns"])
        if key not in seen and t["rows"]:
            seen.add(key)
            out.append(t)
    return out
