"""Peak records as PeakFQ users bring them, for comparing aquascope's Bulletin 17C with PeakFQ 8.1.0.

A record is ``{"id", "peaks": [{water_year, peak, code}], "options": {...}}`` in the vocabulary of the PeakFQ
8.1.0 driver (``peakfq_oracle.py``: PSF keywords ``thresholds``, ``intervals``, ``skew_option``,
``regional_skew``, ``regional_skew_se``, ``lo_type``, ``lo_thresh``, ``weight_opt``, ``conf_interval``).

- :func:`generate` makes record ``seed`` of the seeded family: 10 to 150 years of log-Pearson III peaks (rounded to
  three significant figures), and, each with its own chance, zero flows (up to a third of the years), planted low
  outliers, a historical period with code-7 peaks above its perception threshold, less-than (code 4) and
  greater-than (code 8) peaks, interval peaks, a period with a finite upper threshold (the peaks above it become
  greater-than peaks at it), years without record (a lower threshold of 1e20), station / weighted / regional skew,
  HWN / INV / ERL weighting, the multiple Grubbs-Beck test, a fixed or no low-outlier threshold, 90 % or 95 % limits.
- :func:`wymt_records` reads the 24 analyses of the USGS Wyoming-Montana 2022 study (WATSTORE file and PSF).
- :func:`project_inputs` turns a record into aquascope's inputs the way a user's files go in: the station and
  specification through :func:`aquascope_core.data.peakfq_files.ema_inputs`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping

import numpy as np
from scipy import stats

from aquascope_core.data import peakfq_files as pf

INF = 1e20
WYMT_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "usgs_wymt_ffa_2022"


def _sig3(v: float) -> float:
    if v <= 0:
        return 0.0
    e = math.floor(math.log10(v)) - 2
    return float(round(v / 10.0**e) * 10.0**e) if e < 0 else float(round(v / 10.0**e)) * 10.0**e


def generate(seed: int) -> dict[str, Any]:
    """Record ``seed`` of the family (deterministic: the same seed gives the same record everywhere)."""
    rng = np.random.default_rng([20260, int(seed)])
    feats: list[str] = []
    n = int(rng.integers(10, 151))
    start = int(rng.integers(1900, 1990))
    years = list(range(start, start + n))
    mean, sd = rng.uniform(1.0, 4.5), rng.uniform(0.12, 0.55)
    g = rng.uniform(-1.0, 1.2)
    dist = stats.pearson3(g, loc=mean, scale=sd)
    logs = dist.rvs(size=n, random_state=rng)
    q = np.array([_sig3(10.0**x) for x in logs])
    codes = [""] * n
    thresholds = [{"start": start, "end": start + n - 1, "lower": 0.0, "upper": INF}]
    intervals: list[dict[str, Any]] = []
    peaks_extra: list[dict[str, Any]] = []
    # zero flows, up to a third of the years
    if rng.random() < 0.22 and n >= 15:
        k = int(rng.integers(1, max(2, n // 3) + 1))
        idx = rng.choice(n, size=k, replace=False)
        q[idx] = 0.0
        feats.append(f"zeros{k}")
    # planted low outliers
    if rng.random() < 0.25:
        k = int(rng.integers(1, 5))
        idx = rng.choice(np.flatnonzero(q > 0), size=min(k, int((q > 0).sum()) - 12), replace=False) \
            if (q > 0).sum() > 12 + k else []
        for i in idx:
            q[i] = _sig3(q[i] / 10.0 ** rng.uniform(0.8, 2.5))
        if len(idx):
            feats.append(f"low{len(idx)}")
    positive = q[q > 0]
    med = float(np.median(positive)) if positive.size else 1.0
    # less-than / greater-than peaks
    if rng.random() < 0.2:
        k = int(rng.integers(1, 4))
        for i in rng.choice(n, size=k, replace=False):
            if q[i] > 0:
                codes[i] = "4" if rng.random() < 0.5 else "8"
        feats.append("lt_gt")
    # interval peaks
    if rng.random() < 0.15:
        for i in rng.choice(n, size=int(rng.integers(1, 3)), replace=False):
            if q[i] > 0 and not codes[i]:
                lo, hi = q[i] / rng.uniform(1.2, 3.0), q[i] * rng.uniform(1.2, 3.0)
                intervals.append({"water_year": years[i], "lower": _sig3(lo), "upper": _sig3(hi)})
        if intervals:
            feats.append(f"interval{len(intervals)}")
    # a period with a finite upper threshold: floods above it are only known to exceed it
    if rng.random() < 0.12 and n >= 20:
        a = int(rng.integers(0, n - 8))
        b = int(min(n - 1, a + rng.integers(5, 25)))
        tu = _sig3(float(np.quantile(positive, rng.uniform(0.75, 0.95))) if positive.size else med)
        tu = max(tu, _sig3(med * 1.5))
        thresholds.append({"start": years[a], "end": years[b], "lower": 0.0, "upper": tu})
        iv_years = {iv["water_year"] for iv in intervals}
        for i in range(a, b + 1):
            if q[i] > tu and years[i] not in iv_years:
                q[i], codes[i] = tu, "8"
        feats.append("finite_upper")
    # years without record
    if rng.random() < 0.15 and n >= 25:
        a = int(rng.integers(3, n - 10))
        b = a + int(rng.integers(1, 8))
        thresholds.append({"start": years[a], "end": years[b], "lower": INF, "upper": INF})
        for i in range(a, b + 1):
            q[i] = -1.0
        intervals = [iv for iv in intervals if not years[a] <= iv["water_year"] <= years[b]]
        feats.append("missing")
    # a historical period with code-7 peaks above its perception threshold
    if rng.random() < 0.25:
        h = int(rng.integers(10, 100))
        T = _sig3(10.0 ** float(dist.ppf(rng.uniform(0.9, 0.99))))
        thresholds.insert(0, {"start": start - h, "end": start - 1, "lower": T, "upper": INF})
        hist = 10.0 ** dist.rvs(size=h, random_state=rng)
        for j, v in enumerate(hist):
            if v >= T:
                peaks_extra.append({"water_year": start - h + j, "peak": _sig3(max(v, T)), "code": "7"})
        feats.append(f"hist{len(peaks_extra)}")
    peaks = [{"water_year": y, "peak": float(v), "code": c} for y, v, c in zip(years, q, codes) if v >= 0]
    peaks = sorted(peaks_extra + peaks, key=lambda p: p["water_year"])
    # skew, weighting, low-outlier threshold, limits
    opts: dict[str, Any] = {"thresholds": thresholds, "intervals": intervals}
    sk = ["Station", "Weighted", "Regional"][int(rng.integers(0, 3))]
    opts["skew_option"] = sk
    if sk != "Station":
        opts["regional_skew"] = round(float(rng.uniform(-0.6, 0.6)), 4)
        opts["regional_skew_se"] = round(float(rng.uniform(0.3, 0.64)), 3)
    opts["weight_opt"] = ["HWN", "INV", "ERL"][int(rng.integers(0, 3))]
    u = rng.random()
    zeros = bool((q == 0).any())
    exact = np.array([v for v, c in zip(q, codes) if v > 0 and not c])
    if u < 0.15 and exact.size:
        fixed = _sig3(float(np.quantile(exact, rng.uniform(0.02, 0.3))))
        uppers = [t["upper"] for t in thresholds if t["lower"] < INF]
        opts["lo_type"], opts["lo_thresh"] = "FIXED", min([fixed] + uppers)
    elif u < 0.28 and not zeros:
        opts["lo_type"] = "NONE"
    else:
        opts["lo_type"] = "MGBT"
    opts["conf_interval"] = 0.95 if rng.random() < 0.3 else 0.90
    feats += [sk.lower(), opts["weight_opt"], opts["lo_type"].lower(), f"ci{int(100 * opts['conf_interval'])}",
              f"n{n}"]
    return {"id": f"seed{int(seed)}", "seed": int(seed), "features": feats, "peaks": peaks, "options": opts}


# --------------------------------------------------------------------------------------------
# The USGS Wyoming-Montana 2022 study
# --------------------------------------------------------------------------------------------

def _oracle_options(spec: Mapping[str, Any], conf: float) -> dict[str, Any]:
    sk = (spec.get("skewopt") or "WEIGHTED").title()
    out: dict[str, Any] = {
        "thresholds": [{"start": t["start"], "end": t["end"], "lower": t["lower"], "upper": t["upper"]}
                       for t in spec.get("thresholds") or []],
        "intervals": [{"water_year": iv["year"], "lower": iv["lower"], "upper": iv["upper"]}
                      for iv in spec.get("intervals") or []],
        "skew_option": "Regional" if sk == "Generalized" else sk,
        "lo_type": {"FIXE": "FIXED"}.get(spec.get("lotype") or "MGBT", spec.get("lotype") or "MGBT"),
        "weight_opt": spec.get("weightopt") or "HWN",
        "conf_interval": conf,
    }
    if spec.get("genskew") is not None:
        out["regional_skew"] = spec["genskew"]
    if spec.get("skewse") is not None:
        out["regional_skew_se"] = spec["skewse"]
    if spec.get("lothresh") is not None:
        out["lo_thresh"] = spec["lothresh"]
    if spec.get("urb_reg"):
        out["urb_reg"] = True
    return out


def wymt_records(folder: Path = WYMT_DIR) -> list[dict[str, Any]]:
    """The 24 analyses of ``wymt_ffa_2022A.psf`` on ``wymt_ffa_2022A_WATSTORE.TXT``, with the study's options."""
    folder = Path(folder)
    psf = pf.read_psf((folder / "wymt_ffa_2022A.psf").read_text(encoding="latin-1"))
    conf = 0.90
    for o in psf["output"]:
        if o.upper().startswith("CONFINTERVAL"):
            conf = float(o.split()[1])
    stations = {s["site_no"]: s for s in pf.read_peaks((folder / "wymt_ffa_2022A_WATSTORE.TXT").read_bytes())}
    out = []
    for sid, spec in psf["stations"].items():
        st = stations[sid]
        peaks = [{"water_year": p["water_year"], "peak": p["value"], "code": p["codes"]}
                 for p in st["peaks"] if p["value"] is not None]
        out.append({"id": sid, "peaks": peaks, "options": _oracle_options(spec, conf), "spec": spec})
    return out


# --------------------------------------------------------------------------------------------
# A record as aquascope's inputs
# --------------------------------------------------------------------------------------------

def _spec(opts: Mapping[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "thresholds": [{"start": int(t["start"]), "end": int(t["end"]), "lower": float(t["lower"]),
                        "upper": float(t.get("upper", INF)), "comment": None} for t in opts.get("thresholds") or []],
        "intervals": [{"year": int(iv["water_year"]), "lower": float(iv["lower"]), "upper": float(iv["upper"]),
                       "comment": None} for iv in opts.get("intervals") or []],
        "peaks": [], "no_historic": False,
        "skewopt": (opts.get("skew_option") or "Weighted").upper(),
        "weightopt": (opts.get("weight_opt") or "HWN").upper(),
        "lotype": (opts.get("lo_type") or "MGBT").upper(),
    }
    if opts.get("regional_skew") is not None:
        spec["genskew"] = float(opts["regional_skew"])
    if opts.get("regional_skew_se") is not None:
        spec["skewse"] = float(opts["regional_skew_se"])
    if opts.get("lo_thresh") is not None:
        spec["lothresh"] = float(opts["lo_thresh"])
    if opts.get("urb_reg"):
        spec["urb_reg"] = True
    return spec


def project_inputs(record: Mapping[str, Any]) -> dict[str, Any]:
    """``fit_lp3_ema`` keyword arguments and the confidence level for a record, via the PeakFQ file reader."""
    station = {"site_no": str(record["id"]), "peaks": [
        {"water_year": int(p["water_year"]), "value": p["peak"], "codes": p.get("code") or "", "date": None,
         "line": None} for p in record["peaks"]]}
    spec = record.get("spec") or _spec(record["options"])
    got = pf.ema_inputs(station, {"stations": {str(record["id"]): spec}})
    kw = dict(got["fit_kwargs"])
    return {"fit_kwargs": kw, "confidence": float(record["options"].get("conf_interval", 0.9) or 0.9),
            "notes": got["notes"], "excluded": got["excluded"]}
