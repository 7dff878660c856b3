"""Water-quality tools: the user's samples described, screened against guidelines, indexed and tested for trend.

The samples come from a table the user uploaded (see :mod:`aquascope_core.data.ingest`): long (date,
parameter, value, unit, optionally lower/upper objectives and a detection limit) or wide (a date column
and one column per parameter). Each parameter's objective is, in this order of precedence:

1. the plan's ``objectives`` (site-specific objectives a reviewer wrote into the study);
2. the objectives the table itself states (its lower/upper columns);
3. the shipped guideline set for the use to protect (CCME freshwater aquatic life, long-term; or the
   WHO drinking-water guidelines), matched by the parameter's name and converted to the parameter's
   own unit (mg/L, ug/L, ng/L). A name that could mean two guidelines ("nitrate" without "as N" or
   "as NO3") or a concentration without a unit gets no objective, and the payload says why.

The samples themselves are never changed: objectives are converted to the data's units, not the
data to the objectives'. Values below detection must have been resolved by the user (the upload
refuses "<0.002"); they are used as given.
"""

from __future__ import annotations

import logging
import math
import re
from typing import Any, Literal, Mapping, Sequence

import numpy as np
import pandas as pd

from aquascope_core.errors import InputError
from aquascope_core.result import finish, resolved_parameters, source as source_row
from aquascope_core.toolspec import ToolSpec
from aquascope_core.tools.context import DataContext, resolve

__all__ = ["water_quality_samples", "water_quality_exceedances", "ccme_water_quality_index", "water_quality_trend",
           "resolve_objectives", "USES", "SPECS"]

log = logging.getLogger(__name__)

Use = Literal["aquatic life", "drinking water"]
Habitat = Literal["cold water", "warm water"]

# The use to protect -> the shipped guideline set (aquascope_core/methods/data/water_quality_guidelines.csv).
USES = {"aquatic life": "ccme_freshwater_aquatic_life", "drinking water": "who_drinking_water"}


def _set_label(gset: str) -> str:
    """A guideline set by its authority's title (its citation without the year): "WHO Guidelines for
    drinking-water quality", not the set's id."""
    from aquascope_core.methods.water_quality import _SET_CITATION

    cite = _SET_CITATION.get(gset)
    return re.sub(r"\s*\(\d{4}\)", "", cite).split(",")[0].strip() if cite else gset.replace("_", " ")


CCME_MIN_PARAMETERS = 4  # CCME (2001): at least four parameters ...
CCME_MIN_SAMPLES = 4     # ... each sampled at least four times in the period
CATEGORIES = ["Excellent", "Good", "Fair", "Marginal", "Poor"]

# Parameter names (lower case, letters and digits only) -> the guideline table's names. "nitrate",
# "nitrite" and "dissolved oxygen" are resolved with the unit (as N / as NO3) and the habitat.
_NAMES = {
    "ph": "ph", "phfield": "ph", "phlab": "ph",
    "chloride": "chloride", "cl": "chloride",
    "arsenic": "arsenic", "as": "arsenic", "arsenictotal": "arsenic", "totalarsenic": "arsenic",
    "selenium": "selenium", "se": "selenium", "seleniumtotal": "selenium",
    "iron": "iron", "fe": "iron", "irontotal": "iron", "totaliron": "iron",
    "boron": "boron", "uranium": "uranium", "molybdenum": "molybdenum", "mo": "molybdenum",
    "fluoride": "fluoride", "lead": "lead", "pb": "lead", "cadmium": "cadmium", "cd": "cadmium",
    "copper": "copper", "cu": "copper", "nickel": "nickel", "ni": "nickel", "antimony": "antimony", "sb": "antimony",
    "barium": "barium", "ba": "barium",
    "mercuryinorganic": "mercury_inorganic", "inorganicmercury": "mercury_inorganic",
    "chromium": "chromium_total", "cr": "chromium_total", "chromiumtotal": "chromium_total",
    "chromiumhexavalent": "chromium_hexavalent", "hexavalentchromium": "chromium_hexavalent", "crvi": "chromium_hexavalent",
    "chromiumtrivalent": "chromium_trivalent", "trivalentchromium": "chromium_trivalent", "criii": "chromium_trivalent",
    "nitrateasn": "nitrate_as_n", "nitraten": "nitrate_as_n", "no3n": "nitrate_as_n", "nitratenitrogen": "nitrate_as_n",
    "nitrateasno3": "nitrate_as_no3", "no3": "nitrate_as_no3",
    "nitriteasn": "nitrite_as_n", "nitriten": "nitrite_as_n", "no2n": "nitrite_as_n",
    "nitriteasno2": "nitrite_as_no2", "no2": "nitrite_as_no2",
    "nitrate": "nitrate", "nitrite": "nitrite",
    "do": "dissolved_oxygen", "dissolvedoxygen": "dissolved_oxygen", "oxygendissolved": "dissolved_oxygen",
    "oxygen": "dissolved_oxygen",
    # families with no single-number guideline in the shipped tables (named so the reason can say so)
    "tp": "phosphorus", "totalphosphorus": "phosphorus", "phosphorus": "phosphorus",
    "tn": "total_nitrogen", "totalnitrogen": "total_nitrogen",
    "ammonia": "ammonia", "ammonian": "ammonia", "nh3": "ammonia", "nh3n": "ammonia", "ammonium": "ammonia",
    "zinc": "zinc", "zn": "zinc", "aluminium": "aluminium", "aluminum": "aluminium", "al": "aluminium",
    "ecoli": "e_coli", "escherichiacoli": "e_coli", "fc": "fecal_coliforms", "fecalcoliforms": "fecal_coliforms",
    "faecalcoliforms": "fecal_coliforms",
}
# CCME aquatic-life guidelines that depend on the site's water (hardness, pH, temperature) or are narrative.
_SITE_DEPENDENT = {
    "ammonia": "the CCME ammonia guideline depends on pH and temperature",
    "lead": "the CCME lead guideline depends on hardness", "cadmium": "the CCME cadmium guideline depends on hardness",
    "copper": "the CCME copper guideline depends on hardness", "nickel": "the CCME nickel guideline depends on hardness",
    "zinc": "the CCME zinc guideline depends on hardness, pH and dissolved organic carbon",
    "aluminium": "the CCME aluminium guideline depends on pH",
    "phosphorus": "the CCME phosphorus guidance is a trigger-range framework, not a single value",
}
_MASS = {"mg": 1.0, "ug": 1e-3, "µg": 1e-3, "μg": 1e-3, "ng": 1e-6}  # -> mg
_PH_UNITS = {None, "", "ph", "phunits", "phunit", "su", "standardunits", "unitless", "dimensionless", "-"}


def _key(text: Any) -> str:
    return "".join(ch for ch in str(text or "").lower() if ch.isalnum())


def _mg_per_litre(unit: str | None) -> tuple[float | None, str | None]:
    """(factor to mg/L, the 'as X' basis) of a concentration unit such as 'ug/L' or 'mg/L as N'; (None, None) if
    the unit is not a mass per litre."""
    if not unit:
        return None, None
    u = unit.strip().lower().replace(" ", "")
    m = re.fullmatch(r"(mg|ug|µg|μg|ng)(?:([a-z0-9]+))?/l(?:as([a-z0-9]+)|-?([a-z]{1,3}))?", u)
    if m:
        basis = m.group(2) or m.group(3) or m.group(4)
        return _MASS[m.group(1)], basis
    if u in ("g/m3", "gm-3", "ppm"):
        return (1.0, None) if u != "ppm" else (None, None)  # ppm is not a concentration unit: ask, do not assume
    return None, None


def _guideline_name(parameter: str, unit: str | None, habitat: str) -> tuple[str | None, str | None]:
    """(the guideline table's name for a parameter, or None with the reason)."""
    base = re.sub(r"\s*[\(\[][^\)\]]*[\)\]]\s*", " ", parameter)
    key = _NAMES.get(_key(base))
    if key is None:
        return None, "no guideline of this name in the table (give a site-specific objective)"
    if key == "dissolved_oxygen":
        return f"dissolved_oxygen_{habitat.replace(' ', '_')}", None
    if key in ("nitrate", "nitrite"):
        _, basis = _mg_per_litre(unit)
        if basis in ("n",):
            return f"{key}_as_n", None
        if basis in ("no3", "no2"):
            return f"{key}_as_{basis}", None
        return None, (f"{key} without 'as N' or 'as {'NO3' if key == 'nitrate' else 'NO2'}' in its name or unit: the "
                      "guidelines differ by a factor of 4.4 (nitrate) or 3.3 (nitrite), so none is applied")
    return key, None


def resolve_objectives(params: Sequence[Mapping[str, Any]], *, use: str = "aquatic life", habitat: str = "cold water",
                       objectives: Mapping[str, Mapping[str, Any]] | None = None) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """The objective of each parameter in the parameter's own unit, and the parameters with none (with the reason).

    ``params`` are the upload's parameter rows (parameter, unit, lower, upper). Returns
    ``({parameter: {lower, upper, unit, source, reference, basis}}, [{parameter, reason}])``.
    """
    from aquascope_core.methods.water_quality import water_quality_guidelines

    if use not in USES:
        raise InputError.bad_value("use", use, "one of " + ", ".join(USES))
    if habitat not in ("cold water", "warm water"):
        raise InputError.bad_value("habitat", habitat, "'cold water' or 'warm water'")
    gset = USES[use]
    shipped = {r["parameter"]: r for r in water_quality_guidelines(gset)["guidelines"]}
    given = {_key(k): (k, v) for k, v in (objectives or {}).items()}
    found: dict[str, dict[str, Any]] = {}
    missing: list[dict[str, Any]] = []
    for p in params:
        name, unit = p["parameter"], p.get("unit")
        if _key(name) in given:
            spec = given[_key(name)][1]
            if not isinstance(spec, Mapping) or (spec.get("lower") is None and spec.get("upper") is None):
                raise InputError.bad_value(f"objectives[{name!r}]", spec, "a mapping with 'lower' and/or 'upper'")
            found[name] = {"lower": spec.get("lower"), "upper": spec.get("upper"), "unit": spec.get("unit", unit),
                           "source": "plan", "reference": spec.get("reference") or "site-specific objective in the plan",
                           "basis": "site-specific"}
            continue
        if p.get("lower") is not None or p.get("upper") is not None:
            found[name] = {"lower": p.get("lower"), "upper": p.get("upper"), "unit": unit, "source": "table",
                           "reference": "objective stated in the user's table", "basis": "site-specific"}
            continue
        gname, why = _guideline_name(name, unit, habitat)
        if gname is None:
            missing.append({"parameter": name, "reason": why})
            continue
        row = shipped.get(gname)
        if row is None:
            why = _SITE_DEPENDENT.get(gname) if gset == "ccme_freshwater_aquatic_life" else None
            missing.append({"parameter": name, "reason": (
                f"{why}: compute it for the site and give it as an objective" if why else
                f"the {use} guideline set ({_set_label(gset)}) has no single value for {gname.replace('_', ' ')}")})
            continue
        if row["unit"] == "pH units":
            if _key(unit) not in {_key(u) for u in _PH_UNITS if u is not None} | {""}:
                missing.append({"parameter": name, "reason": f"pH given in {unit!r}, not pH units"})
                continue
            factor = 1.0
        else:
            f_data, _ = _mg_per_litre(unit)
            f_guide, _ = _mg_per_litre(row["unit"])
            if f_data is None:
                missing.append({"parameter": name, "reason": (f"unit {unit!r} is not a mass per litre" if unit else
                                                               "no unit given") + f"; the guideline is in {row['unit']}"})
                continue
            factor = f_guide / f_data  # the guideline's value expressed in the data's unit
        conv = {side: (None if row[side] is None else _round_units(row[side] * factor)) for side in ("lower", "upper")}
        found[name] = {**conv, "unit": unit if row["unit"] != "pH units" else "pH units", "source": gset,
                       "reference": row["reference"], "basis": row["basis"], "guideline": gname,
                       "guideline_value": {"lower": row["lower"], "upper": row["upper"], "unit": row["unit"]}}
    return found, missing


def _round_units(x: float) -> float:
    """A guideline converted between mg and ug keeps its published digits (0.005 mg/L -> 5 ug/L, not 5.000000001)."""
    return float(f"{x:.12g}")


def _family(name: str) -> str:
    """A parameter's family name ("NO3-N", "Nitrate (mg/L as N)" and "nitrate" -> "nitrate"; "DO" -> "dissolved_oxygen")."""
    key = _key(re.sub(r"\s*[\(\[][^\)\]]*[\)\]]\s*", " ", name))
    return re.sub(r"_as_\w+$", "", _NAMES.get(key, key))


def _same_parameter(a: str, b: str) -> bool:
    return _family(a) == _family(b)


def _frame(data: DataContext | None, source: str, station_id: str, start: str | None, end: str | None) -> pd.DataFrame:
    return resolve(data).fetch_samples(source, station_id, start=start, end=end)


def _station(data: DataContext | None, source: str, station_id: str) -> dict[str, Any]:
    desc = resolve(data).describe_station(source, station_id)
    return {"source": source, "station_id": station_id, "name": desc.get("name"), "lat": desc.get("lat"),
            "lon": desc.get("lon")}


def _sources(frame: pd.DataFrame, *more: dict[str, Any]) -> list[dict[str, Any]]:
    prov = frame.attrs.get("provenance")
    return ([dict(prov)] if isinstance(prov, dict) else [source_row("upload")]) + list(more)


def _param_rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The table's parameter rows (its stated objectives), restricted to the parameters in ``frame``."""
    held = list(dict.fromkeys(frame["parameter"]))
    rows = {r["parameter"]: r for r in frame.attrs.get("parameters") or []}
    out = []
    for p in held:
        unit = frame.loc[frame["parameter"] == p, "unit"].iloc[0]
        out.append({"parameter": p, "unit": unit, "lower": (rows.get(p) or {}).get("lower"),
                    "upper": (rows.get(p) or {}).get("upper")})
    return out


def _samples_plot(frame: pd.DataFrame, max_points: int = 1500) -> dict[str, Any]:
    """Each parameter's samples (date, value), compact, for the samples figure (evenly thinned beyond max_points)."""
    from aquascope_core.tools.plotdata import sig

    out: dict[str, Any] = {}
    for p, g in frame.groupby("parameter", sort=False):
        g = g.sort_values("date")
        step = max(1, -(-len(g) // max_points))
        g = g.iloc[::step]
        out[str(p)] = {"unit": g["unit"].iloc[0], "dates": [d.date().isoformat() for d in pd.DatetimeIndex(g["date"])],
                       "values": [sig(v) for v in g["value"].to_numpy(dtype=float)], "thinned_every": step}
    return {"form": "samples", "parameters": out}


def water_quality_samples(source: str, station_id: str, start: str | None = None, end: str | None = None, *,
                          data: DataContext | None = None) -> dict[str, Any]:
    """The table of samples described: parameters, units, sample counts, period, calendar years, ranges."""
    frame = _frame(data, source, station_id, start, end)
    stated = {r["parameter"]: r for r in frame.attrs.get("parameters") or []}
    params = []
    for p, g in frame.groupby("parameter", sort=False):
        v, idx = g["value"].to_numpy(dtype=float), pd.DatetimeIndex(g["date"])
        row = stated.get(p) or {}
        params.append({"parameter": p, "unit": g["unit"].iloc[0], "n_samples": int(v.size),
                       "period_start": idx.min().date().isoformat(), "period_end": idx.max().date().isoformat(),
                       "years": int(idx.year.nunique()), "first_year": int(idx.year.min()), "last_year": int(idx.year.max()),
                       "min": float(v.min()), "median": float(np.median(v)), "max": float(v.max()),
                       "lower": row.get("lower"), "upper": row.get("upper"),
                       "detection_limit": row.get("detection_limit"), "n_below_detection": row.get("n_below_detection")})
    dates = pd.DatetimeIndex(frame["date"])
    counts = sorted((p["n_samples"] for p in params), reverse=True)
    payload = {
        "station": _station(data, source, station_id), "variable": "water_quality", "unit": "by parameter",
        "resolution": "sample", "n_parameters": len(params), "n_samples": int(len(frame)),
        "n_sampling_dates": int(dates.nunique()),
        "period": {"start": dates.min().date().isoformat(), "end": dates.max().date().isoformat()},
        "years": int(dates.year.nunique()), "first_year": int(dates.year.min()), "last_year": int(dates.year.max()),
        "parameters": params,
        "n_parameters_sampled_4_times": sum(c >= CCME_MIN_SAMPLES for c in counts),
        "longest_years": max(p["years"] for p in params),
        "objectives_in_table": sum(p["lower"] is not None or p["upper"] is not None for p in params),
        "plot": _samples_plot(frame),
        "summary": (f"{len(frame):,} sampled values of {len(params)} parameter(s) on {dates.nunique()} date(s), "
                    f"{dates.min().date()} to {dates.max().date()}"),
    }
    return finish(payload, "water_quality_samples", {"source": source, "station_id": station_id, "start": start,
                                                     "end": end}, _sources(frame))


def _excursion(v: np.ndarray, lower: float | None, upper: float | None) -> np.ndarray:
    """CCME (2001) excursions: value/upper - 1 above an upper limit, lower/value - 1 below a lower one, else 0
    (inf for a value of 0 below a lower limit)."""
    exc = np.zeros(v.size)
    if upper is not None:
        above = v > upper
        exc[above] = v[above] / upper - 1.0
    if lower is not None:
        below = v < lower
        with np.errstate(divide="ignore"):
            exc[below] = lower / v[below] - 1.0
    return exc


def water_quality_exceedances(source: str, station_id: str, use: Use = "aquatic life", habitat: Habitat = "cold water",
                              objectives: dict[str, dict[str, Any]] | None = None, start: str | None = None,
                              end: str | None = None, *, data: DataContext | None = None) -> dict[str, Any]:
    """Every sample of every parameter against its objective: how many exceed it, by how much, and when.

    Works on any number of samples (the CCME index needs 4 parameters x 4 samples; this does not).
    The excursion of a failed sample is the CCME (2001) one (value/upper - 1 or lower/value - 1).
    """
    frame = _frame(data, source, station_id, start, end)
    found, missing = resolve_objectives(_param_rows(frame), use=use, habitat=habitat, objectives=objectives)
    rows = []
    for p, g in frame.groupby("parameter", sort=False):
        if p not in found:
            continue
        obj = found[p]
        v = g["value"].to_numpy(dtype=float)
        dates = pd.DatetimeIndex(g["date"])
        lo, hi = obj["lower"], obj["upper"]
        exc = _excursion(v, lo, hi)
        failed = exc > 0
        k = int(failed.sum())
        worst = int(np.argmax(exc)) if k else None
        rows.append({
            "parameter": p, "unit": g["unit"].iloc[0], "n_samples": int(v.size), "n_exceeding": k,
            "fraction_exceeding": k / v.size, "n_below_lower": int((v < lo).sum()) if lo is not None else 0,
            "n_above_upper": int((v > hi).sum()) if hi is not None else 0, "lower": lo, "upper": hi,
            "objective_unit": obj["unit"], "objective_source": obj["source"], "reference": obj["reference"],
            "guideline": obj.get("guideline"), "min": float(v.min()), "max": float(v.max()),
            "max_excursion": (float(exc[worst]) if math.isfinite(exc[worst]) else None) if k else 0.0,
            "worst_value": float(v[worst]) if k else None,
            "worst_date": dates[worst].date().isoformat() if k else None,
            "exceeding_dates": [d.date().isoformat() for d in dates[failed]][:50],
        })
    gset = USES[use]
    params = {"source": source, "station_id": station_id, "use": use, "habitat": habitat, "objectives": objectives,
              "start": start, "end": end}
    payload: dict[str, Any] = {"guideline_set": gset, "use": use, "habitat": habitat, "unit": "by parameter",
                               "n_parameters": int(frame["parameter"].nunique()), "n_with_objective": len(rows),
                               "by_parameter": rows, "without_objective": missing, "plot": _samples_plot(frame)}
    if not rows:
        payload.update(ok=False, reason=("no sampled parameter has an objective: " +
                                         "; ".join(f"{m['parameter']}: {m['reason']}" for m in missing)))
        return finish(payload, "water_quality_exceedances", params, _sources(frame))
    exceeding = [r for r in rows if r["n_exceeding"]]
    payload.update({
        "ok": True,
        "n_exceeding_parameters": len(exceeding),
        "exceeding_parameters": [r["parameter"] for r in exceeding],
        "n_samples": sum(r["n_samples"] for r in rows),
        "n_exceeding_samples": sum(r["n_exceeding"] for r in rows),
        "summary": (f"{len(exceeding)} of {len(rows)} parameter(s) with an objective exceeded it in "
                    f"{sum(r['n_exceeding'] for r in rows)} of {sum(r['n_samples'] for r in rows)} samples"
                    + (f" ({', '.join(r['parameter'] for r in exceeding)})" if exceeding else "")),
    })
    return finish(payload, "water_quality_exceedances", params, _sources(frame, *_guideline_sources(found)))


def _guideline_sources(found: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    from aquascope_core.methods.water_quality import _SET_CITATION

    sets = sorted({o["source"] for o in found.values() if o["source"] in _SET_CITATION})
    return [source_row(s, dataset="aquascope_core/methods/data/water_quality_guidelines.csv", citation=_SET_CITATION[s])
            for s in sets]


def _eligible(frame: pd.DataFrame, found: Mapping[str, Any]) -> tuple[list[str], list[dict[str, Any]]]:
    """Parameters with an objective and at least 4 samples in ``frame``, and the others with the reason."""
    ok, out = [], []
    for p, n in frame.groupby("parameter", sort=False).size().items():
        if p not in found:
            continue
        if n < CCME_MIN_SAMPLES:
            out.append({"parameter": p, "reason": f"{n} sample(s) in the period; the index needs at least {CCME_MIN_SAMPLES}"})
        else:
            ok.append(p)
    return ok, out


def ccme_water_quality_index(source: str, station_id: str, use: Use = "aquatic life",
                             habitat: Habitat = "cold water", objectives: dict[str, dict[str, Any]] | None = None,
                             period: Literal["latest_year", "all"] = "latest_year", *,
                             data: DataContext | None = None) -> dict[str, Any]:
    """The CCME Water Quality Index 1.0 of the user's samples, with F1/F2/F3 and the failures by parameter.

    ``period="latest_year"`` (the CCME's usual period) takes the most recent calendar year in which at
    least 4 parameters with an objective were sampled at least 4 times; ``"all"`` the whole table. The
    index is also given for every calendar year that meets the minimum (``by_year``). Parameters with
    no objective, or fewer than 4 samples in the period, are left out and listed with the reason.
    """
    from aquascope_core.methods.water_quality import ccme_water_quality_index as ccme_wqi

    if period not in ("latest_year", "all"):
        raise InputError.bad_value("period", period, "'latest_year' or 'all'")
    frame = _frame(data, source, station_id, None, None)
    found, missing = resolve_objectives(_param_rows(frame), use=use, habitat=habitat, objectives=objectives)
    params = {"source": source, "station_id": station_id, "use": use, "habitat": habitat, "objectives": objectives,
              "period": period}
    years = sorted(set(pd.DatetimeIndex(frame["date"]).year))
    by_year, chosen = [], None
    for y in years:
        sub = frame[pd.DatetimeIndex(frame["date"]).year == y]
        ok, _ = _eligible(sub, found)
        if len(ok) >= CCME_MIN_PARAMETERS:
            res = ccme_wqi(_samples(sub, ok), guidelines=_guidelines(found, ok), guideline_set=None)
            by_year.append({"year": int(y), "wqi": res.get("wqi"), "category": res.get("category"),
                            "n_parameters": res["n_parameters"], "n_tests": res["n_tests"]})
            chosen = y
    if period == "latest_year":
        sub = frame[pd.DatetimeIndex(frame["date"]).year == chosen] if chosen is not None else frame.iloc[0:0]
    else:
        sub = frame
    ok, short = _eligible(sub if len(sub) else frame, found)
    left_out = missing + short
    base: dict[str, Any] = {"method": "ccme_water_quality_index", "guideline_set": USES[use], "use": use,
                            "habitat": habitat, "unit": "dimensionless", "period_rule": period, "left_out": left_out,
                            "by_year": by_year if len(years) > 1 else []}
    if len(ok) < CCME_MIN_PARAMETERS or not len(sub):
        held = f"{len(ok)}: {', '.join(ok) or 'none'}"
        where = (f"no calendar year has them (the whole table has {held})" if period == "latest_year" else
                 f"the whole table has {held}")
        base.update(ok=False, wqi=None, category=None, reason=(
            f"the CCME index needs at least {CCME_MIN_PARAMETERS} parameters with an objective, each sampled at least "
            f"{CCME_MIN_SAMPLES} times in the period; {where}"))
        return finish(base, "ccme_water_quality_index", params, _sources(frame))
    res = ccme_wqi(_samples(sub, ok), guidelines=_guidelines(found, ok), guideline_set=None)
    out = {k: v for k, v in res.items() if k != "meta"}
    for row in out.get("by_parameter", []):
        obj = found[row["parameter"]]
        row.update(objective_source=obj["source"], reference=obj["reference"], unit=obj["unit"],
                   guideline=obj.get("guideline"))
    d = pd.DatetimeIndex(sub["date"])
    out.update(base)
    out.update({
        "period": {"start": d.min().date().isoformat(), "end": d.max().date().isoformat(),
                   "year": int(chosen) if period == "latest_year" else None},
        "wqi_rounded": int(math.floor(out["wqi"] + 0.5)) if out.get("wqi") is not None else None,
        "failed_parameters": [r["parameter"] for r in out.get("by_parameter", []) if r["n_failed"]],
        "parameters": ok,
    })
    if out.get("ok"):
        out["summary"] = (f"CCME WQI {out['wqi']:.1f} ({out['category']}) over {out['n_parameters']} parameters and "
                          f"{out['n_tests']} tests, {d.min().date()} to {d.max().date()}")
    return finish(out, "ccme_water_quality_index", params,
                  _sources(frame, *[r for r in res["meta"]["sources"] if r.get("name") != "aquascope"],
                           *_guideline_sources({p: found[p] for p in ok})))


def _samples(frame: pd.DataFrame, names: Sequence[str]) -> dict[str, list[float]]:
    return {p: frame.loc[frame["parameter"] == p, "value"].astype(float).tolist() for p in names}


def _guidelines(found: Mapping[str, Mapping[str, Any]], names: Sequence[str]) -> dict[str, dict[str, Any]]:
    return {p: {"lower": found[p]["lower"], "upper": found[p]["upper"], "unit": found[p]["unit"],
                "reference": found[p]["reference"]} for p in names}


def _monthly(g: pd.DataFrame) -> tuple[pd.Series, int]:
    """One value per calendar month (the median where a month holds several samples) and how many months did."""
    idx = pd.DatetimeIndex(g["date"])
    s = pd.Series(g["value"].to_numpy(dtype=float), index=idx.to_period("M"))
    counts = s.groupby(level=0).size()
    out = s.groupby(level=0).median()
    out.index = out.index.to_timestamp()
    return out, int((counts > 1).sum())


def water_quality_trend(source: str, station_id: str, parameters: list[str] | None = None, min_years: int = 10,
                        test: Literal["auto", "mann_kendall", "seasonal_kendall"] = "auto", alpha: float = 0.05, *,
                        data: DataContext | None = None) -> dict[str, Any]:
    """Monotonic trend of each parameter sampled in at least ``min_years`` calendar years.

    ``test="auto"`` takes the seasonal Kendall test (Hirsch et al. 1982) on monthly values when the
    parameter was sampled in most months (at least 9 months a year on median), else the Mann-Kendall
    test on the samples at their dates; slopes are Sen's, per year. ``parameters`` (the parameters of
    concern) restricts the test to those names; by default every parameter long enough is tested.
    """
    from aquascope_core.methods.trends import mann_kendall, seasonal_mann_kendall

    if test not in ("auto", "mann_kendall", "seasonal_kendall"):
        raise InputError.bad_value("test", test, "'auto', 'mann_kendall' or 'seasonal_kendall'")
    frame = _frame(data, source, station_id, None, None)
    held = list(dict.fromkeys(frame["parameter"]))
    wanted, skipped = held, []
    if parameters:
        chosen = [p for p in held if any(_same_parameter(c, p) for c in parameters)]
        skipped = [{"parameter": c, "reason": "not in the table"} for c in parameters
                   if not any(_same_parameter(c, p) for p in held)]
        wanted = chosen or held  # none of the named parameters was sampled: test what was
    trends, sources = [], []
    for p in wanted:
        g = frame[frame["parameter"] == p]
        idx = pd.DatetimeIndex(g["date"])
        n_years = int(idx.year.nunique())
        unit = g["unit"].iloc[0]
        if n_years < min_years:
            skipped.append({"parameter": p, "reason": f"sampled in {n_years} calendar year(s); a trend needs {min_years}"})
            continue
        per_year = idx.to_period("M").unique().year.value_counts()
        kind = test if test != "auto" else ("seasonal_kendall" if float(per_year.median()) >= 9 else "mann_kendall")
        if kind == "seasonal_kendall":
            series, aggregated = _monthly(g)
            res = seasonal_mann_kendall(series, period=12, alpha=alpha, unit=unit)
        else:
            aggregated = 0
            res = mann_kendall(g["value"].to_numpy(dtype=float), times=idx, alpha=alpha, unit=unit)
        sources += [r for r in res["meta"]["sources"] if r.get("name") != "aquascope" and r not in sources]
        row = {"parameter": p, "unit": unit, "test": kind, "n_years": n_years, "first_year": int(idx.year.min()),
               "last_year": int(idx.year.max()), "n_samples": int(len(g)), "months_aggregated": aggregated,
               "sen_slope_confidence": 1.0 - alpha,
               **{k: res.get(k) for k in ("ok", "reason", "n", "S", "var_S", "z", "p_value", "tau", "trend",
                                         "significant", "sen_slope", "sen_slope_ci", "slope_unit")}}
        trends.append(row)
    payload: dict[str, Any] = {"unit": "by parameter", "alpha": alpha, "min_years": min_years, "trends": trends,
                               "skipped": skipped, "tested_parameters": [t["parameter"] for t in trends if t["ok"]],
                               "longest_years": max([t["n_years"] for t in trends] + [0])}
    params = resolved_parameters(water_quality_trend, kwargs={"source": source, "station_id": station_id,
                                                              "parameters": parameters, "min_years": min_years,
                                                              "test": test, "alpha": alpha})
    params.pop("data", None)
    good = [t for t in trends if t["ok"]]
    if not good:
        payload.update(ok=False, reason="no parameter could be tested for trend: " + "; ".join(
            f"{x['parameter']}: {x['reason']}" for x in skipped + [t for t in trends if not t["ok"]]))
        return finish(payload, "water_quality_trend", params, _sources(frame, *sources))
    payload["ok"] = True
    payload["n_significant"] = sum(bool(t["significant"]) for t in good)
    payload["summary"] = "; ".join(
        f"{t['parameter']}: {t['trend']} ({'seasonal Kendall' if t['test'] == 'seasonal_kendall' else 'Mann-Kendall'}, "
        f"p = {t['p_value']:.3g}, Sen's slope {t['sen_slope']:.3g} {t['slope_unit']})" for t in good[:5])
    return finish(payload, "water_quality_trend", params, _sources(frame, *sources))


_SAMPLE_ARGS = {"source": "the source holding the table of samples (upload)",
                "station_id": "the table's name as uploaded"}
_OBJ_ARGS = {"use": "the use to protect: 'aquatic life' (CCME freshwater, long-term) or 'drinking water' (WHO)",
             "habitat": "for dissolved oxygen: 'cold water' or 'warm water' (CCME, other life stages)",
             "objectives": "site-specific objectives {parameter: {lower, upper}} in the samples' units; they take "
                           "precedence over the table's and the guideline set's"}

SPECS = [
    ToolSpec(
        id="water_quality_samples",
        purpose="Describe the user's table of water-quality samples: parameters, units, counts, period, years.",
        kind="station",
        function="aquascope_core.tools.water_quality:water_quality_samples",
        yields=("samples_summary",),
        gates=({"check": "not_empty", "path": "parameters"},),
        figures=("samples_by_parameter",),
        tables=("parameters",),
        citation="The user's table (see meta.sources).",
        arguments={**_SAMPLE_ARGS, "start": "first date to read (ISO)", "end": "last date to read (ISO)"},
    ),
    ToolSpec(
        id="water_quality_exceedances",
        purpose="Screen every sample against its objective (CCME aquatic life, WHO drinking water, or site-specific): "
                "exceedances by parameter, with the CCME excursion of the worst.",
        kind="station",
        function="aquascope_core.tools.water_quality:water_quality_exceedances",
        yields=("exceedances",),
        gates=({"check": "not_empty", "path": "by_parameter"},),
        tables=("exceedances",),
        citation="CCME Canadian Water Quality Guidelines for the Protection of Aquatic Life; WHO (2022) Guidelines "
                 "for drinking-water quality, 4th ed.",
        arguments={**_SAMPLE_ARGS, **_OBJ_ARGS, "start": "first date (ISO)", "end": "last date (ISO)"},
    ),
    ToolSpec(
        id="ccme_water_quality_index",
        purpose="CCME Water Quality Index 1.0 of the user's samples (at least 4 parameters x 4 samples): index, "
                "category, F1 scope, F2 frequency, F3 amplitude, failures by parameter, index by year.",
        kind="station",
        function="aquascope_core.tools.water_quality:ccme_water_quality_index",
        yields=("wqi",),
        methods=("ccme_water_quality_index",),
        gates=({"check": "status_is", "path": "category", "value": CATEGORIES},
               {"check": "not_empty", "path": "by_parameter"}, {"check": "unit_present"}),
        figures=("wqi",),
        tables=("wqi", "by_parameter"),
        citation="CCME (2001) Canadian water quality guidelines for the protection of aquatic life: CCME Water "
                 "Quality Index 1.0, Technical Report and User's Manual.",
        arguments={**_SAMPLE_ARGS, **_OBJ_ARGS,
                   "period": "'latest_year' (the most recent calendar year meeting the minimum) or 'all'"},
    ),
    ToolSpec(
        id="water_quality_trend",
        purpose="Trend of each sampled parameter with a long record: seasonal Kendall on monthly values or "
                "Mann-Kendall on the samples, with Sen's slope per year.",
        kind="station",
        function="aquascope_core.tools.water_quality:water_quality_trend",
        yields=("trend",),
        methods=("mann_kendall", "seasonal_mann_kendall"),
        gates=({"check": "min_years", "value": 10, "path": "longest_years"},
               {"check": "not_empty", "path": "tested_parameters"}),
        figures=("wq_trends",),
        tables=("trends",),
        citation="Mann (1945); Kendall (1975); Hirsch, Slack & Smith (1982) Water Resour. Res. 18(1); Sen (1968).",
        arguments={**_SAMPLE_ARGS, "parameters": "the parameters to test (default: every parameter long enough)",
                   "min_years": "calendar years with samples a parameter needs", "test": "auto, mann_kendall or "
                   "seasonal_kendall", "alpha": "two-sided significance level"},
    ),
]
