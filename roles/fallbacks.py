"""After a failed gate, a fallback step proposed by the model for the problem kind.

The Analysts give the model the failed step (its tool, arguments, the gates with the values they saw, the
reason), the steps before it, the tools the kind may use (roles.knowledge) and the kind's planning knowledge.
The reply is one step or a few, in the Methodologist's step shape; each is validated like any composed step
(the tool exists and serves the kind, the arguments fit, references point backwards, the method is
defensible at the site). Steps that do not validate are dropped; nothing is run that did not pass. The
runner asks at most ``max_replans`` times per failed step.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from aquascope_core.catalogue import compact, validate_step
from aquascope_core.gates import CHECKS
from aquascope_core.study import Step, Study

__all__ = ["proposer", "FALLBACK_ROLE"]

FALLBACK_ROLE = "analysts"


def proposer(ws: Any, model: Any) -> Callable[[Step, Any, Study], list[Step]]:
    """The runner's ``propose`` callback for this workspace and model."""
    from roles.knowledge import tools_for, with_knowledge
    from roles.prompts import FALLBACK_SYSTEM

    kind = (ws.brief or {}).get("playbook")
    allowed = set(tools_for(kind))
    catalogue = [row for row in compact(kind) if not allowed or row["id"] in allowed]
    system = with_knowledge(FALLBACK_SYSTEM, kind, "planning")

    def propose(step: Step, result: Any, study: Study) -> list[Step]:
        earlier = [s.id for s in study.steps[: study.steps.index(step)]]
        site = (study.plan or {}).get("site_context") or (((ws.inventory or {}).get("recon") or {}).get("context"))
        rejected: list[str] = []

        def check(obj: Any) -> list[dict[str, Any]]:
            raw = obj.get("steps") if isinstance(obj, Mapping) else None
            if not isinstance(raw, list) or not raw:
                raise ValueError("the reply needs 'steps': a list of one or more replacement steps")
            out: list[dict[str, Any]] = []
            for n, st in enumerate(raw[:3], 1):
                if not isinstance(st, Mapping) or not st.get("tool"):
                    continue
                spec = {k: v for k, v in st.items() if k in ("tool", "arguments", "expects", "depends_on", "method",
                                                              "rationale", "title")}
                spec["id"] = f"{step.id}_fb{n}"
                if allowed and spec["tool"] not in allowed:
                    rejected.append(f"{spec['tool']} is not a tool a {kind} study uses")
                    continue
                errs = validate_step(spec, earlier=earlier + [s["id"] for s in out], site=site)
                if errs:
                    rejected.extend(errs)
                    continue
                out.append(spec)
            if not out:
                raise ValueError("no proposed step validates: " + "; ".join(rejected[:6]))
            return out

        payload = {"failed_step": step.to_dict(), "reason": getattr(result, "failed_reason", None),
                   "gates": [dict(g) for g in (getattr(result, "gates", None) or [])],
                   "earlier_steps": [s.to_dict() for s in study.steps[: study.steps.index(step)]],
                   "catalogue": catalogue, "gate_checks": sorted(CHECKS)}
        steps = model.call_json(ws, FALLBACK_ROLE, system, payload, check)
        if not steps:
            ws.event(FALLBACK_ROLE, "fallback_not_proposed", {"rejected": rejected[:6]}, step=step.id)
            return []
        study.plan.setdefault("notes", []).append(
            f"step {step.id} failed ({getattr(result, 'failed_reason', '')}); the model proposed "
            + ", ".join(f"{s['id']} ({s['tool']})" for s in steps) + " in its place, validated before it ran")
        return [Step.from_dict(s) for s in steps]

    return propose
