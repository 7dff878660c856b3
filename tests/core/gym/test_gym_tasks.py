"""The gym's tasks: the shipped file, the keys the tree gives, the seeded split, the JSONL files."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from aquascope_core import playbooks
from aquascope_core.errors import InputError
from aquascope_core.gym import SHIPPED_TASKS, Task, read_tasks, split_tasks, tasks_from_playbooks, write_tasks
from aquascope_core.gym.phrasings import SCENARIOS
from aquascope_core.gym.sites import DEFAULT_SITES, SITE_KINDS, site_by_id
from aquascope_core.gym.tasks import ceiling_of, resolve_uploads


@pytest.fixture(scope="module")
def shipped() -> list[Task]:
    return read_tasks(SHIPPED_TASKS)


def test_the_shipped_file_covers_every_playbook_and_kind_of_site(shipped):
    assert len(shipped) >= 80 and len({t.id for t in shipped}) == len(shipped)
    ids = {p["id"] for p in playbooks.list_playbooks()}
    assert {t.playbook for t in shipped} == ids and len(ids) == 7
    for pid in ids:  # every study has tasks the tree solves and tasks it declines
        mine = [t for t in shipped if t.playbook == pid]
        assert any(not t.unsolvable for t in mine) and any(t.unsolvable for t in mine), pid
    assert {t.site["kind"] for t in shipped} == set(SITE_KINDS)
    assert any(t.uploads and not t.unsolvable for t in shipped)
    solved = [t for t in shipped if not t.unsolvable]
    assert len({(t.playbook, t.key["branch"]) for t in solved}) >= 15  # many branches, not one per study
    assert all(t.key["steps"] and all(s["expects"] for s in t.key["steps"] if not s["optional"]) for t in solved)
    assert all(t.key["ceiling"] in ("A", "B", "C", "not established") for t in solved)
    assert all(t.key["decline"] and not t.key["steps"] for t in shipped if t.unsolvable)


def test_every_phrasing_is_asked_and_texts_vary(shipped):
    asked = Counter(t.text for t in shipped)
    for pid, scenarios in SCENARIOS.items():
        for sc in scenarios:
            texts = [p[0] if isinstance(p, list) else p for p in sc["texts"]]
            mine = {t.text for t in shipped if t.playbook == pid and t.scenario == sc["id"]}
            # each way of asking is used (area placeholders filled per site)
            for text in texts:
                stem = text.split("{")[0]
                assert any(m.startswith(stem) for m in mine), (pid, sc["id"], text)
    assert len(asked) >= 40


def test_the_split_is_seeded_and_covers_every_playbook(shipped):
    for pid in {t.playbook for t in shipped}:
        splits = {t.split for t in shipped if t.playbook == pid}
        assert splits == {"train", "test"}, pid
    copies = [Task.from_dict(t.to_dict()) for t in shipped]
    again = split_tasks(copies, seed=14)
    assert [t.split for t in again] == [t.split for t in shipped]
    other = split_tasks([Task.from_dict(t.to_dict()) for t in shipped], seed=15)
    assert [t.split for t in other] != [t.split for t in shipped]
    test_share = sum(t.split == "test" for t in shipped) / len(shipped)
    assert 0.25 <= test_share <= 0.35
    assert read_tasks(SHIPPED_TASKS, split="test") == [t for t in shipped if t.split == "test"]


def test_keys_from_the_tree_at_a_gauge_and_in_the_ocean(tmp_path):
    sites = [site_by_id("flat_brook"), site_by_id("atlantic")]
    tasks = tasks_from_playbooks(sites, ["flood_risk"], scenarios={"flood_risk": [
        {"id": "t50", "intake": {"return_period": 50}, "texts": ["50-year flood for a bridge"]}]})
    by_site = {t.site["id"]: t for t in tasks}
    fb, atl = by_site["flat_brook"], by_site["atlantic"]
    assert fb.key["branch"] == "at_site" and not fb.unsolvable and fb.key["ceiling"] == "A"
    ff = next(s for s in fb.key["steps"] if s["tool"] == "flood_frequency")
    assert {"check": "ci_finite", "path": "fits", "return_period": 50} in ff["expects"] or \
        any(g.get("return_period") == 50 for g in ff["expects"])
    assert atl.unsolvable and atl.key["branch"] is None and "No discharge record" in atl.key["decline"]
    assert fb.text == "50-year flood for a bridge" and fb.intake == {"return_period": 50}
    path = write_tasks(tasks, tmp_path / "t.jsonl")
    back = read_tasks(path)
    assert [t.to_dict() for t in back] == [t.to_dict() for t in tasks]
    assert json.loads(path.read_text().splitlines()[0])["id"] == tasks[0].id


def test_the_area_of_the_site_fills_the_question():
    tasks = tasks_from_playbooks([site_by_id("schuylkill")], ["ungauged_flow"], run=False)
    (t,) = tasks
    assert t.intake["area_km2"] == 4902.8 and "4902.8 km2" in t.text and t.key["branch"] == "transfer"
    assert t.key["ceiling"] is None  # planned only


def test_bad_task_files_and_uploads_are_refused_clearly(tmp_path):
    with pytest.raises(InputError, match="no task file"):
        read_tasks(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "playbook": "flood_risk", "text": "t", "site": {"lat": 1, "lon": 2}}\nnot json\n')
    with pytest.raises(InputError, match="line 2 is not JSON"):
        read_tasks(bad)
    with pytest.raises(InputError, match="needs site"):
        Task.from_dict({"id": "x", "playbook": "flood_risk", "text": "t"})
    with pytest.raises(InputError, match="train or test"):
        read_tasks(SHIPPED_TASKS, split="dev")
    with pytest.raises(InputError, match="not a file"):
        resolve_uploads({"w.csv": "uploads/none.csv"})
    assert all(p.is_file() for s in DEFAULT_SITES for p in resolve_uploads(s.get("uploads") or {}).values())


def test_the_ceiling_follows_the_run():
    ok = {"status": "ok"}
    assert ceiling_of({"results": {"s1": ok, "s2": ok}}) == "A"
    assert ceiling_of({"results": {"s1": ok, "s2": {"status": "failed", "optional": True}}}) == "B"
    assert ceiling_of({"results": {"s1": ok, "s2": {"status": "failed"}}}) == "C"
    assert ceiling_of({"results": {"s1": {**ok, "fallback_used": True}}}) == "C"
    assert ceiling_of({"results": {}}) == "not established"
