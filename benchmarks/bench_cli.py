"""A cold CLI study, whole process, side by side: every deliverable with and without the worker processes, and
the same study writing the Markdown report only (its figures included).

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/bench_cli.py [--rounds 2]``. Each variant is a fresh
``python -m graphs.cli studio "Design flow for a road crossing, 100-year" --lat 41.10 --lon -74.96 --yes --out DIR``;
the variants alternate within a round. Printed per run: wall clock, CPU seconds (user + sys of the process and every
process it started and waited for, the workers included) and the load average at its end; then per variant the
best wall clock and the best CPU seconds, each as a ratio to the first variant's (Markdown only, everything in one
process). On a loaded machine compare the CPU columns and the ratios; nothing is asserted.

Before the first round the project's modules of each tree run are byte-compiled (``compileall``), as an installed
package is: a tree run with PYTHONDONTWRITEBYTECODE set and no ``__pycache__`` compiles every project module from
source in every process (about 0.2-0.3 CPU s a study). ``--no-compile`` leaves the trees as they are.
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
    "markdown only, the CLI's default": {"AQUASCOPE_FORMATS": "md"},
    "every deliverable, one forked worker": {"AQUASCOPE_DELIVERABLE_WORKERS": "fork"},
}
PACKAGES = ("aquascope_core", "roles", "graphs")


def compile_tree(root: str) -> None:
    """Write the byte-code caches of the project's modules under ``root`` (as installing the package does)."""
    import compileall

    for pkg in PACKAGES:
        compileall.compile_dir(os.path.join(root, pkg), quiet=1)


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
    done = subprocess.run([sys.executable, "-m", "graphs.cli", *CMD, "--out", out], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if done.returncode != 0:
        sys.exit(f"the study failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--only", default=None, help="comma-separated variant numbers (1-based)")
    ap.add_argument("--against", default=None, metavar="DIR",
                    help="also run each variant from this copy of the project (alternating, in the same rounds)")
    ap.add_argument("--no-compile", action="store_true",
                    help="do not byte-compile the project's modules first (see the module's text)")
    args = ap.parse_args()
    if not args.no_compile:
        for root in [os.environ.get("PYTHONPATH", "").split(os.pathsep)[0] or os.getcwd()] + (
                [args.against] if args.against else []):
            compile_tree(os.path.abspath(root))
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
            print(f"round {r + 1}: {name}: wall {wall:.2f} s, CPU {cpu:.2f} s, load {os.getloadavg()[0]:.1f}",
                  flush=True)
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
