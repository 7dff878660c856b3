"""The desk's forms read back into the interrupts' answers (no server): values typed by the type they replace,
errors naming the field, only the changes sent, references never editable; the pages escape what users and
studies wrote and list waiting studies first."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")

from graphs.desk.api import interrupt_of, study_status  # noqa: E402
from graphs.desk.forms import FormError, answers_from_form, editable, plan_edit_from_form, read_value, shown  # noqa: E402
from graphs.desk.pages import prose, studies_page  # noqa: E402

STUDY = {"steps": [
    {"id": "s1", "tool": "station_record", "arguments": {"station_id": "01440000"}},
    {"id": "s3", "tool": "flood_frequency", "title": "Flood frequency analysis", "arguments": {
        "values": "{{ result.s2.values }}", "return_periods": [2, 5, 100], "n_bootstrap": 1000, "confidence": 0.9,
        "distributions": ["gev_lmoments", "lp3_moments"]}},
    {"id": "s4", "tool": "trend_test", "optional": True, "arguments": {"alpha": 0.05}},
]}
INTAKE = {"return_period": 100, "decision": "design flow"}


def _form(**changes):
    """The plan form as the page renders it (every field at its current value), with ``changes``."""
    form = {"plan_form": "1", "keep.s4": "1", "intake.return_period": "100", "intake.decision": "design flow"}
    for st in STUDY["steps"]:
        for k, v in st["arguments"].items():
            if editable(v):
                form[f"arg.{st['id']}.{k}"] = shown(v)
    form.update(changes)
    return form


def test_values_read_by_the_type_they_replace():
    assert read_value("50", 100, "x") == 50 and isinstance(read_value("50", 100, "x"), int)
    assert read_value("0.95", 0.9, "x") == 0.95 and read_value("2,000", 1000, "x") == 2000
    assert read_value("[2, 10]", [2, 5], "x") == [2, 10] and read_value("2, 10", [2, 5], "x") == [2, 10]
    assert read_value("gev_lmoments", ["a"], "x") == ["gev_lmoments"]
    assert read_value("yes", False, "x") is True and read_value("", None, "x") is None
    with pytest.raises(FormError, match=r"Step s3.*'n_bootstrap': 'many' is not a number"):
        read_value("many", 1000, "Step s3 (Flood frequency analysis), argument 'n_bootstrap'")
    with pytest.raises(FormError, match="not a finite number"):
        read_value("nan", 1.0, "x")
    with pytest.raises(FormError, match="is not yes or no"):
        read_value("perhaps", True, "x")
    with pytest.raises(FormError, match="is not a JSON object"):
        read_value("a=1", {"a": 1}, "x")


def test_the_plan_form_sends_only_what_changed():
    assert plan_edit_from_form(_form(), STUDY, INTAKE) == {}  # nothing changed: the page sends accept
    edit = plan_edit_from_form(_form(**{"intake.return_period": "50", "arg.s3.n_bootstrap": "200"}), STUDY, INTAKE)
    assert edit == {"intake": {"return_period": 50}, "steps": {"s3": {"arguments": {"n_bootstrap": 200}}}}
    form = _form(**{"arg.s3.values": "[1, 2, 3]"})  # a reference is wiring: a posted value is ignored
    assert plan_edit_from_form(form, STUDY, INTAKE) == {}
    form = _form()
    del form["keep.s4"]  # the optional step unticked
    assert plan_edit_from_form(form, STUDY, INTAKE) == {"drop": ["s4"]}
    with pytest.raises(FormError, match="Study setting 'return_period': 'fifty' is not a number"):
        plan_edit_from_form(_form(**{"intake.return_period": "fifty"}), STUDY, INTAKE)


def test_the_questions_form_answers_or_accepts():
    qs = [{"field": "return_period", "question": "Return period (years)", "default": 100}]
    assert answers_from_form({"answer.return_period": " "}, qs) == {"type": "accept", "args": None}
    assert answers_from_form({"answer.return_period": "200"}, qs) == {
        "type": "edit", "args": {"action": "answer_questions", "args": {"answers": {"return_period": "200"}}}}


def test_status_and_interrupt_of_a_thread():
    intr = {"action_request": {"action": "approve_plan", "args": {}}, "config": {}, "description": ""}
    thread = {"status": "interrupted", "interrupts": {"task": [{"value": [intr], "id": "i1"}]}, "values": {}}
    assert interrupt_of(thread)["action_request"]["action"] == "approve_plan"
    assert study_status(thread) == "waiting for approval"
    assert study_status({"status": "busy", "interrupts": {}, "values": {"status": "running"}}) == "running"
    assert study_status({"status": "error", "interrupts": {}, "values": {"status": "running"}}) == "failed"
    assert study_status({"status": "idle", "interrupts": {}, "values": {"status": "done"}}) == "done"


def test_pages_escape_text_and_list_waiting_studies_first():
    rows = [{"id": "a", "status": "done", "site": "", "question": "<script>x</script>", "grade": "C",
             "last_step": "author report", "updated": "2026-12-01T10:00:00Z"},
            {"id": "b", "status": "waiting for approval", "site": "", "question": "plan me", "grade": "",
             "last_step": "methodologist plan", "updated": "2026-11-01T10:00:00Z"},
            {"id": "c", "status": "done", "site": "", "question": "newer", "grade": "B", "last_step": "",
             "updated": "2026-12-02T10:00:00Z"}]
    html = studies_page(rows, user="<ana>")
    assert "<script>x" not in html and "&lt;script&gt;x" in html and "&lt;ana&gt;" in html
    assert html.index("plan me") < html.index("newer") < html.index("&lt;script&gt;")
    assert prose("run `aquascope <x>`") == "run <code>aquascope &lt;x&gt;</code>"


def test_a_fork_changes_the_plan_as_approved():
    from graphs.desk.forks import chosen_edit

    approved = {**STUDY, "plan": {"approved": True, "decisions": [{"kind": "edit"}], "objective": "50-year"}}
    values = {"status": "done", "brief": {"playbook": "flood_risk", "intake": {"return_period": 50}}, "study": approved}
    fork = chosen_edit({"variant": "custom", "argument": "arg.s3.confidence", "value": "0.95"}, values)
    assert fork["variant"] == "confidence 0.95"
    steps = {s["id"]: s for s in fork["edits"]["study"]["steps"]}
    assert steps["s3"]["arguments"]["confidence"] == 0.95 and steps["s3"]["arguments"]["n_bootstrap"] == 1000
    assert "approved" not in fork["edits"]["study"]["plan"] and "decisions" not in fork["edits"]["study"]["plan"]
    assert approved["steps"][1]["arguments"]["confidence"] == 0.9  # the parent's study untouched
    fork = chosen_edit({"argument": "intake.return_period", "value": "200"}, values)  # the radio left unpicked
    assert fork["edits"] == {"intake": {"return_period": 200}}
    with pytest.raises(FormError, match="is its current value"):
        chosen_edit({"variant": "custom", "argument": "intake.return_period", "value": "50"}, values)
    with pytest.raises(FormError, match="arg.s3.values is not a setting"):
        chosen_edit({"variant": "custom", "argument": "arg.s3.values", "value": "[1]"}, values)
    with pytest.raises(FormError, match="Pick what the fork changes"):
        chosen_edit({}, values)
