"""Reference and potential evapotranspiration: FAO-56 Penman-Monteith, Hargreaves-Samani, Oudin.

Each function takes scalars, arrays or pandas Series. With a Series indexed by dates the day of
the year comes from the index (for a monthly step the 15th of each month, which reproduces the
FAO-56 monthly examples); otherwise ``day_of_year`` must be given. Missing values (NaN) give a
missing result for that step; nothing is filled.

Equation numbers are those of Allen, R.G., Pereira, L.S., Raes, D. & Smith, M. (1998) Crop
evapotranspiration: guidelines for computing crop water requirements. FAO Irrigation and Drainage
Paper 56, Rome ("FAO-56").
"""

from __future__ import annotations

import logging
import math
from typing import Any, Literal

import numpy as np
import pandas as pd

from aquascope_core.errors import InputError
from aquascope_core.methods._monthly import as_float_array, day_of_year as _doy_of_index
from aquascope_core.result import finish, resolved_parameters, source

__all__ = [
    "extraterrestrial_radiation",
    "fao56_penman_monteith",
    "hargreaves_samani",
    "oudin",
    "et_series",
]

log = logging.getLogger(__name__)

SOLAR_CONSTANT = 0.0820  # MJ m-2 min-1
STEFAN_BOLTZMANN = 4.903e-9  # MJ K-4 m-2 d-1
LATENT_HEAT = 2.45  # MJ kg-1 (FAO-56 uses the value at 20 C)
MJ_TO_MM = 0.408  # 1 / 2.45: MJ m-2 d-1 of energy as mm d-1 of evaporation
UNIT = "mm/d"

_CITE_FAO56 = ("Allen, R.G., Pereira, L.S., Raes, D. & Smith, M. (1998) Crop evapotranspiration: guidelines for "
               "computing crop water requirements. FAO Irrigation and Drainage Paper 56, FAO, Rome")
_CITE_HS = ("Hargreaves, G.H. & Samani, Z.A. (1985) Reference crop evapotranspiration from temperature. "
            "Applied Engineering in Agriculture 1(2), 96-99; FAO-56 Eq. 52")
_CITE_OUDIN = ("Oudin, L., Hervieu, F., Michel, C., Perrin, C., Andreassian, V., Anctil, F. & Loumagne, C. (2005) "
               "Which potential evapotranspiration input for a lumped rainfall-runoff model? Part 2. "
               "J. Hydrol. 303, 290-306")

TimeStep = Literal["auto", "daily", "monthly"]


# --------------------------------------------------------------------------------------------
# inputs


class _Frame:
    """The time axis shared by every input of one call."""

    def __init__(self, lead: Any, argument: str, day_of_year: Any, time_step: TimeStep) -> None:
        if time_step not in ("auto", "daily", "monthly"):
            raise InputError.bad_value("time_step", time_step, "'auto', 'daily' or 'monthly'")
        self.index: pd.Index | None = None
        self.scalar = np.ndim(lead) == 0 and not isinstance(lead, pd.Series)
        if isinstance(lead, pd.Series) and isinstance(lead.index, (pd.DatetimeIndex, pd.PeriodIndex)):
            idx = lead.index
            if isinstance(idx, pd.DatetimeIndex) and idx.tz is not None:
                raise InputError.bad_value(argument, f"<index with time zone {idx.tz}>", "a time-zone-naive index",
                                           recovery="Use series.tz_localize(None).")
            if idx.has_duplicates or not idx.is_monotonic_increasing:
                raise InputError.bad_value(argument, "<unsorted or duplicated dates>", "dates in increasing order, each once")
            months = idx if isinstance(idx, pd.PeriodIndex) else idx.to_period("M")
            if isinstance(idx, pd.PeriodIndex):
                looks_monthly = idx.freqstr.startswith("M")
            else:  # one value per calendar month, about a month apart
                spacing = np.median(np.diff(idx.to_numpy()).astype("timedelta64[D]").astype(float)) if idx.size > 1 else 0.0
                looks_monthly = idx.size > 1 and not months.has_duplicates and spacing >= 28
            if time_step == "auto":
                time_step = "monthly" if looks_monthly else "daily"
            if time_step == "monthly" and months.has_duplicates:
                raise InputError.bad_value("time_step", "monthly", "one value per calendar month in the index")
            self.index = idx
            doy = _doy_of_index(idx, time_step)
            self.months = months if time_step == "monthly" else None
        else:
            if day_of_year is None:
                raise InputError.bad_value(
                    "day_of_year", None, "the day(s) of the year (1-366) when the inputs are not a Series indexed by dates",
                    recovery="Pass day_of_year=..., or Series with a DatetimeIndex.")
            doy = as_float_array(day_of_year, "day_of_year")
            if np.any(~np.isfinite(doy)) or np.any((doy < 1) | (doy > 366)) or np.any(doy != np.round(doy)):
                raise InputError.bad_value("day_of_year", day_of_year, "whole days from 1 to 366")
            if time_step == "auto":
                time_step = "daily"
            self.months = None
        self.time_step: Literal["daily", "monthly"] = time_step  # type: ignore[assignment]
        self.doy = doy
        self.shape = np.shape(as_float_array(lead, argument))

    def take(self, values: Any, argument: str) -> np.ndarray | None:
        """``values`` as a float array on the frame (scalars broadcast); None stays None."""
        if values is None:
            return None
        if isinstance(values, pd.Series) and self.index is not None and isinstance(values.index, type(self.index)):
            if not values.index.equals(self.index):
                raise InputError.bad_value(argument, "<Series on other dates>", "a Series on the same dates as the temperatures")
        arr = as_float_array(values, argument)
        try:
            return np.broadcast_to(arr, self.shape).astype(float) if arr.shape != self.shape else arr
        except ValueError:
            raise InputError.bad_value(argument, f"<{arr.size} values>", f"a scalar or {int(np.prod(self.shape))} values like the temperatures") from None

    def out(self, arr: np.ndarray) -> Any:
        if self.scalar:
            return float(arr) if np.isfinite(arr) else None
        return [float(v) if np.isfinite(v) else None for v in np.ravel(arr)]

    def dates(self) -> list[str] | None:
        if self.index is None:
            return None
        if self.time_step == "monthly":
            return [str(m) for m in self.months]
        return [str(pd.Timestamp(t).date()) for t in (self.index.to_timestamp() if isinstance(self.index, pd.PeriodIndex) else self.index)]


def _check_latitude(latitude_deg: float) -> float:
    if isinstance(latitude_deg, bool) or not isinstance(latitude_deg, (int, float)) or not -90 <= latitude_deg <= 90:
        raise InputError.bad_value("latitude_deg", latitude_deg, "decimal degrees from -90 to 90 (south negative)")
    return float(latitude_deg)


def _check_range(arr: np.ndarray | None, argument: str, lo: float, hi: float, valid: str) -> None:
    if arr is None:
        return
    f = arr[np.isfinite(arr)]
    if f.size and (f.min() < lo or f.max() > hi):
        bad = f[(f < lo) | (f > hi)][0]
        raise InputError.bad_value(argument, float(bad), valid)


def _temperatures(frame: _Frame, tmax: Any, tmin: Any) -> tuple[np.ndarray, np.ndarray]:
    tx, tn = frame.take(tmax, "tmax"), frame.take(tmin, "tmin")
    _check_range(tx, "tmax", -90, 60, "an air temperature in deg C")
    _check_range(tn, "tmin", -90, 60, "an air temperature in deg C")
    bad = np.isfinite(tx) & np.isfinite(tn) & (tn > tx)
    if bad.any():
        i = int(np.flatnonzero(np.ravel(bad))[0])
        raise InputError.bad_value("tmin", float(np.ravel(tn)[i]), f"at most tmax ({float(np.ravel(tx)[i])}) at step {i}")
    return tx, tn


# --------------------------------------------------------------------------------------------
# FAO-56 building blocks (plain numpy)


def _sat_vp(t: np.ndarray) -> np.ndarray:
    """e°(T), kPa (Eq. 11)."""
    return 0.6108 * np.exp(17.27 * t / (t + 237.3))


def _solar(lat_deg: float, doy: np.ndarray) -> dict[str, np.ndarray]:
    """dr, declination, sunset hour angle, Ra (MJ m-2 d-1) and daylight hours N (Eqs. 21-25, 34)."""
    phi = math.radians(lat_deg)
    dr = 1 + 0.033 * np.cos(2 * np.pi * doy / 365)
    delta = 0.409 * np.sin(2 * np.pi * doy / 365 - 1.39)
    # beyond the polar circles the argument leaves [-1, 1]: polar day (ws = pi) or night (ws = 0)
    ws = np.arccos(np.clip(-math.tan(phi) * np.tan(delta), -1.0, 1.0))
    ra = 24 * 60 / np.pi * SOLAR_CONSTANT * dr * (ws * math.sin(phi) * np.sin(delta) + math.cos(phi) * np.cos(delta) * np.sin(ws))
    return {"dr": dr, "declination": delta, "sunset_hour_angle": ws, "Ra": np.maximum(ra, 0.0), "N": 24 / np.pi * ws}


def extraterrestrial_radiation(latitude_deg: float, day_of_year: Any) -> dict[str, Any]:
    """Extraterrestrial radiation Ra and daylight hours N for a latitude and day(s) of the year.

    Returns Ra in MJ m-2 d-1 (and as mm/d of evaporation, x 0.408), N in hours, with the inverse
    relative Earth-Sun distance dr, the solar declination and the sunset hour angle (rad)
    (FAO-56 Eqs. 21-25 and 34).
    """
    params = resolved_parameters(extraterrestrial_radiation, (latitude_deg, day_of_year))
    lat = _check_latitude(latitude_deg)
    frame = _Frame(day_of_year, "day_of_year", day_of_year, "daily")
    s = _solar(lat, frame.doy)
    payload = {
        "method": "extraterrestrial_radiation",
        "ok": True,
        "latitude_deg": lat,
        "day_of_year": frame.out(frame.doy),
        "Ra": frame.out(s["Ra"]),
        "Ra_mm_per_day": frame.out(MJ_TO_MM * s["Ra"]),
        "N": frame.out(s["N"]),
        "dr": frame.out(s["dr"]),
        "declination_rad": frame.out(s["declination"]),
        "sunset_hour_angle_rad": frame.out(s["sunset_hour_angle"]),
        "unit": "MJ m-2 d-1",
        "units": {"Ra": "MJ m-2 d-1", "Ra_mm_per_day": "mm/d", "N": "h"},
    }
    return finish(payload, "extraterrestrial_radiation", params, [source("FAO-56", citation=_CITE_FAO56 + ", Eqs. 21-25, 34")])


def fao56_penman_monteith(
    tmax: Any,
    tmin: Any,
    *,
    latitude_deg: float,
    elevation_m: float,
    day_of_year: Any = None,
    time_step: TimeStep = "auto",
    wind_speed: Any = None,
    wind_height_m: float = 2.0,
    actual_vapour_pressure: Any = None,
    tdew: Any = None,
    rh_max: Any = None,
    rh_min: Any = None,
    rh_mean: Any = None,
    tdew_below_tmin_c: float = 0.0,
    solar_radiation: Any = None,
    sunshine_hours: Any = None,
    angstrom_a: float = 0.25,
    angstrom_b: float = 0.50,
    krs: float = 0.16,
    tmean_previous: float | None = None,
    tmean_next: float | None = None,
) -> dict[str, Any]:
    """FAO-56 Penman-Monteith grass reference evapotranspiration ET0 (mm/d), daily or monthly.

    Parameters
    ----------
    tmax, tmin : daily (or monthly mean daily) maximum and minimum air temperature, deg C.
    latitude_deg, elevation_m : the station (south negative; metres above sea level).
    day_of_year : needed unless the temperatures are Series indexed by dates.
    time_step : ``"daily"`` (G = 0) or ``"monthly"`` (G from the neighbouring months' mean
        temperatures, Eq. 43, or Eq. 44 when the next month is unknown); ``"auto"`` reads it from
        the index (daily for plain arrays).
    wind_speed : mean wind speed at ``wind_height_m`` (m/s), converted to 2 m by Eq. 47. When None
        the FAO-56 default of 2 m/s is used and said so in ``wind_source``.
    actual_vapour_pressure, tdew, rh_max, rh_min, rh_mean : humidity, used in this order of
        preference (kPa; deg C; %). With none of them ea = e°(Tmin - ``tdew_below_tmin_c``): the
        FAO-56 convention that the dew point is near the daily minimum (Eq. 48; 2-3 deg C below it in
        arid climates).
    solar_radiation, sunshine_hours : Rs (MJ m-2 d-1) or the bright sunshine n (h/d), which gives
        Rs = (a + b n/N) Ra (Angstrom, Eq. 35, a = 0.25, b = 0.50). With neither, Rs = krs
        sqrt(Tmax - Tmin) Ra (Hargreaves' radiation formula, Eq. 50; krs 0.16 inland, 0.19 coastal).
    tmean_previous, tmean_next : for a monthly step given as scalars, the mean temperature of the
        previous and next month (for G). A monthly Series supplies them itself.

    Returns
    -------
    dict with ``et0`` (mm/d), ``dates`` when known, ``intermediate`` (P, gamma, delta, es, ea, u2, Ra,
    N, Rs, Rso, Rns, Rnl, Rn, G), and ``humidity_source``, ``radiation_source``, ``wind_source``
    stating the conventions used. For a monthly Series ``et0_mm_per_month`` too.

    Notes
    -----
    ET0 = [0.408 D (Rn - G) + g 900/(T + 273) u2 (es - ea)] / [D + g (1 + 0.34 u2)]  (Eq. 6),
    with T = (Tmax + Tmin)/2, es the mean of e°(Tmax) and e°(Tmin), Rnl by Eq. 39 with Rs/Rso <= 1.
    A monthly step without the previous month's temperature has no G and no ET0 (never assumed 0).
    """
    params = resolved_parameters(fao56_penman_monteith, (tmax, tmin), {
        "latitude_deg": latitude_deg, "elevation_m": elevation_m, "day_of_year": day_of_year, "time_step": time_step,
        "wind_speed": wind_speed, "wind_height_m": wind_height_m, "actual_vapour_pressure": actual_vapour_pressure,
        "tdew": tdew, "rh_max": rh_max, "rh_min": rh_min, "rh_mean": rh_mean, "tdew_below_tmin_c": tdew_below_tmin_c,
        "solar_radiation": solar_radiation, "sunshine_hours": sunshine_hours, "angstrom_a": angstrom_a,
        "angstrom_b": angstrom_b, "krs": krs, "tmean_previous": tmean_previous, "tmean_next": tmean_next})
    lat = _check_latitude(latitude_deg)
    if isinstance(elevation_m, bool) or not isinstance(elevation_m, (int, float)) or not -450 <= elevation_m <= 9000:
        raise InputError.bad_value("elevation_m", elevation_m, "metres above sea level, from -450 to 9000")
    if not (isinstance(wind_height_m, (int, float)) and 0.5 <= wind_height_m <= 100):
        raise InputError.bad_value("wind_height_m", wind_height_m, "the anemometer height in metres, 0.5 to 100")
    if not (0 < krs <= 0.3):
        raise InputError.bad_value("krs", krs, "an adjustment coefficient in (0, 0.3] (0.16 inland, 0.19 coastal)")
    if not (0 <= angstrom_a <= 1 and 0 < angstrom_b <= 1 and angstrom_a + angstrom_b <= 1):
        raise InputError.bad_value("angstrom_a, angstrom_b", (angstrom_a, angstrom_b), "0 <= a, 0 < b, a + b <= 1")
    if not (0 <= tdew_below_tmin_c <= 10):
        raise InputError.bad_value("tdew_below_tmin_c", tdew_below_tmin_c, "deg C from 0 to 10 (FAO-56: 0, or 2-3 in arid climates)")

    frame = _Frame(tmax, "tmax", day_of_year, time_step)
    tx, tn = _temperatures(frame, tmax, tmin)
    t = (tx + tn) / 2
    sol = _solar(lat, frame.doy)
    ra, n_hours = sol["Ra"], sol["N"]

    pressure = 101.3 * ((293 - 0.0065 * elevation_m) / 293) ** 5.26  # Eq. 7
    gamma = 0.665e-3 * pressure  # Eq. 8
    es = (_sat_vp(tx) + _sat_vp(tn)) / 2  # Eq. 12
    delta = 4098 * _sat_vp(t) / (t + 237.3) ** 2  # Eq. 13

    # humidity
    ea_in, td = frame.take(actual_vapour_pressure, "actual_vapour_pressure"), frame.take(tdew, "tdew")
    rx, rn, rm = frame.take(rh_max, "rh_max"), frame.take(rh_min, "rh_min"), frame.take(rh_mean, "rh_mean")
    for arr, name in ((rx, "rh_max"), (rn, "rh_min"), (rm, "rh_mean")):
        _check_range(arr, name, 0, 100, "a relative humidity in percent, 0 to 100")
    _check_range(ea_in, "actual_vapour_pressure", 0, 10, "a vapour pressure in kPa (0 to 10)")
    if ea_in is not None:
        ea, humidity = ea_in, "actual vapour pressure given"
    elif td is not None:
        ea, humidity = _sat_vp(td), "dew point temperature (Eq. 14)"
    elif rx is not None and rn is not None:
        ea, humidity = (_sat_vp(tn) * rx / 100 + _sat_vp(tx) * rn / 100) / 2, "RHmax and RHmin (Eq. 17)"
    elif rx is not None:
        ea, humidity = _sat_vp(tn) * rx / 100, "RHmax only (Eq. 18)"
    elif rm is not None:
        ea, humidity = rm / 100 * es, "RHmean (Eq. 19)"
    else:
        ea = _sat_vp(tn - tdew_below_tmin_c)
        humidity = ("no humidity data: dew point taken as Tmin" + (f" - {tdew_below_tmin_c:g} C" if tdew_below_tmin_c else "")
                    + " (FAO-56 Eq. 48)")

    # radiation
    rs_in, sun = frame.take(solar_radiation, "solar_radiation"), frame.take(sunshine_hours, "sunshine_hours")
    _check_range(rs_in, "solar_radiation", 0, 50, "a daily solar radiation in MJ m-2 d-1 (0 to 50)")
    _check_range(sun, "sunshine_hours", 0, 24, "hours of bright sunshine per day (0 to 24)")
    if sun is not None:
        over = np.isfinite(sun) & (sun > n_hours + 0.05)
        if over.any():
            i = int(np.flatnonzero(np.ravel(over))[0])
            raise InputError.bad_value("sunshine_hours", float(np.ravel(sun)[i]),
                                       f"at most the daylight hours N = {float(np.ravel(n_hours)[i]):.2f} h on that day")
    rso = (0.75 + 2e-5 * elevation_m) * ra  # Eq. 37
    if rs_in is not None:
        rs, radiation = rs_in, "solar radiation given"
    elif sun is not None:
        ratio = np.divide(sun, n_hours, out=np.zeros_like(n_hours * sun), where=n_hours > 0)
        rs, radiation = (angstrom_a + angstrom_b * ratio) * ra, f"sunshine hours, Angstrom a={angstrom_a:g}, b={angstrom_b:g} (Eq. 35)"
    else:
        rs = krs * np.sqrt(tx - tn) * ra
        radiation = f"no radiation data: Hargreaves radiation from the temperature range, kRs={krs:g} (Eq. 50)"
    rns = (1 - 0.23) * rs  # Eq. 38
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.where(rso > 0, np.minimum(rs / rso, 1.0), np.nan)  # undefined in the polar night
    rnl = (STEFAN_BOLTZMANN * ((tx + 273.16) ** 4 + (tn + 273.16) ** 4) / 2
           * (0.34 - 0.14 * np.sqrt(ea)) * (1.35 * rel - 0.35))  # Eq. 39
    rn = rns - rnl

    # soil heat flux
    if frame.time_step == "daily":
        g_flux = np.zeros_like(t)
        g_rule = "daily step: G = 0 (Eq. 42)"
    else:
        g_flux, g_rule = _monthly_soil_heat(frame, t, tmean_previous, tmean_next)

    # wind
    u = frame.take(wind_speed, "wind_speed")
    _check_range(u, "wind_speed", 0, 60, "a mean wind speed in m/s (0 to 60)")
    if u is None:
        u2 = np.full_like(t, 2.0)
        wind = "no wind data: FAO-56 default u2 = 2 m/s"
    else:
        u2 = u * 4.87 / math.log(67.8 * wind_height_m - 5.42)  # Eq. 47
        wind = "wind speed given at 2 m" if wind_height_m == 2.0 else f"wind speed at {wind_height_m:g} m converted to 2 m (Eq. 47)"

    et0 = (MJ_TO_MM * delta * (rn - g_flux) + gamma * 900 / (t + 273) * u2 * (es - ea)) / (delta + gamma * (1 + 0.34 * u2))
    n_missing = int(np.sum(~np.isfinite(et0)))
    payload: dict[str, Any] = {
        "method": "fao56_penman_monteith",
        "ok": bool(np.isfinite(et0).any()),
        "time_step": frame.time_step,
        "dates": frame.dates(),
        "et0": frame.out(et0),
        "unit": UNIT,
        "n_missing": n_missing,
        "humidity_source": humidity,
        "radiation_source": radiation,
        "wind_source": wind,
        "soil_heat_flux_rule": g_rule,
        "intermediate": {
            "P": float(pressure), "gamma": float(gamma), "delta": frame.out(delta), "es": frame.out(es),
            "ea": frame.out(ea), "u2": frame.out(u2), "Ra": frame.out(ra), "N": frame.out(n_hours),
            "Rs": frame.out(rs), "Rso": frame.out(rso), "Rns": frame.out(rns), "Rnl": frame.out(rnl),
            "Rn": frame.out(rn), "G": frame.out(g_flux), "T": frame.out(t),
        },
        "intermediate_units": {"P": "kPa", "gamma": "kPa/C", "delta": "kPa/C", "es": "kPa", "ea": "kPa", "u2": "m/s",
                               "Ra": "MJ m-2 d-1", "N": "h", "Rs": "MJ m-2 d-1", "Rso": "MJ m-2 d-1",
                               "Rns": "MJ m-2 d-1", "Rnl": "MJ m-2 d-1", "Rn": "MJ m-2 d-1", "G": "MJ m-2 d-1", "T": "C"},
    }
    if not payload["ok"]:
        payload["reason"] = "no step has every input the equation needs"
    if frame.months is not None and not frame.scalar:
        payload["et0_mm_per_month"] = frame.out(et0 * frame.months.days_in_month.to_numpy())
    return finish(payload, "fao56_penman_monteith", params, [source("FAO-56", citation=_CITE_FAO56 + ", Eq. 6")])


def _monthly_soil_heat(frame: _Frame, t: np.ndarray, previous: float | None, nxt: float | None) -> tuple[np.ndarray, str]:
    if frame.months is not None and not frame.scalar:
        tm = pd.Series(np.ravel(t), index=frame.months)
        prev = tm.reindex(frame.months - 1).to_numpy()
        nx = tm.reindex(frame.months + 1).to_numpy()
    else:
        prev = np.full_like(t, np.nan if previous is None else float(previous))
        nx = np.full_like(t, np.nan if nxt is None else float(nxt))
        prev, nx = np.ravel(prev), np.ravel(nx)
    tt = np.ravel(t)
    g = np.where(np.isfinite(nx) & np.isfinite(prev), 0.07 * (nx - prev), 0.14 * (tt - prev))  # Eqs. 43, 44
    g = g.reshape(np.shape(t))
    rule = "monthly step: G = 0.07 (T[i+1] - T[i-1]) (Eq. 43), or 0.14 (T[i] - T[i-1]) without the next month (Eq. 44)"
    if not np.isfinite(g).all():
        rule += "; steps without the previous month's temperature have no G and no ET0"
    return g, rule


def hargreaves_samani(
    tmax: Any,
    tmin: Any,
    *,
    latitude_deg: float,
    day_of_year: Any = None,
    time_step: TimeStep = "auto",
) -> dict[str, Any]:
    """Hargreaves-Samani (1985) reference evapotranspiration (mm/d), FAO-56 Eq. 52.

    ET0 = 0.0023 (T + 17.8) (Tmax - Tmin)^0.5 x 0.408 Ra, with T = (Tmax + Tmin)/2 and Ra from
    FAO-56 Eq. 21. Meant for periods of five days or more; daily values are noisy. FAO-56 asks
    that it be checked against Penman-Monteith in each new region.
    """
    params = resolved_parameters(hargreaves_samani, (tmax, tmin),
                                 {"latitude_deg": latitude_deg, "day_of_year": day_of_year, "time_step": time_step})
    lat = _check_latitude(latitude_deg)
    frame = _Frame(tmax, "tmax", day_of_year, time_step)
    tx, tn = _temperatures(frame, tmax, tmin)
    ra = _solar(lat, frame.doy)["Ra"]
    et0 = 0.0023 * ((tx + tn) / 2 + 17.8) * np.sqrt(tx - tn) * MJ_TO_MM * ra
    payload: dict[str, Any] = {
        "method": "hargreaves_samani",
        "ok": bool(np.isfinite(et0).any()),
        "time_step": frame.time_step,
        "dates": frame.dates(),
        "et0": frame.out(et0),
        "unit": UNIT,
        "n_missing": int(np.sum(~np.isfinite(et0))),
        "intermediate": {"Ra": frame.out(ra), "Ra_unit": "MJ m-2 d-1"},
    }
    if frame.months is not None and not frame.scalar:
        payload["et0_mm_per_month"] = frame.out(et0 * frame.months.days_in_month.to_numpy())
    return finish(payload, "hargreaves_samani", params, [source("Hargreaves-Samani", citation=_CITE_HS)])


def oudin(
    tmean: Any,
    *,
    latitude_deg: float,
    day_of_year: Any = None,
    time_step: TimeStep = "auto",
    k1: float = 100.0,
    k2: float = 5.0,
) -> dict[str, Any]:
    """Oudin et al. (2005) temperature-based potential evapotranspiration (mm/d).

    PE = Ra / (lambda rho) x (T + k2) / k1 when T + k2 > 0, else 0; lambda = 2.45 MJ/kg,
    rho = 1000 kg/m3, Ra from FAO-56 Eq. 21, k1 = 100, k2 = 5 (Oudin's values). Designed as the
    PET input of lumped rainfall-runoff models (GR4J and kin), not as a crop reference ET0.
    Implementations differ in their Ra formula (airGR and HOOPLA use their own), by up to a few
    per cent in winter.
    """
    params = resolved_parameters(oudin, (tmean,), {"latitude_deg": latitude_deg, "day_of_year": day_of_year,
                                                   "time_step": time_step, "k1": k1, "k2": k2})
    lat = _check_latitude(latitude_deg)
    if not (isinstance(k1, (int, float)) and k1 > 0):
        raise InputError.bad_value("k1", k1, "a positive scaling (Oudin et al. 2005: 100)")
    frame = _Frame(tmean, "tmean", day_of_year, time_step)
    t = frame.take(tmean, "tmean")
    _check_range(t, "tmean", -90, 60, "an air temperature in deg C")
    ra = _solar(lat, frame.doy)["Ra"]
    pe = np.where(np.isfinite(t), np.where(t + k2 > 0, ra / LATENT_HEAT * (t + k2) / k1, 0.0), np.nan)
    payload: dict[str, Any] = {
        "method": "oudin",
        "ok": bool(np.isfinite(pe).any()),
        "time_step": frame.time_step,
        "dates": frame.dates(),
        "pet": frame.out(pe),
        "unit": UNIT,
        "n_missing": int(np.sum(~np.isfinite(pe))),
        "intermediate": {"Ra": frame.out(ra), "Ra_unit": "MJ m-2 d-1"},
    }
    if frame.months is not None and not frame.scalar:
        payload["pet_mm_per_month"] = frame.out(pe * frame.months.days_in_month.to_numpy())
    return finish(payload, "oudin", params, [source("Oudin", citation=_CITE_OUDIN)])


def et_series(result: dict[str, Any]) -> pd.Series:
    """The ET0/PET of a result of this module as a Series in mm per step (mm/d for daily steps,
    mm/month for monthly steps), ready for :func:`~aquascope_core.methods.drought.standardized_precipitation_evapotranspiration_index`."""
    dates = result.get("dates")
    if not dates:
        raise InputError.bad_value("result", "<no dates>", "a result computed from Series indexed by dates")
    key = "et0" if "et0" in result else "pet"
    if result.get("time_step") == "monthly":
        vals = result.get(f"{key}_mm_per_month")
        index: pd.Index = pd.PeriodIndex(dates, freq="M")
    else:
        vals = result.get(key)
        index = pd.DatetimeIndex(pd.to_datetime(dates))
    return pd.Series([np.nan if v is None else float(v) for v in vals], index=index, name=f"{key}_mm")
