"""The notebook that re-runs the study: nbformat 4 JSON written directly (no Jupyter package needed).

It sits beside study.yaml and workspace.json (in the export folder and in the bundle). Top to
bottom, in a fresh kernel and with no network, it loads the study, replays it with
``aquascope_core.run_study`` through the same tools (the user's uploaded tables come from
workspace.json), checks every number the report quotes against the replay (it stops with an
AssertionError when one differs), and redraws every figure with the same makers.
"""

from __future__ import annotations

import json
import pprint
from typing import Any, Mapping

__all__ = ["render_notebook", "key_numbers"]


def key_numbers(ws: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The report's numbers with the result path each comes from (what the notebook checks)."""
    out = []
    for f in (ws.get("findings") or {}).get("findings") or []:
        if f.get("basis") and isinstance(f.get("value"), (int, float, str)) and not isinstance(f.get("value"), bool):
            out.append({"label": f.get("label"), "basis": f["basis"], "value": f["value"], "unit": f.get("unit")})
    return out


def _src(text: str) -> list[str]:
    lines = text.strip("\n").split("\n")
    return [line + "\n" for line in lines[:-1]] + [lines[-1]]


def _cell(kind: str, text: str, n: int) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": kind, "id": f"cell-{n:02d}", "metadata": {}, "source": _src(text)}
    if kind == "code":
        cell.update({"execution_count": None, "outputs": []})
    return cell


LOAD = '''
import json
import math
from pathlib import Path

from aquascope_core import run_study
from aquascope_core.catalogue import callables
from aquascope_core.study import Study
from aquascope_core.tools.context import DataContext

here = Path.cwd()
study = Study.from_yaml((here / "study.yaml").read_text(encoding="utf-8"))
ws_file = here / "workspace.json"
workspace = json.loads(ws_file.read_text(encoding="utf-8")) if ws_file.exists() else {}
print(f"{study.title}: {len(study.steps)} steps")
'''

RUN = '''
# the user's tables (kept verbatim in workspace.json) are read through the same data context as in the study
data = DataContext.from_tables(workspace.get("tables") or {}, workspace.get("site"))
run = run_study(study, callables=callables(data=data))
for sid, r in run.results.items():
    print(f"{sid} {r.tool:<40} {r.status:<8} {r.summary[:90]}")
'''

CHECK = '''
from aquascope_core.paths import get_path

payloads = run.payloads()
rows, differ = [], []
for k in KEY_NUMBERS:
    try:
        got = get_path(payloads, k["basis"])
    except Exception as exc:  # a result the replay did not establish
        got = f"missing ({exc})"
    if isinstance(k["value"], (int, float)) and isinstance(got, (int, float)):
        same = math.isclose(got, k["value"], rel_tol=1e-9, abs_tol=1e-12)
    else:
        same = got == k["value"]
    rows.append((k["label"], k["value"], got, k["unit"] or "", "same" if same else "DIFFERS"))
    if not same:
        differ.append(k["label"])
for row in rows:
    print(" | ".join(str(x) for x in row))
print(json.dumps({"checked": len(rows), "differ": differ,
                  "values": {k["basis"]: get_path(payloads, k["basis"]) for k in KEY_NUMBERS if k["label"] not in differ}}))
assert not differ, f"these numbers differ from the report's: {differ}"
'''

FIGURES = '''
try:
    from aquascope_core.deliverables.figures import figures_for_study
except ImportError as exc:  # the figure makers need matplotlib
    figures_for_study = None
    print(f"The figures cannot be drawn here: {exc}")
if figures_for_study is not None:
    from IPython.display import Image, display

    from aquascope_core.deliverables.build import site_inventory

    figures = figures_for_study(study, run, inventory=site_inventory(workspace.get("inventory")))
    for fig in figures:
        display(Image(data=fig["png"]))
        print(fig["caption"])
'''


def render_notebook(ws: Mapping[str, Any], report: Mapping[str, Any]) -> bytes:
    """The notebook as .ipynb bytes (UTF-8 JSON, nbformat 4.5)."""
    title = str(report.get("title") or (ws.get("study") or {}).get("title") or "Study")
    answer = str(report.get("answer") or "")
    intro = (f"# {title}\n\nStudy `{ws.get('id', '')}`. {answer}\n\n"
             "This notebook replays the study from `study.yaml` (beside it) with no model and no network, checks that "
             "every number the report quotes comes out the same, and redraws the figures. Run it top to bottom "
             "(Kernel, Restart and run all).")
    numbers = pprint.pformat(key_numbers(ws), width=110, sort_dicts=False)
    cells = [
        _cell("markdown", intro, 1),
        _cell("markdown", "## The study\n\nLoad the approved plan with its gates.", 2),
        _cell("code", LOAD, 3),
        _cell("markdown", "## Replay\n\nEvery step runs through the same registered tool, with its gates.", 4),
        _cell("code", RUN, 5),
        _cell("markdown", "## The report's numbers\n\nEach number the report quotes, with the result path it comes "
                          "from, against the replay.", 6),
        _cell("code", "KEY_NUMBERS = " + numbers + "\n" + CHECK, 7),
        _cell("markdown", "## Figures\n\nRedrawn from the replay's results with the report's figure makers.", 8),
        _cell("code", FIGURES, 9),
    ]
    nb = {"cells": cells, "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"}, "aquascope": {"study_id": ws.get("id")}},
        "nbformat": 4, "nbformat_minor": 5}
    return (json.dumps(nb, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
