"""Plan and run a playbook at a site the way the crew does, keyless, for the sites x branches tests.

    outcome = plan_and_run("flood_risk", 41.10, -74.96, intake={"return_period": 100})
    outcome.branch      # "at_site", or None when declined
    outcome.declined    # the decline sentence, or None
    outcome.run         # the StudyRun (None when declined or planned only)

Uploads are given as ``tables={"name.csv": bytes_or_text_or_path}`` and go through the same
``table_entry``/``DataContext`` path as the Studio's. A recon dict may be given instead of a site for
branches no embedded site reaches (a constructed recon, never a faked station).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from aquascope_core import playbooks
from aquascope_core.errors import DeclinedError
from aquascope_core.recon import assess_site
from aquascope_core.runner import StudyRun, run_study
from aquascope_core.study import Study
from aquascope_core.catalogue import callables
from aquascope_core.tools.context import DataContext, table_entry


@dataclass
class Outcome:
    recon: dict[str, Any]
    study: Study | None
    run: StudyRun | None
    declined: str | None

    @property
    def branch(self) -> str | None:
        return self.study.plan.get("branch") if self.study is not None else None


def plan_and_run(playbook: str, lat: float | None = None, lon: float | None = None, *,
                 intake: Mapping[str, Any] | None = None, tables: Mapping[str, Any] | None = None,
                 recon: Mapping[str, Any] | None = None, radius_km: float = 50.0, execute: bool = True) -> Outcome:
    entries = {name: table_entry(name, content) for name, content in (tables or {}).items()}
    site = {"lat": lat, "lon": lon} if lat is not None else None
    data = DataContext.from_tables(entries, site)
    if recon is None:
        pb = playbooks.load(playbook)
        extra = [data.uploads] if data.uploads is not None else []
        recon = assess_site(lat, lon, radius_km=radius_km, problem=pb.get("problem", playbook),
                            return_period=(intake or {}).get("return_period"), extra_sources=extra)
    try:
        study = playbooks.plan(playbook, recon, intake or {})
    except DeclinedError as exc:
        return Outcome(dict(recon), None, None, exc.message)
    run = run_study(study, callables=callables(data=data)) if execute else None
    return Outcome(dict(recon), study, run, None)
