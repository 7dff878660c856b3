"""The study: what is asked, the plan, the steps with their gates, and (after a run) the results.

Three versions read and write through one class:

- version 1: a bare list of steps (``[{tool, arguments}, ...]``); kept as version 1 on the way out.
- version 2: ``problem``, ``plan`` (playbook, branch, rationale, notes), steps with ``expects``
  (gates), ``fallback``, ``depends_on``, ``method``, ``optional``; ``results`` written by the runner.
- version 3: version 2 plus, on the plan, ``objective``, ``decision``, ``methodology`` (numbered
  sentences), ``assumptions``, ``alternatives``, ``limitations_expected``, ``citations``, ``author``;
  and on each step ``outputs`` (the figures and tables it feeds).

``Study.from_dict(d).to_dict()`` round-trips every version; ``to_yaml``/``from_yaml`` and
``to_json``/``from_json`` do the same through text.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any, Mapping

from aquascope_core.errors import InputError, StudyError

__all__ = ["Step", "Study", "PLAN_V3_FIELDS", "STEP_FIELDS", "STUDY_FIELDS"]


def _typed(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str, words: str) -> Any:
    """``data[key]`` when it is absent/empty or of ``kind``; a StudyError naming the field otherwise."""
    value = data.get(key)
    if value in (None, "", [], {}):
        return None
    if not isinstance(value, kind) or isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise StudyError(f"{where} field {key!r} must be {words}, got {type(value).__name__} {str(value)[:60]!r}",
                         argument=key, value=value)
    return value


_SCALAR = (str, int, float)

PLAN_V3_FIELDS = (
    "objective",
    "decision",
    "methodology",
    "assumptions",
    "alternatives",
    "limitations_expected",
    "citations",
    "author",
)

STUDY_FIELDS = ("version", "id", "title", "question", "problem", "plan", "steps", "results")

STEP_FIELDS = (
    "id",
    "tool",
    "arguments",
    "rationale",
    "expects",
    "fallback",
    "depends_on",
    "method",
    "optional",
    "outputs",
    "station_variable",
    "title",
)


@dataclass
class Step:
    """One step: a catalogue tool with its arguments, the gates its payload must pass, what to do on failure."""

    id: str
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    rationale: str = ""
    expects: list[dict[str, Any]] = field(default_factory=list)
    fallback: Any = None  # None | "stop" | {"step": {...}} | {"branch": id} | {"stop": True}
    depends_on: list[str] = field(default_factory=list)
    method: str | None = None
    optional: bool = False
    outputs: list[dict[str, Any]] = field(default_factory=list)
    station_variable: str | None = None
    title: str = ""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, default_id: str | None = None) -> "Step":
        if not isinstance(data, Mapping):
            raise StudyError(f"a step must be a mapping with at least 'tool', got {type(data).__name__}")
        unknown = set(data) - set(STEP_FIELDS)
        if unknown:
            raise StudyError(
                f"step {data.get('id', default_id)!r} has unknown field(s) {', '.join(sorted(unknown))}; "
                f"a step takes {', '.join(STEP_FIELDS)}",
                argument="steps",
            )
        sid = _typed(data, "id", _SCALAR, "a step's", "a text id such as s1") or default_id
        if not sid:
            raise StudyError("a step has no id", argument="steps")
        where = f"step {str(sid)[:40]!r}"
        if not _typed(data, "tool", str, where, "a catalogue tool id"):
            raise StudyError(f"step {sid!r} names no tool", argument="steps")
        depends = _typed(data, "depends_on", (str, list), where, "a list of step ids") or []
        if isinstance(depends, str):
            depends = [depends]
        if not all(isinstance(d, _SCALAR) for d in depends):
            raise StudyError(f"{where} field 'depends_on' must list step ids", argument="depends_on", value=depends)
        for key, kind, words in (("arguments", Mapping, "a mapping of argument names to values"),
                                 ("expects", list, "a list of gates"), ("outputs", list, "a list of outputs"),
                                 ("rationale", _SCALAR, "text"), ("title", _SCALAR, "text"),
                                 ("method", str, "a registry method id"), ("station_variable", str, "a variable name")):
            _typed(data, key, kind, where, words)
        if any(not isinstance(g, Mapping) for g in data.get("expects") or []):
            raise StudyError(f"{where} field 'expects' must list gates (mappings with 'check')", argument="expects")
        return cls(
            id=str(sid),
            tool=str(data["tool"]),
            arguments=copy.deepcopy(dict(data.get("arguments") or {})),
            rationale=str(data.get("rationale") or ""),
            expects=copy.deepcopy(list(data.get("expects") or [])),
            fallback=copy.deepcopy(data.get("fallback")),
            depends_on=[str(d) for d in depends],
            method=data.get("method"),
            optional=bool(data.get("optional", False)),
            outputs=copy.deepcopy(list(data.get("outputs") or [])),
            station_variable=data.get("station_variable"),
            title=str(data.get("title") or ""),
        )

    def to_dict(self, *, version: int = 3) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "tool": self.tool, "arguments": copy.deepcopy(self.arguments)}
        if version == 1:
            return out
        if self.title:
            out["title"] = self.title
        if self.rationale:
            out["rationale"] = self.rationale
        if self.method:
            out["method"] = self.method
        if self.expects:
            out["expects"] = copy.deepcopy(self.expects)
        if self.fallback is not None:
            out["fallback"] = copy.deepcopy(self.fallback)
        if self.depends_on:
            out["depends_on"] = list(self.depends_on)
        if self.optional:
            out["optional"] = True
        if self.station_variable:
            out["station_variable"] = self.station_variable
        if version >= 3 and self.outputs:
            out["outputs"] = copy.deepcopy(self.outputs)
        return out


@dataclass
class Study:
    """A study in any version; see the module docstring."""

    steps: list[Step]
    version: int = 2
    title: str = ""
    question: str = ""
    problem: dict[str, Any] = field(default_factory=dict)
    plan: dict[str, Any] = field(default_factory=dict)
    results: dict[str, Any] = field(default_factory=dict)
    id: str | None = None

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Any) -> "Study":
        if isinstance(data, Study):
            return copy.deepcopy(data)
        from aquascope_core.limits import check_depth

        check_depth(data, what="the study")
        if isinstance(data, list):
            steps = [Step.from_dict(s, default_id=f"s{i + 1}") for i, s in enumerate(data)]
            study = cls(steps=steps, version=1)
        elif isinstance(data, Mapping):
            unknown = sorted(str(k) for k in data if k not in STUDY_FIELDS)
            if unknown:
                raise StudyError(f"the study has unknown field(s) {', '.join(map(repr, unknown))}; a study takes "
                                 f"{', '.join(STUDY_FIELDS)} (data comes with the request or as a step's arguments)",
                                 argument=unknown[0], value=unknown)
            for key, kind, words in (("problem", Mapping, "a mapping"), ("plan", Mapping, "a mapping"),
                                     ("results", Mapping, "a mapping of step ids to results"),
                                     ("title", _SCALAR, "text"), ("question", _SCALAR, "text"),
                                     ("id", _SCALAR, "a text id")):
                _typed(data, key, kind, "the study's", words)
            version = data.get("version")
            if version is None:
                version = 2 if any(k in data for k in ("problem", "plan", "results")) else 1
            if isinstance(version, bool) or version not in (1, 2, 3):
                raise InputError.bad_value("version", version, "1, 2 or 3")
            raw_steps = data.get("steps")
            if not isinstance(raw_steps, list):
                raise StudyError("a study needs 'steps': a list of steps", argument="steps")
            steps = [Step.from_dict(s, default_id=f"s{i + 1}") for i, s in enumerate(raw_steps)]
            study = cls(
                steps=steps,
                version=int(version),
                title=str(data.get("title") or ""),
                question=str(data.get("question") or ""),
                problem=copy.deepcopy(dict(data.get("problem") or {})),
                plan=copy.deepcopy(dict(data.get("plan") or {})),
                results=copy.deepcopy(dict(data.get("results") or {})),
                id=data.get("id"),
            )
        else:
            raise StudyError(f"a study is a mapping or a list of steps, got {type(data).__name__}")
        ids = [s.id for s in study.steps]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise StudyError(f"step id(s) {', '.join(dupes)} appear more than once; every step needs its own id")
        return study

    def to_dict(self) -> dict[str, Any]:
        if self.version == 1:
            return {"steps": [s.to_dict(version=1) for s in self.steps]}
        out: dict[str, Any] = {"version": self.version}
        if self.id:
            out["id"] = self.id
        if self.title:
            out["title"] = self.title
        if self.question:
            out["question"] = self.question
        out["problem"] = copy.deepcopy(self.problem)
        plan = copy.deepcopy(self.plan)
        if self.version < 3:
            for k in PLAN_V3_FIELDS:
                plan.pop(k, None)
        out["plan"] = plan
        out["steps"] = [s.to_dict(version=self.version) for s in self.steps]
        if self.results:
            out["results"] = copy.deepcopy(self.results)
        return out

    # -- text round trips ---------------------------------------------------------------------
    def to_yaml(self) -> str:
        import yaml

        data = self.to_dict()
        options = {"sort_keys": False, "allow_unicode": True, "width": 100}
        dumper = getattr(yaml, "CSafeDumper", None)
        if dumper is not None:  # libyaml's emitter: the same text at a fifth of the pure-Python emitter's cost
            text = yaml.dump(data, Dumper=dumper, **options)
            if "\\U" not in text:  # libyaml escapes characters beyond the BMP (an emoji); the Python emitter writes them
                return text
        return yaml.safe_dump(data, **options)

    @classmethod
    def from_yaml(cls, text: str) -> "Study":
        from aquascope_core.limits import load_yaml

        return cls.from_dict(load_yaml(text, what="the study", error=StudyError))

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_json(cls, text: str) -> "Study":
        from aquascope_core.limits import MAX_YAML_BYTES, LimitError

        if isinstance(text, (str, bytes)) and len(text) > MAX_YAML_BYTES:
            raise LimitError("the study file size in bytes", len(text), "MAX_YAML_BYTES", MAX_YAML_BYTES)
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise StudyError(f"the study is not valid JSON: {exc}") from None
        except RecursionError:
            raise StudyError("the study JSON is nested too deeply to read", argument="study") from None
        return cls.from_dict(data)

    # -- helpers ------------------------------------------------------------------------------
    def step(self, step_id: str) -> Step:
        for s in self.steps:
            if s.id == step_id:
                return s
        raise StudyError(f"no step {step_id!r} in the study (steps: {', '.join(s.id for s in self.steps)})")

    def next_step_id(self) -> str:
        used = {s.id for s in self.steps}
        n = len(self.steps) + 1
        while f"s{n}" in used:
            n += 1
        return f"s{n}"
