"""The crew with a model, through the real litellm over HTTP against an OpenAI-compatible stub on loopback.

Each test starts tests/model_stub.StubModelServer on a free 127.0.0.1 port; the stub answers each role by the
words of the role's system prompt, and some replies are written from what the role sent (the way a model
reads its context). Nothing leaves the machine.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from model_stub import StubModelServer, StubReply, reply_by_role  # noqa: E402

from aquascope_core.catalogue import validate_plan  # noqa: E402
from aquascope_core.deliverables.report_md import render_markdown  # noqa: E402
from aquascope_core.study import Study  # noqa: E402
from graphs.solve import solve  # noqa: E402

SITE = {"lat": 41.10, "lon": -74.96}  # Flat Brook near Flatbrookville NJ (USGS 01440000), embedded
TEXT = "Design flow for a road crossing, 100-year"


def user_payload(body: dict) -> dict:
    return json.loads(next(m["content"] for m in body["messages"] if m["role"] == "user"))


def composed_plan(body: dict) -> dict:
    """A 'model' that composes from what it was given: the playbook's steps without the optional trend test,
    each with its own rationale, and prose that states only the plan's figures."""
    draft = user_payload(body)["playbook_plan"]
    steps = [{**s, "rationale": f"Composed: {s.get('title') or s['tool']} is needed for the design flow."}
             for s in draft["steps"] if not s.get("optional")]
    return {"objective": "Estimate the 100-year flood at the crossing from the gauge's annual maxima.",
            "methodology": [{"text": "Read the gauge record.", "steps": ["s1"]},
                            {"text": "Fit the annual maxima and read the 100-year quantile.", "steps": ["s3", "s9"]},
                            {"text": "The record spans 4321 years.", "steps": ["s1"]},  # an invented number: dropped
                            "Report the design flow.",  # a line that names no step: refused
                            {"text": "Check the gauge.", "steps": ["s7"]}],  # no step s7 in the plan: refused
            "assumptions": ["The record is stationary."], "steps": steps}


def interpreter_reply(body: dict) -> dict:
    kns = user_payload(body)["key_numbers"]
    kn = kns[0]
    return {"findings": [{"claim": f"The {kn['label']} is {kn['value']:.4g} {kn.get('unit') or ''}.".strip(),
                          "basis": kn["path"]},
                         {"claim": "The flood is 98765 m3/s.", "basis": kn["path"]}],  # invented: dropped
            "answer": "ignored"}


def author_reply(body: dict) -> dict:
    return {"sections": {"summary": "The crossing should be designed from the gauge's record. It carries 55555 m3/s.",
                         "recommendations": "Obtain the instantaneous peak record before final design."}}


def roles_table(methodologist=composed_plan, critic=None, fix=None) -> dict:
    return {
        "fix round": fix or {"sections": {"summary": "The design flow comes from the gauge's annual maxima. "
                                                     "A reviewer would add 77777 m3/s."}},
        "the critic of": critic if critic is not None else {"issues": []},
        "the author of": author_reply,
        "the methodologist of": methodologist,
        "the interpreter of": interpreter_reply,
        "the consultant of": {"intake": {"return_period": 100, "decision": "design flow"}, "questions": []},
    }


def run_with(stub: StubModelServer, **kw):
    return solve(TEXT, **SITE, model="openai/stub", base_url=stub.base_url, api_key="sk-stub", timeout=5, **kw)


def test_a_composed_plan_runs_with_its_author_and_reasons_and_invented_numbers_are_dropped():
    with StubModelServer(default=reply_by_role(roles_table())) as stub:
        r = run_with(stub)
    plan = r.study.plan
    assert plan["author"] == "methodologist" and plan["written_by"] == "model"
    assert [s.tool for s in r.study.steps] == ["station_record", "annual_maxima", "flood_frequency"]
    assert all(s.rationale.startswith("Composed:") for s in r.study.steps)
    assert not validate_plan(r.study, site=plan["site_context"])
    # the plan's prose keeps what the plan holds and drops the invented record length
    lines = plan["methodology"]
    assert "The record spans 4321 years." not in [m["text"] for m in lines]
    assert plan["prose_dropped"][0]["numbers"] == ["4321"]
    # each line keeps its link to the plan's steps (an unknown id is left out); a line naming no step of the plan
    # is refused, and the step no model line describes (the annual maxima) gets the playbook's line for its tool
    assert [(m["text"][:28], m["steps"]) for m in lines] == [
        ("Read the gauge record.", ["s1"]), ("Fit the annual maxima and re", ["s3"]),
        ("Take the maximum of the dail", ["s2"])]
    assert [d["reason"] for d in plan["prose_dropped"][1:]] == [
        "the line names no step of the plan", "the line names no step of the plan (it names ['s7'])"]
    # an edit of the composed plan rewrites the model's lines through their links: the gates moved to the 50-year
    # flood, so the line that quoted the 100-year quantile is written again from its step, the others stay
    from aquascope_core.workspace import Workspace
    from roles.review import apply_review_edit

    ws = Workspace.from_dict(r.workspace)
    gates = [{**g, "return_period": 50} if "return_period" in g else g for g in r.study.step("s3").expects]
    assert apply_review_edit(ws, {"steps": {"s3": {"expects": gates}}})[0] == []
    edited = [m for m in ws.study["plan"]["methodology"] if m.get("kind") != "review"]
    assert [m["steps"] for m in edited] == [["s1"], ["s3"], ["s2"]]
    assert edited[0]["text"] == "Read the gauge record." and edited[2]["text"].startswith("Take the maximum")
    assert edited[1]["text"].startswith("Flood frequency analysis: ") and "read at the 50-year return period" in \
        edited[1]["text"] and "100-year" not in edited[1]["text"]
    assert plan["caveats"] and plan["citations"]  # kept from the playbook whatever the model wrote
    assert r.run.ok and r.report["written_by"]["summary"] == "model"
    text = render_markdown(r.report) + json.dumps([r.answer, r.report["key_numbers"], r.workspace["findings"]["findings"]])
    for invented in ("98765", "55555", "4321"):
        assert invented not in text
    assert any(d["reason"] == "states a number not at its basis" for d in r.workspace["findings"]["dropped"])
    # the ledger counts exactly what the stub served
    ledger = r.workspace["ledger"]
    assert sum(v["calls"] for v in ledger.values()) == stub.served["calls"] == len(stub.requests)
    assert sum(v["prompt_tokens"] for v in ledger.values()) == stub.served["prompt_tokens"]
    assert sum(v["completion_tokens"] for v in ledger.values()) == stub.served["completion_tokens"]
    assert set(ledger) == {"consultant", "methodologist", "interpreter", "author", "critic"}


def test_an_invalid_composed_plan_is_repaired_once_with_its_errors():
    replies = []

    def methodologist(body):
        if not replies:
            replies.append(1)
            bad = composed_plan(body)
            bad["steps"][2] = {**bad["steps"][2], "tool": "flood_frequncy"}  # a misspelt tool
            return bad
        return composed_plan(body)

    with StubModelServer(default=reply_by_role(roles_table(methodologist=methodologist))) as stub:
        r = run_with(stub)
    assert r.study.plan["author"] == "methodologist" and r.run.ok
    calls = [b for b in stub.requests if "the methodologist of" in b["messages"][0]["content"]]
    assert len(calls) == 2
    repair = calls[1]["messages"][-1]["content"]
    assert "unknown tool 'flood_frequncy'" in repair


def test_a_plan_that_stays_invalid_falls_back_to_the_tree_with_a_note():
    def methodologist(body):
        plan = composed_plan(body)
        plan["steps"][1]["arguments"] = {**plan["steps"][1]["arguments"], "colour": "blue"}
        return plan

    with StubModelServer(default=reply_by_role(roles_table(methodologist=methodologist))) as stub:
        r = run_with(stub)
    assert r.study.plan["author"] == "playbook"
    assert any("composed plan was not used" in n and "colour" in n for n in r.study.plan["notes"])
    assert r.workspace["request"]["plan_used"] == "tree" and r.run.ok


def test_a_step_not_defensible_at_the_site_is_dropped_with_a_note_and_its_dependents_too():
    def methodologist(body):
        plan = composed_plan(body)
        plan["steps"].append({"id": "s9", "tool": "regional_index_flood", "arguments": {},
                              "method": "regional_index_flood", "rationale": "A regional check."})
        plan["steps"].append({"id": "s10", "tool": "trend_test", "arguments": {"values": "{{ result.s9.values }}"},
                              "depends_on": ["s9"], "rationale": "Trend on the regional values."})
        plan["steps"].append({"id": "s11", "tool": "standardized_precipitation_index", "arguments": {},
                              "rationale": "Not a flood tool."})
        return plan

    with StubModelServer(default=reply_by_role(roles_table(methodologist=methodologist))) as stub:
        r = run_with(stub)
    plan = r.study.plan
    assert plan["author"] == "methodologist" and [s.id for s in r.study.steps] == ["s1", "s2", "s3"]
    assert any("s9 dropped" in n and "not defensible" in n for n in plan["notes"])
    assert any("s10" in n and "depends on s9" in n for n in plan["notes"])
    assert any("s11 dropped: standardized_precipitation_index is not a tool a flood risk study uses" in n
               for n in plan["notes"])
    # the methodologist's prompt carries the flood specialist's planning knowledge
    system = next(b["messages"][0]["content"] for b in stub.requests if "the methodologist of" in b["messages"][0]["content"])
    assert "Bulletin 17C" in system and "(planning)" in system


def test_the_critic_reads_the_draft_the_author_fixes_it_and_a_second_pass_follows():
    passes = []

    def critic(body):
        passes.append(user_payload(body)["pass"])
        if len(passes) == 1:
            return {"issues": [{"section": "summary", "severity": "major",
                                "problem": "The summary does not say the flows are daily means.",
                                "fix": "Say the maxima are of daily mean flows."},
                               {"section": "no-such-section", "severity": "major", "fix": "x"}]}
        return {"issues": [{"section": "recommendations", "severity": "minor", "problem": "Terse.",
                            "fix": "Name the peak record to obtain."}]}

    with StubModelServer(default=reply_by_role(roles_table(critic=critic))) as stub:
        r = run_with(stub)
    review = r.workspace["critique"]["model_review"]
    assert passes == [1, 2] and review["passes"] == 2
    assert [i["section"] for i in review["first"]] == ["summary"]  # the issue naming no section is dropped
    assert review["rewritten"] == ["summary"]
    summary = r.report["sections"][0]["text"]
    assert summary.startswith("The design flow comes from the gauge's annual maxima.")
    assert "77777" not in render_markdown(r.report)
    assert any(d.get("round") == "fix" and d["numbers"] == ["77,777"] or d["numbers"] == ["77777"]
               for d in r.report["dropped"])
    limitations = next(s for s in r.report["sections"] if s["id"] == "limitations")["text"]
    assert "Points the review raised that stand" in limitations and "Name the peak record" in limitations
    # the deterministic checks still ran last and the report is clean
    assert r.report["critique_ok"] is True


@pytest.mark.parametrize("failure", ["garbage", "http500", "timeout"])
def test_garbage_errors_and_timeouts_fall_back_to_keyless_with_a_note(failure):
    reply = {"garbage": StubReply(raw="this is not a chat completion"), "http500": StubReply(status=500),
             "timeout": StubReply(delay=2.0)}[failure]
    with StubModelServer(default=reply) as stub:
        r = solve(TEXT, **SITE, model="openai/stub", base_url=stub.base_url, api_key="sk-stub", timeout=0.5)
    keyless = solve(TEXT, **SITE)
    assert r.run.ok and r.study.plan["author"] == "playbook"
    assert r.answer == keyless.answer  # the keyless crew's answer, number for number
    appendix = next(s for s in r.report["sections"] if s["id"] == "appendix")["text"]
    assert "**Model fallback.**" in appendix and "- consultant:" in appendix
    assert set(fb["role"] for fb in r.workspace["request"]["model_fallbacks"]) >= {"consultant", "methodologist"}


def test_the_shipped_prompts_json_is_in_step_with_the_prompts():
    from roles import prompts

    assert prompts.SHIPPED.read_text(encoding="utf-8") == prompts.as_json(), \
        "roles/prompts.json is stale: run `python -m roles.prompts --write`"
    roles = prompts.as_dict()["roles"]
    assert set(roles) >= {"consultant", "methodologist", "interpreter", "critic", "author", "author_fix"}
    assert all(r["system"] and r["reply_schema"]["type"] == "object" for r in roles.values())


def test_a_budget_stops_the_model_and_the_remaining_roles_run_keyless():
    from roles.model import ScriptedModel

    model = ScriptedModel([{"intake": {"return_period": 100}}, "no plan", "still no plan"] + [{}] * 10,
                          cost_usd=0.01)
    r = solve(TEXT, **SITE, client=model, max_usd=0.025)
    req = r.workspace["request"]
    assert sum(v["calls"] for v in r.workspace["ledger"].values()) == 3  # 0.03 spent: nothing after
    assert req["keyless_after_budget"] == ["interpreter", "author", "critic"]
    assert r.run.ok and "budget USD 0.025 spent" in r.report["footer"]["text"]
    appendix = next(s for s in r.report["sections"] if s["id"] == "appendix")["text"]
    assert "The budget of USD 0.025 was spent; after it interpreter, author, critic ran keyless." in appendix


@pytest.mark.slow
def test_the_cli_takes_the_model_its_url_the_key_by_variable_name_and_a_budget(tmp_path):
    import os
    import subprocess

    with StubModelServer(default=reply_by_role(roles_table())) as stub:
        env = {**os.environ, "AQUASCOPE_HOME": str(tmp_path / "home"), "STUB_KEY": "sk-stub-secret"}
        p = subprocess.run([sys.executable, "-m", "graphs.cli", "studio", TEXT, "--lat", "41.10", "--lon", "-74.96",
                            "--yes", "--out", str(tmp_path / "out"), "--model", "openai/stub", "--base-url",
                            stub.base_url, "--api-key-env", "STUB_KEY", "--max-usd", "5", "-q"],
                           capture_output=True, text=True, env=env, timeout=240)
        assert p.returncode == 0, p.stderr
        assert stub.served["calls"] >= 5  # every role asked the model
        auth = [b for b in stub.requests]
        assert auth and all(b.get("model") == "stub" for b in auth)
        report = (tmp_path / "out" / "report.md").read_text()
        assert "model calls" in report and "55555" not in report
        bad = subprocess.run([sys.executable, "-m", "graphs.cli", "studio", TEXT, "--lat", "41.10", "--lon", "-74.96",
                              "--model", "openai/stub", "--api-key-env", "NO_SUCH_VARIABLE_SET"],
                             capture_output=True, text=True, env=env, timeout=120)
        assert bad.returncode == 2 and "NO_SUCH_VARIABLE_SET" in bad.stderr and "Traceback" not in bad.stderr


def _plan_with_impossible_gate(body: dict) -> dict:
    plan = composed_plan(body)
    s3 = plan["steps"][2]
    s3["expects"] = [*(s3.get("expects") or []), {"check": "min_years", "value": 500, "path": "n"}]  # cannot pass
    s3.pop("fallback", None)
    return plan


@pytest.mark.parametrize("valid", [True, False])
def test_after_a_failed_gate_the_model_proposes_a_fallback_that_is_validated_before_it_runs(valid):
    def analyst(body):
        failed = user_payload(body)["failed_step"]
        if not valid:
            return {"steps": [{"tool": "flood_frequency", "arguments": {"colour": "red"}, "rationale": "x"}]}
        gates = [g for g in failed.get("expects") or [] if g.get("value") != 500]
        return {"steps": [{"tool": failed["tool"], "arguments": failed["arguments"], "expects": gates,
                           "depends_on": failed.get("depends_on") or [], "method": failed.get("method"),
                           "rationale": "The same fit with the gates the record can meet."}]}

    table = roles_table(methodologist=_plan_with_impossible_gate)
    table = {"an analyst of": analyst, **table}
    with StubModelServer(default=reply_by_role(table)) as stub:
        r = run_with(stub)
    res = r.run.results
    assert res["s3"].status == "failed"
    if valid:
        assert res["s3"].replaced_by == ["s3_fb1"] and res["s3_fb1"].status == "ok"
        assert any("the model proposed s3_fb1 (flood_frequency)" in n for n in r.study.plan["notes"])
        assert "s3_fb1" in [s.id for s in r.study.steps]
    else:
        assert "s3_fb1" not in res
        assert any(e["event"] == "fallback_not_proposed" for e in r.workspace["events"])
    calls = [b for b in stub.requests if "an analyst of" in b["messages"][0]["content"]]
    assert 1 <= len(calls) <= 2  # one proposal, one repair at most: bounded by max_replans=1
