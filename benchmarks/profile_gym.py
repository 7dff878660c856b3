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
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from threadprof import ThreadProfiles  # noqa: E402


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

    with ThreadProfiles() as tp:
        for t in tasks:
            run_agent(t, args.agent, store_root=root / t.id)
    text = tp.report(sort=args.sort, top=args.top, save=args.save)
    print(f"{len(tasks)} {args.agent} tasks: {', '.join(t.id for t in tasks)}")
    print(f"threads profiled: {len(tp.profiles)}; CPU s (user+sys, profiled, so inflated): {tp.cpu_s:.2f}; "
          f"wall s: {tp.wall_s:.2f}")
    print(text)


if __name__ == "__main__":
    main()
