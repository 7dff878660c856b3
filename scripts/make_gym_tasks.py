#!/usr/bin/env python
"""Write the gym's shipped task file, aquascope_core/gym/tasks.jsonl, from the playbooks.

Usage::

    python scripts/make_gym_tasks.py              # rewrite the shipped file (keys from the tree, run keyless)
    python scripts/make_gym_tasks.py --check      # regenerate in memory and list the tasks whose key changed
    python scripts/make_gym_tasks.py --out F.jsonl --seed 7

The sites are aquascope_core.gym.sites.DEFAULT_SITES, the questions aquascope_core.gym.phrasings.SCENARIOS.
A key can drift when the engine changes what it can defend (or, for staleness rules, with today's date):
``--check`` says which tasks, so the change is a decision rather than a surprise.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aquascope_core.gym.tasks import SHIPPED_TASKS, read_tasks, tasks_from_playbooks, write_tasks  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(SHIPPED_TASKS))
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--check", action="store_true", help="compare with the file at --out instead of writing it")
    args = ap.parse_args(argv)
    tasks = tasks_from_playbooks(seed=args.seed)
    if args.check:
        old = {t.id: t for t in read_tasks(args.out)}
        changed = [t.id for t in tasks if t.id not in old or json.dumps(old[t.id].to_dict(), sort_keys=True)
                   != json.dumps(t.to_dict(), sort_keys=True)]
        gone = sorted(set(old) - {t.id for t in tasks})
        for tid in changed:
            print(f"changed: {tid}")
        for tid in gone:
            print(f"gone: {tid}")
        print(f"{len(tasks)} tasks, {len(changed)} changed, {len(gone)} gone")
        return 1 if changed or gone else 0
    write_tasks(tasks, args.out)
    solvable = sum(not t.unsolvable for t in tasks)
    print(f"wrote {len(tasks)} tasks ({solvable} solvable, {len(tasks) - solvable} unsolvable, "
          f"{sum(t.split == 'test' for t in tasks)} in the test split) to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
