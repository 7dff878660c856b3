"""The document check's rule against a number written as a program prints it (doc_check.sci_notation): seen in the
printed Bulletin 17C report's gate table as 'interval at 100 years [1.89e+04, 3.607e+04]'. The printed pages are
given as text (no LibreOffice needed)."""

from __future__ import annotations

import pytest

from tests.core.deliverables import doc_check


@pytest.mark.parametrize("text", ["interval at 100 years [1.89e+04, 3.607e+04]", "a p-value of 2e-05", "1.5E+03 ft3/s"])
def test_scientific_notation_is_caught(tmp_path, monkeypatch, text):
    monkeypatch.setattr(doc_check, "pages", lambda pdf: [f"Gates\n{text}\n"])
    problems = doc_check.sci_notation(tmp_path)
    assert problems and all("scientific notation" in p for p in problems), problems
    assert {p.split(".pdf")[0] for p in problems} == {"report-docx", "report-html"}


@pytest.mark.parametrize("text", ["study st-773e7534d2cc", "interval at 100 years [18,900, 36,070]", "dose 9e9x",
                                  "https://doi.org/10.3133/tm4B5e+5", "log-Pearson III (1e)"])
def test_what_is_not_scientific_notation_passes(tmp_path, monkeypatch, text):
    monkeypatch.setattr(doc_check, "pages", lambda pdf: [text])
    assert doc_check.sci_notation(tmp_path) == []
