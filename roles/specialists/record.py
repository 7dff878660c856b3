"""What every answer says about time and the record it rests on, and the ceilings on its grade.

- the period of the record the answer rests on (the first established step whose payload states one);
- when that record ends well before today, or the catalogue lists newer data of the same kind for the same
  gauge than is held, a dated sentence saying so (the answer's and the limitations');
- a question about now (``brief["asks_now"]``, set by the Consultant's reading of the text) on a record that ends
  years ago: the answer says it cannot tell today's state and gives the latest state, dated;
- the ceilings on the grade: the gap between the quantity the decision needs and the one estimated (set by the
  kind's ``decide`` as ``quantity_gap``; a Not-for-design reason), a limit of an estimate that is the quantity
  needed (``grade_limit``: a regional regression the gauge's own peaks would narrow), a step the plan judged marginal, a record that misses recent years.

The numbers these sentences state (years, counts) are put in ``decision["record"]``, which the Critic's evidence
pool reads, so every number in them is checked like any other.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
from typing import Any, Mapping

__all__ = ["asks_now", "near_gauge_sentence", "record_period", "listed_beyond", "annotate", "cap_grade", "STALE_YEARS", "GRADE_ORDER"]

# a record that ends this many years before today is "well before today"
STALE_YEARS = 3.0
# the kinds whose answer is a state (as of a month), which an old record gives only as it was then
STATUS_KINDS = ("drought_status", "groundwater_decline", "water_quality")
GRADE_ORDER = ("A", "B", "C", "D")
_WORDS = {"discharge": "daily discharge", "peak_discharge": "annual peak discharge",
          "annual_max_discharge": "annual maximum discharge", "precipitation": "precipitation",
          "groundwater_level": "groundwater level", "potential_evapotranspiration": "potential evapotranspiration"}


# words that put a question in the present (the reading of the text may widen them)
_NOW = re.compile(r"\b(?:now|right now|currently|current(?:ly)?|at present|presently|today|these days|this "
                  r"(?:year|month|season|summer|winter|spring|autumn|fall|week)|last (?:summer|winter|spring|autumn|"
                  r"fall|month|season)|at the moment|ongoing|still)\b", re.I)


def asks_now(text: str) -> bool:
    """Whether a question asks about the present state ("is it in drought right now?", "this summer")."""
    return bool(_NOW.search(text or ""))


def _as_date(x: Any, *, end: bool) -> _dt.date | None:
    """A date from '1987-12-31', '1987-12', 1973 or '1973' (a year or a month as its last or first day)."""
    if x is None:
        return None
    s = str(x).strip()
    m = re.fullmatch(r"(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?(?:[T ].*)?", s)
    if not m:
        return None
    y, mo, d = int(m.group(1)), m.group(2), m.group(3)
    if d:
        return _dt.date(y, int(mo), int(d))
    if mo:
        mo = int(mo)
        if not end:
            return _dt.date(y, mo, 1)
        nxt = _dt.date(y + (mo == 12), mo % 12 + 1, 1)
        return nxt - _dt.timedelta(days=1)
    return _dt.date(y, 12, 31) if end else _dt.date(y, 1, 1)


def _agency_site(run: Mapping[str, Any]) -> str | None:
    """The agency's number of the gauge an uploaded USGS peak file (WATSTORE/RDB) names (its ``site_no``, which the
    Bulletin 17C step carries), so the catalogue's listing of that gauge is found for an upload as for the embedded
    record."""
    for r in (run.get("results") or {}).values():
        site = str((((r or {}).get("payload") or {}).get("peakfq") or {}).get("site_no") or "").split(".")[0]
        if site:
            return site
    return None


def record_period(run: Mapping[str, Any]) -> dict[str, Any] | None:
    """``{start, end, step, what}`` of the record the answer rests on, or None when no step states a period."""
    for sid, r in (run.get("results") or {}).items():
        if r.get("status") != "ok":
            continue
        p = r.get("payload") or {}
        per = p.get("period") if p.get("period") is not None else p.get("period_used")
        start = end = None
        if isinstance(per, Mapping):
            start, end = per.get("start", per.get("first_month")), per.get("end", per.get("last_month"))
        elif isinstance(per, (list, tuple)) and len(per) == 2:
            start, end = per
        elif p.get("water_years"):
            start, end = min(p["water_years"]), max(p["water_years"])
        if start is not None and end is not None:
            return {"start": start, "end": end, "step": sid, "variable": p.get("variable"),
                    "station": (p.get("station") or {}).get("station_id") if isinstance(p.get("station"), Mapping)
                    else None, "site_no": _agency_site(run)}
    # a transfer rests on its donors' records: the span they cover together
    for sid, r in (run.get("results") or {}).items():
        spans = [c.get("period") for c in (r.get("payload") or {}).get("candidates") or []
                 if isinstance(c, Mapping) and isinstance(c.get("period"), (list, tuple)) and len(c["period"]) == 2]
        if r.get("status") == "ok" and spans:
            return {"start": min(str(a) for a, _ in spans), "end": max(str(b) for _, b in spans), "step": sid,
                    "variable": None, "station": None, "donors": True}
    return None


# a published series of annual maxima continues in the gauge's annual peak record (and the other way round)
_SAME_RECORD = {"annual_max_discharge": ("annual_max_discharge", "peak_discharge"),
                "peak_discharge": ("peak_discharge", "annual_max_discharge")}


def listed_beyond(inventory: Mapping[str, Any], station_id: str | None, variable: str | None,
                  held_end: Any) -> dict[str, Any] | None:
    """The catalogue's listing of ``variable`` at ``station_id`` that is not held and reaches past ``held_end``."""
    if not station_id or not variable:
        return None
    end = _as_date(held_end, end=True)
    for d in inventory.get("datasets") or []:
        if str(d.get("station_id")) != str(station_id):
            continue
        for v in d.get("variables") or []:
            if v.get("variable") not in _SAME_RECORD.get(variable, (variable,)) or v.get("usable"):
                continue
            lend = _as_date(v.get("period_end"), end=True)
            if lend and (end is None or lend.year > end.year):
                return {"variable": v.get("variable"), "period_start": v.get("period_start"), "period_end": v.get("period_end"),
                        "end_year": lend.year, "values": v.get("years"), "unit": v.get("unit"), "name": d.get("name")}
    return None


def _today(brief: Mapping[str, Any]) -> _dt.date:
    """Today as the answer counts it: the brief's ``today``, else $AQUASCOPE_TODAY (YYYY-MM-DD, for reports that
    must read the same on any day, such as the case table), else the calendar's."""
    for given in (brief.get("today"), os.environ.get("AQUASCOPE_TODAY")):
        t = _as_date(given, end=False) if given else None
        if t:
            return t
    return _dt.date.today()


def _words(x: Any) -> str:
    """A period bound as the answer writes it: a date (YYYY-MM-DD), a month or a year."""
    return str(x)[:10]


def cap_grade(decision: dict[str, Any], ceiling: str, why: str) -> None:
    """Lower the decision's grade to ``ceiling`` (never raise it), adding ``why`` to its reason."""
    grade = decision.get("grade")
    if grade not in GRADE_ORDER or GRADE_ORDER.index(grade) >= GRADE_ORDER.index(ceiling):
        return
    decision["grade"] = ceiling
    decision["grade_reason"] = f"{why}; {decision.get('grade_reason') or ''}".rstrip("; ")


def annotate(decision: dict[str, Any], brief: Mapping[str, Any], study: Mapping[str, Any], run: Mapping[str, Any],
             inventory: Mapping[str, Any]) -> dict[str, Any]:
    """Add the record period, staleness, the 'now' reading and the grade ceilings to a kind's decision."""
    if decision.get("value") is None and decision.get("grade") == "not established":
        return decision
    plan = study.get("plan") or {}
    answer = decision.get("answer") or ""
    notes: list[str] = list(decision.get("time_notes") or [])
    facts: dict[str, Any] = dict(decision.get("record") or {})
    per = decision.get("record_period") or record_period(run)
    today = _today(brief)
    if per:
        start, end = per["start"], per["end"]
        facts.update({"start": start, "end": end})
        from aquascope_core.deliverables.flood_inputs import record_sentence

        # a frequency analysis with historical information states its record in the one form the report uses
        b17c = next((t for t in (record_sentence((r or {}).get("payload") or {})
                                 for r in (run.get("results") or {}).values()) if t), "")
        if b17c:
            answer += f" The record this rests on: {b17c}."
        elif not (_words(start)[:4] in answer and _words(end)[:4] in answer):
            whose = "The donors' records run" if per.get("donors") else "The record this rests on runs"
            answer += f" {whose} from {_words(start)} to {_words(end)}."
        end_d = _as_date(end, end=True)
        station = (plan.get("station") or {})
        # the gauge by the record's station id, else by the agency's number an uploaded peak file names
        listed = None
        for sid in dict.fromkeys((per.get("station") or station.get("station_id"), per.get("site_no") or _agency_site(run))):
            listed = listed_beyond(inventory, sid, per.get("variable") or plan.get("variable"), end)
            if listed:
                break
        if listed:
            facts.update({"listed_end": listed["end_year"], "listed_values": listed["values"],
                          "missing_from": end_d.year + 1 if end_d else None})
            word = _WORDS.get(listed["variable"], listed["variable"].replace("_", " "))
            n = listed.get("values")
            sent = (f"The catalogue lists {word} for {listed['name'] or 'this gauge'} up to {listed['end_year']}"
                    + (f" ({n:g} values)" if isinstance(n, (int, float)) else "")
                    + f", which is not held offline: the years {end_d.year + 1} to {listed['end_year']} are not in "
                    "this answer; the live source (--live) or an upload of that record would add them.")
            notes.append(sent)
            answer += f" The record held ends in {end_d.year}, while the catalogue lists this gauge's {word} up to " \
                      f"{listed['end_year']}: the years since are not in this answer (bring them with the live source, " \
                      "--live, or as an upload of the gauge's record)."
            cap_grade(decision, "B", f"the record held ends in {end_d.year} while data to {listed['end_year']} exists")
        if end_d is not None:
            gap = (today - end_d).days / 365.25
            if gap >= STALE_YEARS:
                facts["years_before_today"] = int(gap)
                ended = f"in {end}" if re.fullmatch(r"\d{4}", str(end)) else f"on {end_d.isoformat()}"
                notes.append(f"The record ends {ended}, {int(gap)} years before today "
                             f"({today.isoformat()}); whatever has happened since is not in it.")
                if not brief.get("asks_now") and brief.get("kind") in STATUS_KINDS:
                    answer += (f" The record ends {ended}, {int(gap)} years before today: this is the state it "
                               "shows then; today's is not known from it.")
                    cap_grade(decision, "B", f"the status is that of a record ending {int(gap)} years before today")
                if brief.get("asks_now"):
                    decision["cannot_tell_now"] = True
                    answer = (f"This record cannot tell today's state: it ends {ended}, {int(gap)} years "
                              f"before today. The latest state it shows: {answer}")
                    cap_grade(decision, "C", "the question is about now and the record ends years ago")
            elif brief.get("asks_now") and (today - end_d).days > 31:
                months = (today.year - end_d.year) * 12 + today.month - end_d.month
                ended = f"in {end}" if re.fullmatch(r"\d{4}", str(end)) else f"on {end_d.isoformat()}"
                facts["months_before_today"] = months
                decision["cannot_tell_now"] = True
                answer = (f"The record ends {ended}, {months} months before today ({today.isoformat()}): the status "
                          f"below is the state at the record's end, not today's; a newer record (the live source, "
                          f"--live, or an upload running to this month) would tell the state now. {answer}")
                notes.append(f"The record ends {ended}, {months} months before today ({today.isoformat()}).")
                cap_grade(decision, "B", "the question is about now and the record ends months before today")
    marginal = [n for n in plan.get("notes") or [] if "is marginal here" in str(n)]
    ran = {sid for sid, r in (run.get("results") or {}).items() if r.get("status") == "ok"}
    if any(str(n).split(":")[0].replace("step ", "").strip() in ran for n in marginal):
        cap_grade(decision, "B", "a step of the plan is marginal at this site")
    # a quantity gap (the estimate is not the quantity the decision needs) or a grade limit (it is, with a named
    # limit): either caps the grade and names the record that would lift it; only the gap is a Not-for-design reason
    asked_for: set[str] = set()
    for gap_q in [g for g in (decision.get("quantity_gap"), decision.get("grade_limit")) if g]:
        cap_grade(decision, gap_q.get("ceiling", "B"), gap_q["why"])
        needed = listed_beyond(inventory, (plan.get("station") or {}).get("station_id"), gap_q.get("needs"), None)
        if needed and needed["variable"] not in asked_for:
            asked_for.add(needed["variable"])
            word = _WORDS.get(needed["variable"], needed["variable"].replace("_", " "))
            n = needed.get("values")
            facts["needed_values"] = n
            facts["needed_end"] = needed["end_year"]
            answer += (f" The catalogue lists {word} for {needed['name']}"
                       + (f" ({n:g} values)" if isinstance(n, (int, float)) else "")
                       + f" up to {needed['end_year']}, not held offline: that record is the one to bring"
                       + (_bring_peaks((plan.get("station") or {}).get("station_id")) if "peak" in needed["variable"]
                          else "."))
    answer = _site_notes(answer, decision, run, inventory, facts)
    decision["answer"] = answer
    decision["time_notes"] = notes
    decision["record"] = facts
    from roles.specialists.design_use import mark_not_for_design

    return mark_not_for_design(decision, brief, run, today)


def _bring_peaks(station_id: Any) -> str:
    """How the gauge's annual peaks reach a study: fetched once online, or the USGS peak file uploaded."""
    return (f" (`aquascope fetch --lat .. --lon .. --station {station_id} --what peaks` online, or upload the USGS "
            "peak file, WATSTORE or RDB).")


# a gauge this close to the site is "at or very near" it
NEAR_KM = 2.0
_RIVER = re.compile(r"^(.*?)\s+(?:at|near|nr|abv|above|blw|below|@)\s+", re.I)


def _river(name: str | None) -> str | None:
    m = _RIVER.match(str(name or ""))
    return " ".join(m.group(1).lower().split()) if m else None


def near_gauge_sentence(inventory: Mapping[str, Any], facts: dict[str, Any] | None = None) -> str | None:
    """The sentence naming a catalogued gauge at or very near the site whose data is not held (None when a record
    near the site is held, or no gauge is that near); its years go into ``facts``."""
    facts = {} if facts is None else facts
    near = [d for d in inventory.get("datasets") or [] if d.get("kind") == "station"
            and isinstance(d.get("distance_km"), (int, float)) and d["distance_km"] <= NEAR_KM]
    if not near or any(d.get("usable") for d in near):
        return None
    g = min(near, key=lambda d: d["distance_km"])
    listed = [v for v in g.get("variables") or [] if v.get("period_end") and v.get("period_start")]
    span = ""
    if listed:
        y0 = int(str(min(v["period_start"] for v in listed))[:4])
        y1 = int(str(max(v["period_end"] for v in listed))[:4])
        facts.update({"near_gauge_from": y0, "near_gauge_to": y1})
        span = f", with records listed from {y0} to {y1}"
    facts["near_gauge_km"] = g["distance_km"]
    return (f"The catalogue holds a gauge at or very near the site, {g.get('name')} ({g.get('source')} "
            f"{g.get('station_id')}, {g['distance_km']:g} km away){span}, whose data is not held offline: its record "
            "(with the live source, or as an upload) should be used before any transfer from other catchments.")


def _site_notes(answer: str, decision: dict[str, Any], run: Mapping[str, Any], inventory: Mapping[str, Any],
                facts: dict[str, Any]) -> str:
    """A catalogued gauge at or very near the site whose data is not held; donors on one regulated main stem."""
    sentence = near_gauge_sentence(inventory, facts)
    if sentence:
        answer += " " + sentence
        cap_grade(decision, "B", "a gauge at the site has a record that was not used")
    donors: list[dict[str, Any]] = []
    regulation: dict[str, Any] = {}
    for r in (run.get("results") or {}).values():
        p = r.get("payload") or {}
        for c in p.get("candidates") or []:
            if isinstance(c, Mapping) and c.get("id"):
                regulation[str(c["id"])] = c.get("regulation")
        for d in p.get("donors") or []:
            if isinstance(d, Mapping) and d.get("name"):
                donors.append(dict(d))
    by_river: dict[str, list[dict[str, Any]]] = {}
    for d in donors:
        key = _river(d.get("name"))
        if key and all(x.get("name") != d.get("name") for x in by_river.get(key, [])):
            by_river.setdefault(key, []).append(d)
    for river, ds in by_river.items():
        reg = [regulation.get(str(d.get("id"))) or d.get("regulation") for d in ds]
        if len(ds) >= 2 and any(x == "regulated" for x in reg):
            names = ", ".join(d["name"] for d in ds)
            answer += (f" The donors {names} lie on the same main stem ({river.title()}), regulated by reservoirs "
                       "upstream: they are not independent of one another, and their low flows carry the "
                       "regulation's releases, not the natural regime.")
            cap_grade(decision, "B", "donors on one regulated main stem")
    return answer
