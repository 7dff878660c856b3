"""Payload paths, references between steps, and the study's versions and round trips."""

from __future__ import annotations

import json

import pytest

from aquascope_core.errors import InputError, StudyError
from aquascope_core.paths import PathError, find_path, get_path, references_in, resolve_references
from aquascope_core.study import Study

P = {"a": {"b": [10, 20, {"c": 3}]}, "rows": [{"method": "gev", "q": 1.5}, {"method": "lp3", "q": 2.5}],
     "n": 7, "flag": True}


@pytest.mark.parametrize("path,value", [
    ("a.b[1]", 20), ("a.b.1", 20), ("a.b[2].c", 3), ("a.b[-1].c", 3), ("rows[method=lp3].q", 2.5), ("n", 7), ("", P),
])
def test_get_path(path, value):
    assert get_path(P, path) == value


@pytest.mark.parametrize("path,fragment", [
    ("a.x", "'a.x' not found"), ("a.b[9]", "index 9 out of range"), ("rows[method=gumbel].q", "no item with method=gumbel"),
    ("n.m", "not a mapping"), ("a.b[x]", "malformed bracket"),
])
def test_get_path_names_the_failing_segment(path, fragment):
    with pytest.raises(PathError, match=fragment.replace("[", r"\[")):
        get_path(P, path)


def test_find_path_and_references():
    assert find_path(P, 2.5) == "rows[1].q"
    assert find_path(P, 99.0) is None
    args = {"values": "{{ result.s2.values }}", "label": "T={{ result.s1.T }} years", "k": [1, "{{result.s1.T}}"]}
    assert sorted(references_in(args)) == [("s1", "T"), ("s1", "T"), ("s2", "values")]
    out = resolve_references(args, {"s1": {"T": 100}, "s2": {"values": [1.0, 2.0]}})
    assert out == {"values": [1.0, 2.0], "label": "T=100 years", "k": [1, 100]}
    with pytest.raises(PathError, match="result.s3 is not available"):
        resolve_references({"x": "{{ result.s3.q }}"}, {})


V2 = {
    "version": 2, "title": "t", "question": "q", "problem": {"kind": "flood_risk", "site": {"lat": 1.0, "lon": 2.0},
                                                             "params": {"return_period": 100}},
    "plan": {"playbook": "flood_risk", "branch": "at_site", "rationale": "r", "objective": "dropped in v2"},
    "steps": [{"id": "s1", "tool": "station_record", "arguments": {"source": "usgs", "station_id": "01440000"},
               "expects": [{"check": "min_years", "value": 20, "path": "years"}], "fallback": "stop"},
              {"id": "s2", "tool": "annual_maxima", "arguments": {"source": "usgs", "station_id": "01440000"},
               "depends_on": ["s1"], "optional": True, "method": "annual_maxima", "outputs": [{"kind": "figure", "id": "x"}]}],
}


def test_v1_list_round_trips_as_v1():
    s = Study.from_dict([{"tool": "station_record", "arguments": {"source": "usgs", "station_id": "1"}}])
    assert s.version == 1 and s.steps[0].id == "s1"
    assert s.to_dict() == {"steps": [{"id": "s1", "tool": "station_record", "arguments": {"source": "usgs", "station_id": "1"}}]}
    assert Study.from_yaml(s.to_yaml()).to_dict() == s.to_dict()


def test_v2_round_trip_drops_v3_fields():
    s = Study.from_dict(V2)
    d = s.to_dict()
    assert d["version"] == 2 and "objective" not in d["plan"] and "outputs" not in d["steps"][1]
    assert Study.from_yaml(s.to_yaml()).to_dict() == d
    assert Study.from_json(s.to_json()).to_dict() == d


def test_v3_keeps_every_field_through_yaml_and_json():
    v3 = json.loads(json.dumps(V2))
    v3["version"] = 3
    v3["plan"].update({"methodology": ["one", "two"], "assumptions": ["a"], "alternatives": [{"method": "m", "why_not": "w"}],
                       "limitations_expected": ["l"], "citations": ["c"], "author": "playbook", "decision": "d"})
    s = Study.from_dict(v3)
    d = s.to_dict()
    assert d["plan"]["objective"] == "dropped in v2" and d["steps"][1]["outputs"] == [{"kind": "figure", "id": "x"}]
    assert Study.from_yaml(s.to_yaml()).to_dict() == d == Study.from_json(s.to_json()).to_dict()


def test_study_refuses_what_it_cannot_hold():
    with pytest.raises(StudyError, match="unknown field"):
        Study.from_dict({"version": 2, "steps": [{"id": "s1", "tool": "x", "argumnets": {}}]})
    with pytest.raises(StudyError, match="appear more than once"):
        Study.from_dict({"version": 2, "steps": [{"id": "s1", "tool": "x"}, {"id": "s1", "tool": "y"}]})
    with pytest.raises(StudyError, match="names no tool"):
        Study.from_dict({"version": 2, "steps": [{"id": "s1"}]})
    with pytest.raises(InputError, match="version"):
        Study.from_dict({"version": 7, "steps": []})
    with pytest.raises(StudyError, match="not valid YAML"):
        Study.from_yaml("steps: [unclosed")
