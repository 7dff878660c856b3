"""Gym timings: seconds per task of the keyless crew on the shipped tasks, against the tree in the same process.

Run: ``.venv/bin/python benchmarks/bench_gym.py [--rounds 2] [--limit N]``. After one warm-up pass (the
catalogue read, the numba kernels loaded), each round runs the tree and the keyless crew (``team``) task by task
in one process; each task's fastest round is kept, split into the tasks the tree solves
and those it declines, with the share of the crew's time spent reading the user's uploads (every study
parses its tables when it starts). Scoring is timed apart. Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


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
    from graphs.gym_agents import run_agent

    best: dict[str, list[dict]] = {"tree": [None] * len(tasks), "team": [None] * len(tasks)}
    for _ in range(args.rounds):
        for i, t in enumerate(tasks):
            for agent in ("tree", "team"):
                o = run_agent(t, agent, store_root=Path(root) / agent / t.id)
                if best[agent][i] is None or o["seconds"] < best[agent][i]["seconds"]:
                    best[agent][i] = o
    t0 = time.perf_counter()
    rows = [score(t, o) for t, o in zip(tasks, best["team"])]
    t_score = (time.perf_counter() - t0) / len(tasks)
    uploads = min(_upload_seconds(tasks) for _ in range(args.rounds))

    def per(outs, which):
        ids = {t.id for t in which}
        xs = [o["seconds"] for t, o in zip(tasks, outs) if t.id in ids]
        return statistics.fmean(xs) if xs else float("nan")

    tree, team = best["tree"], best["team"]
    n_up = sum(bool(t.uploads) for t in tasks)
    print(f"{len(tasks)} tasks ({len(solvable)} solvable, {n_up} with uploads); warm-up pass {warm:.1f} s; "
          f"best of {args.rounds} rounds")
    print(f"{'what':58s} {'tree':>9s} {'team':>9s} {'team/tree':>9s}")
    for label, which in (("seconds per task, all", tasks), ("seconds per task, solvable", solvable),
                         ("seconds per task, declined", [t for t in tasks if t.unsolvable])):
        a, b = per(tree, which), per(team, which)
        print(f"{label:58s} {a:9.3f} {b:9.3f} {b / a:9.2f}")
    total_team = sum(o["seconds"] for o in team)
    print(f"{'reading the uploads, per task (in both agents)':58s} {uploads / len(tasks):9.3f} "
          f"{'':9s} {100 * uploads / total_team:8.0f} % of team")
    print(f"{'scoring a team outcome (report file, evidence, gates)':58s} {'':9s} {t_score:9.3f}")
    print(f"team keyless: {sum(r['correct'] for r in rows)}/{len(rows)} correct, "
          f"{sum(bool(r['faithful']) for r in rows)}/{len(rows)} faithful")


if __name__ == "__main__":
    main()
