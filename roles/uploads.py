"""The user's uploads read together with the request: what each table holds, and what is still unknown.

A table's header says most of what it holds (:mod:`aquascope_core.data._tables`); the request can say the
rest. A column read as a water level becomes a groundwater level when the question is about a well or an
aquifer (or the groundwater playbook was chosen); a column with no unit takes the unit the request states
for it ("my peaks are in cfs"). What neither says stays a question that names the header read and the forms
that work: the Consultant asks it, or under "just go" declines naming it. Nothing is guessed.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from aquascope_core.errors import InputError
from aquascope_core.tools.context import table_entry
from roles import reading

__all__ = ["reconcile", "upload_questions", "GROUNDWATER_WORDS"]

GROUNDWATER_WORDS = r"\b(?:groundwater|ground water|aquifer|wells?|bore ?holes?|piezomet\w*|water table|gwl)\b"
# A unit the request names for the user's data: "in cfs", "values are m3/s", "levels in metres".
_UNIT_WORDS = (
    (r"\bm3/s\b", "m3/s"), (r"\bft3/s\b", "ft3/s"), (r"\bl/s\b", "l/s"), (r"\bkcfs\b", "kcfs"),
    (r"\bmet(?:re|er)s? above (?:sea level|datum)\b|\bm a\.?s\.?l\.?\b|\bmasl\b", "m a.s.l."),
    (r"\b(?:in|are) met(?:re|er)s\b|\bin m\b", "m"), (r"\b(?:in|are) feet\b|\bin ft\b", "ft"),
)
_FLOWS = {"m3/s", "ft3/s", "l/s", "kcfs"}
_HEIGHTS = {"m", "m a.s.l.", "ft"}


def _content(entry: Mapping[str, Any]) -> Any:
    from aquascope_core.tools.context import _content as content

    return content(entry)


def _stated_unit(text: str) -> str | None:
    low = reading._rewrite(text)  # cfs, cumecs... in one spelling
    for pattern, unit in _UNIT_WORDS:
        if re.search(pattern, low):
            return unit
    return None


def reconcile(tables: Mapping[str, Mapping[str, Any]], text: str, playbook_id: str | None) -> dict[str, Any]:
    """The tables re-read with what the request says of them (a new entry only where something changed)."""
    out = dict(tables)
    groundwater = playbook_id == "groundwater_decline" or re.search(GROUNDWATER_WORDS, text.lower()) is not None
    unit = _stated_unit(text)
    for name, entry in tables.items():
        variables = entry.get("variables") or []
        if len(variables) != 1 or "parameters" in variables[0]:
            continue  # several value columns or a table of samples: the header must say
        v = variables[0]
        options = dict(entry.get("options") or {})
        if groundwater and v.get("variable") == "water_level" and "variable" not in options:
            options["variable"] = "groundwater_level"
        if v.get("unit") in (None, "unknown") and "unit" not in options and unit is not None:
            kind = options.get("variable") or v.get("variable")
            fits = unit in _FLOWS if kind in ("discharge", "peak_discharge", "annual_max_discharge") else \
                unit in _HEIGHTS if kind in ("groundwater_level", "water_level") else False
            if fits:
                options["unit"] = unit
        if options != dict(entry.get("options") or {}):
            try:
                new = table_entry(name, _content(entry), **options)
            except InputError:
                continue  # the table as first read stands; its own questions remain
            new["read_from_request"] = {k: options[k] for k in ("variable", "unit") if k in options
                                        and k not in (entry.get("options") or {})}
            out[name] = new
    return out


def _usable(entry: Mapping[str, Any]) -> list[str]:
    """The columns of a table whose variable and unit are both known (no question is open about them)."""
    questions = entry.get("questions") or []
    return [str(v.get("column")) for v in entry.get("variables") or []
            if v.get("unit") not in (None, "unknown")
            and not any(f"column {v.get('column')!r}".lower() in q.lower() for q in questions)]


def upload_questions(tables: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The open questions that stop a study, in the Consultant's question form: those of a table none of whose
    columns can be read yet. A table with a readable column goes ahead; its other columns are left unused (the
    ingest's questions stay in the table entry for the record)."""
    qs = []
    for name, entry in tables.items():
        if _usable(entry):
            continue
        for q in entry.get("questions") or []:
            if "unit of column" in q:
                q += "; or say it in the reply, for example \"the values are in cfs\""
            qs.append({"field": f"upload:{name}", "question": f"{name}: {q}", "options": None, "default": None})
    return qs
