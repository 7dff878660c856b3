"""A plan's methodology lines and the steps they describe (aquascope_core/methodology.py).

Every branch of every playbook is checked from its YAML: each line names steps the branch has; dropping any
step (with the steps that lean on it) leaves no line linked to it and none that names its registered method,
unless a step that stays applies that method too."""

from __future__ import annotations

import re

import pytest

from aquascope_core import methodology, playbooks
from aquascope_core.catalogue import TOOLS
from aquascope_core.errors import InputError
from aquascope_core.registry import METHODS


def method_terms(step: dict) -> set[str]:
    """The names a step's registered methods go by, from the registry labels: the parenthesised short names
    (SPI, gamma, log-logistic), hyphenated names (Mann-Kendall, Grubbs-Beck), acronyms and surnames."""
    spec = TOOLS.get(step["tool"])
    ids = [step.get("method"), *(spec.methods if spec else ())]
    terms: set[str] = set()
    for label in (METHODS[m].label for m in ids if m in METHODS):
        for group in re.findall(r"\(([^)]*)\)", label):
            terms |= {t.strip() for t in group.split(",") if 0 < len(t.split()) <= 2 and not re.search(r"\d", t)}
        terms |= set(re.findall(r"\b[A-Za-z]+-[A-Za-z]+\b", label))
        terms |= set(re.findall(r"\b[A-Z][A-Z0-9]{1,}\b", label))
        terms |= set(re.findall(r"(?<!^)\b[A-Z][a-z]+(?:'s)?\b", label))
    return terms


def described_by(step: dict) -> str:
    """What a step that stays says of itself: its registry labels, tool purpose, title and rationale."""
    spec = TOOLS.get(step["tool"])
    ids = [step.get("method"), *(spec.methods if spec else ())]
    return " ".join([*(METHODS[m].label for m in ids if m in METHODS), spec.purpose if spec else "",
                     str(step.get("title") or ""), str(step.get("rationale") or "")])


def closure(steps: list[dict], sid: str) -> set[str]:
    """``sid`` and every step that depends on it, directly or through others."""
    gone = {sid}
    for st in steps:
        if set(st.get("depends_on") or []) & gone or any(f"result.{g}." in str(st.get("arguments")) for g in gone):
            gone.add(st["id"])
    return gone


def assert_follows_the_drop(lines: list, steps: list[dict], gone: set[str]) -> list:
    kept = [st for st in steps if st["id"] not in gone]
    after = methodology.follow(lines, steps, kept)
    for item in after:
        assert not set(methodology.links(item) or []) & gone, (gone, item)
    words = " ".join(methodology.texts(after))
    uses = " ".join(described_by(st) for st in kept)
    for st in steps:
        if st["id"] not in gone:
            continue
        for term in method_terms(st):
            if re.search(rf"\b{re.escape(term)}\b", uses):
                continue  # a step that stays applies it too
            assert not re.search(rf"\b{re.escape(term)}\b", words), (st["id"], term, words)
    # every line that survives is one of the plan's lines, linked to steps that stay (or the overall approach)
    assert [m for m in methodology.texts(after)] == [methodology.text(x) for x in lines if
                                                     not methodology.links(x) or set(methodology.links(x)) - gone]
    return after


BRANCHES = [(pb["id"], b["id"]) for pb in map(playbooks.load, [p["id"] for p in playbooks.list_playbooks()])
            for b in pb["branches"]]


def branch_lines(pid: str, bid: str) -> tuple[list, list[dict]]:
    branch = next(b for b in playbooks.load(pid)["branches"] if b["id"] == bid)
    steps = [{k: v for k, v in st.items() if k not in playbooks.PLAN_KEYS} for st in branch["steps"]]
    return methodology.lines_for(branch["methodology"], steps), steps


def test_every_branch_is_covered():
    assert len(BRANCHES) >= 24 and {p for p, _ in BRANCHES} == {p["id"] for p in playbooks.list_playbooks()}


@pytest.mark.parametrize("pid,bid", BRANCHES, ids=[f"{p}-{b}" for p, b in BRANCHES])
def test_dropping_any_step_of_any_branch_takes_its_lines_and_its_method_names(pid, bid):
    lines, steps = branch_lines(pid, bid)
    ids = [st["id"] for st in steps]
    assert lines and all(set(methodology.links(x)) <= set(ids) for x in lines)
    for st in steps[1:]:  # the first step reads the data: dropping it leaves nothing to describe
        gone = closure(steps, st["id"])
        if len(gone) < len(steps):
            assert_follows_the_drop(lines, steps, gone)


def test_the_drought_spei_and_spi_lines_go_with_their_steps():
    """The climate-record branch: the P - PET / log-logistic line is SPEI's alone, the gamma line SPI's; the WMO
    classes line, which every index shares, stays while one index does."""
    lines, steps = branch_lines("drought_status", "climate_record")
    words = " ".join(methodology.texts(assert_follows_the_drop(lines, steps, {"s3"})))
    assert "log-logistic" not in words and "P - PET" not in words and "gamma" in words and "WMO SPI" in words
    words = " ".join(methodology.texts(assert_follows_the_drop(lines, steps, closure(steps, "s2"))))
    assert "gamma" not in words and "log-logistic" in words and "WMO SPI" in words


def test_templates_follow_the_steps_arguments():
    lines, steps = branch_lines("drought_status", "climate_record")
    edited = [{**st, "arguments": {**st["arguments"], "scales": [1, 24]}} if st["id"] == "s2" else st for st in steps]
    after = methodology.texts(methodology.follow(lines, steps, edited))
    assert "accumulate the totals over 1, 24 months." in after[1]
    assert "P - PET accumulated over {{ intake.timescales }} months" in after[3]  # SPEI's own scales did not change
    step = {"id": "s3", "tool": "flood_frequency", "arguments": {"confidence": 0.8, "n_bootstrap": 2500}}
    assert methodology.fill("{{ steps.s3.arguments.confidence | percent }} bands, {{ steps.s3.arguments.n_bootstrap "
                            "| count }} resamples", {"s3": step}) == "80 % bands, 2,500 resamples"
    # an argument the step leaves to its tool's default reads the default
    assert methodology.fill("alpha {{ steps.s4.arguments.alpha }}", {"s4": {"id": "s4", "tool": "trend_test"}}) == \
        "alpha 0.05"
    with pytest.raises(InputError, match="quotes step s9, which is not in the plan"):
        methodology.fill("{{ steps.s9.arguments.alpha }}", {})
    with pytest.raises(InputError, match="methodology filter"):
        methodology.fill("{{ steps.s3.arguments.confidence | shout }}", {"s3": step})


def test_a_line_quoting_a_changed_value_is_written_again_from_its_step():
    """A line with no template (a composed plan's) that quotes an argument's old value is replaced by the step's
    own line; a line that does not quote it stays."""
    steps = [{"id": "s1", "tool": "station_record"},
             {"id": "s2", "tool": "trend_test", "arguments": {"alpha": 0.05}, "title": "Trend"}]
    lines = [methodology.line("Read the record.", ["s1"]), methodology.line("Test at the 0.05 level.", ["s2"])]
    edited = [steps[0], {**steps[1], "arguments": {"alpha": 0.1}}]
    after = methodology.follow(lines, steps, edited)
    assert after[0]["text"] == "Read the record." and after[1]["steps"] == ["s2"]
    assert "0.05" not in after[1]["text"] and "alpha 0.1" in after[1]["text"] and "Mann-Kendall" in after[1]["text"]


def test_an_added_step_gets_its_own_line_and_ids_follow_their_tool():
    steps = [{"id": "s1", "tool": "station_record"}, {"id": "s2", "tool": "trend_test", "arguments": {"alpha": 0.05}}]
    lines = [methodology.line("Read the record.", ["s1"]), methodology.line("Test the trend.", ["s2"]),
             methodology.line("Overall approach.", []), "A line of a study written before the link."]
    added = {"id": "s3", "tool": "flow_duration_curve", "title": "Flow duration curve", "arguments": {}}
    after = methodology.follow(lines, steps, [*steps, added])
    assert methodology.texts(after)[:4] == methodology.texts(lines) and after[4]["steps"] == ["s3"]
    assert "Weibull" in after[4]["text"]
    # the same trend test under another id keeps its line, linked to its new id
    renamed = methodology.follow(lines, steps, [steps[0], {**steps[1], "id": "t9"}])
    assert [methodology.links(x) for x in renamed] == [["s1"], ["t9"], [], None]


def test_a_playbook_line_must_name_the_steps_it_describes():
    pb = playbooks.load("drought_status")
    branch = pb["branches"][0]
    branch["methodology"] = ["A bare line.", {"say": "Quotes {{ steps.s2.arguments.days }}.", "steps": ["s1"]},
                             {"say": "Names a step it lacks.", "steps": ["s9"]},
                             {"say": "Quotes {{ steps.s2.arguments.days }}.", "steps": ["s1", "s2"]}]
    errors = playbooks.validate(pb)
    assert any("methodology line 1 must be {say: <text>, steps: [" in e for e in errors)
    assert any("methodology line 2 quotes steps ['s2'] it does not name" in e for e in errors)
    assert any("methodology line 3 names steps ['s9'], which the branch does not have" in e for e in errors)
    assert any("methodology line 4 quotes a step's values, so it names that step alone" in e for e in errors)
    assert not playbooks.validate(playbooks.load("drought_status"))


def test_a_quoted_value_the_edit_took_away_gives_the_steps_own_line():
    steps = [{"id": "s2", "tool": "standardized_precipitation_index", "title": "SPI",
              "expects": [{"check": "min_years", "value": 30, "path": "record_years"}]}]
    lines = [methodology.line("At least {{ steps.s2.expects[0].value }} years.", ["s2"], {"s2": steps[0]})]
    assert lines[0]["text"] == "At least 30 years."
    after = methodology.follow(lines, steps, [{**steps[0], "expects": []}])  # the gate it quoted is gone
    assert after[0]["steps"] == ["s2"] and after[0]["text"].startswith("SPI: Standardized Precipitation Index")


def test_legacy_lines_are_read_as_unlinked():
    assert methodology.texts(["one", {"text": "two", "steps": ["s1"]}]) == ["one", "two"]
    assert methodology.links("one") is None and methodology.links({"text": "two", "steps": []}) == []
    assert methodology.follow(["one"], [{"id": "s1", "tool": "station_record"}], []) == ["one"]
