"""Specialist knowledge per problem kind: which numbers matter and what the answer is.

Each kind's module (``roles/specialists/<kind>.py``) declares ``HARVESTERS`` (tool id -> function listing
the key numbers of that tool's payload, each anchored at the path its value sits at, such as
``s3.fits.gev_lmoments.return_levels[5]``), and optionally ``decide``, ``recommendations`` and
``DATA_REQUESTS``. The Interpreter, the Critic and the Author quote only numbers a result holds.
"""

from __future__ import annotations

import importlib
from typing import Any, Mapping, Sequence

from roles.specialists.common import generic_decision, grade_for_study

__all__ = ["KINDS", "harvest", "key_numbers", "decide", "grade_for_study", "recommendations", "data_requests",
           "module_for", "step_tables"]

KINDS = ("flood_risk", "ungauged_flow", "groundwater_decline", "drought_status", "supply_reliability",
         "irrigation_feasibility", "water_quality")


def module_for(kind: str | None):
    """The specialist module of a problem kind, or None."""
    if kind not in KINDS:
        return None
    try:
        return importlib.import_module(f"roles.specialists.{kind}")
    except ModuleNotFoundError:
        return None


def _harvesters() -> dict[str, Any]:
    from roles.specialists import common

    out = dict(common.HARVESTERS)
    for kind in KINDS:
        mod = module_for(kind)
        for tool, fn in getattr(mod, "HARVESTERS", {}).items():
            out.setdefault(tool, fn)
    return out


def harvest(step_id: str, tool: str, payload: Mapping[str, Any], context: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    fn = _harvesters().get(tool)
    return fn(step_id, payload, context or {}) if fn and payload else []


def key_numbers(run: Mapping[str, Any], context: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The key numbers of every established step of a run, in step order."""
    out: list[dict[str, Any]] = []
    for sid, res in (run.get("results") or {}).items():
        if res.get("status") == "ok":
            out.extend(harvest(sid, res.get("tool"), res.get("payload") or {}, context))
    return out


def decide(kind: str | None, brief: Mapping[str, Any], study: Mapping[str, Any], run: Mapping[str, Any],
           kns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    from roles.specialists import trend

    if trend.is_trend_study(brief, study):  # a trend question: the trend is the headline, whatever the kind
        return trend.decide(brief, study, run, kns)
    fn = getattr(module_for(kind), "decide", None)
    return fn(brief, study, run, kns) if fn else generic_decision(brief, study, run, kns)


def recommendations(kind: str | None, run: Mapping[str, Any], decision: Mapping[str, Any]) -> list[str]:
    from roles.specialists import trend

    fn = trend.recommendations if trend.is_trend_decision(decision) else getattr(module_for(kind), "recommendations", None)
    recs = list(fn(run, decision)) if fn else []
    for sid, r in (run.get("results") or {}).items():
        if r.get("status") == "failed":
            from aquascope_core.registry import label_of

            recs.append(f"Step {sid} ({label_of(r.get('tool'))}) is not established; see the limitations before relying on "
                        "what depends on it.")
    return recs


def data_requests(kind: str | None) -> list[dict[str, Any]]:
    return [dict(r) for r in getattr(module_for(kind), "DATA_REQUESTS", [])]


def step_tables(tool: str, payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The tables a report shows for one established step (``TABLES`` of the kinds' modules)."""
    from roles.specialists import common

    makers = dict(common.TABLES)
    for kind in KINDS:
        makers.update({k: v for k, v in getattr(module_for(kind), "TABLES", {}).items() if k not in makers})
    fn = makers.get(tool)
    return fn(payload) if fn and payload else []
