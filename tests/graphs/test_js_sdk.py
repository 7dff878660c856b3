"""A study driven from JavaScript (@langchain/langgraph-sdk from the npm registry, installed by the set-up into a
cached temp folder) against `langgraph dev`: questions (the form's default), plan edit with JSON-string args,
approval, a follow-up chat message, and LangGraph's own fork (the plan checkpoint resumed
by id) answered with LangChain v1 decisions."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.graphs.lg_server import ROOT, langgraph_dev

SCRIPT = ROOT / "tests" / "graphs" / "js" / "drive_study.mjs"


def _sdk_folder() -> Path:
    folder = Path(os.environ.get("AQUASCOPE_JS_SDK") or Path(tempfile.gettempdir()) / "aquascope-js-sdk")
    if not (folder / "node_modules" / "@langchain" / "langgraph-sdk").is_dir():
        if not shutil.which("npm") or not shutil.which("node"):
            pytest.skip("node and npm are needed for the JavaScript sdk test")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text('{"name": "aq-js-sdk-test", "private": true, "type": "module"}')
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "@langchain/langgraph-sdk@^1.15"], cwd=folder,
                       check=True, capture_output=True, timeout=600)
    return folder


@pytest.mark.slow
@pytest.mark.server
def test_a_study_from_the_javascript_sdk(tmp_path):
    folder = _sdk_folder()
    script = folder / "drive_study.mjs"  # next to its node_modules, so the import resolves
    shutil.copy(SCRIPT, script)
    with langgraph_dev(tmp_path, env={"AQUASCOPE_HOME": str(tmp_path / "home")}) as url:
        done = subprocess.run(["node", str(script), url], capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["questions"] == "answer_questions" and seen["plan"] == "approve_plan"
    assert seen["data_request"] == "provide_data"
    assert seen["characteristics"] == ["DRNAREA (mi^2)", "STORAGE (%)", "CSL10_85 (ft/mi)", "POPDENS (persons/mi^2)"]
    assert seen["status"] == "done" and "The 50-year peak flow" in seen["answer"]
    assert seen["n_resamples"] == 200
    assert seen["decisions"] == ["answer", "edit"]
    fu = seen["follow_up"]
    assert fu["added"] == 2 and fu["status"] == "done" and fu["last"]["kind"] == "answer"
    assert fu["last"]["type"] == "ai" and fu["last"]["content"] == fu["last"]["text"] and fu["last"]["id"]
    assert seen["fork_waits"] == "approve_plan"
    fork = seen["fork"]  # the new answer taken, not the plan edit recorded at that checkpoint
    assert fork["status"] == "done" and "The 200-year peak flow" in fork["answer"], fork["answer"]
    assert fork["objective"].startswith("Estimate the 200-year flood") and fork["decisions"] == ["answer", "edit"]
