"""The references of a report: only works the study used, each a whole citation, none twice.

- A tool's source may join several works in one string (``"A (1993) ...; B (1997) ..."`` or ``" | "``);
  :func:`split_citations` splits it into works, gluing back a piece that is not a citation on its own (no
  year, or a few words such as ``"Eqs. 58, 62, 65, 66"``) to the work it belongs to.
- :func:`cite_key` is the first author's surname, the year and the first words of the title, so one work
  cited in two wordings is listed once; :func:`author_year_key` (the authors' surnames and the year) joins a
  short form without a title (``Hashimoto, Stedinger & Loucks (1982) Water Resour. Res. 18(1) 14-20``) to the
  titled citation of the same work.
- :func:`references` gathers the sources of the steps that ran and, from the playbook's list, only the works
  the methodology of the chosen branch names (by surname and year).
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from aquascope_core.methodology import texts

__all__ = ["split_citations", "cite_key", "author_year_key", "is_titled", "is_whole", "references", "data_reference", "primary_method_reference",
           "retrieval_note"]

# the method's manuals in their right editions: PeakFQ 7 and later run Bulletin 17C (the 2006 manual, TM 4-B4, is
# the Bulletin 17B program's); Bulletin 17C by its authors
PEAKFQ_7 = ("Veilleux, A.G., Cohn, T.A., Flynn, K.M., Mason, R.R., Jr., and Hummel, P.R. (2014) Estimating magnitude "
            "and frequency of floods using the PeakFQ 7.0 program. U.S. Geological Survey Fact Sheet 2013-3108, 2 p., "
            "https://doi.org/10.3133/fs20133108.")
BULLETIN_17C = ("England, J.F., Jr., Cohn, T.A., Faber, B.A., Stedinger, J.R., Thomas, W.O., Jr., Veilleux, A.G., "
                "Kiang, J.E., and Mason, R.R., Jr. (2019) Guidelines for determining flood flow frequency, Bulletin 17C "
                "(ver. 1.1, May 2019). U.S. Geological Survey Techniques and Methods, book 4, chap. B5, 148 p., "
                "https://doi.org/10.3133/tm4B5.")
_AGENCY = {"usgs.gov": "U.S. Geological Survey, National Water Information System"}
_CARRIER = re.compile(r"pypi:([\w.-]+)==([\w.+-]+)")


def primary_method_reference(cite: str) -> str:
    """A method citation in its primary, right edition (Bulletin 17C; the PeakFQ 7 manual for PeakFQ 7 and 8)."""
    if re.match(r"Flynn, K\.M\.", cite) and "PeakFQ" in cite:
        return PEAKFQ_7
    if re.match(r"England, J\.F\.", cite) and "17C" in cite:
        return BULLETIN_17C
    return cite


def data_reference(src: Mapping[str, Any]) -> str | None:
    """A record's reference to its primary source: the agency and dataset, the site number, the address and the
    retrieval date; a package that carried the data only as 'obtained via'. None when the source names no
    package (it is cited as it stands)."""
    m = _CARRIER.search(str(src.get("dataset") or ""))
    if not m:
        return None
    pkg, ver = m.group(1), m.group(2)
    cite = str(src.get("citation") or "")
    # the clauses that name the package (or its import name) are the carrier's, not the record's
    names = {pkg, pkg.split("-")[0], pkg.replace("-", "_")}
    clauses = re.split(r";\s+|(?<=[a-z0-9)])\.\s+(?=[A-Z])|,\s+(?=(?:as|data as) )", cite)
    kept = [c.strip().rstrip(".") for c in clauses
            if c.strip() and not any(re.search(rf"\b{re.escape(n)}\b", c, re.I) for n in names)]
    kept = [k for k in kept if not re.match(r"(?i)(analysis )?method per|U\.S\. public domain$", k)]
    url = str(src.get("url") or "")
    owner = re.sub(r"\s*\(public domain\)", "", str(src.get("owner") or "")).strip()
    agency = (owner if owner and "Geological Survey" not in owner else None) or next(
        (a for host, a in _AGENCY.items() if host in url), owner or None)
    sid = str(src.get("station_id") or "")
    if agency and not any(k.startswith(agency.split(",")[0]) for k in kept):
        kept.insert(0, f"{agency}, {str(src.get('variable') or '').replace('_', ' ')} record".replace(",  record", " record"))
    first, rest = (kept[0], kept[1:]) if kept else (str(src.get("name") or "record"), [])
    text = first
    if sid and sid not in text:
        text += f", site {sid}"
    if url:
        text += f", {url}"
    if src.get("accessed"):
        text += f", retrieved {str(src['accessed'])[:10]}"
    if rest:
        text += ". " + "; ".join(rest)
    lic = str(src.get("licence") or "").replace("(package)", "for the package").replace("(package;", "for the package;")
    text += f". Obtained via {pkg} {ver}" + (f" (licence: {lic.rstrip(')') if lic.count(')') > lic.count('(') else lic})" if lic else "")
    return text + "."

_YEAR = re.compile(r"\b(1[6-9]\d{2}|20\d{2})[a-z]?\b")
_SPLIT = re.compile(r";\s+|\s+\|\s+")


def is_whole(cite: str) -> bool:
    """A citation on its own: a year, an author or body before it, and a few words of title."""
    c = cite.strip()
    return (bool(_YEAR.search(c)) and len(c.split()) >= 4 and c[:1].isupper() and "..." not in c
            and not re.match(r"(?i)(eqs?|pp?|ch|vol)\.", c))


def split_citations(text: str) -> list[str]:
    parts = [p.strip().rstrip(".").strip() for p in _SPLIT.split(text or "") if p.strip()]
    out: list[str] = []
    for p in parts:
        if out and not is_whole(p):
            out[-1] = f"{out[-1]}; {p}"
        else:
            out.append(p)
    return [o if o.endswith(".") else o + "." for o in out]


def cite_key(cite: str) -> str:
    """first surname | first three title words (lower case, no punctuation): one work in two wordings (or with
    its version year) is one key."""
    c = cite.strip()
    m = _YEAR.search(c)
    surname = re.split(r"[,\s(]", c, 1)[0].lower()
    if not m:
        return " ".join(re.findall(r"[a-z0-9]+", c.lower())[:6])
    rest = c[m.end():]
    opened = c[:m.start()].count("(") > c[:m.start()].count(")")
    if opened and ")" in rest:
        rest = rest[rest.index(")") + 1:]
    words = re.findall(r"[a-z][a-z0-9]*", rest.lower())[:3]
    return f"{surname}|{' '.join(words)}"


_SURNAME = re.compile(r"\b(?:van |von |de |du |le )?[A-Z][a-z'\u00c0-\u017f-]+(?:[A-Z][a-z'\u00c0-\u017f-]+)*\b")
_NOT_NAME = {"and", "others", "Jr", "Sr", "The", "In", "Eds"}


def author_year_key(cite: str) -> str | None:
    """first year | the sorted surnames before it: ``Hashimoto, T., Stedinger, J.R. and Loucks, D.P. (1982)`` and
    ``Hashimoto, Stedinger & Loucks (1982)`` are one key. None without a year or a surname."""
    m = _YEAR.search(cite)
    if not m:
        return None
    names = sorted({n for n in _SURNAME.findall(cite[:m.start()]) if n not in _NOT_NAME and len(n) >= 3})
    return f"{m.group(1)}|{' '.join(names)}" if names else None


def is_titled(cite: str) -> bool:
    """Whether a citation gives its work's title after the year (words of a sentence), not only a journal's
    abbreviation, volume and pages (``Water Resour. Res. 18(1) 14-20``)."""
    m = _YEAR.search(cite)
    rest = cite[m.end():] if m else cite
    rest = rest.split(")", 1)[1] if ")" in rest[:12] else rest
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z'-]*\.?", rest) if not w.endswith(".") or len(w) > 8]
    return sum(1 for w in words if len(w.rstrip(".")) >= 4) >= 3


def _named_in(cite: str, text: str) -> bool:
    """Whether ``text`` names the work (its first author's surname and its year)."""
    m = _YEAR.search(cite)
    surname = re.split(r"[,\s(]", cite.strip(), 1)[0]
    if not m or len(surname) < 3:
        return False
    return bool(re.search(rf"\b{re.escape(surname)}\b[^;()]{{0,60}}?\b{m.group(1)}\b", text))


def references(plan: Mapping[str, Any], results: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The works a report lists, in order: those the chosen methodology names, then the steps' sources."""
    refs: list[str] = []
    seen: set[str] = set()
    by_authors: dict[str, int] = {}  # author_year_key -> index in refs

    def add(cites: Iterable[str]) -> None:
        # one work is one entry: the same title key, or the same authors and year where one of the two wordings is
        # the short form (no title); the titled wording is kept, in the place the work was first listed
        for c in cites:
            key, ay = cite_key(c), author_year_key(c)
            if not c or key in seen:
                continue
            seen.add(key)
            at = by_authors.get(ay) if ay else None
            if at is not None and not (is_titled(c) and is_titled(refs[at])):
                if is_titled(c):
                    refs[at] = c
                continue
            if ay:
                by_authors.setdefault(ay, len(refs))
            refs.append(c)

    method_text = " ".join(texts(plan.get("methodology"))) + " " + str(plan.get("rationale") or "")
    for c in plan.get("citations") or []:
        for work in split_citations(str(c)):
            if _named_in(work, method_text):
                add([primary_method_reference(work)])
    for r in results.values():
        if r.get("status") not in ("ok", "failed"):
            continue
        for src in ((r.get("payload") or {}).get("meta") or {}).get("sources", []):
            if src.get("name") in ("aquascope", "upload"):
                continue  # the engine itself, and the user's own tables (listed under Site and data)
            data = data_reference(src)
            if data:
                add([data])
                continue
            works = [primary_method_reference(c) for c in
                     split_citations(str(src.get("citation") or src.get("dataset") or src.get("name") or ""))]
            if works and src.get("offline") is False:  # a service's answer: when it was retrieved, and its status
                works[-1] = works[-1].rstrip(".") + retrieval_note(src)
            add(works)
    return refs


def retrieval_note(src: Mapping[str, Any]) -> str:
    """``", retrieved 2026-12-01; includes provisional data, subject to revision."`` for a live source's row."""
    out = f", retrieved {str(src['accessed'])[:10]}" if src.get("accessed") else ""
    if src.get("provisional"):
        out += "; includes provisional data, subject to revision"
    return out + "."
