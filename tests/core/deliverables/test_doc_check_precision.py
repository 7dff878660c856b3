"""The document check's precision rule on a key number restated under the units rule (doc_check.precision): the
bracketed SI restatement at the key number's significant figures is the same number; the same number at another
precision, in either unit, is caught. The printed pages are given as text (no LibreOffice needed)."""

from __future__ import annotations

import json

import pytest

from tests.core.deliverables import doc_check

M3S = 138.17  # m3/s, the value as a finding holds it: 4,879.4 ft3/s, shown as 4,880 ft3/s (138 m3/s)


def _study(tmp_path, monkeypatch, body: str):
    ws = {"findings": {"findings": [{"label": "100-year flow", "value": M3S, "unit": "m3/s"}]},
          "report": {"sections": [{"id": "summary", "tables": [{
              "caption": "Key numbers", "columns": ["Quantity", "Value", "Unit", "Band", "Confidence", "Source"],
              "rows": [["100-year flow", "4,880", "ft3/s (138 m3/s)", "", "", "s3"]]}]}]}}
    (tmp_path / "workspace.json").write_text(json.dumps(ws))
    monkeypatch.setattr(doc_check, "pages", lambda pdf: [body])
    return doc_check.precision(tmp_path)


def test_the_bracketed_restatement_is_the_same_number(tmp_path, monkeypatch):
    assert _study(tmp_path, monkeypatch, "The 100-year flow is 4,880 ft3/s (138 m3/s). Table: 4,880 (138)") == []


@pytest.mark.parametrize("second", ["138.2 m3/s", "4,879 ft3/s", "4,879.4 ft3/s", "138.17"])
def test_a_second_precision_is_caught_in_either_unit(tmp_path, monkeypatch, second):
    problems = _study(tmp_path, monkeypatch, f"The 100-year flow is 4,880 ft3/s (138 m3/s); elsewhere {second}.")
    assert problems and second.split()[0] in problems[0], problems
