"""Checks on prose: every number a report states must be a number some result holds.

:func:`number_pool` gathers the numbers of the established results (payloads and gate rows), the
inventory and the brief. :func:`verify` finds the numbers in a text and matches each against the
pool at the precision it is written with: "35.2" is held by 35.24, "1,250" by 1,249.6, "25 %" by
0.25 or by 25. A number no result holds is reported with its sentence so the Author can drop or
fix that sentence.

Not checked as numbers: station ids and other long digit strings with a leading zero, dates
(``1945-01-01``), list numbering at the start of a line, and text inside backticks.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from typing import Any, Iterable, Mapping

__all__ = ["NUMBER", "numbers_in", "number_pool", "matches", "PoolIndex", "verify", "sentences", "significant_figures", "overprecise", "round_prose", "sig_text", "versus_text", "plural_counts"]

NUMBER = re.compile(r"(?<![\w.])(?P<sign>[-−])?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?P<pct>\s?%)?(?![\w])")
_DATE = re.compile(r"\b\d{4}-\d{2}(?:-\d{2})?\b")
_CODE = re.compile(r"`[^`]*`")
_LISTNUM = re.compile(r"^\s*\d+[.)]\s", re.M)
_ID = re.compile(r"\b0\d{5,}\b|\b\d{8,}\b")
_URL = re.compile(r"https?://\S+|doi\.org/\S+|\b10\.\d{4,}/\S+")
_LINK_TARGET = re.compile(r"\]\([^)\s]*\)")  # a figure's or link's file name, not a statement
_LABEL = re.compile(r"\b(?:Figure|Table|Fig\.)\s+\d+\b")  # "Figure 5": a label, not a value
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])|\n+")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text or "") if s.strip()]


def _scrub(text: str) -> str:
    for pat in (_CODE, _URL, _LINK_TARGET, _LABEL, _DATE, _ID):
        text = pat.sub(" ", text)
    return _LISTNUM.sub(" ", text)


def numbers_in(text: str) -> list[dict[str, Any]]:
    """The numbers a text states: ``{text, value, decimals, percent}`` each."""
    out = []
    for m in NUMBER.finditer(_scrub(text or "")):
        raw = m.group("num")
        value = float(raw.replace(",", ""))
        if m.group("sign"):
            value = -value
        decimals = len(raw.split(".")[1]) if "." in raw else 0
        out.append({"text": m.group(0).strip(), "value": value, "decimals": decimals, "percent": bool(m.group("pct"))})
    return out


# Blocks of a payload whose numbers a sentence may not quote: provenance, and the compact series kept only
# for drawing (rounded, monthly: a sentence quoting one would be quoting a drawing).
UNQUOTED = ("meta", "plot")


_DIGIT = re.compile(r"\d")
_WHOLE_DATE = re.compile(r"\d{4}-\d{2}(?:-\d{2})?")


def _string_numbers(text: str, out: set[float]) -> None:
    """The numbers of a string a result holds, as :func:`numbers_in` reads them, and the year of each date."""
    if not _DIGIT.search(text):  # no digit, no number (most strings: units, sources, ids of steps)
        return
    if _WHOLE_DATE.fullmatch(text):  # a date alone ("2024-09-30"): its year only, as the scan finds it
        out.add(float(text[:4]))
        return
    for n in numbers_in(text):
        out.add(n["value"])
    for d in _DATE.finditer(text):  # the year of a date a result holds may be quoted alone ("from 1903")
        out.add(float(d.group(0)[:4]))


def _walk(obj: Any, out: set[float], *, skip_meta: bool = True) -> None:
    t = type(obj)
    if t is float or t is int:  # the common leaves first (isinstance against the abstract types is slow)
        if math.isfinite(obj):
            out.add(float(obj))
        return
    if t is str:
        _string_numbers(obj, out)
        return
    if t is dict or (t is not list and t is not tuple and isinstance(obj, Mapping)):
        for k, v in obj.items():
            if skip_meta and k in UNQUOTED:
                continue
            _walk(v, out, skip_meta=skip_meta)
        return
    if t is list or t is tuple:
        for v in obj:
            _walk(v, out, skip_meta=skip_meta)
        return
    if isinstance(obj, bool) or obj is None:
        return
    if isinstance(obj, (int, float)):
        if math.isfinite(obj):
            out.add(float(obj))
    elif isinstance(obj, str):
        _string_numbers(obj, out)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _walk(v, out, skip_meta=skip_meta)


def number_pool(*sources: Any) -> set[float]:
    """Every finite number inside ``sources`` (dicts, lists, strings), ``meta`` and ``plot`` blocks excluded."""
    pool: set[float] = set()
    for s in sources:
        _walk(s, pool)
    return pool


def _held_linear(v: float, d: int, percent: bool, pool: Iterable[float]) -> bool:
    candidates = [v]
    if percent:
        candidates.append(v / 100.0)
    for target in candidates:
        dd = d + (2 if target is not v else 0)
        tol = 0.5 * 10 ** (-dd) + 1e-9
        for p in pool:
            if abs(p - target) <= tol:
                return True
            # significant-figure rounding of large whole numbers ("1,200" from 1,234)
            if dd == 0 and target != 0 and p != 0 and abs(target) >= 100:
                zeros = len(str(int(abs(target)))) - len(str(int(abs(target))).rstrip("0"))
                if zeros and abs(round(p, -zeros) - target) < 1e-9:
                    return True
    return False


class PoolIndex:
    """A number pool sorted once, so that :func:`matches` looks a number up by bisection instead of scanning
    every value (a report's few hundred numbers against a pool of tens of thousands). It holds the same values
    and gives the same answers as the pool itself (NaN, which matches nothing, is left out)."""

    __slots__ = ("values",)

    def __init__(self, pool: Iterable[float]) -> None:
        self.values = sorted(p for p in pool if p == p)

    def _near(self, lo: float, hi: float) -> list[float]:
        vals = self.values
        return vals[bisect_left(vals, lo):bisect_right(vals, hi)]

    def held(self, v: float, d: int, percent: bool) -> bool:
        candidates = [v]
        if percent:
            candidates.append(v / 100.0)
        for target in candidates:
            dd = d + (2 if target is not v else 0)
            tol = 0.5 * 10 ** (-dd) + 1e-9
            # the interval a little wider than the tolerance (rounding of its ends), each value in it checked as
            # the scan checks it
            slack = 4 * math.ulp(abs(target) + tol) + 1e-12
            if any(abs(p - target) <= tol for p in self._near(target - tol - slack, target + tol + slack)):
                return True
            if dd == 0 and target != 0 and abs(target) >= 100:
                zeros = len(str(int(abs(target)))) - len(str(int(abs(target))).rstrip("0"))
                if zeros:
                    half = 0.5 * 10 ** zeros + 1e-9 + slack
                    if any(p != 0 and abs(round(p, -zeros) - target) < 1e-9
                           for p in self._near(target - half, target + half)):
                        return True
        return False


def matches(number: Mapping[str, Any], pool: Iterable[float] | PoolIndex) -> bool:
    """Whether some pool value, rounded to the number's written precision, equals it.

    Whole numbers written without decimals also match at a coarser rounding when they carry
    trailing zeros ("1,200" is held by 1,234 only if written as "1,200" from a 2-significant-figure
    rounding). Percentages match the value or a fraction. ``pool`` is any iterable of numbers, or a
    :class:`PoolIndex` of them (the same answer, by bisection: what :func:`verify` uses for a whole text).
    """
    v, d, percent = number["value"], number["decimals"], bool(number.get("percent"))
    if isinstance(pool, PoolIndex):
        return pool.held(v, d, percent)
    return _held_linear(v, d, percent, pool)


def verify(text: str, pool: Iterable[float], *, allowed: Iterable[float] = ()) -> dict[str, Any]:
    """Check every number in ``text`` against ``pool`` (and ``allowed`` free numbers).

    Returns ``{ok, checked, unmatched: [{number, sentence}]}``.
    """
    index = PoolIndex(set(pool) | {float(a) for a in allowed})
    unmatched = []
    checked = 0
    for sent in sentences(_LISTNUM.sub(" ", text or "")):
        for n in numbers_in(sent):
            checked += 1
            if not index.held(n["value"], n["decimals"], n["percent"]):
                unmatched.append({"number": n["text"], "sentence": sent})
    return {"ok": not unmatched, "checked": checked, "unmatched": unmatched}


# whole numbers that count things are exact, not measured: "29,345 daily values", "1,000 resamples"
_COUNTED = re.compile(r"\s*(?:daily |monthly |annual |water[- ])?(?:values?|years?|days?|months?|resamples?|samples?|"
                      r"stations?|events?|peaks?|maxima|records?|rows?|steps?|donors?|gauges?|wells?|observations?|"
                      r"index-months?|month\(s\)|year\(s\))\b", re.I)
_SCI = re.compile(r"(?<![\w.])[-−]?\d+(?:\.\d+)?[eE][-+]?\d+(?![\w.])")
_COORD = re.compile(r"\b(?:latitude|longitude|lat|lon)\s*[-−]?\d+(?:\.\d+)?", re.I)
_YEAR_SPAN = re.compile(r"\b1[6-9]\d{2}|20\d{2}\b")


def significant_figures(raw: str) -> int:
    """How many significant figures a written number carries ("22,927" 5, "22,900" 3, "0.0547" 3, "3.30" 3)."""
    digits = raw.replace(",", "").lstrip("+-−")
    if "." in digits:
        whole, frac = digits.split(".", 1)
        core = (whole.lstrip("0") + frac) if whole.lstrip("0") else frac.lstrip("0")
        return max(len(core), 1)
    core = digits.lstrip("0")
    return max(len(core.rstrip("0")), 1) if core else 1


def overprecise(text: str, *, limit: int = 3, keep: Iterable[float] = ()) -> list[dict[str, Any]]:
    """The numbers in ``text`` written to more than ``limit`` significant figures, with their sentence.

    Not counted: dates and years, station ids, text in backticks, list numbering, whole numbers that count
    things (values, years, resamples, ...), which are exact, and the numbers in ``keep`` (what the user stated,
    quoted as given)."""
    kept = {float(k) for k in keep}
    out = []
    for sent in sentences(_LISTNUM.sub(" ", text or "")):
        for m in _SCI.finditer(_CODE.sub(" ", sent)):  # prose writes numbers out, not in scientific notation
            out.append({"number": m.group(0), "sentence": sent})
        scrubbed = _scrub(_COORD.sub(" ", _SCI.sub(" ", sent)))
        for m in NUMBER.finditer(scrubbed):
            raw = m.group("num")
            if significant_figures(raw) <= limit:
                continue
            if "." not in raw and _YEAR_SPAN.fullmatch(raw.replace(",", "")) and "," not in raw:
                continue
            if "." not in raw and _COUNTED.match(scrubbed, m.end()):
                continue
            if float(raw.replace(",", "")) in kept:
                continue
            out.append({"number": m.group(0).strip(), "sentence": sent})
    return out


def sig_text(value: float, figures: int = 3) -> str:
    """``value`` written to ``figures`` significant figures, plainly (22,927 -> "22,900", 0.05475 -> "0.0548",
    178.7 -> "179", 4.0 stays "4.00" only when asked for more figures)."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    exp = math.floor(math.log10(abs(value)))
    decimals = figures - 1 - exp
    rounded = round(value, decimals)
    if decimals <= 0:
        return f"{rounded:,.0f}"
    return f"{rounded:.{decimals}f}"


def versus_text(seen: float, threshold: Any, figures: int = 3) -> str:
    """``seen`` as a sentence that compares it with ``threshold`` writes it: at ``figures`` significant figures
    (:func:`sig_text`, a whole value whole), with as many more as it takes (up to six) for the written value to lie
    on the same side of the threshold as the value itself ("0.4996 against at least 0.5", never "0.500")."""
    if not isinstance(seen, float) or not math.isfinite(seen):
        return f"{seen:,}" if isinstance(seen, int) and not isinstance(seen, bool) else str(seen)
    if seen.is_integer() and abs(seen) < 1e15:
        return f"{int(seen):,}"
    need = float(threshold) if isinstance(threshold, (int, float)) and not isinstance(threshold, bool) else None
    for n in range(figures, 7):
        text = sig_text(seen, n)
        shown = float(text.replace(",", ""))
        if need is None or (shown > need) == (seen > need) and (shown < need) == (seen < need):
            return text
    return text


_COUNT_S = re.compile(r"(?<![\w.])(\d[\d,]*) ((?:[a-z]+ )?[a-z]+)\(s\)")


def plural_counts(text: str) -> str:
    """'7 parameter(s)' -> '7 parameters', '1 date(s)' -> '1 date': a count written with its noun in the right
    number (a method's summary hedges the plural; the report does not)."""
    if not text or "(s)" not in text:
        return text
    return _COUNT_S.sub(lambda m: f"{m.group(1)} {m.group(2)}" + ("" if m.group(1) == "1" else "s"), text)


def round_prose(text: str, *, limit: int = 3, keep: Iterable[float] = ()) -> str:
    """The text with every number written beyond ``limit`` significant figures rounded to ``limit``, by the
    rules of :func:`overprecise` (dates, years, ids, counts and text in backticks are left as they are)."""
    if not text:
        return text
    # scientific notation ("2.293e+04") is written out plainly first
    text = _SCI.sub(lambda m: sig_text(float(m.group(0)), limit), text)
    flagged = {h["number"] for h in overprecise(text, limit=limit, keep=keep)}
    if not flagged:
        return text
    protected = [(m.start(), m.end()) for pat in (_CODE, _URL, _DATE, _ID, _COORD) for m in pat.finditer(text)]

    def repl(m: "re.Match[str]") -> str:
        if any(a <= m.start() < b for a, b in protected):
            return m.group(0)
        raw = m.group("num")
        if m.group(0).strip() not in flagged and raw not in flagged:
            return m.group(0)
        if "." not in raw and _COUNTED.match(text, m.end()):
            return m.group(0)
        if "." not in raw and "," not in raw and _YEAR_SPAN.fullmatch(raw):
            return m.group(0)
        value = float(raw.replace(",", ""))
        out = sig_text(value, limit)
        return m.group(0).replace(raw, out, 1)

    return NUMBER.sub(repl, text)
