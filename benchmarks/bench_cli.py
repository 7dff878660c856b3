"""A cold CLI study, whole process, side by side: every deliverable with and without the worker processes, and
the same study writing the Markdown report only (its figures included).

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/bench_cli.py [--rounds 2]``. Each variant is a fresh
``python -m graphs.cli studio "Design flow for a road crossing, 100-year" --lat 41.10 --lon -74.96 --yes --out DIR``;
the variants alternate within a round. Printed per variant: the best wall clock and the best CPU seconds (user + sys
of the process and every process it started and waited for, the workers included), and each as a ratio to the
Markdown-only study of the same round. On a loaded machine compare the CPU columns and the ratios; nothing is
asserted.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

CMD = ["studio", "Design flow for a road crossing, 100-year", "--lat", "41.10", "--lon", "-74.96", "--yes", "-q"]
VARIANTS = {
    "markdown only, no workers": {"AQUASCOPE_FORMATS": "md", "AQUASCOPE_DELIVERABLE_WORKERS": "0"},
    "every deliverable, no workers": {"AQUASCOPE_DELIVERABLE_WORKERS": "0"},
    "every deliverable, 2 workers": {"AQUASCOPE_DELIVERABLE_WORKERS": "2"},
    "every deliverable, the CLI's default": {},
}


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_once(env_extra: dict[str, str], source: str | None = None) -> tuple[float, float]:
    env = {k: v for k, v in os.environ.items() if k not in ("AQUASCOPE_FORMATS", "AQUASCOPE_DELIVERABLE_WORKERS")}
    env.update(env_extra)
    if source:  # another copy of the project (e.g. ``git archive COMMIT | tar -x -C DIR``), run the same way
        env["PYTHONPATH"] = source
    home = tempfile.mkdtemp(prefix="aquascope-bench-home-")
    env["AQUASCOPE_HOME"] = home
    out = tempfile.mkdtemp(prefix="aquascope-bench-out-")
    cpu0, t0 = _children_cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-m", "graphs.cli", *CMD, "--out", out], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0, _children_cpu() - cpu0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--only", default=None, help="comma-separated variant numbers (1-based)")
    ap.add_argument("--against", default=None, metavar="DIR",
                    help="also run each variant from this copy of the project (alternating, in the same rounds)")
    args = ap.parse_args()
    names = list(VARIANTS)
    if args.only:
        names = [names[int(i) - 1] for i in args.only.split(",")]
    runs = [(name, None) for name in names]
    if args.against:
        runs = [r for name in names for r in ((name, None), (f"{name} [{args.against}]", args.against))]
        names = [n for n, _ in runs]
    best: dict[str, tuple[float, float]] = {}
    for r in range(args.rounds):
        for name, source in runs:
            wall, cpu = run_once(VARIANTS[name.split(" [")[0]], source)
            print(f"round {r + 1}: {name}: wall {wall:.2f} s, CPU {cpu:.2f} s", flush=True)
            w0, c0 = best.get(name, (float("inf"), float("inf")))
            best[name] = (min(w0, wall), min(c0, cpu))
    ref = best.get(names[0])
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")
    print("| variant | wall s (best) | CPU s (best) | wall / first | CPU / first |\n| --- | --- | --- | --- | --- |")
    for name in names:
        w, c = best[name]
        print(f"| {name} | {w:.2f} | {c:.2f} | {w / ref[0]:.2f} | {c / ref[1]:.2f} |")


if __name__ == "__main__":
    main()
