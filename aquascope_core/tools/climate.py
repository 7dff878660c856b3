"""Climate tools: reference evapotranspiration at a station and the crop water demand of an irrigated crop.

ET0 comes either from the record itself (a station's potential evapotranspiration, taken as the
grass reference and said so) or is computed from daily Tmax and Tmin (Hargreaves-Samani, or
FAO-56 Penman-Monteith with its missing-data conventions). The crop water demand is computed
season by season over the record (FAO-56 single Kc, USDA-SCS effective rainfall, net and gross
irrigation by month), so the report can give the mean season, the dry season exceeded one year
in five, and the peak flow the whole area needs.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

import numpy as np
import pandas as pd

from aquascope_core.errors import InputError, InsufficientDataError, UnitError
from aquascope_core.result import finish, resolved_parameters
from aquascope_core.toolspec import ToolSpec
from aquascope_core.tools.context import DataContext, provenance_rows, resolve, station_fields
from aquascope_core.tools.station import STATION_ARGS

__all__ = ["reference_evapotranspiration", "crop_water_demand", "daily_et0", "SPECS"]

log = logging.getLogger(__name__)

Et0Method = Literal["record", "hargreaves_samani", "fao56_penman_monteith"]
ET0_METHODS = ("record", "hargreaves_samani", "fao56_penman_monteith")
MIN_SEASONS = 5
SECONDS_PER_DAY = 86_400.0


def _latitude(latitude_deg: float | None, desc: dict[str, Any]) -> float:
    lat = latitude_deg if latitude_deg is not None else desc.get("lat")
    if lat is None:
        raise InputError("the station has no position and no latitude_deg was given; the radiation terms need it",
                         argument="latitude_deg", recovery="Pass latitude_deg=... (decimal degrees, south negative).")
    return float(lat)


def daily_et0(ctx: DataContext, source: str, station_id: str, method: str, *, latitude_deg: float | None = None,
              elevation_m: float | None = None, start: str | None = None,
              end: str | None = None) -> tuple[pd.Series, dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """Daily ET0 (mm/d) at a station: (series, how it was obtained, provenance rows, station description)."""
    if method not in ET0_METHODS:
        raise InputError.bad_value("et0_method", method, "one of " + ", ".join(ET0_METHODS))
    desc = ctx.describe_station(source, station_id)
    if method == "record":
        s = ctx.fetch_series(source, station_id, "potential_evapotranspiration", start=start, end=end)
        if s.attrs.get("unit") != "mm/d":
            raise UnitError.bad_value("potential_evapotranspiration", s.attrs.get("unit"), "a daily record in mm/d")
        et0 = pd.Series(s.to_numpy(dtype=float), index=s.index.normalize(), name="et0_mm")
        info = {"et0_method": "record", "label": "the station's potential evapotranspiration record",
                "note": ("the record's potential evapotranspiration is taken as the grass reference ET0; it was "
                         "computed by the data's owner, not by FAO-56 Penman-Monteith here")}
        return et0, info, provenance_rows(s), desc
    tx = ctx.fetch_series(source, station_id, "air_temperature_max", start=start, end=end)
    tn = ctx.fetch_series(source, station_id, "air_temperature_min", start=start, end=end)
    for s, name in ((tx, "air_temperature_max"), (tn, "air_temperature_min")):
        if s.attrs.get("unit") != "degC":
            raise UnitError.bad_value(name, s.attrs.get("unit"), "a daily record in degC")
    both = pd.concat([tx.rename("tmax"), tn.rename("tmin")], axis=1, join="inner")
    both.index = both.index.normalize()
    if len(both) < 365:
        raise InsufficientDataError(f"Tmax and Tmin share {len(both)} days at {source} {station_id}; at least 365 are "
                                    "needed", argument="station_id", value=station_id)
    lat = _latitude(latitude_deg, desc)
    from aquascope_core.methods import evapotranspiration as et

    if method == "hargreaves_samani":
        out = et.hargreaves_samani(both["tmax"], both["tmin"], latitude_deg=lat, time_step="daily")
        info = {"et0_method": "hargreaves_samani", "label": "Hargreaves-Samani (FAO-56 Eq. 52)", "latitude_deg": lat,
                "note": "ET0 from daily Tmax and Tmin (Hargreaves-Samani, FAO-56 Eq. 52); meant for periods of "
                        "five days or more, so it is used here only in monthly sums"}
    else:
        if elevation_m is None:
            raise InputError("FAO-56 Penman-Monteith needs the station's elevation_m (for the air pressure)",
                             argument="elevation_m", recovery="Pass elevation_m=..., or use et0_method='hargreaves_samani'.")
        out = et.fao56_penman_monteith(both["tmax"], both["tmin"], latitude_deg=lat, elevation_m=float(elevation_m),
                                       time_step="daily")
        info = {"et0_method": "fao56_penman_monteith", "label": "FAO-56 Penman-Monteith (temperature only)",
                "latitude_deg": lat, "elevation_m": float(elevation_m),
                "note": "; ".join([out["humidity_source"], out["radiation_source"], out["wind_source"]])}
    series = et.et_series(out)
    series.index = pd.DatetimeIndex(series.index).normalize()
    rows = provenance_rows(tx) + [r for r in out.get("meta", {}).get("sources", []) if r.get("name") != "aquascope"]
    return series.dropna(), info, rows, desc


def _complete_month_totals(daily: pd.Series) -> pd.Series:
    """Monthly totals (mm) of the months whose days all have a value; others dropped."""
    months = daily.index.to_period("M")
    g = daily.groupby(months)
    full = g.count() == g.size().index.days_in_month
    return g.sum()[full.to_numpy()]


def reference_evapotranspiration(source: str, station_id: str, method: Et0Method = "record",
                                 latitude_deg: float | None = None, elevation_m: float | None = None,
                                 start: str | None = None, end: str | None = None, *,
                                 data: DataContext | None = None) -> dict[str, Any]:
    """Reference evapotranspiration at a station: the mean of each calendar month (mm/d and mm/month)
    and the mean annual total over complete months and years, from the record or computed from
    daily temperatures."""
    params = resolved_parameters(reference_evapotranspiration, (source, station_id), {
        "method": method, "latitude_deg": latitude_deg, "elevation_m": elevation_m, "start": start, "end": end})
    ctx = resolve(data)
    et0, info, rows, desc = daily_et0(ctx, source, station_id, method, latitude_deg=latitude_deg,
                                      elevation_m=elevation_m, start=start, end=end)
    monthly = _complete_month_totals(et0)
    if monthly.empty:
        raise InsufficientDataError(f"no complete month of ET0 at {source} {station_id}", argument="station_id")
    by_cal = monthly.groupby(monthly.index.month)
    mean_mm = by_cal.mean()
    mean_rate = (monthly / monthly.index.days_in_month).groupby(monthly.index.month).mean()
    years = monthly.groupby(monthly.index.year)
    annual = {int(y): float(g.sum()) for y, g in years if len(g) == 12}
    peak = int(mean_rate.idxmax())
    payload: dict[str, Any] = {
        "method": info["et0_method"],
        "ok": True,
        "unit": "mm/d",
        "station": station_fields(desc, source, station_id),
        "et0": info,
        "period": {"start": et0.index[0].date().isoformat(), "end": et0.index[-1].date().isoformat()},
        "n_days": int(et0.size),
        "n_months": int(monthly.size),
        "n_years": round(monthly.size / 12.0, 2),
        "by_month": {"month": [int(m) for m in mean_mm.index], "mean_mm_per_day": mean_rate.to_numpy(),
                     "mean_mm_per_month": mean_mm.to_numpy(), "n_years": by_cal.size().to_numpy()},
        "annual_years": sorted(annual),
        "annual_mm": [annual[y] for y in sorted(annual)],
        "mean_annual_mm": float(np.mean(list(annual.values()))) if annual else None,
        "peak_month": peak,
        "peak_mm_per_day": float(mean_rate.loc[peak]),
    }
    payload["summary"] = (f"ET0 ({info['label']}) at {desc.get('name') or station_id}: "
                          + (f"mean annual {payload['mean_annual_mm']:.0f} mm over {len(annual)} complete years, "
                             if annual else "")
                          + f"highest in month {peak} at {payload['peak_mm_per_day']:.2f} mm/d")
    return finish(payload, "reference_evapotranspiration", params, rows)


def potential_evapotranspiration_oudin(source: str, station_id: str, latitude_deg: float | None = None,
                                       start: str | None = None, end: str | None = None, *,
                                       data: DataContext | None = None) -> dict[str, Any]:
    """Oudin et al. (2005) potential evapotranspiration from the station's daily mean air temperature: the
    PET input of a lumped rainfall-runoff model where no PET record exists (not a crop reference ET0)."""
    from aquascope_core.methods import evapotranspiration as et

    params = resolved_parameters(potential_evapotranspiration_oudin, (source, station_id),
                                 {"latitude_deg": latitude_deg, "start": start, "end": end})
    ctx = resolve(data)
    desc = ctx.describe_station(source, station_id)
    t = ctx.fetch_series(source, station_id, "air_temperature", start=start, end=end)
    if t.attrs.get("unit") != "degC":
        raise UnitError.bad_value("air_temperature", t.attrs.get("unit"), "a daily record in degC")
    lat = _latitude(latitude_deg, desc)
    out = et.oudin(t, latitude_deg=lat, time_step="daily")
    daily = et.et_series(out)
    daily.index = pd.DatetimeIndex(daily.index).normalize()
    monthly = _complete_month_totals(daily.dropna())
    if monthly.empty:
        raise InsufficientDataError(f"no complete month of temperature at {source} {station_id}", argument="station_id")
    rate = (monthly / monthly.index.days_in_month).groupby(monthly.index.month).mean()
    annual = {int(y): float(g.sum()) for y, g in monthly.groupby(monthly.index.year) if len(g) == 12}
    payload = {
        "method": "oudin", "ok": True, "unit": "mm/d", "station": station_fields(desc, source, station_id),
        "latitude_deg": lat,
        "period": {"start": daily.index[0].date().isoformat(), "end": daily.index[-1].date().isoformat()},
        "n_months": int(monthly.size),
        "by_month": {"month": [int(m) for m in rate.index], "mean_mm_per_day": rate.to_numpy()},
        "annual_years": sorted(annual), "annual_mm": [annual[y] for y in sorted(annual)],
        "mean_annual_mm": float(np.mean(list(annual.values()))) if annual else None,
        "note": "Oudin PET is the input of lumped rainfall-runoff models; it is not the FAO-56 grass reference ET0",
    }
    payload["summary"] = (f"Oudin PET at {desc.get('name') or station_id}"
                          + (f": mean annual {payload['mean_annual_mm']:.0f} mm over {len(annual)} complete years"
                             if annual else ""))
    return finish(payload, "potential_evapotranspiration_oudin", params,
                  provenance_rows(t) + [r for r in out.get("meta", {}).get("sources", []) if r.get("name") != "aquascope"])


# --------------------------------------------------------------------------- crop water demand


def _quantile(values: list[float], p: float) -> float:
    """The p non-exceedance quantile, Weibull plotting positions i/(n+1), interpolated."""
    return float(np.quantile(np.asarray(values, dtype=float), p, method="weibull"))


def _check_share(name: str, value: Any, valid: str, lo: float = 0.0, hi: float = 1.0) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo < value <= hi:
        raise InputError.bad_value(name, value, valid)
    return float(value)


def crop_water_demand(source: str, station_id: str, crop: str, planting_month: int, planting_day: int = 1,
                      area_ha: float | None = None, application_efficiency: float = 0.75,
                      et0_method: Et0Method = "record", et_source: str | None = None,
                      et_station_id: str | None = None, latitude_deg: float | None = None,
                      elevation_m: float | None = None, effective_rainfall_method: str = "usda_scs",
                      design_non_exceedance: float = 0.8, start: str | None = None, end: str | None = None, *,
                      data: DataContext | None = None) -> dict[str, Any]:
    """The irrigation a crop needs, season by season over the climate record (FAO-56 single Kc).

    Every year whose season (planting date plus the Table 11 stage lengths) is covered by daily
    ET0 and by complete monthly rainfall totals gives one season; the others are listed as
    skipped. Per season: ETc, effective rainfall, net and gross irrigation by month. Across the
    seasons: the mean, the design season (the gross demand not exceeded in ``design_non_exceedance``
    of the seasons: 0.8 is the dry season met four years in five), the peak month's gross demand
    in mm/d and l/s/ha, and with ``area_ha`` the volumes and flows of the whole area and the
    monthly schedule of flows a supply check takes.
    """
    from aquascope_core.methods import crops

    params = resolved_parameters(crop_water_demand, (source, station_id, crop, planting_month), {
        "planting_day": planting_day, "area_ha": area_ha, "application_efficiency": application_efficiency,
        "et0_method": et0_method, "et_source": et_source, "et_station_id": et_station_id,
        "latitude_deg": latitude_deg, "elevation_m": elevation_m,
        "effective_rainfall_method": effective_rainfall_method, "design_non_exceedance": design_non_exceedance,
        "start": start, "end": end})
    if isinstance(planting_month, bool) or not isinstance(planting_month, int) or not 1 <= planting_month <= 12:
        raise InputError.bad_value("planting_month", planting_month, "a month number 1-12")
    if isinstance(planting_day, bool) or not isinstance(planting_day, int) or not 1 <= planting_day <= 28:
        raise InputError.bad_value("planting_day", planting_day, "a day 1-28 (the same date every year)")
    _check_share("application_efficiency", application_efficiency, "a share in (0, 1] (about 0.6 surface, 0.75 "
                 "sprinkler, 0.9 drip)")
    design = _check_share("design_non_exceedance", design_non_exceedance, "a share in (0.5, 1), e.g. 0.8", 0.5, 0.99)
    if area_ha is not None and (isinstance(area_ha, bool) or not isinstance(area_ha, (int, float)) or area_ha <= 0):
        raise InputError.bad_value("area_ha", area_ha, "an area in hectares greater than 0, or None")
    crop_row = crops.crop_table(crop)["crops"][0]  # refuses an unknown crop, naming the known ones
    season_days = int(sum(crop_row[k] for k in ("l_ini", "l_dev", "l_mid", "l_late")))
    ctx = resolve(data)
    p = ctx.fetch_series(source, station_id, "precipitation", start=start, end=end)
    if p.attrs.get("unit") != "mm/d" or p.attrs.get("resolution", "daily") != "daily":
        raise UnitError.bad_value("precipitation", p.attrs.get("unit"), "a daily precipitation record in mm/d")
    p = pd.Series(p.to_numpy(dtype=float), index=p.index.normalize())
    et0, info, et_rows, _ = daily_et0(ctx, et_source or source, et_station_id or station_id, et0_method,
                                      latitude_deg=latitude_deg, elevation_m=elevation_m, start=start, end=end)
    desc = ctx.describe_station(source, station_id)
    p_months = _complete_month_totals(p)

    seasons, skipped, monthly_rows = [], [], []
    first, last = max(p.index[0], et0.index[0]).year, min(p.index[-1], et0.index[-1]).year
    for year in range(first, last + 1):
        plant = pd.Timestamp(year=year, month=planting_month, day=planting_day)
        days = pd.date_range(plant, periods=season_days, freq="D")
        months = pd.period_range(days[0].to_period("M"), days[-1].to_period("M"), freq="M")
        e = et0.reindex(days)
        if e.isna().any():
            skipped.append({"year": year, "reason": f"ET0 missing on {int(e.isna().sum())} day(s) of the season"})
            continue
        if not all(m in p_months.index for m in months):
            skipped.append({"year": year, "reason": "a month of the season has no complete rainfall total"})
            continue
        out = crops.crop_water_demand(crop, plant, e, p_months.reindex(months), application_efficiency=application_efficiency,
                                      et0_unit="mm/d", effective_rainfall_method=effective_rainfall_method)
        t = out["totals"]
        seasons.append({"year": year, "planting": out["planting_date"], "harvest": out["harvest_date"],
                        "et0_mm": t["et0_mm"], "etc_mm": t["etc_mm"], "effective_rainfall_mm": t["effective_rainfall_mm"],
                        "net_mm": t["net_irrigation_mm"], "gross_mm": t["gross_irrigation_mm"],
                        "peak_month": out["peak"]["month"], "peak_gross_mm_per_day": out["peak"]["gross_mm_per_day"],
                        "peak_l_per_s_per_ha": out["peak"]["gross_l_per_s_per_ha"]})
        for i, r in enumerate(out["months"]):
            monthly_rows.append({"season": year, "index": i, **r})
        last_out = out
    if len(seasons) < MIN_SEASONS:
        raise InsufficientDataError(f"{len(seasons)} complete season(s) of {crop} planted on {planting_month}/"
                                    f"{planting_day} in the climate record; at least {MIN_SEASONS} are needed",
                                    argument="station_id", value=station_id)
    gross = [s["gross_mm"] for s in seasons]
    net = [s["net_mm"] for s in seasons]
    peak_rate = [s["peak_gross_mm_per_day"] for s in seasons]
    frame = pd.DataFrame(monthly_rows)
    by_idx = frame.groupby("index")
    cal_month = [int(pd.Period(m).month) for m in frame.groupby("index")["month"].first()]
    mm_to_ls = crops.MM_PER_DAY_TO_L_PER_S_PER_HA
    design_peak_mm_d = _quantile(peak_rate, design)
    payload: dict[str, Any] = {
        "method": "crop_water_demand",
        "ok": True,
        "unit": "mm",
        "station": station_fields(desc, source, station_id),
        "crop": crop,
        "label": crop_row["label"],
        "planting": f"{planting_month:02d}-{planting_day:02d}",
        "season_days": season_days,
        "stage_lengths_days": last_out["stage_lengths_days"],
        "kc": {"ini": last_out["kc_ini"], "mid": last_out["kc_mid"], "end": last_out["kc_end"]},
        "climate_adjustment": last_out["climate_adjustment"],
        "effective_rainfall_rule": last_out["effective_rainfall_rule"],
        "application_efficiency": float(application_efficiency),
        "et0": info,
        "n_seasons": len(seasons),
        "seasons_skipped": skipped,
        "design_non_exceedance": design,
        "mean": {"et0_mm": float(np.mean([s["et0_mm"] for s in seasons])),
                 "etc_mm": float(np.mean([s["etc_mm"] for s in seasons])),
                 "effective_rainfall_mm": float(np.mean([s["effective_rainfall_mm"] for s in seasons])),
                 "net_mm": float(np.mean(net)), "gross_mm": float(np.mean(gross))},
        "design": {"net_mm": _quantile(net, design), "gross_mm": _quantile(gross, design),
                   "gross_m3_per_ha": 10.0 * _quantile(gross, design),
                   "peak_gross_mm_per_day": design_peak_mm_d, "peak_l_per_s_per_ha": design_peak_mm_d * mm_to_ls},
        "largest": {"gross_mm": float(max(gross)), "year": seasons[int(np.argmax(gross))]["year"]},
        "mean_peak_l_per_s_per_ha": float(np.mean(peak_rate)) * mm_to_ls,
        "peak_month_most_often": int(pd.Series([int(s["peak_month"][-2:]) for s in seasons]).mode().iloc[0]),
        "by_month": {"month": cal_month, "days_in_season": by_idx["days_in_season"].first().to_numpy(),
                     "et0_mm": by_idx["et0_mm"].mean().to_numpy(), "kc_mean": by_idx["kc_mean"].mean().to_numpy(),
                     "etc_mm": by_idx["etc_mm"].mean().to_numpy(),
                     "precipitation_mm": by_idx["precipitation_mm"].mean().to_numpy(),
                     "effective_rainfall_mm": by_idx["effective_rainfall_mm"].mean().to_numpy(),
                     "net_mm": by_idx["net_irrigation_mm"].mean().to_numpy(),
                     "gross_mm": by_idx["gross_irrigation_mm"].mean().to_numpy()},
        "seasons": seasons,
    }
    if area_ha is not None:
        area = float(area_ha)
        starts, ends, flows = [], [], []
        for r in monthly_rows:
            m = pd.Period(r["month"])
            season_start = pd.Timestamp(next(s["planting"] for s in seasons if s["year"] == r["season"]))
            lo = max(m.start_time.normalize(), season_start)
            hi = lo + pd.Timedelta(days=r["days_in_season"] - 1)
            starts.append(lo.date().isoformat())
            ends.append(hi.date().isoformat())
            flows.append(r["gross_irrigation_mm"] * 10.0 * area / (r["days_in_season"] * SECONDS_PER_DAY))
        payload["area"] = {
            "area_ha": area,
            "design_gross_m3": 10.0 * area * payload["design"]["gross_mm"],
            "mean_gross_m3": 10.0 * area * payload["mean"]["gross_mm"],
            "design_peak_l_per_s": payload["design"]["peak_l_per_s_per_ha"] * area,
            "design_peak_m3s": payload["design"]["peak_l_per_s_per_ha"] * area / 1000.0,
            "schedule": {"start": starts, "end": ends, "m3s": flows},
            "schedule_note": "the gross demand of each month of each season as a steady flow over its days in the season",
        }
    payload["summary"] = (f"{crop_row['label']} planted {planting_month:02d}-{planting_day:02d}: gross irrigation "
                          f"{payload['mean']['gross_mm']:.0f} mm in the mean season, {payload['design']['gross_mm']:.0f} mm "
                          f"in the design season ({len(seasons)} seasons); peak {payload['design']['peak_l_per_s_per_ha']:.2f} l/s/ha")
    sources = provenance_rows(p) + et_rows + [r for r in last_out.get("meta", {}).get("sources", []) if r.get("name") != "aquascope"]
    return finish(payload, "crop_water_demand", params, sources)


# --------------------------------------------------------------------------- catalogue

_FAO56 = "Allen, Pereira, Raes & Smith (1998) FAO Irrigation and Drainage Paper 56"
_ET_ARGS = {"latitude_deg": "latitude for the radiation terms (default the station's)",
            "elevation_m": "station elevation in metres (Penman-Monteith only)",
            "start": "first date to read (ISO)", "end": "last date to read (ISO)"}

SPECS = [
    ToolSpec(
        id="potential_evapotranspiration_oudin",
        purpose="Potential evapotranspiration by Oudin et al. (2005) from daily mean air temperature, by calendar "
                "month and year: the PET of a rainfall-runoff model where no PET record exists.",
        kind="station",
        function="aquascope_core.tools.climate:potential_evapotranspiration_oudin",
        yields=("pet_climatology",),
        methods=("oudin", "extraterrestrial_radiation"),
        gates=({"check": "unit_present"}, {"check": "not_empty", "path": "annual_mm"}),
        figures=("monthly_climate",),
        tables=("pet_by_month",),
        citation="Oudin et al. (2005) J. Hydrol. 303, 290-306.",
        arguments={"source": "the data source of the station", "station_id": "the station's id",
                   "latitude_deg": "latitude for the extraterrestrial radiation (default: the station's)",
                   "start": "first date (ISO)", "end": "last date (ISO)"},
    ),
    ToolSpec(
        id="reference_evapotranspiration",
        purpose="Reference evapotranspiration at a station by calendar month and year: the record's PET, or "
                "Hargreaves-Samani or temperature-only Penman-Monteith from daily Tmax/Tmin.",
        kind="station",
        function="aquascope_core.tools.climate:reference_evapotranspiration",
        yields=("et0_climatology",),
        methods=("hargreaves_samani", "fao56_penman_monteith", "extraterrestrial_radiation"),
        gates=({"check": "min_years", "value": 5, "path": "n_years"}, {"check": "unit_present"},
               {"check": "not_empty", "path": "mean_annual_mm"}),
        figures=("monthly_climate",),
        tables=("et0_by_month",),
        citation=_FAO56 + ", Eqs. 6, 52; Hargreaves & Samani (1985).",
        arguments={**STATION_ARGS, "method": "record, hargreaves_samani or fao56_penman_monteith", **_ET_ARGS},
    ),
    ToolSpec(
        id="crop_water_demand",
        purpose="Net and gross irrigation demand of a crop season by season over the climate record (FAO-56 single "
                "Kc, USDA-SCS effective rainfall): mean and design season, peak l/s/ha, whole-area volumes and flows.",
        kind="station",
        function="aquascope_core.tools.climate:crop_water_demand",
        yields=("irrigation_demand", "demand_schedule"),
        methods=("crop_water_demand", "effective_rainfall", "crop_coefficient_curve"),
        gates=({"check": "min_years", "value": 5, "path": "n_seasons"}, {"check": "unit_present"},
               {"check": "not_empty", "path": "design.gross_mm"}),
        figures=("crop_demand",),
        tables=("demand_by_month", "seasons"),
        citation=_FAO56 + ", chapter 6, Tables 11-12; Smith (1992) CROPWAT, FAO Irrigation and Drainage Paper 46.",
        arguments={"source": "the data source of the precipitation record",
                   "station_id": "the station holding daily precipitation", "crop": "a crop of the FAO-56 table",
                   "planting_month": "month of planting (1-12)", "planting_day": "day of planting (1-28)",
                   "area_ha": "the irrigated area in hectares (for whole-area volumes and flows)",
                   "application_efficiency": "share of the water applied that the crop can use",
                   "et0_method": "record (the station's PET), hargreaves_samani or fao56_penman_monteith",
                   "et_source": "the source of the ET0 inputs (default the precipitation station's)",
                   "et_station_id": "the station of the ET0 inputs",
                   "effective_rainfall_method": "usda_scs or fixed_fraction",
                   "design_non_exceedance": "share of seasons whose demand the design season covers (0.8)",
                   **_ET_ARGS},
    ),
]
