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

import importlib
import inspect
import re
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Any, Callable, Literal, Mapping

from aquascope_core.errors import InputError
from aquascope_core.gates import validate_gate
from aquascope_core.paths import REFERENCE, references_in

__all__ = ["ToolSpec", "TOOLS", "tool", "callables", "schema", "compact", "validate_step", "validate_plan"]

Kind = Literal["site", "station", "frame", "weather", "recon", "table", "none"]

# Arguments every tool may take that the runtime supplies and a plan never names.
RUNTIME_ARGUMENTS = ("data",)


@dataclass(frozen=True)
class ToolSpec:
    id: str
    purpose: str
    kind: Kind
    function: str  # "module:function"
    yields: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    gates: tuple[dict[str, Any], ...] = ()
    figures: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()
    citation: str = ""
    arguments: Mapping[str, str] = field(default_factory=dict)  # name -> description

    def load(self) -> Callable[..., Any]:
        mod, _, name = self.function.partition(":")
        return getattr(importlib.import_module(mod), name)

    def schema(self) -> dict[str, Any]:
        """The argument schema: name -> {type, required, default, description}."""
        return schema(self.id)

    def to_dict(self, *, with_schema: bool = True) -> dict[str, Any]:
        out = {
            "id": self.id, "purpose": self.purpose, "kind": self.kind, "yields": list(self.yields),
            "methods": list(self.methods), "gates": [dict(g) for g in self.gates], "figures": list(self.figures),
            "tables": list(self.tables), "citation": self.citation,
        }
        if with_schema:
            sch = self.schema()
            out["arguments"] = sch
            out["required"] = [k for k, v in sch.items() if v["required"]]
        return out


_STATION_ARGS = {
    "source": "the data source of the station (e.g. usgs, holmes, upload)",
    "station_id": "the station's id as its source spells it",
    "variable": "the variable to read (discharge, precipitation, groundwater_level, ...)",
}

TOOLS: dict[str, ToolSpec] = {
    t.id: t
    for t in (
        ToolSpec(
            id="station_record",
            purpose="Read a station's record and describe it: period, completeness, resolution, unit.",
            kind="station",
            function="aquascope_core.tools.station:station_record",
            yields=("series_summary", "completeness"),
            gates=({"check": "sampling_density", "value": 0.9}, {"check": "min_years", "value": 10, "path": "years"},
                   {"check": "unit_present"}),
            figures=("series",),
            tables=("record_by_year",),
            citation="The source's own citation (see meta.sources).",
            arguments={**_STATION_ARGS, "start": "first date to read (ISO), default the whole record",
                       "end": "last date to read (ISO)"},
        ),
        ToolSpec(
            id="annual_maxima",
            purpose="Water-year maxima of a daily discharge record (incomplete years excluded and listed).",
            kind="station",
            function="aquascope_core.tools.station:annual_maxima",
            yields=("annual_maxima",),
            methods=(),
            gates=({"check": "min_years", "value": 20}, {"check": "not_empty", "path": "values"},
                   {"check": "unit_present"}),
            figures=("annual_maxima",),
            tables=("annual_maxima",),
            citation="USGS water year (October-September), named by the year in which it ends.",
            arguments={**_STATION_ARGS, "water_year_start_month": "first month of the water year (10 = October)",
                       "min_days": "days with data a year needs to count"},
        ),
        ToolSpec(
            id="flood_frequency",
            purpose="Fit flood-frequency distributions to annual maxima; return levels with bootstrap bands.",
            kind="frame",
            function="aquascope_core.tools.flood:flood_frequency",
            yields=("ffa",),
            methods=("gev_lmoments", "lp3_moments"),
            gates=({"check": "ci_finite", "path": "fits.gev_lmoments.ci", "return_period": 100},
                   {"check": "spread_within", "value": 0.25,
                    "paths": ["fits.gev_lmoments.return_levels", "fits.lp3_moments.return_levels"], "return_period": 100},
                   {"check": "max_return_period_factor", "value": 3, "return_period": 100, "path": "n"},
                   {"check": "fit_envelopes_max", "path": "record_max.return_period.gev_lmoments"}),
            figures=("frequency_curve",),
            tables=("return_levels",),
            citation="Hosking & Wallis (1997) Regional Frequency Analysis; England et al. (2019) Bulletin 17C, USGS TM 4-B5.",
            arguments={"values": "the annual maxima (a list of numbers, or a {{ result.sN.values }} reference)",
                       "unit": "the unit of the values", "return_periods": "return periods in years",
                       "distributions": "fits to make (registry ids)", "n_bootstrap": "parametric bootstrap resamples",
                       "confidence": "confidence level of the bands", "seed": "random seed of the bootstrap"},
        ),
        ToolSpec(
            id="trend_test",
            purpose="Mann-Kendall test and Sen's slope on a series (annual maxima, annual means, a user's series).",
            kind="frame",
            function="aquascope_core.tools.flood:trend_test",
            yields=("trend",),
            methods=("mann_kendall",),
            gates=({"check": "trend_on_series", "path": "trend", "value": 0.05},),
            figures=("trend",),
            citation="Mann (1945); Kendall (1975); Sen (1968).",
            arguments={"values": "the series values", "times": "the times of the values (years)",
                       "unit": "the unit of the values", "alpha": "significance level",
                       "variant": "original, hamed_rao or prewhitened"},
        ),
    )
}


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
    if step.method is not None:
        if step.method not in METHODS:
            errors.append(f"step {sid}: method {step.method!r} is not a registry id")
        elif TOOLS[step.tool].methods and step.method not in TOOLS[step.tool].methods:
            errors.append(f"step {sid}: {step.tool} does not apply method {step.method!r} "
                          f"(it applies {', '.join(TOOLS[step.tool].methods)})")
        elif site is not None:
            verdict = assess_method(step.method, site)
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
