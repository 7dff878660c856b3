"""Fixtures for the deliverables: finished studies of the five kinds the issue names, and figure makers.

The figures come from ``aquascope_core.deliverables.figures`` when it is there; without it the
tests install a small maker of their own that draws a real matplotlib figure (PNG and SVG) for
every figure a step's outputs name, and a site map of the inventory's stations, through the same
``figures_for_study(study, run, *, inventory=None)`` interface.
"""

from __future__ import annotations

import importlib
import io
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from tests.answers import past_request

STUDIES = {
    "flood": ("Design flow for a road crossing, 100-year", 41.10, -74.96),
    "bulletin17c": ("100-year flood for a bridge", 36.0, -88.2),
    "drought": ("Is the Leaf River catchment in drought?", 31.7069, -89.4069),
    "gr4j": ("Mean flow, low flows and baseflow index at an ungauged site of 442.9 km2", 31.866667, -89.5475),
    "supply": ("Can we take 0.5 m3/s reliably for water supply?", 41.10, -74.96),
}


def _numbers(payload: Any, depth: int = 0) -> list[float]:
    """The first list of numbers in a payload (what the stand-in maker plots)."""
    if isinstance(payload, list) and len(payload) >= 3 and all(isinstance(x, (int, float)) for x in payload):
        return [float(x) for x in payload]
    if isinstance(payload, dict) and depth < 4:
        for k, v in payload.items():
            if k != "meta":
                got = _numbers(v, depth + 1)
                if got:
                    return got
    if isinstance(payload, list) and depth < 4:
        for v in payload[:3]:
            got = _numbers(v, depth + 1)
            if got:
                return got
    return []


def _draw(kind: str, number: int, caption: str, xs: list[float], ys: list[float], xlabel: str, ylabel: str) -> dict:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.3, 3.4))
    if kind == "site_map":
        ax.scatter(xs, ys, s=14)
        ax.set_aspect("equal", adjustable="datalim")
    else:
        ax.plot(xs, ys, lw=1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    out = {}
    for fmt in ("png", "svg"):
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, dpi=150, bbox_inches="tight")
        out[fmt] = buf.getvalue()
    plt.close(fig)
    return out


def placeholder_figures(study: Any, run: Any, *, inventory: Any = None) -> list[dict]:
    figs = []
    stations = (inventory or {}).get("datasets") or []
    if stations:
        dist = [float(d.get("distance_km") or 0.0) for d in stations]
        figs.append({"id": "site_map", "kind": "site_map", "step": None, "caption": "The site and the stations within reach",
                     **_draw("site_map", 1, "", list(range(len(dist))), dist, "station (rank)", "distance (km)")})
    for st in study.steps:
        r = run.results.get(st.id)
        if r is None or not r.ok:
            continue
        for out in st.outputs or []:
            if out.get("kind") != "figure":
                continue
            ys = _numbers(r.payload) or [0.0, 1.0, 0.5]
            figs.append({"id": f"{st.id}-{out['id']}", "kind": out["id"], "step": st.id, "caption": out.get("caption", out["id"]),
                         **_draw(out["id"], 0, "", list(range(len(ys))), ys, "index (-)", f"{out['id']} (unit)")})
    for n, f in enumerate(figs, 1):
        f["number"] = n
    return figs


def _install_figures(monkeypatch: pytest.MonkeyPatch) -> str:
    try:
        importlib.import_module("aquascope_core.deliverables.figures")
        return "real"
    except ImportError:
        mod = types.ModuleType("aquascope_core.deliverables.figures")
        mod.figures_for_study = placeholder_figures
        monkeypatch.setitem(sys.modules, "aquascope_core.deliverables.figures", mod)
        return "placeholder"


@pytest.fixture(scope="session")
def install_figures():
    """A function that installs the figure makers (real or the stand-in) on a MonkeyPatch; returns which."""
    return _install_figures


@pytest.fixture
def figure_makers(monkeypatch):
    """The figure makers, real or the stand-in; returns which."""
    return _install_figures(monkeypatch)


def run_study_with_crew(name: str, root: Path) -> dict[str, Any]:
    """One of STUDIES, keyless through the graph with a SQLite checkpointer; its files exported to root/out."""
    from graphs.studio import Studio

    problem, lat, lon = STUDIES[name]
    with Studio(lat, lon, checkpointer=f"sqlite:///{root / 'cp.sqlite'}", artifact_root=root / "artifacts") as s:
        r = past_request(s, s.say(problem))
        if r.kind == "questions":
            r = past_request(s, s.say("just go"))
        r = s.approve()
        assert r.kind == "report", (name, r.kind, r.text)
        paths = s.export(root / "out")
        return {"workspace": s.to_dict(), "paths": paths, "out": root / "out", "study_id": s.id}


@pytest.fixture(scope="session")
def finished_studies(tmp_path_factory):
    """name -> a finished study of STUDIES (run once per session, on first use, with the figure makers)."""
    cache: dict[str, dict[str, Any]] = {}

    def get(name: str) -> dict[str, Any]:
        if name not in cache:
            with pytest.MonkeyPatch.context() as mp:
                root = tmp_path_factory.mktemp(f"study-{name}")
                mp.setenv("AQUASCOPE_HOME", str(root / "home"))
                kind = _install_figures(mp)
                cache[name] = {**run_study_with_crew(name, root), "figures_from": kind}
        return cache[name]

    return get
