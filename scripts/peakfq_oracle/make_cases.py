"""Regenerate tests/reference/peakfq751_ema_cases.json by running PeakFQ 7.5.1's EMA routines (see README.md).

    python scripts/peakfq_oracle/make_cases.py /path/to/driver tests/reference/peakfq751_ema_cases.json

Each case is a real WATSTORE peak file and its PeakFQ specification under tests/reference; the record is turned
into PeakFQ's EMA representation by aquascope's own reader (the same years, intervals and thresholds the fit
uses), written as the driver reads it, and the driver's output is stored as the known answer.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

from aquascope_core.data import peakfq_files as pf
from aquascope_core.methods import bulletin17c as b17

REF = Path(__file__).resolve().parents[2] / "tests" / "reference"
KIND = {"systematic": "Syst", "zero": "Syst", "interval": "Syst", "historical": "Hist", "below_threshold": "Cens"}
#: (station, skew option, regional skew, its standard error); the weighted options are ours, not the files'.
CASES = [("04156000", "station", None, None), ("04156000", "weighted", -0.3, 0.55),
         ("04151500", "station", None, None), ("04151500", "weighted", -0.3, 0.55),
         ("04145000", "station", None, None), ("04159492", "station", None, None),
         ("04161000", "station", None, None)]


def fit_kwargs(site: str, option: str, rg, rse) -> dict:
    st, = pf.read_peaks((REF / f"usgs_{site}_peaks_watstore.txt").read_text())
    kw = dict(pf.ema_inputs(st, pf.read_psf((REF / f"usgs_{site}.psf").read_text()))["fit_kwargs"])
    if option == "weighted":
        kw.update(skew_option="weighted", regional_skew=rg, regional_skew_mse=rse**2)
    else:
        kw.update(skew_option="station")
    return kw


def driver_input(kw: dict, weighting: str = "HWN") -> str:
    ql, qu, tl, tu, kind, yr, *_ = b17._build_record(kw["peaks"], kw.get("years"), kw.get("historical_peaks"),
                                                    kw.get("perception_thresholds"), kw.get("interval_peaks"))
    rg, rmse = (kw["regional_skew"], kw["regional_skew_mse"]) if kw["skew_option"] == "weighted" else (0.0, 1e10)
    c = lambda v: -99.0 if v == -np.inf else (50.0 if v == np.inf else float(v))  # noqa: E731  PeakFQ's bounds
    lines = [f"{len(ql)} {rg} {rmse} MGBT -99.0 {weighting}"]
    lines += ["%.15e %.15e %.15e %.15e %s" % (c(ql[i]), c(qu[i]), c(tl[i]), c(tu[i]), KIND[kind[i]])
              for i in np.argsort(yr)]
    return "\n".join(lines) + "\n"


def _num(x: str) -> float:
    return float(re.sub(r"(\d)([+-]\d{3})$", r"\1E\2", x))   # Fortran drops the E of 3-digit exponents


def run(driver: str, text: str) -> dict:
    out = subprocess.run([driver], input=text, capture_output=True, text=True, check=True).stdout
    res: dict = {"Q": [], "P": []}
    for line in out.splitlines():
        p = line.split()
        if p and p[0] in ("FINAL", "ATSITE", "STAGE2", "MSE"):
            res[p[0]] = [_num(x) for x in p[1:]]
        elif p and p[0] == "LOW":
            res["LOW"] = [int(p[1]), int(p[2]), int(p[3]), p[4]]
        elif p and p[0] in ("Q", "P"):
            res[p[0]].append([_num(x) for x in p[1:]])
    return res


def main(driver: str, target: str) -> None:
    out = {"source": "PeakFQ 7.5.1's EMA routines (emafit.f, probfun.f and the EMAUtil helpers of "
                     "github.com/respec/FORTRAN f90apps/peakfq.new/src, the 7.5.1 update of 2024-02-29), compiled "
                     "with gfortran and called by scripts/peakfq_oracle/driver.f90 as PeakFQ's RUNEMA calls emafit",
           "cases": []}
    for site, option, rg, rse in CASES:
        F = run(driver, driver_input(fit_kwargs(site, option, rg, rse)))
        out["cases"].append({
            "site_no": site, "skew_option": option, "regional_skew": rg, "regional_skew_se": rse,
            "skew_weighting": "HWN", "final_moments": F["FINAL"], "at_site_moments": F["ATSITE"],
            "at_site_skew_mse": F["MSE"][0], "skew_weight_factor": F["MSE"][1],
            "low_outlier_critical_log10": F["MSE"][2], "n_systematic_tested": F["LOW"][0], "n_low": F["LOW"][1],
            "n_zero": F["LOW"][2], "mgbt_p_values": [p[2] for p in F["P"]],
            "grid": [{"non_exceedance": q[0], "log10_quantile": q[1], "log10_lower": q[2], "log10_upper": q[3],
                      "variance_log10": q[4]} for q in F["Q"]]})
    Path(target).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
