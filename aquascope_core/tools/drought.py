"""Drought and groundwater tools: standardised indices of a station's record, drought events and
classes on them, meteorological-to-hydrological propagation, and the trend of groundwater levels.

The index tools (SPI, SPEI, SSI, SGI) read a station's record through the run's
:class:`~aquascope_core.tools.context.DataContext`, compute the index at every requested time scale
and return one payload whose ``series`` holds, per scale, the monthly index (``dates``, ``values``)
and its value at the status month (``current``: the month ``as_of`` names, or the last month in which
every scale has a value). ``drought_events`` and ``drought_classes`` take that ``series`` (a
``{{ result.sN.series }}`` reference) and work on each index in it.

``groundwater_level_trend`` turns a head record into monthly and annual means and tests them for a
monotonic trend: Mann-Kendall with Sen's slope on the annual means, and the seasonal Kendall test on
the monthly means; ``basis`` names the one that carries the answer.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Literal, Sequence

import numpy as np
import pandas as pd

from aquascope_core.errors import InputError, InsufficientDataError, UnitError
from aquascope_core.result import finish, resolved_parameters
from aquascope_core.tools.context import DataContext
from aquascope_core.tools.flows import read_record
from aquascope_core.tools.station import STATION_ARGS
from aquascope_core.toolspec import ToolSpec

__all__ = [
    "standardized_precipitation_index",
    "standardized_precipitation_evapotranspiration_index",
    "standardized_streamflow_index",
    "standardized_groundwater_index",
    "drought_events",
    "drought_classes",
    "drought_propagation",
    "groundwater_level_trend",
    "SPECS",
]

log = logging.getLogger(__name__)

DIMENSIONLESS = "dimensionless"
# Depth units a water balance may be formed in (P - PET needs both in the same depth).
_DEPTH_UNITS = ("mm/d", "mm", "mm/month")


# --------------------------------------------------------------------------------------------
# shared pieces


def _status_month(as_of: str | None) -> pd.Period | None:
    text = "latest" if as_of is None else str(as_of).strip().lower()
    if text in ("latest", "last", "end of record", ""):
        return None
    if not re.fullmatch(r"\d{4}-\d{2}", text):
        raise InputError.bad_value("as_of", as_of, "'latest' or a month written YYYY-MM (e.g. 1987-08)")
    return pd.Period(text, freq="M")


def _scales(scales: Any) -> list[int]:
    if isinstance(scales, (int, np.integer)) and not isinstance(scales, bool):
        scales = [scales]
    try:
        out = [int(s) for s in scales]
    except (TypeError, ValueError):
        raise InputError.bad_value("scales", scales, "a list of accumulation periods in months, e.g. [3, 6, 12]") from None
    if not out or any(not 1 <= s <= 48 for s in out) or len(set(out)) != len(out):
        raise InputError.bad_value("scales", scales, "distinct whole months from 1 to 48, e.g. [3, 6, 12]")
    return sorted(out)


def _common_month(results: list[dict[str, Any]], want: pd.Period | None) -> str:
    """The status month: ``want`` when given (it must lie inside the record), else the last month in
    which every index has a value."""
    first, last = results[0]["dates"][0], results[0]["dates"][-1]
    if want is not None:
        if not (pd.Period(first, freq="M") <= want <= pd.Period(last, freq="M")):
            raise InputError.bad_value("as_of", str(want), f"a month inside the record, {first} to {last}")
        return str(want)
    finite = None
    for r in results:
        ok = {d for d, v in zip(r["dates"], r["values"]) if v is not None}
        finite = ok if finite is None else finite & ok
    if not finite:
        raise InsufficientDataError("no month holds a value at every requested time scale", argument="scales")
    return max(finite)


def _entry(res: dict[str, Any], month: str) -> dict[str, Any]:
    """One index of a multi-scale payload: the series, its status and its value at the status month."""
    from aquascope_core.methods.drought import mckee_class

    try:
        i = res["dates"].index(month)
        value = res["values"][i]
    except ValueError:
        value = None
    keep = ("index", "scale_months", "ok", "status", "reason", "record_years", "n_values", "n_months", "dates", "values",
            "latest", "extremes", "n_clipped", "calibration_years")
    out = {k: res[k] for k in keep if k in res}
    out["current"] = {"date": month, "value": value, "class": mckee_class(value) if value is not None else None}
    return out


def _class_text(c: dict[str, Any]) -> str:
    from aquascope_core.verify import sig_text  # three significant figures, as every table and sentence states it

    return "no value" if c.get("value") is None else f"{sig_text(c['value'])} ({c['class']})"


def _index_payload(kind: str, method_id: str, results: list[dict[str, Any]], month: str, station: dict[str, Any],
                   variable: str, input_unit: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    series = [_entry(r, month) for r in results]
    failed = [f"{r['index']}: {r['reason']}" for r in results if not r.get("ok", True)]
    record_years = min(r["record_years"] for r in results)
    status = "defensible" if all(r["status"] == "defensible" for r in results) else "marginal"
    first, last = results[0]["dates"][0], results[0]["dates"][-1]
    payload: dict[str, Any] = {
        "method": method_id,
        "ok": not failed,
        "index": kind,
        "unit": DIMENSIONLESS,
        "station": station,
        "variable": variable,
        "input_unit": input_unit,
        "scales": [r["scale_months"] for r in results],
        "period": {"first_month": first, "last_month": last},
        "status_month": month,
        "status_month_rule": ("the month asked for" if (extra or {}).get("as_of") not in (None, "latest")
                              else "the last month with a value at every time scale"),
        "record_years": record_years,
        "status": status,
        "status_reason": next((r["reason"] for r in results if r["status"] != "defensible"), None),
        "series": series,
        **(extra or {}),
    }
    if failed:
        payload["reason"] = "; ".join(failed)
    else:
        payload["summary"] = (f"{kind} at {', '.join(str(s) for s in payload['scales'])} month(s) from {first} to {last} "
                              f"({record_years} values per calendar month, {status}); in {month}: "
                              + ", ".join(f"{e['index']} {_class_text(e['current'])}" for e in series))
    return payload


def _method_sources(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen, out = set(), []
    for r in results:
        for s in (r.get("meta") or {}).get("sources", []):
            key = (s.get("name"), s.get("citation"))
            if s.get("name") != "aquascope" and key not in seen:
                seen.add(key)
                out.append(s)
    return out


def _tool_params(fn: Any, **kwargs: Any) -> dict[str, Any]:
    return resolved_parameters(fn, kwargs=kwargs)


# --------------------------------------------------------------------------------------------
# the standardised indices


def standardized_precipitation_index(source: str, station_id: str, scales: Sequence[int] = (3, 6, 12),
                                     variable: str = "precipitation", as_of: str = "latest",
                                     fit: Literal["mle", "thom"] = "mle",
                                     calibration_years: Sequence[int] | None = None, *,
                                     data: DataContext | None = None) -> dict[str, Any]:
    """SPI (gamma per calendar month) of a station's precipitation at each of ``scales`` months."""
    from aquascope_core.methods import drought

    scale_list = _scales(scales)
    want = _status_month(as_of)
    s, station, prov = read_record(data, source, station_id, variable)
    cal = tuple(calibration_years) if calibration_years else None
    results = [drought.standardized_precipitation_index(s, k, fit=fit, calibration_years=cal) for k in scale_list]
    month = _common_month(results, want)
    payload = _index_payload("SPI", "standardized_precipitation_index", results, month, station, variable,
                             str(s.attrs.get("unit") or ""), {"fit": fit, "distribution": results[0]["distribution"], "as_of": as_of})
    params = _tool_params(standardized_precipitation_index, source=source, station_id=station_id, scales=scale_list,
                          variable=variable, as_of=as_of, fit=fit, calibration_years=calibration_years)
    return finish(payload, "standardized_precipitation_index", params, prov + _method_sources(results))


def standardized_precipitation_evapotranspiration_index(
        source: str, station_id: str, scales: Sequence[int] = (3, 6, 12), pet_source: str | None = None,
        pet_station_id: str | None = None, as_of: str = "latest", calibration_years: Sequence[int] | None = None,
        *, data: DataContext | None = None) -> dict[str, Any]:
    """SPEI (log-logistic per calendar month) of P - PET; PET from the same station unless named."""
    from aquascope_core.methods import drought

    scale_list = _scales(scales)
    want = _status_month(as_of)
    p, station, prov = read_record(data, source, station_id, "precipitation")
    e_src, e_id = pet_source or source, pet_station_id or station_id
    e, _, e_prov = read_record(data, e_src, e_id, "potential_evapotranspiration")
    pu, eu = str(p.attrs.get("unit") or ""), str(e.attrs.get("unit") or "")
    if pu not in _DEPTH_UNITS or eu != pu:
        raise UnitError(f"the water balance P - PET needs both in the same depth unit ({', '.join(_DEPTH_UNITS)}); "
                        f"precipitation is in {pu or 'no stated unit'} and PET in {eu or 'no stated unit'}",
                        argument="pet_source", value=eu)
    cal = tuple(calibration_years) if calibration_years else None
    results = [drought.standardized_precipitation_evapotranspiration_index(p, e, k, calibration_years=cal)
               for k in scale_list]
    month = _common_month(results, want)
    payload = _index_payload("SPEI", "standardized_precipitation_evapotranspiration_index", results, month, station,
                             "precipitation - potential_evapotranspiration", pu,
                             {"pet_station": {"source": e_src, "station_id": e_id},
                              "distribution": results[0]["distribution"], "as_of": as_of})
    params = _tool_params(standardized_precipitation_evapotranspiration_index, source=source, station_id=station_id,
                          scales=scale_list, pet_source=pet_source, pet_station_id=pet_station_id, as_of=as_of,
                          calibration_years=calibration_years)
    return finish(payload, "standardized_precipitation_evapotranspiration_index", params,
                  prov + [r for r in e_prov if r not in prov] + _method_sources(results))


def standardized_streamflow_index(source: str, station_id: str, scales: Sequence[int] = (1, 3, 12),
                                  variable: str = "discharge", as_of: str = "latest", max_missing_days: int = 0, *,
                                  data: DataContext | None = None) -> dict[str, Any]:
    """SSI (normal scores per calendar month, Gringorten) of a station's mean monthly flow at each scale."""
    from aquascope_core.methods import drought

    scale_list = _scales(scales)
    want = _status_month(as_of)
    s, station, prov = read_record(data, source, station_id, variable)
    results = [drought.standardized_streamflow_index(s, k, max_missing_days=max_missing_days) for k in scale_list]
    month = _common_month(results, want)
    payload = _index_payload("SSI", "standardized_streamflow_index", results, month, station, variable,
                             str(s.attrs.get("unit") or ""),
                             {"distribution": results[0]["distribution"], "max_missing_days": max_missing_days, "as_of": as_of})
    params = _tool_params(standardized_streamflow_index, source=source, station_id=station_id, scales=scale_list,
                          variable=variable, as_of=as_of, max_missing_days=max_missing_days)
    return finish(payload, "standardized_streamflow_index", params, prov + _method_sources(results))


def standardized_groundwater_index(source: str, station_id: str, variable: str = "groundwater_level",
                                   as_of: str = "latest", max_missing_days: int = 10, *,
                                   data: DataContext | None = None) -> dict[str, Any]:
    """SGI (normal scores per calendar month, Hazen) of a station's monthly mean groundwater level."""
    from aquascope_core.methods import drought

    want = _status_month(as_of)
    s, station, prov = read_record(data, source, station_id, variable)
    results = [drought.standardized_groundwater_index(s, max_missing_days=max_missing_days)]
    month = _common_month(results, want)
    payload = _index_payload("SGI", "standardized_groundwater_index", results, month, station, variable,
                             str(s.attrs.get("unit") or ""),
                             {"distribution": results[0]["distribution"], "max_missing_days": max_missing_days, "as_of": as_of})
    params = _tool_params(standardized_groundwater_index, source=source, station_id=station_id, variable=variable,
                          as_of=as_of, max_missing_days=max_missing_days)
    return finish(payload, "standardized_groundwater_index", params, prov + _method_sources(results))


# --------------------------------------------------------------------------------------------
# events and classes on a standardised index


def _indices(index: Any) -> list[dict[str, Any]]:
    items = [index] if isinstance(index, dict) else list(index) if isinstance(index, (list, tuple)) else None
    if not items or not all(isinstance(i, dict) and "dates" in i and "values" in i for i in items):
        raise InputError.bad_value("index", type(index).__name__,
                                   "an index result with dates and values, or a list of them "
                                   "(e.g. {{ result.s2.series }})")
    return items


def _last_month(item: dict[str, Any]) -> str | None:
    return next((d for d, v in zip(reversed(item["dates"]), reversed(item["values"])) if v is not None), None)


def _label(item: dict[str, Any], k: int) -> str:
    return str(item.get("index") or f"index {k + 1}")


def drought_events(index: dict[str, Any] | list[dict[str, Any]], threshold: float = -1.0,
                   min_duration_months: int = 1) -> dict[str, Any]:
    """Drought events by run theory on each standardised index given: onset, duration, severity, peak."""
    from aquascope_core.methods import drought

    items = _indices(index)
    by_index, sources = [], []
    for k, item in enumerate(items):
        out = drought.drought_events(item, float(threshold), min_duration_months=min_duration_months)
        sources = sources or [s for s in out["meta"]["sources"] if s.get("name") != "aquascope"]
        events, summ = out["events"], out["summary"]
        # the event holding the status month the index was read at (its last month when not named)
        month = (item.get("current") or {}).get("date") or _last_month(item)
        current = next((e for e in events if e["onset"] <= month <= e["end"]), None) if month else None
        rank = 1 + sum(e["severity"] > current["severity"] for e in events) if current is not None else None
        if current is not None:  # how far into the event the status month lies (the whole event when it is the end)
            current = {**current, "months_to_status_month":
                       (pd.Period(month, freq="M") - pd.Period(current["onset"], freq="M")).n + 1}
        by_index.append({
            "index": _label(item, k), "scale_months": item.get("scale_months"), "period": out["period"],
            "n_months": out["n_months"], "n_missing": out["n_missing"], "n_events": summ["n_events"],
            "months_in_drought": summ["months_in_drought"],
            "fraction_of_time_in_drought": summ["fraction_of_time_in_drought"],
            "longest": summ["longest"], "most_severe": summ["most_severe"], "status_month": month,
            "current": current, "current_rank_by_severity": rank, "events": events,
        })
    payload = {
        "method": "drought_events", "ok": True, "threshold": float(threshold),
        "min_duration_months": int(min_duration_months), "unit": DIMENSIONLESS,
        "severity_unit": "index-months (cumulative deficit below the threshold)", "by_index": by_index,
        "summary": "; ".join(
            f"{b['index']}: {b['n_events']} events at or below {float(threshold):g}, "
            f"{b['fraction_of_time_in_drought']:.0%} of months in drought"
            + (f"; in {b['status_month']} an event since {b['current']['onset']}" if b["current"]
               else f"; none in {b['status_month']}")
            for b in by_index),
    }
    params = _tool_params(drought_events, index=f"<{len(items)} index series>", threshold=threshold,
                          min_duration_months=min_duration_months)
    return finish(payload, "drought_events", params, sources)


def drought_classes(index: dict[str, Any] | list[dict[str, Any]]) -> dict[str, Any]:
    """How often each McKee et al. (1993) class occurred in each standardised index, and its latest class."""
    from aquascope_core.methods import drought

    items = _indices(index)
    by_index, sources = [], []
    for k, item in enumerate(items):
        out = drought.drought_classes(item)
        sources = sources or [s for s in out["meta"]["sources"] if s.get("name") != "aquascope"]
        fr = out["fractions"]
        by_index.append({"index": _label(item, k), "scale_months": item.get("scale_months"), "counts": out["counts"],
                         "fractions": fr, "latest": out["latest"],
                         "fraction_moderate_or_worse": fr["moderate drought"] + fr["severe drought"] + fr["extreme drought"]})
    payload = {"method": "drought_classes", "ok": True, "scheme": "McKee et al. (1993)", "unit": DIMENSIONLESS,
               "definitions": out["definitions"], "by_index": by_index,
               "summary": "; ".join(f"{b['index']}: moderate or worse drought in {b['fraction_moderate_or_worse']:.0%} "
                                    "of months" for b in by_index)}
    params = _tool_params(drought_classes, index=f"<{len(items)} index series>")
    return finish(payload, "drought_classes", params, sources)


def drought_propagation(source: str, station_id: str, response_source: str, response_station_id: str,
                        response_variable: Literal["discharge", "groundwater_level"] = "discharge",
                        scales: Sequence[int] = tuple(range(1, 25)), max_lag_months: int = 6, *,
                        data: DataContext | None = None) -> dict[str, Any]:
    """The SPI time scale and lag that best match the response index (SSI-1 of discharge, SGI of levels).

    The SGI of a daily level record averages each month with at most 10 missing days, as
    :func:`standardized_groundwater_index` does by default.
    """
    from aquascope_core.methods import drought

    if response_variable not in ("discharge", "groundwater_level"):
        raise InputError.bad_value("response_variable", response_variable, "'discharge' or 'groundwater_level'")
    p, station, prov = read_record(data, source, station_id, "precipitation")
    r, r_station, r_prov = read_record(data, response_source, response_station_id, response_variable)
    resp = (drought.standardized_streamflow_index(r, 1) if response_variable == "discharge"
            else drought.standardized_groundwater_index(r, max_missing_days=10))
    out = drought.drought_propagation(p, resp, scales=_scales(scales), max_lag_months=max_lag_months)
    payload = {k: v for k, v in out.items() if k != "meta"}
    payload.update({"station": station, "response_station": r_station, "response_variable": response_variable,
                    "response_index": resp["index"], "response_record_years": resp["record_years"]})
    best = payload.get("best")
    if payload.get("ok") and best:
        payload["summary"] = (f"{resp['index']} follows SPI-{best['scale_months']} best, at a lag of "
                              f"{best['lag_months']} month(s) (r = {best['r']:.2f} over {best['n_pairs']} months)")
    params = _tool_params(drought_propagation, source=source, station_id=station_id, response_source=response_source,
                          response_station_id=response_station_id, response_variable=response_variable,
                          scales=list(scales), max_lag_months=max_lag_months)
    srcs = prov + [x for x in r_prov if x not in prov] + [s for s in out["meta"]["sources"] if s.get("name") != "aquascope"]
    return finish(payload, "drought_propagation", params, srcs)


# --------------------------------------------------------------------------------------------
# groundwater levels


def _period(period: str | None) -> tuple[int | None, int | None]:
    text = "whole record" if period is None else str(period).strip().lower()
    if text in ("whole record", "all", "latest", ""):
        return None, None
    m = re.fullmatch(r"(\d{4})\s*(?:-|to|–)\s*(\d{4})", text)
    if not m or int(m.group(1)) > int(m.group(2)):
        raise InputError.bad_value("period", period, "'whole record' or a span of years such as 1990-2010")
    return int(m.group(1)), int(m.group(2))


def _trend_block(fn: Any, values: Any, sources: list[dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
    """A trend test's numbers (its citations added to ``sources``), or ``ok: False`` with the reason
    when the series cannot be tested."""
    try:
        out = fn(values, **kwargs)
    except (InsufficientDataError, InputError) as exc:
        return {"ok": False, "reason": exc.message}
    sources.extend(s for s in out["meta"]["sources"] if s.get("name") != "aquascope" and s not in sources)
    return {k: v for k, v in out.items() if k != "meta"}


def groundwater_level_trend(source: str, station_id: str, variable: str = "groundwater_level",
                            period: str = "whole record", basis: Literal["annual", "seasonal"] = "annual",
                            alpha: float = 0.05, max_missing_days: int = 10,
                            variant: Literal["original", "hamed_rao", "prewhitened"] = "original", *,
                            data: DataContext | None = None) -> dict[str, Any]:
    """Trend of groundwater levels: Sen's slope (m/year) with Mann-Kendall on annual means and the
    seasonal Kendall test on monthly means; ``basis`` names the test that carries the answer.

    A month's mean counts when at most ``max_missing_days`` of its days are missing (monthly input is
    taken as it is); a year's mean counts only when all twelve monthly means do, so a season missing
    from a year never biases its mean. Levels are heads (larger is higher): a negative slope is a decline.
    """
    from aquascope_core.methods._monthly import to_monthly
    from aquascope_core.methods.trends import mann_kendall, seasonal_mann_kendall

    if basis not in ("annual", "seasonal"):
        raise InputError.bad_value("basis", basis, "'annual' or 'seasonal'")
    first, last = _period(period)
    s, station, prov = read_record(data, source, station_id, variable,
                                   f"{first}-01-01" if first else None, f"{last}-12-31" if last else None)
    unit = str(s.attrs.get("unit") or "")
    monthly, info = to_monthly(s, variable, "mean", max_missing_days=max_missing_days, allow_negative=True)
    full = monthly.to_numpy()
    months = monthly.index
    by_year = monthly.groupby(months.year)
    complete = [int(y) for y, g in by_year if g.size == 12 and g.notna().all()]
    annual_means = [float(by_year.get_group(y).mean()) for y in complete]
    slope_unit = f"{unit} per year".strip()
    annual = {"years": complete, "means": annual_means, "n_years": len(complete),
              "rule": "calendar years with all twelve monthly means"}
    cites: list[dict[str, Any]] = []
    annual_trend = _trend_block(mann_kendall, annual_means, cites, times=complete, alpha=alpha, variant=variant,
                                unit=unit) if complete else {"ok": False, "reason": "no calendar year holds all twelve monthly means"}
    ts = pd.Series(full, index=months.to_timestamp())
    seasonal = {"n_years": int(np.unique(months.year[np.isfinite(full)]).size), "n_months": int(np.isfinite(full).sum())}
    seasonal_trend = _trend_block(seasonal_mann_kendall, ts, cites, period=12, alpha=alpha, unit=unit)
    chosen = annual_trend if basis == "annual" else seasonal_trend
    finite = np.flatnonzero(np.isfinite(full))
    payload: dict[str, Any] = {
        "method": "groundwater_level_trend", "ok": bool(chosen.get("ok")), "unit": unit, "slope_unit": slope_unit,
        "station": station, "variable": variable, "basis": basis, "alpha": alpha, "confidence": 1.0 - alpha,
        "period": {"first_month": str(months[0]), "last_month": str(months[-1])},
        "monthly": {"dates": [str(m) for m in months], "values": full, "n_months": int(months.size),
                    "n_missing": info["n_months_missing"], "max_missing_days": max_missing_days},
        "annual": annual, "seasonal": seasonal,
        "annual_trend": annual_trend, "seasonal_trend": seasonal_trend,
        "latest": {"month": str(months[finite[-1]]), "level": float(full[finite[-1]])} if finite.size else None,
        "range": {"min": float(np.nanmin(full)), "max": float(np.nanmax(full))} if finite.size else None,
    }
    if chosen.get("ok"):
        slope = chosen["sen_slope"]
        payload.update(sen_slope=slope, sen_slope_ci=chosen["sen_slope_ci"], p_value=chosen["p_value"],
                       trend=chosen["trend"], significant=chosen["significant"],
                       decline_rate=-slope, decline_rate_unit=slope_unit)
        what = "annual means" if basis == "annual" else "monthly means (seasonal Kendall)"
        payload["summary"] = (f"Sen's slope of the {what}: {slope:+.3g} {slope_unit} "
                              f"(p = {chosen['p_value']:.3g}, {chosen['trend']}) from {months[0]} to {months[-1]}")
    else:
        payload["reason"] = f"the {basis} trend test cannot be made: {chosen.get('reason')}"
    params = _tool_params(groundwater_level_trend, source=source, station_id=station_id, variable=variable,
                          period=period, basis=basis, alpha=alpha, max_missing_days=max_missing_days, variant=variant)
    return finish(payload, "groundwater_level_trend", params, prov + cites)


# --------------------------------------------------------------------------------------------

_M = "aquascope_core.tools.drought:"
_INDEX_ARGS = {**STATION_ARGS, "scales": "accumulation periods in months, e.g. [3, 6, 12]",
               "as_of": "the month whose status is read: 'latest' or YYYY-MM"}
_SERIES_ARG = {"index": "an index result or the list of them (e.g. {{ result.s2.series }})"}

SPECS = [
    ToolSpec(
        id="standardized_precipitation_index",
        purpose="SPI of a station's precipitation at several time scales, with the value and McKee class at the status month.",
        kind="station", function=_M + "standardized_precipitation_index", yields=("spi", "drought_status"),
        methods=("standardized_precipitation_index",),
        gates=({"check": "min_years", "value": 30, "path": "record_years"},
               {"check": "status_is", "path": "status", "value": "defensible"}),
        figures=("drought_strip",), tables=("index_status",),
        citation="McKee, Doesken & Kleist (1993); WMO (2012) SPI User Guide, WMO-No. 1090.",
        arguments={**_INDEX_ARGS, "fit": "gamma fit: mle (exact) or thom (approximation)",
                   "calibration_years": "first and last year of the fitting period (default the whole record)"},
    ),
    ToolSpec(
        id="standardized_precipitation_evapotranspiration_index",
        purpose="SPEI of P - PET at several time scales, with the value and class at the status month.",
        kind="station", function=_M + "standardized_precipitation_evapotranspiration_index",
        yields=("spei", "drought_status"), methods=("standardized_precipitation_evapotranspiration_index",),
        gates=({"check": "min_years", "value": 30, "path": "record_years"},),
        figures=("drought_strip",), tables=("index_status",),
        citation="Vicente-Serrano et al. (2010) J. Climate 23, 1696-1718; Begueria et al. (2014) Int. J. Climatol. 34.",
        arguments={**_INDEX_ARGS, "pet_source": "source of the PET record (default: the same station)",
                   "pet_station_id": "station of the PET record (default: the same station)",
                   "calibration_years": "first and last year of the fitting period"},
    ),
    ToolSpec(
        id="standardized_streamflow_index",
        purpose="SSI of a station's monthly mean flow at several time scales (normal scores), with the status month's value.",
        kind="station", function=_M + "standardized_streamflow_index", yields=("ssi", "drought_status"),
        methods=("standardized_streamflow_index",),
        gates=({"check": "min_years", "value": 30, "path": "record_years"},),
        figures=("drought_strip",), tables=("index_status",),
        citation="Farahmand & AghaKouchak (2015) Adv. Water Resour. 76; Vicente-Serrano et al. (2012) J. Hydrol. Eng. 17.",
        arguments={**_INDEX_ARGS, "max_missing_days": "days a month may lack and still be averaged (0)"},
    ),
    ToolSpec(
        id="standardized_groundwater_index",
        purpose="SGI of a station's monthly mean groundwater level (normal scores), with the status month's value.",
        kind="station", function=_M + "standardized_groundwater_index", yields=("sgi", "drought_status"),
        methods=("standardized_groundwater_index",),
        gates=({"check": "min_years", "value": 15, "path": "record_years"},),
        figures=("drought_strip",), tables=("index_status",),
        citation="Bloomfield & Marchant (2013) Hydrol. Earth Syst. Sci. 17, 4769-4787.",
        arguments={**STATION_ARGS, "as_of": "the month whose status is read: 'latest' or YYYY-MM",
                   "max_missing_days": "days a month may lack and still be averaged (10)"},
    ),
    ToolSpec(
        id="drought_events",
        purpose="Drought events (run theory) on standardised indices: count, durations, severities, the event under way.",
        kind="frame", function=_M + "drought_events", yields=("drought_events",), methods=("drought_events",),
        gates=({"check": "not_empty", "path": "by_index"},),
        figures=("drought_events",), tables=("drought_events",),
        citation="Yevjevich (1967) Hydrology Papers 23, Colorado State University.",
        arguments={**_SERIES_ARG, "threshold": "an event is a run of months at or below this value (-1)",
                   "min_duration_months": "shorter runs are not events (1)"},
    ),
    ToolSpec(
        id="drought_classes",
        purpose="How often each McKee drought class occurred in standardised indices, and the latest class.",
        kind="frame", function=_M + "drought_classes", yields=("drought_classes",), methods=("drought_classes",),
        gates=({"check": "not_empty", "path": "by_index"},),
        tables=("drought_classes",),
        citation="McKee, Doesken & Kleist (1993) 8th Conf. Applied Climatology, AMS, 179-184.",
        arguments=dict(_SERIES_ARG),
    ),
    ToolSpec(
        id="drought_propagation",
        purpose="SPI time scale and lag best matching a response index (SSI-1 of discharge or SGI of levels).",
        kind="station", function=_M + "drought_propagation", yields=("propagation",), methods=("drought_propagation",),
        gates=({"check": "not_empty", "path": "best.r"},),
        figures=("propagation",), tables=("propagation",),
        citation="Barker et al. (2016) Hydrol. Earth Syst. Sci. 20, 2483-2505.",
        arguments={"source": "source of the precipitation record", "station_id": "station of the precipitation record",
                   "response_source": "source of the response record", "response_station_id": "station of the response",
                   "response_variable": "discharge (SSI-1) or groundwater_level (SGI)",
                   "scales": "SPI accumulation periods to try (1..24)", "max_lag_months": "largest lag tried (6)"},
    ),
    ToolSpec(
        id="groundwater_level_trend",
        purpose="Trend of groundwater levels: Mann-Kendall and Sen's slope (m/year) on annual means, seasonal Kendall "
                "on monthly means.",
        kind="station", function=_M + "groundwater_level_trend", yields=("groundwater_trend",),
        methods=("groundwater_level_trend", "mann_kendall", "seasonal_mann_kendall"),
        gates=({"check": "min_years", "value": 10, "path": "annual.n_years"}, {"check": "not_empty", "path": "sen_slope"},
               {"check": "unit_present"}),
        figures=("groundwater_levels",), tables=("groundwater_trend",),
        citation="Mann (1945); Sen (1968); Hirsch, Slack & Smith (1982) Water Resour. Res. 18(1), 107-121.",
        arguments={**STATION_ARGS, "period": "'whole record' or a span of years such as 1990-2010",
                   "basis": "annual (Mann-Kendall on annual means) or seasonal (seasonal Kendall on monthly means)",
                   "alpha": "significance level (0.05)",
                   "max_missing_days": "days a month may lack and still be averaged (10)",
                   "variant": "Mann-Kendall variant on the annual means: original, hamed_rao or prewhitened"},
    ),
]
