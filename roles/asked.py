"""The answer as the request asked it: in the unit it names, and for every question it asks.

:func:`in_asked_unit` converts the headline through :mod:`aquascope_core.units` into the unit the request
names (``brief["answer_unit"]``; a decision derived from a record in another unit names it as ``record_unit``),
and a record of runoff depth (mm/d) into a discharge when the catchment
area is known; the answer leads with the converted value and says the record's unit and the conversion once.
:func:`companion_answers` writes the answer of each companion study of a compound request (from its own
steps) and names each question left unanswered, with why.
"""

from __future__ import annotations

from typing import Any, Mapping

from aquascope_core import units
from aquascope_core.errors import UnitError
from roles.specialists.common import fmt

__all__ = ["in_asked_unit", "companion_answers", "station_area_km2"]


def station_area_km2(inventory: Mapping[str, Any], station: Mapping[str, Any]) -> float | None:
    """The catchment area of the plan's station, as the inventory lists it."""
    sid = str(station.get("station_id") or "")
    rows = list(inventory.get("datasets") or []) + list((inventory.get("recon") or {}).get("stations") or [])
    for d in rows:
        if str(d.get("station_id") or "") == sid and d.get("area_km2"):
            return float(d["area_km2"])
    return float(station["area_km2"]) if station.get("area_km2") else None


def in_asked_unit(decision: dict[str, Any], brief: Mapping[str, Any], study: Mapping[str, Any],
                  inventory: Mapping[str, Any]) -> dict[str, Any]:
    """The decision with its headline also in the asked unit (``conversion`` holds the numbers used)."""
    value, unit = decision.get("value"), decision.get("unit")
    if value is None or not unit:
        return decision
    try:
        dim = units.dimension(unit)
    except UnitError:
        return decision
    asked = brief.get("answer_unit")
    target = asked if asked and units.UNITS.get(asked, ("",))[0] == "flow" else None
    if target is None and dim == "depth_rate":
        target = "m3/s"  # a runoff depth becomes a discharge when the area is known
    if target is None or dim not in ("flow", "depth_rate"):
        return decision
    # the record a derived headline rests on (an indicative peak in ft3/s from a record in m3/s): asked in the
    # headline's own unit, the answer still says so and names the record's unit
    record_unit = decision.get("record_unit") or unit
    if target == units.parse_unit(unit) and not (asked and units.parse_unit(record_unit) != target):
        return decision
    station = (study.get("plan") or {}).get("station") or {}
    area = station_area_km2(inventory, station) if dim == "depth_rate" else None
    try:
        factor = units.conversion_factor(unit, target, area_km2=area)
    except UnitError:
        if dim == "depth_rate":
            note = (f" The record is a runoff depth ({unit}); no catchment area is held for the gauge, so it is "
                    f"not given in {target}.")
            return {**decision, "answer": decision["answer"] + note}
        return decision
    band = decision.get("band") or {}
    conv = {"from_unit": unit, "to_unit": target, "factor": factor, "area_km2": area, "value": value * factor,
            "lower": band.get("lower") * factor if band.get("lower") is not None else None,
            "upper": band.get("upper") * factor if band.get("upper") is not None else None}
    how = (f"the record's runoff depth in {unit} times the catchment area of {fmt(area)} km2"
           if dim == "depth_rate" else f"the record's {record_unit}")
    lead = f"In {target}{', as asked' if asked else ''}: {fmt(conv['value'])} {target}"
    if conv["lower"] is not None and conv["upper"] is not None:
        lead += f" (band {fmt(conv['lower'])} to {fmt(conv['upper'])} {target})"
    lead += f", from {how}. "
    return {**decision, "answer": lead + decision["answer"], "conversion": conv}


def companion_answers(decision: dict[str, Any], brief: Mapping[str, Any], study: Mapping[str, Any],
                      run: Mapping[str, Any], inventory: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The decision with the answer of each companion study and each unanswered question appended."""
    from aquascope_core import playbooks
    from roles.specialists import decide, key_numbers

    plan = study.get("plan") or {}
    results = run.get("results") or {}
    extra, conversions = [], []
    asked = {c["playbook"]: c.get("question") for c in brief.get("questions_planned") or []}
    for comp in plan.get("companions") or []:
        pid = comp["playbook"]
        own = set(comp.get("steps") or [])
        sub = {**run, "results": {k: v for k, v in results.items() if k in own or not str(k).startswith(pid + "_")}}
        kns = key_numbers({**run, "results": {k: v for k, v in results.items() if k in own}}, {})
        pb = playbooks.load(pid)
        stated = {**(brief.get("intake_stated") or {}), **((brief.get("companion_intake") or {}).get(pid) or {})}
        cbrief = {**brief, "kind": pb.get("problem", pid), "playbook": pid,
                  "intake": playbooks.coerce_intake(pb, {k: v for k, v in stated.items()
                                                         if k in {q["name"] for q in pb.get("intake", [])}})}
        cstudy = {**study, "plan": {**plan, "branch": comp.get("branch"), "playbook": pid}}
        q = asked.get(pid)
        try:
            d = in_asked_unit(decide(cbrief["kind"], cbrief, cstudy, sub, kns), cbrief, cstudy, inventory or {})
            text = d.get("answer") or "not established"
            if d.get("conversion"):
                conversions.append(d["conversion"])
        except Exception as exc:  # noqa: BLE001 - a companion's answer never sinks the primary's
            text = f"not established ({exc})"
        extra.append(f"{'On ' + chr(34) + q + chr(34) if q else 'The ' + pid.replace('_', ' ') + ' study'}: {text}")
    for note in plan.get("notes") or []:
        if str(note).startswith("companion ") and " declined: " in str(note):
            pid, _, why = str(note)[len("companion "):].partition(" declined: ")
            q = asked.get(pid)
            extra.append(f"Not answered{' (' + chr(34) + q + chr(34) + ')' if q else ''}: the {pid.replace('_', ' ')} "
                         f"study could not be planned here: {why}")
    for same in brief.get("same_study") or []:
        extra.append(f"On \"{same['question']}\": the same {same['playbook'].replace('_', ' ')} study answers it; its "
                     "numbers are in the results tables below.")
    for na in brief.get("not_answered") or []:
        extra.append(f"Not answered (\"{na['question']}\"): {na['why']}.")
    if not extra:
        return decision
    return {**decision, "answer": decision["answer"] + " " + " ".join(extra),
            "companion_answers": extra, "companion_conversions": conversions}
