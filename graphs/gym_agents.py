"""The agents the gym runs on its tasks, and the bench loop that scores them (beside the crew, in graphs/:
the crew's headless entry point may drive its graph).

- ``tree``: the playbook tree alone, given the task's playbook and stated intake (the reference the key was
  made with; it writes no report, so its deliverable scores are not applicable);
- ``team``: the whole crew through :func:`graphs.solve.solve`, from the problem text alone: keyless, or with a
  model (``model=``, ``base_url=``, ``api_key=``);
- ``ask``: one model call given the problem, the reconnaissance, the playbooks and the tool catalogue; its
  plan (playbook, branch, steps with gates, or a decline) is validated against the catalogue and run with no
  further model call. It has no keyless behaviour: without a model it refuses to start.

    rows = bench(read_tasks(SHIPPED_TASKS), "team", workers=2, on_progress=print)
"""

from __future__ import annotations

import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from aquascope_core.errors import AquascopeError, DeclinedError, InputError
from aquascope_core.gym.scoring import score
from aquascope_core.gym.tasks import Task, resolve_uploads
from roles.model import make_model

__all__ = ["AGENTS", "run_agent", "bench", "describe_row", "ASK_SYSTEM", "ask_payload"]

AGENTS = ("tree", "team", "ask")

ASK_SYSTEM = (
    "You plan a hydrology study in one reply. The JSON gives the problem, what exists at the site (the "
    "reconnaissance), the playbooks (each with branches: the conditions under which a branch applies and its tools) "
    "and the tool catalogue (every tool a step may name, with its arguments). Choose the playbook and the first "
    "branch whose conditions the site meets, or decline when no branch can be defended with the data found. "
    "Reply with one JSON object: {\"decline\": null or \"<why>\", \"playbook\": \"<id>\", \"branch\": \"<id>\", "
    "\"intake\": {...}, \"steps\": [{\"id\": \"s1\", \"tool\": \"<tool id>\", \"arguments\": {...}, "
    "\"expects\": [{\"check\": ..., ...gate fields}], \"depends_on\": [...]}]}. Every step needs gates (expects). "
    "Write no numbers of results: the tools compute them."
)


def _uploads(task: Task, base: str | Path | None) -> dict[str, Path]:
    return resolve_uploads(task.uploads, base)


def _outcome(agent: str, model: Any, **kw: Any) -> dict[str, Any]:
    out = {"agent": agent, "model": getattr(model, "model", model) if model else None, "declined": False, "reason": None,
           "playbook": None, "branch": None, "study": None, "run": None, "workspace": None, "store_root": None,
           "tokens": 0, "usd": 0.0, "seconds": 0.0, "error": None}
    out.update(kw)
    return out


def _recon_and_data(task: Task, uploads: Mapping[str, Path], playbook: str | None):
    from aquascope_core import playbooks
    from aquascope_core.recon import assess_site
    from aquascope_core.tools.context import DataContext, table_entry

    entries = {name: table_entry(name, path) for name, path in uploads.items()}
    data = DataContext.from_tables(entries, {"lat": task.site["lat"], "lon": task.site["lon"]})
    problem = playbooks.load(playbook).get("problem", playbook) if playbook else None
    recon = assess_site(task.site["lat"], task.site["lon"], problem=problem,
                        return_period=task.intake.get("return_period"),
                        extra_sources=[data.uploads] if data.uploads is not None else [])
    return recon, data


def _tree(task: Task, uploads: Mapping[str, Path], **_: Any) -> dict[str, Any]:
    from aquascope_core import playbooks
    from aquascope_core.catalogue import callables
    from aquascope_core.runner import run_study

    recon, data = _recon_and_data(task, uploads, task.playbook)
    try:
        study = playbooks.plan(task.playbook, recon, task.intake, question=task.text)
    except DeclinedError as exc:
        return _outcome("tree", None, declined=True, reason=exc.message, playbook=task.playbook)
    run = run_study(study, callables=callables(data=data))
    return _outcome("tree", None, playbook=task.playbook, branch=study.plan.get("branch"), study=study.to_dict(),
                    run=run.to_dict())


def _costs(ledger: Mapping[str, Any]) -> tuple[int, float | None]:
    tokens = sum(int(v.get("prompt_tokens") or 0) + int(v.get("completion_tokens") or 0) for v in ledger.values())
    costs = [v.get("cost_usd") for v in ledger.values()]
    return tokens, (None if any(c is None for c in costs) else round(sum(costs), 6))


# What the gym scores of a crew's delivery: report.md and the figures it shows (aquascope_core.gym.deliverable).
# The Word report, HTML, workbook, notebook and bundle are never read by the scoring, so they are not made; the
# figures are scored by what they plot (each one built from its step's payload and described, "spec"), not by
# their pixels, so they are not laid out or rendered ("md" draws them as PNG files, as a user gets them).
GYM_FORMATS = "md,spec"


def _crew_solve() -> Callable[..., Any]:
    """The crew's headless entry point: ``graphs.solve.solve``, the crew as its compiled graph."""
    from graphs.solve import solve

    return solve


def _team(task: Task, uploads: Mapping[str, Path], *, model: Any = None, store_root: Path, **_: Any) -> dict[str, Any]:
    solve = _crew_solve()
    r = solve(task.text, lat=task.site["lat"], lon=task.site["lon"], tables=dict(uploads),
              client=model, artifact_root=str(store_root), formats=GYM_FORMATS)
    ws = r.workspace
    plan = (r.study.plan if r.study else {}) or {}
    tokens, usd = _costs(ws.get("ledger") or {})
    return _outcome("team", model, declined=r.declined, reason=r.declined_reason,
                    playbook=plan.get("playbook") or (ws.get("brief") or {}).get("playbook"),
                    branch=plan.get("branch"), study=r.study.to_dict() if r.study else None,
                    run=r.run.to_dict() if r.run else None, workspace=ws, store_root=str(store_root),
                    tokens=tokens, usd=usd)


# -- ask ---------------------------------------------------------------------------------------------

def ask_payload(task: Task, recon: Mapping[str, Any]) -> dict[str, Any]:
    """What the single call sees: the problem, the site's inventory, the playbooks' trees, the catalogue."""
    from aquascope_core import catalogue, playbooks

    stations = [{"source": s.get("source"), "station_id": s.get("station_id"), "name": s.get("name"),
                 "distance_km": s.get("distance_km"), "area_km2": s.get("area_km2"),
                 "variables": [{k: v.get(k) for k in ("variable", "unit", "resolution", "years", "usable")}
                               for v in s.get("variables") or []]} for s in (recon.get("stations") or [])[:8]]
    ctx = recon.get("context") or {}
    books = []
    for p in playbooks.list_playbooks():
        d = playbooks.describe_playbook(p["id"])
        books.append({"id": d["id"], "summary": d["summary"],
                      "intake": [{k: q.get(k) for k in ("name", "type", "default", "options")} for q in d["intake"]],
                      "declines": d["declines"],
                      "branches": [{k: b[k] for k in ("id", "label", "when", "variable", "steps")} for b in d["branches"]]})
    tools = [{"id": t["id"], "purpose": t.get("purpose"),
              "arguments": {a: {k: spec.get(k) for k in ("type", "required", "default")}
                            for a, spec in (t.get("arguments") or {}).items()}} for t in catalogue.compact()]
    return {"problem": task.text, "site": {"lat": task.site["lat"], "lon": task.site["lon"]},
            "recon": {"stations": stations, "notes": recon.get("notes"),
                      "context": {k: ctx.get(k) for k in ("years_by_variable", "resolution_by_variable", "area_km2",
                                                          "donors", "available")}},
            "playbooks": books, "tools": tools}


def _ask_validator(recon: Mapping[str, Any]):
    from aquascope_core import playbooks
    from aquascope_core.catalogue import validate_plan
    from aquascope_core.study import Study

    known = {p["id"]: p["branches"] for p in playbooks.list_playbooks()}

    def check(obj: Any) -> dict[str, Any]:
        if not isinstance(obj, Mapping):
            raise ValueError("the reply must be a JSON object")
        if isinstance(obj.get("decline"), str) and obj["decline"].strip():
            return {"decline": obj["decline"].strip(), "playbook": obj.get("playbook")}
        pid, bid = obj.get("playbook"), obj.get("branch")
        if pid not in known:
            raise ValueError(f"playbook {pid!r} is not one of {', '.join(known)}")
        if bid not in known[pid]:
            raise ValueError(f"branch {bid!r} is not a branch of {pid} ({', '.join(known[pid])})")
        steps = obj.get("steps")
        if not isinstance(steps, list) or not steps:
            raise ValueError("a plan needs a non-empty list of steps (or a decline)")
        try:
            study = Study.from_dict({"version": 2, "steps": steps,
                                     "plan": {"playbook": pid, "branch": bid, "author": "ask"},
                                     "problem": {"kind": pid, "params": dict(obj.get("intake") or {})}})
        except AquascopeError as exc:
            raise ValueError(str(exc)) from None
        errors = validate_plan(study, site=recon.get("context"))
        if errors:
            raise ValueError("the plan does not validate: " + "; ".join(errors[:6]))
        return {"decline": None, "playbook": pid, "branch": bid, "study": study}

    return check


def _ask(task: Task, uploads: Mapping[str, Path], *, model: Any = None, **_: Any) -> dict[str, Any]:
    from aquascope_core.catalogue import callables
    from aquascope_core.runner import run_study
    from aquascope_core.workspace import Workspace

    if model is None:
        raise InputError("the ask agent is one model call: it cannot run without a model", argument="agent",
                         value="ask", recovery="Give --model (and --base-url for a local server), or use "
                                               "--agent tree or --agent team, which run keyless.")
    recon, data = _recon_and_data(task, uploads, None)
    ledger = Workspace()  # only its ledger is used: the tokens and cost of the call
    reply = model.call_json(ledger, "ask", ASK_SYSTEM, ask_payload(task, recon), _ask_validator(recon))
    tokens, usd = _costs(ledger.ledger)
    if reply is None:
        return _outcome("ask", model, error="the model's plan could not be used after one repair", tokens=tokens, usd=usd)
    if reply["decline"]:
        return _outcome("ask", model, declined=True, reason=reply["decline"], playbook=reply.get("playbook"),
                        tokens=tokens, usd=usd)
    study = reply["study"]
    run = run_study(study, callables=callables(data=data))
    return _outcome("ask", model, playbook=reply["playbook"], branch=reply["branch"], study=study.to_dict(),
                    run=run.to_dict(), tokens=tokens, usd=usd)


_RUNNERS: dict[str, Callable[..., dict[str, Any]]] = {"tree": _tree, "team": _team, "ask": _ask}


def run_agent(task: Task, agent: str, *, model: Any = None, base: str | Path | None = None,
              store_root: str | Path | None = None) -> dict[str, Any]:
    """The agent's outcome on one task, timed; a failure inside the agent is recorded, not raised."""
    if agent not in _RUNNERS:
        raise InputError.bad_value("agent", agent, "one of " + ", ".join(AGENTS))
    uploads = _uploads(task, base)
    t0 = time.perf_counter()
    try:
        out = _RUNNERS[agent](task, uploads, model=model, store_root=Path(store_root or tempfile.mkdtemp()))
    except InputError as exc:
        if agent == "ask" and model is None:
            raise
        out = _outcome(agent, model, error=f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # noqa: BLE001 - one task's crash is a scored failure, the bench goes on
        out = _outcome(agent, model, error=f"{type(exc).__name__}: {exc}")
    out["seconds"] = time.perf_counter() - t0
    return out


def bench(tasks: Sequence[Task], agent: str, *, model: str | Any = None, base_url: str | None = None,
          api_key: str | None = None, timeout: float = 120.0, workers: int = 1, base: str | Path | None = None,
          on_progress: Callable[[int, int, dict[str, Any]], None] | None = None,
          keep_dir: str | Path | None = None) -> list[dict[str, Any]]:
    """Run ``agent`` on every task and return the scored rows in task order.

    ``workers`` threads share one process (the caches of the catalogue and the records are shared);
    ``keep_dir`` keeps each task's report files under ``keep_dir/<task id>/`` (else a temporary folder
    removed at the end).
    """
    if agent not in AGENTS:
        raise InputError.bad_value("agent", agent, "one of " + ", ".join(AGENTS))
    if not isinstance(workers, int) or workers < 1:
        raise InputError.bad_value("workers", workers, "a whole number of at least 1")
    the_model = make_model(model, api_key=api_key, base_url=base_url, timeout=timeout) if isinstance(model, str) else model
    if agent == "ask" and the_model is None:
        raise InputError("the ask agent is one model call: it cannot run without a model", argument="agent",
                         value="ask", recovery="Give --model (and --base-url for a local server), or use "
                                               "--agent tree or --agent team, which run keyless.")
    root = Path(keep_dir) if keep_dir else Path(tempfile.mkdtemp(prefix="aquascope-gym-"))
    done = 0
    rows: list[dict[str, Any] | None] = [None] * len(tasks)

    def one(i: int) -> tuple[int, dict[str, Any]]:
        task = tasks[i]
        outcome = run_agent(task, agent, model=the_model, base=base, store_root=root / task.id)
        return i, score(task, outcome)

    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for i, row in pool.map(one, range(len(tasks))) if workers > 1 else map(one, range(len(tasks))):
                rows[i] = row
                done += 1
                if on_progress is not None:
                    on_progress(done, len(tasks), row)
    finally:
        if not keep_dir:
            shutil.rmtree(root, ignore_errors=True)
    return [r for r in rows if r is not None]


def describe_row(row: Mapping[str, Any]) -> str:
    """One short line for a results row (the CLI's progress and failure listing)."""
    mark = "ok" if row.get("correct") else "WRONG"
    got = "declined" if row.get("declined") else f"{row.get('chosen_playbook')}/{row.get('branch')}"
    want = "declined" if row.get("unsolvable") else f"{row.get('playbook')}/{row.get('expected_branch')}"
    extra = "" if row.get("faithful") in (None, True) else " unfaithful"
    return f"{mark} {row['task']}: {got} (key {want}){extra}" + (f" error: {row['error']}" if row.get("error") else "")
