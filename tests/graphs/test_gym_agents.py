"""The gym's agents on real tasks: the tree and the keyless crew on the shipped file, the scores of a delivered
report (and of reports made wrong on purpose), and the single-call agent through litellm against a loopback
OpenAI-compatible server the test starts."""

from __future__ import annotations

import re

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from aquascope_core import playbooks
from aquascope_core.errors import InputError
from aquascope_core.gym import SHIPPED_TASKS, read_tasks
from aquascope_core.gym.board import leaderboard
from aquascope_core.gym.scoring import score
from aquascope_core.recon import assess_site
from aquascope_core.workspace import ArtifactStore
from roles.consultant import choose_playbook, read_intake
from graphs.gym_agents import bench, run_agent

TASKS = {t.id: t for t in read_tasks(SHIPPED_TASKS)}
FLOOD = TASKS["flood_risk.t100.flat_brook"]


def test_the_keyless_consultant_reads_every_shipped_question_as_asked():
    """The tasks' texts state their intake: the crew's reading of each is the task's playbook and intake."""
    for t in TASKS.values():
        pid, _ = choose_playbook(t.text)
        assert pid == t.playbook, (t.id, t.text)
        assert playbooks.coerce_intake(pid, read_intake(pid, t.text)) == playbooks.coerce_intake(pid, t.intake), t.id


@pytest.mark.slow
def test_the_shipped_tasks_tree_and_keyless_team():
    tasks = list(TASKS.values())
    tree = {r["task"]: r for r in bench(tasks, "tree")}
    team = {r["task"]: r for r in bench(tasks, "team", workers=2)}
    assert all(r["correct"] and not r["error"] for r in tree.values()), [k for k, r in tree.items() if not r["correct"]]
    for tid, t in TASKS.items():
        r = team[tid]
        assert not r["error"], (tid, r["error"])
        if t.unsolvable:
            assert r["declined"], tid
        else:  # the crew reaches the tree's branch from the words alone, with the key's gates
            assert (r["chosen_playbook"], r["branch"]) == (t.playbook, tree[tid]["branch"]) == (t.playbook, t.key["branch"])
            assert r["gates_ok"], (tid, r["gate_problems"])
            assert r["grade_ok"], (tid, r["grade"], r["ceiling"])
        assert r["faithful"], (tid, r["unmatched"])
        assert r["sections_ok"], (tid, r["missing_sections"])
        if t.key.get("ceiling") == "A":  # every step passed its gates: the critique has nothing to say
            assert r["critique_clean"], tid
    board = leaderboard([*tree.values(), *team.values()])
    assert "| team | keyless | 110 | 100 % (110/110) |" in board and "| tree | keyless | 110 | 100 % (110/110) |" in board


@pytest.fixture(scope="module")
def delivered(tmp_path_factory):
    root = tmp_path_factory.mktemp("gym_store")
    return run_agent(FLOOD, "team", store_root=root)


def _report_path(outcome) -> Path:
    ref = next(a for a in outcome["workspace"]["artifacts"] if a["name"] == "report.md")
    return ArtifactStore(outcome["store_root"]).path(ref)


def test_a_delivered_report_scores_clean_and_a_tampered_one_does_not(delivered):
    row = score(FLOOD, delivered)
    assert row["correct"] and row["gates_ok"] and row["faithful"] and row["critique_clean"] and row["sections_ok"]
    assert row["grade"] == "C" and row["grade_ok"] and row["tokens"] == 0  # C: an indicative peak from daily means
    assert row["figures"]["shown"] >= 3 and not row["figures"]["missing"]  # every figure the report shows exists
    assert row["numbers_checked"] > 100  # the prose and every table of the report file, not a token sample
    path = _report_path(delivered)
    original = path.read_text()
    try:
        # a number no result holds, written into the file the person opens
        path.write_text(original.replace("## Summary\n", "## Summary\n\nThe 100-year flow is 4321.7 m3/s.\n", 1))
        bad = score(FLOOD, delivered)
        assert not bad["faithful"] and bad["unmatched"][0]["number"] == "4321.7"
        # a section gone from the file
        path.write_text(original.replace("## Limitations", "## Notes", 1))
        assert score(FLOOD, delivered)["missing_sections"] == [
            "heading 'Limitations and what this study does not establish' not in report.md"]
        # a figure shown whose file does not exist, and one that does
        path.write_text(original + "\n![Flood frequency](flood_curve.png)\n![The study](study.yaml)\n")
        figs = score(FLOOD, delivered)["figures"]
        shown = len(set(re.findall(r"!\[[^\]]*\]\(([^)]+)\)", original)))
        assert figs == {"shown": shown + 2, "present": shown + 1, "missing": ["flood_curve.png"], "by_spec": shown}
    finally:
        path.write_text(original)
    assert score(FLOOD, delivered)["faithful"]


def test_figures_are_scored_by_their_specification_and_fail_without_data_or_gates(delivered):
    """The gym's crew describes its figures (``figures/*.spec.json``) instead of drawing them; a figure whose
    specification is gone, plots nothing, or shows a step that did not pass its gates is missing."""
    ws = delivered["workspace"]
    store = ArtifactStore(delivered["store_root"])
    md = _report_path(delivered).read_text()
    shown = sorted(set(re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)))
    assert shown and all(n.startswith("figures/") and n.endswith(".spec.json") for n in shown)
    assert not [a for a in ws["artifacts"] if a["name"].endswith((".png", ".svg"))]  # no pixels paid for
    curve = next(n for n in shown if "frequency-curve" in n)
    ref = next(a for a in ws["artifacts"] if a["name"] == curve)
    path = store.path(ref)
    spec = json.loads(path.read_text())
    assert spec["kind"] == "frequency_curve" and spec["marks"] >= 50 and spec["step"]
    assert any("AEP" in a["xlabel"] or "exceedance" in a["xlabel"].lower() for a in spec["axes"]), spec["axes"]
    row = score(FLOOD, delivered)
    assert row["figures"]["present"] == len(shown) and row["figures"]["by_spec"] == len(shown)
    original = path.read_text()
    try:
        path.write_text(json.dumps({**spec, "marks": 0}))
        assert score(FLOOD, delivered)["figures"]["missing"] == [f"{curve} (it plots no data)"]
        path.write_text("not json")
        assert "cannot be read" in score(FLOOD, delivered)["figures"]["missing"][0]
        path.unlink()
        assert score(FLOOD, delivered)["figures"]["missing"] == [curve]
    finally:
        path.write_text(original)
    run = json.loads(json.dumps(delivered["run"]))
    run["results"][spec["step"]]["status"] = "failed"
    figs = score(FLOOD, {**delivered, "workspace": {**ws, "run": run}})["figures"]
    of_step = [n for n in shown if json.loads(store.path(next(a for a in ws["artifacts"] if a["name"] == n))
                                                .read_text())["step"] == spec["step"]]  # the curve and the diagram
    assert curve in of_step and figs["missing"] == [f"{n} (its step {spec['step']} did not pass its gates)"
                                                    for n in of_step]
    assert score(FLOOD, delivered)["figures"]["missing"] == []


def test_gates_dropped_or_loosened_grades_above_the_ceiling_and_wrong_declines(delivered):
    study = json.loads(json.dumps(delivered["study"]))
    ff = next(s for s in study["steps"] if s["tool"] == "flood_frequency")
    ff["expects"] = ff["expects"][1:]
    assert score(FLOOD, {**delivered, "study": study})["gates_ok"] is False
    study = json.loads(json.dumps(delivered["study"]))
    rec = next(s for s in study["steps"] if s["tool"] == "station_record")
    gate = next(g for g in rec["expects"] if isinstance(g.get("value"), (int, float)))
    gate["value"] = gate["value"] / 2  # a looser threshold is not the key's gate
    row = score(FLOOD, {**delivered, "study": study})
    assert row["gates_ok"] is False and "gates missing or changed" in row["gate_problems"][0]

    # the report grades Flat Brook's indicative peak C: a key that supports no grade finds it claims too much
    capped = type(FLOOD).from_dict({**FLOOD.to_dict(), "key": {**FLOOD.key, "ceiling": "not established"}})
    assert score(capped, delivered)["grade_ok"] is False

    wrong = score(FLOOD, {**delivered, "declined": True, "workspace": None})
    assert not wrong["correct"] and not wrong["decline_ok"] and wrong["gates_ok"] is None
    other = score(FLOOD, {**delivered, "branch": "regional"})
    assert not other["correct"] and other["playbook_ok"] and not other["branch_ok"]


def test_the_ask_agent_needs_a_model():
    with pytest.raises(InputError, match="cannot run without a model") as exc:
        bench([FLOOD], "ask")
    assert "--model" in exc.value.recovery
    with pytest.raises(InputError, match="agent"):
        bench([FLOOD], "oracle")


# -- the single-call agent through litellm against a loopback server ----------------------------------

class _Stub(BaseHTTPRequestHandler):
    replies: list[str] = []
    seen: list[dict] = []
    default = "no more replies"

    def do_POST(self):  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Stub.seen.append(body)
        text = _Stub.replies.pop(0) if _Stub.replies else _Stub.default
        out = json.dumps({"id": "cmpl-1", "object": "chat.completion", "created": 0, "model": body.get("model"),
                          "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                       "finish_reason": "stop"}],
                          "usage": {"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):  # quiet
        pass


@pytest.fixture()
def stub_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    _Stub.replies, _Stub.seen, _Stub.default = [], [], "no more replies"
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.mark.slow
def test_the_ask_agent_plans_in_one_call_through_litellm(stub_server):
    atlantic = TASKS["flood_risk.t100.atlantic"]
    fox = TASKS["flood_risk.t25_area.fox_berlin"]
    recon = assess_site(FLOOD.site["lat"], FLOOD.site["lon"], problem="flood_risk", return_period=100)
    good = playbooks.plan("flood_risk", recon, FLOOD.intake)
    plan = {"decline": None, "playbook": "flood_risk", "branch": "at_site", "intake": FLOOD.intake,
            "steps": [s.to_dict(version=2) for s in good.steps]}
    no_gates = {**plan, "branch": "published_maxima", "steps": [{k: v for k, v in s.items() if k != "expects"}
                                                               for s in plan["steps"]]}
    _Stub.replies = [json.dumps(plan),
                     json.dumps({"decline": "No discharge record within reach of the point."}),
                     "I think the flood is about 300 m3/s.", '{"playbook": "flood_risk", "branch": "nope"}']
    rows = bench([FLOOD, atlantic, fox], "ask", model="openai/stub-planner", base_url=stub_server, api_key="sk-local")
    fb, atl, fx = rows
    assert fb["correct"] and fb["gates_ok"] and fb["tokens"] == 1050 and fb["faithful"] is None  # no report written
    assert atl["correct"] and atl["declined"] and atl["reason"].startswith("No discharge record")
    assert not fx["correct"] and fx["error"] == "the model's plan could not be used after one repair"
    assert fx["tokens"] == 2100  # the reply and its one repair
    assert len(_Stub.seen) == 4 and _Stub.seen[0]["model"] == "stub-planner"
    sent = json.loads(_Stub.seen[0]["messages"][1]["content"])
    assert sent["problem"] == FLOOD.text and {p["id"] for p in sent["playbooks"]} >= {"flood_risk", "water_quality"}
    assert any(t["id"] == "flood_frequency" for t in sent["tools"]) and sent["recon"]["stations"]
    board = leaderboard(rows)
    assert "| ask | openai/stub-planner | 3 (1 errors) | 67 % (2/3) |" in board
    # a plan without gates runs, and the gym says its gates were not respected
    _Stub.replies = [json.dumps(no_gates)]
    (row,) = bench([FLOOD], "ask", model="openai/stub-planner", base_url=stub_server, api_key="sk-local")
    assert row["gates_ok"] is False and not row["correct"] and row["branch"] == "published_maxima"


@pytest.mark.slow
def test_the_crew_with_a_model_that_invents_a_number_still_delivers_a_faithful_report(stub_server):
    """Every role's call gets one reply that fits all their shapes; the Author's proposed summary states a flow
    no result holds, and the gym reads the delivered file: the sentence is not in it."""
    _Stub.default = json.dumps({"intake": {}, "findings": [], "answer": "",
                                "sections": {"summary": "The 100-year flow is 9876.5 m3/s, beyond doubt."}})
    rows = bench([FLOOD, TASKS["flood_risk.t100.atlantic"]], "team", model="openai/stub-crew", base_url=stub_server,
                 api_key="sk-local")
    fb, atl = rows
    assert fb["correct"] and fb["gates_ok"] and fb["faithful"] and fb["critique_clean"], fb
    assert atl["correct"] and atl["declined"]
    calls = len(_Stub.seen)
    assert calls >= 3 and fb["tokens"] + atl["tokens"] == 1050 * calls  # every call's usage is in the ledger
    assert fb["usd"] is None  # a model without a price: unknown, not zero
    board = leaderboard(rows)
    assert "| team | openai/stub-crew | 2 | 100 % (2/2) |" in board and "| unknown |" in board
