"""Where a gym task's CPU goes: cProfile in every thread (LangGraph runs the crew's nodes in worker threads).

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/profile_gym.py [--agent team] [--tasks 3] [--top 40]
[--sort tottime]``. The first ``--tasks`` solvable tasks of the shipped file are run once unprofiled (the
catalogue, the records and the numba kernels loaded), then again with a ``cProfile.Profile`` in each thread
(started by ``threading.setprofile`` on the thread's first call), merged and printed, with the CPU seconds of the
process (user + sys) beside the wall clock. The profiler inflates the seconds; the shares are the figure.
Nothing is asserted.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agent", default="team")
    ap.add_argument("--tasks", type=int, default=3)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--sort", default="cumulative")
    ap.add_argument("--save", default=None, help="write the merged stats here (pstats format)")
    args = ap.parse_args(argv)

    from aquascope_core.gym import SHIPPED_TASKS, read_tasks
    from graphs.gym_agents import run_agent

    tasks = [t for t in read_tasks(SHIPPED_TASKS) if not t.unsolvable][: args.tasks]
    root = Path(tempfile.mkdtemp(prefix="profile-gym-"))
    for t in tasks:  # warm-up
        run_agent(t, args.agent, store_root=root / "warm" / t.id)

    profiles: list[cProfile.Profile] = []
    lock = threading.Lock()

    def start_in_thread(frame, event, arg):
        prof = cProfile.Profile()
        with lock:
            profiles.append(prof)
        prof.enable()

    threading.setprofile(start_in_thread)
    main_prof = cProfile.Profile()
    profiles.append(main_prof)
    cpu0, wall0 = _cpu(), time.perf_counter()
    main_prof.enable()
    try:
        for t in tasks:
            run_agent(t, args.agent, store_root=root / t.id)
    finally:
        main_prof.disable()
        threading.setprofile(None)
    cpu1, wall1 = _cpu(), time.perf_counter()
    for p in profiles[1:]:
        try:
            p.disable()
        except Exception:  # noqa: BLE001 - a profiler of a finished thread
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
    print(f"{len(tasks)} {args.agent} tasks: {', '.join(t.id for t in tasks)}")
    print(f"threads profiled: {len(profiles)}; CPU s (user+sys, profiled, so inflated): {cpu1 - cpu0:.2f}; "
          f"wall s: {wall1 - wall0:.2f}")
    print(buf.getvalue())


if __name__ == "__main__":
    main()
