"""Study ids, artifact names and content addresses follow fixed patterns; every read and write stays in its root."""

from __future__ import annotations

import hashlib

import pytest

from aquascope_core.errors import InputError
from aquascope_core.workspace import ArtifactStore, Workspace, inside, validate_artifact_name, validate_study_id


@pytest.mark.parametrize("bad", ["../x", "st-../../etc", "/abs", "a/b", "", "x" * 65, ".hidden", "st 1", None, 5,
                                 "st-\u00e9", "st-1\n"])
def test_bad_study_ids_are_refused(bad):
    with pytest.raises(InputError, match="study_id"):
        validate_study_id(bad)
    if isinstance(bad, str):
        with pytest.raises(InputError, match="study_id"):
            Workspace.from_dict({"id": bad})
        with pytest.raises(InputError, match="study_id"):
            ArtifactStore.for_study(bad)


def test_good_ids_and_names_pass():
    assert validate_study_id("st-0123456789ab") == "st-0123456789ab"
    assert validate_study_id("flood_2024-A") == "flood_2024-A"
    for name in ("report.md", "figures/s3 fit (GEV).png", "a/b/c/d.csv"):
        assert validate_artifact_name(name) == name


@pytest.mark.parametrize("bad", ["../report.md", "/etc/passwd", "a/../../b", "..", ".", "a//b", "a\\b", "C:x",
                                 "a/b/c/d/e.txt", "", None])
def test_bad_artifact_names_are_refused(bad, tmp_path):
    with pytest.raises(InputError, match="artifact name"):
        validate_artifact_name(bad)
    store = ArtifactStore(tmp_path / "store")
    with pytest.raises(InputError, match="artifact name"):
        store.put(b"x", name=bad, media_type="text/plain")


def test_records_that_point_outside_the_store_or_the_folder_are_refused(tmp_path):
    store = ArtifactStore(tmp_path / "store")
    ref = store.put(b"hello", name="report.md", media_type="text/markdown")
    assert store.get(ref) == b"hello" and ref["sha256"] == hashlib.sha256(b"hello").hexdigest()
    secret = tmp_path / "secret.txt"
    secret.write_text("do not read")
    for sha in ("../../secret.txt", "../" * 3 + "secret.txt", ref["sha256"].upper(), ref["sha256"][:63], "", None):
        with pytest.raises(InputError, match="sha256"):
            store.get({**ref, "sha256": sha})
    dest = tmp_path / "out"
    for name in ("../escaped.md", "/tmp/escaped.md"):
        with pytest.raises(InputError, match="artifact name"):
            store.export({**ref, "name": name}, dest)
    assert not (tmp_path / "escaped.md").exists()
    assert store.export(ref, dest).read_bytes() == b"hello"


def test_inside_follows_symlinks(tmp_path):
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "link").symlink_to(tmp_path)
    assert inside(tmp_path / "root", "a.txt") == (tmp_path / "root" / "a.txt").resolve()
    with pytest.raises(InputError, match="inside"):
        inside(tmp_path / "root", "link", "x.txt")


def test_copy_tree_is_a_deep_copy_of_json_like_data():
    from aquascope_core.result import copy_tree

    inner = [1.5, {"a": [None, True]}]
    value = {"x": inner, "y": ("t", [2]), "z": "s"}
    out = copy_tree(value)
    assert out == value
    assert out["x"] is not inner and out["x"][1] is not inner[1] and out["x"][1]["a"] is not inner[1]["a"]
    out["x"][1]["a"].append(3)
    out["y"][1].append(4)  # a tuple is deep-copied the standard way
    assert inner[1]["a"] == [None, True] and value["y"] == ("t", [2])
