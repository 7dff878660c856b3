"""Artifact bytes never enter the graph's state or its checkpoints: with a real SQLite checkpointer, a study whose
figures weigh megabytes stores no more than the same study with no figures, bar their references."""

from __future__ import annotations

import io
import sqlite3
import zlib

import numpy as np
import pytest

from graphs.studio import Studio
from tests.answers import past_request

pytestmark = pytest.mark.slow

TEXT = "Design flow for a road crossing, 100-year"
PNG = b"\x89PNG\r\n\x1a\n"


def _noise_png(seed: int) -> bytes:
    """A real PNG of random pixels (it does not compress: about 0.5 MB)."""
    import matplotlib.image

    buf = io.BytesIO()
    matplotlib.image.imsave(buf, np.random.default_rng(seed).random((400, 400, 3)), format="png")
    return buf.getvalue()


def _heavy(study, run, *, inventory=None):
    return [{"id": f"fig-{i}-noise", "kind": "noise", "number": i, "caption": f"Figure {i}. Noise", "step": "s3",
             "png": _noise_png(i), "svg": b"<svg xmlns='http://www.w3.org/2000/svg'/>"} for i in (1, 2, 3, 4)]


def _none(study, run, *, inventory=None):
    return []


def _stored_bytes(db) -> tuple[int, int]:
    """Total bytes of the checkpoints, pending writes and payloads kept once (graphs.checkpoint_payloads, stored
    compressed: counted and searched decompressed), and how many blobs hold a PNG signature."""
    con = sqlite3.connect(str(db))
    try:
        total = sum(con.execute("SELECT COALESCE(SUM(LENGTH(checkpoint)), 0) FROM checkpoints").fetchone()) + \
            sum(con.execute("SELECT COALESCE(SUM(LENGTH(value)), 0) FROM writes").fetchone())
        with_png = con.execute("SELECT COUNT(*) FROM checkpoints WHERE INSTR(checkpoint, ?) > 0", (PNG,)).fetchone()[0] + \
            con.execute("SELECT COUNT(*) FROM writes WHERE INSTR(value, ?) > 0", (PNG,)).fetchone()[0]
        payloads = [zlib.decompress(v) for (v,) in con.execute("SELECT value FROM payloads")]
    finally:
        con.close()
    assert payloads  # the study's large values are kept once by digest
    return total + sum(map(len, payloads)), with_png + sum(PNG in p for p in payloads)


def _run(tmp_path, name, maker, monkeypatch):
    import aquascope_core.deliverables.figures as figures

    monkeypatch.setattr(figures, "figures_for_study", maker)  # the Author draws through it
    db = tmp_path / f"{name}.sqlite"
    with Studio(41.10, -74.96, checkpointer=f"sqlite:///{db}", artifact_root=tmp_path / name) as s:
        past_request(s, s.say(TEXT))
        r = s.approve()
        assert r.kind == "report"
        ws = s.workspace()
    return db, ws


def test_the_stored_state_does_not_grow_with_the_figures(tmp_path, monkeypatch):
    light_db, light = _run(tmp_path, "light", _none, monkeypatch)
    heavy_db, heavy = _run(tmp_path, "heavy", _heavy, monkeypatch)
    figs = [a for a in heavy.artifacts if a["kind"] == "figure" and a["name"].endswith(".png")]
    weight = sum(a["size"] for a in figs)
    assert len(figs) == 4 and weight > 1_500_000  # megabytes of figures were made ...
    assert all((tmp_path / "heavy").joinpath(a["sha256"][:2], a["sha256"]).is_file() for a in figs)  # ... into the store
    light_total, light_png = _stored_bytes(light_db)
    heavy_total, heavy_png = _stored_bytes(heavy_db)
    assert light_png == heavy_png == 0  # no PNG in any checkpoint or write
    # what the figures add to every checkpoint is their references: a few hundred bytes each, never their weight
    assert heavy_total - light_total < 50_000 < weight
    assert [f["name"] for f in heavy.report["sections"][4]["subsections"][2]["figures"]] == [
        f"figures/fig-0{i}-noise.png" for i in (1, 2, 3, 4)]
