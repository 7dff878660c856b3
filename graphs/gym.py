"""`aquascope gym`: run an agent on the gym's tasks, score it, compare runs, print the leaderboard.

    aquascope gym bench --agent team                         # the shipped tasks, keyless crew
    aquascope gym bench --tasks tasks.jsonl --agent ask --model openai/my-model --base-url http://127.0.0.1:8080/v1
    aquascope gym compare before.jsonl after.jsonl           # tasks whose outcome changed
    aquascope gym board results/*.jsonl                       # one leaderboard over several runs
    aquascope gym tasks --out tasks.jsonl [--seed 7]          # write a task file from the playbooks

`bench` writes the scored rows as JSONL (``--out``, default ``gym-results/<agent>[-<model>].jsonl``) and the
leaderboard beside it (``.md``), prints the leaderboard, and shows a progress bar on stderr.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "ProgressBar"]


class ProgressBar:
    """A one-line bar on stderr (redrawn in place on a terminal, one line a task otherwise)."""

    def __init__(self, total: int, label: str, *, quiet: bool = False, stream: Any = None) -> None:
        self.total, self.label, self.quiet = total, label, quiet
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.t0 = time.perf_counter()
        self.wrong = 0

    def __call__(self, done: int, total: int, row: dict[str, Any]) -> None:
        from graphs.gym_agents import describe_row

        if not row.get("correct"):
            self.wrong += 1
        if self.quiet:
            return
        width = 24
        fill = int(width * done / max(total, 1))
        rate = (time.perf_counter() - self.t0) / max(done, 1)
        line = (f"{self.label} [{'#' * fill}{'.' * (width - fill)}] {done}/{total} {rate:.2f} s/task "
                f"{self.wrong} wrong | {describe_row(row)}")
        if self.tty:
            self.stream.write("\r" + line[:160].ljust(160) + ("\n" if done == total else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def _default_out(agent: str, model: str | None) -> Path:
    tag = agent + (("-" + re.sub(r"[^A-Za-z0-9._-]+", "_", model)) if model else "")
    return Path("gym-results") / f"{tag}.jsonl"


def cmd_bench(args: argparse.Namespace) -> int:
    from aquascope_core.gym.board import leaderboard, write_results
    from aquascope_core.gym.tasks import SHIPPED_TASKS, read_tasks
    from graphs.gym_agents import bench

    path = Path(args.tasks) if args.tasks else SHIPPED_TASKS
    tasks = read_tasks(path, split=args.split)
    if args.limit is not None:
        tasks = tasks[: args.limit]
    bar = ProgressBar(len(tasks), f"{args.agent}{'/' + args.model if args.model else ''}", quiet=args.quiet)
    rows = bench(tasks, args.agent, model=args.model, base_url=args.base_url, api_key=args.api_key,
                 timeout=args.timeout, workers=args.workers, base=path.parent, on_progress=bar, keep_dir=args.keep)
    out = Path(args.out) if args.out else _default_out(args.agent, args.model)
    write_results(rows, out)
    board = leaderboard(rows, title=f"Gym leaderboard: {path.name}" + (f" ({args.split})" if args.split else ""))
    out.with_suffix(".md").write_text(board, encoding="utf-8")
    print(board)
    print(f"results: {out}  leaderboard: {out.with_suffix('.md')}", file=sys.stderr)
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from aquascope_core.gym.board import compare, compare_markdown, read_results

    changes = compare(read_results(args.a), read_results(args.b))
    print(compare_markdown(changes), end="")
    print(f"{len(changes)} task(s) changed their outcome", file=sys.stderr)
    return 0


def cmd_board(args: argparse.Namespace) -> int:
    from aquascope_core.gym.board import leaderboard, read_results

    rows = [r for f in args.results for r in read_results(f)]
    print(leaderboard(rows), end="")
    return 0


def cmd_tasks(args: argparse.Namespace) -> int:
    from aquascope_core.gym.tasks import tasks_from_playbooks, write_tasks

    tasks = tasks_from_playbooks(playbooks=args.playbook or None, seed=args.seed, test_fraction=args.test_fraction)
    write_tasks(tasks, args.out)
    solvable = sum(not t.unsolvable for t in tasks)
    print(f"wrote {len(tasks)} tasks ({solvable} solvable) to {args.out}", file=sys.stderr)
    return 0


def add_parser(sub: Any) -> None:
    """Add `gym` and its subcommands to the CLI's subparsers."""
    g = sub.add_parser("gym", help="benchmark an agent on tasks made from the playbooks")
    gs = g.add_subparsers(dest="gym_command", required=True)

    b = gs.add_parser("bench", help="run an agent on every task, score it, write results and the leaderboard")
    b.add_argument("--tasks", help="a JSONL task file (default: the shipped one)")
    b.add_argument("--agent", choices=["tree", "team", "ask"], required=True)
    b.add_argument("--model", help="a litellm model string (team: the crew's model; ask: required)")
    b.add_argument("--base-url", dest="base_url", help="an OpenAI-compatible server for the model")
    b.add_argument("--api-key", dest="api_key", help="the model's key (else the provider's environment variable)")
    b.add_argument("--timeout", type=float, default=120.0, help="seconds per model call (default 120)")
    b.add_argument("--workers", type=int, default=1, help="tasks run at once (threads in one process; default 1)")
    b.add_argument("--split", choices=["train", "test"], help="only the tasks of one split")
    b.add_argument("--limit", type=int, help="only the first N tasks")
    b.add_argument("--out", help="results JSONL (default gym-results/<agent>[-<model>].jsonl; the .md beside it)")
    b.add_argument("--keep", metavar="DIR", help="keep each task's report files under DIR/<task id>/")
    b.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    b.set_defaults(func=cmd_bench)

    c = gs.add_parser("compare", help="the tasks whose outcome changed between two results files")
    c.add_argument("a")
    c.add_argument("b")
    c.set_defaults(func=cmd_compare)

    d = gs.add_parser("board", help="one leaderboard over several results files")
    d.add_argument("results", nargs="+")
    d.set_defaults(func=cmd_board)

    t = gs.add_parser("tasks", help="write a task file from the playbooks (keys from the tree)")
    t.add_argument("--out", required=True)
    t.add_argument("--seed", type=int, default=14)
    t.add_argument("--test-fraction", dest="test_fraction", type=float, default=0.3)
    t.add_argument("--playbook", action="append", help="only this playbook (repeatable)")
    t.set_defaults(func=cmd_tasks)
