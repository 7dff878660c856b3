"""Reading a problem text: word forms, synonyms, units, what is out of scope, trend and "now" questions.

The Consultant's keyword rules match words as they are written; people write "floods", "flooding",
"freshet", "1-in-50", "2 % annual chance" or "20 cfs". This module turns a text into a canonical form
(:func:`canonical`: synonyms and units rewritten, each word reduced to a light stem by :func:`stem`) that
keywords are matched against, and reads what the text asks beyond a playbook's intake:

- :func:`out_of_scope` names a question no playbook answers whatever its words (a flood depth, which
  streets flood, sediment, contaminant transport...) with what would be needed to answer it;
- :func:`trend_asked` says whether the question is about a change over time ("getting bigger", "drying
  up", "falling low flows", "rising levels") and of which series;
- :func:`now_words` lists the words that tie the question to the present ("currently", "this year");
- :func:`return_period` and :func:`flow_in_text` read a return period and a flow or volume with its unit.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Callable

__all__ = ["stem", "rewrite", "canonical", "matches", "text_matcher", "out_of_scope", "trend_asked", "now_words", "return_period",
           "flow_in_text", "pass_by_flow", "without_pass_by", "SCOPE_LIMITS"]

# Word forms and synonyms rewritten to the words the playbooks use (applied before stemming).
_SYNONYMS = (
    (r"\bfreshets?\b", "spring flood"),
    (r"\bspates?\b", "flood"),
    (r"\bhigh[- ]water (?:event|mark)s?\b", "flood"),
    (r"\bflash[- ]floods?\b", "flood"),
    (r"\bfloodwaters?\b", "flood"),
    (r"\bdeluges?\b", "flood"),
    (r"\bpeak discharges?\b", "peak flow"),
    (r"\bdry(?:ing)?[- ]up\b|\bdried[- ]up\b|\bruns? dry\b|\brunning dry\b|\bwent dry\b", "low flow drying"),
    (r"\bbase[- ]?flows?\b", "low flow"),
    (r"\bsummer flows?\b", "low flow"),
    (r"\bwater[- ]table\b", "groundwater level"),
    (r"\bbore[- ]?holes?\b", "borehole"),
    (r"\bpotable\b|\bto drink\b|\bdrinkable\b|\btap water\b|\bdrink\b(?!ing)", "drinking water"),
)
# Units written many ways, rewritten to one spelling each.
_UNIT_FORMS = (
    (r"\bcumecs?\b|\bcms\b|\bm\^?3\s*/\s*s(?:ec)?\b|\bm³/s\b|\bcubic met(?:re|er)s? (?:per|a) second\b", "m3/s"),
    (r"\bcfs\b|\bft\^?3\s*/\s*s\b|\bft³/s\b|\bcubic f(?:ee|oo)t (?:per|a) second\b|\bcusecs?\b", "ft3/s"),
    (r"\bml\s*/\s*d(?:ay)?\b|\bmld\b|\bmegalit(?:re|er)s? (?:per|a) day\b", "ml/d"),
    (r"\bmgd\b|\bmillion gallons (?:per|a) day\b", "mgd"),
    (r"\bacre[- ]?f(?:ee|oo)?t\b|\bacre[- ]?ft\b|\baf\b(?=\s*(?:/|per|a|each)\s*(?:yr|year|annum))", "acre-ft"),
    (r"\bl\s*/\s*s(?:ec)?\b|\blit(?:re|er)s? (?:per|a) second\b", "l/s"),
)

_KEEP = {"is", "was", "has", "gas", "its", "this", "bus", "yes", "less", "loss", "grass", "glass", "mass", "gis",
         "basis", "analysis", "status", "ccme", "series", "species", "always", "perhaps", "news", "spring", "during",
         "thing", "nothing", "something", "anything", "everything", "morning", "evening", "ceiling", "bring",
         "string", "wing", "ring", "king", "sing"}


def stem(word: str) -> str:
    """A light stem: plurals and -ing/-ed endings removed ("floods", "flooding", "flooded" -> "flood")."""
    w = word.lower()
    if len(w) <= 3 or w in _KEEP or not w.isalpha():
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("ing") and len(w) > 5:
        base = w[:-3]
        return base[:-1] if len(base) > 2 and base[-1] == base[-2] and base[-1] not in "ls" else base
    if w.endswith("ed") and len(w) > 4:
        base = w[:-2]
        return base[:-1] if len(base) > 2 and base[-1] == base[-2] and base[-1] not in "ls" else base
    if w.endswith(("ches", "shes", "sses", "xes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def rewrite(text: str) -> str:
    """The text lowercased with synonyms and units rewritten (words not stemmed)."""
    return _rewrite(text)


_REWRITES = tuple((re.compile(pattern), repl) for pattern, repl in (*_SYNONYMS, *_UNIT_FORMS))
_WORD = re.compile(r"[a-z]+")


def _rewrite(text: str) -> str:
    low = text.lower().replace("–", "-").replace("—", "-").replace("\u00a0", " ")
    for pattern, repl in _REWRITES:
        low = pattern.sub(repl, low)
    return low


def canonical(text: str) -> str:
    """The text lowercased, synonyms and units rewritten, every word stemmed."""
    return _WORD.sub(lambda m: stem(m.group(0)), _rewrite(text))


@lru_cache(maxsize=4096)
def _keyword_patterns(kw: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A keyword as written and in its canonical form, each bounded by non-word characters (the playbooks'
    keywords are a few hundred: compiled once each)."""
    bounded = r"(?<![a-z0-9])" + "{}" + r"(?![a-z0-9])"
    return re.compile(bounded.format(re.escape(kw))), re.compile(bounded.format(re.escape(canonical(kw))))


def matches(keyword: str, text: str) -> bool:
    """Whether ``keyword`` occurs in ``text`` as written or in any of its word forms."""
    return text_matcher(text)(keyword)


def text_matcher(text: str) -> Callable[[str], bool]:
    """:func:`matches` for one text and many keywords: the text is lowercased and made canonical once."""
    low = text.lower()
    canon: list[str] = []

    def match(keyword: str) -> bool:
        as_written, as_canonical = _keyword_patterns(str(keyword).lower())
        if as_written.search(low):
            return True
        if not canon:
            canon.append(canonical(text))
        return as_canonical.search(canon[0]) is not None

    return match


# ------------------------------------------------------------------------------------------- scope

# Questions the crew cannot answer from records and statistics, with what would answer them.
SCOPE_LIMITS = (
    {"topic": "flood depth",
     "pattern": r"\bhow deep\b|\bflood(?:ing)? depths?\b|\bdepths? of (?:the )?(?:flood|water|inundation)\b|"
                r"\b(?:water|flood) depths?\b|\bdepth of flooding\b|\bdeep (?:will|would) (?:the )?(?:water|flood)",
     "needs": "a hydraulic model of the reach (HEC-RAS or similar) built on surveyed channel cross-sections and a "
              "terrain model (LiDAR), run with the design flow, plus the ground and floor levels of the property"},
    {"topic": "inundation extent",
     "pattern": r"\binundat\w*\b|\bflood(?:ed)? (?:extent|area|map|mapping|outline|zone)s?\b|"
                r"\bflood ?plain (?:map|mapping|extent)s?\b|\bhow far (?:will|would|does|could) (?:the )?(?:[\w-]+ )?(?:water|flood)\b|"
                r"\b(?:spread|extend)s? (?:across|over|into) (?:the )?(?:fields?|flood ?plain|valley|town|streets?)\b|"
                r"\barea (?:that )?(?:will|would) (?:be )?flood",
     "needs": "a hydraulic model of the river and floodplain (1D/2D, e.g. HEC-RAS or LISFLOOD-FP) on a terrain "
              "model (LiDAR) with surveyed channel sections, run with the design flow; published flood maps "
              "(FEMA FIRMs, national flood-zone maps) where they exist"},
    {"topic": "which streets or buildings flood",
     "pattern": r"\b(?:which|what|how many) (?:of the )?(?:streets?|roads?|buildings?|houses?|homes?|propert(?:y|ies)|"
                r"neighbou?rhoods?|parts of (?:the )?(?:town|city)|blocks?|addresses)\b[^.?!]*\b(?:flood|under water|"
                r"inundat|wet)\w*|\b(?:will|would|does) (?:my|our|the) (?:house|home|street|property|building|"
                r"basement) (?:be )?flood\w*",
     "needs": "a hydraulic model with the floodplain's terrain (LiDAR) and building footprints and floor levels, "
              "or the published flood map of the area"},
    {"topic": "water levels at a structure",
     "pattern": r"\b(?:water|flood|river) (?:levels?|stages?|elevations?|heights?) (?:at|of|under|on|against|near) "
                r"(?:the |a |my |our )?(?:bridge|culvert|weir|dam|structure|house|property|building|wall|levee|"
                r"embankment|deck|soffit|road)\b|\bhow high (?:will|would|does|did|can) (?:the )?(?:water|river|"
                r"flood)\b|\bfreeboard\b|\bsoffit\b|\bafflux\b|\bbackwater\b|\bstage[- ]discharge\b|"
                r"\bovertop\w*\b|\bwater surface (?:elevation|profile)s?\b",
     "needs": "a stage-discharge rating or a hydraulic model at the structure (surveyed sections, the structure's "
              "geometry and levels); the crew estimates flows, and turns no flow into a level"},
    {"topic": "a water level or stage",
     "pattern": r"(?<!ground)(?<!ground )\b(?:water|flood|river|lake|peak|high[- ]water) (?:levels?|stages?|heights?|"
                r"elevations?|surface)\b|\b(?:river|flood|gauge|peak) stages?\b|\bstages? (?:of|at|will|would|reach)\w*|"
                r"\bgauge height\b|\b(?:what|which) (?:water )?(?:level|stage)s?\b|\bhow (?:high|far up) (?:will|would|does|did|can|is|could) (?:the )?(?:river|stream|flood|"
                r"water|it)\b|\bwater (?:reach|get|come|rise)s? (?:to|up to|above|over)\b",
     "unless": r"groundwater|aquifer|\bwells?\b|borehole|piezomet|water table",
     "needs": "a stage-discharge rating at the site (from gauged flows and levels) or a hydraulic model on surveyed "
              "channel sections, which turns a flow into a level; the crew can give the design flow that such a "
              "rating or model takes"},
    {"topic": "sediment",
     "pattern": r"\bsediment\w*\b|\bsilt\w*\b|\bscour\w*\b|\berosion\b|\beroding\b|\bbed ?load\b|"
                r"\bsuspended (?:load|solids)\b|\bturbidity current|\bdeposition\b",
     "needs": "sediment measurements (suspended-sediment samples with concentrations and flows, bed material) "
              "and a sediment transport or scour analysis (e.g. HEC-18 for bridge scour)"},
    {"topic": "contaminant transport",
     "pattern": r"\bplumes?\b|\bcontaminant transport\b|\b(?:pollut\w*|contaminant|spill|chemical)s? "
                r"(?:spread|travel|move|reach|migrat)\w*|\btravel times? of (?:a |the )?(?:spill|pollut\w*|"
                r"contaminant|dye)|\b(?:spread|disperse|migrate)s? (?:downstream|down the river|through the "
                r"aquifer)\b|\bhow far (?:will|would|does) (?:the )?(?:spill|pollut\w*|contamina\w*)|"
                r"\badvection\b|\bdispersion\b",
     "needs": "a transport model of the reach or aquifer (advection-dispersion, e.g. a tracer-calibrated river "
              "model or MODFLOW/MT3DMS) with the source, its load and the flows at the time; the crew judges "
              "measured samples against guidelines, it does not route a contaminant"},
)


def out_of_scope(text: str) -> dict[str, str] | None:
    """The first limit a question runs into ({topic, needs, matched}), or None when none applies."""
    low = _rewrite(text)
    for limit in SCOPE_LIMITS:
        m = re.search(limit["pattern"], low)
        if m and limit.get("unless") and re.search(limit["unless"], low):
            continue
        if m:
            return {"topic": limit["topic"], "needs": limit["needs"], "matched": m.group(0)}
    return None


# ------------------------------------------------------------------------------------------- trend

_CHANGE = (r"(?:getting|growing|becoming|gotten|grown|become|got) (?:\w+ )?(?:bigger|larger|worse|higher|more "
           r"(?:frequent|severe|common|intense|extreme)|lower|smaller|less|drier|wetter|rarer)|"
           r"\b(?:more|less) (?:frequent|often|common)\b|\bincreas\w*|\bdecreas\w*|\bdeclin\w*|\bris(?:e|es|ing)\b|"
           r"\bfall(?:s|ing)?\b|\bdrop(?:s|ping)?\b|\bshrink\w*|\bintensif\w*|\btrends?\b|\bchang(?:ed|ing)\b|"
           r"\blower and lower\b|\bhigher and higher\b|\bdrying\b|\bover (?:the )?(?:years|decades|time)\b")
# Change words that also describe an allowance or a scenario ("increased by 20 %", "a changing climate"): with a
# return period or a climate word beside them they do not make a trend question.
_WEAK = r"increas\w*|decreas\w*|chang(?:ed|ing)|ris(?:e|es|ing)|fall(?:s|ing)?|drop(?:s|ping)?|declin\w*"
# The series each trend question is about, with the words that name it (in canonical, unstemmed form).
_TREND_SERIES = (
    ("groundwater levels", r"groundwater|aquifer|\bwells?\b|borehole|piezomet|\bwater levels? in (?:my|the|our) well"),
    ("water quality", r"nitrate|phosph|ammonia|chloride|salinity|oxygen|e\. coli|coliform|quality|concentration"),
    ("low flows", r"low flows?|drying|\bdrought flows?\b|\bminimum flows?\b|\bdry season flows?\b"),
    ("floods", r"flood|peak flows?|annual maxim|high flows?|\bpeaks\b"),
    ("rainfall", r"rain|precipitation|drier|wetter|drought"),
    ("levels", r"\blevels?\b"),
)


def trend_asked(text: str) -> dict[str, str] | None:
    """{series, words} when the question asks whether something changes over time, else None.

    "Are floods here getting larger?" -> floods; "Is the river drying up?" -> low flows; "Are the levels in my
    well falling?" -> groundwater levels. A return period or a design quantity alone is not a trend question."""
    low = _rewrite(text)
    m = re.search(_CHANGE, low)
    if not m:
        return None
    if re.fullmatch(_WEAK, m.group(0)) and (return_period(text) is not None or re.search(r"climate", low)):
        # "the 100-year flood increased by 20 % for climate change" asks for a quantity, not a trend
        if not any(re.fullmatch(_WEAK, x.group(0)) is None for x in re.finditer(_CHANGE, low)):
            return None
    for series, pattern in _TREND_SERIES:
        if re.search(pattern, low):
            return {"series": series, "words": m.group(0)}
    return None


_NOW = r"\b(?:currently|current(?:ly)?|right now|at present|presently|at the moment|now|today|this (?:year|month|" \
       r"summer|winter|spring|autumn|fall|season|week)|last (?:summer|winter|spring|autumn|fall|month|season)|" \
       r"so far this year|these days|ongoing|still)\b"


def now_words(text: str) -> list[str]:
    """The words tying a question to the present ("currently", "right now", "this year", "last summer")."""
    return [m.group(0) for m in re.finditer(_NOW, text.lower())]


# ------------------------------------------------------------------------------------- numbers

def return_period(text: str) -> int | None:
    """A return period the text states: "100-year", "50 yr", "1 in 50", "1-in-50", "2 % annual chance", "0.5% AEP"."""
    low = text.lower().replace(",", "").replace("–", "-")
    m = re.search(r"\b1\s*(?:-\s*)?(?:in|/)\s*(?:-\s*)?(?:a\s+)?(\d+)(?:\s*-?\s*(?:years?|yrs?))?\b", low)
    if m and int(m.group(1)) > 1:
        return int(m.group(1))
    m = re.search(r"(\d+(?:\.\d+)?)\s*(?:%|percent|per cent)\s*(?:annual\s+|yearly\s+)?(?:aep\b|annual exceedance|"
                  r"exceedance|chance|probability)", low)
    if m and float(m.group(1)) > 0:
        return int(round(100.0 / float(m.group(1))))
    m = re.search(r"(\d+(?:\.\d+)?)\s*-?\s*(?:years?|yrs?|y)\b(?!\s*(?:of|record|old|ago))", low)
    if m and float(m.group(1)) >= 2:
        return int(float(m.group(1)))
    return None


# Flow or volume units -> (the playbook's unit, the factor to it, how it was read).
_FLOW_UNITS = {
    "m3/s": ("m3/s", 1.0),
    "l/s": ("l/s", 1.0),
    "ml/d": ("Ml/d", 1.0),
    "ft3/s": ("m3/s", 0.028316846592),
    "mgd": ("Ml/d", 3.785411784),
    "acre-ft": ("hm3/year", 0.001233481837548),
}
_HM3_YEAR = r"(?:hm3|hm³|million (?:m3|cubic met(?:re|er)s?))\s*(?:/|per\s+|a\s+|each\s+)\s*(?:yr|year|annum)\b"


def flow_in_text(text: str) -> dict[str, Any] | None:
    """The first flow (or volume per year) the text states: {value, unit, stated} in a unit a playbook takes.

    Read through :mod:`aquascope_core.units` (flows only: a volume such as a storage is not a demand): m3/s,
    l/s, Ml/d and hm3/year stay as stated; cfs and the rest become m3/s, million gallons a day Ml/d and
    acre-feet a year hm3/year; ``stated`` keeps the words as written so the conversion can be listed."""
    from aquascope_core import units

    flows = [q for q in units.quantities_in(text) if q["dimension"] == "flow"]
    if not flows:
        return None
    q = flows[0]
    num = re.match(r"[-−]?[\d.,]+", q["stated"])
    q = {**q, "stated": f"{num.group(0) if num else q['value']:} {'acre-ft' if q['unit'] == 'acre-ft/year' else q['unit']}"}
    keep = {"m3/s", "l/s", "Ml/d", "hm3/year"}
    to = q["unit"] if q["unit"] in keep else {"mgd": "Ml/d", "acre-ft/year": "hm3/year"}.get(q["unit"], "m3/s")
    if to == q["unit"]:
        return {"value": q["value"], "unit": to, "stated": q["stated"]}
    value = units.convert(q["value"], q["unit"], to)
    return {"value": float(f"{value:.3g}"), "unit": to, "stated": q["stated"], "converted": True}


_PASS_BY = r"(?:environmental|env\.?|ecological|compensation|pass[- ]?by|hands[- ]?off|residual|minimum) flows?"
_NONE_PASS_BY = re.compile(r"\b(?:no|without|zero|nil)\s+(?:an?\s+)?" + _PASS_BY + r"|\b" + _PASS_BY +
                           r"\s*(?:of|is|=|:)?\s*(?:0|zero|nil|none)\b(?![.,]\d)")
_WITH_PASS_BY = re.compile(r"\b" + _PASS_BY + r"\s*(?:of|is|=|:)?\s*(?P<a>\d[\d.,]*\s*[a-z0-9/³]+)|"
                           r"\b(?:leave|leaving|keep|keeping|pass)\s+(?:at least\s+)?(?P<b>\d[\d.,]*\s*[a-z0-9/³]+)"
                           r"\s+(?:in|down)\s+the\s+(?:river|stream|channel)")


def pass_by_flow(text: str) -> dict[str, Any] | None:
    """A flow the text says must stay in the river: {value (m3/s), stated, span}; 0 for "no environmental flow"."""
    low = _rewrite(text)
    m = _NONE_PASS_BY.search(low)
    if m:
        return {"value": 0.0, "stated": m.group(0), "span": m.span()}
    m = _WITH_PASS_BY.search(low)
    if not m:
        return None
    phrase = m.group("a") or m.group("b")
    got = flow_in_text(phrase)
    if not got or got["unit"] not in ("m3/s", "l/s", "Ml/d"):
        return None
    factor = {"m3/s": 1.0, "l/s": 0.001, "Ml/d": 1.0 / 86.4}[got["unit"]]
    return {"value": float(f"{got['value'] * factor:.3g}"), "stated": m.group(0), "span": m.span()}


def without_pass_by(text: str) -> str:
    """The text with its pass-by flow phrase removed (so that the demand is not read from it)."""
    got = pass_by_flow(text)
    if not got:
        return text
    low = _rewrite(text)
    return low[:got["span"][0]] + " " + low[got["span"][1]:]
