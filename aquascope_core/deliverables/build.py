"""make_deliverables: every file of a finished study, into the artifact store, in one call.

The order matters and is the mechanism:

1. The figures are drawn from the study and its run (the figure makers,
   ``aquascope_core.deliverables.figures.figures_for_study``), their bytes put in the store, and their
   references placed in the report dict: each step's figures in its Results subsection, the figures of no
   step (the site map) in "Site and data". Each figure is laid out once and rendered only in the formats the
   files asked for need (:func:`figure_formats`): the PNG always (Markdown links it, the HTML, the Word report
   and the notebook embed it), the SVG when the bundle or the workbook (which lists the vector files) is made,
   or as asked ("png", "svg" among the formats). "spec" instead of pixels (with "md" only) stores what each
   figure plots as ``figures/*.spec.json`` and links that from report.md: what the gym scores figures by.
2. Each format whose library cannot be imported is struck off with a note; the note, and the list of
   the files, go into the report's appendix before any document is laid out, so every document
   made says what was not. A maker that fails while making is skipped the same way (the documents
   made after it carry the note).
3. The workbook, the notebook, the Word report, the HTML and the Markdown are made from the same
   report dict; then study.yaml, workspace.json (artifact references only, never bytes) and the
   bundle zip of all of them.

The workspace ends up holding the references (id, name, media type, caption, step, format) of
every file; the bytes live only in the store.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import logging
import re
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from aquascope_core.deliverables import workers
from aquascope_core.errors import InputError
from aquascope_core.workspace import ArtifactStore, Workspace

__all__ = ["make_deliverables", "export_deliverables", "place_figures", "prefetch_figures", "figure_formats", "FORMATS",
           "FIGURE_FORMATS", "FILES"]

log = logging.getLogger(__name__)

FORMATS = ("md", "html", "docx", "xlsx", "ipynb", "zip")
FIGURE_FORMATS = ("png", "svg", "spec")  # the figures' own files, when asked for explicitly (see figure_formats)
FILES = {"md": "report.md", "html": "report.html", "docx": "report.docx", "xlsx": "workbook.xlsx",
         "ipynb": "notebook.ipynb", "zip": "bundle.zip"}
MEDIA = {"md": "text/markdown", "html": "text/html",
         "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
         "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
         "ipynb": "application/x-ipynb+json", "zip": "application/zip"}
WHAT = {"md": "the report (Markdown; the figures are the files under figures/)",
        "html": "the report as one self-contained web page (print it to PDF from a browser)",
        "docx": "the report (Word)", "xlsx": "the workbook: inventory, plan, gates, findings, data and result tables",
        "ipynb": "a notebook that replays the study and redraws the figures", "zip": "all of these files in one zip"}
# the library each maker imports, and the package that provides it
NEEDS = {"docx": ("docx", "python-docx"), "xlsx": ("openpyxl", "openpyxl"), "figures": ("matplotlib", "matplotlib")}
LABEL = {"docx": "The Word report", "xlsx": "The workbook", "figures": "The figures", "html": "The HTML report",
         "md": "The Markdown report", "ipynb": "The notebook", "zip": "The bundle"}
OWN_KINDS = {"report", "study", "workspace", "figure", "document", "bundle", "notebook", "workbook"}
FILES_SECTION = "appendix-files"


def _formats(formats: Iterable[str] | str | None) -> tuple[str, ...]:
    if formats is None:
        return FORMATS
    items = [f.strip().lower().lstrip(".") for f in (formats.split(",") if isinstance(formats, str) else formats)]
    items = [{"markdown": "md", "word": "docx", "excel": "xlsx", "notebook": "ipynb", "bundle": "zip"}.get(f, f)
             for f in items if f]
    bad = [f for f in items if f not in FORMATS + FIGURE_FORMATS]
    if bad or not items:
        raise InputError.bad_value("format", ",".join(bad) or "(empty)", "a comma-separated list of "
                                   + ", ".join(FORMATS) + " (and the figures' " + ", ".join(FIGURE_FORMATS) + ")")
    out = tuple(f for f in FORMATS + FIGURE_FORMATS if f in items)
    if "spec" in out and not set(out) <= {"md", "spec"}:
        raise InputError.bad_value("format", ",".join(out), "'spec' (figures described, not drawn) with 'md' only: "
                                   "the other files embed or list the pictures")
    return out


def figure_formats(formats: Iterable[str] | str | None) -> tuple[str, ...]:
    """The files each figure is made as for these deliverable formats: those asked for explicitly ("png", "svg",
    "spec"), else the PNG (Markdown links it; HTML, Word and the notebook embed it) and the SVG only when the
    bundle or the workbook is made (the workbook lists the vector files; no document embeds them)."""
    wanted = _formats(formats)
    asked = tuple(f for f in wanted if f in FIGURE_FORMATS)
    if asked:
        return asked
    return ("png", "svg") if {"zip", "xlsx"} & set(wanted) else ("png",)


def _missing(lib: str) -> str | None:
    if lib not in sys.modules and workers.forked():  # the workers import it; this process need not
        try:
            found = importlib.util.find_spec(lib)
        except (ImportError, ValueError) as exc:
            return f"{type(exc).__name__}: {exc}"
        return None if found is not None else f"ModuleNotFoundError: No module named {lib!r}"
    try:
        importlib.import_module(lib)
    except Exception as exc:  # noqa: BLE001 - ImportError, or a broken install
        return f"{type(exc).__name__}: {exc}"
    return None


def _skip_note(what: str, why: str, fix: str) -> str:
    verb = "were not drawn" if what == "figures" else "was not made"
    return f"{LABEL.get(what, what)} {verb}: {why}. {fix}"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")[:40] or "figure"


def place_figures(report: dict[str, Any], figures: Sequence[Mapping[str, Any]],
                  pointers: Sequence[Mapping[str, Any]] = ()) -> None:
    """Put figure references in the report: a step's in its Results subsection, the others in Site and data.

    ``pointers`` ({step, text}) are figures drawn into another one ("the trend is shown in Figure 3"):
    their sentence goes to the step's subsection as a ``figure_notes`` line."""
    sections = report.get("sections") or []

    def all_sections(secs: Sequence[dict[str, Any]]) -> Iterable[dict[str, Any]]:
        for s in secs:
            yield s
            yield from all_sections(s.get("subsections") or [])

    by_id = {s.get("id"): s for s in all_sections(sections)}
    for s in by_id.values():
        s.pop("figures", None)
        s.pop("figure_notes", None)
    for p in pointers:
        home = by_id.get(f"results-{p.get('step')}")
        if home is not None:
            home.setdefault("figure_notes", []).append(str(p["text"]))
    for fig in figures:
        home = by_id.get(f"results-{fig.get('step')}") if fig.get("step") else None
        home = home or by_id.get("site_data" if not fig.get("step") else "results") or (sections[0] if sections else None)
        if home is not None:
            home.setdefault("figures", []).append(dict(fig))


def _files_section(report: dict[str, Any], names: Sequence[str], notes: Sequence[str]) -> None:
    appendix = next((s for s in report.get("sections") or [] if s.get("id") == "appendix"), None)
    if appendix is None:
        return
    subs = [s for s in appendix.get("subsections") or [] if s.get("id") != FILES_SECTION]
    text = "The files of this study: " + ", ".join(f"`{n}`" for n in names) + "."
    if notes:
        text += "\n\n" + "\n".join(f"- {n}" for n in notes)
    subs.append({"id": FILES_SECTION, "title": "The files", "text": text})
    appendix["subsections"] = subs


def site_inventory(inventory: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """What the site map is drawn from: the reconnaissance (point, stations) the Scout's inventory keeps."""
    inv = inventory or {}
    return inv.get("recon") if isinstance(inv.get("recon"), Mapping) else (inv or None)


def draws_pixels(formats: Iterable[str] | str | None) -> bool:
    """Whether these deliverable formats have figures drawn (not only described: "spec"); True for formats that
    do not parse (they are refused later, where they are made)."""
    try:
        return figure_formats(formats) != ("spec",)
    except InputError:
        return True


def _draw(ws: Workspace, maker: Callable[..., Any] | None, notes: list[str],
          missed: list[dict[str, Any]], fig_formats: tuple[str, ...] = ("png", "svg")) -> list[dict[str, Any]]:
    if not ws.study or not ws.run:
        return []
    why = _missing(NEEDS["figures"][0])
    if why:
        notes.append(_skip_note("figures", f"matplotlib cannot be imported ({why})",
                                "Install it (pip install matplotlib) and export the study again."))
        return []
    from aquascope_core.runner import StudyRun
    from aquascope_core.study import Study

    try:
        if maker is None:
            from aquascope_core.deliverables.figures import figures_for_study as maker
        kwargs: dict[str, Any] = {"inventory": site_inventory(ws.inventory)}
        accepts = inspect.signature(maker).parameters
        if "skipped" in accepts:
            kwargs["skipped"] = missed
        if "formats" in accepts:
            kwargs["formats"] = fig_formats
        return list(maker(Study.from_dict(ws.study), StudyRun.from_dict(ws.run), **kwargs) or [])
    except Exception as exc:  # noqa: BLE001 - a figure that cannot be drawn never costs the report
        log.warning("the figures were not drawn: %s", exc)
        log.debug("the figure makers failed", exc_info=True)
        notes.append(_skip_note("figures", f"drawing them failed ({type(exc).__name__}: {exc})",
                                "The numbers and tables are unaffected."))
        return []


def prefetch_figures(ws: Workspace, formats: Iterable[str] | str | None = None) -> bool:
    """Start drawing the figures of ``ws``'s finished run in the background (see figures.prefetch), in the figure
    formats the deliverable ``formats`` will need (default: every format); the deliverables made later from the
    same run take them. Never raises: the figures are then drawn when needed."""
    if not ws.study or not ws.run or _missing(NEEDS["figures"][0]):
        return False
    try:
        if not draws_pixels(formats):
            return False  # described, not drawn: nothing worth a head start
        fig_formats = figure_formats(formats)
        from aquascope_core.deliverables.figures import prefetch
        from aquascope_core.runner import StudyRun
        from aquascope_core.study import Study

        return prefetch(Study.from_dict(ws.study), StudyRun.from_dict(ws.run), inventory=site_inventory(ws.inventory),
                        formats=fig_formats)
    except Exception:  # noqa: BLE001 - drawing ahead is only a head start
        log.debug("the figures could not be drawn ahead", exc_info=True)
        return False


def study_file(ws: Workspace) -> Any:
    """The study the files carry: the plan (run or not), or for a decline, the declined study (brief, inventory,
    the decline) so the decline replays; None when there is neither."""
    from aquascope_core.study import Study

    declined = ws.status == "declined" or bool((ws.brief or {}).get("declined_reason"))
    if ws.study and not declined:
        return Study.from_dict(ws.study)
    if not declined:
        return None
    from aquascope_core.declines import declined_study

    b, req = ws.brief or {}, ws.request or {}
    # who declined: the reviewer of the plan, the playbook (after the site was surveyed) or the brief
    stage = ("plan review" if b.get("declined_reason") == "The plan was not approved." else
             "playbook" if ws.inventory and b.get("playbook") else "brief")
    return declined_study(study_id=ws.id, question=b.get("problem") or req.get("text") or "", site=ws.site or {},
                          reason=b.get("declined_reason") or "The crew declined the study.",
                          playbook=b.get("playbook"), intake=b.get("intake"), inventory=ws.inventory,
                          radius_km=req.get("radius_km"), stage=stage, title=(ws.study or {}).get("title") or None)


def make_deliverables(ws: Workspace, store: ArtifactStore, *, formats: Iterable[str] | str | None = None,
                      figure_maker: Callable[..., Any] | None = None, study: Any = None) -> dict[str, Any]:
    """Make the study's files into ``store`` and set ``ws.artifacts`` to their references.

    ``formats`` chooses among :data:`FORMATS` (default all); study.yaml and workspace.json are
    always written. ``figure_maker(study, run, inventory=...)`` replaces the figure makers (tests).
    ``study`` is the study study.yaml carries (default: ``ws.study``; a declined study passes the study
    of its decline, so the decline replays).
    Returns ``{"artifacts": [...], "skipped": [notes on files not made], "figures": [figure refs],
    "figures_not_drawn": [{kind, step, reason}]}``.
    """
    from aquascope_core.study import Study

    wanted = _formats(formats)
    fig_formats = figure_formats(wanted)
    wanted = tuple(f for f in wanted if f in FORMATS)
    if not ws.study:  # a declined study: its short report only (no plan to tabulate, replay or bundle)
        wanted = tuple(f for f in wanted if f in ("md", "html", "docx"))
    notes: list[str] = []
    keep = [a for a in ws.artifacts if a.get("kind") not in OWN_KINDS]
    refs: list[dict[str, Any]] = []
    images: dict[str, bytes] = {}
    fig_refs: list[dict[str, Any]] = []
    bundle_files: dict[str, tuple[bytes, str]] = {}

    missed: list[dict[str, Any]] = []
    for fig in _draw(ws, figure_maker, notes, missed, fig_formats):
        stem = f"figures/fig-{int(fig.get('number') or len(fig_refs) + 1):02d}-{_slug(fig.get('kind') or fig.get('id'))}"
        caption = str(fig.get("caption") or "")
        extra = {"figure": fig.get("id"), "number": fig.get("number"), "figure_kind": fig.get("kind")}
        if fig.get("png") is None and fig.get("spec") is not None:  # described, not drawn (the gym)
            spec = {"kind": fig.get("kind"), "number": fig.get("number"), "caption": caption, "step": fig.get("step"),
                    "shows_steps": fig.get("shows_steps") or [], **fig["spec"]}
            ref = {**store.put(json.dumps(spec, indent=1).encode("utf-8"), name=stem + ".spec.json",
                               media_type="application/json", caption=caption, step=fig.get("step"), kind="figure"),
                   **extra, "format": "figure"}
            refs.append(ref)
            fig_refs.append({k: ref[k] for k in ("id", "name", "media_type", "caption", "step")} |
                            {"number": fig.get("number"), "svg": None, "kind": fig.get("kind")})
            continue
        ref = {**store.put(fig["png"], name=stem + ".png", media_type="image/png", caption=caption,
                           step=fig.get("step"), kind="figure"), **extra, "format": "figure"}
        refs.append(ref)
        images[ref["name"]] = fig["png"]
        bundle_files[ref["name"]] = (fig["png"], f"Figure {fig.get('number')}: {caption}")
        svg_name = None
        if fig.get("svg"):
            svg = {**store.put(fig["svg"], name=stem + ".svg", media_type="image/svg+xml", caption=caption,
                               step=fig.get("step"), kind="figure"), **extra, "format": "figure"}
            refs.append(svg)
            images[svg["name"]] = fig["svg"]
            bundle_files[svg["name"]] = (fig["svg"], f"Figure {fig.get('number')} (vector)")
            svg_name = svg["name"]
        fig_refs.append({k: ref[k] for k in ("id", "name", "media_type", "caption", "step")} |
                        {"number": fig.get("number"), "svg": svg_name, "kind": fig.get("kind")})
    report = ws.report if isinstance(ws.report, dict) else {}
    ws.report = report
    # a figure the makers drew into another (the trend line on the annual maxima) is pointed to, not missed
    shown = [m for m in missed if str(m.get("reason", "")).startswith("shown in ")]
    missed = [m for m in missed if m not in shown]
    place_figures(report, fig_refs, [{"step": m.get("step"), "text": f"The {str(m.get('kind')).replace('_', ' ')} "
                                      f"is {str(m['reason']).rstrip('.')}."} for m in shown])

    makers = [f for f in ("xlsx", "ipynb", "docx", "html", "md") if f in wanted]
    for fmt in list(makers):
        lib = NEEDS.get(fmt)
        why = _missing(lib[0]) if lib else None
        if why:
            makers.remove(fmt)
            notes.append(_skip_note(fmt, f"{lib[1]} cannot be imported ({why})",
                                    f"Install it (pip install {lib[1]}) and run: aquascope export {ws.id} --format {fmt}"))
    names = [FILES[f] for f in makers] + ["study.yaml", "workspace.json"] + (["bundle.zip"] if "zip" in wanted else [])
    # a figure the plan names whose step or payload could not give it
    not_drawn = [f"The {str(m.get('kind', 'figure')).replace('_', ' ')} figure of step {m.get('step')} was not drawn: "
                 f"{str(m.get('reason', '')).rstrip('.')}." for m in missed]
    _files_section(report, names, notes + not_drawn)

    study = study if study is not None else study_file(ws)
    study_yaml = study.to_yaml() if study is not None else ""
    snapshot = ws.to_dict() if {"xlsx", "ipynb"} & set(makers) else {}  # one copy for the makers that read it
    meta = {"id": ws.id, "created": ws.created}
    # the Word report and the workbook are the slow ones: made side by side in the workers (or by the worker
    # forked at start, which has their libraries imported), the rest here
    slow = [f for f in ("docx", "xlsx") if f in makers]
    made = dict(zip(slow, workers.run(_make_job, [
        (fmt, meta, report, images if fmt == "docx" else {}, fig_refs, study_yaml, names,
         snapshot if fmt == "xlsx" else {}) for fmt in slow]))) if len(slow) > 1 or workers.forked() else {}
    for fmt in makers:
        status, data = made.get(fmt) or _make_job(fmt, meta, report, images, fig_refs, study_yaml, names, snapshot)
        if status != "ok":  # one document that fails never costs the others
            log.warning("%s failed: %s", FILES[fmt], data)
            notes.append(_skip_note(fmt, f"making it failed ({data})",
                                    f"The other files are complete; aquascope export {ws.id} --format {fmt} tries again."))
            names.remove(FILES[fmt])
            _files_section(report, names, notes + not_drawn)
            continue
        refs.append({**store.put(data, name=FILES[fmt], media_type=MEDIA[fmt], caption=WHAT[fmt].capitalize(),
                                 kind="report" if fmt in ("md", "html", "docx") else
                                 {"xlsx": "workbook", "ipynb": "notebook"}[fmt]), "format": fmt})
        bundle_files[FILES[fmt]] = (data, WHAT[fmt])
    report["deliverables"] = {"files": names, "skipped": notes, "figures_not_drawn": not_drawn}

    if study_yaml:
        data = study_yaml.encode("utf-8")
        refs.append({**store.put(data, name="study.yaml", media_type="application/yaml",
                                 caption="The study: plan, gates and results", kind="study"), "format": "study"})
        bundle_files["study.yaml"] = (data, "the study: the approved plan, its gates and results (aquascope run study.yaml)")
    ws.artifacts = keep + refs
    data = json.dumps(ws.to_dict(), indent=2, ensure_ascii=False).encode("utf-8")
    refs.append({**store.put(data, name="workspace.json", media_type="application/json", caption="The workspace",
                             kind="workspace"), "format": "workspace"})
    bundle_files["workspace.json"] = (data, "everything the crew wrote (file references only, no file bytes)")
    if "zip" in wanted:
        from aquascope_core.deliverables.bundle import render_bundle

        zipped = render_bundle({"id": ws.id}, report, bundle_files)
        refs.append({**store.put(zipped, name=FILES["zip"], media_type=MEDIA["zip"], caption="All the files in one zip",
                                 kind="bundle"), "format": "zip"})
    order = [*FORMATS[:5], "figure", "study", "workspace", "zip"]
    ws.artifacts = keep + sorted(refs, key=lambda r: order.index(r["format"]))
    return {"artifacts": ws.artifacts, "skipped": notes, "figures": fig_refs, "figures_not_drawn": missed}


def _make_job(fmt: str, meta: Mapping[str, Any], report: dict[str, Any], images: Mapping[str, bytes],
              figures: Sequence[Mapping[str, Any]], study_yaml: str, names: Sequence[str],
              snapshot: Mapping[str, Any]) -> tuple[str, Any]:
    """:func:`_make` for a worker process (or this one): ``("ok", bytes)`` or ``("error", "Type: message")``."""
    try:
        return "ok", _make(fmt, meta, report, images, figures, study_yaml, names, snapshot)
    except Exception as exc:  # noqa: BLE001 - reported as the file's skip note
        log.debug("the %s maker failed", fmt, exc_info=True)
        return "error", f"{type(exc).__name__}: {exc}"


def _make(fmt: str, ws: Workspace | Mapping[str, Any], report: dict[str, Any], images: Mapping[str, bytes],
          figures: Sequence[Mapping[str, Any]], study_yaml: str, names: Sequence[str],
          snapshot: Mapping[str, Any] | None = None) -> bytes:
    """One file of ``fmt``. ``ws`` is the workspace, or ``{id, created}`` with ``snapshot`` its to_dict()."""
    if isinstance(ws, Mapping):
        study_id, created = ws.get("id"), ws.get("created")
    else:
        study_id, created = ws.id, ws.created
    if fmt == "md":
        from aquascope_core.deliverables.report_md import render_markdown

        return render_markdown(report).encode("utf-8")
    if fmt == "html":
        from aquascope_core.deliverables.html import render_html

        return render_html(report, images).encode("utf-8")
    if fmt == "docx":
        from aquascope_core.deliverables.report_docx import render_docx
        from aquascope_core.deliverables.workbook import report_table_sheets

        sheets = {n: name for n, _, _, name in report_table_sheets(report)} if "workbook.xlsx" in names else {}
        return render_docx(report, images, study_id=study_id, study_yaml=study_yaml, created=created,
                           table_sheets=sheets, workbook_name="workbook.xlsx")
    if fmt == "xlsx":
        from aquascope_core.deliverables.workbook import render_workbook

        return render_workbook(snapshot or ws.to_dict(), report, figures, files=names)  # type: ignore[union-attr]
    if fmt == "ipynb":
        from aquascope_core.deliverables.notebook import render_notebook

        return render_notebook(snapshot or ws.to_dict(), report)  # type: ignore[union-attr]
    raise InputError.bad_value("format", fmt, ", ".join(FORMATS))


def export_deliverables(ws: Workspace, store: ArtifactStore, dest: str | Path,
                        formats: Iterable[str] | str | None = None,
                        figure_maker: Callable[..., Any] | None = None) -> tuple[list[Path], bool]:
    """Write the study's files of ``formats`` (default all) into ``dest``.

    The files come from the store; when one is missing there (another machine, a cleaned folder)
    or was never made, the deliverables are made again from the workspace first. Returns the paths
    written and whether the workspace's artifact references changed (the caller saves them)."""
    wanted = tuple(f for f in _formats(formats) if f in FORMATS)
    if not ws.study:  # a declined study has its short report only (see make_deliverables)
        wanted = tuple(f for f in wanted if f in ("md", "html", "docx"))

    def pick() -> list[dict[str, Any]]:
        out = []
        for ref in ws.artifacts:
            fmt = ref.get("format") or {"report.md": "md", "study.yaml": "study", "workspace.json": "workspace"}.get(ref.get("name"))
            if fmt in wanted or fmt in ("study", "workspace") or (fmt == "figure" and "md" in wanted):
                out.append(ref)
        return out

    chosen = pick()
    have = {r.get("format") for r in chosen}
    rebuilt = False
    if not all(f in have for f in wanted) or not all(_in_store(store, r) for r in chosen):
        make_deliverables(ws, store, figure_maker=figure_maker)
        chosen, rebuilt = pick(), True
    return [store.export(ref, dest) for ref in chosen], rebuilt


def _in_store(store: ArtifactStore, ref: Mapping[str, Any]) -> bool:
    try:
        store.path(ref)
        return True
    except Exception:  # noqa: BLE001
        return False
