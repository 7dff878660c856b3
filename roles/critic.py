"""The Critic: checks the draft against the results before anything is written for the user.

Keyless checks, each a row ``{check, passed, detail}``:

- ``numbers_in_results``: every number in the draft is held by an established result, a gate
  row, the approved plan, the inventory or the brief (``verify.verify``); the ones that are not
  are listed with their sentences;
- ``findings_resolve``: every finding's basis path resolves and holds the finding's value;
- ``decision_in_answer``: the decision's value is stated in the answer;
- ``gates_on_every_step``: every step that ran has gate rows.

Every failed check becomes a fix for the Author; what the run did not establish is listed.
"""

from __future__ import annotations

from typing import Any, Mapping

from aquascope_core.paths import PathError
from aquascope_core.verify import number_pool, numbers_in, matches, verify
from aquascope_core.workspace import Workspace
from roles.interpreter import resolve_basis

__all__ = ["critic", "evidence_pool", "not_established"]

ROLE = "critic"


def evidence_pool(ws: Workspace) -> set[float]:
    """The numbers a report may state: established payloads, gate rows, the plan, the inventory, the brief."""
    run = ws.run or {}
    ok_payloads = [r.get("payload") for r in (run.get("results") or {}).values() if r.get("status") == "ok"]
    gates = [r.get("gates") for r in (run.get("results") or {}).values()]
    study = dict(ws.study or {})
    study.pop("results", None)
    inventory = {k: v for k, v in (ws.inventory or {}).items() if k != "recon"}
    recon = (ws.inventory or {}).get("recon") or {}
    brief = ws.brief or {}
    intake_spec = []
    if brief.get("playbook"):
        from aquascope_core import playbooks

        intake_spec = playbooks.part(brief["playbook"], "intake", [])  # the questions' labels and defaults
    from aquascope_core.report_units import restated_numbers

    return number_pool(ok_payloads, gates, study, inventory, recon.get("stations"), recon.get("context"),
                       brief.get("intake"), brief.get("derived"), intake_spec, run.get("summary"), ws.ledger,
                       ((ws.findings or {}).get("decision") or {}).get("record"),
                       ((ws.findings or {}).get("decision") or {}).get("conversion"),  # roles.asked: the asked unit
                       ((ws.findings or {}).get("decision") or {}).get("companion_conversions"),
                       restated_numbers(ok_payloads))  # a flow or area restated by the units rule


def not_established(ws: Workspace) -> list[dict[str, Any]]:
    out = []
    steps = {s["id"]: s for s in (ws.study or {}).get("steps", [])}
    for sid, r in ((ws.run or {}).get("results") or {}).items():
        if r.get("status") != "ok":
            out.append({"step": sid, "tool": r.get("tool"), "title": (steps.get(sid) or {}).get("title") or r.get("tool"),
                        "status": r.get("status"), "optional": bool(r.get("optional")),
                        "reason": r.get("failed_reason") or r.get("status")})
    return out


def critic(ws: Workspace, *, model: Any = None, draft: Mapping[str, Any] | None = None) -> Workspace:
    """Write ``ws.critique`` for the Interpreter's draft (or ``draft``)."""
    ws.status = "critique"
    findings = ws.findings or {}
    draft = draft if draft is not None else findings.get("draft") or {}
    text = "\n".join([draft.get("answer", "")] + list(draft.get("claims") or []))
    pool = evidence_pool(ws)
    checks = []
    v = verify(text, pool)
    checks.append({"check": "numbers_in_results", "passed": v["ok"],
                   "detail": f"{v['checked']} numbers checked" + (
                       "; not held by any result: " + "; ".join(f"{u['number']} in \"{u['sentence']}\"" for u in v["unmatched"])
                       if v["unmatched"] else ""),
                   "unmatched": v["unmatched"]})
    bad = []
    for f in findings.get("findings", []):
        try:
            value = resolve_basis(ws.run or {}, f["basis"])
        except PathError as exc:
            bad.append(f"{f['basis']}: {exc}")
            continue
        if not isinstance(value, (int, float)) or (f.get("value") is not None and abs(float(value) - float(f["value"])) >
                                                   1e-9 * max(1.0, abs(float(value)))):
            bad.append(f"{f['basis']} holds {value!r}, the finding says {f.get('value')!r}")
    checks.append({"check": "findings_resolve", "passed": not bad,
                   "detail": f"{len(findings.get('findings', []))} findings" + ("; " + "; ".join(bad) if bad else "")})
    decision = findings.get("decision") or {}
    if decision.get("value") is not None:
        stated = numbers_in(draft.get("answer", ""))
        from aquascope_core.report_units import restated_numbers

        same = {float(decision["value"]), *restated_numbers({"unit": decision.get("unit"), "v": decision["value"]})}
        ok = any(matches(n, same) for n in stated)  # the value, or the value restated by the units rule
        checks.append({"check": "decision_in_answer", "passed": ok,
                       "detail": "the decision's value is stated in the answer" if ok else
                       "the answer does not state the decision's value"})
    no_gates = [sid for sid, r in ((ws.run or {}).get("results") or {}).items()
                if r.get("status") in ("ok", "failed") and not r.get("gates")]
    checks.append({"check": "gates_on_every_step", "passed": not no_gates,
                   "detail": "every step that ran has gates" if not no_gates else
                   "no gates on " + ", ".join(no_gates)})
    failed = [c["check"] for c in checks if not c["passed"]]
    issues = []
    for c in checks:
        if c["passed"]:
            continue
        if c["check"] == "numbers_in_results":
            for u in c["unmatched"]:
                issues.append({"section": "summary", "severity": "blocking", "problem": f"{u['number']} is in no result",
                               "fix": f"drop or correct the sentence: {u['sentence']}", "sentence": u["sentence"]})
        else:
            issues.append({"section": "summary", "severity": "major", "problem": c["detail"],
                           "fix": "state only what the results hold"})
    ws.critique = {"ok": not failed, "checks": checks, "failed": failed, "issues": issues,
                   "not_established": not_established(ws), "plan_notes": list((ws.study or {}).get("plan", {}).get("notes") or []),
                   "written_by": "keyless"}
    ws.event(ROLE, "critique", {"ok": not failed, "failed": failed})
    return ws
