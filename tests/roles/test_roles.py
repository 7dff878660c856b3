"""The roles over one workspace: keyless behaviour, the Critic's refusal of numbers no result holds,
and a scripted model whose inventions are dropped."""

from __future__ import annotations

import json

import pytest

from aquascope_core.errors import InputError
from aquascope_core.workspace import ArtifactStore, Workspace
from roles import analysts, author, consultant, critic, interpreter, methodologist, scout
from roles.model import ScriptedModel, parse_json_object
from tests.answers import roles_past_request

SITE = {"lat": 41.10, "lon": -74.96}
TEXT = "Design flow for a road crossing, 100-year"


def new_ws(text=TEXT, site=SITE) -> Workspace:
    return Workspace(site=dict(site), request={"text": text})


@pytest.fixture(scope="module")
def done(tmp_path_factory) -> tuple[Workspace, ArtifactStore]:
    ws = new_ws()
    for role in (consultant, scout, methodologist, analysts, interpreter, critic):
        role(ws)
        if role is methodologist:  # the basin characteristics the crew asks for: gone on without them
            roles_past_request(ws, methodologist)
    store = ArtifactStore(tmp_path_factory.mktemp("artifacts"))
    author(ws, store=store)
    return ws, store


def test_consultant_reads_the_brief_from_the_words():
    ws = consultant(new_ws())
    b = ws.brief
    assert b["playbook"] == "flood_risk" and b["ready"] and b["intake"] == {"return_period": 100, "decision": "design flow"}
    ws = consultant(new_ws("What is the 1 in 50 flood for insurance here?"))
    assert ws.brief["intake"] == {"return_period": 50, "decision": "insurance"}


def test_consultant_asks_for_a_missing_return_period_and_just_go_takes_the_default():
    ws = consultant(new_ws("flood risk at the culvert"))
    assert not ws.brief["ready"] and ws.brief["questions"][0]["field"] == "return_period"
    assert ws.messages[-1]["kind"] == "questions"
    consultant(ws, answers="just go")
    assert ws.brief["ready"] and ws.brief["intake"]["return_period"] == 100
    assert any("default" in a for a in ws.brief["assumptions"])


def test_consultant_refuses_empty_text_and_declines_an_unknown_question():
    with pytest.raises(InputError, match="problem text is empty"):
        consultant(new_ws("   "))
    ws = consultant(new_ws("tell me a joke"))
    assert ws.status == "declined" and "flood risk and design flow at a site" in ws.brief["declined_reason"]
    assert "flood_risk" not in ws.brief["declined_reason"]  # the studies by their titles, not their ids


def test_the_keyless_crew_writes_a_report_from_gated_results(done):
    ws, store = done
    assert ws.status == "done" and ws.run["ok"]
    dec = ws.findings["decision"]
    # a U.S. gauge with daily means only: the headline is an indicative peak (Fuller 1914), graded C at most; the
    # daily-mean fit (s3) supports it
    assert dec["grade"] == "C" and dec["unit"] == "ft3/s" and dec["basis"].startswith("s6.fits.fuller_indicative.")
    assert dec["answer"].startswith("Not for design:")
    assert dec["quantity"] == "peak flow" and dec["indicative"] is True and "indicative" in dec["grade_reason"]
    assert ws.critique["ok"] and ws.report["critique_ok"] and ws.report["final_check"]["ok"]
    ids = [s["id"] for s in ws.report["sections"]]
    assert ids == ["summary", "problem", "site_data", "methodology", "results", "limitations", "recommendations",
                   "glossary", "references", "signoff", "appendix"]
    md = store.get(next(a for a in ws.artifacts if a["name"] == "report.md")).decode()
    assert "GEV (L-moments)" in md and "log-Pearson III" in md and "90 % band" in md
    assert "| s3 | spread_within | passed |" in md  # gates listed with their values
    saved = json.loads(store.get(next(a for a in ws.artifacts if a["name"] == "workspace.json")))
    assert saved["status"] == "done" and saved["id"] == ws.id
    # every finding is anchored at a path that holds its value
    for f in ws.findings["findings"]:
        step, _, path = f["basis"].partition(".")
        from aquascope_core.paths import get_path
        assert get_path(ws.run["results"][step]["payload"], path) == f["value"]


def test_critic_fails_a_number_no_result_holds(done):
    ws, _ = done
    ws2 = Workspace.from_dict(ws.to_dict())
    critic(ws2, draft={"answer": ws.findings["decision"]["answer"] + " The 500-year flood is 999 m3/s.", "claims": []})
    assert not ws2.critique["ok"] and ws2.critique["failed"] == ["numbers_in_results"]
    assert ws2.critique["issues"][0]["problem"] == "999 is in no result"
    # the Author then opens the answer with the notice
    author(ws2, store=ArtifactStore(ws2.id and __import__("tempfile").mkdtemp()))
    assert ws2.report["answer"].startswith("Notice: the critique of this report is not clean")


def test_critic_catches_a_finding_whose_basis_does_not_hold_its_value(done):
    ws, _ = done
    ws2 = Workspace.from_dict(ws.to_dict())
    ws2.findings["findings"][0]["value"] = 12345.0
    critic(ws2)
    assert "findings_resolve" in ws2.critique["failed"]


def test_a_failed_gate_is_listed_as_not_established(tmp_path):
    ws = new_ws()
    for role in (consultant, scout, methodologist):
        role(ws)
    roles_past_request(ws, methodologist)  # the basin characteristics the crew asks for: gone on without them
    ws.study["steps"][2]["expects"].append({"check": "spread_within", "value": 0.001, "return_period": 100,
                                            "paths": ["fits.gev_lmoments.return_levels", "fits.lp3_moments.return_levels"]})
    for role in (analysts, interpreter, critic):
        role(ws)
    author(ws, store=ArtifactStore(tmp_path))
    assert ws.run["results"]["s3"]["status"] == "failed"
    assert ws.findings["decision"]["grade"] == "not established" and ws.findings["decision"]["value"] is None
    ne = ws.report["not_established"]
    # the indicative peak (s6) converts s3's quantiles, so it is not established with it
    assert [n["step"] for n in ne] == ["s3", "s6"] and "spread_within" in ne[0]["reason"]
    # no number from the failed fit reaches the report's summary
    summary = ws.report["sections"][0]["text"]
    assert "not established" in summary and "m3/s by the" not in summary


def test_declined_study_gets_a_short_report(tmp_path):
    ws = new_ws(site={"lat": 30.0, "lon": -40.0})
    for role in (consultant, scout, methodologist):
        role(ws)
    # data the user could bring: the study waits for it, saying what would help
    assert ws.status == "waiting" and "discharge record" in ws.pending_request["what"]
    from roles.methodologist import decline_pending

    decline_pending(ws)  # nobody brings it
    assert ws.status == "declined" and "No discharge record" in ws.brief["declined_reason"]
    author(ws, store=ArtifactStore(tmp_path))
    assert ws.status == "declined" and ws.report["declined"]
    names = [a["name"] for a in ws.artifacts]
    assert names == ["report.md", "report.html", "report.docx", "study.yaml", "workspace.json"]
    # the study file of a decline: the question, the site, what was found and the decline, which replays
    from aquascope_core.declines import replay_decline
    from aquascope_core.study import Study

    study = Study.from_yaml(ArtifactStore(tmp_path).get(ws.artifacts[names.index("study.yaml")]).decode())
    assert study.steps == [] and study.plan["declined"] and study.plan["declined_by"] == "playbook"
    assert study.problem["site"] == {"lat": 30.0, "lon": -40.0} and study.plan["playbook"] == "flood_risk"
    again = replay_decline(study)
    assert again["declined"] and again["replayed"] and again["same"], again


def test_scripted_model_fills_the_brief_and_its_invented_numbers_are_dropped(tmp_path):
    model = ScriptedModel([
        # consultant: a first reply that cannot be used, then the repair
        "I think it's about floods.",
        {"intake": {"return_period": 200, "colour": "blue"}, "questions": []},
    ], cost_usd=None)
    ws = new_ws("Design flow for a road crossing")
    consultant(ws, model=model)
    assert ws.brief["source"] == "model" and ws.brief["intake"]["return_period"] == 200
    assert ws.ledger["consultant"]["calls"] == 2 and ws.ledger["consultant"]["cost_usd"] is None
    assert any(e["event"] == "model_reply_rejected" for e in ws.events)
    for role in (scout, methodologist, analysts):
        role(ws)
        if role is methodologist:
            roles_past_request(ws, methodologist)
    s3 = ws.run["results"]["s3"]["payload"]
    i = s3["return_periods"].index(200)
    real = s3["fits"]["gev_lmoments"]["return_levels"][i]
    model.replies = [
        {"findings": [{"claim": f"The 200-year GEV flood is {real:.1f} m3/s.",
                       "basis": f"s3.fits.gev_lmoments.return_levels[{i}]"},
                      {"claim": "The 200-year flood is 612 m3/s.", "basis": f"s3.fits.gev_lmoments.return_levels[{i}]"},
                      {"claim": "The mean flow is 3.3 m3/s.", "basis": "s9.nothing"}], "answer": "ignored"},
        {"sections": {"summary": f"The crossing should pass {real:.0f} m3/s. Some say 4,321 m3/s.",
                      "methodology": "Not editable by the model."}},
    ]
    interpreter(ws, model=model)
    assert ws.findings["written_by"] == "model"
    assert [d["reason"] for d in ws.findings["dropped"]] == ["states a number not at its basis",
                                                             "basis does not resolve: step s9 is not established"]
    critic(ws)
    author(ws, model=model, store=ArtifactStore(tmp_path))
    assert ws.report["written_by"]["summary"] == "model"
    assert ws.report["dropped"] == [{"section": "summary", "sentence": "Some say 4,321 m3/s.", "numbers": ["4,321"]}]
    assert "4,321" not in ws.report["sections"][0]["text"] and f"{real:.0f} m3/s" in ws.report["sections"][0]["text"]
    assert ws.report["written_by"]["methodology"] == "keyless"


def test_parse_json_object():
    assert parse_json_object('Here: ```json\n{"a": 1}\n```') == {"a": 1}
    assert parse_json_object('noise {"b": [1, 2]} tail') == {"b": [1, 2]}
    for bad in ("", "no json", "[1, 2]", "{broken"):
        with pytest.raises(ValueError):
            parse_json_object(bad)


def test_a_branch_fallback_replans_that_branch_once(tmp_path):
    ws = new_ws()
    for role in (consultant, scout, methodologist):
        role(ws)
    roles_past_request(ws, methodologist)  # the basin characteristics the crew asks for: gone on without them
    s3 = ws.study["steps"][2]
    s3["expects"] = [{"check": "min_years", "value": 500, "path": "n"}]  # cannot pass
    s3["fallback"] = {"branch": "at_site"}
    analysts(ws)
    res = ws.run["results"]
    assert res["s3"]["status"] == "failed" and res["s3"]["replaced_by"] == [
        "s3_at_site_s1", "s3_at_site_s2", "s3_at_site_s3", "s3_at_site_s4", "s3_at_site_s6"]
    assert res["s3_at_site_s3"]["status"] == "ok"
    assert res["s3_at_site_s3"]["arguments"]["values"] == res["s3_at_site_s2"]["payload"]["values"]
    assert any("the at_site branch ran in its place" in n for n in ws.study["plan"]["notes"])
    assert ws.run["ok"]
