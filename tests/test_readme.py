"""The README is a contract with a new user: every command it prints runs as written.

The commands are read from the README's fenced ``bash`` blocks, never listed here. A fresh copy of the project
(the files git tracks) is made in a temporary folder, and the commands run there one after the other, exactly as
printed, with a home folder of their own and the network closed (a proxy on a port nothing listens on): the
install steps (``python3 -m venv``, ``pip install``) reach the package registry as a new user's would, the studies
must not. Each command must exit 0 (or 3 where its own line says it declines), the folder named by its ``--out``
must hold the report and the study file, and every file the README names under that folder must exist.

Some commands need what no offline machine has; they are not run here, and the reason says which test covers them
instead. Two more checks hold the README to the package: the studies its commands run reach every playbook branch
the embedded data can reach (the branches of the shipped gym tasks, which are made from the embedded records and
the example uploads), and the table "What the embedded data holds" agrees with ``assess_site`` at every site it
lists.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"

pytestmark = [pytest.mark.slow]

# What is not run offline, and where it is tested instead.
NOT_RUN = [
    (re.compile(r"\bpytest\b"), "the test run itself"),
    (re.compile(r"--model\b|--base-url\b"), "needs a model endpoint (tests/roles/test_model_crew.py, a stub server)"),
    (re.compile(r"postgres(ql)?://"), "needs a PostgreSQL server (tests/graphs/test_postgres.py)"),
    (re.compile(r"^(\S*/)?(langgraph|langhost|redis-server|pg_ctl|initdb)\b"), "starts a server (tests/graphs)"),
    (re.compile(r"--live\b|\baquascope fetch\b|\bAQUASCOPE_LIVE=1"), "needs the agencies' services (tests/core/data/live)"),
    (re.compile(r"pip install\s+['\"]?\.\["), "installs optional extras (the hosting tests install them)"),
]


# ---------------------------------------------------------------------------------------------- reading the README
def readme_commands(text: str) -> list[str]:
    """The commands of every fenced bash/sh block, continuation lines joined, comments and blanks dropped."""
    commands: list[str] = []
    for block in re.findall(r"^```(?:bash|sh|shell)[^\n]*\n(.*?)^```", text, flags=re.S | re.M):
        pending = ""
        for raw in block.splitlines():
            line = raw.rstrip()
            if line.endswith("\\"):
                pending += line[:-1].strip() + " "
                continue
            line = (pending + line.strip()).strip()
            pending = ""
            if line and not line.startswith("#"):
                commands.append(line)
    return commands


def not_run_reason(command: str) -> str | None:
    for pattern, reason in NOT_RUN:
        if pattern.search(command):
            return reason
    return None


def out_dir(command: str) -> str | None:
    words = shlex.split(command, comments=True)
    for i, w in enumerate(words):
        if w == "--out" and i + 1 < len(words):
            return words[i + 1]
        if w.startswith("--out="):
            return w.split("=", 1)[1]
    return None


def trailing_comment(command: str) -> str:
    """The shell comment ending a command line: from the first ``#`` outside quotes that starts a word."""
    quote = None
    for i, ch in enumerate(command):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or command[i - 1].isspace()):
            return command[i + 1:]
    return ""


def expects_decline(command: str) -> bool:
    return "declin" in trailing_comment(command).lower()


def named_files(text: str, folder: str) -> set[str]:
    """The paths under ``folder/`` the README names in backticks (``drought-study/report.md``)."""
    names = set()
    for token in re.findall(r"`([^`\s]+)`", text):
        if token.startswith(folder.rstrip("/") + "/") and not token.endswith("/"):
            names.add(token)
    return names


def test_commands_are_read_from_the_readme():
    """The parser finds the README's commands, joins continuations and sorts what is not run."""
    commands = readme_commands(README.read_text(encoding="utf-8"))
    assert commands, "the README has no fenced bash block"
    assert any("pip install ." in c for c in commands)
    assert all(not c.endswith("\\") for c in commands)
    sample = "```bash\naquascope studio \"x\" --lat 1 \\\n    --lon 2 --yes --out a   # declines\n```\n"
    assert readme_commands(sample) == ['aquascope studio "x" --lat 1 --lon 2 --yes --out a   # declines']
    assert expects_decline(readme_commands(sample)[0]) and out_dir(readme_commands(sample)[0]) == "a"
    assert not expects_decline('aquascope studio "is # a declined study?" --out a')
    assert not_run_reason(".venv/bin/python -m pytest -q") and not not_run_reason(".venv/bin/aquascope run a/study.yaml")


# ------------------------------------------------------------------------------------------------ the fresh copy
def _fresh_copy(dest: Path) -> None:
    try:
        files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, check=True, capture_output=True).stdout
        names = [n for n in files.decode().split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(REPO)) for p in REPO.rglob("*")
                 if p.is_file() and not {".venv", "__pycache__", ".git", ".pytest_cache"} & set(p.parts)]
    for name in names:
        src = REPO / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


def _env(home: Path, offline: bool) -> dict[str, str]:
    keep = ("PATH", "LANG", "LC_ALL", "TMPDIR", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CONFIG_FILE",
            "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    venv_bin = str(Path(sys.prefix) / "bin")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "/usr/bin:/bin").split(os.pathsep) if p != venv_bin)
    env["HOME"] = str(home)
    env["MPLBACKEND"] = "Agg"
    if offline:
        closed = "http://127.0.0.1:9"           # nothing listens there: any request fails at once
        env.update(HTTP_PROXY=closed, HTTPS_PROXY=closed, ALL_PROXY=closed, http_proxy=closed, https_proxy=closed,
                   all_proxy=closed, NO_PROXY="", no_proxy="")
    return env


def _is_install(segment: str) -> bool:
    return bool(re.match(r"\s*(\S*python3?\S*\s+-m\s+venv|\S*pip3?\s+install)\b", segment))


@pytest.fixture(scope="module")
def readme_run(tmp_path_factory):
    """Runs every README command in a fresh copy; returns [(command, returncode, output, out folder)]."""
    text = README.read_text(encoding="utf-8")
    root = tmp_path_factory.mktemp("readme")
    clone, home = root / "clone", root / "home"
    clone.mkdir()
    home.mkdir()
    _fresh_copy(clone)
    ran = []
    for command in readme_commands(text):
        if not_run_reason(command):
            continue
        code, output = 0, ""
        # `a && b && c` runs as written, segment by segment with the shell's meaning of `&&`: the install segments
        # may reach the package registry, every other segment runs with the network closed.
        for segment in command.split(" && "):
            proc = subprocess.run(["bash", "-c", segment], cwd=clone, env=_env(home, offline=not _is_install(segment)),
                                  capture_output=True, text=True, timeout=1500, stdin=subprocess.DEVNULL)
            output += proc.stdout + proc.stderr
            code = proc.returncode
            if code != 0:
                break
        ran.append((command, code, output, out_dir(command)))
    return {"clone": clone, "text": text, "ran": ran}


def test_every_readme_command_runs_as_written(readme_run):
    assert readme_run["ran"], "no README command was run"
    failures = []
    for command, code, output, folder in readme_run["ran"]:
        wanted = 3 if expects_decline(command) else 0
        if code != wanted:
            failures.append(f"{command}\n  exit {code} (wanted {wanted}):\n  " + output.strip()[-1500:])
    assert not failures, "\n\n".join(failures)


def test_every_study_command_names_its_folder_and_writes_it(readme_run):
    clone, text = readme_run["clone"], readme_run["text"]
    missing = []
    for command, code, _, folder in readme_run["ran"]:
        if re.search(r"\baquascope (studio|solve)\b", command) and "--resume" not in command:
            assert folder, f"a study command without --out: {command}"
        if folder is None:
            continue
        for name in ["study.yaml"] + ([] if expects_decline(command) else ["report.md"]):
            if not (clone / folder / name).is_file():
                missing.append(f"{folder}/{name} (from: {command})")
        for name in named_files(text, folder):
            if not (clone / name).exists():
                missing.append(f"{name}, named in the README (from: {command})")
    assert not missing, "missing files:\n" + "\n".join(missing)


def _reachable_branches() -> set[tuple[str, str]]:
    from aquascope_core.gym import SHIPPED_TASKS, read_tasks
    return {(t.playbook, t.key["branch"]) for t in read_tasks(SHIPPED_TASKS) if t.key.get("branch")}


def test_readme_reaches_every_branch_the_embedded_data_reaches(readme_run):
    reached = set()
    for _, _, _, folder in readme_run["ran"]:
        study = readme_run["clone"] / folder / "study.yaml" if folder else None
        if study and study.is_file():
            plan = (yaml.safe_load(study.read_text(encoding="utf-8")) or {}).get("plan") or {}
            if plan.get("playbook") and plan.get("branch"):
                reached.add((plan["playbook"], plan["branch"]))
    missing = sorted(_reachable_branches() - reached)
    assert not missing, f"branches the embedded data reaches that no README command reaches: {missing}"


# ------------------------------------------------------------------------------------ the embedded-data table
def data_table(text: str) -> list[dict[str, str]]:
    """The rows of the table under the heading 'What the embedded data holds'."""
    part = text.split("What the embedded data holds", 1)
    assert len(part) == 2, "the README has no section 'What the embedded data holds'"
    lines = [ln for ln in part[1].splitlines() if ln.startswith("|")]
    lines = lines[: next((i for i, ln in enumerate(lines[1:], 1) if not ln.startswith("|")), len(lines))]
    header = [h.strip().lower() for h in lines[0].strip("|").split("|")]
    rows = []
    for ln in lines[2:]:
        cells = [c.strip() for c in ln.strip().strip("|").split("|")]
        if len(cells) == len(header):
            rows.append(dict(zip(header, cells)))
    return rows


def test_embedded_data_table_matches_assess_site():
    from aquascope_core import assess_site
    rows = data_table(README.read_text(encoding="utf-8"))
    assert len(rows) >= 5
    problems = []
    for row in rows:
        lat, lon = (float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", row["lat, lon"])[:2])
        station = re.search(r"\b([A-Za-z]+)\s+([0-9A-Za-z_-]+)\b", row["station"])
        period = re.findall(r"\d{4}-\d{2}-\d{2}|\d{4}", row["period"])
        inv = assess_site(lat, lon)
        hit = [s for s in inv["stations"] if s["station_id"] == station.group(2)]
        if not hit:
            problems.append(f"{row['station']}: not found by assess_site({lat}, {lon})")
            continue
        held = [v for v in hit[0]["variables"] if v.get("offline")]
        if not any(v["period_start"].startswith(period[0]) and v["period_end"].startswith(period[-1]) for v in held):
            problems.append(f"{row['station']}: period {row['period']} is not one held offline: "
                            + ", ".join(f"{v['variable']} {v['period_start']}..{v['period_end']}" for v in held))
    assert not problems, "\n".join(problems)
