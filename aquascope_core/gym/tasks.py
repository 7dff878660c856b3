"""Gym tasks: a question at a place, with the answer key the playbook tree gives.

    tasks = tasks_from_playbooks(DEFAULT_SITES)          # every site x playbook x scenario
    write_tasks(tasks, "tasks.jsonl"); tasks = read_tasks("tasks.jsonl")
    shipped = read_tasks(SHIPPED_TASKS)                   # the file the package ships

The key of a task is what the tree does with the question's stated intake at the site: the branch it
selects, the steps with the gates it expects (``expects`` of each step, verbatim), and the grade ceiling,
the best grade the evidence there supports (the tree's own run: A when every step passes its gates, B when
only an optional step does not, C when a required one does not or a fallback was used). A task is
``unsolvable`` when the playbook declines at the site (every branch refuses); its key then holds the
decline sentence instead.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from aquascope_core.errors import DeclinedError, InputError

__all__ = ["Task", "tasks_from_playbooks", "task_key", "write_tasks", "read_tasks", "split_tasks", "resolve_uploads",
           "ceiling_of", "GRADES", "SHIPPED_TASKS", "GYM_DIR"]

GYM_DIR = Path(__file__).resolve().parent
SHIPPED_TASKS = GYM_DIR / "tasks.jsonl"
GRADES = ("A", "B", "C", "not established")  # best first


@dataclass
class Task:
    id: str
    playbook: str
    text: str
    site: dict[str, Any]
    intake: dict[str, Any] = field(default_factory=dict)
    uploads: dict[str, str] = field(default_factory=dict)
    key: dict[str, Any] = field(default_factory=dict)
    split: str = "train"
    scenario: str = ""

    @property
    def unsolvable(self) -> bool:
        return bool(self.key.get("unsolvable"))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Task":
        missing = [k for k in ("id", "playbook", "text", "site") if k not in d]
        if missing:
            raise InputError(f"a gym task needs {', '.join(missing)} (task {d.get('id', '?')!r})", argument="task",
                             value=d.get("id"), recovery="Write tasks with tasks_from_playbooks or copy the shipped file.")
        site = dict(d["site"])
        if not isinstance(site.get("lat"), (int, float)) or not isinstance(site.get("lon"), (int, float)):
            raise InputError.bad_value("site", site, "a mapping with numeric lat and lon")
        return cls(id=str(d["id"]), playbook=str(d["playbook"]), text=str(d["text"]), site=site,
                   intake=dict(d.get("intake") or {}), uploads=dict(d.get("uploads") or {}),
                   key=dict(d.get("key") or {}), split=str(d.get("split") or "train"), scenario=str(d.get("scenario") or ""))


# -- uploads ----------------------------------------------------------------------------------------

def resolve_uploads(uploads: Mapping[str, str], base: str | Path | None = None) -> dict[str, Path]:
    """Upload name -> an existing file: a relative path is looked up beside the task file, then in the gym folder."""
    out = {}
    for name, rel in (uploads or {}).items():
        p = Path(rel)
        candidates = [p] if p.is_absolute() else [*(([Path(base) / p]) if base else []), GYM_DIR / p]
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            raise InputError(f"the upload {name!r} of a gym task names {rel!r}, which is not a file "
                             f"(looked in: {', '.join(str(c) for c in candidates)})", argument="uploads", value=rel,
                             recovery="Give the path relative to the task file, or an absolute path.")
        out[name] = found
    return out


# -- the key ----------------------------------------------------------------------------------------

def ceiling_of(run: Mapping[str, Any]) -> str:
    """The best grade a run supports (see the module doc); ``run`` is a StudyRun dict."""
    results = (run or {}).get("results") or {}
    if not results:
        return "not established"
    if any(r.get("status") != "ok" and not r.get("optional") for r in results.values()):
        return "C"
    if any(r.get("fallback_used") for r in results.values()):
        return "C"
    if any(r.get("status") != "ok" for r in results.values()):
        return "B"
    return "A"


def task_key(playbook: str, site: Mapping[str, Any], intake: Mapping[str, Any], uploads: Mapping[str, Path] | None = None,
             *, run: bool = True, radius_km: float = 50.0) -> dict[str, Any]:
    """The tree's answer at the site: ``{unsolvable, branch, decline, steps, ceiling}``."""
    from aquascope_core import playbooks
    from aquascope_core.catalogue import callables
    from aquascope_core.recon import assess_site
    from aquascope_core.runner import run_study
    from aquascope_core.tools.context import DataContext, table_entry

    entries = {name: table_entry(name, path) for name, path in (uploads or {}).items()}
    point = {"lat": site["lat"], "lon": site["lon"]}
    data = DataContext.from_tables(entries, point)
    pb = playbooks.load(playbook)
    recon = assess_site(site["lat"], site["lon"], radius_km=radius_km, problem=pb.get("problem", playbook),
                        return_period=intake.get("return_period"),
                        extra_sources=[data.uploads] if data.uploads is not None else [])
    try:
        study = playbooks.plan(playbook, recon, intake)
    except DeclinedError as exc:
        return {"unsolvable": True, "branch": None, "decline": exc.message, "steps": [], "ceiling": None}
    steps = [{"id": s.id, "tool": s.tool, "method": s.method, "optional": bool(s.optional),
              "expects": json.loads(json.dumps(s.expects, default=str))} for s in study.steps]
    key = {"unsolvable": False, "branch": study.plan["branch"], "decline": None, "steps": steps, "ceiling": None}
    if run:
        key["ceiling"] = ceiling_of(run_study(study, callables=callables(data=data)).to_dict())
    return key


# -- generation -------------------------------------------------------------------------------------

def _fill(value: Any, site: Mapping[str, Any]) -> Any:
    """``{area_km2}`` (and any other ``{site field}``) filled from the site; a lone placeholder keeps the number."""
    if isinstance(value, str):
        whole = re.fullmatch(r"\{(\w+)\}", value)
        if whole:
            return site[whole.group(1)]

        def sub(m: re.Match) -> str:
            v = site[m.group(1)]
            return f"{v:g}" if isinstance(v, float) else str(v)

        return re.sub(r"\{(\w+)\}", sub, value)
    if isinstance(value, Mapping):
        return {k: _fill(v, site) for k, v in value.items()}
    return value


def tasks_from_playbooks(sites: Sequence[Mapping[str, Any]] | None = None, playbooks: Iterable[str] | None = None, *,
                         scenarios: Mapping[str, Sequence[Mapping[str, Any]]] | None = None, seed: int = 14,
                         test_fraction: float = 0.3, run: bool = True, on_task: Any = None) -> list[Task]:
    """Every site x playbook x scenario as a task with its key (see the module doc).

    Each (site, scenario) is asked in one of the scenario's phrasings, chosen by a generator seeded with
    ``seed`` so every phrasing is used; ``split`` is a seeded train/test split (:func:`split_tasks`).
    ``run=False`` plans without running (no grade ceiling): a quick key for a draft task set.
    """
    from aquascope_core import playbooks as pbs
    from aquascope_core.gym.phrasings import SCENARIOS
    from aquascope_core.gym.sites import DEFAULT_SITES

    sites = list(sites if sites is not None else DEFAULT_SITES)
    scenarios = scenarios if scenarios is not None else SCENARIOS
    ids = list(playbooks) if playbooks is not None else [p["id"] for p in pbs.list_playbooks()]
    rng = random.Random(seed)
    tasks: list[Task] = []
    for pid in ids:
        pbs.load(pid)  # an unknown id fails here, with the list of playbooks
        for sc in scenarios.get(pid) or [{"id": "default", "intake": {}, "texts": [pbs.load(pid).get("title", pid)]}]:
            texts = list(sc["texts"])
            order: list[int] = []
            for site in sites:
                if sc.get("sites") and site["id"] not in sc["sites"]:
                    continue
                if not order:
                    order = list(range(len(texts)))
                    rng.shuffle(order)
                phrase = texts[order.pop()]
                text, extra = (phrase[0], dict(phrase[1])) if isinstance(phrase, (list, tuple)) else (phrase, {})
                intake = {**_fill(dict(sc.get("intake") or {}), site), **extra}
                uploads = dict(site.get("uploads") or {})
                key = task_key(pid, site, intake, resolve_uploads(uploads), run=run)
                t = Task(id=f"{pid}.{sc['id']}.{site['id']}", playbook=pid, text=_fill(text, site),
                         site={k: site[k] for k in ("id", "kind", "lat", "lon", "label") if k in site},
                         intake=intake, uploads=uploads, key=key, scenario=sc["id"])
                tasks.append(t)
                if on_task is not None:
                    on_task(t)
    return split_tasks(tasks, seed=seed, test_fraction=test_fraction)


def split_tasks(tasks: Sequence[Task], *, seed: int = 14, test_fraction: float = 0.3) -> list[Task]:
    """Mark a seeded ``test_fraction`` of the tasks ``test`` (the rest ``train``), drawn within each playbook
    so both halves cover every study; the same seed gives the same split."""
    if not 0.0 <= test_fraction <= 1.0:
        raise InputError.bad_value("test_fraction", test_fraction, "a fraction between 0 and 1")
    rng = random.Random(seed)
    by_pb: dict[str, list[Task]] = {}
    for t in tasks:
        by_pb.setdefault(t.playbook, []).append(t)
    for group in by_pb.values():
        order = sorted(group, key=lambda t: t.id)
        rng.shuffle(order)
        n_test = round(len(order) * test_fraction)
        for i, t in enumerate(order):
            t.split = "test" if i < n_test else "train"
    return list(tasks)


# -- files ------------------------------------------------------------------------------------------

def write_tasks(tasks: Iterable[Task], path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(t.to_dict(), ensure_ascii=False, sort_keys=True) + "\n" for t in tasks),
                    encoding="utf-8")
    return path


def read_tasks(path: str | Path, *, split: str | None = None) -> list[Task]:
    """The tasks of a JSONL file (one task a line); ``split`` keeps only ``train`` or ``test``."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"no task file at {path}", argument="tasks", value=str(path),
                         recovery=f"Give a JSONL file of tasks, e.g. the shipped {SHIPPED_TASKS}.")
    if split not in (None, "train", "test"):
        raise InputError.bad_value("split", split, "train or test")
    tasks = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path} line {n} is not JSON: {exc}", argument="tasks", value=str(path),
                             recovery="One JSON object a line.") from None
        tasks.append(Task.from_dict(d))
    return [t for t in tasks if split is None or t.split == split]
