"""Gates: the checks a step's payload must pass before its numbers may be quoted.

A gate is a dict: ``{"check": <name>, "path": ..., "value": ...}`` plus what the check needs
(``paths``, ``return_period``, ``reference``). :func:`evaluate` returns one row per gate, all of
the same shape::

    {"check", "passed", "seen", "threshold", "path", "detail"}

``seen`` is the value the gate read, ``threshold`` what it compared it with, ``detail`` one
sentence a report can print. A gate whose path is missing or whose definition is malformed does
not pass: a check that cannot see its value cannot vouch for it.

Return-period lookups: ``ci_finite`` and ``spread_within`` accept ``return_period`` and look its
index up in the payload's own ``return_periods`` list (a path may name its own with
``return_periods_path``).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Sequence

from aquascope_core.paths import PathError, get_path
from aquascope_core.verify import versus_text

__all__ = ["CHECKS", "CHECK_SPECS", "evaluate", "evaluate_one", "validate_gate", "GateDefinitionError"]


class GateDefinitionError(ValueError):
    """A gate whose definition is malformed (unknown check, missing or wrong-typed field)."""


def _num(x: Any, what: str) -> float:
    if isinstance(x, bool) or x is None:
        raise GateDefinitionError(f"{what} must be a number, got {x!r}")
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise GateDefinitionError(f"{what} must be a number, got {x!r}") from None
    return v


def _seen_num(x: Any, path: str) -> float:
    """A number read from a payload: non-numbers fail the gate (not the definition)."""
    if isinstance(x, bool) or x is None:
        raise _Unseen(f"{path} holds {x!r}, not a number")
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise _Unseen(f"{path} holds {x!r}, not a number") from None
    return v


class _Unseen(Exception):
    """The payload does not hold what the gate needs (missing path, a non-number)."""


def _get(payload: Any, path: str) -> Any:
    try:
        return get_path(payload, path)
    except PathError as exc:
        raise _Unseen(str(exc)) from None


def _rp_index(payload: Any, gate: Mapping[str, Any], path: str) -> int | None:
    """The index of gate['return_period'] in the payload's return_periods (None when the gate names none)."""
    if gate.get("return_period") is None:
        return None
    T = _num(gate["return_period"], "return_period")
    rp_path = gate.get("return_periods_path") or "return_periods"
    try:
        rps = get_path(payload, rp_path)
    except PathError:
        raise _Unseen(f"return_period {T:g} given but the payload has no {rp_path!r} list to look it up in") from None
    for i, t in enumerate(rps or []):
        if t is not None and abs(float(t) - T) < 1e-9:
            return i
    raise _Unseen(f"return period {T:g} is not among the payload's return_periods {list(rps)}")


def _at_rp(value: Any, idx: int | None, path: str) -> Any:
    if idx is None:
        return value
    if not isinstance(value, (list, tuple)):
        raise _Unseen(f"{path} is not a list aligned with return_periods")
    if idx >= len(value):
        raise _Unseen(f"{path} has {len(value)} values; return period index {idx} is beyond it")
    return value[idx]


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _fmt(x: Any) -> str:
    """A value in a gate's sentence at the report's precision (three significant figures), written out."""
    if isinstance(x, float):
        return versus_text(x, None)
    return str(x)


def _given(x: Any) -> str:
    """A threshold as the gate states it (0.5, 10), not padded to three figures."""
    return f"{x:g}" if isinstance(x, float) else str(x)


# Each check returns (passed, seen, threshold, detail). Raise _Unseen when the payload lacks the value,
# GateDefinitionError when the gate itself is malformed.

def _min_years(p: Any, g: Mapping[str, Any]) -> tuple:
    path = g.get("path", "n_years")
    need = _num(g.get("value"), "value (the minimum number of years)")
    seen = _seen_num(_get(p, path), path)
    # a count of years (n_years: the annual values, the calendar years a test compared) is said as a count; a length
    # of record in years as a length
    what = "years with values" if path.split(".")[-1] == "n_years" else "years of record"
    return seen >= need, seen, need, f"{versus_text(seen, need)} {what} against at least {_given(need)} required"


def _max_rp_factor(p: Any, g: Mapping[str, Any]) -> tuple:
    path = g.get("path", "n_years")
    factor = _num(g.get("value"), "value (the factor)")
    T = _num(g.get("return_period"), "return_period")
    years = _seen_num(_get(p, path), path)
    cap = factor * years
    return T <= cap, T, cap, f"return period {_given(T)} years against {_given(factor)} x {_fmt(years)} years of record = {versus_text(cap, T)}"


def _ci_finite(p: Any, g: Mapping[str, Any]) -> tuple:
    path = _need_path(g)
    ci = _get(p, path)
    idx = _rp_index(p, g, path)
    if isinstance(ci, Mapping):
        if "lower" not in ci or "upper" not in ci:
            raise _Unseen(f"{path} has no lower/upper")
        lo, hi = _at_rp(ci["lower"], idx, f"{path}.lower"), _at_rp(ci["upper"], idx, f"{path}.upper")
    elif isinstance(ci, (list, tuple)) and idx is None and len(ci) == 2:
        lo, hi = ci
    else:
        raise _Unseen(f"{path} is neither {{lower, upper}} nor a [lower, upper] pair")
    ok = _finite(lo) and _finite(hi) and lo <= hi
    where = f" at {_fmt(g['return_period'])} years" if idx is not None else ""
    return ok, [lo, hi], "finite, lower <= upper", f"interval{where} [{_fmt(lo)}, {_fmt(hi)}]" + ("" if ok else ": not finite or inverted")


def _spread_within(p: Any, g: Mapping[str, Any]) -> tuple:
    paths = g.get("paths")
    if not isinstance(paths, (list, tuple)) or len(paths) < 2:
        raise GateDefinitionError("spread_within needs paths: a list of at least two paths")
    limit = _num(g.get("value"), "value (the largest relative spread)")
    vals = []
    for path in paths:
        v = _at_rp(_get(p, path), _rp_index(p, g, path), path)
        vals.append(_seen_num(v, path))
    mean = sum(vals) / len(vals)
    if mean == 0:
        raise _Unseen("the values average zero; a relative spread is undefined")
    spread = (max(vals) - min(vals)) / abs(mean)
    where = f" at {_fmt(g['return_period'])} years" if g.get("return_period") is not None else ""
    return spread <= limit, spread, limit, (
        f"spread (max - min) / mean{where} = {spread:.1%} of {', '.join(_fmt(v) for v in vals)} against at most {limit:.0%}")


def _threshold_min(name: str, default_path: str) -> Callable:
    def check(p: Any, g: Mapping[str, Any]) -> tuple:
        path = g.get("path", default_path)
        need = _num(g.get("value"), f"value (the minimum {name})")
        seen = _seen_num(_get(p, path), path)
        return seen >= need, seen, need, f"{name} {versus_text(seen, need)} against at least {_given(need)}"
    return check


def _not_empty(p: Any, g: Mapping[str, Any]) -> tuple:
    path = _need_path(g)
    v = _get(p, path)
    if v is None:
        ok, n = False, 0
    elif isinstance(v, (str, list, tuple, dict)):
        n = len(v)
        ok = n > 0
    elif isinstance(v, float):
        ok, n = math.isfinite(v), 1
    else:
        ok, n = True, 1
    return ok, n, "at least one value", f"{path} holds {n} value(s)" if ok else f"{path} is empty"


def _fit_envelopes_max(p: Any, g: Mapping[str, Any]) -> tuple:
    """The observed record maximum against the fit: the chance, under the fit, that the largest of n
    annual values reaches the observed maximum, 1 - (1 - 1/T)^n, must lie inside [a/2, 1 - a/2]
    (a = ``value``, default 0.05). Too small: the fit's tail is too light for the record; too
    large: too heavy."""
    path = _need_path(g)
    alpha = _num(g.get("value", 0.05), "value (the two-sided level)")
    if not 0 < alpha < 1:
        raise GateDefinitionError(f"value must lie in (0, 1), got {alpha}")
    T = _seen_num(_get(p, path), path)
    n_path = g.get("n_path", "n")
    n = _seen_num(_get(p, n_path), n_path)
    if T <= 1:
        return False, T, [alpha / 2, 1 - alpha / 2], f"the record maximum's return period under the fit is {T:.3g}"
    prob = 1.0 - (1.0 - 1.0 / T) ** n
    ok = alpha / 2 <= prob <= 1 - alpha / 2
    return ok, {"return_period": T, "probability": prob}, [alpha / 2, 1 - alpha / 2], (
        f"record maximum at {T:.3g} years under the fit: a {prob:.1%} chance that {n:.0f} years reach it "
        f"(plausible between {alpha / 2:.1%} and {1 - alpha / 2:.1%})")


_PER_YEAR = {"daily": 365.25, "monthly": 12.0, "hourly": 8766.0, "annual": 1.0, "weekly": 52.18}


def _sampling_density(p: Any, g: Mapping[str, Any]) -> tuple:
    base = g.get("path", "")
    need = _num(g.get("value", 0.9), "value (the smallest fraction of the expected count)")
    obj = _get(p, base) if base else p
    if not isinstance(obj, Mapping):
        raise _Unseen(f"{base or 'the payload'} is not a mapping with n_values, years and resolution")
    n = _seen_num(obj.get("n_values"), f"{base}.n_values")
    years = _seen_num(obj.get("years"), f"{base}.years")
    res = obj.get("resolution")
    if res not in _PER_YEAR:
        raise _Unseen(f"resolution {res!r} is not one of {', '.join(_PER_YEAR)}")
    if years <= 0:
        raise _Unseen("a span of zero years")
    frac = n / (years * _PER_YEAR[res])
    return frac >= need, frac, need, f"{n:.0f} {res} values over {years:.3g} years = {frac:.1%} of the expected count (at least {need:.0%})"


def _trend_on_series(p: Any, g: Mapping[str, Any]) -> tuple:
    """Passes when the named series shows no significant monotonic trend (the stationarity a fit assumes)."""
    path = g.get("path", "trend")
    alpha = _num(g.get("value", 0.05), "value (the significance level)")
    tr = _get(p, path)
    if not isinstance(tr, Mapping) or "p_value" not in tr:
        raise _Unseen(f"{path} is not a Mann-Kendall result with a p_value")
    pv = _seen_num(tr.get("p_value"), f"{path}.p_value")
    ok = pv >= alpha
    direction = tr.get("trend", "a trend")
    slope = tr.get("sen_slope")
    from aquascope_core.tools.context import summary_number  # the slope as the step's table and summary print it

    extra = f", Sen's slope {summary_number(slope)} {tr.get('slope_unit') or ''}".rstrip() if isinstance(slope, (int, float)) else ""
    # "significant" only with the test named and its p below alpha
    return ok, pv, alpha, (f"Mann-Kendall p = {pv:.3g}{extra}: " + (f"no trend at the {alpha:g} level (p not below it)"
                                                                    if ok else f"{direction} significant at the "
                                                                    f"{alpha:g} level (p below it)"))


def _cross_check_ratio(p: Any, g: Mapping[str, Any]) -> tuple:
    path = _need_path(g)
    limit = _num(g.get("value", 2.0), "value (the largest ratio either way)")
    if limit < 1:
        raise GateDefinitionError(f"value is a ratio of at least 1, got {limit}")
    ref = g.get("reference")
    if isinstance(ref, str):
        if "{{" in ref:
            raise _Unseen(f"reference {ref!r} was not resolved (the referenced step did not succeed)")
        ref = _get(p, ref)
    ref = _seen_num(ref, "reference")
    v = _seen_num(_get(p, path), path)
    if ref == 0:
        raise _Unseen("the reference is zero; a ratio is undefined")
    ratio = v / ref
    ok = 1 / limit <= ratio <= limit
    return ok, ratio, [1 / limit, limit], f"{_fmt(v)} against the reference {_fmt(ref)}: ratio {ratio:.3g} (allowed {1 / limit:.3g} to {limit:.3g})"


def _unit_present(p: Any, g: Mapping[str, Any]) -> tuple:
    path = g.get("path", "unit")
    v = _get(p, path)
    ok = isinstance(v, str) and v.strip() != ""
    return ok, v, "a unit string", f"unit {v!r}" if ok else f"{path} holds no unit"


def _max_area(p: Any, g: Mapping[str, Any]) -> tuple:
    path = g.get("path", "area_km2")
    cap = _num(g.get("value"), "value (the largest area in km2)")
    seen = _seen_num(_get(p, path), path)
    return seen <= cap, seen, cap, f"catchment area {seen:,.0f} km2 against at most {cap:,.0f} km2"


def _status_is(p: Any, g: Mapping[str, Any]) -> tuple:
    path = _need_path(g)
    want = g.get("value")
    if want is None:
        raise GateDefinitionError("status_is needs value: a status or a list of statuses")
    allowed = list(want) if isinstance(want, (list, tuple)) else [want]
    seen = _get(p, path)
    return seen in allowed, seen, allowed, f"status {seen!r} (accepted: {', '.join(map(str, allowed))})"


def _need_path(g: Mapping[str, Any]) -> str:
    path = g.get("path")
    if not isinstance(path, str) or not path:
        raise GateDefinitionError(f"{g.get('check')} needs a path")
    return path


CHECKS: dict[str, Callable[[Any, Mapping[str, Any]], tuple]] = {
    "min_years": _min_years,
    "max_return_period_factor": _max_rp_factor,
    "ci_finite": _ci_finite,
    "spread_within": _spread_within,
    "nse_min": _threshold_min("NSE", "validation.nse"),
    "kge_min": _threshold_min("KGE", "validation.kge"),
    "not_empty": _not_empty,
    "fit_envelopes_max": _fit_envelopes_max,
    "sampling_density": _sampling_density,
    "trend_on_series": _trend_on_series,
    "cross_check_ratio": _cross_check_ratio,
    "unit_present": _unit_present,
    "max_area_km2": _max_area,
    "min_donors": _threshold_min("donors", "n_donors"),
    "status_is": _status_is,
}

# What each check needs in its definition (validate_gate reads this; the Methodologist's prompt shows it).
CHECK_SPECS: dict[str, dict[str, Any]] = {
    "min_years": {"required": ["value"], "optional": ["path"], "about": "record length in years >= value"},
    "max_return_period_factor": {"required": ["value", "return_period"], "optional": ["path"],
                                 "about": "return_period <= value x record years"},
    "ci_finite": {"required": ["path"], "optional": ["return_period", "return_periods_path"],
                  "about": "the interval at path is finite and ordered"},
    "spread_within": {"required": ["paths", "value"], "optional": ["return_period", "return_periods_path"],
                      "about": "(max - min) / mean of the values at paths <= value"},
    "nse_min": {"required": ["value"], "optional": ["path"], "about": "NSE >= value (validation period)"},
    "kge_min": {"required": ["value"], "optional": ["path"], "about": "KGE >= value (validation period)"},
    "not_empty": {"required": ["path"], "optional": [], "about": "the value at path is not empty"},
    "fit_envelopes_max": {"required": ["path"], "optional": ["value", "n_path"],
                          "about": "the record maximum is plausible under the fit (two-sided level value)"},
    "sampling_density": {"required": [], "optional": ["path", "value"],
                         "about": "observations per year against the resolution claimed >= value"},
    "trend_on_series": {"required": [], "optional": ["path", "value"],
                        "about": "no significant Mann-Kendall trend at level value on the series"},
    "cross_check_ratio": {"required": ["path", "reference"], "optional": ["value"],
                          "about": "value at path within a factor of value of the reference"},
    "unit_present": {"required": [], "optional": ["path"], "about": "a unit is stated"},
    "max_area_km2": {"required": ["value"], "optional": ["path"], "about": "catchment area <= value km2"},
    "min_donors": {"required": ["value"], "optional": ["path"], "about": "donor count >= value"},
    "status_is": {"required": ["path", "value"], "optional": [], "about": "the status at path is one of value"},
}

_COMMON = {"check", "label", "optional"}


def validate_gate(gate: Any) -> list[str]:
    """The problems with a gate's definition (empty when it is well formed)."""
    if not isinstance(gate, Mapping):
        return [f"a gate must be a mapping, got {type(gate).__name__}"]
    name = gate.get("check")
    if name not in CHECKS:
        return [f"unknown check {name!r}; the vocabulary is: {', '.join(CHECKS)}"]
    spec = CHECK_SPECS[name]
    errors = [f"{name} needs {field!r}" for field in spec["required"] if gate.get(field) is None]
    allowed = set(spec["required"]) | set(spec["optional"]) | _COMMON
    errors += [f"{name} does not take {k!r} (it takes {', '.join(sorted(allowed - _COMMON))})" for k in gate if k not in allowed]
    errors += _field_type_errors(name, gate)
    return errors


def _is_num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _is_ref(x: Any) -> bool:
    return isinstance(x, str) and "{{" in x


def _field_type_errors(name: str, gate: Mapping[str, Any]) -> list[str]:
    """A gate's fields of the wrong type (``paths: 3``, ``value: "high"``), found before any run."""
    kinds = {"path": (lambda v: isinstance(v, str) and v != "", "a path such as 'return_levels[0]'"),
             "return_periods_path": (lambda v: isinstance(v, str) and v != "", "a path"),
             "n_path": (lambda v: isinstance(v, str) and v != "", "a path"),
             "paths": (lambda v: isinstance(v, list) and len(v) >= 2 and all(isinstance(p, str) and p for p in v),
                       "a list of at least two paths"),
             "return_period": (lambda v: _is_num(v) or _is_ref(v), "a number of years"),
             "reference": (lambda v: _is_num(v) or isinstance(v, str), "a number or a {{ result... }} reference"),
             "value": ((lambda v: isinstance(v, str) or isinstance(v, list) and all(isinstance(x, str) for x in v))
                       if name == "status_is" else (lambda v: _is_num(v) or _is_ref(v)),
                       "a status or a list of statuses" if name == "status_is" else "a number"),
             "label": (lambda v: isinstance(v, str), "text"), "optional": (lambda v: isinstance(v, bool), "true or false")}
    return [f"{name} field {k!r} must be {words}, got {type(gate[k]).__name__} {str(gate[k])[:40]!r}"
            for k, (ok, words) in kinds.items() if gate.get(k) is not None and not ok(gate[k])]


def evaluate_one(gate: Mapping[str, Any], payload: Any) -> dict[str, Any]:
    """One gate against one payload: the row ``{check, passed, seen, threshold, path, detail}``."""
    name = gate.get("check") if isinstance(gate, Mapping) else None
    row: dict[str, Any] = {"check": name, "passed": False, "seen": None, "threshold": None,
                           "path": (gate.get("path") or gate.get("paths")) if isinstance(gate, Mapping) else None}
    if isinstance(gate, Mapping) and gate.get("label"):
        row["label"] = gate["label"]
    problems = validate_gate(gate)
    if problems:
        row["detail"] = "malformed gate: " + "; ".join(problems)
        row["error"] = "malformed"
        return row
    try:
        passed, seen, threshold, detail = CHECKS[name](payload, gate)
    except GateDefinitionError as exc:
        row.update(detail=f"malformed gate: {exc}", error="malformed")
        return row
    except _Unseen as exc:
        row.update(detail=f"cannot be checked: {exc}", error="missing")
        return row
    row.update(passed=bool(passed), seen=seen, threshold=threshold, detail=detail)
    return row


def evaluate(expects: Sequence[Mapping[str, Any]] | None, payload: Any) -> list[dict[str, Any]]:
    """Every gate of a step against its payload, in order."""
    return [evaluate_one(g, payload) for g in (expects or [])]
