"""What the gym checks in the document delivered: the report file as written, not the plan behind it.

:func:`check_deliverable` reads ``report.md`` from the artifact store (the file a person opens) and asks:

- ``faithful``: every number in the prose and the tables of every section but References, the Appendix, the Glossary and the Sign-off
  (citations and commands) is held by the evidence (:func:`evidence`): the payloads of the steps that
  passed their gates, the gate rows (the value each gate saw and its threshold), the approved plan, the
  inventory and the brief; numbers are matched at their written precision by :mod:`aquascope_core.verify`.
  Each key number's basis must also name a step that passed its gates;
- ``critique_clean``: the Critic's checks all passed and the Author's final check was clean;
- ``sections``: the report has every section a consulting report carries (a declined one: the summary
  with the reason, and the appendix);
- ``figures``: every figure the report shows (``![caption](name)``) is an artifact whose file exists. The gym's
  crew delivers each figure as its specification (``figures/*.spec.json``, the "spec" figure format: what the
  figure plots, built from the step's payload, with no layout and no pixels) rather than paying for the
  drawing; such a figure counts as present only when its file reads, it plots at least one mark, and each
  step it shows (``shows_steps``) passed its gates in the run. Reports without figures score ``figures`` as
  ``None`` (nothing listed), not as a pass;
- ``grade``: the grade the report states (``None`` when it states none).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Mapping

from aquascope_core.verify import number_pool, verify

__all__ = ["evidence", "check_deliverable", "report_sections", "REQUIRED_SECTIONS", "DECLINED_SECTIONS", "UNCHECKED"]

REQUIRED_SECTIONS = ("summary", "problem", "site_data", "methodology", "results", "limitations", "recommendations",
                     "references", "appendix")
DECLINED_SECTIONS = ("summary", "appendix")
UNCHECKED = ("References", "Appendix", "Glossary", "Sign-off")  # citations, versions, commands, definitions, blank fields
_HEADING = re.compile(r"^## (?P<title>.+?)\s*$", re.M)
_FIGURE = re.compile(r"!\[[^\]]*\]\((?P<name>[^)\s]+)\)")


def evidence(ws: Mapping[str, Any], *, declined: bool = False) -> set[float]:
    """The numbers a report may state, from a workspace dict (see the module doc).

    A declined report states the playbook's rule it failed ("no record of at least 10 years within 50 km"):
    its evidence adds the playbook's own text, the whole reconnaissance (radius, reach) and what the playbook's
    conditions derived from it (record years, the return-period cap), nothing else."""
    run = ws.get("run") or {}
    results = (run.get("results") or {}).values()
    ok_payloads = [r.get("payload") for r in results if r.get("status") == "ok"]
    gates = [r.get("gates") for r in results]
    study = {k: v for k, v in (ws.get("study") or {}).items() if k != "results"}
    inventory = {k: v for k, v in (ws.get("inventory") or {}).items() if k != "recon"}
    recon = (ws.get("inventory") or {}).get("recon") or {}
    brief = ws.get("brief") or {}
    spec: list[Any] = []
    if brief.get("playbook"):
        from aquascope_core import playbooks

        spec = playbooks.load(brief["playbook"]).get("intake", [])  # labels and defaults the brief quotes
    rules: list[Any] = []
    if declined:
        from aquascope_core import playbooks

        rules = [recon]
        if brief.get("playbook"):
            pb = playbooks.load(brief["playbook"])
            try:  # what the playbook's conditions saw: the derived record years, caps and reaches
                derived = playbooks.scope_for(recon, playbooks.coerce_intake(pb, brief.get("intake")), pb)["derived"]
            except Exception:  # noqa: BLE001 - an unreadable scope leaves those numbers unproven, not the run broken
                derived = None
            rules += [pb, derived]
    decision = (ws.get("findings") or {}).get("decision") or {}
    from aquascope_core.report_units import restated_numbers

    # the same evidence as the Critic's: the record's dates and ages, the asked unit's conversions, and every flow
    # or area restated by the units rule
    return number_pool(ok_payloads, gates, study, inventory, recon.get("stations"), recon.get("context"),
                       brief.get("intake"), brief.get("derived"), spec, run.get("summary"), ws.get("ledger"),
                       decision.get("record"), decision.get("conversion"), decision.get("companion_conversions"),
                       restated_numbers(ok_payloads), *rules)


def report_sections(md: str) -> list[tuple[str, str]]:
    """(heading, body) for each ``## `` section of a Markdown report, in order."""
    heads = list(_HEADING.finditer(md or ""))
    return [(h.group("title"), md[h.end(): heads[i + 1].start() if i + 1 < len(heads) else len(md)])
            for i, h in enumerate(heads)]


def _report_file(ws: Mapping[str, Any], store_root: str | Path | None) -> tuple[str | None, str | None]:
    from aquascope_core.workspace import ArtifactStore

    ref = next((a for a in ws.get("artifacts") or [] if a.get("name") == "report.md"), None)
    if ref is None:
        return None, "the crew wrote no report.md"
    if store_root is None:
        return None, "no artifact store was given to read report.md from"
    try:
        return ArtifactStore(store_root).path(ref).read_text(encoding="utf-8"), None
    except Exception as exc:  # noqa: BLE001 - a missing file is a finding, not a crash
        return None, f"report.md is listed but cannot be read: {exc}"


SPEC_SUFFIX = ".spec.json"


def _spec_problem(store: Any, ws: Mapping[str, Any], name: str, results: Mapping[str, Any]) -> str | None:
    """Why the figure specification ``name`` does not stand for a figure (None when it does)."""
    ref = next((a for a in ws.get("artifacts") or [] if a.get("name") == name), None)
    try:
        spec = json.loads(store.path(ref).read_text(encoding="utf-8"))
    except Exception as exc:  # noqa: BLE001 - an unreadable specification is a missing figure
        return f"its specification cannot be read: {type(exc).__name__}"
    if not isinstance(spec, Mapping):
        return "its specification is not an object"
    marks = spec.get("marks")
    if isinstance(marks, bool) or not isinstance(marks, int) or marks < 1:
        return "it plots no data"
    steps = [s for s in spec.get("shows_steps") or [spec.get("step")] if s]
    bad = [s for s in steps if (results.get(s) or {}).get("status") != "ok"]
    if bad:
        return "its step " + ", ".join(map(str, bad)) + " did not pass its gates"
    return None


def check_deliverable(ws: Mapping[str, Any], store_root: str | Path | None) -> dict[str, Any]:
    """The deliverable's scores for one workspace dict whose artifacts live under ``store_root``."""
    from aquascope_core.workspace import ArtifactStore

    report = ws.get("report") or {}
    md, problem = _report_file(ws, store_root)
    declined = bool(report.get("declined"))
    out: dict[str, Any] = {"report_file": md is not None, "problem": problem}
    ids = [s.get("id") for s in report.get("sections") or []]
    need = DECLINED_SECTIONS if declined else REQUIRED_SECTIONS
    missing = [s for s in need if s not in ids]
    if md is not None:
        titles = [t for t, _ in report_sections(md)]
        want = [s.get("title") for s in report.get("sections") or [] if s.get("id") in need]
        missing += [f"heading {t!r} not in report.md" for t in want if t not in titles]
    out["sections_ok"] = not missing
    out["missing_sections"] = missing
    if md is None:
        out.update({"faithful": False, "unmatched": [], "checked": 0, "figures": None, "critique_clean": False,
                    "grade": None})
        return out
    pool = evidence(ws, declined=declined)
    text = "\n".join(body for title, body in report_sections(md) if not title.startswith(UNCHECKED))
    from aquascope_core.deliverables.flood_inputs import historical_source

    # a record's source quoted as it names itself (a manual, its year and pages), as the Author's check has it
    quoted = {historical_source(r.get("payload") or {}) for r in ((ws.get("run") or {}).get("results") or {}).values()}
    for q in sorted((q for q in quoted if q), key=len, reverse=True):
        text = text.replace(q, " ")
    v = verify(text, pool)
    results = (ws.get("run") or {}).get("results") or {}
    bad_basis = [kn.get("basis") for kn in report.get("key_numbers") or []
                 if kn.get("basis") and (results.get(str(kn["basis"]).split(".")[0]) or {}).get("status") != "ok"]
    out["faithful"] = v["ok"] and not bad_basis
    out["checked"] = v["checked"]
    out["unmatched"] = [{"number": u["number"], "sentence": u["sentence"][:200]} for u in v["unmatched"]]
    out["basis_not_established"] = bad_basis
    shown = sorted(set(_FIGURE.findall(md)))
    if shown:
        store = ArtifactStore(store_root)
        have = {}
        for a in ws.get("artifacts") or []:
            try:
                have[a.get("name")] = store.path(a).is_file()
            except Exception:  # noqa: BLE001 - listed but absent
                have[a.get("name")] = False
        missing_figs = [n for n in shown if not have.get(n) and not have.get(Path(n).name)]
        results = (ws.get("run") or {}).get("results") or {}
        specs = [n for n in shown if n.endswith(SPEC_SUFFIX) and n not in missing_figs]
        for n in specs:
            why = _spec_problem(store, ws, n, results)
            if why:
                missing_figs.append(f"{n} ({why})")
        out["figures"] = {"shown": len(shown), "present": len(shown) - len(missing_figs), "missing": missing_figs,
                          "by_spec": len(specs)}
    else:
        out["figures"] = None
    crit = ws.get("critique") or {}
    out["critique_clean"] = bool(report.get("critique_ok")) if not declined else None
    if not declined and crit and not crit.get("ok"):
        out["critique_clean"] = False
    out["grade"] = ((ws.get("findings") or {}).get("decision") or {}).get("grade")
    return out
