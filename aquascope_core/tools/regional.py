"""Regional tools: the donor pool and its signatures, donor selection, signature transfer, the index flood.

A site without a discharge record borrows from gauged catchments nearby (donors). The donor pool is
every station within reach whose daily discharge record is held here (offline) and is long enough
(:func:`donor_candidates`); :func:`donor_signatures` computes each candidate's signatures from its own
record with the registered flow methods, in m3/s (a record given as runoff depth in mm/d is turned into
a volume by the station's drainage area, and the payload says so). The transfer tools then apply the
registered regionalisation methods to that table: :func:`transfer_signature` (mean flow, flow duration
quantiles per unit area; the baseflow index unscaled) and :func:`regional_index_flood` (the mean annual
flood scaled by area, times a growth factor transferred from the same donors).

The 20,746 sites of the USGS catalogue have positions and drainage areas but no flows offline: they can
show where donors would be with live data, never be donors here. The payload counts them in a note.
"""

from __future__ import annotations

import logging
import math
from typing import Any, Mapping, Sequence

import numpy as np

from aquascope_core import units
from aquascope_core.errors import InputError
from aquascope_core.result import finish
from aquascope_core.toolspec import ToolSpec
from aquascope_core.tools.context import DataContext, resolve, summary_number

__all__ = [
    "donor_candidates",
    "count_donors",
    "donor_signatures",
    "select_donors",
    "transfer_signature",
    "regional_index_flood",
    "FLOW_QUANTITIES",
    "DONOR_REACH_KM",
    "SPECS",
]

log = logging.getLogger(__name__)

# Donor reach and similarity window: the regionalisation method's defaults (250 km, 0.2-5x the area);
# a donor record needs at least DONOR_MIN_YEARS of daily discharge (the reconnaissance's threshold).
DONOR_REACH_KM = 250.0
DONOR_AREA_RATIO = (0.2, 5.0)
DONOR_MIN_YEARS = 10.0

# What each requested kind of flow means as transferred signatures (column names of the donor table).
FLOW_QUANTITIES: dict[str, tuple[str, ...]] = {
    "mean_flow": ("mean_flow",),
    "low_flows": ("q95",),
    "flow_duration_curve": ("q5", "q10", "q25", "q50", "q75", "q90", "q95"),
    "baseflow_index": ("bfi",),
}
FDC_PERCENTILES = (5, 10, 25, 50, 75, 90, 95)
QUANTITY_LABELS = {
    "mean_flow": "mean flow",
    **{f"q{p}": f"Q{p} (flow exceeded {p} % of the time)" for p in FDC_PERCENTILES},
    "bfi": "baseflow index (Lyne-Hollick)",
    "mean_annual_flood": "mean annual flood (mean of the water-year maxima of daily mean flow)",
}
_DIMENSIONLESS = ("bfi",)
_M3S_PER_MM_DAY_KM2 = units.conversion_factor("mm/d", "m3/s", area_km2=1.0)  # 1e3 m3 / 86,400 s (1/86.4)
_FT3S_TO_M3S = units.conversion_factor("ft3/s", "m3/s")


# --------------------------------------------------------------------------- the pool


def _check_site(lat: Any, lon: Any, area_km2: Any) -> tuple[float, float, float]:
    from aquascope_core.data.base import validate_point

    la, lo = validate_point(lat, lon)
    try:
        area = float(area_km2)
    except (TypeError, ValueError):
        raise InputError.bad_value("area_km2", area_km2, "the catchment area at the site in km2, greater than 0") from None
    if not (math.isfinite(area) and area > 0):
        raise InputError.bad_value("area_km2", area_km2, "the catchment area at the site in km2, greater than 0")
    return la, lo, area


def donor_candidates(lat: float, lon: float, *, reach_km: float = DONOR_REACH_KM,
                     min_years: float = DONOR_MIN_YEARS) -> list[dict[str, Any]]:
    """Stations within ``reach_km`` whose daily discharge record is held offline and spans ``min_years``.

    Each row is the catalogue's station row (with ``distance_km``) plus ``discharge`` (its variable
    entry). Stations with no position or no drainage area are left out: a donor is placed and sized.
    """
    from aquascope_core.data import catalogue
    from aquascope_core.recon import MODELLED_SOURCES

    out = []
    for row in catalogue().stations_near(lat, lon, radius_km=reach_km, limit=None, variable="discharge"):
        if row.get("source") in MODELLED_SOURCES or not row.get("area_km2") or row.get("lat") is None:
            continue
        var = next((v for v in row.get("variables", []) if v.get("variable") == "discharge" and v.get("offline")), None)
        if var is None or (var.get("years") or 0.0) < min_years:
            continue
        out.append({**row, "discharge": var})
    return out


def count_donors(lat: float, lon: float, area_km2: float, *, reach_km: float = DONOR_REACH_KM,
                 min_years: float = DONOR_MIN_YEARS, area_ratio: tuple[float, float] = DONOR_AREA_RATIO) -> int:
    """How many donor candidates lie within the area window of a site of ``area_km2`` (what planning sees)."""
    lo, hi = area_ratio
    return sum(1 for r in donor_candidates(lat, lon, reach_km=reach_km, min_years=min_years)
               if lo <= r["area_km2"] / area_km2 <= hi)


def _catalogue_only(lat: float, lon: float, area_km2: float, reach_km: float, held: set[str]) -> dict[str, Any]:
    """USGS catalogue gauges within reach and the area window whose flows are not held offline."""
    from aquascope_core.data import store
    from aquascope_core.data.base import haversine_km

    cat = store.usgs_catalogue()
    km = haversine_km(lat, lon, cat["latitude"].to_numpy(float), cat["longitude"].to_numpy(float))
    ratio = cat["drainage_area_km2"].to_numpy(float) / area_km2
    lo, hi = DONOR_AREA_RATIO
    sel = (km <= reach_km) & (ratio >= lo) & (ratio <= hi) & ~cat["site_no"].isin(held).to_numpy()
    n = int(np.sum(sel))
    return {"n": n, "note": (
        f"{n:,} further USGS gauges within {reach_km:g} km have a drainage area within {lo:g}-{hi:g} times the "
        "site's; the catalogue gives their positions and areas but no flows offline, so they cannot be donors "
        "here (with live USGS data they could be)." if n else
        f"No further USGS gauge of similar area is catalogued within {reach_km:g} km.")}


def _as_m3s(series, unit: str | None, area_km2: float) -> tuple[Any, str]:
    """A daily discharge series in m3/s, and how it was converted (an unknown unit raises)."""
    from aquascope_core.errors import UnitError

    if unit == "m3/s":
        return series, "none (recorded in m3/s)"
    if unit == "mm/d":
        return series * (area_km2 * _M3S_PER_MM_DAY_KM2), (
            f"runoff depth in mm/d x {area_km2:,.1f} km2 / 86.4 = m3/s (the record is a depth over the catchment)")
    if unit in ("ft3/s", "cfs"):
        return series * _FT3S_TO_M3S, "ft3/s x 0.0283168 = m3/s"
    raise UnitError(f"discharge recorded in {unit!r}: no conversion to m3/s is known", argument="unit", value=unit)


def _signatures(q, return_periods: Sequence[float]) -> dict[str, Any]:
    """The signatures of one daily record in m3/s, each from a registered method."""
    from aquascope_core.methods import flood_frequency as ffa
    from aquascope_core.methods.baseflow import lyne_hollick_baseflow
    from aquascope_core.methods.flows import flow_duration_curve
    from aquascope_core.methods.signatures import mean_annual_flow

    out: dict[str, Any] = {"problems": []}
    maf = mean_annual_flow(q, year_start_month=10, max_missing_days=0, unit="m3/s")
    out["mean_flow"] = maf.get("mean_annual_flow")
    out["n_years_mean_flow"] = maf.get("n_years")
    fdc = flow_duration_curve(q, percentiles=FDC_PERCENTILES, unit="m3/s")
    for p in FDC_PERCENTILES:
        out[f"q{p}"] = fdc["quantiles"].get(f"Q{p}")
    try:
        out["bfi"] = lyne_hollick_baseflow(q, unit="m3/s")["baseflow_index"]
    except InputError as exc:  # a gap stops the recursive filter: no BFI for this donor, the rest stand
        out["bfi"] = None
        out["problems"].append(f"baseflow index: {exc.message}")
    am = ffa.annual_maxima(q, water_year_start_month=10, min_days=360, basis="daily_mean", unit="m3/s")
    values = am["values"]
    out["mean_annual_flood"] = float(np.mean(values))
    out["n_annual_maxima"] = am["n_years"]
    if return_periods:
        fit = ffa.fit_gev_lmoments(values, unit="m3/s")
        levels = ffa.return_levels(fit, list(return_periods))
        for T, x in zip(return_periods, levels):
            out[_growth_key(T)] = None if x is None else x / out["mean_annual_flood"]
        out["gev_lmoments"] = fit.get("parameters")
    return out


def _growth_key(T: float) -> str:
    return f"growth_{float(T):g}"


def donor_signatures(lat: float, lon: float, area_km2: float, reach_km: float = DONOR_REACH_KM,
                     min_years: float = DONOR_MIN_YEARS, return_periods: Sequence[float] | None = None, *,
                     data: DataContext | None = None) -> dict[str, Any]:
    """The donor pool of a site and each donor's signatures computed from its own daily record.

    Returns ``candidates`` (one row per donor candidate: id, source, name, lat, lon, area_km2,
    distance_km, regulation, record period and years, ``unit_read`` and ``conversion``, then in m3/s
    ``mean_flow``, ``q5``..``q95``, ``mean_annual_flood`` and the dimensionless ``bfi`` and
    ``growth_<T>`` (the GEV/L-moment T-year level over the mean annual flood) when ``return_periods``
    are given), ``n_candidates``, ``n_in_area_window``, ``area_window_km2``, ``excluded`` (with the
    reason), ``catalogue_only`` (the note on gauges with no flows offline), ``unit`` and ``summary``.
    """
    la, lo, area = _check_site(lat, lon, area_km2)
    ctx = resolve(data)
    T = [float(t) for t in (return_periods or [])]
    if any(not (t > 1) for t in T):
        raise InputError.bad_value("return_periods", return_periods, "return periods in years, each > 1")
    rows = donor_candidates(la, lo, reach_km=float(reach_km), min_years=float(min_years))
    candidates, excluded, provenance = [], [], []
    for row in rows:
        sid = row["station_id"]
        try:
            s = ctx.fetch_series(row["source"], sid, "discharge")
            q, conversion = _as_m3s(s, s.attrs.get("unit"), float(row["area_km2"]))
            sig = _signatures(q, T)
        except Exception as exc:  # noqa: BLE001 - one unusable donor is listed, the pool goes on
            from aquascope_core.errors import AquascopeError

            if not isinstance(exc, AquascopeError):
                raise
            excluded.append({"id": sid, "name": row.get("name"), "reason": exc.message})
            continue
        prov = s.attrs.get("provenance")
        if isinstance(prov, dict) and prov not in provenance:
            provenance.append(dict(prov))
        values = s.dropna()
        candidates.append({
            "id": sid, "source": row["source"], "name": row.get("name"), "lat": row["lat"], "lon": row["lon"],
            "area_km2": row["area_km2"], "distance_km": row.get("distance_km"), "regulation": row.get("regulation"),
            "area_ratio": row["area_km2"] / area,
            "period": [values.index[0].date().isoformat(), values.index[-1].date().isoformat()],
            "years": row["discharge"].get("years"), "unit_read": s.attrs.get("unit"), "conversion": conversion,
            **{k: v for k, v in sig.items() if k != "problems"},
            "problems": sig["problems"],
        })
    lo_r, hi_r = DONOR_AREA_RATIO
    in_window = [c for c in candidates if lo_r <= c["area_ratio"] <= hi_r]
    note = _catalogue_only(la, lo, area, float(reach_km), {c["id"] for c in candidates})
    converted = [c["name"] for c in candidates if c["unit_read"] != "m3/s"]
    payload = {
        "ok": True,
        "target": {"lat": la, "lon": lo, "area_km2": area},
        "reach_km": float(reach_km),
        "min_years": float(min_years),
        "area_window_km2": [lo_r * area, hi_r * area],
        "candidates": candidates,
        "n_candidates": len(candidates),
        "n_in_area_window": len(in_window),
        "excluded": excluded,
        "catalogue_only": note,
        "return_periods": T,
        "unit": "m3/s",
        "basis": ("signatures of each donor's whole daily record: mean flow = mean of the complete water years' "
                  "means; Q5-Q95 from the flow duration curve (Weibull plotting positions); BFI by the Lyne-Hollick "
                  "filter (alpha 0.925, 3 passes); mean annual flood = mean of the water-year maxima of the daily "
                  "mean flow"),
    }
    payload["summary"] = (
        f"{len(candidates)} gauged catchment(s) with at least {min_years:g} years of daily discharge held offline "
        f"within {reach_km:g} km, {len(in_window)} within {lo_r:g}-{hi_r:g} times the site's {area:,.0f} km2"
        + (f"; converted from runoff depth by area: {', '.join(converted)}" if converted else ""))
    params = {"lat": lat, "lon": lon, "area_km2": area_km2, "reach_km": reach_km, "min_years": min_years,
              "return_periods": list(T)}
    return finish(payload, "donor_signatures", params, provenance)


# --------------------------------------------------------------------------- transfers


def _frame(candidates: Any):
    import pandas as pd

    if not isinstance(candidates, (list, tuple)) or not all(isinstance(c, Mapping) for c in candidates):
        raise InputError.bad_value("candidates", type(candidates).__name__,
                                   "the candidates list of a donor_signatures result ({{ result.sN.candidates }})")
    if not candidates:
        from aquascope_core.errors import InsufficientDataError

        raise InsufficientDataError("candidates is empty: no gauged catchment with a usable record is within reach.",
                                    argument="candidates")
    return pd.DataFrame([{k: v for k, v in c.items() if not isinstance(v, (list, dict))} for c in candidates])


def _target(lat: float, lon: float, area_km2: float) -> dict[str, Any]:
    la, lo, area = _check_site(lat, lon, area_km2)
    return {"lat": la, "lon": lo, "area_km2": area}


def _with_skill(call, min_donors: int, skill_min_donors: int) -> dict[str, Any]:
    """Run a transfer with ``min_donors``; when its leave-one-out skill cannot be formed (each donor left
    out leaves fewer than ``min_donors`` eligible), take the skill of the same transfer run with
    ``skill_min_donors`` (same donors, same estimate: the selection does not depend on the minimum)."""
    out = call(min_donors)
    skill = out.get("skill") or {}
    out["skill_basis"] = f"each donor estimated from the other eligible donors (at least {min_donors})"
    if out.get("ok") and skill.get("median_factor_error") is None and skill_min_donors < min_donors:
        again = call(skill_min_donors)
        same = again.get("ok") and again.get("estimate") == out.get("estimate") and \
            [d["id"] for d in again.get("donors", [])] == [d["id"] for d in out.get("donors", [])]
        if same and (again.get("skill") or {}).get("median_factor_error") is not None:
            out["skill"] = again["skill"]
            out["skill_basis"] = (f"each donor estimated from the other eligible donors (at least {skill_min_donors}: "
                                  f"with {out.get('n_donors')} donors, leaving one out leaves fewer than "
                                  f"{min_donors}); the estimate itself uses at least {min_donors}")
    return out


def _compact(est: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of a transfer a report needs (the method's payload without its meta)."""
    skill = est.get("skill") or {}
    band = est.get("band") or {}
    return {
        "ok": bool(est.get("ok")),
        "reason": est.get("reason"),
        "estimate": est.get("estimate"),
        "unit": est.get("unit"),
        "estimate_per_km2": est.get("estimate_per_km2"),
        "band": {"low": band.get("low"), "high": band.get("high"), "quantiles": band.get("quantiles")} if band else None,
        "log_sd": est.get("log_sd"),
        "scaling": est.get("scaling"),
        "n_donors": est.get("n_donors"),
        "n_eligible": est.get("n_eligible"),
        "excluded": est.get("excluded"),
        "donors": [{k: d.get(k) for k in ("rank", "id", "name", "distance_km", "area_km2", "area_ratio",
                                          "similarity_distance", "value", "scaled_value")}
                   for d in est.get("donors") or []],
        "skill": {k: skill.get(k) for k in ("n", "median_abs_log_error", "median_factor_error",
                                            "fraction_within_factor_2", "per_donor", "skipped", "reason")},
        "skill_basis": est.get("skill_basis"),
    }


def _quantities(flows: Sequence[str]) -> list[str]:
    if isinstance(flows, str):
        flows = [flows]
    unknown = [f for f in flows if f not in FLOW_QUANTITIES]
    if not flows or unknown:
        raise InputError.bad_value("flows", list(flows), "a list among " + ", ".join(FLOW_QUANTITIES))
    return list(dict.fromkeys(q for f in flows for q in FLOW_QUANTITIES[f]))


def select_donors(lat: float, lon: float, area_km2: float, candidates: list[dict[str, Any]],
                  max_distance_km: float = DONOR_REACH_KM, n_donors: int = 5, min_donors: int = 3) -> dict[str, Any]:
    """Rank the candidates by similarity to the site (distance and area) and name the donors."""
    from aquascope_core.methods import regionalisation as reg

    out = reg.select_donors(_target(lat, lon, area_km2), _frame(candidates), attributes=[],
                            max_distance_km=max_distance_km, n_donors=n_donors, min_donors=min_donors)
    payload = {k: v for k, v in out.items() if k != "meta"}
    payload["summary"] = (f"{payload['n_donors']} donor(s) of {payload['n_eligible']} eligible among "
                          f"{payload['n_candidates']} candidate(s)" + ("" if payload["ok"] else f": {payload['reason']}"))
    params = {"lat": lat, "lon": lon, "area_km2": area_km2, "candidates": f"<{len(candidates)} rows>",
              "max_distance_km": max_distance_km, "n_donors": n_donors, "min_donors": min_donors}
    return finish(payload, "select_donors", params, out["meta"]["sources"][:-1])


def transfer_signature(lat: float, lon: float, area_km2: float, candidates: list[dict[str, Any]],
                       flows: Sequence[str] = ("mean_flow", "low_flows", "flow_duration_curve"),
                       max_distance_km: float = DONOR_REACH_KM, n_donors: int = 5, min_donors: int = 3,
                       skill_min_donors: int = 2) -> dict[str, Any]:
    """Transfer the requested flows from the donors to the site, each with its donor band and skill.

    Flows in m3/s are transferred per unit area (donor value x A_site / A_donor), the baseflow index
    as it is; each estimate is the geometric mean of its donors' scaled values with the 10-90 % range
    of those values (the band) and a leave-one-out skill. ``ok`` only when every requested signature
    was transferred from at least ``min_donors`` donors.

    Returns ``estimates`` {quantity: {estimate, unit, band {low, high}, estimate_per_km2, skill
    {median_factor_error, fraction_within_factor_2, n, per_donor}, skill_basis, donors, n_donors}},
    ``quantities`` (in order), ``labels``, ``flows``, ``n_donors`` (the fewest behind any estimate),
    ``donors`` (id and name of the donors behind the first), ``target``, ``unit`` and ``summary``.
    """
    from aquascope_core.methods import regionalisation as reg

    target = _target(lat, lon, area_km2)
    table = _frame(candidates)
    quantities = _quantities(flows)
    estimates: dict[str, Any] = {}
    sources: list[dict[str, Any]] = []
    for qty in quantities:
        if qty not in table.columns:
            raise InputError.bad_value("candidates", qty, f"candidate rows holding {qty!r} (from donor_signatures)")
        dimensionless = qty in _DIMENSIONLESS

        def call(k: int, qty: str = qty, dimensionless: bool = dimensionless) -> dict[str, Any]:
            return reg.transfer_signature(target, table, qty, scaling="none" if dimensionless else "per_unit_area",
                                          unit="dimensionless" if dimensionless else "m3/s", attributes=[],
                                          max_distance_km=max_distance_km, n_donors=n_donors, min_donors=k)

        est = _with_skill(call, int(min_donors), int(skill_min_donors))
        if not sources:
            sources = [r for r in est["meta"]["sources"] if r.get("name") != "aquascope"]
        estimates[qty] = _compact(est)
    ok_all = all(e["ok"] for e in estimates.values())
    first = estimates[quantities[0]]
    payload: dict[str, Any] = {
        "ok": ok_all,
        "target": target,
        "flows": list(flows),
        "quantities": quantities,
        "labels": {q: QUANTITY_LABELS.get(q, q) for q in quantities},
        "estimates": estimates,
        "n_donors": min((e["n_donors"] or 0) for e in estimates.values()),
        "donors": [{"id": d["id"], "name": d["name"]} for d in first["donors"]],
        "unit": "m3/s",
    }
    if not ok_all:
        payload["reason"] = "; ".join(f"{q}: {e['reason']}" for q, e in estimates.items() if not e["ok"])
    else:
        # the quantities in words (mean flow, Q95), not their keys (mean_flow, q95)
        parts = [f"{QUANTITY_LABELS.get(q, q).split(' (')[0]} {summary_number(e['estimate'])} {e['unit']}"
                 for q, e in estimates.items()]
        payload["summary"] = (f"from {payload['n_donors']} donor(s) ({', '.join(d['name'] or d['id'] for d in payload['donors'])}): "
                              + "; ".join(parts))
    params = {"lat": lat, "lon": lon, "area_km2": area_km2, "candidates": f"<{len(candidates)} rows>",
              "flows": list(flows), "max_distance_km": max_distance_km, "n_donors": n_donors,
              "min_donors": min_donors, "skill_min_donors": skill_min_donors}
    return finish(payload, "transfer_signature", params, sources)


def regional_index_flood(lat: float, lon: float, area_km2: float, candidates: list[dict[str, Any]],
                         return_period: float = 100, max_distance_km: float = DONOR_REACH_KM, n_donors: int = 5,
                         min_donors: int = 3, skill_min_donors: int = 2) -> dict[str, Any]:
    """The T-year flood of an ungauged site by the index-flood method, from donor catchments.

    The index flood (the mean annual flood, mean of the water-year maxima of daily mean flow) is
    transferred as ``Q_i (A_site / A_i)^b`` (registered method ``regional_index_flood``); the growth
    factor (each donor's GEV/L-moment T-year level over its own mean annual flood) is transferred
    unscaled (``transfer_signature``). The T-year flood is their product (Dalrymple 1960). Its
    ``envelope`` multiplies the ends of the two 10-90 % donor ranges: a wide envelope of the donors'
    spread, not a confidence interval.

    Returns ``index_flood`` and ``growth_factor`` (each as a transfer: estimate, band, skill,
    donors), ``return_period``, ``return_periods`` ([T]), ``return_level``, ``return_levels`` ([Q_T]),
    ``envelope`` {low, high, basis}, ``min_donor_years`` (the shortest annual-maximum record among
    the donors, for the return-period cap), ``n_donors``, ``unit``, ``basis`` and ``summary``.
    """
    from aquascope_core.methods import regionalisation as reg

    target = _target(lat, lon, area_km2)
    T = float(return_period)
    if not T > 1:
        raise InputError.bad_value("return_period", return_period, "a return period in years, > 1")
    table = _frame(candidates)
    gkey = _growth_key(T)
    if gkey not in table.columns:
        raise InputError.bad_value("candidates", gkey, f"candidate rows holding {gkey!r}: run donor_signatures with "
                                   f"return_periods including {T:g}")

    def index_call(k: int) -> dict[str, Any]:
        return reg.regional_index_flood(target, table, "mean_annual_flood", unit="m3/s", attributes=[],
                                        max_distance_km=max_distance_km, n_donors=n_donors, min_donors=k)

    def growth_call(k: int) -> dict[str, Any]:
        return reg.transfer_signature(target, table, gkey, scaling="none", unit="dimensionless", attributes=[],
                                      max_distance_km=max_distance_km, n_donors=n_donors, min_donors=k)

    idx = _with_skill(index_call, int(min_donors), int(skill_min_donors))
    growth = _with_skill(growth_call, int(min_donors), int(skill_min_donors))
    index_flood = {**_compact(idx), "exponent": idx.get("exponent"), "exponent_info": idx.get("exponent_info")}
    growth_factor = _compact(growth)
    years = {c.get("id"): c.get("n_annual_maxima") for c in candidates}
    used = [d["id"] for d in index_flood["donors"]]
    payload: dict[str, Any] = {
        "ok": bool(idx.get("ok") and growth.get("ok")),
        "target": target,
        "return_period": T,
        "return_periods": [T],
        "index_flood": index_flood,
        "growth_factor": growth_factor,
        "n_donors": min(index_flood["n_donors"] or 0, growth_factor["n_donors"] or 0),
        "donors": [{"id": d["id"], "name": d["name"]} for d in index_flood["donors"]],
        "min_donor_years": min((years.get(i) or 0) for i in used) if used else None,
        "unit": "m3/s",
        "basis": "water-year maxima of the daily mean flow at the donors (not instantaneous peaks)",
        "return_level": None,
        "return_levels": [None],
        "envelope": None,
    }
    if payload["ok"]:
        q = index_flood["estimate"] * growth_factor["estimate"]
        payload["return_level"] = q
        payload["return_levels"] = [q]
        payload["envelope"] = {
            "low": index_flood["band"]["low"] * growth_factor["band"]["low"],
            "high": index_flood["band"]["high"] * growth_factor["band"]["high"],
            "basis": "product of the ends of the 10-90 % donor ranges of the index flood and of the growth factor"}
        payload["summary"] = (f"{T:g}-year flood {summary_number(q)} m3/s = index flood {summary_number(index_flood['estimate'])} m3/s x growth "
                              f"factor {growth_factor['estimate']:.3g}, from {payload['n_donors']} donor(s)")
    else:
        payload["reason"] = "; ".join(f"{name}: {part.get('reason')}" for name, part in
                                      (("index flood", idx), ("growth factor", growth)) if not part.get("ok"))
    params = {"lat": lat, "lon": lon, "area_km2": area_km2, "candidates": f"<{len(candidates)} rows>",
              "return_period": return_period, "max_distance_km": max_distance_km, "n_donors": n_donors,
              "min_donors": min_donors, "skill_min_donors": skill_min_donors}
    sources = [r for r in idx["meta"]["sources"] + growth["meta"]["sources"] if r.get("name") != "aquascope"]
    return finish(payload, "regional_index_flood", params, sources)


_SITE_ARGS = {"lat": "latitude of the site (decimal degrees)", "lon": "longitude of the site (decimal degrees)",
              "area_km2": "catchment area at the site, km2"}
_POOL_ARGS = {"candidates": "the donor table: {{ result.sN.candidates }} of a donor_signatures step",
              "max_distance_km": "largest distance of a donor from the site, km",
              "n_donors": "donors kept (the most similar)", "min_donors": "fewer eligible donors: refused"}
_CITE_DONORS = ("Oudin et al. (2008) Water Resour. Res. 44 W03413; Blöschl et al. (2013) Runoff Prediction in "
                "Ungauged Basins, Cambridge University Press")

SPECS = [
    ToolSpec(
        id="donor_signatures",
        purpose="The gauged donor catchments within reach of a site and their flow signatures (m3/s) from their "
                "own daily records.",
        kind="site",
        function="aquascope_core.tools.regional:donor_signatures",
        yields=("donor_pool",),
        methods=("mean_annual_flow", "flow_duration_curve", "lyne_hollick_baseflow", "annual_maxima", "gev_lmoments"),
        gates=({"check": "not_empty", "path": "candidates"}, {"check": "unit_present"}),
        figures=("donors_map",),
        tables=("donors",),
        citation="Signatures: Addor et al. (2017); Vogel & Fennessey (1994); Ladson et al. (2013).",
        arguments={**_SITE_ARGS, "reach_km": "how far to look for donors, km",
                   "min_years": "shortest usable daily discharge record, years",
                   "return_periods": "return periods whose growth factors (GEV/L-moments) to compute"},
    ),
    ToolSpec(
        id="select_donors",
        purpose="Rank donor candidates by similarity to the site (distance, area) and name the donors.",
        kind="frame",
        function="aquascope_core.tools.regional:select_donors",
        yields=("donors",),
        methods=("select_donors",),
        gates=({"check": "min_donors", "value": 3},),
        tables=("donors",),
        citation=_CITE_DONORS,
        arguments={**_SITE_ARGS, **_POOL_ARGS},
    ),
    ToolSpec(
        id="transfer_signature",
        purpose="Mean flow, flow duration quantiles (per unit area) and the baseflow index at an ungauged site "
                "from donor catchments, each with the donors' band and leave-one-out skill.",
        kind="frame",
        function="aquascope_core.tools.regional:transfer_signature",
        yields=("flow_estimates",),
        methods=("transfer_signature",),
        gates=({"check": "min_donors", "value": 3}, {"check": "not_empty", "path": "estimates"},
               {"check": "unit_present"}),
        figures=("signatures_band",),
        tables=("transferred_flows",),
        citation=_CITE_DONORS,
        arguments={**_SITE_ARGS, **_POOL_ARGS,
                   "flows": "what to transfer: mean_flow, low_flows, flow_duration_curve, baseflow_index",
                   "skill_min_donors": "the fewest donors a leave-one-out estimate may use"},
    ),
    ToolSpec(
        id="regional_index_flood",
        purpose="The T-year flood at an ungauged site: index flood scaled by area times a growth factor, both "
                "from donor catchments, with bands and leave-one-out skill.",
        kind="frame",
        function="aquascope_core.tools.regional:regional_index_flood",
        yields=("ffa_regional",),
        methods=("regional_index_flood", "transfer_signature"),
        gates=({"check": "min_donors", "value": 3}, {"check": "not_empty", "path": "return_level"},
               {"check": "max_return_period_factor", "value": 3, "return_period": 100, "path": "min_donor_years"}),
        figures=("signatures_band",),
        tables=("regional_flood",),
        citation="Dalrymple (1960) USGS WSP 1543-A; Kjeldsen, Jones & Bayliss (2008) EA Science Report SC050050.",
        arguments={**_SITE_ARGS, **_POOL_ARGS, "return_period": "the return period, years",
                   "skill_min_donors": "the fewest donors a leave-one-out estimate may use"},
    ),
]
