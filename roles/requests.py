"""Data requests: a playbook decline whose reason is data the user could bring parks the study.

A small rule table per playbook matches the decline's sentence. A match turns the decline into a request
``{what, why, effect, continue_without, grade_without, playbook}``: the study waits (status ``waiting``,
``ws.pending_request``) instead of ending. The user answers by

- bringing a table (Studio.add_table at waiting): the Scout inventories it and the plan is made again;
- stating the missing value in words ("the area is 120 km2"): read into the intake, planned again;
- "continue without": the rule's ``continue_without`` intake is applied and planned again, with the grade
  held to ``grade_without``; a rule whose ``continue_without`` is None has no continuation and the decline
  stands, now with what would have made the study possible;
- ignoring it: the decline stands.

A plan that stands without some data but would do better with it (``plan.asks``: the site's basin characteristics
for a regression peak) makes a request of the same shape, :func:`plan_request`, marked ``stands_without``: the
study waits for the data as above, and "continue without" plans again with the asks answered
(``brief.asks_answered``, the steps that asked), so the plan goes on to review as it stands.

``continue_without`` is either a fixed intake or a function of the playbook's scope (for example the largest
return period the record supports).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

__all__ = ["RULES", "request_for", "plan_request", "can_continue", "is_continue_without", "apply_continue_without"]

_CONTINUE = re.compile(r"\b(continue|carry on|go on|proceed|go ahead)\b.*\bwithout\b|^\s*without\b|\bskip (it|that)\b"
                       r"|\bcontinue without\b", re.I)


@dataclass(frozen=True)
class Rule:
    match: str                               # a regular expression on the decline sentence
    what: str
    effect: str
    continue_without: Mapping[str, Any] | Callable[[Mapping[str, Any]], Mapping[str, Any] | None] | None = None
    grade_without: str | None = None
    without: str = ""                        # what continuing without it means, in words


def _largest_supported_return_period(scope: Mapping[str, Any]) -> dict[str, Any] | None:
    d = scope.get("derived") or {}
    cap = d.get("return_period_cap")
    if not cap:
        return None
    return {"return_period": int(math.floor(float(cap)))}


# how a gauge's record reaches a study: fetched once from the service, or uploaded (the peak file as USGS writes it)
BRING_PEAKS = ("`aquascope fetch --lat .. --lon .. --what peaks` online, or upload the USGS peak file "
               "(WATSTORE or RDB)")
_RECORD = ("a discharge record for the site or a gauge near it (daily flows or annual peaks: `aquascope fetch --lat .. "
           "--lon .. --what daily,peaks` online, or upload a CSV or XLSX, or the USGS peak file, WATSTORE or RDB)")
RULES: dict[str, list[Rule]] = {
    "flood_risk": [
        Rule(r"lies beyond", "a longer flood record: the gauge's annual peaks (" + BRING_PEAKS + "), or historical "
             "floods before the gauge",
             "the return period asked for could be estimated from the record",
             continue_without=_largest_supported_return_period, grade_without="B",
             without="estimate the largest return period the record supports instead"),
        Rule(r"No discharge record of at least 10 years", _RECORD + ", or the catchment area at the site in km2",
             "an at-site (or, with the area, a regional) flood frequency analysis"),
        Rule(r"The nearest discharge record", "a discharge record for a catchment of similar size to the site's",
             "an at-site flood frequency analysis that represents the site"),
    ],
    "drought_status": [
        Rule(r"No precipitation or streamflow record|too short", "a monthly or daily precipitation or streamflow "
             "record of at least 15 years (CSV or XLSX)", "standardised drought indices at the site"),
    ],
    "groundwater_decline": [
        Rule(r"groundwater level record", "the well's level record (date and level or depth to water; CSV or XLSX)",
             "a trend test on the levels and the standardised groundwater index"),
    ],
    "irrigation_feasibility": [
        Rule(r"precipitation record", "a daily precipitation record of at least 5 years (CSV or XLSX)",
             "the crop's water demand season by season"),
        Rule(r"No crop was named", "the crop (for example maize)", "the crop's water demand"),
        Rule(r"No planting month", "the month of planting", "the season's water demand"),
    ],
    "supply_reliability": [
        Rule(r"storage-yield analysis", "an inflow record of at least 20 years",
             "a storage-yield analysis of the reservoir", continue_without={"storage_hm3": 0}, grade_without="B",
             without="assess the supply as run-of-river (no storage)"),
        Rule(r"No daily discharge record", _RECORD, "the reliability of the supply from the river"),
        Rule(r"No demand was stated", "the demand (a flow such as 0.5 m3/s, or a volume per year)",
             "the reliability of that demand"),
    ],
    "ungauged_flow": [
        Rule(r"catchment area at the site is needed", "the catchment area at the site in km2",
             "flows transferred or simulated for the site's area"),
        Rule(r"gauged catchment\(s\)", "a precipitation and potential evapotranspiration record for the catchment, "
             "or a flow record", "a rainfall-runoff simulation or a transfer for the site"),
    ],
    "water_quality": [
        Rule(r"water-quality samples", "a table of samples (date, parameter, value, unit; CSV or XLSX)",
             "exceedances, the water quality index and trends"),
    ],
}


def request_for(playbook: str | None, reason: str, scope: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The request a decline becomes, or None when the decline is not for want of data the user could bring."""
    for rule in RULES.get(playbook or "", []):
        if re.search(rule.match, reason or "", re.I):
            cont = rule.continue_without(scope or {}) if callable(rule.continue_without) else rule.continue_without
            return {"playbook": playbook, "what": rule.what, "why": reason, "effect": rule.effect,
                    "continue_without": dict(cont) if cont else None,
                    "without": rule.without if cont else "",
                    "grade_without": rule.grade_without if cont else None}
    return None


def _said(text: str) -> str:
    """An ask's first sentence without its "Data request:" label: what it asks for, in a few words."""
    return re.sub(r"^Data request:\s*", "", str(text)).split(". ")[0].rstrip(".")


def plan_request(playbook: str | None, asks: list[Mapping[str, Any]]) -> dict[str, Any]:
    """The request the plan's asks make (each ``{step, text, data}``, its text the whole request in words, its
    ``data`` what it asks for, structured: ``what`` (in a few words), ``needs`` (the intake the answer fills),
    ``characteristics`` (each ``{code, unit}``), ``regions``, ``where`` (where a user finds them), ``without``
    and ``grade_without``)."""
    data = [dict(a.get("data") or {}) for a in asks]
    what = "; ".join(str(d.get("what") or _said(a["text"])) for a, d in zip(asks, data))
    grades = sorted(d["grade_without"] for d in data if d.get("grade_without"))
    without = "; ".join(dict.fromkeys(str(d["without"]) for d in data if d.get("without")))
    return {"playbook": playbook, "what": what,
            "why": " ".join(a["text"] for a in asks),
            "effect": "a better estimate than the plan makes without it", "continue_without": None,
            "stands_without": True, "asks": [a["text"] for a in asks], "steps": [a.get("step") for a in asks],
            "needs": [d["needs"] for d in data if d.get("needs")],
            "characteristics": [c for d in data for c in d.get("characteristics") or []],
            "regions": next((d["regions"] for d in data if d.get("regions")), None),
            "where": next((d["where"] for d in data if d.get("where")), None),
            "without": "carry out the plan as it stands" + (f", which gives {without}" if without else ""),
            "grade_without": grades[-1] if grades else None}


def can_continue(request: Mapping[str, Any] | None) -> bool:
    """Whether the study can go on without what the request asks for: a continuation to apply, or a plan that
    stands without the data."""
    return bool(request) and (bool(request.get("continue_without")) or bool(request.get("stands_without")))


def is_continue_without(text: Any) -> bool:
    return isinstance(text, str) and bool(_CONTINUE.search(text))


def apply_continue_without(brief: Mapping[str, Any], request: Mapping[str, Any]) -> dict[str, Any]:
    """The brief with the request's continuation applied (stated intake, an assumption, the grade ceiling)."""
    from aquascope_core import playbooks

    if request.get("stands_without"):  # the plan as it stands: its asks answered, so it goes on to review
        out = dict(brief)
        out["asks_answered"] = [*(brief.get("asks_answered") or []), *(request.get("steps") or [])]
        said = request.get("what") or "; ".join(_said(a) for a in request.get("asks") or [])
        out["assumptions"] = [*(brief.get("assumptions") or []),
                              f"Continued without the data the plan asked for: {said}"
                              + (f" (the study will {request['without']})" if request.get("without") else "")]
        out.pop("declined_reason", None)
        return out
    cont = dict(request.get("continue_without") or {})
    stated = {**(brief.get("intake_stated") or {}), **cont}
    out = dict(brief)
    out["intake_stated"] = stated
    out["intake"] = playbooks.coerce_intake(brief["playbook"], stated)
    note = (f"Continued without {request['what']}: {request.get('without') or 'with the defaults'} "
            f"({', '.join(f'{k} {v}' for k, v in cont.items())}).")
    out["assumptions"] = [*(brief.get("assumptions") or []), note]
    if request.get("grade_without"):
        out["grade_ceiling"] = request["grade_without"]
    out.pop("declined_reason", None)
    return out
