"""The questions inside one request, and the short answers for requests that ask for nothing yet.

:func:`split_questions` cuts a request into the questions it asks ("What is the 50-year flood and are we in
drought?" -> two), at question marks, semicolons and an "and"/"also"/"plus" that starts a new question (a
question word or an auxiliary after it), never inside one question ("floods and droughts" stays whole).
:func:`plan_parts` reads each part as the Consultant reads a request: the study it points to, or why none
answers it. :func:`is_help` and :func:`help_text` answer "help", an empty text and a one-word request with
what the crew can study, one example each. :func:`status_now` says when a question asks about the state of
the river or the weather now ("is the river unusually low right now?"): a drought or low-flow status.
"""

from __future__ import annotations

import re
from typing import Any

from aquascope_core import playbooks
from roles import reading

__all__ = ["split_questions", "plan_parts", "is_help", "help_text", "status_now", "EXAMPLES"]

# A word that starts a question (after "and", "also", a comma...).
_STARTS = (r"(?:what|what's|whats|how|is|are|was|were|will|would|can|could|should|does|do|did|has|have|which|when|"
           r"where|who|why|and then|also|plus|give|tell|estimate|compute|calculate|check|assess|find|show)")
_SPLIT = re.compile(r"\?+\s*|;\s*|(?<=[a-z0-9%)])\.\s+(?=[A-Z])|,?\s+(?:and|also|plus|as well as)\s+(?=" + _STARTS + r"\b)",
                    re.I)


def split_questions(text: str) -> list[str]:
    """The questions a request asks, in order (one element when it asks one)."""
    if not isinstance(text, str):
        return []
    parts = [p.strip(" ,.;:-") for p in _SPLIT.split(text.strip())]
    parts = [p for p in parts if p and len(re.findall(r"[A-Za-z]+", p)) >= 2]
    return parts or ([text.strip()] if text.strip() else [])


def plan_parts(text: str, primary: str | None) -> dict[str, list[dict[str, Any]]]:
    """Each further question of a compound request: ``{companions: [{playbook, question}], not_answered:
    [{question, why}], same_study: [{playbook, question}]}`` (the first question that names the primary study is
    the primary's; a later one of the same study is answered by it and named so)."""
    from roles.consultant import choose_playbook

    parts = split_questions(text)
    out: dict[str, list[dict[str, Any]]] = {"companions": [], "not_answered": [], "same_study": []}
    if len(parts) < 2:
        return out
    primary_taken = False
    for i, part in enumerate(parts):
        if i and primary and _states_primary_data(text, part, primary):
            continue  # "Basin characteristics: DRNAREA 64.0, ...": what the primary study reads, not a question
        limit = reading.out_of_scope(part)
        if limit is not None:
            out["not_answered"].append({"question": part, "why": f"it asks for {limit['topic']}, which needs "
                                        f"{limit['needs']}"})
            continue
        pid, _ = choose_playbook(part)
        if pid is None and status_now(part):
            pid = "drought_status"
        if pid is None:
            out["not_answered"].append({"question": part, "why": "it names no study the crew can do (say which, for "
                                        "example \"Is the catchment in drought?\")"})
        elif pid == primary and not primary_taken:
            primary_taken = True
        elif pid == primary:
            out["same_study"].append({"playbook": pid, "question": part})
        elif pid != primary and pid not in [c["playbook"] for c in out["companions"]]:
            out["companions"].append({"playbook": pid, "question": part})
    return out


def _states_primary_data(text: str, part: str, primary: str) -> bool:
    """A part that asks nothing (no question mark after it, no question word first) and states values the primary
    study's intake reads (its basin characteristics, its region, a return period): the primary's data."""
    from roles.consultant import read_intake

    if re.match(_STARTS + r"\b", part, re.I) or re.search(re.escape(part) + r"\s*\?", text):
        return False
    return bool(read_intake(primary, part))


EXAMPLES = {
    "flood_risk": "\"What is the 100-year design flood for a culvert here?\"",
    "drought_status": "\"Is the catchment in drought right now?\"",
    "groundwater_decline": "\"Is the groundwater level at my well falling?\" (with the well record)",
    "irrigation_feasibility": "\"Irrigation of 50 ha of maize planted in April\"",
    "supply_reliability": "\"Can we take 0.5 m3/s reliably for water supply?\"",
    "ungauged_flow": "\"Mean flow and Q95 at an ungauged site of 250 km2\"",
    "water_quality": "\"Does the river meet the aquatic-life guidelines?\" (with the samples)",
}
_HELP = re.compile(r"^\s*(?:help|\?+|h|hi|hello|hey|menu|options|what can you do\??|start|info|usage)\s*[.!?]*\s*$", re.I)


def is_help(text: Any) -> bool:
    """An empty text, "help" (or a greeting), or a request of one word."""
    if not isinstance(text, str) or not text.strip() or _HELP.match(text):
        return True
    return len(re.findall(r"[A-Za-z0-9%]+", text)) <= 1


def help_text(text: Any = None) -> str:
    """What the crew can study, one example each (the study a one-word request points to first)."""
    from roles.consultant import choose_playbook

    word = text.strip() if isinstance(text, str) else ""
    first = choose_playbook(word)[0] if word and not _HELP.match(word) else None
    order = [first] if first else []
    order += [p["id"] for p in playbooks.list_playbooks() if p["id"] != first]
    lines = "; ".join(f"{playbooks.load(pid).get('title', pid)}, e.g. {EXAMPLES.get(pid, '')}".rstrip(", e.g. ")
                      for pid in order)
    lead = (f"\"{word}\" alone is not enough to plan a study" if word and not _HELP.match(word)
            else "No question was asked yet")
    return (f"{lead}. The crew can study, at a site given by --lat/--lon: {lines}. Ask one of these as a "
            "sentence (with the numbers that matter, such as the return period or the demand).")


_LOW = r"\b(?:unusually |abnormally |very |too |really |exceptionally )?(?:low|dry|drier|lower than (?:normal|usual)|" \
       r"below (?:normal|average|usual)|shortage|scarce|short of water)\b"
_FLOOD = r"\bflood|\bpeak|\bhigh water\b|\bhigh flow"


def status_now(text: str) -> bool:
    """Whether the question asks the state now of a low river or a dry season (a drought or low-flow status)."""
    if not isinstance(text, str):
        return False
    low = text.lower()
    return bool(reading.now_words(text)) and re.search(_LOW, low) is not None and re.search(_FLOOD, low) is None \
        and re.search(r"groundwater|aquifer|\bwells?\b|borehole|water table", low) is None
