"""The inputs of a Bulletin 17C frequency analysis as a reviewer reads them: one row a water year.

Each year of the analysis period (the perception thresholds' span and the systematic record) with its peak, its
qualification codes, the perception threshold in force, the flow interval EMA uses for it and its treatment:
``systematic``, ``historical`` (a peak known above the threshold), ``censored`` (a year of the historical period
with no peak known: below the threshold) or ``low outlier`` (a systematic peak below the multiple Grubbs-Beck
threshold, censored). :func:`record_sentence` is the one sentence form of the record length used everywhere.
Everything is read from the step's payload; nothing is computed beyond counting.
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["frequency_inputs", "input_summary", "record_sentence", "historical_source", "COLUMNS"]

COLUMNS = ["Water year", "Peak", "Codes", "Threshold lower", "Threshold upper", "Interval lower", "Interval upper",
           "Treatment"]
_OPEN = 1e40  # a perception threshold's "no upper bound" (1e50 in PeakFQ's files)


def _low_threshold(payload: Mapping[str, Any]) -> float | None:
    for f in (payload.get("fits") or {}).values():
        lo = (f or {}).get("low_outliers") if isinstance(f, Mapping) else None
        thr = (lo or {}).get("threshold") if isinstance(lo, Mapping) else None
        if isinstance(thr, (int, float)) and thr > 0:
            return float(thr)
    return None


def _codes(payload: Mapping[str, Any]) -> dict[int, str]:
    out: dict[int, str] = {}
    for f in ((payload.get("peakfq") or {}).get("flags") or []):
        if isinstance(f, Mapping) and f.get("year") is not None:
            out[int(f["year"])] = ",".join(str(c) for c in (f.get("codes") or [f.get("code")]) if c not in (None, ""))
    for y, c in ((payload.get("codes") or {}) if isinstance(payload.get("codes"), Mapping) else {}).items():
        out[int(y)] = str(c)
    return out


def frequency_inputs(payload: Mapping[str, Any]) -> list[list[Any]]:
    """The rows of :data:`COLUMNS`, one a water year, oldest first; [] when the payload is not a B17C analysis."""
    sysm = payload.get("systematic") or {}
    years, values = list(sysm.get("years") or []), list(sysm.get("values") or [])
    if not years or len(years) != len(values):
        return []
    hist = payload.get("historical") or {}
    peaks = {int(h["year"]): float(h["value"]) for h in hist.get("peaks") or [] if h.get("value") is not None}
    spans = [t for t in hist.get("perception_thresholds") or []
             if isinstance(t.get("start"), (int, float)) and isinstance(t.get("end"), (int, float))]
    low = _low_threshold(payload)
    codes = _codes(payload)
    by_year = {int(y): float(v) for y, v in zip(years, values) if v is not None}
    first = min([int(t["start"]) for t in spans] + list(by_year) + list(peaks))
    last = max([int(t["end"]) for t in spans] + list(by_year) + list(peaks))
    rows = []
    for y in range(first, last + 1):
        # the thresholds apply in the order given, a later one replacing an earlier one (PeakFQ's PCPT_Thresh, as
        # bulletin17c applies them): the last span holding the year is the one in force
        span = next((t for t in reversed(spans) if t["start"] <= y <= t["end"]), None)
        lo = float(span["lower"]) if span and span.get("lower") is not None else None
        hi = float(span["upper"]) if span and isinstance(span.get("upper"), (int, float)) and span["upper"] < _OPEN \
            else None
        if y in by_year:
            v = by_year[y]
            if low is not None and v < low:
                rows.append([y, v, codes.get(y, ""), lo, hi, 0.0, low, "low outlier (censored below the MGBT threshold)"])
            else:
                rows.append([y, v, codes.get(y, ""), lo, hi, v, v, "systematic"])
        elif y in peaks:
            v = peaks[y]
            rows.append([y, v, codes.get(y, ""), lo, hi, v, v, "historical"])
        elif span is not None:
            rows.append([y, None, codes.get(y, ""), lo, hi, 0.0, lo, "censored (below the perception threshold)"])
        else:
            rows.append([y, None, "", None, None, None, None, "not in the analysis (a gap)"])
    return rows


def record_sentence(payload: Mapping[str, Any]) -> str:
    """'44 systematic peaks 1930-1973 and 3 historical peaks, 1890-1973 (84 years)': the record length, one form."""
    rows = frequency_inputs(payload)
    if not rows:
        return ""
    sysm = [r[0] for r in rows if r[7] in ("systematic",) or r[7].startswith("low outlier")]
    hist = [r[0] for r in rows if r[7] == "historical"]
    analysed = [r[0] for r in rows if not r[7].startswith("not in")]
    span = (min(analysed), max(analysed))
    text = f"{len(sysm)} systematic peaks" if sysm else "no systematic peaks"
    if sysm and (hist or (min(sysm), max(sysm)) != span):  # the systematic years named when they are not the span
        text += f" {min(sysm)}-{max(sysm)}"
    if hist:
        text += f" and {len(hist)} historical peak{'s' if len(hist) != 1 else ''}"
    return f"{text}, {span[0]}-{span[1]} ({len(analysed)} years)"


def input_summary(payload: Mapping[str, Any], unit: str | None = None, source: str = "") -> list[list[Any]]:
    """The input table summarised by period: [Period, Treatment, Perception threshold, Peaks, Source] (the years of
    a period are its span; every year is in :func:`frequency_inputs`)."""
    rows = frequency_inputs(payload)
    if not rows:
        return []
    out: list[list[Any]] = []
    u = f" {unit}" if unit else ""

    def thr(r: list[Any]) -> str:
        return "none (every peak recorded)" if not r[3] else f"{r[3]:,.0f}{u}"

    groups: list[list[list[Any]]] = []
    for r in rows:
        key = (thr(r), r[7] in ("systematic",) or r[7].startswith("low outlier"), r[7].startswith("not in"))
        if groups and groups[-1][0][0] == key:
            groups[-1][1].append(r)
        else:
            groups.append([[key], [r]])
    for (key,), rs in groups:
        years = [r[0] for r in rs]
        n_hist = sum(1 for r in rs if r[7] == "historical")
        n_cens = sum(1 for r in rs if r[7].startswith("censored"))
        n_low = sum(1 for r in rs if r[7].startswith("low outlier"))
        n_sys = sum(1 for r in rs if r[7] == "systematic") + n_low
        if key[2]:
            what, peaks, src = "not in the analysis", "", ""
        elif key[1]:
            what = "systematic record" + (f", {n_low} low outlier{'s' if n_low != 1 else ''} censored" if n_low else "")
            peaks, src = n_sys, "the gauge's annual peak record"
        else:
            what = f"historical period: {n_hist} historical peak{'s' if n_hist != 1 else ''} above the threshold, " \
                   f"{n_cens} year{'s' if n_cens != 1 else ''} censored below it"
            peaks, src = n_hist, source or "the historical information given with the record"
        out.append([f"{min(years)}-{max(years)}", what, key[0], peaks, src])
    return out


def historical_source(payload: Mapping[str, Any]) -> str:
    """Where the historical peaks come from, as the record's source states it ('' when it does not)."""
    import re

    for src in ((payload.get("meta") or {}).get("sources") or []):
        m = re.search(r"historical (?:peaks|floods)[^:;]*:\s*([^;]+?)(?:,? as (?:in|packaged)|;|$)",
                      str(src.get("citation") or ""))
        if m:
            return m.group(1).strip().rstrip(".")
    return ""
