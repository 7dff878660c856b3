"""The Methodologist with a model: a version-3 study composed from the catalogue, checked like any plan.

The model is given the brief, what the site holds (the recon's context and the inventory), the compact
catalogue of the tools that serve the problem (their argument schemas, methods and gates), the gate
vocabulary and the playbook's own plan as a reference. It answers with steps and the plan's prose.

What the model wrote is never trusted as written:

- the reply's shape is checked (steps with an id, a tool, arguments, gates, a rationale saying why the
  step is there);
- every step goes through ``validate_step`` at the site; a step whose method the registry calls not
  defensible there is dropped with a note (as the playbook tree does), and so are the steps that lean on it;
- any other error goes back to the model once, with the errors (one repair);
- sentences of the plan's prose whose numbers neither the plan's arguments and gates, the brief nor the
  site hold are dropped;
- each methodology line names the steps it describes (``{"text", "steps"}``); a line naming no step of the plan
  is refused (recorded in ``prose_dropped``), and a step no line describes is described by the playbook's line
  for a step of the same tool, else by its catalogue line (:mod:`aquascope_core.methodology`);
- what the model may not change is taken from the playbook's plan: the playbook and branch, the station,
  the site context, the caveats and the citations.

:func:`compose` returns the composed study, or ``None`` with the errors when nothing valid remains (the
Methodologist then plans with the tree).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from aquascope_core import methodology
from aquascope_core.catalogue import TOOLS, compact, validate_step
from aquascope_core.gates import CHECKS
from aquascope_core.study import STEP_FIELDS, Study
from aquascope_core.verify import number_pool, sentences, verify

__all__ = ["compose", "Composition", "coerce_plan_reply", "methodologist_payload", "NOT_DEFENSIBLE"]

NOT_DEFENSIBLE = "is not defensible at the site"
_PROSE_FIELDS = ("objective", "methodology", "assumptions", "limitations_expected")
_KEPT_FROM_TREE = ("playbook", "branch", "branch_label", "station", "site_context", "caveats", "citations",
                   "recon_notes", "decision", "asks")


@dataclass
class Composition:
    study: Study | None
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)


def _catalogue_for(problem: str | None, tree: Study | None) -> list[dict[str, Any]]:
    """The compact catalogue rows a plan for this problem may use: the kind's tools (its playbook's and its
    knowledge bundle's) and the tree's."""
    from roles.knowledge import tools_for

    allowed = set(tools_for(problem)) | {s.tool for s in (tree.steps if tree else [])}
    return [row for row in compact(problem) if not allowed or row["id"] in allowed]


def methodologist_payload(brief: Mapping[str, Any], recon: Mapping[str, Any], inventory: Mapping[str, Any],
                          tree: Study | None, request: str | None = None) -> dict[str, Any]:
    """The compact JSON the Methodologist's model reads (and a face's own model, through the Studio)."""
    datasets = []
    for d in (inventory.get("datasets") or [])[:12]:
        datasets.append({"name": d.get("name"), "kind": d.get("kind"), "source": d.get("source"),
                         "station_id": d.get("station_id"), "distance_km": d.get("distance_km"),
                         "variables": [{k: v.get(k) for k in ("variable", "usable", "years", "resolution", "unit")}
                                       for v in d.get("variables") or []]})
    draft = None
    if tree is not None:
        draft = {"objective": tree.plan.get("objective"), "branch": tree.plan.get("branch"),
                 "steps": [s.to_dict() for s in tree.steps]}
    return {
        "brief": {k: brief.get(k) for k in ("problem", "kind", "playbook", "decision", "intake", "assumptions")},
        "site": {"context": recon.get("context"), "datasets": datasets},
        "catalogue": _catalogue_for(brief.get("playbook"), tree),
        "gate_checks": sorted(CHECKS),
        "playbook_plan": draft,
        "request": request,
        "reply_shape": {"objective": "str",
                        "methodology": [{"text": "one sentence or two of the method",
                                         "steps": ["the ids of the steps the line describes"]}],
                        "assumptions": ["str"],
                        "steps": [{"id": "s1", "tool": "a catalogue id", "title": "str", "arguments": {},
                                   "rationale": "why this step is there", "expects": [{"check": "a gate check"}],
                                   "depends_on": ["earlier ids"], "method": "a registry id the tool applies",
                                   "optional": False}]},
    }


def coerce_plan_reply(obj: Any) -> dict[str, Any]:
    """The reply's shape, or ValueError naming what is wrong (sent back to the model for its one repair)."""
    if not isinstance(obj, Mapping):
        raise ValueError("the reply must be one JSON object with 'steps'")
    steps = obj.get("steps")
    if not isinstance(steps, list) or not steps:
        raise ValueError("'steps' must be a non-empty list of steps")
    problems = []
    clean = []
    for i, st in enumerate(steps):
        if not isinstance(st, Mapping):
            problems.append(f"step {i + 1} is not an object")
            continue
        sid = str(st.get("id") or f"s{i + 1}")
        unknown = sorted(set(st) - set(STEP_FIELDS))
        if unknown:
            problems.append(f"step {sid} has fields a step does not take: {', '.join(unknown)}")
        if not str(st.get("rationale") or "").strip():
            problems.append(f"step {sid} has no rationale (say why the step is there)")
        if not isinstance(st.get("arguments") or {}, Mapping):
            problems.append(f"step {sid}: arguments must be an object")
        if not isinstance(st.get("expects") or [], list):
            problems.append(f"step {sid}: expects must be a list of gates")
        clean.append({k: v for k, v in st.items() if k in STEP_FIELDS} | {"id": sid})
    if problems:
        raise ValueError("; ".join(problems))
    out = {"steps": clean}
    for k in _PROSE_FIELDS:
        v = obj.get(k)
        if k == "objective":
            if isinstance(v, str) and v.strip():
                out[k] = v.strip()
        elif k == "methodology" and isinstance(v, list):  # linked lines are checked against the steps later
            out[k] = [x for x in v if isinstance(x, Mapping) or isinstance(x, (str, int, float)) and str(x).strip()]
        elif isinstance(v, list):
            out[k] = [str(x) for x in v if isinstance(x, (str, int, float)) and str(x).strip()]
    return out


def _split_steps(steps: list[dict[str, Any]], site: Any, *, prune: bool = False, allowed: set[str] | None = None,
                 kind: str | None = None) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """(kept steps, errors, notes): not-defensible steps and their dependents are dropped with a note; with
    ``prune`` every invalid step is dropped too (its errors still listed)."""
    kept: list[dict[str, Any]] = []
    errors: list[str] = []
    notes: list[str] = []
    dropped: set[str] = set()
    for st in steps:
        leans = [d for d in (st.get("depends_on") or []) if d in dropped]
        if leans:
            dropped.add(st["id"])
            notes.append(f"step {st['id']} ({st.get('tool')}) dropped: it depends on {', '.join(leans)}, which was dropped")
            continue
        if allowed and st.get("tool") in TOOLS and st["tool"] not in allowed:
            dropped.add(st["id"])
            notes.append(f"step {st['id']} dropped: {st['tool']} is not a tool a {str(kind).replace('_', ' ')} "
                         "study uses")
            continue
        errs = validate_step(st, earlier=[s["id"] for s in kept], site=site)
        if any(NOT_DEFENSIBLE in e for e in errs):
            dropped.add(st["id"])
            notes.append(next(e for e in errs if NOT_DEFENSIBLE in e).replace(f"step {st['id']}:",
                                                                             f"step {st['id']} dropped:", 1))
            continue
        errors.extend(errs)
        if errs and prune:
            dropped.add(st["id"])
            notes.append(f"step {st['id']} ({st.get('tool')}) dropped: it does not validate")
            continue
        kept.append(st)
    return kept, errors, notes


def _prose_pool(tree: Study | None, steps: list[dict[str, Any]], brief: Mapping[str, Any],
                recon: Mapping[str, Any]) -> set[float]:
    from aquascope_core.catalogue import schema

    defaults = [{k: v.get("default") for k, v in schema(s["tool"]).items()} for s in steps if s.get("tool") in TOOLS]
    return number_pool(tree.to_dict() if tree else None, steps, defaults, brief.get("intake"), recon.get("context"))


def _checked_words(words: str, field: str, pool: set[float], dropped: list[dict[str, Any]]) -> str:
    good = []
    for sent in sentences(words):
        res = verify(sent, pool)
        if res["ok"]:
            good.append(sent)
        else:
            dropped.append({"field": field, "sentence": sent, "numbers": [u["number"] for u in res["unmatched"]]})
    return " ".join(good)


def _checked_methodology(raw: Any, steps: list[dict[str, Any]], pool: set[float], dropped: list[dict[str, Any]],
                         tree: Study | None) -> list[Any]:
    """The model's methodology lines linked to the plan's steps (a line naming none is refused), their numbers
    checked; the steps no line describes get the playbook's line for a step of the same tool, else their
    catalogue line. With no usable line, the playbook's methodology follows the composed steps."""
    ids = [str(s["id"]) for s in steps]
    lines = []
    for item in raw or []:
        words = methodology.text(item).strip()
        named = methodology.links(item) or []
        known = [s for s in named if s in ids]
        if not known:
            dropped.append({"field": "methodology", "sentence": words,
                            "reason": "the line names no step of the plan" + (f" (it names {named})" if named else "")})
            continue
        good = _checked_words(words, "methodology", pool, dropped)
        if good:
            lines.append(methodology.line(good, known))
    tree_lines = methodology.follow((tree.plan.get("methodology") or []) if tree else [],
                                    tree.steps if tree else [], steps, previous=[])
    if not lines:
        return tree_lines
    described = {s for item in lines for s in methodology.links(item) or []}
    return lines + [item for item in tree_lines if methodology.links(item)
                    and not set(methodology.links(item)) & described]


def _checked_prose(reply: Mapping[str, Any], pool: set[float], dropped: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in _PROSE_FIELDS:
        if k == "methodology":
            continue
        v = reply.get(k)
        if v is None:
            continue
        items = [v] if isinstance(v, str) else list(v)
        kept = [good for good in (_checked_words(item, k, pool, dropped) for item in items) if good]
        if kept:
            out[k] = kept[0] if isinstance(v, str) else kept
    return out


def compose(model: Any, ws: Any, *, role: str, system: str, brief: Mapping[str, Any], recon: Mapping[str, Any],
            inventory: Mapping[str, Any], tree: Study | None, request: str | None = None,
            reply: Mapping[str, Any] | None = None, source: str = "model") -> Composition:
    """A composed study (plan author ``methodologist``), or None with the errors.

    ``reply`` is a plan a face's own model already wrote (bring your own model): it gets the same checks but no
    repair call. Otherwise ``model`` is called once, and once more with the errors.
    """
    site = (tree.plan.get("site_context") if tree else None) or recon.get("context")
    payload = methodologist_payload(brief, recon, inventory, tree, request)
    state: dict[str, Any] = {}

    prune = reply is not None  # a face's plan gets no repair call: its invalid steps are pruned instead
    allowed = {row["id"] for row in payload["catalogue"]}

    def check(obj: Any) -> dict[str, Any]:
        shaped = coerce_plan_reply(obj)
        kept, errors, notes = _split_steps(shaped["steps"], site, prune=prune, allowed=allowed,
                                           kind=brief.get("playbook"))
        state.update(notes=notes, errors=errors)
        if errors and not prune:
            raise ValueError("the plan does not validate: " + "; ".join(errors))
        if not kept:
            raise ValueError("no step of the plan is defensible at the site: " + "; ".join(notes))
        return {**shaped, "steps": kept, "notes": notes}

    if reply is not None:
        try:
            checked = check(reply)
        except ValueError as exc:
            return Composition(None, errors=state.get("errors") or [str(exc)], notes=state.get("notes") or [])
        checked["errors"] = list(state.get("errors") or [])
    else:
        checked = model.call_json(ws, role, system, payload, check)
        if checked is None:
            return Composition(None, errors=state.get("errors") or ["the model's reply could not be used"],
                               notes=state.get("notes") or [])
    dropped: list[dict[str, Any]] = []
    pool = _prose_pool(tree, checked["steps"], brief, recon)
    prose = _checked_prose(checked, pool, dropped)
    prose["methodology"] = _checked_methodology(checked.get("methodology"), checked["steps"], pool, dropped, tree)
    base = tree.to_dict() if tree else {"version": 3, "problem": {"kind": brief.get("playbook")}, "plan": {}}
    plan = {k: v for k, v in (base.get("plan") or {}).items() if k in _KEPT_FROM_TREE}
    tree_plan = base.get("plan") or {}
    for k in _PROSE_FIELDS:
        plan[k] = prose.get(k) or (tree_plan.get(k) if k != "methodology" else None) or ([] if k != "objective" else "")
    plan["alternatives"] = list(tree_plan.get("alternatives") or []) + (
        [{"method": f"the playbook's own plan ({tree_plan.get('branch_label') or tree_plan.get('branch')})",
          "why_not": "a plan was composed for the data at hand and validated; the playbook's plan is kept as the "
                     "fallback"}] if tree else [])
    plan["notes"] = list(tree_plan.get("notes") or []) + checked["notes"]
    plan["author"] = "methodologist"
    plan["written_by"] = source
    plan["rationale"] = tree_plan.get("rationale") or ""
    if dropped:
        plan["prose_dropped"] = dropped
    by_tool = {s.tool: s.outputs for s in (tree.steps if tree else []) if s.outputs}
    steps = []
    for st in checked["steps"]:
        if not st.get("outputs") and st["tool"] in by_tool:
            st = {**st, "outputs": by_tool[st["tool"]]}
        steps.append(st)
    study = Study.from_dict({**base, "version": 3, "plan": plan, "steps": steps, "results": {}})
    return Composition(study, errors=list(checked.get("errors") or []), notes=checked["notes"], dropped=dropped)
