"""A declined study keeps its study file: the brief, what was found at the site, and the decline.

:func:`declined_study` makes the version-3 study of a decline (no steps; ``plan.declined`` with the reason and
the stage that declined, ``problem`` with the question, the site, the playbook and the intake, and a short
inventory of the stations within reach). :func:`replay_decline` replays it with no model: a decline by a
playbook is planned again from a fresh reconnaissance of the same site with the same intake, and says whether
the same sentence comes back; a decline before a playbook was chosen (the reading of the question) is reported
as recorded, since no engine step makes it.
"""

from __future__ import annotations

from typing import Any, Mapping

from aquascope_core.errors import DeclinedError
from aquascope_core.study import Study

__all__ = ["declined_study", "replay_decline", "is_declined"]


def _stations(inventory: Mapping[str, Any], n: int = 5) -> list[dict[str, Any]]:
    out = []
    for d in (inventory.get("datasets") or [])[:n]:
        held = [v.get("variable") for v in d.get("variables") or [] if v.get("usable")]
        out.append({"name": d.get("name"), "source": d.get("source"), "station_id": d.get("station_id"),
                    "distance_km": d.get("distance_km"), "held": held})
    return out


def declined_study(*, study_id: str | None, question: str, site: Mapping[str, Any], reason: str,
                   playbook: str | None = None, intake: Mapping[str, Any] | None = None,
                   inventory: Mapping[str, Any] | None = None, radius_km: float | None = None,
                   stage: str | None = None, title: str | None = None) -> Study:
    """The study file of a decline (version 3, no steps)."""
    inventory = inventory or {}
    problem = {"text": question, "site": {"lat": site.get("lat"), "lon": site.get("lon")},
               **({"playbook": playbook} if playbook else {}), **({"intake": dict(intake)} if intake else {}),
               **({"radius_km": radius_km} if radius_km is not None else {})}
    plan = {"playbook": playbook, "declined": True, "declined_reason": reason,
            "declined_by": stage or ("playbook" if playbook else "brief"),
            "inventory": {"stations": _stations(inventory), "notes": list(inventory.get("notes") or [])}}
    return Study(steps=[], version=3, title=title or "Study declined", problem=problem, plan=plan, id=study_id)


def is_declined(study: Study | Mapping[str, Any]) -> bool:
    s = study if isinstance(study, Study) else Study.from_dict(study)
    return bool((s.plan or {}).get("declined"))


def replay_decline(study: Study | Mapping[str, Any], *, recon: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Replay a declined study: ``{declined, reason, recorded, same, replayed}``.

    ``replayed`` is False when the decline came from the reading of the question or from the plan's reviewer
    (nothing in the engine makes it: the recorded reason stands);
    otherwise the playbook is planned again at the site (``recon`` given, or a fresh ``assess_site``)."""
    from aquascope_core import playbooks

    s = study if isinstance(study, Study) else Study.from_dict(study)
    plan, problem = s.plan or {}, s.problem or {}
    recorded = plan.get("declined_reason") or ""
    pb = plan.get("playbook") or problem.get("playbook")
    if not pb or plan.get("declined_by") not in (None, "playbook"):
        return {"declined": True, "reason": recorded, "recorded": recorded, "same": True, "replayed": False}
    if recon is None:
        from aquascope_core.recon import assess_site

        site = problem.get("site") or {}
        recon = assess_site(site.get("lat"), site.get("lon"), radius_km=problem.get("radius_km") or 50.0,
                            problem=playbooks.load(pb).get("problem") or pb,
                            return_period=(problem.get("intake") or {}).get("return_period"))
    try:
        playbooks.plan(pb, recon, problem.get("intake") or {}, question=problem.get("text") or "")
    except DeclinedError as exc:
        # the recorded reason may carry what the crew added after the playbook's sentence (a data request)
        return {"declined": True, "reason": exc.message, "recorded": recorded,
                "same": exc.message == recorded or recorded.startswith(exc.message.rstrip(".")), "replayed": True}
    return {"declined": False, "reason": "", "recorded": recorded, "same": False, "replayed": True}
