"""Water quality: the CCME Water Quality Index over sampled parameters and their objectives.

The index (CCME 2001) combines three factors, each 0-100:

- F1, scope: the share of parameters with at least one failed test, ``100 x failed / parameters``;
- F2, frequency: the share of individual tests that failed, ``100 x failed tests / tests``;
- F3, amplitude: from the excursions of the failed tests. A failed test's excursion is
  ``value / objective - 1`` against an upper limit and ``objective / value - 1`` against a lower
  limit (a range fails on whichever side it leaves); the normalised sum of excursions is
  ``nse = sum(excursions) / tests`` and ``F3 = nse / (0.01 nse + 0.01)``;

and ``WQI = 100 - sqrt(F1^2 + F2^2 + F3^2) / 1.732``. Categories: Excellent 95-100, Good 80-94,
Fair 65-79, Marginal 45-64, Poor 0-44 (applied to the unrounded index: >= 95, >= 80, >= 65, >= 45).
The CCME's stated minimum, at least 4 parameters each sampled at least 4 times, is enforced.

Objectives come from the caller (site-specific objectives, preferred) or from a shipped guideline
table (``data/water_quality_guidelines.csv``): CCME Canadian Water Quality Guidelines for the
Protection of Aquatic Life (freshwater, long-term) or the WHO Guidelines for drinking-water quality.

References
----------
CCME (2001). Canadian water quality guidelines for the protection of aquatic life: CCME Water
Quality Index 1.0, Technical Report; and CCME Water Quality Index 1.0, User's Manual. Canadian
Council of Ministers of the Environment, Winnipeg.
WHO (2022). Guidelines for drinking-water quality, fourth edition incorporating the first and
second addenda. World Health Organization, Geneva.
"""

from __future__ import annotations

import functools
import logging
import math
from importlib import resources
from typing import Any, Literal, Mapping, Sequence

import numpy as np
import pandas as pd

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.result import finish, resolved_parameters, source

__all__ = ["ccme_water_quality_index", "water_quality_guidelines", "GUIDELINE_SETS"]

log = logging.getLogger(__name__)

GuidelineSet = Literal["ccme_freshwater_aquatic_life", "who_drinking_water"]
GUIDELINE_SETS: tuple[str, ...] = ("ccme_freshwater_aquatic_life", "who_drinking_water")
MIN_PARAMETERS = 4  # CCME (2001): at least four variables ...
MIN_SAMPLES = 4     # ... each sampled at least four times

_CCME_CITATION = ("CCME (2001) Canadian water quality guidelines for the protection of aquatic life: "
                  "CCME Water Quality Index 1.0, Technical Report and User's Manual")
_SET_CITATION = {
    "ccme_freshwater_aquatic_life": "CCME Canadian Water Quality Guidelines for the Protection of Aquatic Life, "
                                    "freshwater, long-term (Canadian Environmental Quality Guidelines)",
    "who_drinking_water": "WHO (2022) Guidelines for drinking-water quality, 4th ed. incorporating the 1st and 2nd addenda",
}
_CATEGORIES = ((95.0, "Excellent"), (80.0, "Good"), (65.0, "Fair"), (45.0, "Marginal"), (-math.inf, "Poor"))


def _wqi_category(wqi: float) -> str:
    """The CCME category of an index value (Excellent >= 95, Good >= 80, Fair >= 65, Marginal >= 45, else Poor)."""
    for floor, name in _CATEGORIES:
        if wqi >= floor:
            return name
    return "Poor"  # pragma: no cover - the last floor is -inf


@functools.lru_cache(maxsize=1)
def _guideline_table() -> pd.DataFrame:
    path = resources.files("aquascope_core.methods") / "data" / "water_quality_guidelines.csv"
    with resources.as_file(path) as p:
        table = pd.read_csv(p, comment="#", dtype={"guideline_set": str, "parameter": str})
    return table


def _set_rows(guideline_set: str) -> dict[str, dict[str, Any]]:
    if guideline_set not in GUIDELINE_SETS:
        raise InputError.bad_value("guideline_set", guideline_set, "one of " + ", ".join(GUIDELINE_SETS) + " or None")
    table = _guideline_table()
    rows = table[table["guideline_set"] == guideline_set]
    out = {}
    for r in rows.itertuples(index=False):
        out[r.parameter] = {
            "lower": None if pd.isna(r.lower) else float(r.lower),
            "upper": None if pd.isna(r.upper) else float(r.upper),
            "unit": r.unit, "basis": r.basis, "reference": r.reference, "source": guideline_set,
        }
    return out


def water_quality_guidelines(guideline_set: GuidelineSet = "ccme_freshwater_aquatic_life") -> dict[str, Any]:
    """The shipped guideline table for ``guideline_set``: parameter, lower, upper, unit, basis, reference."""
    params = resolved_parameters(water_quality_guidelines, (guideline_set,))
    rows = [{"parameter": k, **v} for k, v in _set_rows(guideline_set).items()]
    payload = {"method": "water_quality_guidelines", "ok": True, "guideline_set": guideline_set, "guidelines": rows}
    return finish(payload, "water_quality_guidelines", params,
                  [source(guideline_set, citation=_SET_CITATION[guideline_set])])


def _samples_by_parameter(samples: Any) -> dict[str, np.ndarray]:
    """Parameter -> float array (NaN kept, counted later) from a long or wide frame or a mapping."""
    if isinstance(samples, pd.DataFrame):
        if samples.empty:
            raise InsufficientDataError("samples is empty: give the sampled values by parameter.", argument="samples")
        if {"parameter", "value"} <= set(samples.columns):
            groups = {str(k): g["value"] for k, g in samples.groupby("parameter", sort=False)}
        else:
            groups = {str(c): samples[c] for c in samples.columns}
    elif isinstance(samples, Mapping):
        if not samples:
            raise InsufficientDataError("samples is empty: give the sampled values by parameter.", argument="samples")
        groups = {str(k): v for k, v in samples.items()}
    else:
        raise InputError.bad_value("samples", type(samples).__name__,
                                   "a DataFrame (long: parameter, value; or wide: one column per parameter) "
                                   "or a mapping parameter -> values")
    out = {}
    for name, values in groups.items():
        raw = values.to_numpy() if isinstance(values, pd.Series) else values
        try:
            arr = np.array(raw, dtype=float, copy=True).ravel()
        except (TypeError, ValueError):
            raise InputError(f"samples for {name!r} hold values that are not numbers (a '<DL' flag must be resolved "
                             "to a number or left out before the index).", argument="samples") from None
        out[name] = arr
    return out


def _objective(name: str, given: Mapping[str, Any] | None, shipped: dict[str, dict[str, Any]]) -> dict[str, Any]:
    if given is not None:
        if not isinstance(given, Mapping):
            raise InputError.bad_value(f"guidelines[{name!r}]", given, "a mapping with 'lower' and/or 'upper'")
        unknown = set(given) - {"lower", "upper", "unit", "reference"}
        if unknown:
            raise InputError.bad_value(f"guidelines[{name!r}]", sorted(unknown), "keys among lower, upper, unit, reference")
        row = {"lower": given.get("lower"), "upper": given.get("upper"), "unit": given.get("unit"),
               "basis": "caller's objective", "reference": given.get("reference"), "source": "caller"}
    else:
        row = dict(shipped[name])
    for side in ("lower", "upper"):
        v = row[side]
        if v is not None:
            try:
                v = float(v)
            except (TypeError, ValueError):
                raise InputError.bad_value(f"guidelines[{name!r}][{side!r}]", row[side], "a number greater than 0") from None
            if not (math.isfinite(v) and v > 0):
                raise InputError.bad_value(f"guidelines[{name!r}][{side!r}]", row[side],
                                           "a number greater than 0 (the excursion divides by it)")
            row[side] = v
    if row["lower"] is None and row["upper"] is None:
        raise InputError(f"the objective for {name!r} has neither a lower nor an upper limit.", argument="guidelines")
    if row["lower"] is not None and row["upper"] is not None and row["lower"] >= row["upper"]:
        raise InputError(f"the objective for {name!r} has lower {row['lower']:g} >= upper {row['upper']:g}.",
                         argument="guidelines")
    return row


def ccme_water_quality_index(
    samples: pd.DataFrame | Mapping[str, Sequence[float]],
    *,
    guidelines: Mapping[str, Mapping[str, Any]] | None = None,
    guideline_set: GuidelineSet | None = "ccme_freshwater_aquatic_life",
) -> dict[str, Any]:
    """The CCME Water Quality Index 1.0 of a set of samples against their objectives.

    Parameters
    ----------
    samples : the sampled values, by parameter: a long DataFrame (``parameter``, ``value``), a wide
        one (one column per parameter, a row per sampling date) or a mapping parameter -> values.
        NaN means "not sampled" and is left out (counted in ``n_missing``), never filled.
        Values must be 0 or more; values below detection must be resolved by the caller.
    guidelines : objectives by parameter, ``{"lower": ..., "upper": ...}`` (either or both; a range
        such as pH 6.5-9.0 gives both), optionally ``unit`` and ``reference``. They take precedence
        over the shipped table.
    guideline_set : the shipped table to look up parameters the caller gave no objective for
        (see :func:`water_quality_guidelines`), or ``None`` to require an objective for every
        parameter.

    Returns
    -------
    dict with ``wqi`` (0-100), ``category``, ``f1_scope``, ``f2_frequency``, ``f3_amplitude``,
    ``nse``, counts of parameters and tests (failed and total), ``by_parameter`` (tests, failures,
    the objective and its source, the largest excursion) and ``unit`` ("dimensionless"). With a
    failed test of value 0 against a lower limit the amplitude is undefined: ``ok: False``.

    Raises
    ------
    InputError : a parameter with no objective (neither given nor in the table), a negative value,
        an objective that is not a positive number.
    InsufficientDataError : fewer than 4 parameters, or a parameter with fewer than 4 samples.
    """
    params = resolved_parameters(ccme_water_quality_index, (samples,), dict(guidelines=guidelines,
                                                                             guideline_set=guideline_set))
    by_param = _samples_by_parameter(samples)
    given = dict(guidelines or {})
    shipped = _set_rows(guideline_set) if guideline_set is not None else {}
    unknown = [p for p in by_param if p not in given and p not in shipped]
    if unknown:
        known = ", ".join(sorted(shipped)) if shipped else "none (guideline_set=None)"
        raise InputError(
            f"no objective for the parameter(s) {unknown}: give them in guidelines={{name: {{'lower'|'upper': value}}}} "
            f"or use the names of the {guideline_set or 'shipped'} table ({known}).", argument="samples",
            recovery="Rename the parameters to the table's names or pass site-specific objectives.")
    extra = [g for g in given if g not in by_param]
    if extra:
        log.debug("ccme_water_quality_index: objectives given for unsampled parameters %s", extra)

    rows: list[dict[str, Any]] = []
    short: list[str] = []
    for name, raw in by_param.items():
        values = raw[np.isfinite(raw)]
        if (values < 0).any():
            raise InputError(f"samples for {name!r} include a negative value ({values[values < 0][0]:g}); "
                             "concentrations and pH are 0 or more.", argument="samples")
        if values.size < MIN_SAMPLES:
            short.append(f"{name} ({values.size})")
        obj = _objective(name, given.get(name), shipped)
        rows.append({"parameter": name, "values": values, "n_missing": int(raw.size - values.size), **obj})
    if len(rows) < MIN_PARAMETERS:
        raise InsufficientDataError(
            f"{len(rows)} parameter(s) sampled; the CCME WQI needs at least {MIN_PARAMETERS}, each sampled at least "
            f"{MIN_SAMPLES} times.", argument="samples")
    if short:
        raise InsufficientDataError(
            f"parameter(s) sampled fewer than {MIN_SAMPLES} times: {', '.join(short)}. The CCME WQI needs every "
            f"parameter sampled at least {MIN_SAMPLES} times; leave these out or gather more samples.",
            argument="samples")

    n_tests = 0
    n_failed = 0
    failed_params = 0
    excursion_sum = 0.0
    undefined: list[str] = []
    table = []
    for r in rows:
        v, lo, hi = r["values"], r["lower"], r["upper"]
        exc = np.zeros(v.size)
        if hi is not None:
            above = v > hi
            exc[above] = v[above] / hi - 1.0
        if lo is not None:
            below = v < lo
            if (v[below] == 0).any():
                undefined.append(r["parameter"])
            with np.errstate(divide="ignore"):
                exc[below] = lo / v[below] - 1.0
        failed = exc > 0
        k = int(failed.sum())
        n_tests += v.size
        n_failed += k
        failed_params += k > 0
        excursion_sum += float(exc[failed].sum())
        table.append({
            "parameter": r["parameter"], "n_tests": int(v.size), "n_failed": k, "n_missing": r["n_missing"],
            "failed_fraction": k / v.size, "lower": lo, "upper": hi, "unit": r["unit"],
            "objective_source": r["source"], "reference": r["reference"],
            "min": float(v.min()), "max": float(v.max()),
            "max_excursion": float(exc.max()) if k else 0.0,
        })
    payload: dict[str, Any] = {
        "method": "ccme_water_quality_index", "ok": True, "reason": None, "unit": "dimensionless",
        "guideline_set": guideline_set, "n_parameters": len(rows), "n_failed_parameters": int(failed_params),
        "n_tests": n_tests, "n_failed_tests": n_failed, "by_parameter": table,
    }
    if undefined:
        payload.update(ok=False, wqi=None, category=None, f1_scope=None, f2_frequency=None, f3_amplitude=None, nse=None,
                       reason=(f"a failed test of value 0 against a lower limit ({', '.join(undefined)}) has an infinite "
                               "excursion: the amplitude F3 is undefined"))
        return finish(payload, "ccme_water_quality_index", params, [source("CCME WQI 1.0", citation=_CCME_CITATION)])
    f1 = 100.0 * failed_params / len(rows)
    f2 = 100.0 * n_failed / n_tests
    nse = excursion_sum / n_tests
    f3 = nse / (0.01 * nse + 0.01)
    # 1.732 is the CCME's constant (sqrt(3) rounded): with every factor at 100 the raw value is -0.003
    wqi = max(0.0, 100.0 - math.sqrt(f1**2 + f2**2 + f3**2) / 1.732)
    payload.update(wqi=wqi, category=_wqi_category(wqi), f1_scope=f1, f2_frequency=f2, f3_amplitude=f3, nse=nse,
                   sum_of_excursions=excursion_sum)
    srcs = [source("CCME WQI 1.0", citation=_CCME_CITATION)]
    if guideline_set is not None and any(t["objective_source"] == guideline_set for t in table):
        srcs.append(source(guideline_set, dataset="aquascope_core/methods/data/water_quality_guidelines.csv",
                           citation=_SET_CITATION[guideline_set]))
    return finish(payload, "ccme_water_quality_index", params, srcs)
