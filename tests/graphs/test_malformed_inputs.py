"""The malformed inputs of issue 11 as regression cases, through each face: the engine (ingest, Study) raises an
AquascopeError naming what is wrong, quickly; the CLI ends with exit 2 and one sentence, never a traceback; the
user's file is left as it was."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from aquascope_core.data.ingest import ingest
from aquascope_core.errors import AquascopeError
from aquascope_core.limits import LimitError
from aquascope_core.study import Study

ROOT = Path(__file__).resolve().parents[2]


def _years_csv(first: int, n: int = 40) -> bytes:
    return ("date,Q (m3/s)\n" + "".join(f"{first + i}-03-12,{100 + 3 * i}\n" for i in range(n))).encode()


def _far_cell_xlsx() -> bytes:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["B1"], ws["A2"], ws["B2"] = "date", "Q (m3/s)", "2020-01-01", 1.0
    ws["XFD1048576"] = 5
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _broken_sheet_xlsx() -> bytes:
    good = io.BytesIO()
    import openpyxl

    wb = openpyxl.Workbook()
    wb.active["A1"] = "date"
    wb.save(good)
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(good.getvalue())) as src, zipfile.ZipFile(out, "w") as dst:
        for item in src.namelist():
            data = src.read(item)
            dst.writestr(item, b"<worksheet><sheetData><row r='1'><c r='A1' t='s'><v>0" if "worksheets/" in item else data)
    return out.getvalue()


BOMB = ('a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
        + "".join(f"{b}: &{b} [{','.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi")))

UPLOADS = {  # name -> (bytes, what the message says)
    "dated_2300.csv": (_years_csv(2300), "after today"),
    "dated_1600.csv": (_years_csv(1600), "before 1678-01-01"),
    "dated_2261.csv": (_years_csv(2240, 30), "after today"),
    "future.csv": (_years_csv(2000, 40), "after today"),
    "unsorted.csv": (b"date,Q (m3/s)\n2020-01-02,1\n2020-01-01,2\n2020-01-03,3\n", "do not increase"),
    "negative.csv": (b"date,Q (m3/s)\n2020-01-01,1\n2020-01-02,-4\n2020-01-03,3\n", "below 0"),
    "far_cell.xlsx": (_far_cell_xlsx(), "MAX_ROWS"),
    "broken_sheet.xlsx": (_broken_sheet_xlsx(), "XLSX file cannot be read"),
    "utf16_broken.csv": (b"\xff\xfed\x00a\x00t\x00e\x00,\x00q\x00\n\x00\x00\xd8", "not valid UTF-16"),
    "huge_field.csv": (b'date,Q (m3/s)\n2020-01-01,"' + b"9" * 200_000 + b'"\n2020-01-02,1\n', "cannot be split"),
}

STUDIES = {  # name -> (text, what the message says)
    "alias_bomb.yaml": (BOMB, "MAX_LIST_ITEMS"),
    "deep.yaml": ("[" * 5000 + "]" * 5000, "MAX_YAML_DEPTH"),
    "steps_not_list.yaml": ("version: 2\nsteps: 3\n", "'steps'"),
    "step_not_mapping.yaml": ("version: 2\nsteps: [1, 2]\n", "a step must be a mapping"),
    "problem_list.yaml": ("version: 2\nproblem: [1]\nsteps: []\n", "'problem' must be a mapping"),
    "arguments_text.yaml": ("version: 2\nsteps:\n- {id: s1, tool: flood_frequency, arguments: x}\n", "'arguments'"),
    "gate_number.yaml": ("version: 2\nsteps:\n- {id: s1, tool: flood_frequency, expects: [1]}\n", "'expects'"),
    "id_list.yaml": ("version: 2\nid: [2024, 1]\nsteps: []\n", "field 'id'"),
    "bool_version.yaml": ("version: true\nsteps: []\n", "version"),
    "not_yaml.yaml": ("steps: [unclosed\n", "not valid YAML"),
    "tagged.yaml": ("!!python/object/apply:os.system ['true']\n", "not valid YAML"),
}


@pytest.mark.parametrize("name", sorted(UPLOADS))
def test_a_malformed_upload_is_refused_with_the_reason(name):
    raw, words = UPLOADS[name]
    kept = bytes(raw)
    t0 = time.monotonic()
    with pytest.raises(AquascopeError, match=words.replace("(", r"\(")):
        ingest(name, raw)
    assert time.monotonic() - t0 < 10
    assert raw == kept


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_a_malformed_study_file_is_refused_with_the_field_named(name):
    text, words = STUDIES[name]
    t0 = time.monotonic()
    with pytest.raises(AquascopeError, match=words):
        Study.from_yaml(text)
    assert time.monotonic() - t0 < 5


def test_plan_arguments_over_their_bounds_are_refused_by_validation_and_by_the_runner():
    from aquascope_core.catalogue import validate_step
    from aquascope_core.runner import run_study

    step = {"id": "s1", "tool": "flood_frequency",
            "arguments": {"values": [float(v) for v in range(10, 40)], "unit": "m3/s",
                          "return_periods": list(range(2, 100_002)), "n_bootstrap": 10_000_000}}
    errors = validate_step(step)
    assert any("MAX_RETURN_PERIODS" in e for e in errors) and any("MAX_BOOTSTRAP" in e for e in errors)
    t0 = time.monotonic()
    run = run_study(Study.from_dict({"version": 2, "steps": [step]}))
    assert not run.ok and "MAX_RETURN_PERIODS" in run.results["s1"].failed_reason
    assert time.monotonic() - t0 < 30  # refused before any fit (a hang guard, not a speed claim)
    with pytest.raises(LimitError, match="MAX_TEXT_CHARS"):
        from aquascope_core.limits import check_text

        check_text("x" * 30_000, what="the problem text")


def _cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "AQUASCOPE_HOME": str(home)}
    env.pop("AQUASCOPE_LIVE", None)
    return subprocess.run([sys.executable, "-m", "graphs.cli", *args], capture_output=True, text=True, env=env,
                          cwd=str(ROOT), timeout=120)


@pytest.mark.slow
def test_the_cli_ends_every_malformed_input_with_a_clear_error_and_leaves_the_file_as_it_was(tmp_path):
    for name in ("dated_2300.csv", "far_cell.xlsx", "utf16_broken.csv", "negative.csv"):
        path = tmp_path / name
        path.write_bytes(UPLOADS[name][0])
        before = hashlib.sha256(path.read_bytes()).hexdigest()
        res = _cli("studio", "Design flow for a road crossing, 100-year", "--lat", "41.10", "--lon", "-74.96",
                   "--data", str(path), "--yes", home=tmp_path)
        assert res.returncode == 2, (name, res.stderr)
        assert "Traceback" not in res.stderr and UPLOADS[name][1].split("(")[0] in res.stderr, (name, res.stderr)
        assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    for name in ("alias_bomb.yaml", "deep.yaml", "problem_list.yaml", "id_list.yaml"):
        path = tmp_path / name
        path.write_text(STUDIES[name][0])
        res = _cli("run", str(path), home=tmp_path)
        assert res.returncode == 2 and "Traceback" not in res.stderr, (name, res.stderr)
    utf16 = tmp_path / "utf16.yaml"
    utf16.write_bytes("version: 2\nproblem: [1]\nsteps: []\n".encode("utf-16"))
    res = _cli("run", str(utf16), home=tmp_path)
    assert res.returncode == 2 and "'problem' must be a mapping" in res.stderr, res.stderr
    over = tmp_path / "over.yaml"
    over.write_text("version: 2\nsteps:\n- id: s1\n  tool: flood_frequency\n  arguments: {values: [1, 2, 3], "
                    "unit: m3/s, n_bootstrap: 10000000}\n")
    res = _cli("run", str(over), home=tmp_path)
    assert res.returncode == 2 and "MAX_BOOTSTRAP" in res.stderr, res.stderr
    for bad in ("st-../../etc", "../x"):
        res = _cli("studio", "--resume", bad, "--yes", home=tmp_path)
        assert res.returncode == 2 and "study_id" in res.stderr and "Traceback" not in res.stderr, res.stderr
    surrogate = _cli("studio", "Design flow \udcff for a road crossing, 100-year", "--lat", "41.10", "--lon",
                     "-74.96", "-q", home=tmp_path)
    assert surrogate.returncode == 0 and "Traceback" not in surrogate.stderr, surrogate.stderr
