"""run_study's rules, one test each, with small tools whose behaviour the test controls."""

from __future__ import annotations

from aquascope_core.errors import InputError
from aquascope_core.runner import StudyRun, run_study
from aquascope_core.study import Study

CALLS: list[str] = []


def make(value=10, unit="m3/s"):
    CALLS.append("make")
    return {"value": value, "unit": unit, "n_years": 30, "summary": f"made {value}"}


def double(x):
    CALLS.append("double")
    return {"value": 2 * x, "unit": "m3/s"}


def boom(**_):
    CALLS.append("boom")
    raise InputError("the station has no such variable", argument="variable")


def null(**_):
    CALLS.append("null")
    return {"ok": False, "reason": "the fit's shape is on its bound"}


def bug(**_):
    CALLS.append("bug")
    raise ZeroDivisionError("division by zero")


TOOLS = {"make": make, "double": double, "boom": boom, "null": null, "bug": bug}


def study(*steps):
    return Study.from_dict({"version": 2, "steps": list(steps)})


def setup_function():
    CALLS.clear()


def test_gates_pass_and_results_are_written_back():
    s = study({"id": "s1", "tool": "make", "arguments": {"value": 5}, "expects": [{"check": "min_years", "value": 20}]})
    run = run_study(s, callables=TOOLS)
    assert run.ok and run.results["s1"].status == "ok" and run.results["s1"].payload["value"] == 5
    assert s.results["s1"]["ok"] is True and s.results["s1"]["gates"][0]["passed"] is True
    assert run.summary == {"planned": 1, "ran": 1, "ok": 1, "failed": 0, "skipped": 0}


def test_failed_gate_fails_the_step_and_the_run_goes_on():
    s = study({"id": "s1", "tool": "make", "expects": [{"check": "min_years", "value": 50}]},
              {"id": "s2", "tool": "make", "arguments": {"value": 3}})
    run = run_study(s, callables=TOOLS)
    assert run.results["s1"].status == "failed" and "min_years" in run.results["s1"].failed_reason
    assert run.results["s2"].status == "ok" and not run.ok and run.failed_steps == ["s1"]


def test_fallback_step_runs_once_with_the_same_gates():
    s = study({"id": "s1", "tool": "boom", "expects": [{"check": "unit_present"}],
               "fallback": {"step": {"tool": "make", "arguments": {"value": 7}}}})
    run = run_study(s, callables=TOOLS)
    r = run.results["s1"]
    assert r.status == "ok" and r.fallback_used and r.payload["value"] == 7 and r.gates[0]["check"] == "unit_present"
    assert CALLS == ["boom", "make"]


def test_fallback_that_fails_too_is_recorded_not_established():
    s = study({"id": "s1", "tool": "boom", "fallback": {"step": {"tool": "null"}}})
    r = run_study(s, callables=TOOLS).results["s1"]
    assert r.status == "failed" and "the fallback (null) failed too" in r.failed_reason and CALLS == ["boom", "null"]


def test_fallback_stop_ends_the_run_and_lists_what_did_not_run():
    s = study({"id": "s1", "tool": "null", "fallback": "stop"}, {"id": "s2", "tool": "make"})
    run = run_study(s, callables=TOOLS)
    assert run.stopped_at == "s1" and "stop" in run.stop_reason
    assert run.results["s2"].status == "not_run" and CALLS == ["null"]


def test_dependents_are_skipped_with_the_reason_and_independent_steps_run():
    s = study({"id": "s1", "tool": "boom"}, {"id": "s2", "tool": "make", "depends_on": ["s1"]},
              {"id": "s3", "tool": "make"})
    run = run_study(s, callables=TOOLS)
    assert run.results["s2"].status == "skipped" and "depends on s1" in run.results["s2"].failed_reason
    assert run.results["s3"].status == "ok" and run.summary["skipped"] == 1


def test_references_resolve_and_a_reference_to_a_failed_result_skips():
    s = study({"id": "s1", "tool": "make", "arguments": {"value": 4}},
              {"id": "s2", "tool": "double", "arguments": {"x": "{{ result.s1.value }}"}, "depends_on": ["s1"]},
              {"id": "s3", "tool": "null"},
              {"id": "s4", "tool": "double", "arguments": {"x": "{{ result.s3.value }}"}})
    run = run_study(s, callables=TOOLS)
    assert run.results["s2"].payload["value"] == 8 and run.results["s2"].arguments == {"x": 4}
    assert run.results["s4"].status == "skipped" and "result.s3" in run.results["s4"].failed_reason


def test_gate_references_resolve_against_earlier_results():
    s = study({"id": "s1", "tool": "make", "arguments": {"value": 100}},
              {"id": "s2", "tool": "make", "arguments": {"value": 110},
               "expects": [{"check": "cross_check_ratio", "path": "value", "reference": "{{ result.s1.value }}", "value": 1.2}]})
    run = run_study(s, callables=TOOLS)
    assert run.results["s2"].ok and run.results["s2"].gates[0]["seen"] == 1.1


def test_honest_null_errors_and_defects_fail_the_step_without_crashing():
    s = study({"id": "s1", "tool": "null"}, {"id": "s2", "tool": "boom"}, {"id": "s3", "tool": "bug"},
              {"id": "s4", "tool": "not_a_tool"}, {"id": "s5", "tool": "double", "arguments": {"y": 1}})
    run = run_study(s, callables=TOOLS)
    r = run.results
    assert r["s1"].failed_reason == "the fit's shape is on its bound"
    assert r["s2"].error["type"] == "InputError" and r["s2"].error["argument"] == "variable"
    assert r["s3"].error["defect"] is True and "ZeroDivisionError" in r["s3"].failed_reason
    assert "unknown tool" in r["s4"].failed_reason
    assert "do not fit double" in r["s5"].failed_reason
    assert run.summary["failed"] == 5


def test_optional_failure_keeps_the_run_ok():
    s = study({"id": "s1", "tool": "make"}, {"id": "s2", "tool": "null", "optional": True})
    run = run_study(s, callables=TOOLS)
    assert run.ok and run.results["s2"].status == "failed"


def test_prior_run_steps_are_reused_not_run_again():
    s = study({"id": "s1", "tool": "make", "arguments": {"value": 2}}, {"id": "s2", "tool": "null"})
    first = run_study(s, callables=TOOLS)
    CALLS.clear()
    second = run_study(s, callables=TOOLS, prior=StudyRun.from_dict(first.to_dict()))
    assert second.results["s1"].reused and CALLS == ["null"]
    s.steps[0].arguments["value"] = 3  # changed arguments: run again
    CALLS.clear()
    run_study(s, callables=TOOLS, prior=first)
    assert CALLS == ["make", "null"]


def test_on_event_sees_every_step_and_a_faulty_listener_is_contained():
    seen = []
    s = study({"id": "s1", "tool": "make"}, {"id": "s2", "tool": "boom"})
    run_study(s, callables=TOOLS, on_event=seen.append)
    assert [(e["step"], e["event"]) for e in seen] == [("s1", "start"), ("s1", "done"), ("s2", "start"),
                                                       ("s2", "failed"), (None, "run_done")]
    assert all(e["role"] == "analysts" for e in seen)

    def broken(_):
        raise RuntimeError("listener bug")

    assert run_study(s, callables=TOOLS, on_event=broken).results["s1"].ok


def test_branch_fallback_replans_at_most_max_replans_times():
    asked = []

    def replan(step, result, st):
        asked.append(step.id)
        return [{"id": f"r{len(asked)}", "tool": "make", "arguments": {"value": 1}}]

    s = study({"id": "s1", "tool": "boom", "fallback": {"branch": "regional"}},
              {"id": "s2", "tool": "make", "depends_on": ["s1"]})
    run = run_study(s, callables=TOOLS, replan=replan, max_replans=1)
    assert asked == ["s1"] and run.results["s1"].replaced_by == ["r1"] and run.results["r1"].ok
    assert run.results["s2"].ok  # the replacement stands in for the failed step
    run = run_study(s, callables=TOOLS, replan=replan, max_replans=0)
    assert asked == ["s1"] and not run.results["s1"].replaced_by


def test_v1_study_stays_v1_and_run_round_trips():
    s = Study.from_dict([{"tool": "make", "arguments": {"value": 1}}])
    run = run_study(s, callables=TOOLS)
    assert s.results == {} and s.to_dict() == {"steps": [{"id": "s1", "tool": "make", "arguments": {"value": 1}}]}
    again = StudyRun.from_dict(run.to_dict())
    assert again.to_dict()["results"] == run.to_dict()["results"]
