"""USGS regional regression equations for peak flows (National Streamflow Statistics, NSS), state by state.

The equations are data (``methods/data/nss_peak_equations.json.gz``, see aquascope_core/data/README.md): each
state's regions with their report, the basin characteristics each region's equations take (code, unit and the
range the equations were fitted over) and, per annual exceedance probability (AEP), the intercept, the terms and
the average standard error of prediction in log10 units (``sep_log``). Every equation has the form

    log10(Q_AEP) = a + sum_i b_i T_i(s_i x_i + o_i)

with ``T`` one of ``log10``, ``log10_plus1`` (log10 of the argument plus one), ``identity`` or ``power``
(the argument to a fixed exponent), ``s`` a scale (default 1) and ``o`` an offset (default 0), Q in ft3/s.

Notes
-----
The 90 % prediction interval is 10^(log10 Q +- z sep_log) with z the standard normal quantile (Tasker and Driver
1988; Bulletin 17C, chapter 8): the snapshot carries the average variance of prediction, not the equations'
covariance matrices or degrees of freedom, so the interval is the average one the report tables, not the
site-specific one. A characteristic outside the range its equations were fitted over is flagged
(``outside_range: true``) and the estimate's grade is capped at C.

References
----------
Ries, K.G. III (2007) The National Streamflow Statistics Program. USGS Techniques and Methods 4-A6.
Tasker, G.D. and Driver, N.E. (1988) Nationwide regression models for predicting urban runoff water quality at
unmonitored sites. Water Resources Bulletin 24(5), 1091-1101.
"""

from __future__ import annotations

import gzip
import json
import math
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping, Sequence

from statistics import NormalDist  # not scipy.stats: its import costs more than a whole study

from aquascope_core.errors import InputError
from aquascope_core.result import finish, resolved_parameters, source
from aquascope_core.verify import sig_text

__all__ = ["nss_states", "nss_region", "nss_regions", "transform_value", "peak_flow_regression",
           "area_exponent", "equation_library", "region_label"]

_NSS_URL = "https://streamstats.usgs.gov/nss/"
_RIES = "Ries, K.G. III (2007) The National Streamflow Statistics Program: a computer program for estimating " \
        "streamflow statistics for ungaged sites. U.S. Geological Survey Techniques and Methods 4-A6."
GRADE_CAP_OUTSIDE = "C"


@lru_cache(maxsize=1)
def equation_library() -> dict[str, Any]:
    """The NSS equation library as shipped (see the module docstring for its shape)."""
    raw = resources.files("aquascope_core.methods").joinpath("data", "nss_peak_equations.json.gz").read_bytes()
    return json.loads(gzip.decompress(raw))


def nss_states() -> list[str]:
    """The states (two-letter codes) whose peak-flow equations the library holds."""
    return sorted(equation_library()["states"])


def _state(state: str) -> dict[str, Any]:
    lib = equation_library()["states"]
    key = str(state or "").strip().upper()
    if key not in lib:
        raise InputError.bad_value("state", state, "a state whose NSS peak-flow equations are held, one of "
                                   + ", ".join(sorted(lib)))
    return lib[key]


def nss_regions(state: str) -> list[dict[str, Any]]:
    """The state's regions: code, name, report citation and the characteristics (code, unit, min, max)."""
    st = _state(state)
    reports = equation_library()["reports"]
    return [{"code": code, "name": r["name"], "citation": reports[r["report"]]["citation"],
             "url": reports[r["report"]]["url"], "nss_table": r["nss_table"],
             "aeps": sorted({e[0] for e in r["equations"]}, reverse=True),
             "variables": [{"code": c, "unit": u, "minimum": lo, "maximum": hi}
                           for c, (u, lo, hi) in r["variables"].items()]}
            for code, r in st["regions"].items()]


def region_label(name: str | None) -> str:
    """An NSS region name as a reader writes it: "Peak_Valley_and_Ridge_Region_2009_5167" -> "Valley and Ridge"."""
    import re

    text = re.sub(r"^(peak(flow)?|pk)_", "", str(name or ""), flags=re.I)
    text = re.sub(r"(_region)?(_[A-Za-z]*\d{2,4})+$", "", text, flags=re.I)
    return text.replace("_", " ").strip() or str(name or "")


def _words(text: str) -> set[str]:
    return {w for w in str(text).lower().replace("_", " ").replace("-", " ").split() if w}


def _state_of(region: str | None) -> tuple[str, str | None]:
    """(state, region) from a region that names its state: an NSS code (unique nationwide) or "NJ valley and ridge"."""
    key = str(region or "").strip()
    lib = equation_library()["states"]
    for code, st in lib.items():
        if key.upper() in st["regions"]:
            return code, key.upper()
    head, _, rest = key.partition(" ")
    if head.upper() in lib:
        return head.upper(), rest.strip() or None
    raise InputError.bad_value("region", region, "an NSS region code (GC1259) or the state and the region's words "
                               "(\"NJ valley and ridge\") when no state is given")


def nss_region(state: str | None, region: str | None = None) -> dict[str, Any]:
    """One region of the state by its NSS code (``GC1259``) or words of its name (``valley and ridge``).

    A state with one region needs no ``region``; without a state the region names it (its NSS code, or the state's
    two letters first). An ambiguous or unknown name is refused, listing the regions."""
    if not str(state or "").strip():
        state, region = _state_of(region)
    st = _state(state)
    regions = st["regions"]
    names = "; ".join(f"{c} ({r['name']})" for c, r in regions.items())
    if region is None or not str(region).strip():
        if len(regions) == 1:
            code = next(iter(regions))
            return {"code": code, **regions[code]}
        raise InputError.bad_value("region", region, f"one of {str(state).upper()}'s NSS regions: {names}")
    key = str(region).strip()
    if key.upper() in regions:
        return {"code": key.upper(), **regions[key.upper()]}
    want = _words(key) - {"region", "peak", "peakflow"}
    hits = [c for c, r in regions.items() if want and want <= _words(r["name"])]
    if len(hits) != 1:
        raise InputError.bad_value("region", region, f"exactly one of {str(state).upper()}'s NSS regions "
                                   f"({len(hits)} matched): {names}")
    return {"code": hits[0], **regions[hits[0]]}


def transform_value(x: float, transform: str, params: Mapping[str, float] | None = None, *,
                    code: str = "x") -> float:
    """``T(scale * x + offset)`` for one term, as the equation library states it."""
    p = dict(params or {})
    arg = float(p.get("scale", 1.0)) * float(x) + float(p.get("offset", 0.0))
    if transform == "identity":
        return arg
    if transform in ("log10", "log10_plus1"):
        arg = arg + (1.0 if transform == "log10_plus1" else 0.0)
        if not arg > 0:
            raise InputError.bad_value(code, x, f"a value whose {transform} term is defined "
                                       f"(scale x + offset{' + 1' if transform == 'log10_plus1' else ''} > 0)")
        return math.log10(arg)
    if transform == "power":
        if not arg > 0:
            raise InputError.bad_value(code, x, "a positive value (the equation raises it to a power)")
        return arg ** float(p["exponent"])
    raise InputError.bad_value("transform", transform, "log10, log10_plus1, identity or power")


def area_exponent(state: str | None, region: str | None, aep: float) -> dict[str, Any]:
    """The drainage-area exponent of the region's equation at ``aep`` (``b`` of ``A^b``), or None.

    Only a plain ``log10`` drainage-area term is an exponent of area; any other form gives None."""
    reg = nss_region(state, region)
    eq = min(reg["equations"], key=lambda e: abs(math.log(e[0]) - math.log(float(aep))))
    for term in eq[3]:
        extra = term[3] if len(term) > 3 else {}
        if term[0] == "DRNAREA" and term[2] == "log10" and not extra:
            return {"exponent": float(term[1]), "aep": eq[0], "region": reg["code"],
                    "citation": equation_library()["reports"][reg["report"]]["citation"]}
    return {"exponent": None, "aep": eq[0], "region": reg["code"], "citation": None}


def peak_flow_regression(state: str | None, characteristics: Mapping[str, float], region: str | None = None,
                         aeps: Sequence[float] | None = None, prediction: float = 0.90) -> dict[str, Any]:
    """The region's NSS peak-flow quantiles at a site from its basin characteristics.

    Parameters
    ----------
    state : two-letter state code.
    characteristics : {NSS code: value} in the units the region's equations take (``nss_regions`` lists them;
        a StreamStats basin-characteristics report gives them under the same codes).
    region : the NSS region code or words of its name; needed where the state has more than one.
    aeps : the annual exceedance probabilities wanted (default: every one the region has).
    prediction : the level of the prediction intervals.

    Returns
    -------
    A finish() dict with ``quantiles`` (rows: aep, return_period, value, unit, log10_value, sep_log,
    variance_of_prediction, lower, upper), ``characteristics`` (rows: code, value, unit, minimum, maximum,
    outside_range), ``outside_range``, ``grade_cap``, the region and its report.
    """
    params = resolved_parameters(peak_flow_regression, (state, characteristics),
                                 {"region": region, "aeps": None if aeps is None else list(aeps),
                                  "prediction": prediction})
    if not (0.0 < float(prediction) < 1.0):
        raise InputError.bad_value("prediction", prediction, "a probability strictly between 0 and 1, e.g. 0.90")
    reg = nss_region(state, region)
    state = reg["report"].split("-")[0]
    report = equation_library()["reports"][reg["report"]]
    given = {str(k).strip().upper(): v for k, v in dict(characteristics or {}).items()}
    missing = [f"{c} ({u})" for c, (u, _lo, _hi) in reg["variables"].items() if given.get(c) is None]
    if missing:
        raise InputError.bad_value("characteristics", sorted(given), f"values for every characteristic of the "
                                   f"{reg['name']} equations: missing {', '.join(missing)}")
    chars = []
    for c, (u, lo, hi) in reg["variables"].items():
        try:
            x = float(given[c])
        except (TypeError, ValueError):
            raise InputError.bad_value(c, given[c], f"a number in {u}") from None
        if not math.isfinite(x):
            raise InputError.bad_value(c, given[c], f"a finite number in {u}")
        chars.append({"code": c, "value": x, "unit": u, "minimum": lo, "maximum": hi,
                      "outside_range": not (lo <= x <= hi)})
    values = {r["code"]: r["value"] for r in chars}
    eqs = sorted(reg["equations"], key=lambda e: -e[0])
    if aeps is not None:
        want = [float(a) for a in aeps]
        have = {e[0] for e in eqs}
        bad = [a for a in want if not any(abs(a - h) < 1e-9 for h in have)]
        if bad:
            raise InputError.bad_value("aeps", bad, f"AEPs the region's equations give: {sorted(have, reverse=True)}")
        eqs = [e for e in eqs if any(abs(e[0] - a) < 1e-9 for a in want)]
    z = NormalDist().inv_cdf(0.5 + float(prediction) / 2.0)
    rows = []
    for eq in eqs:
        aep, a, sep, terms = eq[0], eq[1], eq[2], eq[3]
        if a is None:  # the constant form: a published flow, no variance
            q = float(eq[4])
            rows.append({"aep": aep, "return_period": 1.0 / aep, "value": q, "unit": "ft3/s", "log10_value": None,
                         "sep_log": None, "variance_of_prediction": None, "lower": None, "upper": None,
                         "form": "constant"})
            continue
        logq = float(a) + sum(float(t[1]) * transform_value(values[t[0]], t[2], t[3] if len(t) > 3 else None,
                                                            code=t[0]) for t in terms)
        row = {"aep": aep, "return_period": 1.0 / aep, "value": 10.0 ** logq, "unit": "ft3/s", "log10_value": logq,
               "sep_log": sep, "variance_of_prediction": None if sep is None else sep * sep,
               "lower": None if sep is None else 10.0 ** (logq - z * sep),
               "upper": None if sep is None else 10.0 ** (logq + z * sep)}
        rows.append(row)
    outside = [r["code"] for r in chars if r["outside_range"]]
    payload: dict[str, Any] = {
        "method": "nss_peak_regression", "ok": True, "state": str(state).upper(),
        "region": {"code": reg["code"], "name": reg["name"], "nss_table": reg["nss_table"]},
        "report": report, "citation": report["citation"], "unit": "ft3/s", "basis": "annual instantaneous peak",
        "prediction": float(prediction), "z": z, "quantiles": rows, "characteristics": chars,
        "outside_range": bool(outside), "outside": outside,
        "grade_cap": GRADE_CAP_OUTSIDE if outside else None,
        "interval_basis": "the average standard error of prediction (sep_log) the report gives, normal quantile",
    }
    if outside:
        payload["warnings"] = [f"{', '.join(outside)} outside the range the {reg['name']} equations were fitted over: "
                               "the estimate is outside the equations' range"]
    if any(r["sep_log"] is None and r.get("form") != "constant" for r in rows):
        payload.setdefault("warnings", []).append("the report gives no standard error of prediction for some AEPs: "
                                                  "no prediction interval or weighting for them")
    payload["summary"] = (f"NSS {reg['name']} ({str(state).upper()}) from {len(chars)} basin characteristics: "
                          + "; ".join(f"{r['return_period']:g}-year {sig_text(r['value'])} ft3/s" for r in rows
                                      if r["aep"] in (0.01, 0.02, 0.1))
                          + (" (outside the equations' range)" if outside else ""))
    srcs = [source("USGS National Streamflow Statistics", url=_NSS_URL, citation=_RIES),
            source(reg["name"], url=report["url"], citation=report["citation"], dataset=reg["nss_table"])]
    return finish(payload, "nss_peak_regression", params, srcs)
