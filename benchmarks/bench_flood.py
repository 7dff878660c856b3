"""Flood frequency timings on the Flat Brook annual maxima (79 water years), against references in the same process.

Run: ``.venv/bin/python benchmarks/bench_flood.py`` (``--peakfq-only``: only the comparison with PeakFQ 8.1.0's
Fortran, built from ../shared/reference/peakfq-8.1.0 with gfortran and called through ctypes in this process, on the
ten shared cases and the 24 Wyoming-Montana analyses). References: lmoments3 (L-moments and the GEV L-moment fit),
scipy.stats (GEV maximum likelihood, Pearson III), Python loops of those for the bootstrap, and for Bulletin 17C
the first-order EMA it replaced (read from git at commit 27cfdfd and run in the same process). Nothing here is
asserted; the figures go into benchmarks/README.md.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
REF = ROOT / "tests" / "reference"


def _best(fn, repeat: int = 5, number: int = 1) -> float:
    """Best mean time per call (seconds) over ``repeat`` rounds of ``number`` calls."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return min(times)


def _fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def _first_order_b17c():
    """The first-order EMA of the main branch before the PeakFQ 8.1.0 rewrite (commit 27cfdfd), loaded from git.

    It is run in this process beside the present one; None when git or that commit is not at hand."""
    import subprocess
    import types

    try:
        text = subprocess.run(["git", "show", "27cfdfd:aquascope_core/methods/bulletin17c.py"], cwd=ROOT,
                              capture_output=True, text=True, check=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    mod = types.ModuleType("bulletin17c_first_order")
    exec(compile(text, "bulletin17c_first_order.py", "exec"), mod.__dict__)
    return mod


def _limits_before_vectorising():
    """``quantile_limits`` as it was before its quadrature was vectorised (commit e43db66), with the Pearson III
    helpers of that commit, loaded from git to run beside the present one; None when git or the commit is missing."""
    import subprocess
    import types

    mods = {}
    for name in ("b17c_p3", "b17c_variance"):
        try:
            text = subprocess.run(["git", "show", f"e43db66:aquascope_core/methods/{name}.py"], cwd=ROOT,
                                  capture_output=True, text=True, check=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            return None
        mod = types.ModuleType(f"{name}_e43db66")
        exec(compile(text, f"{name}_e43db66.py", "exec"), mod.__dict__)
        mods[name] = mod
    mods["b17c_variance"].p3 = mods["b17c_p3"]
    return mods["b17c_variance"].quantile_limits


def _against_peakfq_810(repeat: int = 3):
    """Our fit plus limits against PeakFQ 8.1.0's emafitpr (which fits and computes the limits) on the same records,
    the Fortran called through ctypes in this process: the ten shared cases and the 24 Wyoming-Montana analyses.
    [] when gfortran or the shared reference folder is missing."""
    import sys

    sys.path.insert(0, str(ROOT))
    from scripts.peakfq810 import oracle as O
    from scripts.peakfq810 import records as R

    from aquascope_core.methods import bulletin17c as b17

    try:
        orc = O.Oracle(O.build())
    except O.OracleUnavailable as e:
        print(f"PeakFQ 8.1.0 comparison left out: {e}")
        return []
    recs = [O.read_case(orc.folder, i) for i in O.case_ids(orc.folder)] + R.wymt_records()
    # only records the Fortran takes without stopping the process (checked in child processes first)
    ok = [r for r, res in zip(recs, orc.run_many(recs)) if "error" not in res["chronological"]]
    out = []
    for rec in ok:
        rows, a, _ = orc.prepare(rec)
        aeps = a["aeps"]
        inp = R.project_inputs(rec)
        T = [1.0 / x for x in aeps]

        def ours():
            fit = b17.fit_lp3_ema(**inp["fit_kwargs"])
            return b17.ema_confidence_band(fit, T, confidence=inp["confidence"])

        t_ours = _best(ours, repeat=repeat)
        t_f = _best(lambda: orc.driver._call_emafitpr(orc.lib, a), repeat=repeat)
        out.append((rec["id"], t_ours, t_f))
    return out


def main() -> None:
    import lmoments3
    from lmoments3 import distr
    from scipy import stats

    from aquascope_core.methods import bulletin17c as b17
    from aquascope_core.methods import flood_frequency as ff
    from aquascope_core.methods import lmoments as lm

    x = pd.read_csv(REF / "usgs_01440000_flat_brook_annual_max_daily_mean_m3s.csv").dropna()
    x = x["annual_max_daily_mean_m3s"].to_numpy()
    n = x.size
    xs = np.sort(x)
    rows: list[tuple[str, float, str]] = []

    def row(what: str, ours: float, ref: float | None = None, ref_name: str = "") -> None:
        ratio = f"{ref / ours:.1f}x the speed of {ref_name} ({_fmt(ref)})" if ref else ""
        rows.append((what, ours, ratio))

    # sample L-moments
    t_ref = _best(lambda: lmoments3.lmom_ratios(x, nmom=4), repeat=9, number=500)
    t_core = _best(lambda: lm.lmoments_of_sorted(np.sort(x), 4), repeat=9, number=2000)
    t_pub = _best(lambda: lm.sample_lmoments(x), repeat=9, number=500)
    row("sample L-moments l1..l4 (sort + PWM weights)", t_core, t_ref, "lmoments3.lmom_ratios")
    row("`sample_lmoments` (validation and the result contract included)", t_pub, t_ref, "lmoments3.lmom_ratios")

    # GEV by L-moments
    def core():
        l1, l2, l3 = lm.lmoments_of_sorted(np.sort(x), 3)
        return lm.gev_from_lmoments(float(l1), float(l2), float(l3 / l2))

    t_ref = _best(lambda: distr.gev.lmom_fit(x), repeat=9, number=500)
    t_core = _best(core, repeat=9, number=2000)
    t_pub = _best(lambda: ff.fit_gev_lmoments(x), repeat=9, number=500)
    row("GEV by L-moments, estimator alone", t_core, t_ref, "lmoments3 gev.lmom_fit")
    row("`fit_gev_lmoments` (validation and the result contract included)", t_pub, t_ref, "lmoments3 gev.lmom_fit")

    # GEV by maximum likelihood
    t_ref = _best(lambda: stats.genextreme.fit(x), repeat=3, number=5)
    t_pub = _best(lambda: ff.fit_gev_ml(x), repeat=3, number=20)
    row("`fit_gev_ml` (damped Newton from the L-moment fit, with standard errors)", t_pub, t_ref,
        "scipy genextreme.fit")

    # bootstraps: 1,000 resamples of size n, vectorised
    gev = ff.fit_gev_lmoments(x)
    lp3 = ff.fit_lp3_moments(x)
    ml = ff.fit_gev_ml(x)
    T = [2, 10, 100, 1000]
    t_gev = _best(lambda: ff.bootstrap_band(gev, n, T, n_resamples=1000), repeat=3)
    t_lp3 = _best(lambda: ff.bootstrap_band(lp3, n, T, n_resamples=1000), repeat=3)
    t_ml = _best(lambda: ff.bootstrap_band(ml, n, T, n_resamples=1000), repeat=2)
    p = gev["parameters"]
    rng = np.random.default_rng(1)
    samples = stats.genextreme.rvs(p["k"], loc=p["xi"], scale=p["alpha"], size=(100, n), random_state=rng)
    t_loop_gev = _best(lambda: [distr.gev.lmom_fit(s) for s in samples], repeat=3) * 10
    lp = lp3["parameters"]

    def lp3_loop():
        for s in samples:
            y = np.log10(np.abs(s) + 1e-9)
            g = stats.skew(y, bias=False)
            10 ** stats.pearson3.ppf([0.5, 0.9, 0.99, 0.999], g, loc=y.mean(), scale=y.std(ddof=1))

    t_loop_lp3 = _best(lp3_loop, repeat=3) * 10
    t_loop_ml = _best(lambda: [stats.genextreme.fit(s) for s in samples[:10]], repeat=1) * 100
    row("bootstrap band, GEV by L-moments, 1,000 resamples", t_gev, t_loop_gev, "a loop of lmoments3 fits")
    row("bootstrap band, LP3 by moments, 1,000 resamples", t_lp3, t_loop_lp3, "a loop of scipy skew + pearson3.ppf")
    row("bootstrap band, GEV by maximum likelihood, 1,000 resamples", t_ml, t_loop_ml,
        "a loop of scipy genextreme.fit (10 timed, scaled)")

    # the whole analysis
    t_ff = _best(lambda: ff.flood_frequency(x, unit="m3/s"), repeat=3)
    row("`flood_frequency` (GEV L-moments + LP3, 1,000-resample bands, fit checks)", t_ff)

    # Bulletin 17C
    case = json.loads((REF / "usgs_03606500_big_sandy_b17c_case.json").read_text())
    kw = dict(years=[int(y) for y in case["systematic_peaks"]],
              historical_peaks={int(y): v for y, v in case["historical_peaks"].items()},
              perception_thresholds=case["thresholds"], regional_skew=-0.5, regional_skew_mse=0.55**2)
    peaks = list(case["systematic_peaks"].values())
    t_ema = _best(lambda: b17.fit_lp3_ema(peaks, **kw), repeat=3)
    fit = b17.fit_lp3_ema(peaks, **kw)
    t_ci = _best(lambda: b17.ema_confidence_band(fit, [10, 50, 100]), repeat=3)
    t_mgbt = _best(lambda: b17.multiple_grubbs_beck(peaks), repeat=3)
    old = _first_order_b17c()
    t_ema_old = t_ci_old = None
    if old is not None:
        fit_old = old.fit_lp3_ema(peaks, **kw)
        t_ema_old = _best(lambda: old.fit_lp3_ema(peaks, **kw), repeat=3)
        t_ci_old = _best(lambda: old.ema_confidence_band(fit_old, [10, 50, 100]), repeat=3)
    t_table = _best(lambda: b17.peakfq_quantile_table(fit), repeat=3)
    before = _limits_before_vectorising()
    t_lim_before = t_lim_now = None
    if before is not None:
        from aquascope_core.methods import b17c_variance as bv

        groups = b17._pattern_from_json(fit["censoring_pattern"])
        mom = b17._moments(fit)
        F = 1.0 - 1.0 / np.array([10.0, 50.0, 100.0])
        lim_kw = dict(confidence=0.90, regional_skew_mse=0.55**2, rule=fit["skew_mse_rule"])
        new_lim = bv.quantile_limits(groups, mom, F, **lim_kw)
        old_lim = before(groups, mom, F, **lim_kw)
        change = max(float(np.max(np.abs(10 ** new_lim[k] / 10 ** old_lim[k] - 1))) for k in ("lower", "upper"))
        print(f"limits before/after vectorising: largest relative change {change:.1e}")
        t_lim_before = _best(lambda: before(groups, mom, F, **lim_kw), repeat=3)
        t_lim_now = _best(lambda: bv.quantile_limits(groups, mom, F, **lim_kw), repeat=3)
    ref_name = "the first-order EMA it replaced"
    row("`fit_lp3_ema` as PeakFQ 8.1.0, Big Sandy (84 years, 37 censored, MGBT, ADJE skew MSE, HWN)", t_ema,
        t_ema_old, ref_name)
    row("of which the multiple Grubbs-Beck test (22 p-values)", t_mgbt)
    row("`ema_confidence_band`, 3 return periods (Cohn's two-level quadrature)", t_ci, t_ci_old, ref_name)
    row("`peakfq_quantile_table`, PeakFQ's 15 AEPs with 90 % limits", t_table)
    if t_lim_before is not None:
        row("its limits (`b17c_variance.quantile_limits`) against the same code before vectorising", t_lim_now,
            t_lim_before, "commit e43db66")

    peakfq_rows = _against_peakfq_810()

    print(f"Flat Brook nr Flatbrookville NJ, {n} water-year maxima of the daily mean flow")
    print(f"{'what':<80} {'time':>10}  reference")
    for what, t, ratio in rows:
        print(f"{what:<80} {_fmt(t):>10}  {ratio}")
    if peakfq_rows:
        print()
        _print_peakfq(peakfq_rows)


def _print_peakfq(rows) -> None:
    print("Bulletin 17C fit + limits at PeakFQ's 25 AEPs, against PeakFQ 8.1.0's Fortran (ctypes, same process)")
    print(f"{'record':<34} {'ours':>10} {'PeakFQ':>10} {'ratio':>7}")
    for rid, t_ours, t_f in rows:
        print(f"{rid:<34} {_fmt(t_ours):>10} {_fmt(t_f):>10} {t_ours / t_f:7.1f}")
    tot_o, tot_f = sum(r[1] for r in rows), sum(r[2] for r in rows)
    print(f"{'all ' + str(len(rows)) + ' records':<34} {_fmt(tot_o):>10} {_fmt(tot_f):>10} {tot_o / tot_f:7.1f}")


if __name__ == "__main__":
    import sys

    if "--peakfq-only" in sys.argv:   # just the comparison with PeakFQ 8.1.0's Fortran
        _print_peakfq(_against_peakfq_810())
    else:
        main()
