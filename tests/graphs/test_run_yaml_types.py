"""The study.yaml type matrix through the faces that run a study file: `aquascope run` and MCP `solve_run`. A value
of a plain YAML type (an unquoted date, a timestamp) runs, held as its ISO text in the study written back; a value JSON cannot hold
(!!binary, !!set) is refused naming its line, and a wrong argument or gate type (expects.paths as an int, a
negative seed, data as a string or a dict) naming the field, all before the engine runs a step (run_study is
never called) and without a traceback."""

from __future__ import annotations

import json

import pytest

import aquascope_core.runner as runner
from graphs import cli

VALUES = "[120, 135, 150, 110, 160, 170, 125, 140, 155, 165, 130, 145, 150, 138, 172, 128, 149, 161, 133, 142]"


def _yaml(problem: str = "{q: design flood}", extra: str = "", gates: str = "", top: str = "") -> str:
    return (f"version: 2\n{top}problem: {problem}\nsteps:\n- id: s1\n  tool: flood_frequency\n"
            f"  arguments: {{values: {VALUES}, unit: m3/s{extra}}}\n" + (f"  expects: [{gates}]\n" if gates else ""))


RUNS = {  # study text -> a value run.json holds (JSON-safe)
    "unquoted date": (_yaml(problem="{start: 1990-01-01}"), ("problem", "start"), "1990-01-01"),
    "timestamp": (_yaml(problem="{at: 2001-12-14 21:59:43}"), ("problem", "at"), "2001-12-14T21:59:43"),
}
REFUSED = {  # study text -> words of the refusal
    "binary": (_yaml(problem="{blob: !!binary aGVsbG8=}"), "line 2"),
    "set": (_yaml(problem="{s: !!set {a, b}}"), "line 2"),
    "paths as an int": (_yaml(gates="{check: spread_within, paths: 3, value: 0.5}"), "'paths' must be a list"),
    "negative seed": (_yaml(extra=", seed: -5"), "a seed is a whole number"),
    "data as a string": (_yaml(top="data: flows.csv\n"), "unknown field(s) 'data'"),
    "data as a dict": (_yaml(top="data: {q: flows.csv}\n"), "unknown field(s) 'data'"),
    "data argument": (_yaml(extra=", data: flows.csv"), "does not take 'data'"),
}


@pytest.fixture
def engine_calls(monkeypatch):
    calls = []
    real = runner.run_study

    def counted(study, *a, **kw):
        calls.append(study.id)
        return real(study, *a, **kw)

    monkeypatch.setattr(runner, "run_study", counted)
    return calls


@pytest.mark.parametrize("name", sorted(RUNS))
def test_aquascope_run_takes_plain_yaml_values_as_json_safe_ones(name, tmp_path, capsys, engine_calls):
    text, where, value = RUNS[name]
    path = tmp_path / "study.yaml"
    path.write_text(text)
    code = cli.main(["run", str(path), "-q", "--out", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr().err
    import yaml

    json.loads((tmp_path / "out" / "run.json").read_text())
    node = yaml.safe_load((tmp_path / "out" / "study.yaml").read_text())  # the study as it ran, written back
    for key in where:
        node = node[key]
    assert node == value and isinstance(node, str) and engine_calls


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_aquascope_run_refuses_before_any_step_runs(name, tmp_path, capsys, engine_calls):
    text, words = REFUSED[name]
    path = tmp_path / "study.yaml"
    path.write_text(text)
    code = cli.main(["run", str(path), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and words in err and "Traceback" not in err, err
    assert engine_calls == [] and not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["paths as an int", "negative seed", "data argument"])
def test_mcp_solve_run_refuses_the_same_before_any_step_runs(name, engine_calls):
    from aquascope_core.study import Study
    from graphs.mcp_server import _guarded, _Tools

    text, words = REFUSED[name]
    study = Study.from_yaml(text).to_dict()  # what a caller would send: the study dict, as JSON
    out = _guarded(_Tools().solve_run)(study=json.loads(json.dumps(study)))
    assert out.is_error and words in out.structured_content["error"], out
    assert engine_calls == []
