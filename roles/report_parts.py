"""Parts of the report a consultancy sends that no specialist writes: the sign-off block, the glossary of the terms
the report uses, the source of a client table in words, the data requests the study has not already met, and one
precision per quantity across the report's tables.

Everything here reads the report dict (sections with text and tables) and the workspace; nothing computes.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping, Sequence

from aquascope_core.verify import sig_text
from roles.specialists.common import fmt

__all__ = ["drop_empty_columns", "signoff_section", "glossary_section", "GLOSSARY", "step_source", "requests_not_met", "one_precision", "column_precision",
           "scrub_paths", "report_text"]

# term -> (how it is found in the text, what it means); found case-sensitively for acronyms
GLOSSARY: dict[str, tuple[str, str]] = {
    "AEP": (r"\bAEP\b|annual exceedance probability", "annual exceedance probability: the chance, in any one year, "
            "that a flow is equalled or exceeded (1 % AEP is the 100-year flood)."),
    "Return period": (r"return period|-year\b", "the average interval in years between floods at least as large; "
                      "the reciprocal of the AEP."),
    "EMA": (r"\bEMA\b|expected moments", "expected moments algorithm: the Bulletin 17C estimator of the log-Pearson "
            "type III moments that uses historical peaks, censored years and intervals (Cohn and others 1997)."),
    "LP3": (r"\bLP3\b|log-Pearson", "log-Pearson type III: the distribution of the logarithms of the annual peaks "
            "that Bulletin 17C prescribes."),
    "GEV": (r"\bGEV\b", "generalized extreme value distribution."),
    "L-moments": (r"L-moment", "linear combinations of the ordered sample used to fit distributions robustly "
                  "(Hosking and Wallis 1997)."),
    "MGBT": (r"\bMGBT\b|multiple Grubbs-Beck", "multiple Grubbs-Beck test: Bulletin 17C's test for potentially "
             "influential low floods, which are then censored."),
    "PILF": (r"\bPILF|influential low", "potentially influential low flood: a small peak that would distort the fit of "
             "the large ones; censored below the MGBT threshold."),
    "Low outlier": (r"low outlier|low flood", "a peak below the low-outlier threshold, treated as censored (known only "
                    "to be below the threshold)."),
    "Regional skew": (r"regional skew", "the skew of the log peaks estimated from many gauges of a region, weighted "
                      "with the station skew by their mean square errors."),
    "Weighted skew": (r"weighted skew", "the station and regional skews combined in inverse proportion to their "
                      "mean square errors (Bulletin 17C)."),
    "MSE": (r"\bMSE\b|mean square error", "mean square error: the variance of an estimate plus its squared bias."),
    "HWN": (r"\bHWN\b", "the skew weighting of Bulletin 17C as PeakFQ applies it (regional MSE against the at-site MSE "
            "of the EMA moments)."),
    "ADJE": (r"\bADJE\b", "PeakFQ's rule for the at-site skew's mean square error: the Bulletin 17B formula adjusted "
             "for the effective record length of the EMA."),
    "Perception threshold": (r"perception threshold", "the flow above which every flood of a period would have been "
                             "recorded; years below it are censored."),
    "Historical peak": (r"historical peak|historical flood", "a flood known from outside the systematic record "
                        "(marks, archives), used with its perception threshold."),
    "Systematic record": (r"systematic", "the years in which every annual peak was measured at the gauge."),
    "Plotting position": (r"plotting position", "the exceedance probability assigned to an observed peak by its rank; "
                          "Hirsch and Stedinger (1987) extend it to historical information."),
    "Confidence band": (r"confidence (band|interval|limit)|\bband\b", "the range that holds the true quantile with "
                        "the stated probability, given the sample."),
    "Gate": (r"\bgates?\b", "a check a step's result must pass before its numbers enter the report (the value seen, "
             "the threshold, the outcome)."),
    "Water year": (r"water year", "the 12 months from 1 October to 30 September, named by the year in which it ends."),
    "Annual maximum": (r"annual maxim", "the largest flow of each (water) year."),
    "Q95": (r"\bQ95\b", "the flow equalled or exceeded on 95 % of days."),
    "7Q10": (r"\b7Q10\b", "the lowest 7-day mean flow with a 10-year recurrence interval."),
    "Flow duration curve": (r"flow duration", "the share of time each flow is equalled or exceeded."),
    "SSI": (r"\bSSI\b", "standardised streamflow index: the flow of each calendar month as a standard normal score."),
    "SPI": (r"\bSPI\b", "standardised precipitation index (McKee and others 1993)."),
    "SPEI": (r"\bSPEI\b", "standardised precipitation-evapotranspiration index (Vicente-Serrano and others 2010)."),
    "SGI": (r"\bSGI\b", "standardised groundwater index: groundwater levels as standard normal scores by month."),
    "Mann-Kendall": (r"Mann-Kendall", "a rank test for a monotonic trend."),
    "Sen's slope": (r"Sen's slope|Sen’s slope", "the median of the slopes between all pairs of values: a robust trend "
                    "rate."),
    "GR4J": (r"\bGR4J\b", "a four-parameter daily rainfall-runoff model (Perrin and others 2003)."),
    "CemaNeige": (r"\bCemaNeige\b", "a degree-day snow accumulation and melt module run ahead of GR4J (Valéry and "
                  "others 2014)."),
    "Split-sample test": (r"(?i)split-sample", "a model calibrated on one period and scored on another it was not fitted "
                          "to (Klemes 1986)."),
    "KGE": (r"\bKGE\b", "Kling-Gupta efficiency: a model skill score (1 is perfect)."),
    "NSE": (r"\bNSE\b", "Nash-Sutcliffe efficiency: a model skill score (1 is perfect)."),
    "FAO-56": (r"FAO-56|FAO 56", "the FAO Irrigation and Drainage Paper 56 method of crop water requirements."),
    "CCME WQI": (r"\bWQI\b|CCME", "the Canadian Council of Ministers of the Environment water quality index."),
    "Sequent peak": (r"sequent.peak", "the storage needed to supply a yield through the record's worst sequence."),
    "Reliability": (r"\breliability\b", "the share of time (or volume, or years) a demand is met."),
    "Donor catchment": (r"\bdonors?\b", "a gauged catchment whose flow statistics are transferred to the site."),
}


def report_text(sections: Sequence[Mapping[str, Any]]) -> str:
    """All the text of the sections, their tables and their subsections (what a reader sees)."""
    out: list[str] = []

    def walk(s: Mapping[str, Any]) -> None:
        out.append(str(s.get("title") or ""))
        out.append(str(s.get("text") or ""))
        for t in s.get("tables") or []:
            out.append(str(t.get("caption") or ""))
            out.append(" ".join(map(str, t.get("columns") or [])))
            out.extend(" ".join("" if c is None else str(c) for c in r) for r in t.get("rows") or [])
        for f in s.get("figures") or []:
            out.append(str(f.get("caption") or ""))
        for sub in s.get("subsections") or []:
            walk(sub)

    for s in sections:
        walk(s)
    return "\n".join(out)


def glossary_section(sections: Sequence[Mapping[str, Any]], extra: Iterable[str] = ()) -> dict[str, Any] | None:
    """The terms of :data:`GLOSSARY` the report uses, and the gates it names, each with its meaning."""
    text = report_text(sections) + "\n" + "\n".join(extra)
    rows = [[term, meaning] for term, (pattern, meaning) in GLOSSARY.items() if re.search(pattern, text)]
    gates = sorted(set(re.findall(r"\b(min_years|max_return_period_factor|ci_finite|spread_within|nse_min|kge_min|"
                                  r"not_empty|fit_envelopes_max|sampling_density|trend_on_series|cross_check_ratio|"
                                  r"unit_present|max_area|status_is)\b", text)))
    rows += [[g, f"gate: {_GATE_MEANING.get(g, 'a check on the step result')}"] for g in gates]
    if not rows:
        return None
    return {"id": "glossary", "title": "Glossary", "text": "The terms this report uses.",
            "tables": [{"columns": ["Term", "Meaning"], "rows": sorted(rows, key=lambda r: r[0].lower()),
                        "caption": "Terms used in this report"}]}


_GATE_MEANING = {
    "min_years": "the record is at least the required number of years long",
    "max_return_period_factor": "the return period asked is not more than a few times the record length",
    "ci_finite": "the confidence interval is finite and ordered",
    "spread_within": "the fits agree within the stated spread",
    "nse_min": "the model's Nash-Sutcliffe efficiency reaches the minimum",
    "kge_min": "the model's Kling-Gupta efficiency reaches the minimum",
    "not_empty": "the result holds the value the report quotes",
    "fit_envelopes_max": "the record maximum is plausible under the fitted distribution",
    "sampling_density": "the record holds enough of its expected values",
    "trend_on_series": "the series is free of a monotonic trend at the stated significance (the stationarity the fit assumes)",
    "cross_check_ratio": "two independent estimates agree within a ratio",
    "unit_present": "the result states its unit",
    "max_area": "the catchment is within the area the method was made for",
    "status_is": "the method reports itself defensible",
}


def signoff_section(study_id: str, created: str, title: str) -> dict[str, Any]:
    """The block an engineer signs: prepared, checked, approved (blank for them), the date and the study id."""
    return {"id": "signoff", "title": "Sign-off",
            "text": f"Study {study_id}, {title}; report produced {str(created)[:10]}. The fields below are for the "
                    "engineers who prepare, check and approve it.",
            "tables": [{"columns": ["Role", "Name", "Signature", "Date"],
                        "rows": [["Prepared by", "", "", ""], ["Checked by", "", "", ""], ["Approved by", "", "", ""]],
                        "caption": "Sign-off", "row_height_mm": 12}]}


def step_source(basis: str, steps: Sequence[Mapping[str, Any]]) -> str:
    """The step a result path comes from, in words ('s2. Bulletin 17C frequency analysis')."""
    sid = str(basis or "").split(".", 1)[0]
    for st in steps:
        if st.get("id") == sid:
            return f"{sid}. {st.get('title') or st.get('tool')}"
    return sid


# a result path: a step id with a field, or a payload path with an index or two dotted fields
_PATH = re.compile(r"\b(?:s\d+\.[A-Za-z_][\w.\[\]\-]*|[a-z_]+\[-?\d+\](?:\.[A-Za-z_]\w*)*|"
                   r"[a-z_]+\.[a-z_][\w]*(?:\.[A-Za-z_]\w*)+|[a-z_]+\.Q\d+)")


def scrub_paths(text: str) -> str:
    """A gate's detail without the internal path it names ('quantiles.Q95 holds 1 value(s)' -> 'the value holds')."""
    return _PATH.sub("the result", str(text or ""))


_MET = (  # a data request the study has already met: (the request's words, what in the run meets it)
    # a peak record: its basis says instantaneous (not "not the instantaneous peak" of a daily-mean series, nor a
    # ratio on daily means, which is indicative)
    (re.compile(r"instantaneous", re.I), lambda p: (bool(re.search(r"(?<!not the )instantaneous",
                                                                   str(p.get("basis") or ""), re.I))
                                                    and not p.get("indicative"))
     or bool((p.get("systematic") or {}).get("values"))),
    (re.compile(r"historical (flood|peak)", re.I), lambda p: bool((p.get("historical") or {}).get("peaks"))),
    (re.compile(r"regional skew", re.I), lambda p: bool(p.get("regional_skew_used"))),
)


def requests_not_met(requests: Sequence[Mapping[str, Any]], results: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The data requests whose data the study did not already use."""
    payloads = [r.get("payload") or {} for r in results.values() if r.get("status") == "ok"]
    out = []
    for req in requests:
        words = f"{req.get('what', '')}"
        if any(pat.search(words) and any(met(p) for p in payloads) for pat, met in _MET):
            continue
        out.append(req)
    return out


def _as_number(x: Any) -> float | None:
    if isinstance(x, bool):
        return None
    if isinstance(x, (int, float)):
        return float(x)
    s = str(x).strip().replace(",", "").replace("\u2212", "-")
    if not re.fullmatch(r"-?\d+(\.\d+)?", s):
        return None
    return float(s)


def _sig_digits(x: Any) -> int:
    s = str(x).strip().lstrip("-").replace(",", "")
    digits = s.replace(".", "").lstrip("0")
    return len(digits.rstrip("0")) if "." not in s else len(digits)


def _rounds_twice(x: Any) -> bool:
    """True when a printed number cannot be re-rounded to three figures without knowing the value it was printed
    from: its digits after the third significant one are a lone 5 ("3,055" may be 3,054.6 or 3,055.4)."""
    digits = str(x).strip().lstrip("-").replace(",", "").replace(".", "").lstrip("0")
    return len(digits) > 3 and digits[3:].rstrip("0") == "5"


def _each_table(sections: Sequence[dict[str, Any]], fix: Any) -> None:
    """``fix(table)`` on every table of the sections and their subsections, in place."""
    for s in sections:
        for t in s.get("tables") or []:
            fix(t)
        _each_table(s.get("subsections") or [], fix)


def one_precision(sections: Sequence[dict[str, Any]], values: Iterable[Any]) -> None:
    """Each key number printed one way in every table: a table column holding one (at a precision of three figures
    or more) is written as the report writes numbers (:func:`fmt`, three significant figures), all its cells."""
    keys = {sig_text(float(v), 3) for v in values if isinstance(v, float) and v == v and v not in (0.0,)}

    def fix(t: dict[str, Any]) -> None:
        cols = t.get("columns") or []
        rows = t.get("rows") or []
        for j, c in enumerate(cols):
            if re.search(r"(?i)year|return period|aep|probability|count|^n$|months|days", str(c)):
                continue
            cells = [r[j] if j < len(r) else None for r in rows]
            hits = [x for x in cells if (v := _as_number(x)) is not None and _sig_digits(x) >= 3 and v != 0
                    and sig_text(v, 3) in keys and not isinstance(x, int)]
            if not hits:
                continue
            for r in rows:
                if j < len(r) and (v := _as_number(r[j])) is not None and not isinstance(r[j], int):
                    # a cell printed at a lone trailing 5 keeps its printed figures: rounding it again could move it
                    # to the wrong side (double rounding), and the report never prints a number its result lacks
                    r[j] = r[j] if isinstance(r[j], str) and _rounds_twice(r[j]) else fmt(float(v))

    _each_table(sections, fix)


_NOT_ONE_QUANTITY = re.compile(r"(?i)year|return period|aep|probability|count|^n$|months|days|values|samples|seen|"
                               r"threshold|^unit")
_PLAIN = re.compile(r"[-\u2212]?\d{1,3}(?:,\d{3})*(?:\.\d+)?|[-\u2212]?\d+(?:\.\d+)?")


def column_precision(sections: Sequence[dict[str, Any]]) -> None:
    """One precision per quantity in a table: a column of one measured quantity (its unit the column's, not a
    row's: a table with a Unit column holds a different quantity in each row) printed at three significant figures
    writes a whole value with its trailing zeros, as the others are written ("93.0" between "70.1" and "113", not
    "93": :func:`fmt` writes a float that is exactly whole without them). Counts, years, return periods,
    probabilities and a gate's seen and threshold values are left as they are."""
    def fix(t: dict[str, Any]) -> None:
        cols = [str(c) for c in t.get("columns") or []]
        if any(re.match(r"(?i)unit\b", c) for c in cols) or t.get("caption") in ("Key numbers", "Gates"):
            return
        rows = t.get("rows") or []
        # rows keyed by a number or a date (a return period, a year) hold one quantity per column; rows keyed by a
        # label ("Failure spells", "Mean spell (days)") are a quantity each, unless the column's header names its unit
        keyed = bool(rows) and all(re.match(r"[-\u2212]?[\d.,]+\b", str(r[0] if r else "")) for r in rows)
        for j, c in enumerate(cols):
            if _NOT_ONE_QUANTITY.search(c) or not (keyed or re.search(r"\([^)]*[A-Za-z%][^)]*\)", c)):
                continue
            cells = [r[j] if j < len(r) else None for r in rows]
            nums = [x for x in cells if isinstance(x, str) and _PLAIN.fullmatch(x.strip())]
            # a measured quantity: some cell carries decimals and every decimal cell three figures
            decimal = [x for x in nums if "." in x]
            if not decimal or any(_sig_digits(x) != 3 for x in decimal):
                continue
            for r in rows:
                x = r[j] if j < len(r) else None
                if isinstance(x, str) and x in nums and "." not in x and (v := _as_number(x)) and abs(v) < 100:
                    r[j] = sig_text(v, 3)

    _each_table(sections, fix)


def drop_empty_columns(tables: Sequence[dict[str, Any]]) -> None:
    """A column no row fills (an empty 'Unit meaning') is left out of the report's table."""
    for t in tables:
        cols, rows = list(t.get("columns") or []), [list(r) for r in t.get("rows") or []]
        if not rows or t.get("caption") == "Sign-off":
            continue
        keep = [j for j in range(len(cols)) if any(j < len(r) and r[j] not in (None, "") for r in rows)]
        if len(keep) < len(cols) and keep:
            t["columns"] = [cols[j] for j in keep]
            t["rows"] = [[r[j] if j < len(r) else None for j in keep] for r in rows]
