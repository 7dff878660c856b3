"""The `aquascope` command as a new user runs it: in its own process, with its own AQUASCOPE_HOME."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEXT = "Design flow for a road crossing, 100-year"


def aquascope(*args: str, home: Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "AQUASCOPE_HOME": str(home)}
    env.pop("AQUASCOPE_LIVE", None)
    return subprocess.run([sys.executable, "-m", "graphs.cli", *args], capture_output=True, text=True, env=env,
                          cwd=str(cwd or ROOT), timeout=300)


def test_stop_at_the_plan_then_resume_from_a_new_process(tmp_path):
    out = tmp_path / "study"
    first = aquascope("studio", TEXT, "--lat", "41.10", "--lon", "-74.96", "--out", str(out), home=tmp_path)
    assert first.returncode == 0, first.stderr
    # the crew asks for the site's basin characteristics first, each named with its unit; the user has none
    assert "Data request: the site's basin characteristics" in first.stdout and "DRNAREA (mi^2)" in first.stdout
    assert "waits for data" in first.stdout
    study_id = re.search(r"--resume (st-[0-9a-f]+)", first.stdout).group(1)
    without = aquascope("studio", "continue without", "--resume", study_id, home=tmp_path)
    assert without.returncode == 0, without.stderr
    assert "## Plan: Design flood at Flat Brook" in without.stdout and "waits for your approval" in without.stdout
    assert not out.exists()  # nothing is run before approval
    second = aquascope("studio", "--resume", study_id, "--yes", home=tmp_path)
    assert second.returncode == 0, second.stderr
    assert {p.name for p in out.iterdir()} >= {"report.md", "report.html", "report.docx", "workbook.xlsx", "notebook.ipynb",
                                              "bundle.zip", "study.yaml", "workspace.json"}
    report = (out / "report.md").read_text()
    assert "Flat Brook near Flatbrookville" in report and "GEV (L-moments)" in report and "log-Pearson III" in report
    ws = json.loads((out / "workspace.json").read_text())
    assert ws["id"] == study_id and ws["status"] == "done"
    # replaying the study file gives the same gates, with no model and no graph
    replay = aquascope("run", str(out / "study.yaml"), "-q", home=tmp_path)
    assert replay.returncode == 0, replay.stderr
    gates = json.loads(replay.stdout)["results"]["s3"]["gates"]
    assert [g["seen"] for g in gates] == [g["seen"] for g in ws["run"]["results"]["s3"]["gates"]]


@pytest.mark.parametrize("args,code,message", [
    (["studio", TEXT, "--lat", "30", "--lon", "-40", "--yes"], 3, "No discharge record of at least 10 years"),
    (["studio", TEXT, "--lat", "95", "--lon", "0", "--yes"], 2, "lat=95.0 is not valid: decimal degrees in [-90, 90]"),
    (["studio", "", "--lat", "41.1", "--lon", "-74.96", "--yes"], 2, "the problem text is empty"),
    (["studio", TEXT, "--yes"], 2, "a new study needs a site"),
    (["studio", "--resume", "st-000000000000", "--yes"], 2, "no study 'st-000000000000'"),
    (["studio", "tell me a joke", "--lat", "41.1", "--lon", "-74.96", "--yes"], 3, "does not match any study"),
    (["run", "no-such-study.yaml"], 2, "no study file at"),
])
def test_bad_input_ends_with_a_clear_message_and_a_non_zero_exit(tmp_path, args, code, message):
    res = aquascope(*args, home=tmp_path, cwd=tmp_path)
    assert res.returncode == code, (res.stdout, res.stderr)
    assert message in res.stderr
    assert "Traceback" not in res.stderr


def test_assess_and_playbooks(tmp_path):
    res = aquascope("assess", "41.10", "-74.96", "--problem", "flood_risk", home=tmp_path)
    assert res.returncode == 0 and "usgs 01440000" in res.stdout and "defensible" in res.stdout
    res = aquascope("playbooks", "list", home=tmp_path)
    assert res.returncode == 0 and "flood_risk" in res.stdout
    res = aquascope("playbooks", "show", "flood_risk", home=tmp_path)
    assert json.loads(res.stdout)["id"] == "flood_risk"


def _numbers(run_json: dict) -> dict:
    """Payloads without their provenance timestamps, and the gate rows."""
    out = {}
    for sid, r in run_json["results"].items():
        payload = {k: v for k, v in (r["payload"] or {}).items() if k != "meta"}
        out[sid] = {"status": r["status"], "payload": payload, "gates": r["gates"]}
    return out


def test_a_plan_saved_as_yaml_replays_identically_in_new_processes(tmp_path):
    plan_file = tmp_path / "plan.yaml"
    res = aquascope("solve", TEXT, "--lat", "41.10", "--lon", "-74.96", "--study", str(plan_file), "-q", home=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "## Plan: Design flood at Flat Brook" in res.stdout and plan_file.is_file()
    runs = []
    for name in ("a", "b"):
        res = aquascope("run", str(plan_file), "--out", str(tmp_path / name), "-q", home=tmp_path)
        assert res.returncode == 0, res.stderr
        runs.append(json.loads((tmp_path / name / "run.json").read_text()))
    assert _numbers(runs[0]) == _numbers(runs[1])
    from aquascope_core.runner import run_study
    from aquascope_core.study import Study

    here = run_study(Study.from_yaml(plan_file.read_text())).to_dict()
    assert _numbers(json.loads(json.dumps(here))) == _numbers(runs[0])
    assert runs[0]["summary"] == {"planned": 5, "ran": 5, "ok": 5, "failed": 0, "skipped": 0}  # with the indicative peak (s6)


def test_a_declined_study_writes_its_study_file_and_the_decline_replays(tmp_path):
    """The Atlantic site holds no record: the study declines (exit 3), writes report.md and study.yaml, and
    `aquascope run study.yaml` replays the decline with the same sentence (exit 3)."""
    out = tmp_path / "declined"
    r = aquascope("studio", "What is the 100-year flood here, for a culvert?", "--lat", "30.0", "--lon", "-40.0",
                  "--yes", "--out", str(out), "-q", home=tmp_path)
    assert r.returncode == 3, r.stderr
    assert {"report.md", "study.yaml"} <= {p.name for p in out.iterdir()}
    report = (out / "report.md").read_text()
    assert "replays the decline" in report and "aquascope studio 'What is the 100-year flood here, for a culvert?'" \
        " --lat 30.0 --lon -40.0 --yes" in report
    r = aquascope("run", str(out / "study.yaml"), home=tmp_path)
    assert r.returncode == 3, r.stderr
    again = json.loads(r.stdout)
    assert again["declined"] and again["replayed"] and again["same"]
    assert again["reason"].startswith("No discharge record of at least 10 years was found within 50 km")
