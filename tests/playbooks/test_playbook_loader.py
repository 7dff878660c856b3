"""The playbooks are read with libyaml's safe loader when PyYAML has it: every shipped playbook must read the same
as with the pure-Python safe loader."""

from __future__ import annotations

import pytest
import yaml

from aquascope_core import playbooks


@pytest.mark.skipif(not hasattr(yaml, "CSafeLoader"), reason="PyYAML built without libyaml")
def test_every_playbook_reads_the_same_with_both_loaders():
    paths = sorted(playbooks._index().values())
    assert len(paths) >= 7
    for path in paths:
        text = path.read_text(encoding="utf-8")
        assert yaml.load(text, Loader=yaml.CSafeLoader) == yaml.safe_load(text), path.name
        assert playbooks.load(path.stem) == yaml.safe_load(text)


def test_a_part_is_the_playbook_field_and_a_copy():
    for pid in ("flood_risk", "supply_reliability"):
        whole = playbooks.load(pid)
        for key in ("intake", "keywords", "companions", "trend_of"):
            assert playbooks.part(pid, key, []) == whole.get(key, [])
        intake = playbooks.part(pid, "intake")
        intake.append({"name": "changed"})
        assert playbooks.part(pid, "intake") == whole["intake"]  # the cached playbook is not changed
    with pytest.raises(playbooks.PlaybookError):
        playbooks.part("no_such_playbook", "intake")
