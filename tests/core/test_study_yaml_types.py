"""study.yaml, every YAML type: a value is read as a JSON-safe one (a date as its ISO text) or the file is refused
before anything runs, naming the line (tags) or the field (types); every argument's type and bound and every gate
checked before the run (aquascope_core.catalogue.type_errors)."""

from __future__ import annotations

import json

import pytest

from aquascope_core.catalogue import type_errors
from aquascope_core.errors import AquascopeError
from aquascope_core.study import Study

VALUES = "[120, 135, 150, 110, 160, 170, 125, 140, 155, 165, 130, 145, 150, 138, 172, 128, 149, 161, 133, 142]"


def _study(problem: str = "{}", arguments: str = "", gates: str = "", top: str = "") -> str:
    return (f"version: 2\n{top}problem: {problem}\nsteps:\n- id: s1\n  tool: flood_frequency\n"
            f"  arguments: {{values: {VALUES}, unit: m3/s{arguments}}}\n" + (f"  expects: [{gates}]\n" if gates else ""))


ACCEPTED = {  # YAML in the problem -> the JSON-safe value read
    "date": ("{start: 1990-01-01}", {"start": "1990-01-01"}),
    "timestamp": ("{at: 2001-12-14t21:59:43.10-05:00}", {"at": "2001-12-14T21:59:43.100000-05:00"}),
    "space timestamp": ("{at: 2001-12-14 21:59:43}", {"at": "2001-12-14T21:59:43"}),
    "date key": ("{1990-01-01: wet}", {"1990-01-01": "wet"}),
    "int float bool null": ("{a: 1, b: 1.5e+3, c: true, d: ~, e: 0x1f, f: 017}",
                            {"a": 1, "b": 1500.0, "c": True, "d": None, "e": 31, "f": 15}),
    "str tags": ("{a: !!str 1990-01-01, b: !!str 12, c: 'yes'}", {"a": "1990-01-01", "b": "12", "c": "yes"}),
    "nested": ("{a: [1, {b: 2000-02-29}], c: {d: [x, y]}}", {"a": [1, {"b": "2000-02-29"}], "c": {"d": ["x", "y"]}}),
    "int key": ("{1: a}", {1: "a"}),
}

REFUSED_TAGS = {  # YAML in the problem -> (line named, words)
    "binary": ("{blob: !!binary aGVsbG8=}", "binary data"),
    "set": ("{s: !!set {a, b}}", "a set"),
    "omap": ("!!omap [a: 1, b: 2]", "an ordered map"),
    "pairs": ("!!pairs [a: 1, a: 2]", "a list of pairs"),
    "python tag": ("!!python/object/apply:os.system ['true']", "not valid YAML"),
    "custom tag": ("{a: !mine 1}", "not valid YAML"),
}

REFUSED_FIELDS = {  # study text -> what the message names
    "data string": (_study(top="data: flows.csv\n"), "unknown field(s) 'data'"),
    "data dict": (_study(top="data: {q: flows.csv}\n"), "unknown field(s) 'data'"),
    "problem list": (_study(problem="[1, 2]"), "'problem' must be a mapping"),
    "version text": ("version: two\nsteps: []\n", "version"),
    "steps mapping": ("version: 2\nsteps: {s1: x}\n", "'steps'"),
    "arguments list": ("version: 2\nsteps:\n- {id: s1, tool: flood_frequency, arguments: [1]}\n", "'arguments'"),
    "depends_on number": ("version: 2\nsteps:\n- {id: s1, tool: flood_frequency, depends_on: 3}\n", "depends_on"),
}

BEFORE_RUN = {  # study text -> what type_errors names
    "paths int": (_study(gates="{check: spread_within, paths: 3, value: 0.5}"), "'paths' must be a list"),
    "paths of numbers": (_study(gates="{check: spread_within, paths: [1, 2], value: 0.5}"), "'paths' must be a list"),
    "gate value text": (_study(gates="{check: min_years, value: many}"), "'value' must be a number"),
    "gate path number": (_study(gates="{check: not_empty, path: 7}"), "'path' must be a path"),
    "gate optional text": (_study(gates="{check: not_empty, path: x, optional: maybe}"), "'optional' must be"),
    "negative seed": (_study(arguments=", seed: -5"), "a seed is a whole number"),
    "float seed": (_study(arguments=", seed: 1.5"), "a seed is a whole number"),
    "bootstrap text": (_study(arguments=", n_bootstrap: many"), "'n_bootstrap' of flood_frequency expects int"),
    "values text": ("version: 2\nsteps:\n- {id: s1, tool: flood_frequency, arguments: {values: abc, unit: m3/s}}\n",
                    "'values' of flood_frequency expects"),
    "data argument": (_study(arguments=", data: flows.csv"), "does not take 'data'"),
    "unknown tool": ("version: 2\nsteps:\n- {id: s1, tool: no_such_tool}\n", "unknown tool"),
    "zero bootstrap": (_study(arguments=", n_bootstrap: 0"), "MAX_BOOTSTRAP"),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_every_plain_yaml_type_is_read_as_a_json_safe_value(name):
    text, expected = ACCEPTED[name]
    study = Study.from_yaml(_study(problem=text))
    assert study.problem == expected
    json.dumps(study.to_dict())  # JSON-safe all through
    assert type_errors(study) == []


@pytest.mark.parametrize("name", sorted(REFUSED_TAGS))
def test_a_value_json_cannot_hold_is_refused_with_its_line(name):
    text, words = REFUSED_TAGS[name]
    with pytest.raises(AquascopeError, match=words) as err:
        Study.from_yaml(_study(problem=text))
    if words != "not valid YAML":
        assert "line 2" in str(err.value)  # the problem is on the file's second line
    else:
        assert "line 2" in str(err.value)  # PyYAML's own mark names it too


@pytest.mark.parametrize("name", sorted(REFUSED_FIELDS))
def test_a_field_of_the_wrong_type_is_refused_on_reading(name):
    text, words = REFUSED_FIELDS[name]
    with pytest.raises(AquascopeError, match=words.replace("(", r"\(").replace(")", r"\)")):
        Study.from_yaml(text)


@pytest.mark.parametrize("name", sorted(BEFORE_RUN))
def test_every_argument_and_gate_is_checked_before_the_run(name):
    text, words = BEFORE_RUN[name]
    errors = type_errors(Study.from_yaml(text))
    assert any(words in e and e.startswith("step s1") for e in errors), errors


def test_the_shipped_playbooks_plans_pass_the_type_checks():
    from aquascope_core import playbooks
    from aquascope_core.gates import validate_gate

    gates = []
    for pb in playbooks.list_playbooks():
        spec = playbooks.load(pb["id"])
        gates += [(pb["id"], g) for branch in spec["branches"] for st in branch.get("steps", [])
                  for g in st.get("expects") or []]
    assert len(gates) > 20
    assert [(pid, g, validate_gate(g)) for pid, g in gates if validate_gate(g)] == []


def test_study_yaml_is_the_text_the_python_emitter_writes():
    import yaml

    problem = ('{text: "Débit — 100-year ≥ 5 m³/s at the Flat Brook, a long question that goes on and on past the '
               'hundredth column of the file", note: "line one\\nline two\\n", tiny: 1.0e-12, empty: "", code: "0123",'
               ' colon: "a: b", flag: "yes", tab: "a\\tb", nested: [[], {}, [1, [2, {a: null}]]]}')
    study = Study.from_yaml(_study(problem))
    want = yaml.safe_dump(study.to_dict(), sort_keys=False, allow_unicode=True, width=100)
    assert study.to_yaml() == want
    assert Study.from_yaml(study.to_yaml()).to_dict() == study.to_dict()
    # a character beyond the BMP is written as it is (libyaml would escape it), as the Python emitter writes it
    drop = Study.from_yaml(_study('{text: "water 💧 drop"}'))
    assert "💧" in drop.to_yaml() and drop.to_yaml() == yaml.safe_dump(drop.to_dict(), sort_keys=False,
                                                                        allow_unicode=True, width=100)
