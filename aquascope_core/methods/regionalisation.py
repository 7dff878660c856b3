"""Regionalisation: donor catchments chosen by similarity, and what is transferred from them.

A target catchment (latitude, longitude, area and optional climate attributes) is compared with a
table of gauged candidates. Candidates farther than ``max_distance_km`` or outside the area window
(default 0.2-5 times the target's area) are not eligible; the eligible ones are ranked by a
similarity distance and the nearest ``n_donors`` become donors. With fewer than ``min_donors``
(default 3) the method refuses, with the reason and what excluded the others.

Transfers
---------
- :func:`transfer_signature`: a flow signature (mean flow, Q95, BFI, ...) either per unit area
  (donor value x A_target / A_donor) or unscaled (dimensionless signatures).
- :func:`regional_index_flood`: the mean annual flood scaled as Q = c A^b, with b fitted on the
  eligible donors when they can fit it, or a stated default otherwise.

Both combine the scaled donor values by their geometric mean (equal weights), give a band (the
10-90 % range of the scaled donor values) and a leave-one-out skill: each donor in turn is treated
as ungauged, its value estimated by the same procedure from the rest of the table, and compared
with what was observed.

Notes
-----
Similarity distance of candidate i to the target::

    D_i = sqrt( [ w_geo (d_i / d_max)^2 + w_area (ln(A_i/A_t) / ln r)^2
                  + sum_k w_k ((x_ik - x_tk) / s_k)^2 ] / (w_geo + w_area + sum_k w_k) )

d_i is the great-circle distance (haversine, mean Earth radius 6371.0088 km), d_max the maximum
distance, r the bound of the area window on the candidate's side (5 when A_i > A_t, 1/0.2 when
A_i < A_t), so both terms equal 1 at the edge of the window; x_k are the climate attributes,
standardised by their standard deviation s_k over the whole candidate table. D is a weighted
root-mean-square of the standardised differences: 0 for an identical candidate, about 1 at the
edge of the window.

References
----------
Oudin, L., Andreassian, V., Perrin, C., Michel, C. and Le Moine, N. (2008). Spatial proximity,
physical similarity, regression and ungaged catchments: a comparison of regionalization approaches
based on 913 French catchments. Water Resources Research 44, W03413.
Blöschl, G., Sivapalan, M., Wagener, T., Viglione, A. and Savenije, H. (eds.) (2013). Runoff
Prediction in Ungauged Basins. Cambridge University Press.
Kjeldsen, T.R., Jones, D.A. and Bayliss, A.C. (2008). Improving the FEH statistical procedures for
flood frequency estimation. Environment Agency Science Report SC050050 (the QMED equation, whose
AREA exponent 0.851 is the default b here).
Dalrymple, T. (1960). Flood-frequency analyses. USGS Water-Supply Paper 1543-A (the index flood).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Sequence

import numpy as np
import pandas as pd

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.result import finish, resolved_parameters, source

__all__ = ["select_donors", "transfer_signature", "regional_index_flood"]

log = logging.getLogger(__name__)

EARTH_RADIUS_KM = 6371.0088  # IUGG mean Earth radius
DEFAULT_MAX_DISTANCE_KM = 250.0
DEFAULT_AREA_RATIO_RANGE = (0.2, 5.0)
DEFAULT_INDEX_FLOOD_EXPONENT = 0.851  # Kjeldsen, Jones & Bayliss (2008), FEH QMED equation
_BAND_QUANTILES = (0.10, 0.90)
_RESERVED = ("id", "name", "lat", "lon", "area_km2")
_LN2 = math.log(2.0)

_CITATION = ("Oudin et al. (2008) Water Resour. Res. 44 W03413; Blöschl et al. (2013) Runoff Prediction in "
             "Ungauged Basins, Cambridge University Press")
_FLOOD_CITATION = ("Dalrymple (1960) USGS Water-Supply Paper 1543-A (index flood); Kjeldsen, Jones & Bayliss (2008) "
                   "Environment Agency Science Report SC050050 (QMED area exponent 0.851)")


# --------------------------------------------------------------------------- geometry


def _great_circle_km(lat1: Any, lon1: Any, lat2: Any, lon2: Any) -> np.ndarray:
    """Haversine great-circle distance in km on a sphere of radius :data:`EARTH_RADIUS_KM`."""
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dp = p2 - p1
    dl = np.radians(np.asarray(lon2, dtype=float) - np.asarray(lon1, dtype=float))
    h = np.sin(dp / 2.0) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dl / 2.0) ** 2
    return 2.0 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(h, 0.0, 1.0)))


# --------------------------------------------------------------------------- inputs


@dataclass
class _Target:
    id: str | None
    name: str | None
    lat: float
    lon: float
    area_km2: float
    attrs: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "lat": self.lat, "lon": self.lon, "area_km2": self.area_km2,
                **self.attrs}


@dataclass
class _Pool:
    """The candidate table, validated, as arrays (the caller's frame is never touched)."""

    ids: np.ndarray
    names: np.ndarray
    lat: np.ndarray
    lon: np.ndarray
    area: np.ndarray
    attrs: dict[str, np.ndarray]
    scales: dict[str, float]
    quantity: np.ndarray | None
    quantity_name: str | None

    def row_as_target(self, i: int) -> _Target:
        return _Target(self.ids[i], self.names[i], float(self.lat[i]), float(self.lon[i]), float(self.area[i]),
                       {k: float(v[i]) for k, v in self.attrs.items()})


@dataclass
class _Options:
    max_distance_km: float
    area_ratio_range: tuple[float, float]
    n_donors: int
    min_donors: int
    geographic_weight: float
    area_weight: float
    attribute_weights: dict[str, float] = field(default_factory=dict)


def _finite_number(value: Any, argument: str, valid: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InputError.bad_value(argument, value, valid) from None
    if not math.isfinite(x):
        raise InputError.bad_value(argument, value, valid)
    return x


def _parse_target(target: Mapping[str, Any], attributes: Sequence[str] | None, quantity: str | None) -> _Target:
    if not isinstance(target, Mapping):
        if isinstance(target, pd.Series):
            target = target.to_dict()
        else:
            raise InputError.bad_value("target", target, "a mapping with lat, lon, area_km2 and optional attributes")
    for key in ("lat", "lon"):
        if target.get(key) is None:
            raise InputError(f"target has no {key!r}: give the outlet's latitude and longitude in decimal degrees.",
                             argument="target")
    if target.get("area_km2") is None:
        raise InputError("target has no 'area_km2': regionalisation scales donor values by catchment area and "
                         "filters donors by area ratio, so the target's drainage area is required.",
                         argument="target", recovery="Give the catchment's drainage area in km2 (delineate it if unknown).")
    lat = _finite_number(target["lat"], "target['lat']", "a latitude in decimal degrees, -90 to 90")
    lon = _finite_number(target["lon"], "target['lon']", "a longitude in decimal degrees, -180 to 180")
    area = _finite_number(target["area_km2"], "target['area_km2']", "a drainage area in km2 greater than 0")
    if not -90.0 <= lat <= 90.0:
        raise InputError.bad_value("target['lat']", lat, "a latitude between -90 and 90")
    if not -180.0 <= lon <= 180.0:
        raise InputError.bad_value("target['lon']", lon, "a longitude between -180 and 180")
    if area <= 0.0:
        raise InputError.bad_value("target['area_km2']", area, "a drainage area in km2 greater than 0")
    if attributes is None:
        # a gauged target checked as if ungauged may carry its own observed quantity: not an attribute
        names = [k for k, v in target.items() if k not in _RESERVED and k != quantity and v is not None]
    else:
        names = list(attributes)
        missing = [a for a in names if target.get(a) is None]
        if missing:
            raise InputError(f"target has no value for the attribute(s) {missing}: give them or leave them out of attributes.",
                             argument="attributes")
    attrs = {a: _finite_number(target[a], f"target[{a!r}]", "a finite number") for a in names}
    tid = target.get("id")
    return _Target(None if tid is None else str(tid), target.get("name"), lat, lon, area, attrs)


def _parse_candidates(candidates: pd.DataFrame, attributes: Sequence[str], quantity: str | None) -> _Pool:
    if not isinstance(candidates, pd.DataFrame):
        raise InputError.bad_value("candidates", type(candidates).__name__,
                                   "a pandas DataFrame with columns id, lat, lon, area_km2 (name and attributes optional)")
    if len(candidates) == 0:
        raise InsufficientDataError("candidates is empty: there are no gauged catchments to draw donors from.",
                                    argument="candidates", recovery="Give a table of gauged catchments near the target.")
    need = ["id", "lat", "lon", "area_km2", *attributes] + ([quantity] if quantity else [])
    missing = [c for c in need if c not in candidates.columns]
    if missing:
        raise InputError(
            f"candidates lacks the column(s) {missing}; it has {list(candidates.columns)[:20]}. "
            "Rename the gauge id to 'id' and give the drainage area in km2 as 'area_km2' "
            "(USGS drainage_area_sqmi x 2.589988).", argument="candidates")
    ids = candidates["id"].astype(str).to_numpy()
    dup = pd.Index(ids)[pd.Index(ids).duplicated()].unique().tolist()
    if dup:
        raise InputError(f"candidates has duplicated ids {dup[:5]}: each gauge must appear once.", argument="candidates")

    def numeric(col: str) -> np.ndarray:
        try:
            return pd.to_numeric(candidates[col], errors="raise").to_numpy(dtype=float, copy=True)
        except (TypeError, ValueError):
            raise InputError(f"candidates[{col!r}] holds values that are not numbers.", argument="candidates") from None

    lat, lon, area = numeric("lat"), numeric("lon"), numeric("area_km2")
    bad = ids[np.isfinite(lat) & (np.abs(lat) > 90)].tolist() + ids[np.isfinite(lon) & (np.abs(lon) > 180)].tolist()
    if bad:
        raise InputError(f"candidates {bad[:5]} have a latitude or longitude out of range.", argument="candidates")
    bad = ids[np.isfinite(area) & (area <= 0)].tolist()
    if bad:
        raise InputError(f"candidates {bad[:5]} have a drainage area of 0 or less; area_km2 must be > 0 (NaN if unknown).",
                         argument="candidates")
    attrs = {a: numeric(a) for a in attributes}
    scales: dict[str, float] = {}
    for a, x in attrs.items():
        finite = x[np.isfinite(x)]
        sd = float(np.std(finite, ddof=1)) if finite.size >= 2 else float("nan")
        if not (math.isfinite(sd) and sd > 0):
            raise InsufficientDataError(
                f"attribute {a!r} cannot be standardised: it has {finite.size} finite value(s) in candidates and "
                "no spread. Leave it out of attributes.", argument="attributes")
        scales[a] = sd
    q = numeric(quantity) if quantity else None
    if "name" in candidates.columns:
        names = np.array([None if pd.isna(v) else str(v) for v in candidates["name"]], dtype=object)
    else:
        names = np.array([None] * len(ids), dtype=object)
    return _Pool(ids, names, lat, lon, area, attrs, scales, q, quantity)


def _parse_options(max_distance_km: float, area_ratio_range: Sequence[float], n_donors: int, min_donors: int,
                   geographic_weight: float, area_weight: float, attribute_weights: Mapping[str, float] | None,
                   attributes: Sequence[str]) -> _Options:
    d = _finite_number(max_distance_km, "max_distance_km", "a distance in km greater than 0")
    if d <= 0:
        raise InputError.bad_value("max_distance_km", max_distance_km, "a distance in km greater than 0")
    try:
        lo, hi = (float(v) for v in area_ratio_range)
    except (TypeError, ValueError):
        raise InputError.bad_value("area_ratio_range", area_ratio_range, "a pair (low, high) with 0 < low < 1 < high") from None
    if not (0 < lo < 1 < hi and math.isfinite(hi)):
        raise InputError.bad_value("area_ratio_range", area_ratio_range, "a pair (low, high) with 0 < low < 1 < high")
    if isinstance(min_donors, bool) or not isinstance(min_donors, (int, np.integer)) or min_donors < 1:
        raise InputError.bad_value("min_donors", min_donors, "an integer of at least 1")
    if isinstance(n_donors, bool) or not isinstance(n_donors, (int, np.integer)) or n_donors < min_donors:
        raise InputError.bad_value("n_donors", n_donors, f"an integer of at least min_donors={min_donors}")
    weights = dict(attribute_weights or {})
    unknown = [k for k in weights if k not in attributes]
    if unknown:
        raise InputError.bad_value("attribute_weights", unknown, f"weights for the attributes in use, {list(attributes)}")
    for name, w in [("geographic_weight", geographic_weight), ("area_weight", area_weight),
                    *[(f"attribute_weights[{k!r}]", v) for k, v in weights.items()]]:
        if _finite_number(w, name, "a weight of 0 or more") < 0:
            raise InputError.bad_value(name, w, "a weight of 0 or more")
    full = {a: float(weights.get(a, 1.0)) for a in attributes}
    if float(geographic_weight) + float(area_weight) + sum(full.values()) <= 0:
        raise InputError("all distance weights are 0: at least one of geographic_weight, area_weight or an "
                         "attribute weight must be positive.", argument="geographic_weight")
    return _Options(d, (lo, hi), int(n_donors), int(min_donors), float(geographic_weight), float(area_weight), full)


# --------------------------------------------------------------------------- ranking


@dataclass
class _Selection:
    target: _Target
    order: np.ndarray            # indices into the pool of the eligible candidates, most similar first
    donors: np.ndarray           # the first n_donors of order
    km: np.ndarray               # great-circle distance of every pool row
    sim: np.ndarray              # similarity distance of every pool row (nan where not computed)
    excluded: dict[str, int]
    ok: bool
    reason: str | None


def _rank(target: _Target, pool: _Pool, opts: _Options, *, exclude: int | None = None) -> _Selection:
    n = pool.ids.size
    keep = np.ones(n, dtype=bool)
    excluded: dict[str, int] = {}

    def drop(mask: np.ndarray, why: str) -> None:
        hit = keep & mask
        excluded[why] = int(hit.sum())
        keep[hit] = False

    is_self = np.zeros(n, dtype=bool)
    if target.id is not None:
        is_self |= pool.ids == target.id
    if exclude is not None:
        is_self[exclude] = True
    drop(is_self, "target_itself")
    drop(~(np.isfinite(pool.lat) & np.isfinite(pool.lon) & np.isfinite(pool.area)), "missing_location_or_area")
    km = _great_circle_km(target.lat, target.lon, pool.lat, pool.lon)
    drop(~(km <= opts.max_distance_km), "beyond_max_distance")
    ratio = pool.area / target.area_km2
    lo, hi = opts.area_ratio_range
    drop(~((ratio >= lo) & (ratio <= hi)), "outside_area_ratio_range")
    if pool.attrs:
        drop(~np.all([np.isfinite(x) for x in pool.attrs.values()], axis=0), "missing_attribute")
    if pool.quantity is not None:
        drop(~np.isfinite(pool.quantity), "missing_quantity")
        drop(~(pool.quantity > 0), "non_positive_quantity")

    sim = np.full(n, np.nan)
    idx = np.flatnonzero(keep)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = ratio[idx]
        edge = np.where(r >= 1.0, math.log(hi), -math.log(lo))
        terms = opts.geographic_weight * (km[idx] / opts.max_distance_km) ** 2
        terms = terms + opts.area_weight * (np.log(r) / edge) ** 2
        for a, x in pool.attrs.items():
            terms = terms + opts.attribute_weights[a] * ((x[idx] - target.attrs[a]) / pool.scales[a]) ** 2
    total_w = opts.geographic_weight + opts.area_weight + sum(opts.attribute_weights.values())
    sim[idx] = np.sqrt(terms / total_w)
    order = idx[np.lexsort((km[idx], sim[idx]))]  # ties broken by geographic distance
    donors = order[: opts.n_donors]
    ok = order.size >= opts.min_donors
    reason = None
    if not ok:
        why = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in excluded.items() if v)
        reason = (f"{order.size} eligible donor(s) within {opts.max_distance_km:g} km and {lo:g}-{hi:g}x the target's "
                  f"area; at least min_donors={opts.min_donors} are needed (excluded: {why or 'none'})")
    return _Selection(target, order, donors, km, sim, excluded, ok, reason)


def _donor_rows(sel: _Selection, pool: _Pool, scaled: np.ndarray | None = None) -> list[dict[str, Any]]:
    rows = []
    for rank, i in enumerate(sel.donors, start=1):
        row = {
            "rank": rank,
            "id": pool.ids[i],
            "name": pool.names[i],
            "lat": float(pool.lat[i]),
            "lon": float(pool.lon[i]),
            "area_km2": float(pool.area[i]),
            "area_ratio": float(pool.area[i] / sel.target.area_km2),
            "distance_km": float(sel.km[i]),
            "similarity_distance": float(sel.sim[i]),
        }
        for a, x in pool.attrs.items():
            row[a] = float(x[i])
        if pool.quantity is not None:
            row["value"] = float(pool.quantity[i])
        if scaled is not None:
            row["scaled_value"] = float(scaled[rank - 1])
        rows.append(row)
    return rows


def _distance_definition(opts: _Options) -> dict[str, Any]:
    lo, hi = opts.area_ratio_range
    return {
        "formula": "D = sqrt([w_geo (d/d_max)^2 + w_area (ln(A_i/A_t)/ln r)^2 + sum_k w_k ((x_ik - x_tk)/s_k)^2] / sum w)",
        "great_circle": f"haversine on a sphere of radius {EARTH_RADIUS_KM} km",
        "d_max_km": opts.max_distance_km,
        "area_window": [lo, hi],
        "r": f"{hi:g} for larger candidates, {1 / lo:g} for smaller ones",
        "s_k": "standard deviation of attribute k over the candidate table",
        "weights": {"geographic": opts.geographic_weight, "area": opts.area_weight, **opts.attribute_weights},
    }


# --------------------------------------------------------------------------- estimation


@dataclass
class _Estimate:
    sel: _Selection
    ok: bool
    reason: str | None
    estimate: float | None = None
    scaled: np.ndarray | None = None
    band: tuple[float, float] | None = None
    log_sd: float | None = None
    exponent: float | None = None
    exponent_info: dict[str, Any] | None = None


def _fit_exponent(sel: _Selection, pool: _Pool, *, min_fit_donors: int, max_se: float,
                  plausible: tuple[float, float], default: float) -> tuple[float, dict[str, Any]]:
    """b of ln Q = ln c + b ln A by least squares on every eligible donor; the default when it cannot be defended."""
    idx = sel.order
    info: dict[str, Any] = {"n_fit": int(idx.size), "fitted": None, "standard_error": None, "r_squared": None,
                            "area_span": None, "min_fit_donors": min_fit_donors, "max_standard_error": max_se,
                            "plausible_range": list(plausible)}
    if idx.size < min_fit_donors:
        info.update(source="default", reason=f"{idx.size} eligible donors; at least {min_fit_donors} are needed to fit b")
        return default, info
    x, y = np.log(pool.area[idx]), np.log(pool.quantity[idx])
    info["area_span"] = float(np.exp(x.max() - x.min()))
    sxx = float(np.sum((x - x.mean()) ** 2))
    if sxx <= 0:
        info.update(source="default", reason="the eligible donors all have the same area")
        return default, info
    b = float(np.sum((x - x.mean()) * (y - y.mean())) / sxx)
    resid = y - y.mean() - b * (x - x.mean())
    s2 = float(np.sum(resid**2) / (idx.size - 2))
    se = math.sqrt(s2 / sxx)
    syy = float(np.sum((y - y.mean()) ** 2))
    info.update(fitted=b, standard_error=se, r_squared=(1.0 - float(np.sum(resid**2)) / syy) if syy > 0 else None)
    if se > max_se:
        info.update(source="default", reason=f"fitted b={b:.3f} has a standard error {se:.3f} above {max_se:g}")
        return default, info
    if not plausible[0] <= b <= plausible[1]:
        info.update(source="default", reason=f"fitted b={b:.3f} lies outside the plausible range {plausible[0]:g}-{plausible[1]:g}")
        return default, info
    info.update(source="fitted", reason=f"fitted on {idx.size} eligible donors")
    return b, info


def _estimate(target: _Target, pool: _Pool, opts: _Options, *, mode: Literal["area", "none", "power"],
              exponent: float | None = None, fit: dict[str, Any] | None = None, exclude: int | None = None) -> _Estimate:
    sel = _rank(target, pool, opts, exclude=exclude)
    if not sel.ok:
        return _Estimate(sel, False, sel.reason)
    q, a = pool.quantity[sel.donors], pool.area[sel.donors]
    b, info = 1.0, None
    if mode == "none":
        b = 0.0
    elif mode == "power":
        if exponent is not None:
            b, info = exponent, {"source": "given", "reason": "exponent given by the caller"}
        else:
            b, info = _fit_exponent(sel, pool, **(fit or {}))
    scaled = q * (target.area_km2 / a) ** b
    logs = np.log(scaled)
    est = float(np.exp(logs.mean()))
    lo, hi = np.quantile(scaled, _BAND_QUANTILES)
    log_sd = float(np.std(logs, ddof=1)) if logs.size >= 2 else None
    return _Estimate(sel, True, None, est, scaled, (float(lo), float(hi)), log_sd, b, info)


def _loo_skill(pool: _Pool, opts: _Options, donors: np.ndarray, **kw: Any) -> dict[str, Any]:
    """Each donor treated as ungauged in turn, estimated from the rest of the table."""
    per: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    for i in donors:
        est = _estimate(pool.row_as_target(i), pool, opts, exclude=int(i), **kw)
        if not est.ok:
            skipped.append({"id": pool.ids[i], "reason": est.reason})
            continue
        obs = float(pool.quantity[i])
        per.append({"id": pool.ids[i], "observed": obs, "estimated": est.estimate, "ratio": est.estimate / obs,
                    "n_donors": int(est.sel.donors.size)})
    out: dict[str, Any] = {"n": len(per), "per_donor": per, "skipped": skipped,
                           "median_abs_log_error": None, "median_factor_error": None, "fraction_within_factor_2": None}
    if len(per) < 3:
        out["reason"] = (f"{len(per)} donor(s) could be estimated from the others; skill needs at least 3 "
                         "(the estimate stands, its skill is unknown)")
        return out
    err = np.abs(np.log([p["ratio"] for p in per]))
    mal = float(np.median(err))
    out.update(median_abs_log_error=mal, median_factor_error=math.exp(mal),
               fraction_within_factor_2=float(np.mean(err <= _LN2 + 1e-12)))
    return out


def _selection_params(target: Mapping[str, Any], candidates: pd.DataFrame, attributes: Sequence[str] | None,
                      quantity: str | None, opts_args: dict[str, Any]) -> tuple[_Target, _Pool, _Options]:
    tgt = _parse_target(target, attributes, quantity)
    names = list(tgt.attrs)
    if quantity is not None and quantity in names:
        raise InputError.bad_value("attributes", names, f"similarity attributes, not the transferred quantity {quantity!r}")
    pool = _parse_candidates(candidates, names, quantity)
    opts = _parse_options(attributes=names, **opts_args)
    return tgt, pool, opts


# --------------------------------------------------------------------------- public


def select_donors(
    target: Mapping[str, Any],
    candidates: pd.DataFrame,
    *,
    attributes: Sequence[str] | None = None,
    max_distance_km: float = DEFAULT_MAX_DISTANCE_KM,
    area_ratio_range: tuple[float, float] = DEFAULT_AREA_RATIO_RANGE,
    n_donors: int = 5,
    min_donors: int = 3,
    geographic_weight: float = 1.0,
    area_weight: float = 1.0,
    attribute_weights: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """Rank gauged candidates by similarity to a target catchment and pick the donors.

    Parameters
    ----------
    target : mapping with ``lat``, ``lon`` (decimal degrees), ``area_km2`` and optionally ``id``,
        ``name`` and climate attributes (``mean_annual_precip_mm``, ``aridity``, ...).
    candidates : DataFrame with ``id``, ``lat``, ``lon``, ``area_km2``, optionally ``name`` and the
        same attribute columns. Rows with a missing location, area or attribute are excluded and
        counted, never filled.
    attributes : the attributes to compare; by default every non-reserved key of ``target``.
    max_distance_km, area_ratio_range : the eligibility window (default 250 km, 0.2-5x the area).
    n_donors : donors kept (the most similar). ``min_donors`` : fewer eligible means refusal.
    geographic_weight, area_weight, attribute_weights : the weights of the similarity distance
        (1 each by default; see the module Notes).

    Returns
    -------
    dict with ``method``, ``ok``, ``reason`` (when refused), ``target``, ``donors`` (rank, id, name,
    distance_km, area_ratio, similarity_distance, attributes), ``n_eligible``, ``excluded`` (counts
    by cause) and ``distance_definition``.
    """
    params = resolved_parameters(select_donors, (target, candidates), dict(
        attributes=attributes, max_distance_km=max_distance_km, area_ratio_range=area_ratio_range, n_donors=n_donors,
        min_donors=min_donors, geographic_weight=geographic_weight, area_weight=area_weight,
        attribute_weights=attribute_weights))
    tgt, pool, opts = _selection_params(target, candidates, attributes, None, dict(
        max_distance_km=max_distance_km, area_ratio_range=area_ratio_range, n_donors=n_donors, min_donors=min_donors,
        geographic_weight=geographic_weight, area_weight=area_weight, attribute_weights=attribute_weights))
    sel = _rank(tgt, pool, opts)
    payload = {
        "method": "select_donors",
        "ok": sel.ok,
        "reason": sel.reason,
        "target": tgt.to_dict(),
        "donors": _donor_rows(sel, pool),
        "n_donors": int(sel.donors.size),
        "n_eligible": int(sel.order.size),
        "n_candidates": int(pool.ids.size),
        "excluded": sel.excluded,
        "distance_definition": _distance_definition(opts),
        "unit": {"distance_km": "km", "area_km2": "km2", "similarity_distance": "dimensionless"},
    }
    log.debug("select_donors: %d eligible of %d, ok=%s", sel.order.size, pool.ids.size, sel.ok)
    return finish(payload, "select_donors", params, [source("donor selection by similarity", citation=_CITATION)])


def _transfer_payload(method: str, est: _Estimate, pool: _Pool, opts: _Options, unit: str,
                      skill: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "method": method,
        "ok": est.ok,
        "reason": est.reason,
        "quantity": pool.quantity_name,
        "estimate": est.estimate,
        "unit": unit,
        "band": None if est.band is None else {
            "low": est.band[0], "high": est.band[1], "quantiles": list(_BAND_QUANTILES),
            "basis": "empirical quantiles (linear interpolation) of the scaled donor values"},
        "log_sd": est.log_sd,
        "combination": "geometric mean of the scaled donor values, equal weights",
        "target": est.sel.target.to_dict(),
        "donors": _donor_rows(est.sel, pool, est.scaled),
        "n_donors": int(est.sel.donors.size),
        "n_eligible": int(est.sel.order.size),
        "excluded": est.sel.excluded,
        "distance_definition": _distance_definition(opts),
        "skill": skill,
    }


def transfer_signature(
    target: Mapping[str, Any],
    candidates: pd.DataFrame,
    quantity: str,
    *,
    scaling: Literal["per_unit_area", "none"],
    unit: str,
    attributes: Sequence[str] | None = None,
    max_distance_km: float = DEFAULT_MAX_DISTANCE_KM,
    area_ratio_range: tuple[float, float] = DEFAULT_AREA_RATIO_RANGE,
    n_donors: int = 5,
    min_donors: int = 3,
    geographic_weight: float = 1.0,
    area_weight: float = 1.0,
    attribute_weights: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """Transfer a flow signature from donor catchments to the target.

    ``scaling="per_unit_area"`` for volumes and rates (mean flow, Q95 in m3/s: the donor's value per
    km2 times the target's area); ``"none"`` for dimensionless signatures (BFI, runoff ratio) and
    values already per unit area (mm/yr). Donor values must be positive (the combination is a
    geometric mean); candidates with a missing or non-positive value are excluded and counted.

    Returns
    -------
    dict with ``estimate`` and ``unit``, ``estimate_per_km2`` (per-unit-area scaling), ``band``
    (10-90 % of the scaled donor values), ``log_sd``, ``donors`` (with ``value`` and
    ``scaled_value``), ``skill`` (leave-one-out over the donors: ``median_abs_log_error``,
    ``median_factor_error``, ``fraction_within_factor_2``, ``per_donor``), ``excluded`` and
    ``distance_definition``. Refused (``ok: False``, ``estimate: None``) with fewer than
    ``min_donors`` eligible donors.
    """
    params = resolved_parameters(transfer_signature, (target, candidates, quantity), dict(
        scaling=scaling, unit=unit, attributes=attributes, max_distance_km=max_distance_km,
        area_ratio_range=area_ratio_range, n_donors=n_donors, min_donors=min_donors,
        geographic_weight=geographic_weight, area_weight=area_weight, attribute_weights=attribute_weights))
    if scaling not in ("per_unit_area", "none"):
        raise InputError.bad_value("scaling", scaling, "'per_unit_area' (volumes and rates) or 'none' (dimensionless)")
    if not isinstance(quantity, str) or quantity in _RESERVED:
        raise InputError.bad_value("quantity", quantity, "the name of the candidates' column holding the signature")
    tgt, pool, opts = _selection_params(target, candidates, attributes, quantity, dict(
        max_distance_km=max_distance_km, area_ratio_range=area_ratio_range, n_donors=n_donors, min_donors=min_donors,
        geographic_weight=geographic_weight, area_weight=area_weight, attribute_weights=attribute_weights))
    mode = "area" if scaling == "per_unit_area" else "none"
    est = _estimate(tgt, pool, opts, mode=mode)
    skill = _loo_skill(pool, opts, est.sel.donors, mode=mode) if est.ok else None
    payload = _transfer_payload("transfer_signature", est, pool, opts, unit, skill)
    payload["scaling"] = ("donor value x A_target / A_donor" if mode == "area" else "none (donor values transferred as they are)")
    if mode == "area" and est.ok:
        payload["estimate_per_km2"] = est.estimate / tgt.area_km2
        payload["unit_per_km2"] = f"{unit}/km2"
    return finish(payload, "transfer_signature", params,
                  [source("signature transfer from donor catchments", citation=_CITATION)])


def regional_index_flood(
    target: Mapping[str, Any],
    candidates: pd.DataFrame,
    quantity: str = "mean_annual_flood",
    *,
    unit: str = "m3/s",
    exponent: float | None = None,
    default_exponent: float = DEFAULT_INDEX_FLOOD_EXPONENT,
    min_fit_donors: int = 8,
    max_exponent_se: float = 0.2,
    plausible_exponent: tuple[float, float] = (0.2, 1.2),
    attributes: Sequence[str] | None = None,
    max_distance_km: float = DEFAULT_MAX_DISTANCE_KM,
    area_ratio_range: tuple[float, float] = DEFAULT_AREA_RATIO_RANGE,
    n_donors: int = 5,
    min_donors: int = 3,
    geographic_weight: float = 1.0,
    area_weight: float = 1.0,
    attribute_weights: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """The mean annual flood (index flood) of an ungauged target from donors, scaled by area.

    Each donor's flood is scaled as ``Q_i (A_t / A_i)^b`` and the scaled values are combined by
    their geometric mean. ``b`` is, in order: ``exponent`` when given; fitted by least squares of
    ln Q on ln A over every eligible donor (not only the ``n_donors`` kept) when there are at least
    ``min_fit_donors`` of them, its standard error is at most ``max_exponent_se`` and it lies in
    ``plausible_exponent``; otherwise ``default_exponent`` (0.851, the AREA exponent of the FEH
    QMED equation, Kjeldsen et al. 2008). ``exponent_info`` says which and why.

    Returns
    -------
    dict as :func:`transfer_signature` plus ``exponent`` and ``exponent_info`` (source, fitted b,
    its standard error, r2, n). The leave-one-out skill refits b without the donor left out.
    """
    params = resolved_parameters(regional_index_flood, (target, candidates, quantity), dict(
        unit=unit, exponent=exponent, default_exponent=default_exponent, min_fit_donors=min_fit_donors,
        max_exponent_se=max_exponent_se, plausible_exponent=plausible_exponent, attributes=attributes,
        max_distance_km=max_distance_km, area_ratio_range=area_ratio_range, n_donors=n_donors, min_donors=min_donors,
        geographic_weight=geographic_weight, area_weight=area_weight, attribute_weights=attribute_weights))
    if exponent is not None:
        exponent = _finite_number(exponent, "exponent", "an area exponent b, typically 0.5-0.9")
    default_exponent = _finite_number(default_exponent, "default_exponent", "an area exponent b, typically 0.5-0.9")
    if isinstance(min_fit_donors, bool) or not isinstance(min_fit_donors, (int, np.integer)) or min_fit_donors < 3:
        raise InputError.bad_value("min_fit_donors", min_fit_donors, "an integer of at least 3")
    if _finite_number(max_exponent_se, "max_exponent_se", "a standard error greater than 0") <= 0:
        raise InputError.bad_value("max_exponent_se", max_exponent_se, "a standard error greater than 0")
    p_lo, p_hi = (float(v) for v in plausible_exponent)
    if not p_lo < p_hi:
        raise InputError.bad_value("plausible_exponent", plausible_exponent, "a pair (low, high) with low < high")
    tgt, pool, opts = _selection_params(target, candidates, attributes, quantity, dict(
        max_distance_km=max_distance_km, area_ratio_range=area_ratio_range, n_donors=n_donors, min_donors=min_donors,
        geographic_weight=geographic_weight, area_weight=area_weight, attribute_weights=attribute_weights))
    fit = dict(min_fit_donors=int(min_fit_donors), max_se=float(max_exponent_se), plausible=(p_lo, p_hi),
               default=default_exponent)
    est = _estimate(tgt, pool, opts, mode="power", exponent=exponent, fit=fit)
    skill = _loo_skill(pool, opts, est.sel.donors, mode="power", exponent=exponent, fit=fit) if est.ok else None
    payload = _transfer_payload("regional_index_flood", est, pool, opts, unit, skill)
    payload["exponent"] = est.exponent
    payload["exponent_info"] = est.exponent_info
    payload["scaling"] = "Q_i (A_target / A_i)^b"
    return finish(payload, "regional_index_flood", params,
                  [source("index flood transferred from donor catchments", citation=_FLOOD_CITATION)])
