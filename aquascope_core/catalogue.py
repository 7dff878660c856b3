"""The tool catalogue: every step a plan may name, described once.

Each :class:`ToolSpec` says what the tool is for, its kind (``station``, ``frame``, ``site``, ...),
its argument schema (read off the function's signature, so it cannot drift from the code), what
its payload yields, the registry methods it applies, the gates that make sense on it, the figures
and tables the deliverables draw from it, and a citation.

:func:`validate_step` and :func:`validate_plan` are the deterministic checks every step passes
before it runs, whoever wrote it (a playbook, a model, a person editing YAML): the tool exists,
the arguments bind to its signature, required ones are present, references and ``depends_on``
point backwards to known steps, every gate is in the vocabulary, and a named method is a registry
id the tool applies that is not refused at the site.
"""

from __future__ import annotations

import inspect
import re
from functools import lru_cache, partial
from typing import Any, Callable, Mapping

from aquascope_core.errors import InputError
from aquascope_core.families import collect
from aquascope_core.gates import validate_gate
from aquascope_core.paths import REFERENCE, references_in
from aquascope_core.toolspec import RUNTIME_ARGUMENTS, ToolSpec

__all__ = ["ToolSpec", "TOOLS", "tool", "callables", "schema", "compact", "validate_step", "validate_plan",
           "step_outputs", "fill_outputs"]

# Modules under aquascope_core.tools whose SPECS make up the catalogue, one per family of tools.
TOOL_MODULES = (
    "station",
    "flood",
    "flows",
    "drought",
    "climate",
    "rainfall_runoff",
    "regional",
    "supply",
    "water_quality",
    "site",
    "regression",  # U.S. regional peak flows (NSS regression, weighting, transfer, daily-to-peak)
)




TOOLS: dict[str, ToolSpec] = collect("aquascope_core.tools", TOOL_MODULES, "SPECS", "catalogue: tool")


def tool(tool_id: str) -> ToolSpec:
    try:
        return TOOLS[tool_id]
    except KeyError:
        raise InputError.bad_value("tool", tool_id, "a catalogue tool, one of " + ", ".join(sorted(TOOLS))) from None


@lru_cache(maxsize=None)
def _signature(tool_id: str) -> inspect.Signature:
    return inspect.signature(TOOLS[tool_id].load())


def schema(tool_id: str) -> dict[str, Any]:
    spec = tool(tool_id)
    out: dict[str, Any] = {}
    for name, p in _signature(tool_id).parameters.items():
        if name in RUNTIME_ARGUMENTS or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        ann = p.annotation if isinstance(p.annotation, str) else getattr(p.annotation, "__name__", str(p.annotation))
        required = p.default is inspect.Parameter.empty
        entry: dict[str, Any] = {"type": "" if ann is inspect.Parameter.empty else str(ann), "required": required,
                                 "description": spec.arguments.get(name, "")}
        if not required:
            default = p.default
            entry["default"] = list(default) if isinstance(default, tuple) else default
        out[name] = entry
    return out


def callables(data: Any = None, extra: Mapping[str, Callable[..., Any]] | None = None) -> dict[str, Callable[..., Any]]:
    """Tool id -> function the runner executes; ``data`` (a DataContext) is bound to the tools that read data."""
    out: dict[str, Callable[..., Any]] = {}
    for tid, spec in TOOLS.items():
        fn = spec.load()
        if data is not None and "data" in _signature(tid).parameters:
            fn = partial(fn, data=data)
        out[tid] = fn
    out.update(extra or {})
    return out


def compact(problem: str | None = None) -> list[dict[str, Any]]:
    """The catalogue as compact JSON (what a Methodologist reads), the tools for ``problem`` first."""
    from aquascope_core.registry import METHODS

    def relevant(spec: ToolSpec) -> bool:
        if problem is None or not spec.methods:
            return True
        return any(problem in METHODS[m].problems for m in spec.methods if m in METHODS)

    specs = sorted(TOOLS.values(), key=lambda s: (not relevant(s), s.id))
    rows = []
    for s in specs:
        sch = s.schema()
        rows.append({"id": s.id, "purpose": s.purpose, "kind": s.kind, "yields": list(s.yields),
                     "methods": list(s.methods),
                     "arguments": {k: {kk: vv for kk, vv in v.items() if kk != "description" or vv} for k, v in sch.items()},
                     "gates": [dict(g) for g in s.gates]})
    return rows


# -- the figures and tables a step feeds ---------------------------------------------------------

def _default_caption(kind: str, ident: str) -> str:
    if kind == "figure":
        from aquascope_core.deliverables.figures import FIGURE_KINDS

        maker = FIGURE_KINDS.get(ident)
        if maker is not None:
            return maker.title
    return ident.replace("_", " ").capitalize()


def step_outputs(tool_id: str, named: Any = None) -> list[dict[str, Any]]:
    """The outputs ({kind, id, caption}) a step of ``tool_id`` feeds: those ``named`` (a plan's own, kept in
    order with their captions), then every figure and table the catalogue lists for the tool and the plan
    did not name, with a default caption. An unknown tool gives the named outputs unchanged."""
    out = [dict(o) for o in (named or []) if isinstance(o, Mapping)]
    spec = TOOLS.get(tool_id)
    if spec is None:
        return out
    have = {(o.get("kind"), o.get("id")) for o in out}
    for kind, idents in (("figure", spec.figures), ("table", spec.tables)):
        for ident in idents:
            if (kind, ident) not in have:
                out.append({"kind": kind, "id": ident, "caption": _default_caption(kind, ident)})
    return out


def fill_outputs(study: Any) -> Any:
    """Fill every step's ``outputs`` from the catalogue (see :func:`step_outputs`), in place; returns the study.

    So a plan says what the deliverables will draw whoever wrote it (a playbook, a model, a person)."""
    for step in getattr(study, "steps", None) or []:
        step.outputs = step_outputs(step.tool, step.outputs)
    return study


# -- validation -----------------------------------------------------------------------------------

_TYPE_WORDS = {"int": (int,), "float": (int, float), "str": (str,), "bool": (bool,), "list": (list, tuple),
               "dict": (dict,), "tuple": (list, tuple), "Sequence": (list, tuple), "None": (type(None),)}


def _type_ok(value: Any, annotation: str) -> bool:
    if not annotation or isinstance(value, str) and REFERENCE.search(value):
        return True
    words = set(re.findall(r"[A-Za-z_]+", annotation.split("[")[0] + " " + " ".join(
        part.split("[")[0] for part in annotation.split("|"))))
    known = [w for w in words if w in _TYPE_WORDS]
    if not known or "Any" in words:
        return True
    if "Literal" in annotation:
        return True
    if isinstance(value, bool):
        return "bool" in words
    return any(isinstance(value, _TYPE_WORDS[w]) for w in known)


def _output_problems(step: Any) -> list[str]:
    """A step's outputs that are not {kind: figure|table, id, caption} of what its tool feeds."""
    spec = TOOLS[step.tool]
    errors = []
    for o in step.outputs or []:
        kind, ident = (o.get("kind"), o.get("id")) if isinstance(o, Mapping) else (None, None)
        listed = {"figure": spec.figures, "table": spec.tables}.get(kind)
        if listed is None:
            errors.append(f"step {step.id}: output {o!r} must be {{kind: figure|table, id, caption}}")
        elif ident not in listed:
            errors.append(f"step {step.id}: {step.tool} feeds no {kind} {ident!r} (its {kind}s: "
                          f"{', '.join(listed) or 'none'})")
    return errors


def validate_step(step: Any, *, earlier: list[str] | tuple[str, ...] = (), site: Any = None) -> list[str]:
    """Problems with one step, each naming the step; ``earlier`` are the ids of the steps before it.

    ``site`` (a SiteContext or its dict), when given, lets the registry refuse a method that is not
    defensible there.
    """
    from aquascope_core.registry import METHODS, assess_method
    from aquascope_core.study import Step

    if not isinstance(step, Step):
        try:
            step = Step.from_dict(step)
        except Exception as exc:  # noqa: BLE001 - the message is the finding
            return [str(exc)]
    sid = step.id
    errors: list[str] = []
    if step.tool not in TOOLS:
        return [f"step {sid}: unknown tool {step.tool!r} (the catalogue has: {', '.join(sorted(TOOLS))})"]
    sch = schema(step.tool)
    sig = _signature(step.tool)
    unknown = [k for k in step.arguments if k not in sch]
    if unknown:
        errors.append(f"step {sid}: {step.tool} does not take {', '.join(map(repr, unknown))} "
                      f"(it takes {', '.join(sch) or 'no arguments'})")
    else:
        try:
            sig.bind(**step.arguments)
        except TypeError as exc:
            missing = [k for k, v in sch.items() if v["required"] and k not in step.arguments]
            errors.append(f"step {sid}: {step.tool} needs {', '.join(map(repr, missing))}" if missing
                          else f"step {sid}: arguments do not fit {step.tool}: {exc}")
    from aquascope_core.limits import argument_errors

    errors.extend(f"step {sid}: {e}" for e in argument_errors(step.tool, step.arguments))
    for name, value in step.arguments.items():
        if name in sch and not _type_ok(value, sch[name]["type"]):
            errors.append(f"step {sid}: argument {name!r} of {step.tool} expects {sch[name]['type']}, got {value!r}")
    for dep in step.depends_on:
        if dep not in earlier:
            errors.append(f"step {sid}: depends_on {dep!r}, which is not an earlier step")
    for ref_step, _path in references_in([step.arguments, step.expects]):
        if ref_step not in earlier:
            errors.append(f"step {sid}: refers to result.{ref_step}, which is not an earlier step (a forward reference)")
        elif ref_step not in step.depends_on:
            errors.append(f"step {sid}: refers to result.{ref_step} but does not list it in depends_on")
    for g in step.expects:
        errors.extend(f"step {sid}: gate {e}" for e in validate_gate(g))
    errors.extend(_gates_read_what_the_step_makes(step, sch))
    if step.method is not None:
        if step.method not in METHODS:
            errors.append(f"step {sid}: method {step.method!r} is not a registry id")
        elif TOOLS[step.tool].methods and step.method not in TOOLS[step.tool].methods:
            errors.append(f"step {sid}: {step.tool} does not apply method {step.method!r} "
                          f"(it applies {', '.join(TOOLS[step.tool].methods)})")
        elif site is not None:
            verdict = assess_method(step.method, site, variable=step.station_variable)
            if verdict["status"] == "not_defensible":
                errors.append(f"step {sid}: method {step.method} is not defensible at the site: {verdict['reason']}")
    fb = step.fallback
    if fb is not None and fb != "stop":
        if not isinstance(fb, Mapping) or not ({"step", "branch", "stop"} & set(fb)):
            errors.append(f"step {sid}: fallback must be 'stop', {{step: {{...}}}} or {{branch: id}}, got {fb!r}")
        elif isinstance(fb.get("step"), Mapping):
            alt = {"id": sid, "depends_on": step.depends_on, **fb["step"]}
            errors.extend(e.replace(f"step {sid}:", f"step {sid} (fallback):")
                          for e in validate_step(alt, earlier=earlier, site=site))
    errors.extend(_output_problems(step))
    return errors


def _gate_paths(gate: Mapping[str, Any]) -> list[str]:
    paths = [gate["path"]] if isinstance(gate.get("path"), str) else []
    return paths + [p for p in gate.get("paths") or [] if isinstance(p, str)]


def _gates_read_what_the_step_makes(step: Any, sch: Mapping[str, Any]) -> list[str]:
    """A gate must read what the step produces: when the step chooses among its tool's methods by a list
    argument (``distributions: [gev_lmoments, lp3_moments]``), a gate path naming a method left out of that
    list reads a part of the result that will not exist (an edit that drops a fit must drop its gates)."""
    methods = set(TOOLS[step.tool].methods or ())
    if not methods:
        return []
    chosen: dict[str, list[str]] = {}
    for name, entry in sch.items():
        value = step.arguments.get(name, entry.get("default"))
        if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) and v in methods for v in value):
            chosen[name] = list(value)
    if not chosen:
        return []
    made = {m for vals in chosen.values() for m in vals}
    errors = []
    for g in step.expects:
        for path in _gate_paths(g):
            named = [seg for seg in re.split(r"[.\[\]=]", path) if seg in methods and seg not in made]
            if named:
                arg = ", ".join(f"{k}: {', '.join(v)}" for k, v in chosen.items())
                errors.append(f"step {step.id}: gate {g.get('check')} reads {path}, which the step does not produce "
                              f"({named[0]} is not among its {arg}); drop the gate or add {named[0]} back")
    return errors


def type_errors(study: Any) -> list[str]:
    """What in a study is of the wrong type or over a bound, each naming its step: an unknown tool, an argument the
    tool does not take or of the wrong type, an argument over aquascope_core.limits, a malformed gate. The checks
    a replay (``aquascope run``, MCP ``solve_run``) makes before any step runs; empty when all fit."""
    from aquascope_core.limits import argument_errors

    errors: list[str] = []
    for step in study.steps:
        if step.tool not in TOOLS:
            errors.append(f"step {step.id}: unknown tool {step.tool!r} (the catalogue has: {', '.join(sorted(TOOLS))})")
            continue
        sch = schema(step.tool)
        errors += [f"step {step.id}: {step.tool} does not take {k!r} (it takes {', '.join(sch) or 'no arguments'})"
                   for k in step.arguments if k not in sch]
        errors += [f"step {step.id}: argument {k!r} of {step.tool} expects {sch[k]['type']}, got "
                   f"{type(v).__name__} {str(v)[:60]!r}" for k, v in step.arguments.items()
                   if k in sch and not _type_ok(v, sch[k]["type"])]
        errors += [f"step {step.id}: {e}" for e in argument_errors(step.tool, step.arguments)]
        errors += [f"step {step.id}: gate {e}" for g in step.expects for e in validate_gate(g)]
    return errors


def validate_plan(study: Any, *, site: Any = None) -> list[str]:
    """Every problem with every step of a study (empty when it can run as written)."""
    from aquascope_core.study import Study

    try:
        study = study if isinstance(study, Study) else Study.from_dict(study)
    except Exception as exc:  # noqa: BLE001
        return [str(exc)]
    errors: list[str] = []
    seen: list[str] = []
    for step in study.steps:
        errors.extend(validate_step(step, earlier=tuple(seen), site=site))
        seen.append(step.id)
    return errors
