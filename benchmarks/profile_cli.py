"""Where a cold CLI study spends its CPU: cProfile in every thread (LangGraph runs the nodes in worker threads).

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/profile_cli.py [--out DIR] [--top 40] [--save FILE] -- studio
"Design flow for a road crossing, 100-year" --lat 41.10 --lon -74.96 --yes``. Each thread that runs Python gets its
own ``cProfile.Profile`` (started by ``threading.setprofile`` on the thread's first call); at the end the profiles
are merged and printed by cumulative time, with the process's CPU seconds (user + sys) beside the wall clock, and
the CPU of the stretch before the first node ran (imports and setup). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import resource
import sys
import tempfile
import threading
import time


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--save", default=None, help="write the merged stats here (pstats format)")
    ap.add_argument("--sort", default="cumulative")
    ap.add_argument("cli", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cli = [a for a in args.cli if a != "--"]
    if "--out" not in cli:
        cli += ["--out", tempfile.mkdtemp(prefix="aquascope-prof-")]

    profiles: list[cProfile.Profile] = []
    lock = threading.Lock()

    def start_in_thread(frame, event, arg):  # first call in a new thread: give it its own profiler
        prof = cProfile.Profile()
        with lock:
            profiles.append(prof)
        prof.enable()  # replaces this hook for the thread

    threading.setprofile(start_in_thread)
    main_prof = cProfile.Profile()
    profiles.append(main_prof)
    cpu0, wall0 = _cpu(), time.perf_counter()
    main_prof.enable()
    try:
        from graphs.cli import main as cli_main

        cpu_imported = _cpu()
        try:
            cli_main(cli)
        except SystemExit:
            pass
    finally:
        main_prof.disable()
        threading.setprofile(None)
    cpu1, wall1 = _cpu(), time.perf_counter()
    for p in profiles[1:]:
        try:
            p.disable()
        except Exception:  # a profiler of a finished thread
            pass
    buf = io.StringIO()
    stats = pstats.Stats(profiles[0], stream=buf)
    for p in profiles[1:]:
        try:
            stats.add(p)
        except TypeError:  # a thread that never recorded a call
            pass
    if args.save:
        stats.dump_stats(args.save)
    stats.sort_stats(args.sort).print_stats(args.top)
    print(f"threads profiled: {len(profiles)}")
    print(f"CPU s (user+sys, profiled, so inflated): {cpu1 - cpu0:.2f}; of which importing graphs.cli: "
          f"{cpu_imported - cpu0:.2f}; wall s: {wall1 - wall0:.2f}")
    print(buf.getvalue())


if __name__ == "__main__":
    sys.exit(main())
