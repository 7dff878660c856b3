"""What the deliverables cost: a whole study with every file, against the same study with the Markdown report only.

Run: ``.venv/bin/python benchmarks/bench_deliverables.py [flood|bulletin17c|drought|gr4j|supply ...]``. Each study
runs keyless through ``graphs.solve.solve`` (brief, plan, run, interpretation, critique, report); the reference is
the same call with the Author's file writing limited to report.md, study.yaml and workspace.json and no figures
(what a study wrote before the deliverables), in the same process, alternated, best of ``--repeat`` (default 3).
Then the deliverables of the finished study are timed one maker at a time, the figures both through the worker
processes (the default) and in this process. Nothing is asserted; the figures go into benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

STUDIES = {
    "flood": ("Design flow for a road crossing, 100-year", 41.10, -74.96),
    "bulletin17c": ("100-year flood for a bridge", 36.0, -88.2),
    "drought": ("Is the Leaf River catchment in drought?", 31.7069, -89.4069),
    "gr4j": ("Mean flow, low flows and baseflow index at an ungauged site of 442.9 km2", 31.866667, -89.5475),
    "supply": ("Can we take 0.5 m3/s reliably for water supply?", 41.10, -74.96),
}


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def bench(name: str, repeat: int) -> None:
    import importlib

    from aquascope_core.deliverables import build, workers
    from aquascope_core.runner import StudyRun
    from aquascope_core.study import Study
    from aquascope_core.workspace import Workspace
    from graphs.solve import solve

    author_mod = importlib.import_module("roles.author")  # the module (the package exports a function of that name)
    problem, lat, lon = STUDIES[name]
    full_write = author_mod.write_files

    def md_only(ws, store, **_):  # what a study wrote before the deliverables: no figures, no documents
        return build.make_deliverables(ws, store, formats="md", figure_maker=lambda *a, **k: [])["artifacts"]

    full_prefetch = build.prefetch_figures

    def study(markdown_only: bool):
        author_mod.write_files = md_only if markdown_only else full_write
        # the Markdown-only study draws nothing, not even ahead (figures.prefetch)
        build.prefetch_figures = (lambda ws: False) if markdown_only else full_prefetch
        try:
            return solve(problem, lat=lat, lon=lon)
        finally:
            author_mod.write_files = full_write
            build.prefetch_figures = full_prefetch

    study(True)  # warm the imports and the data caches for both
    study(False)
    md, full = [], []
    for _ in range(repeat):
        md.append(_timed(lambda: study(True))[0])
        full.append(_timed(lambda: study(False))[0])
    t_md, t_full = min(md), min(full)
    print(f"\n## {name}: {problem!r} at {lat}, {lon}")
    print(f"study, Markdown only        {t_md:6.2f} s")
    print(f"study, every deliverable    {t_full:6.2f} s   ratio {t_full / t_md:.2f}, {t_full - t_md:+.2f} s")

    # one maker at a time, on the finished study (best of three each)
    result = study(False)
    ws = Workspace.from_dict(result.workspace)
    from aquascope_core.deliverables.figures import figures_for_study
    from aquascope_core.workspace import ArtifactStore

    def best(fn, n: int = 3):
        runs = [_timed(fn) for _ in range(n)]
        return min(t for t, _ in runs), runs[-1][1]

    t_fig, figs = best(lambda: figures_for_study(Study.from_dict(ws.study), StudyRun.from_dict(ws.run),
                                                 inventory=build.site_inventory(ws.inventory)))
    print(f"figures ({len(figs)}, PNG and SVG)     {t_fig:6.2f} s   ({workers.worker_count()} workers)")
    saved = os.environ.get(workers.ENV)
    os.environ[workers.ENV] = "0"
    try:
        t_here, _ = best(lambda: figures_for_study(Study.from_dict(ws.study), StudyRun.from_dict(ws.run),
                                                   inventory=build.site_inventory(ws.inventory)))
    finally:
        if saved is None:
            os.environ.pop(workers.ENV)
        else:
            os.environ[workers.ENV] = saved
    print(f"  the same in this process    {t_here:6.2f} s   ({workers.ENV}=0)")
    with tempfile.TemporaryDirectory() as tmp:
        store = ArtifactStore(Path(tmp))
        t, _ = best(lambda: build.make_deliverables(ws, store, figure_maker=lambda *a, **k: figs))
        print(f"every file, figures given   {t:6.2f} s   (store writes, workspace.json and the bundle included)")
        images = {a["name"]: store.get(a) for a in ws.artifacts if a["kind"] == "figure"}
        study_yaml = Study.from_dict(ws.study).to_yaml()
        names = list(build.FILES.values())
        snapshot = ws.to_dict()
        for fmt in ("xlsx", "docx", "html", "ipynb", "md"):
            t, data = best(lambda: build._make(fmt, ws, ws.report, images, [], study_yaml, names, snapshot))
            print(f"  {build.FILES[fmt]:<26}{t:6.2f} s   {len(data) / 1024:7.0f} KiB")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("studies", nargs="*", help="among " + ", ".join(STUDIES) + " (default flood)")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    os.environ["AQUASCOPE_HOME"] = tempfile.mkdtemp(prefix="aquascope-bench-")  # the studies' files go there
    for name in args.studies or ["flood"]:
        if name not in STUDIES:
            p.error(f"unknown study {name!r}: one of {', '.join(STUDIES)}")
        bench(name, args.repeat)


if __name__ == "__main__":
    main()
