"""Figures, PNG and SVG, each with a numbered caption, drawn from the step payloads of a run.

    FIGURE_KINDS                      kind -> FigureMaker (every kind that can be drawn)
    draw(kind, payload, number=3)     one figure: {id, kind, number, caption, step, png, svg, spec}
    figures_for_study(study, run, inventory=recon, formats=("png", "svg"))
                                      every figure the plan's step outputs name, in report order, the site map
                                      first; a figure whose payload lacks what it needs is skipped with the reason

``formats`` are the files each figure is made as, from one layout: "png", "svg", or "spec" alone (the figure is
built, its data checked, and what it plots described by :func:`style.figure_spec`, with no layout and no pixels;
what the gym scores a report's figures by). A format not asked for is not rendered.
    prefetch(study, run, inventory=recon)
                                      start drawing them in the background as soon as the run is final; the
                                      figures_for_study call on the same inputs then takes them

The makers live by family (figures_flood, figures_flow, figures_drought, figures_climate, figures_supply,
figures_quality, figures_regional, figures_model, figures_site); they read the payloads only and never recompute a method.
matplotlib is imported inside the drawing functions only.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import logging
import threading
import time
from collections import OrderedDict
from typing import Any, Mapping

from aquascope_core.deliverables import (workers, figures_climate, figures_drought, figures_flood, figures_flow,
                                         figures_model, figures_quality, figures_regional, figures_site,
                                         figures_supply)
from aquascope_core.deliverables.figures_base import FigureDataMissing, FigureMaker
from aquascope_core.errors import InputError

__all__ = ["FIGURE_KINDS", "FigureMaker", "FigureDataMissing", "draw", "render", "figures_for_study", "figure_outputs",
           "prefetch", "SITE_MAP", "FORMATS", "DEFAULT_FORMATS"]

log = logging.getLogger(__name__)

SITE_MAP = "site_map"

# matplotlib's rcParams are global and its drawing is not thread-safe: one figure at a time in a process (a
# server may run several studies in threads).
_DRAWING = threading.Lock()

FIGURE_KINDS: dict[str, FigureMaker] = {}
for _family in (figures_site, figures_flow, figures_flood, figures_drought, figures_climate, figures_regional,
                figures_model, figures_supply, figures_quality):
    for _m in _family.MAKERS:
        if _m.kind in FIGURE_KINDS:
            raise RuntimeError(f"figure kind {_m.kind!r} is defined twice")
        FIGURE_KINDS[_m.kind] = _m


def _caption(number: int, text: str, note: str) -> str:
    from aquascope_core.verify import plural_counts, round_prose

    text = (text or "").strip().rstrip(".")
    # a caption quotes measured values to three significant figures, counts with their noun in the right number
    note = plural_counts(round_prose((note or "").strip()))
    out = f"Figure {number}. {text}."
    if note:
        first = note.split(" ", 1)[0]
        if first.isalpha() and first.islower():  # a sentence, not a name ("schwingbach_well.csv" stays as it is)
            note = note[0].upper() + note[1:]
        out += " " + note.rstrip(".") + "."
    return out


def _check(kind: str, payload: Any) -> FigureMaker:
    maker = FIGURE_KINDS.get(kind)
    if maker is None:
        raise InputError.bad_value("kind", kind, "a figure kind, one of " + ", ".join(sorted(FIGURE_KINDS)))
    if not isinstance(payload, Mapping):
        raise FigureDataMissing(f"the {kind} figure needs a payload (a mapping), got {type(payload).__name__}",
                                argument="payload", value=None)
    return maker


FORMATS = ("png", "svg", "spec")
DEFAULT_FORMATS = ("png", "svg")


def _figure_formats(formats: Any) -> tuple[str, ...]:
    items = (formats.split(",") if isinstance(formats, str) else list(formats)) if formats is not None else DEFAULT_FORMATS
    items = [str(f).strip().lower() for f in items if str(f).strip()]
    bad = [f for f in items if f not in FORMATS]
    if bad or not items:
        raise InputError.bad_value("formats", ",".join(bad) or "(empty)", "figure formats among " + ", ".join(FORMATS))
    if "spec" in items and len(set(items)) > 1:
        raise InputError.bad_value("formats", ",".join(items), "'spec' alone (no pixels), or 'png' and/or 'svg'")
    return tuple(f for f in FORMATS if f in items)


def render(kind: str, payload: Mapping[str, Any] | None, context: Mapping[str, Any] | None = None,
           formats: Any = DEFAULT_FORMATS) -> tuple[bytes | None, bytes | None, str]:
    """The figure of ``kind`` as ``(png, svg, note)`` (None for a format not in ``formats``); raises as
    :func:`draw` does."""
    png, svg, note, _ = _render(kind, payload, context, _figure_formats(formats))
    return png, svg, note


@contextlib.contextmanager
def _young_garbage() -> Any:
    """Build and drop a figure without the cycle collector running meanwhile, then collect the youngest generation.

    A figure is some 10,000 objects in reference cycles (artists, transforms, callbacks). Collected automatically
    while it is being built, they survive as reachable, are promoted, and soon make the collector go through the
    whole heap of a long-lived process (the catalogue, the records, the imports: 0.3-1 s a full collection on the
    development machine, most of a gym task's CPU). With the collector paused they stay young, and one
    collection of the youngest generation frees them once the figure is dropped."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
            gc.collect(0)


def _render(kind: str, payload: Any, context: Mapping[str, Any] | None,
            formats: tuple[str, ...]) -> tuple[bytes | None, bytes | None, str, dict[str, Any] | None]:
    maker = _check(kind, payload)
    from aquascope_core.deliverables.style import figure_spec, house_style, save

    spec = png = svg = None
    with _DRAWING, _young_garbage():
        with house_style():
            fig, note = maker(payload, dict(context or {}))
            if formats == ("spec",):
                spec = figure_spec(fig)
            else:
                png, svg = save(fig, formats)
        del fig  # unreachable before the collection of the youngest generation
    return png, svg, note, spec


# seconds a figure of each kind took to draw, lately (the longest are handed to the workers first)
_COST: dict[str, float] = {}
_COST_DEFAULT = 0.3


def _render_job(kind: str, payload: Any, context: Mapping[str, Any],
                formats: tuple[str, ...] = DEFAULT_FORMATS) -> tuple[str, Any]:
    """:func:`render` for a worker process: ``("ok", (png, svg, note, spec, seconds))``, ``("skip", reason)`` when
    the payload lacks what the figure needs, or ``("error", text)`` (drawn again in the calling process to raise
    there)."""
    try:
        started = time.perf_counter()
        return "ok", (*_render(kind, payload, context, formats), time.perf_counter() - started)
    except (FigureDataMissing, InputError) as exc:
        return "skip", exc.message
    except Exception as exc:  # noqa: BLE001 - reported back; the caller redraws it to raise the real error
        return "error", f"{type(exc).__name__}: {exc}"


def _entry(kind: str, number: int, caption: str | None, step: Any, drawn: tuple[Any, ...],
           context: Mapping[str, Any] | None = None) -> dict[str, Any]:
    png, svg, note, spec = drawn
    return {
        "id": f"fig-{number}-{kind}",
        "kind": kind,
        "number": number,
        "caption": _caption(number, FIGURE_KINDS[kind].caption(caption, context or {}), note),
        "step": step,
        "shows_steps": [step] if step else [],
        "png": png,
        "svg": svg,
        "spec": spec,
    }


def draw(kind: str, payload: Mapping[str, Any] | None, *, number: int, caption: str | None = None,
         context: Mapping[str, Any] | None = None, formats: Any = DEFAULT_FORMATS) -> dict[str, Any]:
    """Draw one figure of ``kind`` from ``payload``.

    ``context`` may hold ``step`` (its id), ``arguments`` (the step's resolved arguments), ``params`` (the
    study's problem parameters, e.g. the design return period) and ``inventory`` (the site reconnaissance).
    Returns ``{id, kind, number, caption, step, shows_steps, png, svg, spec}`` (each of png, svg and spec None
    unless ``formats`` asks for it); ``shows_steps`` lists the step and any
    later step drawn into this figure (see :attr:`FigureMaker.folds`; :func:`figures_for_study` fills it).
    Raises :class:`FigureDataMissing` when the payload lacks what the figure needs (nothing is drawn) and
    :class:`InputError` for an unknown kind or a bad number.
    """
    _check(kind, payload)
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise InputError.bad_value("number", number, "a positive whole number (the figure's place in the report)")
    ctx = dict(context or {})
    return _entry(kind, number, caption, ctx.get("step"), _render(kind, payload, ctx, _figure_formats(formats)), ctx)


def figure_outputs(step: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The figure entries of a study step's ``outputs``."""
    return [o for o in (step.get("outputs") or []) if isinstance(o, Mapping) and o.get("kind") == "figure"]


def _results(run: Any) -> Mapping[str, Any]:
    if hasattr(run, "to_dict"):
        run = run.to_dict()
    if not isinstance(run, Mapping):
        raise InputError.bad_value("run", type(run).__name__, "a run dict (StudyRun.to_dict()) with 'results'")
    res = run.get("results")
    return res if isinstance(res, Mapping) else {}


def _dependents(steps: list[Mapping[str, Any]], results: Mapping[str, Any], sid: Any,
                folds: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The established later steps that depend on ``sid`` and whose tool this figure folds in."""
    out = []
    if not folds:
        return out
    for st in steps:
        res = results.get(st.get("id"))
        if (sid in (st.get("depends_on") or []) and st.get("tool") in folds and isinstance(res, Mapping)
                and res.get("status") == "ok"):
            out.append({"step": st.get("id"), "tool": st.get("tool"), "payload": res.get("payload"),
                        "arguments": res.get("arguments") or {}})
    return out


def _station_of(step: Mapping[str, Any], results: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The station a step's figure is of: its own payload's, else that of the first step it depends on that names
    one (a trend test on a fit's systematic peaks is of the fit's gauge)."""
    for sid in [step.get("id"), *(step.get("depends_on") or [])]:
        res = results.get(sid)
        st = ((res or {}).get("payload") or {}).get("station") if isinstance(res, Mapping) else None
        if isinstance(st, Mapping):
            return st
    return None


def figures_for_study(study: Mapping[str, Any], run: Mapping[str, Any], *, inventory: Mapping[str, Any] | None = None,
                      skipped: list[dict[str, Any]] | None = None, formats: Any = DEFAULT_FORMATS) -> list[dict[str, Any]]:
    """Every figure the plan names, drawn from the run, numbered in report order (the site map first).

    ``study`` is a study dict or Study (version 3: ``steps[i].outputs``), ``run`` a run dict or StudyRun and
    ``inventory`` what the site map is drawn from: a workspace's inventory (its ``recon``) or the site
    reconnaissance itself (``point`` and ``stations``). A figure
    that cannot be drawn (its step not established, its payload lacking the series it needs) is left out,
    logged, and, when ``skipped`` is a list, recorded there as ``{kind, step, reason}``. A later step drawn
    into an earlier figure (a trend test's line on the annual maxima) is in that figure's ``shows_steps``, and its
    own figure is skipped as "shown in Figure n". ``formats`` (see the module doc) are made from one layout.
    """
    formats = _figure_formats(formats)
    if hasattr(study, "to_dict"):
        study = study.to_dict()
    if not isinstance(study, Mapping):
        raise InputError.bad_value("study", type(study).__name__, "a study dict (Study.to_dict())")
    results = _results(run)
    params = dict((study.get("problem") or {}).get("params") or {})
    pending = None
    if _prefetched:  # the digest costs a pass over the payloads: only when something was drawn ahead
        key = _key(study, results, inventory, formats)
        with _prefetch_lock:
            pending = _prefetched.pop(key, None)
    if pending is not None:
        try:
            figs, missed_ahead = pending.result()
        except Exception:  # noqa: BLE001 - drawn again here, so that the real error is raised here
            log.debug("the prefetched figures failed; drawing them again", exc_info=True)
        else:
            if skipped is not None:
                skipped.extend(missed_ahead)
            return figs
    missed: list[dict[str, Any]] = []
    figs = _draw_all(study, results, params, inventory, missed, formats)
    if skipped is not None:
        skipped.extend(missed)
    return figs


# figures drawn ahead (see prefetch), by a digest of what they are drawn from; a few at most
_prefetched: "OrderedDict[str, Any]" = OrderedDict()
_prefetch_lock = threading.Lock()
_prefetch_pool: Any = None
_PREFETCH_KEEP = 4


def _key(study: Mapping[str, Any], results: Mapping[str, Any], inventory: Any, formats: tuple[str, ...]) -> str:
    blob = json.dumps([study.get("problem"), study.get("steps"), results, inventory, formats], default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def prefetch(study: Mapping[str, Any], run: Mapping[str, Any], *, inventory: Mapping[str, Any] | None = None,
             formats: Any = DEFAULT_FORMATS) -> bool:
    """Start drawing the study's figures in the background, as soon as its run is final (the workers draw them
    while the crew interprets, criticises and writes); a later :func:`figures_for_study` on the same study, run
    and inventory takes them instead of drawing. A run that changes in between (a fix round) changes the digest,
    and its figures are drawn afresh. Does nothing (returns False) without worker processes."""
    global _prefetch_pool
    formats = _figure_formats(formats)
    if not workers.serving():
        return False
    if hasattr(study, "to_dict"):
        study = study.to_dict()
    results = _results(run)
    key = _key(study, results, inventory, formats)
    params = dict((study.get("problem") or {}).get("params") or {})
    with _prefetch_lock:
        if key in _prefetched:
            return True
        if _prefetch_pool is None:
            from concurrent.futures import ThreadPoolExecutor

            _prefetch_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="aquascope-prefetch")

        def job() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
            missed: list[dict[str, Any]] = []
            return _draw_all(study, results, params, inventory, missed, formats), missed

        _prefetched[key] = _prefetch_pool.submit(job)
        while len(_prefetched) > _PREFETCH_KEEP:
            _prefetched.popitem(last=False)
    return True


def _draw_all(study: Mapping[str, Any], results: Mapping[str, Any], params: Mapping[str, Any],
              inventory: Mapping[str, Any] | None, skipped: list[dict[str, Any]],
              formats: tuple[str, ...] = DEFAULT_FORMATS) -> list[dict[str, Any]]:
    started = time.perf_counter()

    # 1. what the plan names, in report order: a job to draw, or the reason it cannot be
    slots: list[dict[str, Any]] = []
    if inventory:
        slots.append({"kind": SITE_MAP, "payload": inventory, "caption": None,
                      "ctx": {"step": None, "params": params, "inventory": inventory}, "deps": []})
    steps = [st for st in (study.get("steps") or []) if isinstance(st, Mapping)]
    hosts: dict[tuple[str, str], int] = {}  # (step id, figure kind) -> the slot whose figure draws it in
    for step in steps:
        sid = step.get("id")
        for output in figure_outputs(step):
            kind = str(output.get("id") or "")
            res = results.get(sid)
            slot: dict[str, Any] = {"kind": kind, "caption": output.get("caption"), "ctx": {"step": sid}}
            slots.append(slot)
            if not isinstance(res, Mapping):
                slot["reason"] = f"step {sid} has no result in the run"
                continue
            if res.get("status") != "ok":
                why = res.get("failed_reason") or res.get("status")
                slot["reason"] = f"step {sid} was not established ({why})"
                continue
            maker = FIGURE_KINDS.get(kind)
            deps = _dependents(steps, results, sid, maker.folds if maker else {})
            slot.update(payload=res.get("payload"), deps=deps,
                        ctx={"step": sid, "tool": res.get("tool"), "arguments": res.get("arguments") or {},
                             "caption": output.get("caption"), "title": step.get("title"), "params": params, "inventory": inventory or {}, "dependents": deps,
                             "station": _station_of(step, results)})
            if (sid, kind) in hosts:
                slot["host"] = hosts[sid, kind]  # drawn into an earlier figure, if that one is drawn
            for d in deps:
                replaced = maker.folds.get(d["tool"]) if maker else None
                if replaced:
                    hosts.setdefault((d["step"], replaced), len(slots) - 1)

    # 2. draw every figure that can be drawn (side by side in the workers), then those whose host failed
    def draw_slots(idx: list[int]) -> None:
        # the slowest kinds first, so that no worker is left with a long figure at the end
        idx = sorted(idx, key=lambda i: -_COST.get(slots[i]["kind"], _COST_DEFAULT))
        jobs = [(slots[i]["kind"], slots[i]["payload"], slots[i]["ctx"], formats) for i in idx]
        # a specification is a fraction of a drawing: not worth a worker's round trip
        done = [_render_job(*j) for j in jobs] if formats == ("spec",) else workers.run(_render_job, jobs)
        for i, (status, value) in zip(idx, done):
            if status == "error":  # draw it here, so the real exception is raised
                value, status = (*_render(slots[i]["kind"], slots[i]["payload"], slots[i]["ctx"], formats), 0.0), "ok"
            if status == "ok":
                kind, seconds = slots[i]["kind"], value[4]
                if formats != ("spec",):
                    _COST[kind] = seconds if kind not in _COST else 0.5 * (_COST[kind] + seconds)
                value = value[:4]
            slots[i]["drawn" if status == "ok" else "reason"] = value

    draw_slots([i for i, s in enumerate(slots) if "reason" not in s and "host" not in s])
    draw_slots([i for i, s in enumerate(slots) if "host" in s and "drawn" not in slots[s["host"]]])

    # 3. number the drawn figures in report order
    out: list[dict[str, Any]] = []
    number_of: dict[int, int] = {}
    for i, s in enumerate(slots):
        if "drawn" in s:
            fig = _entry(s["kind"], len(out) + 1, s["caption"], s["ctx"].get("step"), s["drawn"], s["ctx"])
            number_of[i] = fig["number"]
            maker = FIGURE_KINDS[s["kind"]]
            fig["shows_steps"] += [d["step"] for d in s.get("deps") or [] if maker.folds.get(d["tool"])]
            out.append(fig)
    for i, s in enumerate(slots):
        if "drawn" in s:
            continue
        reason = s.get("reason") or (f"shown in Figure {number_of[s['host']]}" if s.get("host") in number_of else "")
        log.info("figure %s of step %s skipped: %s", s["kind"], s["ctx"].get("step"), reason)
        skipped.append({"kind": s["kind"], "step": s["ctx"].get("step"), "reason": reason})
    log.debug("%d figures drawn in %.2f s", len(out), time.perf_counter() - started)
    return out
