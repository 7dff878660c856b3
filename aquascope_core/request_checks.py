"""Values a request states that no study can take: each named with the range that is valid.

:func:`meaningless_values` reads a problem text for a return period of zero or below (or of one year or
less: every year reaches it), an exceedance probability over 1 (or over 100 %) or of zero, a catchment area
of zero, and a date after today; each problem is ``{kind, stated, valid}`` so the crew asks about it
instead of dropping a sign or clipping a value. It reads only what the text states: an absent value is
not a problem (defaults cover it).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

__all__ = ["meaningless_values", "describe"]

_NUM = r"([-−]?\s?\d+(?:[.,]\d+)?)"
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")


def _num(raw: str) -> float:
    return float(raw.replace("−", "-").replace(" ", "").replace(",", "."))


def _return_periods(low: str) -> list[dict[str, Any]]:
    out = []
    for m in re.finditer(r"(?<![\w.])" + _NUM + r"\s*-?\s*(?:years?|yrs?|yr)\s*(?:-\s*)?(?:flood|return|event|storm|peak|"
                         r"design|flow|discharge|low flow|drought|recurrence)", low):
        T = _num(m.group(1))
        if T <= 1:
            out.append({"kind": "return_period", "stated": m.group(0).strip(),
                        "valid": "a return period is a number of years greater than 1 (for example 2, 10, 100 or 500)"})
    for m in re.finditer(r"\breturn period (?:of\s+)?" + _NUM, low):
        if _num(m.group(1)) <= 1:
            out.append({"kind": "return_period", "stated": m.group(0).strip(),
                        "valid": "a return period is a number of years greater than 1 (for example 2, 10, 100 or 500)"})
    for m in re.finditer(r"\b1\s*(?:in|/)\s*" + _NUM + r"(?:\s*-?\s*years?)?", low):
        if _num(m.group(1)) <= 1:
            out.append({"kind": "return_period", "stated": m.group(0).strip(),
                        "valid": "\"1 in N\" needs N greater than 1 (for example 1 in 100)"})
    return out


def _probabilities(low: str) -> list[dict[str, Any]]:
    out = []
    for m in re.finditer(_NUM + r"\s*(%|percent|per cent)?\s*(?:annual\s+)?(?:aep\b|annual exceedance probability|"
                         r"exceedance probability|annual chance|chance|probability)", low):
        p = _num(m.group(1))
        pct = bool(m.group(2))
        if not (0 < p < 100 if pct else 0 < p < 1):
            out.append({"kind": "probability", "stated": m.group(0).strip(),
                        "valid": "an annual exceedance probability lies between 0 and 1 (0 % and 100 %), for example "
                                 "0.01 or 1 % for the 100-year flood"})
    for m in re.finditer(r"\bprobability (?:of\s+)?" + _NUM + r"(?!\s*%)", low):
        if not 0 < _num(m.group(1)) < 1:
            out.append({"kind": "probability", "stated": m.group(0).strip(),
                        "valid": "a probability lies between 0 and 1, for example 0.01"})
    return out


def _areas(low: str) -> list[dict[str, Any]]:
    out = []
    for m in re.finditer(_NUM + r"\s*(?:km2|km²|sq\.? ?km|square kilomet(?:re|er)s?|mi2|mi²|sq\.? ?mi(?:les?)?|square miles?|"
                         r"ha|hectares?)(?![a-z0-9])", low):
        if _num(m.group(1)) <= 0:
            out.append({"kind": "area", "stated": m.group(0).strip(),
                        "valid": "a catchment area is greater than 0 (for example 250 km2)"})
    return out


def _future_dates(low: str, today: dt.date) -> list[dict[str, Any]]:
    out = []
    seen: set[str] = set()
    pats = [(r"\b((?:19|20|21)\d{2})-(0[1-9]|1[0-2])-([0-3]\d)\b", lambda m: dt.date(int(m[1]), int(m[2]), min(int(m[3]), 28))),
            (r"\b(" + "|".join(_MONTHS) + r")\s+((?:19|20|21)\d{2})\b",
             lambda m: dt.date(int(m[2]), _MONTHS.index(m[1]) + 1, 1)),
            (r"\b(?:in|of|during|since|for|as of|on)\s+((?:19|20|21)\d{2})\b(?!\s*(?:-|–|to)\s*\d)", lambda m: dt.date(int(m[1]), 1, 1))]
    for rx, make in pats:
        for m in re.finditer(rx, low):
            try:
                day = make(m)
            except ValueError:
                continue
            # a date after today (a whole year counts from its first day)
            if day > today and m.group(0) not in seen and not re.search(r"\b(?:by|until|till|up to|horizon|projection|scenario|"
                                                                          r"climate)\b[^.?!]{0,30}$", low[:m.start()]):
                seen.add(m.group(0))
                out.append({"kind": "date", "stated": m.group(0).strip(),
                            "valid": f"a record can be studied up to today ({today.isoformat()}): name a date on or "
                                     "before it"})
    return out


def meaningless_values(text: str, today: dt.date | str | None = None) -> list[dict[str, Any]]:
    """The values the text states that no study can take: ``{kind, stated, valid}`` each (see the module)."""
    if not isinstance(text, str) or not text.strip():
        return []
    if isinstance(today, str):
        today = dt.date.fromisoformat(today[:10])
    today = today or dt.date.today()
    low = " ".join(text.lower().replace("–", "-").replace("—", "-").split())
    return _return_periods(low) + _probabilities(low) + _areas(low) + _future_dates(low, today)


def describe(problems: list[dict[str, Any]]) -> str:
    """One sentence per problem: what was stated and what would be valid."""
    return " ".join(f"\"{p['stated']}\" cannot be used: {p['valid']}." for p in problems)
