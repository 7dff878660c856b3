"""Follow-ups after the report: a question answered from the workspace, or a change planned again.

``classify(ws, text)`` reads the words (keyless rules; a model may only confirm what they allow):

- a **change** asks for something the study did not do: a return period it did not compute, another
  decision, "redo", "instead", "exclude", "use" ... with an intake the playbook can take;
- a **question** asks about what the study holds ("what was the largest annual maximum?", "what is the
  50-year flood?" when the 50-year level was computed).

``answer(ws, text)`` answers a question from the results only: a T-year level the fits computed, an extreme
of a series a step produced, or the key number whose label the question names. Every number in the
answer is checked against the evidence pool; a question the results cannot answer says so and names the
change that would answer it.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from aquascope_core.verify import verify

__all__ = ["classify", "answer"]

_CHANGE_WORDS = re.compile(r"\b(redo|re-?run|re-?do|recompute|re-?plan|instead|change|switch|exclude|drop|remove|"
                           r"add|include|use|try|repeat|what if|could you (?:re|use|run)|please (?:re|use|run))\b", re.I)
_QUESTION_START = re.compile(r"^\s*(what|which|when|where|how|why|is|are|was|were|does|do|did|can|could|should|"
                             r"tell me|give me|show me)\b", re.I)
_LARGEST = re.compile(r"\b(largest|highest|biggest|maximum|max|greatest|peak)\b", re.I)
_SMALLEST = re.compile(r"\b(smallest|lowest|least|minimum|min)\b", re.I)
_STOP = {"what", "was", "is", "the", "a", "an", "of", "in", "at", "for", "this", "that", "here", "there", "it", "which",
         "how", "much", "many", "does", "did", "do", "are", "were", "me", "tell", "give", "show", "study", "site",
         "value", "number", "please", "and", "to", "be", "by", "from", "on", "with"}


_FIT_LABELS = {"gev_lmoments": "GEV (L-moments)", "lp3_moments": "log-Pearson III (moments of the logs)",
               "gumbel_lmoments": "Gumbel (L-moments)", "glo_lmoments": "generalised logistic (L-moments)",
               "gev_mle": "GEV (maximum likelihood)"}


_SAME = {"long": "length", "lengthy": "length", "biggest": "largest", "highest": "largest", "greatest": "largest",
         "lowest": "smallest", "least": "smallest", "maxima": "maximum", "max": "maximum", "flow": "discharge",
         "average": "mean", "big": "area", "size": "area", "trends": "trend", "trending": "trend"}


def _words(text: str) -> set[str]:
    out = set()
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        if w in _STOP or len(w) < 2:
            continue
        w = _SAME.get(w, w)
        out.add(w[:-1] if w.endswith("s") and len(w) > 3 and not w.endswith("ss") else w)
    return out


def _covers(question: set[str], label: set[str]) -> int:
    """How many of the question's words the label has; 0 unless it has more than half of them."""
    hit = len(question & label)
    return hit if question and hit * 2 > len(question) else 0


def _flood_levels(ws: Any) -> list[tuple[str, Mapping[str, Any]]]:
    out = []
    for sid, r in ((ws.run or {}).get("results") or {}).items():
        p = r.get("payload") or {}
        if r.get("status") == "ok" and isinstance(p.get("return_periods"), list):
            out.append((sid, p))
    return out


def classify(ws: Any, text: str) -> dict[str, Any]:
    """``{"kind": "question" | "change", "change": {intake...}, "why": str}``."""
    from roles.consultant import _return_period, read_intake

    playbook = (ws.brief or {}).get("playbook")
    change = read_intake(playbook, text) if playbook else {}
    current = (ws.brief or {}).get("intake") or {}
    change = {k: v for k, v in change.items() if current.get(k) != v}
    t = _return_period(text)
    if t is not None:
        computed = any(float(t) in [float(x) for x in p["return_periods"]] for _, p in _flood_levels(ws))
        if computed and not _CHANGE_WORDS.search(text):
            return {"kind": "question", "change": {}, "why": f"the {t:g}-year level was computed"}
    asks = text.strip().endswith("?") or bool(_QUESTION_START.search(text))
    if change and (_CHANGE_WORDS.search(text) or not asks):
        return {"kind": "change", "change": change, "why": "the words ask for an intake the study did not use"}
    if change and asks and t is not None:
        return {"kind": "change", "change": change, "why": f"the {t:g}-year level was not computed"}
    if asks:
        return {"kind": "question", "change": {}, "why": "a question about the results"}
    return {"kind": "change" if change else "question", "change": change, "why": "no question word"}


def _fmt(x: float) -> str:
    from roles.specialists.common import fmt

    return fmt(x)


def answer(ws: Any, text: str) -> dict[str, Any]:
    """``{"text", "basis": [paths], "answered": bool}``; every number in ``text`` is held by a result."""
    from roles.consultant import _return_period
    from roles.critic import evidence_pool

    results = (ws.run or {}).get("results") or {}
    t = _return_period(text)
    lines: list[str] = []
    basis: list[str] = []
    if t is not None:
        for sid, p in _flood_levels(ws):
            rps = [float(x) for x in p["return_periods"]]
            if float(t) not in rps:
                continue
            i = rps.index(float(t))
            for name, fit in (p.get("fits") or {}).items():
                levels = (fit or {}).get("return_levels") or []
                if i < len(levels) and isinstance(levels[i], (int, float)):
                    label = fit.get("label") or _FIT_LABELS.get(name) or name.replace("_", " ")
                    lines.append(f"The {t:g}-year level by {label} is {_fmt(levels[i])} "
                                 f"{p.get('unit') or ''}".rstrip() + ".")
                    basis.append(f"{sid}.fits.{name}.return_levels[{i}]")
    extreme = bool(_LARGEST.search(text) or _SMALLEST.search(text))
    if not lines and not extreme:
        lines, basis = _from_key_numbers(ws, text, min_score=2)
    if not lines and extreme:
        want_max = not _SMALLEST.search(text)  # "the smallest annual maximum" asks for a minimum
        words = _words(text)
        best = None
        for sid, r in results.items():
            p = r.get("payload") or {}
            if r.get("status") != "ok" or not isinstance(p.get("values"), list) or not p["values"]:
                continue
            label = str(r.get("tool", "")).replace("_", " ")
            score = len(words & _words(f"{label} {p.get('label') or ''} {p.get('variable') or ''}".replace("_", " ")))
            if best is None or score > best[0]:
                best = (score, sid, p, label)
        if best is not None and best[0] > 0:
            _, sid, p, label = best
            vals = [v for v in p["values"] if isinstance(v, (int, float))]
            v = max(vals) if want_max else min(vals)
            i = p["values"].index(v)
            when = ""
            for key in ("years", "water_years", "dates", "index"):
                if isinstance(p.get(key), list) and i < len(p[key]):
                    when = f" ({key.rstrip('s').replace('_', ' ')} `{p[key][i]}`)"
                    break
            lines.append(f"The {'largest' if want_max else 'smallest'} value of the {label} is {_fmt(v)} "
                         f"{p.get('unit') or ''}".rstrip() + f"{when}.")
            basis.append(f"{sid}.values[{i}]")
    if not lines:
        words = _words(text)
        best = None
        for sid, r in results.items():
            summary = (r.get("payload") or {}).get("summary") or r.get("summary")
            if r.get("status") != "ok" or not isinstance(summary, str):
                continue
            score = _covers(words, _words(f"{r.get('tool', '')} {summary}".replace("_", " ")))
            if score and (best is None or score > best[0]):
                best = (score, sid, summary)
        if best is not None:
            lines.append(best[2][0].upper() + best[2][1:].rstrip(".") + ".")
            basis.append(f"{best[1]}.summary")
    if not lines:
        lines, basis = _from_key_numbers(ws, text, min_score=1)
    if not lines:
        return {"text": "The study's results do not hold that. Ask for a change (for example another return period "
                        "or another record) and the crew will plan it for your review.", "basis": [], "answered": False}
    body = " ".join(lines)
    check = verify(body, evidence_pool(ws))
    if not check["ok"]:  # never state what no result holds
        return {"text": "The study's results do not hold that answer in a form that can be checked.", "basis": [],
                "answered": False}
    return {"text": body + " (from " + ", ".join(f"`{b}`" for b in basis) + ")", "basis": basis, "answered": True}


def _from_key_numbers(ws: Any, text: str, *, min_score: int) -> tuple[list[str], list[str]]:
    """The key numbers whose labels share the most words with the question (at least ``min_score``)."""
    words = _words(text)
    scored = []
    for f in (ws.findings or {}).get("findings") or []:
        label = _words(str(f.get("label") or ""))
        if ("largest" in words and "smallest" in label) or ("smallest" in words and "largest" in label):
            continue
        score = _covers(words, label)
        if score >= min_score and isinstance(f.get("value"), (int, float)):
            scored.append((score, f))
    if not scored:
        return [], []
    top = max(s for s, _ in scored)
    lines, basis = [], []
    for _, f in [x for x in scored if x[0] == top][:3]:
        label = str(f.get("label") or "the value")
        lines.append(f"{label[0].upper()}{label[1:]}: {_fmt(f['value'])} {f.get('unit') or ''}".rstrip() + ".")
        basis.append(str(f.get("basis")))
    return lines, basis
