"""Rainfall-runoff tools: calibrate GR4J on a gauge with a split-sample test, then simulate a site's flows.

:func:`gr4j_calibration` reads a gauge's daily precipitation, PET and discharge, turns discharge into
runoff depth (mm/d) when it is recorded as a volume, calibrates the four parameters on the first half of
the record and scores them on the second (Klemes 1986), so the parameters the site gets are exactly the
ones the validation judged. :func:`gr4j_simulation` drives GR4J with the site's forcing and those
parameters, turns the simulated depth into m3/s by the site's area, and summarises the simulated flows
with the same signature methods the donor transfer uses (mean flow, flow duration quantiles, baseflow
index, monthly means): compact numbers, never the daily series.

Forcing is never filled: the run uses the longest stretch of consecutive days on which both
precipitation and PET exist, and the payload says which.
"""

from __future__ import annotations

import logging
import math
from typing import Any, Literal, Mapping, Sequence

import numpy as np
import pandas as pd

from aquascope_core import units
from aquascope_core.errors import InputError, InsufficientDataError, UnitError
from aquascope_core.result import finish
from aquascope_core.toolspec import ToolSpec
from aquascope_core.tools.context import DataContext, provenance_rows, resolve

__all__ = ["gr4j_calibration", "gr4j_simulation", "SPECS"]

log = logging.getLogger(__name__)

_MM_DAY_PER_M3S_KM2 = units.conversion_factor("m3/s/km2", "mm/d")  # 1 m3/s over 1 km2 = 86.4 mm/d
_FT3S_TO_M3S = units.conversion_factor("ft3/s", "m3/s")




def _forcing_days(p: pd.Series, e: pd.Series) -> pd.DatetimeIndex:
    """The longest run of consecutive days on which both precipitation and PET exist."""
    days = p.dropna().index.intersection(e.dropna().index).sort_values()
    if len(days) == 0:
        raise InsufficientDataError("precipitation and PET share no day", argument="precipitation")
    steps = np.diff(days.to_numpy().astype("datetime64[D]").astype(np.int64))
    breaks = np.flatnonzero(steps != 1)
    starts = np.concatenate([[0], breaks + 1])
    ends = np.concatenate([breaks, [len(days) - 1]])
    k = int(np.argmax(ends - starts))
    return days[starts[k]: ends[k] + 1]


def _runoff_depth(q: pd.Series, area_km2: float | None) -> tuple[pd.Series, str]:
    unit = q.attrs.get("unit")
    if unit == "mm/d":
        return q, "none (recorded as runoff depth in mm/d)"
    factor = {"m3/s": 1.0, "ft3/s": _FT3S_TO_M3S, "cfs": _FT3S_TO_M3S}.get(unit)
    if factor is None:
        raise UnitError(f"discharge recorded in {unit!r}: GR4J needs mm/d and no conversion is known",
                        argument="unit", value=unit)
    if not area_km2:
        raise UnitError(f"discharge recorded in {unit}: its drainage area is needed to express it in mm/d",
                        argument="area_km2", value=area_km2)
    return q * (factor * _MM_DAY_PER_M3S_KM2 / area_km2), (
        f"{unit} x {factor * _MM_DAY_PER_M3S_KM2:g} / {area_km2:,.1f} km2 = mm/d")


def _halves(days: pd.DatetimeIndex, warmup_days: int) -> tuple[tuple[str, str], tuple[str, str]]:
    scored = days[warmup_days:]
    if len(scored) < 2 * 365:
        raise InsufficientDataError(
            f"{len(scored)} days after a {warmup_days}-day warm-up; a split-sample test needs two periods of at "
            "least 365 days", argument="calibration_period", value=len(scored))
    mid = len(scored) // 2
    # the split moved to the 1 January nearest the middle, so each period is whole calendar years where it can be
    # (a validation from 31 December read as starting a year early), each half keeping at least 365 days
    firsts = np.flatnonzero((scored.month == 1) & (scored.day == 1))
    firsts = firsts[(firsts >= 365) & (len(scored) - firsts >= 365)]
    if firsts.size:
        mid = int(firsts[np.argmin(np.abs(firsts - mid))])
    iso = lambda d: d.date().isoformat()  # noqa: E731
    return (iso(scored[0]), iso(scored[mid - 1])), (iso(scored[mid]), iso(scored[-1]))


def _metrics(part: Mapping[str, Any]) -> dict[str, Any]:
    m = dict(part.get("metrics") or {})
    return {**{k: m.get(k) for k in ("nse", "kge", "nse_sqrt", "nse_log", "r", "alpha", "beta", "percent_bias",
                                      "bias_mm_per_day")},
            "period": part.get("period"), "observed_days": part.get("observed_days"),
            "missing_days": part.get("missing_days"), "warmup_days": part.get("warmup_days")}


def _calibration_plot(p: pd.Series, e: pd.Series, observed: pd.Series, parameters: Mapping[str, float],
                      calibration_period: Sequence[str], validation_period: Sequence[str],
                      warmup_days: int) -> dict[str, Any]:
    """Monthly mean observed and simulated runoff (mm/d) over both periods, for the diagnostics figure.

    One continuous run from the calibration's warm-up to the end of validation with the calibrated
    parameters (the validation score itself was computed on a run with its own warm-up).
    """
    from aquascope_core.methods.rainfall_runoff import gr4j_simulation as simulate
    from aquascope_core.tools.plotdata import sig

    start = min(str(calibration_period[0]), str(validation_period[0]))
    end = max(str(calibration_period[1]), str(validation_period[1]))
    run = simulate(p, e, parameters=parameters, run_start=start, run_end=end, warmup_days=warmup_days)
    sim = pd.Series(run["qsim"], index=pd.date_range(run["period"]["run_start"], periods=len(run["qsim"]), freq="D"))
    obs = observed.reindex(sim.index)
    known = obs.notna()
    months = sim.index.to_period("M")
    daily = pd.DataFrame({"obs": obs.where(known), "sim": sim.where(known)})
    frame = daily.groupby(months).mean()
    regime = daily.groupby(daily.index.month).mean()
    return {
        "form": "monthly_means", "unit": "mm/d",
        "regime": {"month": list(range(1, 13)),
                   "observed": [sig(regime["obs"].get(m, np.nan)) for m in range(1, 13)],
                   "simulated": [sig(regime["sim"].get(m, np.nan)) for m in range(1, 13)],
                   "note": "mean runoff by calendar month (January first) over the days with an observation"},
        "dates": [str(m) for m in frame.index],
        "observed": [sig(v) for v in frame["obs"].to_numpy()],
        "simulated": [sig(v) for v in frame["sim"].to_numpy()],
        "calibration_period": [str(x)[:10] for x in calibration_period],
        "validation_period": [str(x)[:10] for x in validation_period],
        "note": "monthly means of the days with an observation; one continuous run with the calibrated parameters",
    }


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
# below this correlation between the observed and the simulated mean flow by calendar month the model misses the
# seasonal cycle itself, which no calibration of its four parameters mends (measured: 0.99 on the Leaf River, rain-fed;
# 0.30 and 0.29 on the snow-fed Au Saumon and Baskatong of the HOLMES data)
_REGIME_MIN_R = 0.7


def _regime_diagnosis(regime: Mapping[str, Sequence[float]]) -> str | None:
    """A sentence when the calibrated model's seasonal cycle is not the observed one (their calendar-month means
    correlate below _REGIME_MIN_R): water stored through part of the year and released later, typically as snow, is
    outside GR4J. None otherwise."""
    obs, sim = (np.array(regime.get(k) or [], dtype=float) for k in ("observed", "simulated"))
    if obs.size != 12 or sim.size != 12 or not (np.isfinite(obs).all() and np.isfinite(sim).all()):
        return None
    if np.ptp(obs) == 0 or np.ptp(sim) == 0 or float(np.corrcoef(obs, sim)[0, 1]) >= _REGIME_MIN_R:
        return None
    a, b = int(np.argmax(obs)), int(np.argmax(sim))
    return (f"The calibrated model misses the seasonal cycle of the flows: the observed flows are highest in "
            f"{_MONTHS[a]}, the simulated ones in {_MONTHS[b]}. Water held back through part of the year and released "
            "later (typically snow stored over the winter and melted in spring) lies outside GR4J, which has no "
            "snow store; a model with a snow module (such as GR4J with CemaNeige, driven by the catchment's air "
            "temperature) is needed here")


def gr4j_calibration(source: str, station_id: str, area_km2: float | None = None,
                     calibration_period: Sequence[str] | None = None, validation_period: Sequence[str] | None = None,
                     warmup_days: int = 365, criterion: Literal["nse", "kge", "nse_sqrt", "nse_log"] = "nse", *,
                     data: DataContext | None = None) -> dict[str, Any]:
    """Calibrate GR4J on a gauge and validate it on an independent period (split-sample test).

    The gauge must hold daily ``discharge``, ``precipitation`` and ``potential_evapotranspiration``.
    By default the days after the first ``warmup_days`` are split in two halves: calibration on the
    first, validation on the second (each period gets its own warm-up from the forcing before it).

    Returns ``parameters`` (x1..x4, those calibrated on the calibration period), ``calibration`` and
    ``validation`` ({nse, kge, nse_sqrt, nse_log, r, alpha, beta, percent_bias, period, observed_days,
    ...}), ``criterion``, ``criterion_drop``, ``checks`` (the calibration's own), ``station``,
    ``conversion`` (how discharge became mm/d), ``forcing_period``, ``plot`` (monthly means for the
    figure, and ``plot.regime``: the mean by calendar month, observed and simulated), ``diagnosis`` (a
    sentence, only when the simulated seasonal cycle is not the observed one) and ``summary``. ``ok`` is
    the calibration's: a search that failed its checks gives no parameters, with the reason.
    """
    from aquascope_core.methods.rainfall_runoff import gr4j_split_sample_validation

    ctx = resolve(data)
    desc = ctx.describe_station(source, station_id)
    p = ctx.fetch_series(source, station_id, "precipitation")
    e = ctx.fetch_series(source, station_id, "potential_evapotranspiration")
    q = ctx.fetch_series(source, station_id, "discharge")
    for s, name in ((p, "precipitation"), (e, "potential_evapotranspiration")):
        if s.attrs.get("unit") not in (None, "mm/d"):
            raise UnitError(f"{name} is in {s.attrs.get('unit')!r}; GR4J needs mm/d", argument=name,
                            value=s.attrs.get("unit"))
    area = float(area_km2) if area_km2 else desc.get("area_km2")
    depth, conversion = _runoff_depth(q, area)
    days = _forcing_days(p, e)
    if not isinstance(warmup_days, int) or warmup_days < 365:
        raise InputError.bad_value("warmup_days", warmup_days, "a whole number of days, at least 365")
    if calibration_period is None or validation_period is None:
        cal, val = _halves(days, warmup_days)
        calibration_period = calibration_period or cal
        validation_period = validation_period or val
    out = gr4j_split_sample_validation(p.reindex(days), e.reindex(days), depth.reindex(days),
                                       calibration_period=tuple(calibration_period),
                                       validation_period=tuple(validation_period), warmup_days=warmup_days,
                                       criterion=criterion)
    cal_part, val_part = out["calibration"], out["validation"]
    station = {"source": source, "station_id": station_id, "name": desc.get("name"), "lat": desc.get("lat"),
               "lon": desc.get("lon"), "area_km2": area}
    payload: dict[str, Any] = {
        "ok": bool(out["ok"]),
        "model": "GR4J",
        "station": station,
        "criterion": criterion,
        "parameters": out["parameters"],
        "parameter_units": out["parameter_units"],
        "calibration": {**_metrics(cal_part), "criterion_value": cal_part.get("criterion_value")},
        "validation": {**_metrics(val_part), "criterion_value": val_part.get("criterion_value")},
        "criterion_drop": out["criterion_drop"],
        "checks": cal_part.get("checks"),
        "search": {k: (cal_part.get("search") or {}).get(k) for k in ("runs", "converged", "final_step")},
        "conversion": conversion,
        "forcing_period": [days[0].date().isoformat(), days[-1].date().isoformat()],
        "unit": "mm/d",
    }
    if not payload["ok"]:
        payload["reason"] = out.get("reason")
    else:
        payload["plot"] = _calibration_plot(p.reindex(days), e.reindex(days), depth.reindex(days), out["parameters"],
                                            calibration_period, validation_period, warmup_days)
        diagnosis = _regime_diagnosis(payload["plot"]["regime"])
        if diagnosis:
            payload["diagnosis"] = diagnosis
        payload["summary"] = (f"GR4J on {desc.get('name') or station_id}: NSE {payload['calibration']['nse']:.3f} in "
                              f"calibration ({calibration_period[0][:4]}-{calibration_period[1][:4]}), "
                              f"{payload['validation']['nse']:.3f} in validation "
                              f"({validation_period[0][:4]}-{validation_period[1][:4]})")
    params = {"source": source, "station_id": station_id, "area_km2": area_km2,
              "calibration_period": list(calibration_period), "validation_period": list(validation_period),
              "warmup_days": warmup_days, "criterion": criterion}
    return finish(payload, "gr4j_calibration", params,
                  provenance_rows(p, e, q) + [r for r in out["meta"]["sources"] if r.get("name") != "aquascope"])


def gr4j_simulation(precipitation_source: str, precipitation_station_id: str, pet_source: str, pet_station_id: str,
                    parameters: Mapping[str, float], area_km2: float,
                    flows: Sequence[str] = ("mean_flow", "low_flows", "flow_duration_curve"), warmup_days: int = 365,
                    *, data: DataContext | None = None) -> dict[str, Any]:
    """Simulate a site's daily flows with calibrated GR4J parameters and summarise them in m3/s.

    The site's precipitation and PET (mm/d) drive the model; the simulated runoff depth becomes m3/s
    over ``area_km2``. Returns ``estimates`` {quantity: {estimate, unit}} for the requested flows
    (as :func:`aquascope_core.tools.regional.transfer_signature` names them: mean_flow, q5..q95, bfi),
    ``monthly_mean_flow`` (12 calendar-month means, m3/s), ``mean_runoff_mm_per_year``, ``period``,
    ``n_days``, ``parameters``, ``forcing`` (the stations read), ``unit`` and ``summary``.
    """
    from aquascope_core.methods.rainfall_runoff import gr4j_simulation as simulate
    from aquascope_core.tools.regional import QUANTITY_LABELS, _quantities, _signatures

    try:
        area = float(area_km2)
    except (TypeError, ValueError):
        raise InputError.bad_value("area_km2", area_km2, "the catchment area at the site in km2, greater than 0") from None
    if not (math.isfinite(area) and area > 0):
        raise InputError.bad_value("area_km2", area_km2, "the catchment area at the site in km2, greater than 0")
    if not isinstance(parameters, Mapping):
        raise InputError.bad_value("parameters", parameters, "the parameters of a calibration ({{ result.sN.parameters }})")
    quantities = _quantities(flows)
    ctx = resolve(data)
    p = ctx.fetch_series(precipitation_source, precipitation_station_id, "precipitation")
    e = ctx.fetch_series(pet_source, pet_station_id, "potential_evapotranspiration")
    for s, name in ((p, "precipitation"), (e, "potential_evapotranspiration")):
        if s.attrs.get("unit") not in (None, "mm/d"):
            raise UnitError(f"{name} is in {s.attrs.get('unit')!r}; GR4J needs mm/d", argument=name,
                            value=s.attrs.get("unit"))
    days = _forcing_days(p, e)
    if len(days) < warmup_days + 365:
        raise InsufficientDataError(f"{len(days)} consecutive days of forcing; the simulation needs a {warmup_days}-day "
                                    "warm-up and at least a year after it", argument="precipitation")
    out = simulate(p.reindex(days), e.reindex(days), parameters=dict(parameters), run_start=days[warmup_days].date().isoformat(),
                   warmup_days=warmup_days)
    qmm = pd.Series(out["qsim"], index=days[warmup_days:])
    q = qmm * (area / _MM_DAY_PER_M3S_KM2)
    sig = _signatures(q, [])
    estimates = {k: {"estimate": sig.get(k), "unit": "dimensionless" if k == "bfi" else "m3/s",
                     "ok": sig.get(k) is not None} for k in quantities}
    monthly = q.groupby(q.index.month).mean()
    payload: dict[str, Any] = {
        "ok": all(v["ok"] for v in estimates.values()),
        "model": "GR4J",
        "quantities": quantities,
        "labels": {k: QUANTITY_LABELS.get(k, k) for k in quantities},
        "estimates": estimates,
        "monthly_mean_flow": [float(monthly.get(m, np.nan)) for m in range(1, 13)],
        "mean_runoff_mm_per_year": float(qmm.mean() * 365.25),
        "area_km2": area,
        "period": [days[warmup_days].date().isoformat(), days[-1].date().isoformat()],
        "n_days": int(len(q)),
        "warmup_days": warmup_days,
        "parameters": dict(out["parameters"]),
        "forcing": {"precipitation": {"source": precipitation_source, "station_id": precipitation_station_id,
                                      "name": p.attrs.get("name")},
                    "potential_evapotranspiration": {"source": pet_source, "station_id": pet_station_id,
                                                     "name": e.attrs.get("name")}},
        "unit": "m3/s",
        "conversion": f"simulated runoff depth in mm/d x {area:,.1f} km2 / 86.4 = m3/s",
        "problems": sig.get("problems"),
    }
    if not payload["ok"]:
        payload["reason"] = "; ".join(sig.get("problems") or ["a requested flow could not be computed"])
    else:
        # the flows by their labels and the area as given (the raw ids "mean_flow", "q95" and "443 km2" for 442.9 read
        # as a draft); a dimensionless index without a unit word
        payload["summary"] = (f"GR4J simulation {payload['period'][0]} to {payload['period'][1]} over {area:,g} km2: "
                              + "; ".join(f"{payload['labels'][k]} {v['estimate']:.3g}"
                                          + ("" if v["unit"] == "dimensionless" else f" {v['unit']}")
                                          for k, v in estimates.items()))
    params = {"precipitation_source": precipitation_source, "precipitation_station_id": precipitation_station_id,
              "pet_source": pet_source, "pet_station_id": pet_station_id, "parameters": dict(parameters),
              "area_km2": area_km2, "flows": list(flows), "warmup_days": warmup_days}
    return finish(payload, "gr4j_simulation", params,
                  provenance_rows(p, e) + [r for r in out["meta"]["sources"] if r.get("name") != "aquascope"])


_STATION = {"source": "the data source of the gauge (e.g. catalogue, holmes, upload)",
            "station_id": "the gauge's id as its source spells it"}
_CITE = ("Perrin, Michel & Andreassian (2003) J. Hydrol. 279, 275-289; Coron et al. (2017) Environ. Model. Softw. 94, "
         "166-171; Klemes (1986) Hydrol. Sci. J. 31, 13-24")

SPECS = [
    ToolSpec(
        id="gr4j_calibration",
        purpose="Calibrate GR4J on a gauge's daily precipitation, PET and discharge, validated on an independent "
                "period (split-sample test).",
        kind="station",
        function="aquascope_core.tools.rainfall_runoff:gr4j_calibration",
        yields=("model_parameters", "validation_scores"),
        methods=("gr4j_calibration",),
        gates=({"check": "nse_min", "value": 0.5, "path": "validation.nse"},
               {"check": "kge_min", "value": 0.5, "path": "validation.kge"}),
        figures=("rainfall_runoff",),
        tables=("calibration",),
        citation=_CITE,
        arguments={**_STATION, "area_km2": "the gauge's drainage area, km2 (default: the catalogue's)",
                   "calibration_period": "[start, end] of the calibration period (default: first half)",
                   "validation_period": "[start, end] of the validation period (default: second half)",
                   "warmup_days": "days modelled before each period and not scored (at least 365)",
                   "criterion": "the calibration criterion: nse, kge, nse_sqrt or nse_log"},
    ),
    ToolSpec(
        id="gr4j_simulation",
        purpose="Simulate a site's daily flows with calibrated GR4J parameters and its own forcing; mean flow, "
                "flow duration quantiles, baseflow index and monthly means in m3/s.",
        kind="station",
        function="aquascope_core.tools.rainfall_runoff:gr4j_simulation",
        yields=("flow_estimates",),
        methods=("gr4j_simulation",),
        gates=({"check": "not_empty", "path": "estimates"}, {"check": "unit_present"}),
        figures=("regime",),
        tables=("simulated_flows",),
        citation=_CITE,
        arguments={"precipitation_source": "source of the site's daily precipitation (mm/d)",
                   "precipitation_station_id": "station of the site's daily precipitation",
                   "pet_source": "source of the site's daily PET (mm/d)",
                   "pet_station_id": "station of the site's daily PET",
                   "parameters": "GR4J parameters x1..x4 ({{ result.sN.parameters }} of a calibration)",
                   "area_km2": "catchment area at the site, km2",
                   "flows": "what to report: mean_flow, low_flows, flow_duration_curve, baseflow_index",
                   "warmup_days": "days simulated before the reported period"},
    ),
]
