"""GR4J speed: a 28-year daily simulation and a 10-year NSE calibration on the airGR catchment L0123001.

Run: ``.venv/bin/python benchmarks/bench_gr4j.py`` (add ``--skip-python-calibration`` to leave out
the pure-Python calibration, which takes tens of seconds).

Printed for each task: the best and the median of several repeats (after the one-off JIT
compilation, which is timed on its own), the ratio to airGR's compiled Fortran (figures measured with
airGR 1.7.6 on a comparable machine, given below) and the ratio to a pure-Python run of the same
task in this process:

- simulation, pure Python: ``gr4j_step_python``, the readable one-day step, called day after day;
- calibration, pure Python: the same ``gr4j_calibration`` with the daily loop left uncompiled.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from aquascope_core.methods import _gr4j_kernel as kernel  # noqa: E402
from aquascope_core.methods.rainfall_runoff import gr4j_calibration, gr4j_simulation  # noqa: E402

# airGR 1.7.6 (R, Fortran loop): RunModel_GR4J over 28 years and Calibration_Michel on NSE over
# 1990-1999 with a 1989 warm-up, on L0123001.
AIRGR_SIMULATION_S = 0.004
AIRGR_CALIBRATION_S = 0.11
PARAMETERS = {"x1": 257.237556, "x2": 1.012237, "x3": 88.234673, "x4": 2.207958}


_FIRST_CALL = """
import time
t0 = time.perf_counter()
import numba
t1 = time.perf_counter()
import numpy as np
from aquascope_core.methods import _gr4j_kernel as k
p = np.ones(10)
k.compiled()(p, p, 300.0, 1.0, 90.0, 2.2, np.array([90.0, 45.0]), np.zeros(20), np.zeros(40), np.empty(10),
             np.empty((0, k.N_STATES)))
print(t1 - t0, time.perf_counter() - t1)
"""


def timed(func, repeats: int) -> tuple[float, float]:
    """(best, median) wall time in seconds over ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def basin() -> pd.DataFrame:
    frame = pd.read_csv(ROOT / "tests" / "reference" / "L0123001_BasinObs_airGR.csv")
    return frame.set_index(pd.DatetimeIndex(pd.to_datetime(frame.pop("DatesR")), name="date"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--skip-python-calibration", action="store_true")
    args = parser.parse_args()

    data = basin()
    years28 = data.loc["1985-01-01":"2012-12-31"]
    p, e = years28["P"].to_numpy(float), years28["E"].to_numpy(float)
    x = tuple(PARAMETERS.values())
    nineties = data.loc["1989-01-01":"1999-12-31"]

    def kernel_run(loop) -> np.ndarray:
        q = np.empty(p.size)
        loop(p, e, *x, np.array([0.3 * x[0], 0.5 * x[2]]), np.zeros(kernel.UH1_SLOTS), np.zeros(kernel.UH2_SLOTS),
             q, np.empty((0, kernel.N_STATES)))
        return q

    # one-off costs: a fresh process importing numba and making its first call (machine code from
    # the on-disk cache when present), then a compilation that ignores the cache (a cold install)
    fresh = subprocess.run([sys.executable, "-c", _FIRST_CALL], check=True, capture_output=True, text=True,
                           cwd=ROOT).stdout.split()
    import numba

    start = time.perf_counter()
    cold = numba.njit(cache=False, nogil=True, error_model="numpy")(kernel.gr4j_loop_python)
    kernel_run(cold)
    compile_s = time.perf_counter() - start

    print(f"GR4J benchmark: L0123001, {p.size} days (1985-2012) for the simulation; numba {numba.__version__}")
    print(f"import numba (fresh process):                      {float(fresh[0]):7.3f} s")
    print(f"first call, fresh process, machine code from cache: {float(fresh[1]):7.3f} s")
    print(f"JIT compilation without the cache:                 {compile_s:7.3f} s")

    # --- 28-year simulation
    loop = kernel.compiled()
    k_best, k_med = timed(lambda: kernel_run(loop), args.repeats)
    a_best, a_med = timed(lambda: gr4j_simulation(p, e, parameters=PARAMETERS), args.repeats)
    f_best, f_med = timed(lambda: gr4j_simulation(years28[["P", "E"]], parameters=PARAMETERS), args.repeats)

    def python_run() -> list[float]:
        uh1, uh2 = (list(o) for o in kernel.unit_hydrographs(x[3]))
        state = {"production": 0.3 * x[0], "routing": 0.5 * x[2], "uh1": [0.0] * len(uh1), "uh2": [0.0] * len(uh2)}
        return [kernel.gr4j_step_python(state, pi, ei, x[0], x[1], x[2], uh1, uh2) for pi, ei in zip(p, e)]

    py_best, py_med = timed(python_run, 3)
    assert np.allclose(python_run(), kernel_run(loop), rtol=1e-10)
    print("\n28-year simulation                      best (ms)  median (ms)  vs airGR  pure Python / this")
    for label, best, med in (("compiled loop only", k_best, k_med),
                             ("gr4j_simulation (arrays, payload)", a_best, a_med),
                             ("gr4j_simulation (DataFrame, payload)", f_best, f_med)):
        print(f"  {label:<37}{best * 1e3:9.2f}  {med * 1e3:11.2f}  {best / AIRGR_SIMULATION_S:7.2f}x"
              f"  {py_best / best:10.0f}x")
    print(f"  {'pure-Python step loop':<37}{py_best * 1e3:9.2f}  {py_med * 1e3:11.2f}"
          f"  {py_best / AIRGR_SIMULATION_S:7.2f}x")

    # --- 10-year NSE calibration
    def calibrate() -> dict:
        return gr4j_calibration(nineties, observed="Qmm", run_start="1990-01-01", warmup_days=365, criterion="nse")

    result = calibrate()
    c_best, c_med = timed(calibrate, max(3, args.repeats // 4))
    print("\n10-year NSE calibration (1990-1999, 1989 warm-up)")
    print(f"  runs: {result['search']['runs']} ({result['search']['grid_runs']} grid + "
          f"{result['search']['local_runs']} pattern search); NSE {result['criterion_value']:.6f}; "
          + ", ".join(f"{k} {v:.3f}" for k, v in result["parameters"].items()))
    print(f"  gr4j_calibration (compiled)   best {c_best:7.3f} s   median {c_med:7.3f} s   "
          f"{c_best / AIRGR_CALIBRATION_S:5.2f}x airGR")
    if not args.skip_python_calibration:
        with mock.patch.object(kernel, "compiled", lambda: kernel.gr4j_loop_python):
            start = time.perf_counter()
            slow = calibrate()
            py_cal = time.perf_counter() - start
        assert abs(slow["criterion_value"] - result["criterion_value"]) < 1e-9
        print(f"  gr4j_calibration (pure Python loop) {py_cal:7.2f} s   {py_cal / c_best:7.0f}x the compiled one")


if __name__ == "__main__":
    main()
