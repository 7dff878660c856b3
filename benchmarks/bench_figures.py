"""The cost of the figures of a study, against running the study itself in the same process.

    .venv/bin/python benchmarks/bench_figures.py [--repeats 3] [--study flood|bulletin17c|drought|supply]

For one study planned by its playbook and run keyless on the embedded data, prints: the run (reference),
the first ``figures_for_study`` in the process (importing matplotlib included), the best of the later calls,
and the best time of each figure, each with its ratio to the run, in CPU seconds of this process (the wall
clock of one call is printed beside the load average). Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

STUDIES = {
    "flood": ("flood_risk", 41.10, -74.96, {"return_period": 100}),
    "bulletin17c": ("flood_risk", 36.0, -88.2, {"return_period": 100}),
    "drought": ("drought_status", 31.7069, -89.4069, {}),
    "supply": ("supply_reliability", 41.10, -74.96, {"demand": 0.5, "storage_hm3": 2}),
}


# CPU time of this process: on a shared machine it moves far less with the other processes' load than the wall
# clock does (the wall clock is printed too, for the record).
clock = time.process_time


def best(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t = clock()
        out = fn()
        times.append(clock() - t)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--study", choices=sorted(STUDIES), default="flood")
    args = ap.parse_args()

    from aquascope_core import playbooks
    from aquascope_core.catalogue import callables
    from aquascope_core.recon import assess_site
    from aquascope_core.runner import run_study

    playbook, lat, lon, intake = STUDIES[args.study]
    recon = assess_site(lat, lon, radius_km=50.0, problem=playbook, return_period=intake.get("return_period"))
    study = playbooks.plan(playbook, recon, intake)
    fns = callables()
    run_study(study, callables=fns)  # warm the data caches and compiled kernels
    t_run, run = best(lambda: run_study(study, callables=fns), args.repeats)
    study_d, run_d = study.to_dict(), run.to_dict()

    t0 = clock()
    from aquascope_core.deliverables.figures import FIGURE_KINDS, draw, figures_for_study

    first = figures_for_study(study_d, run_d, inventory=recon)
    t_first = clock() - t0
    t_warm, figs = best(lambda: figures_for_study(study_d, run_d, inventory=recon), args.repeats)
    w0 = time.perf_counter()
    figures_for_study(study_d, run_d, inventory=recon)
    t_wall = time.perf_counter() - w0

    print(f"study: {args.study} ({study.plan.get('branch')}), {len(figs)} figures, best of {args.repeats}, CPU seconds")
    print(f"{'what':58s} {'time':>9s} {'x run':>7s}")
    print(f"{'run_study (the reference)':58s} {t_run:8.3f}s {1.0:7.2f}")
    print(f"{'figures_for_study, first in the process (matplotlib import)':58s} {t_first:8.3f}s {t_first / t_run:7.2f}")
    print(f"{'figures_for_study, later calls':58s} {t_warm:8.3f}s {t_warm / t_run:7.2f}")
    results = {s: r for s, r in run_d["results"].items()}
    for f in first:
        res = results.get(f["step"]) or {}
        payload = recon if f["step"] is None else res.get("payload")
        ctx = {"step": f["step"], "arguments": res.get("arguments") or {}, "params": study_d["problem"]["params"]}
        t, _ = best(lambda: draw(f["kind"], payload, number=f["number"], context=ctx), args.repeats)
        print(f"{'  ' + f['id'] + ' (PNG ' + str(len(f['png']) // 1024) + ' KB, SVG ' + str(len(f['svg']) // 1024) + ' KB)':58s}"
              f" {t:8.3f}s {t / t_run:7.2f}")
    print(f"(one more figures_for_study by the wall clock: {t_wall:.3f}s; load average "
          f"{' '.join(f'{x:.1f}' for x in __import__('os').getloadavg())}; {len(FIGURE_KINDS)} figure kinds in all)")


if __name__ == "__main__":
    main()
