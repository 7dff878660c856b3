"""A plan's methodology: numbered lines, each linked to the steps it describes.

A line is ``{"text": str, "steps": [step ids]}``; ``steps: []`` is the overall approach (it describes no one
step and always stays). A line that quotes a step's arguments also keeps its ``template``, in which
``{{ steps.<id>.<path> }}`` (optionally ``| percent`` or ``| count``) stands for that step's value, so the text is
rendered again whenever the step changes. A line marked ``kind: "review"`` records what a reviewer changed.

The link makes an edit of the plan rewrite its methodology deterministically (:func:`follow`): a line whose steps
are all gone goes, a line that templates a changed argument reads the new value, a line whose own step changed an
argument it does not template is written again from the step's catalogue description (:func:`step_line`), and a
step nobody describes gets that line too.

A plain string is a line of a study written before the link existed: it is read as unlinked (it stays through
every edit and describes no step; a playbook's plan is regenerated linked on its first edit).
"""

from __future__ import annotations

import copy
import re
from typing import Any, Iterable, Mapping, Sequence

from aquascope_core.errors import InputError
from aquascope_core.paths import PathError, get_path

__all__ = ["text", "texts", "links", "fill", "line", "lines_for", "follow", "step_line", "prefixed", "STEP_REF"]

# {{ steps.s3.arguments.confidence | percent }}
STEP_REF = re.compile(r"\{\{\s*steps\.(?P<id>[A-Za-z0-9_]+)\.(?P<path>[^}|]+?)\s*(?:\|\s*(?P<filter>\w+)\s*)?\}\}")
FILTERS = ("percent", "count")
# arguments a step's own line does not quote: where the data come from, and the seed of a resampling
_NOT_QUOTED = ("source", "station_id", "unit", "station", "basis", "seed", "variable")


def text(item: Any) -> str:
    """The words of one line (a linked line or a plain string)."""
    return str(item.get("text") or "") if isinstance(item, Mapping) else str(item)


def texts(lines: Iterable[Any] | None) -> list[str]:
    """The words of every line, in order (what a report numbers)."""
    return [text(x) for x in lines or []]


def links(item: Any) -> list[str] | None:
    """The step ids a line describes; None for an unlinked (legacy plain-string) line."""
    if isinstance(item, Mapping) and isinstance(item.get("steps"), list):
        return [str(s) for s in item["steps"]]
    return None


def _format(value: Any, how: str | None) -> str:
    if how == "percent" and isinstance(value, (int, float)) and not isinstance(value, bool):
        pct = value * 100
        return f"{pct:.0f} %" if float(pct).is_integer() else f"{pct:.3g} %"
    if how == "count" and isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else (f"{value:.1f}" if abs(value) >= 10 else f"{value:.3g}")
    if isinstance(value, (list, tuple)):
        return ", ".join(_format(v, how) for v in value)
    return str(value)


def _argument_default(step: Mapping[str, Any], path: str) -> Any:
    """The catalogue default of ``arguments.<name>`` when the step does not state it."""
    from aquascope_core.catalogue import TOOLS, schema

    name = path.split(".", 1)[1] if path.startswith("arguments.") else None
    if not name or step.get("tool") not in TOOLS:
        raise KeyError(path)
    row = schema(step["tool"]).get(name)
    if row is None or row.get("default") is None:
        raise KeyError(path)
    return row["default"]


def fill(template: str, steps: Mapping[str, Mapping[str, Any]]) -> str:
    """``template`` with every ``{{ steps.<id>.<path> }}`` replaced by that step's value (its catalogue default
    when the step leaves the argument out); InputError naming the placeholder when neither holds it."""
    def sub(m: re.Match) -> str:
        sid, path, how = m.group("id"), m.group("path").strip(), m.group("filter")
        if how and how not in FILTERS:
            raise InputError.bad_value("methodology filter", how, "one of " + ", ".join(FILTERS))
        step = steps.get(sid)
        if step is None:
            raise InputError(f"the methodology line {template[:60]!r} quotes step {sid}, which is not in the plan",
                             argument="methodology", value=sid)
        try:
            return _format(get_path(step, path), how)
        except PathError:
            try:
                return _format(_argument_default(step, path), how)
            except KeyError:
                raise InputError(f"the methodology line {template[:60]!r} quotes {path} of step {sid}, which the "
                                 "step does not hold and its tool has no default for", argument="methodology",
                                 value=path) from None

    return STEP_REF.sub(sub, template)


def line(words: str, steps: Sequence[str], by_id: Mapping[str, Mapping[str, Any]] | None = None,
         **extra: Any) -> dict[str, Any]:
    """One linked line; ``words`` that quote steps (``{{ steps.<id>... }}``) are kept as its template."""
    out: dict[str, Any] = {"text": words, "steps": list(steps)}
    if STEP_REF.search(words):
        out["template"] = words
        out["text"] = fill(words, by_id or {})
    return {**out, **extra}


def _by_id(steps: Iterable[Any]) -> dict[str, dict[str, Any]]:
    out = {}
    for st in steps:
        d = st.to_dict() if hasattr(st, "to_dict") else dict(st)
        out[str(d["id"])] = d
    return out


def lines_for(raw: Iterable[Mapping[str, Any]], steps: Iterable[Any]) -> list[dict[str, Any]]:
    """A playbook's lines (``{say, steps}``, scope placeholders already filled) for the steps the plan holds: a
    line whose steps are all absent (an optional step the site cannot serve) is left out."""
    by_id = _by_id(steps)
    out = []
    for item in raw:
        ids = [str(s) for s in item.get("steps") or []]
        if ids and not any(s in by_id for s in ids):
            continue
        out.append(line(str(item["say"]).strip(), [s for s in ids if s in by_id] if ids else [], by_id))
    return out


def step_line(step: Mapping[str, Any]) -> dict[str, Any]:
    """The line of a step no methodology line describes, from its catalogue tool and registry method, quoting
    the arguments it states (templated, so an edit of them re-renders it)."""
    from aquascope_core.catalogue import TOOLS
    from aquascope_core.registry import METHODS

    spec = TOOLS.get(step.get("tool") or "")
    method = METHODS.get(step.get("method") or "") or next(
        (METHODS[m] for m in (spec.methods if spec else ()) if m in METHODS), None)
    head = str(step.get("title") or (spec.purpose if spec else step.get("tool")) or "").rstrip(".")
    words = f"{head}: {method.label}" if method and method.label.lower() not in head.lower() else head
    if spec and spec.purpose and spec.purpose.rstrip(".").lower() != head.lower():
        words += f" ({spec.purpose.rstrip('.')[:1].lower()}{spec.purpose.rstrip('.')[1:]})"
    sid = str(step["id"])
    quoted = [f"{k.replace('_', ' ')} {{{{ steps.{sid}.arguments.{k} }}}}" for k, v in (step.get("arguments") or {}).items()
              if isinstance(v, (int, float, str, list)) and not isinstance(v, bool) and "{{" not in str(v)
              and k not in _NOT_QUOTED]
    gate = next((i for i, g in enumerate(step.get("expects") or [])
                 if isinstance(g, Mapping) and isinstance(g.get("return_period"), (int, float))), None)
    if gate is not None:
        quoted.append(f"read at the {{{{ steps.{sid}.expects[{gate}].return_period }}}}-year return period")
    if quoted:
        words += ", with " + ", ".join(quoted)
    return line(words + ".", [sid], {sid: dict(step)})


def _relinked(item: Mapping[str, Any], source: Mapping[str, Mapping[str, Any]],
              target: Mapping[str, Mapping[str, Any]]) -> dict[str, Any] | None:
    """The line linked to the target plan's steps: the same id when the step there is the same tool, else the
    target's steps of that tool that no source step of the same id accounts for; None when no link survives."""
    ids = links(item) or []
    new: list[str] = []
    rename: dict[str, str] = {}
    for sid in ids:
        tool = (source.get(sid) or target.get(sid) or {}).get("tool")
        if sid in target and (sid not in source or target[sid].get("tool") == tool):
            found = [sid]
        else:
            found = [t for t, st in target.items() if st.get("tool") == tool
                     and not (t in source and source[t].get("tool") == tool)]
        if found:
            rename[sid] = found[0]
        new += [f for f in found if f not in new]
    if ids and not new:
        return None
    out = {k: copy.deepcopy(v) for k, v in item.items()}
    out["steps"] = new
    if out.get("template") and rename:
        out["template"] = STEP_REF.sub(lambda m: m.group(0).replace(f"steps.{m.group('id')}.",
                                                                   f"steps.{rename.get(m.group('id'), m.group('id'))}.", 1),
                                       out["template"])
    return out


def _scalars(obj: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(obj, Mapping):
        return {k: v for key, val in obj.items() for k, v in _scalars(val, f"{prefix}.{key}").items()}
    if isinstance(obj, list) and any(isinstance(v, (Mapping, list)) for v in obj):
        return {k: v for i, val in enumerate(obj) for k, v in _scalars(val, f"{prefix}[{i}]").items()}
    return {prefix: obj}


def _quotes_changed(words: str, before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> bool:
    """Whether ``words`` quote a value of an argument or gate that changed from ``before`` to ``after``."""
    if before is None or before.get("tool") != after.get("tool"):
        return False
    a = _scalars({"arguments": after.get("arguments") or {}, "expects": after.get("expects") or []})
    b = _scalars({"arguments": before.get("arguments") or {}, "expects": before.get("expects") or []})
    for k, was in b.items():
        if a.get(k) == was:
            continue
        for v in was if isinstance(was, list) else [was]:
            if isinstance(v, bool) or not isinstance(v, (int, float, str)) or "{{" in str(v):
                continue
            forms = {_format(v, None), str(v)} | ({_format(v, "percent"), _format(v, "count")}
                                                  if isinstance(v, (int, float)) else set())
            if any(re.search(rf"(?<![\w.]){re.escape(f)}(?![\w]|\.\d)", words) for f in forms if f):
                return True
    return False


def follow(lines: Iterable[Any], source: Iterable[Any], target: Iterable[Any], *,
           previous: Iterable[Any] | None = None) -> list[Any]:
    """The methodology ``lines`` (written for the ``source`` steps) rewritten for the ``target`` steps (the edited
    plan). ``previous`` are the steps of the plan before the edit (default: ``source``).

    - a line linked to steps of which none remains goes (a step of the same tool under another id keeps it);
    - a line with a template is filled again from the target steps (a changed argument reads its new value);
    - a line without a template, linked to one step, that quotes the old value of an argument the edit changed
      is replaced by that step's own line (:func:`step_line`);
    - a target step new to the plan that no line describes gets its own line;
    - overall lines (``steps: []``) and unlinked plain strings stay as they are; review records go last."""
    src, tgt = _by_id(source), _by_id(target)
    prev = _by_id(previous) if previous is not None else src
    out: list[Any] = []
    review: list[Any] = []
    for item in lines:
        if links(item) is None:
            out.append(item)
            continue
        moved = _relinked(item, src, tgt)
        if moved is None:
            continue
        if moved.get("kind") == "review":
            review.append(moved)
            continue
        if moved.get("template"):
            try:
                moved["text"] = fill(moved["template"], tgt)
            except InputError:  # the edit took away a value the line quotes: the step says what it now does
                moved = step_line(tgt[moved["steps"][0]])
        elif len(moved["steps"]) == 1:
            sid = moved["steps"][0]
            if _quotes_changed(moved["text"], src.get(sid) or prev.get(sid), tgt[sid]):
                moved = step_line(tgt[sid])
        if not any(moved == o for o in out):
            out.append(moved)
    described = {s for item in out for s in (links(item) or [])}
    for sid, st in tgt.items():
        if sid not in described and sid not in prev and sid not in src:
            out.append(step_line(st))
    return out + review


def prefixed(lines: Iterable[Any], rename: Mapping[str, str]) -> list[Any]:
    """Lines whose step ids (and template references) follow ``rename`` (a companion's ids joining a plan)."""
    out = []
    for item in lines:
        if links(item) is None:
            out.append(item)
            continue
        d = copy.deepcopy(dict(item))
        d["steps"] = [rename.get(s, s) for s in d["steps"]]
        if d.get("template"):
            d["template"] = STEP_REF.sub(lambda m: m.group(0).replace(
                f"steps.{m.group('id')}.", f"steps.{rename.get(m.group('id'), m.group('id'))}.", 1), d["template"])
        out.append(d)
    return out
