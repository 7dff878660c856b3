"""Gym timings: seconds per task of the keyless crew on the shipped tasks, against the tree in the same process.

Run: ``.venv/bin/python benchmarks/bench_gym.py [--rounds 2] [--limit N] [--pixels]``. After one warm-up pass (the
catalogue read, the numba kernels loaded), each round runs the tree and the keyless crew (``team``, as the gym runs
it: report.md with its figures described, ``graphs.gym_agents.GYM_FORMATS``) task by task in one process; each
task's fastest round is kept, split into the tasks the tree solves and those it declines, with the share of the
crew's time spent reading the user's uploads. ``--pixels`` adds the crew drawing its figures as PNG files (``md``,
what a user asking for Markdown gets). Wall seconds and CPU seconds of the process (every thread; the figure
workers are off, ``AQUASCOPE_DELIVERABLE_WORKERS=0``, unless set, so that the CPU is all in this process) are
printed with their ratios to the tree. Scoring is timed apart. Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("AQUASCOPE_DELIVERABLE_WORKERS", "0")


def _run(tasks, agent, root):
    from graphs.gym_agents import run_agent

    return [run_agent(t, agent, store_root=Path(root) / agent / t.id) for t in tasks]


def _upload_seconds(tasks) -> float:
    """What reading the uploads costs, once per task, the way a study reads them (entry, then the context)."""
    from aquascope_core.gym.tasks import resolve_uploads
    from aquascope_core.tools.context import DataContext, table_entry

    t0 = time.perf_counter()
    for t in tasks:
        entries = {n: table_entry(n, p) for n, p in resolve_uploads(t.uploads).items()}
        if entries:
            DataContext.from_tables(entries, {"lat": t.site["lat"], "lon": t.site["lon"]})
    return time.perf_counter() - t0


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--pixels", action="store_true", help="also the crew with its figures drawn (PNG)")
    args = ap.parse_args(argv)

    from aquascope_core.gym import SHIPPED_TASKS, read_tasks
    from aquascope_core.gym.scoring import score

    tasks = read_tasks(SHIPPED_TASKS)[: args.limit]
    solvable = [t for t in tasks if not t.unsolvable]
    root = tempfile.mkdtemp(prefix="bench-gym-")
    t0 = time.perf_counter()
    _run(tasks, "team", root)  # warm-up
    warm = time.perf_counter() - t0
    # the two agents run task by task, side by side, so a change in the machine's load hits both alike;
    # each task keeps its fastest round per agent
    from graphs import gym_agents
    from graphs.gym_agents import run_agent

    variants = {"tree": ("tree", None), "team": ("team", gym_agents.GYM_FORMATS)}
    if args.pixels:
        variants["team, figures drawn"] = ("team", "md")
    spec_formats = gym_agents.GYM_FORMATS
    best: dict[str, list[dict]] = {v: [None] * len(tasks) for v in variants}
    for _ in range(args.rounds):
        for i, t in enumerate(tasks):
            for name, (agent, formats) in variants.items():
                gym_agents.GYM_FORMATS = formats or spec_formats
                c0 = time.process_time()
                o = run_agent(t, agent, store_root=Path(root) / name.replace(" ", "_").replace(",", "") / t.id)
                o["cpu"] = time.process_time() - c0
                if best[name][i] is None or o["seconds"] < best[name][i]["seconds"]:
                    best[name][i] = o
    gym_agents.GYM_FORMATS = spec_formats
    t0 = time.perf_counter()
    rows = [score(t, o) for t, o in zip(tasks, best["team"])]
    t_score = (time.perf_counter() - t0) / len(tasks)
    uploads = min(_upload_seconds(tasks) for _ in range(args.rounds))

    def per(outs, which, key="seconds"):
        ids = {t.id for t in which}
        xs = [o[key] for t, o in zip(tasks, outs) if t.id in ids]
        return statistics.fmean(xs) if xs else float("nan")

    tree, team = best["tree"], best["team"]
    n_up = sum(bool(t.uploads) for t in tasks)
    print(f"{len(tasks)} tasks ({len(solvable)} solvable, {n_up} with uploads); warm-up pass {warm:.1f} s; "
          f"best of {args.rounds} rounds; figure workers {os.environ.get('AQUASCOPE_DELIVERABLE_WORKERS')}")
    print(f"{'what (per task)':40s} {'agent':20s} {'wall s':>8s} {'/ tree':>7s} {'CPU s':>8s} {'/ tree':>7s}")
    for label, which in (("all", tasks), ("solvable", solvable), ("declined", [t for t in tasks if t.unsolvable])):
        for name in variants:
            a, b = per(best[name], which), per(best[name], which, "cpu")
            print(f"{label:40s} {name:20s} {a:8.3f} {a / per(tree, which):7.2f} {b:8.3f} "
                  f"{b / per(tree, which, 'cpu'):7.2f}")
    total_team = sum(o["seconds"] for o in team)
    print(f"{'reading the uploads, per task (in both agents)':58s} {uploads / len(tasks):9.3f} "
          f"{'':9s} {100 * uploads / total_team:8.0f} % of team")
    print(f"{'scoring a team outcome (report file, evidence, gates)':58s} {'':9s} {t_score:9.3f}")
    print(f"team keyless: {sum(r['correct'] for r in rows)}/{len(rows)} correct, "
          f"{sum(bool(r['faithful']) for r in rows)}/{len(rows)} faithful")


if __name__ == "__main__":
    main()
