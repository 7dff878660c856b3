"""Key numbers per tool, each with the path it sits at in the step's payload."""

from __future__ import annotations

from typing import Any, Callable, Mapping

from aquascope_core.paths import PathError, get_path

__all__ = ["harvest", "key_numbers", "HARVESTERS", "LABELS"]

LABELS = {"gev_lmoments": "GEV (L-moments)", "lp3_moments": "log-Pearson III (moments of log10)",
          "gumbel_lmoments": "Gumbel (L-moments)", "glo_lmoments": "generalized logistic (L-moments)",
          "pe3_lmoments": "Pearson III (L-moments)", "gev_mle": "GEV (maximum likelihood)",
          "lp3_ema": "log-Pearson III (Bulletin 17C EMA)"}


def _kn(step: str, path: str, payload: Mapping[str, Any], label: str, unit: str | None, **extra: Any) -> dict[str, Any] | None:
    try:
        value = get_path(payload, path)
    except PathError:
        return None
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    row = {"id": f"{step}:{path}", "step": step, "path": f"{step}.{path}", "label": label, "value": value, "unit": unit}
    row.update(extra)
    return row


def _band(payload: Mapping[str, Any], lower: str, upper: str, step: str, confidence: Any) -> dict[str, Any] | None:
    try:
        lo, hi = get_path(payload, lower), get_path(payload, upper)
    except PathError:
        return None
    if lo is None or hi is None:
        return None
    return {"lower": lo, "upper": hi, "lower_path": f"{step}.{lower}", "upper_path": f"{step}.{upper}",
            "confidence": confidence}


def _flood_frequency(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    rps = list(p.get("return_periods") or [])
    unit = p.get("unit")
    target = ctx.get("return_period")
    rows = []
    for fid, fit in (p.get("fits") or {}).items():
        if not fit.get("ok"):
            continue
        for i, T in enumerate(rps):
            band = _band(p, f"fits.{fid}.ci.lower[{i}]", f"fits.{fid}.ci.upper[{i}]", step,
                         (fit.get("ci") or {}).get("confidence"))
            kn = _kn(step, f"fits.{fid}.return_levels[{i}]", p, f"{T:g}-year flood, {LABELS.get(fid, fid)}", unit,
                     return_period=T, method=fid, band=band, headline=(target is not None and float(T) == float(target)))
            if kn:
                rows.append(kn)
    return rows


def _annual_maxima(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = [_kn(step, "n_years", p, "water years of annual maxima", "years")]
    vals = p.get("values") or []
    if vals:
        i = max(range(len(vals)), key=lambda k: vals[k])
        year = (p.get("water_years") or [None] * len(vals))[i]
        rows.append(_kn(step, f"values[{i}]", p, f"largest annual maximum (water year {year})", p.get("unit")))
    return [r for r in rows if r]


def _station_record(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [r for r in (_kn(step, "years", p, "length of record", "years"),
                        _kn(step, "n_values", p, f"{p.get('resolution', '')} values in the record".strip(), None),
                        _kn(step, "statistics.mean", p, f"mean {p.get('variable', '')}".strip(), p.get("unit"))) if r]


def _trend_test(step: str, p: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    tr = p.get("trend") or {}
    rows = [_kn(step, "trend.p_value", p, "Mann-Kendall p-value", None),
            _kn(step, "trend.sen_slope", p, "Sen's slope", tr.get("slope_unit"))]
    return [r for r in rows if r]


HARVESTERS: dict[str, Callable[[str, Mapping[str, Any], Mapping[str, Any]], list[dict[str, Any]]]] = {
    "flood_frequency": _flood_frequency,
    "annual_maxima": _annual_maxima,
    "station_record": _station_record,
    "trend_test": _trend_test,
}


def harvest(step_id: str, tool: str, payload: Mapping[str, Any], context: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    fn = HARVESTERS.get(tool)
    return fn(step_id, payload, context or {}) if fn and payload else []


def key_numbers(run: Mapping[str, Any], context: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The key numbers of every established step of a run, in step order."""
    out: list[dict[str, Any]] = []
    for sid, res in (run.get("results") or {}).items():
        if res.get("status") == "ok":
            out.extend(harvest(sid, res.get("tool"), res.get("payload") or {}, context))
    return out
