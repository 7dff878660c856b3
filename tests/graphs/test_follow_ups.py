"""Follow-ups after the report through the graph: questions answered from the results (every number held by a
result), changes planned again for review. Keyless rules classify; the Flat Brook flood study is the case."""

from __future__ import annotations

import re

import pytest

from aquascope_core.verify import numbers_in
from aquascope_core.workspace import Workspace
from graphs.studio import Studio
from roles.critic import evidence_pool
from roles.follow_up import classify
from tests.answers import past_request

TEXT = "Design flow for a road crossing, 100-year"


@pytest.fixture(scope="module")
def done(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    s = Studio(41.10, -74.96, checkpointer=f"sqlite:///{home / 'cp.sqlite'}", artifact_root=str(home / "art"))
    past_request(s, s.say(TEXT))
    s.approve()
    yield s
    s.close()


def _payload(s, step):
    return s.to_dict()["run"]["results"][step]["payload"]


@pytest.mark.parametrize("question, expect", [
    ("What was the largest annual maximum?", lambda s: max(_payload(s, "s2")["values"])),
    ("and the smallest annual maximum in the record?", lambda s: min(_payload(s, "s2")["values"])),
    ("What is the 50-year flood?", lambda s: _payload(s, "s3")["fits"]["gev_lmoments"]["return_levels"][
        _payload(s, "s3")["return_periods"].index(50)]),
    ("How long is the record?", lambda s: _payload(s, "s1")["years"]),
    ("what's the mean flow", lambda s: _payload(s, "s1")["statistics"]["mean"]),
])
def test_a_question_is_answered_from_the_results_and_the_report_stands(done, question, expect):
    before = done.to_dict()
    r = done.follow_up(question)
    assert r.kind == "answer" and r.payload["answered"], r.text
    value = expect(done)
    stated = [n["value"] for n in numbers_in(re.sub(r"`[^`]*`", "", r.text))]
    assert any(abs(v - value) <= 0.006 * abs(value) for v in stated), (r.text, value)
    ws = Workspace.from_dict(done.to_dict())
    pool = evidence_pool(ws)
    from aquascope_core.verify import verify
    assert verify(r.text, pool)["ok"]
    after = done.to_dict()
    assert after["report"] == before["report"] and after["study"] == before["study"] and after["status"] == "done"


def test_a_question_the_results_cannot_answer_says_so(done):
    r = done.follow_up("Which streets flood?")
    assert r.kind == "answer" and not r.payload["answered"] and "do not hold" in r.text
    assert not numbers_in(r.text)


@pytest.mark.parametrize("text, kind, change", [
    ("redo it with a 200-year return period", "change", {"return_period": 200}),
    ("What is the 300-year flood?", "change", {"return_period": 300}),  # not computed: a change
    ("What is the 10-year flood?", "question", {}),                       # computed: a question
    ("use a 500 year return period instead", "change", {"return_period": 500}),
    ("is there a trend?", "question", {}),
])
def test_the_keyless_classifier(done, text, kind, change):
    v = classify(Workspace.from_dict(done.to_dict()), text)
    assert v["kind"] == kind and v["change"] == change


def test_a_change_is_planned_again_run_and_re_authored(tmp_path):
    with Studio(41.10, -74.96, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}") as s:
        past_request(s, s.say(TEXT))
        s.approve()
        r = s.follow_up("What is the 150-year flood?")  # not among the levels computed: a change
        assert r.kind == "plan" and s.to_dict()["brief"]["intake"]["return_period"] == 150
        r = s.approve()
        assert r.kind == "report" and "150-year" in r.text
        assert [f["kind"] for f in s.to_dict()["follow_ups"]] == ["change"]
