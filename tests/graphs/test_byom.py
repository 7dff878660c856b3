"""Bring your own model: a face asks for a role's prompt and context, runs its own model, and hands the reply
back; the crew treats it exactly as its own model's reply (coerced, validated, every number checked)."""

from __future__ import annotations

import copy

import pytest

from aquascope_core.deliverables.report_md import render_markdown
from aquascope_core.workspace import ArtifactStore
from graphs.studio import Studio
from tests.answers import past_request

TEXT = "Design flow for a road crossing"
SITE = (41.10, -74.96)  # Flat Brook near Flatbrookville NJ (USGS 01440000)


@pytest.fixture
def studio(tmp_path):
    s = Studio(*SITE, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}", artifact_root=str(tmp_path / "art"))
    yield s
    s.close()


def test_a_proposed_brief_is_coerced_like_the_crews_model_reply(studio):
    ctx = studio.consultant_context(TEXT)
    assert ctx["role"] == "consultant" and "consultant" in ctx["system"]
    assert {q["name"] for q in ctx["context"]["intake"]} >= {"return_period", "decision"}
    assert any(st["name"] for st in ctx["context"]["nearby"])  # the catalogue-only recon
    r = past_request(studio, studio.say(TEXT, proposed={"brief": {"intake": {"return_period": 50, "colour": "blue"}},
                                                        "source": "device"}))
    brief = studio.to_dict()["brief"]
    assert brief["source"] == "device" and brief["intake"]["return_period"] == 50 and "colour" not in brief["intake"]
    assert r.kind == "plan"


def _device_plan(ctx: dict) -> dict:
    steps = copy.deepcopy([s for s in ctx["context"]["playbook_plan"]["steps"] if not s.get("optional")])
    for s in steps:
        s["rationale"] = f"Device: {s.get('title') or s['tool']}."
    steps.append({"id": "s8", "tool": "regional_index_flood", "arguments": {},
                  "method": "regional_index_flood", "rationale": "Not defensible here: no donors."})
    steps.append({"id": "s9", "tool": "flow_duration_curve", "arguments": {"colour": 1}, "rationale": "Invalid arguments."})
    return {"objective": "The 100-year flood at the crossing.", "methodology": ["Read, fit, report."],
            "steps": steps, "source": "device"}


def test_a_proposed_plan_is_validated_pruned_and_run(studio):
    past_request(studio, studio.say(TEXT + ", 100-year"))
    ctx = studio.methodologist_context()
    assert ctx["role"] == "methodologist" and ctx["context"]["catalogue"] and ctx["context"]["gate_checks"]
    r = studio.approve(plan=_device_plan(ctx))
    assert r.kind == "report" and r.payload["plan_used"] == "proposed"
    assert any("colour" in e for e in r.payload["plan_errors"])
    ws = studio.to_dict()
    plan = ws["study"]["plan"]
    assert plan["author"] == "methodologist" and plan["written_by"] == "device"
    assert [s["id"] for s in ws["study"]["steps"]] == ["s1", "s2", "s3"]
    assert any("s8 dropped" in n for n in plan["notes"]) and any("s9" in n for n in plan["notes"])
    assert ws["run"]["ok"]


def test_a_proposed_plan_with_nothing_valid_leaves_the_crews_plan(studio):
    past_request(studio, studio.say(TEXT + ", 100-year"))
    r = studio.approve(plan={"steps": [{"id": "s1", "tool": "no_such_tool", "arguments": {}, "rationale": "x"}]})
    assert r.kind == "report" and r.payload["plan_used"] == "tree" and r.payload["plan_errors"]
    assert studio.to_dict()["study"]["plan"]["author"] == "playbook"


def test_narrated_sections_are_checked_and_the_files_rewritten(studio, tmp_path):
    past_request(studio, studio.say(TEXT + ", 100-year"))
    studio.approve()
    ctx = studio.author_context()
    assert ctx["role"] == "author" and ctx["context"]["key_numbers"]
    kn = next(k for k in ctx["context"]["key_numbers"] if "100-year" in k["label"])
    out = studio.narrate({"summary": f"The crossing needs {kn['value']:.0f} m3/s. Some would say 4,444 m3/s.",
                          "recommendations": "Obtain the instantaneous peak record.",
                          "nonsense": "ignored"}, source="device")
    assert out.payload["dropped"] == 1
    assert out.payload["written_by"]["summary"] == "device" and out.payload["written_by"]["recommendations"] == "device"
    ws = studio.to_dict()
    md = ArtifactStore(studio.artifact_root).get(next(a for a in ws["artifacts"] if a["name"] == "report.md"))
    text = md.decode()
    assert f"The crossing needs {kn['value']:.0f} m3/s." in text and "4,444" not in text
    assert "Grade:" in text  # the keyless answer and grade stay under the prose
    assert "summary: device" in ws["report"]["footer"]["text"]
    assert render_markdown(ws["report"]) == text
