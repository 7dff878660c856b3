"""The Consultant: turns the user's words into a brief the crew can plan from.

Keyless: keyword rules choose the playbook, intake hints are read from the text (a return period
such as "100-year", "1 in 50" or "1 % AEP"; the decision the text names), defaults fill the rest
and are listed as assumptions, and the gaps become at most three questions. "just go" (or an
approval with no answers) takes the defaults. With a model, the brief is read from the text by
one call whose reply is coerced through the playbook's intake; the keyless questions still cover
what the model left out.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from aquascope_core import playbooks, units
from aquascope_core.errors import InputError
from aquascope_core.request_checks import describe as describe_values
from aquascope_core.request_checks import meaningless_values
from aquascope_core.workspace import Workspace
from roles import basin, questions as parts_of, reading, uploads

__all__ = ["consultant", "choose_playbook", "read_intake", "consultant_payload", "JUST_GO"]

ROLE = "consultant"
JUST_GO = ("just go", "go ahead", "use the defaults", "defaults", "proceed", "go")

# Words that name the decision behind a flood question, mapped to the playbook's options.
_DECISION_WORDS = {
    "design flow": ("design flow", "design flood", "road crossing", "crossing", "culvert", "bridge", "spillway",
                    "design"),
    "risk screening": ("screening", "screen", "risk"),
    "insurance": ("insurance", "insurer", "premium"),
    "water-use restrictions": ("restriction", "hosepipe", "sprinkler ban", "rationing", "curtail"),
    "agricultural planning": ("crop", "farm", "agricultur", "planting", "grazing"),
    "drought monitoring": ("monitor",),
    "abstraction licensing": ("licen", "abstraction", "permit"),
    "drought response": ("drought response", "drought plan", "emergency"),
    "monitoring": ("monitor",),
}


def choose_playbook(text: str) -> tuple[str | None, dict[str, int]]:
    """The playbook whose keywords the text names most (ties: the first listed), with the scores.

    Keywords match in any word form ("floods", "flooding" for flood; see :mod:`roles.reading`). A trend
    question ("are floods getting larger?") goes to a playbook that declares the series in ``trend_of``."""
    scores: dict[str, int] = {}
    named = reading.text_matcher(text)  # the text read once for every keyword
    for pb in playbooks.list_playbooks():
        score = 0
        for kw in pb.get("keywords", []):
            if named(str(kw)):
                score += 2 if " " in str(kw) else 1
        if score:
            scores[pb["id"]] = score
    trend = reading.trend_asked(text)
    if trend:
        studies = [pid for pid in (p["id"] for p in playbooks.list_playbooks())
                   if trend["series"] in (playbooks.part(pid, "trend_of") or [])]
        if studies:
            best = max(studies, key=lambda pid: scores.get(pid, 0))
            scores[best] = max(scores.get(best, 0), max(scores.values(), default=0) + 1)
    if not scores:
        return None, {}
    best = max(scores.values())
    return next(pid for pid, s in scores.items() if s == best), scores


def _return_period(text: str) -> int | None:
    return reading.return_period(text)


_NUM = r"(\d+(?:[.,]\d+)?)"
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")


def _number(raw: str) -> float:
    return float(raw.replace(",", "."))


def _demand(low: str) -> tuple[float, str] | None:
    """The first number in the text followed by a flow or volume-per-year unit (cfs, mgd and acre-feet a
    year converted to a unit the playbook takes)."""
    got = reading.flow_in_text(low)
    return (got["value"], got["unit"]) if got else None


def _storage_hm3(low: str) -> float | None:
    """A storage volume in hm3: any volume the text states ("2 hm3", "5,000 acre-feet", "3 million m3"; not a
    volume per year, which is a demand), or a stated absence of storage (0)."""
    if re.search(r"\b(?:no|without)\s+(?:a\s+)?(?:storage|reservoir|dam)\b|run[- ]of[- ](?:the[- ])?river", low):
        return 0.0
    for q in units.quantities_in(low):
        if q["dimension"] == "volume" and q["value"] > 0:
            return float(f"{units.convert(q['value'], q['unit'], 'hm3'):.4g}")
    return None


def _share(low: str, words: str) -> float | None:
    """A share stated next to ``words``: "75 % efficiency", "efficiency of 0.8" -> 0.75, 0.8."""
    m = re.search(_NUM + r"\s*(%|percent)?\s*(?:" + words + ")", low) or \
        re.search(r"(?:" + words + r")\w*\s*(?:of|at|is|=|:)?\s*" + _NUM + r"\s*(%|percent)?", low)
    if not m:
        return None
    value = _number(m.group(1))
    return value / 100.0 if m.group(2) or value > 1 else value


def _reliability_pct(low: str) -> float | None:
    m = re.search(_NUM + r"\s*(?:%|percent)\s*(?:reliab|of the time|of days|of months|of years)", low) or \
        re.search(r"reliab\w*\s*(?:target\s*)?(?:of|at|is|=|:)?\s*" + _NUM + r"\s*(?:%|percent)", low)
    return _number(m.group(1)) if m else None


def _planting_month(low: str) -> int | None:
    """The month a crop is planted: "planted in April", "sown in late October", "planting mid-May"."""
    names = "|".join(_MONTHS) + "|" + "|".join(m[:3] for m in _MONTHS)
    verb = r"(?:plant|sow|sown|seed|transplant)\w*\s+(?:\w+\s+){0,4}?"
    m = re.search(verb + r"(?:in|on|from|during|at|by)\s+(?:early\s+|mid-?\s*|late\s+)?(" + names + r")\b", low) or \
        re.search(verb + r"(?:early|mid|late)[-\s]?(" + names + r")\b", low)
    if not m:
        return None
    return next(i for i, name in enumerate(_MONTHS, 1) if name.startswith(m.group(1)))


def _choice(q: Mapping[str, Any], low: str) -> Any:
    """An option the text names: the option itself at the start of a word, one of the item's
    ``aliases`` ({word: option}), or all the words of an option written with underscores ("winter
    wheat" for wheat_winter)."""
    options = q.get("options", [])

    def named(word: str) -> bool:
        return re.search(r"(?<![a-z0-9])" + re.escape(word.lower()), low) is not None

    for opt in options:
        if named(str(opt)):
            return opt
    for word, opt in (q.get("aliases") or {}).items():
        if opt in options and named(str(word)):
            return opt
    for opt in options:
        words = str(opt).lower().split("_")
        if len(words) > 1 and all(named(w) for w in words):
            return opt
    return None


# An area as a text states it: "250 km2", "96.5 sq mi", "1,200 square kilometres" (in km2).
_AREA = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(km2|km²|km\^2|sq\.?\s*km\b|square\s+kilomet(?:er|re)s?|"
                   r"mi2|mi²|sq\.?\s*mi(?:les?)?\b|square\s+miles?)")


def _area_km2(low: str) -> float | None:
    m = _AREA.search(low)
    if not m:
        return None
    value = float(m.group(1).replace(",", ""))
    return round(value * 2.589988, 1) if "mi" in m.group(2) else value


def _listed(q: Mapping[str, Any], low: str) -> list[str]:
    """The options of a list item the text names, by the option's words or the item's ``synonyms``."""
    found = []
    for opt in q.get("options") or []:
        words = [str(opt).replace("_", " ").lower(), *(str(w).lower() for w in (q.get("synonyms") or {}).get(opt, []))]
        if any(re.search(r"(?<![a-z0-9])" + re.escape(w) + r"(?![a-z0-9])", low) for w in words):
            found.append(opt)
    return found


def _timescales(low: str) -> list[int] | None:
    """Index time scales the text names: "SPI-6", "3-month", "3, 6 and 12 months" -> [3, 6, 12]."""
    found = {int(k) for k in re.findall(r"\b(?:spei|spi|ssi|sgi)[- ]?(\d{1,2})\b", low)}
    for m in re.finditer(r"\b(\d{1,2}(?:\s*(?:,|and|or)\s*\d{1,2})*)\s*-?\s*months?\b", low):
        found |= {int(k) for k in re.findall(r"\d{1,2}", m.group(1))}
    found = {k for k in found if 1 <= k <= 48}
    return sorted(found) or None


def _month_named(low: str) -> str | None:
    """A month the text names, as YYYY-MM: "1987-08", "August 1987"."""
    m = re.search(r"\b((?:18|19|20)\d{2})-(0[1-9]|1[0-2])\b(?!-?\d)", low)
    if m:
        return f"{m.group(1)}-{m.group(2)}"
    m = re.search(r"\b(" + "|".join(_MONTHS) + r")\s+((?:18|19|20)\d{2})\b", low)
    return f"{m.group(2)}-{_MONTHS.index(m.group(1)) + 1:02d}" if m else None


def _year_span(low: str) -> str | None:
    """A span of years the text names: "1990-2010", "from 1990 to 2010" -> "1990-2010"."""
    m = re.search(r"\b((?:18|19|20)\d{2})\s*(?:-|–|to|until)\s*((?:18|19|20)\d{2})\b", low)
    return f"{m.group(1)}-{m.group(2)}" if m and m.group(1) <= m.group(2) else None


# Readers of the intake fields that a number in the text states, by field name.
_READERS = {
    "timescales": _timescales,
    "as_of": _month_named,
    "period": _year_span,
    "area_km2": _area_km2,
    "storage_hm3": _storage_hm3,
    "area_ha": lambda low: (lambda m: _number(m.group(1)) if m else None)(
        re.search(_NUM + r"\s*(?:ha|hectares?)\b", low)),
    "planting_month": _planting_month,
    "application_efficiency": lambda low: _share(low, "efficien"),
    "reliability_target": _reliability_pct,
    "basin_characteristics": basin.read_characteristics,  # the USGS regression's inputs (flood_risk)
    "nss_region": basin.read_region,
}


def read_intake(playbook_id: str, text: str) -> dict[str, Any]:
    """The intake fields the text itself states (nothing else: defaults are applied later)."""
    pb = playbooks.load(playbook_id)
    low = text.lower()
    out: dict[str, Any] = {}
    names = {q["name"] for q in pb.get("intake", [])}
    said = reading.rewrite(text)  # synonyms and units in one spelling ("safe to drink" -> drinking water)
    for q in pb.get("intake", []):
        name = q["name"]
        if q.get("silent"):  # set by the Consultant's own reading (e.g. focus), never by a word match
            continue
        if name == "return_period":
            T = _return_period(text)
            if T is not None:
                out[name] = T
        elif name == "environmental_flow_m3s":
            got = reading.pass_by_flow(text)
            if got is not None:
                out[name] = got["value"]
        elif name == "demand":
            got = _demand(reading.without_pass_by(low))
            if got is not None:
                out["demand"] = got[0]
                if "demand_unit" in names:
                    out["demand_unit"] = got[1]
        elif name in _READERS:
            value = _READERS[name](low)
            if value is not None:
                out[name] = value
        elif q["type"] == "list" and q.get("options") and name not in out:
            named = _listed(q, low) or _listed(q, said)
            if named:
                out[name] = named
        elif q["type"] == "choice" and name not in out:
            opt = _choice(q, low) or _choice(q, said)
            if opt is not None:
                out[name] = opt
            elif name == "decision":
                for opt, words in _DECISION_WORDS.items():
                    if opt in q.get("options", []) and any(w in low for w in words):
                        out[name] = opt
                        break
    return out


def _questions(pb: Mapping[str, Any], stated: Mapping[str, Any]) -> list[dict[str, Any]]:
    qs = []
    for q in pb.get("intake", []):
        name = q["name"]
        if name in stated or q.get("optional"):
            continue
        if q.get("default") is None or name == "return_period":
            options = q.get("options")
            text = q.get("label", name)
            if q.get("default") is not None:
                text += f" (default {q['default']})"
            elif q.get("derive"):
                text += " (or \"just go\" to take it from the site's records)"
            qs.append({"field": name, "question": text, "options": options, "default": q.get("default")})
    return qs[:3]


def consultant(ws: Workspace, text: str | None = None, *, answers: Mapping[str, Any] | str | None = None,
               model: Any = None, proposed: Mapping[str, Any] | None = None) -> Workspace:
    """Write ``ws.brief`` from the problem text (and any answers to earlier questions).

    ``proposed`` is a brief a face's own model wrote (``{"brief": {"intake": ..., "questions": [...]},
    "source": "device"}``): it is coerced exactly like this role's model reply (unknown fields dropped)."""
    text = text if text is not None else ws.request.get("text", "")
    if not isinstance(text, str) or not text.strip():
        raise InputError("The problem text is empty. " + parts_of.help_text(""), argument="problem", value=text,
                         recovery="Give the problem as a sentence.")
    ws.status = "intake"
    ws.event(ROLE, "start", {"text": text})
    prior = dict(ws.brief or {})
    if parts_of.is_help(text) and not (prior.get("playbook") or ws.request.get("playbook")):
        return _decline(ws, text, parts_of.help_text(text), help=True)
    bad = meaningless_values(text, _today(ws))
    if bad:
        return _decline(ws, text, "The request states a value no study can take, so nothing was planned. "
                        + describe_values(bad) + " Which value is meant? Ask again with it.", bad_values=bad)
    parts = parts_of.split_questions(text)
    limit = reading.out_of_scope(text)
    answerable = [p for p in parts if reading.out_of_scope(p) is None]
    if limit is not None and (len(parts) < 2 or not answerable):
        return _decline(ws, text, scope_decline(limit), out_of_scope=limit["topic"])
    reading_text = " ".join(answerable) if limit is not None else text  # the questions a study can answer
    playbook_id = prior.get("playbook") or ws.request.get("playbook")
    scores: dict[str, int] = {}
    if not playbook_id:
        playbook_id, scores = choose_playbook(reading_text)
        first = choose_playbook(answerable[0])[0] if len(parts) > 1 and answerable else None
        if first is not None and first != playbook_id:  # a compound request: its first question leads
            playbook_id, scores = first, {**scores, first: max(scores.values(), default=0) + 1}
        if parts_of.status_now(reading_text) and playbook_id in (None, "ungauged_flow"):
            # the state of a low river now is a drought / low-flow status, not an estimate at an ungauged site
            playbook_id = "drought_status"
            scores = {**scores, "drought_status": max(scores.values(), default=0) + 1}
    if playbook_id is None:
        return _decline(ws, text, unread_decline(text))
    pb = playbooks.load(playbook_id)
    stated = {**(prior.get("intake_stated") or {}), **read_intake(playbook_id, text), **dict(ws.request.get("intake") or {})}
    if any(q["name"] == "basin_characteristics" for q in pb.get("intake", [])):  # a StreamStats report uploaded
        stated = {**basin.intake_from_tables(ws.tables), **stated}
    just_go = False
    if isinstance(answers, str):
        if answers.strip().lower() in JUST_GO:
            just_go = True
        else:
            stated.update(read_intake(playbook_id, answers))
    elif isinstance(answers, Mapping):
        stated.update({k: v for k, v in answers.items() if v is not None})
    source = "keyless"
    model_questions: list[dict[str, Any]] = []
    reply = None
    if proposed is not None:
        try:
            reply = _coerce_brief_reply(pb, proposed.get("brief", proposed))
        except ValueError as exc:
            ws.event(ROLE, "proposed_brief_rejected", {"reason": str(exc)})
        model_source = str(proposed.get("source") or "device")
    elif model is not None:
        reply = _model_brief(ws, model, text, pb)
        model_source = "model"
    if reply:
        stated = {**reply["intake"], **stated}
        model_questions = reply["questions"]
        source = model_source
    upload_qs: list[dict[str, Any]] = []
    if ws.tables:  # the uploads read with what the request (and any answer) says of them
        said = text + (" " + answers if isinstance(answers, str) else "")
        ws.tables = uploads.reconcile(ws.tables, said, playbook_id)
        upload_qs = uploads.upload_questions(ws.tables)
    trend = reading.trend_asked(text)
    if trend and "focus" in {q["name"] for q in pb.get("intake", [])} and "focus" not in stated:
        stated["focus"] = "trend"
    intake = playbooks.coerce_intake(pb, stated)
    questions = [] if just_go else _merge_questions(_questions(pb, stated), model_questions)
    questions = (upload_qs + questions)[:3] if upload_qs else questions
    assumed = [f"{q.get('label', q['name'])}: {intake.get(q['name'])} (default)" for q in pb.get("intake", [])
               if q["name"] not in stated and intake.get(q["name"]) is not None and not q.get("silent")
               and not q.get("derive")  # derived items are listed by the Scout, with how they were found
               and not (q.get("not_for") and q["not_for"] == intake.get("focus"))]  # unused by this question
    for name, entry in (ws.tables or {}).items():
        for k, v in (entry.get("read_from_request") or {}).items():
            assumed.append(f"Table {name}: {'the values are ' + str(v).replace('_', ' ') + 's' if k == 'variable' else 'unit ' + str(v)}, "
                           "as the request says")
    vol = next((q for q in units.quantities_in(text) if q["dimension"] == "volume"), None)
    if vol and vol["unit"] != "hm3" and "storage_hm3" in stated and stated["storage_hm3"]:
        assumed.append(f"The storage of {vol['stated']} is read as {stated['storage_hm3']:.3g} hm3")
    flow = reading.flow_in_text(text)
    if flow and flow.get("converted") and "demand" in stated:
        assumed.append(f"The demand of {flow['stated']} is read as {flow['value']:g} {flow['unit']}")
    ready = not questions or bool(ws.request.get("assume_defaults"))
    if upload_qs and (just_go or ws.request.get("assume_defaults")):
        ready = False  # nothing but the user can say what an uploaded column holds: declined, naming it
    before = dict(ws.brief or {})
    ws.brief = {
        "problem": text,
        "kind": pb.get("problem", playbook_id),
        "playbook": playbook_id,
        "playbook_scores": scores,
        "decision": intake.get("decision"),
        "quantities": _quantities(playbook_id, intake),
        "intake": intake,
        "intake_stated": stated,
        "assumptions": assumed,
        "questions": [] if ready else questions,
        "ready": ready,
        "source": source,
        "companions": playbooks.companions(text, playbook_id),
        "answer_unit": units.asked_unit(text, "flow"),
    }
    if before.get("asks_answered") and before.get("playbook") == playbook_id:
        # the data the plan asked for and the user went on without stays gone without when the brief is read again
        # (another return period in words): the plan asks no more, and the brief still says so
        ws.brief["asks_answered"] = list(before["asks_answered"])
        ws.brief["assumptions"] += [a for a in before.get("assumptions") or []
                                    if str(a).startswith("Continued without the data the plan asked for")]
    compound = parts_of.plan_parts(text, playbook_id)
    for comp in compound["companions"]:
        if comp["playbook"] not in ws.brief["companions"]:
            ws.brief["companions"].append(comp["playbook"])
    if compound["companions"]:
        ws.brief["questions_planned"] = compound["companions"]
        # each companion reads its own question ("what is its 10-year flood" -> return period 10)
        ws.brief["companion_intake"] = {c["playbook"]: read_intake(c["playbook"], c["question"])
                                        for c in compound["companions"]}
    if compound["not_answered"]:
        ws.brief["not_answered"] = compound["not_answered"]
    if compound.get("same_study"):
        ws.brief["same_study"] = compound["same_study"]
    # the question is about the present (today's state), which a record ending years ago cannot tell
    now = reading.now_words(text)
    ws.brief["asks_now"] = bool(now)
    if now:
        ws.brief["now_words"] = now
    if trend:
        ws.brief["trend"] = trend
    if prior.get("feedback"):
        ws.brief["feedback"] = list(prior["feedback"])
    if upload_qs and (just_go or ws.request.get("assume_defaults")):
        reason = ("The uploaded data cannot be used until what it holds is known, and nothing in the request or "
                  "the table says it: " + " ".join(q["question"] for q in upload_qs) +
                  " Correct the header (or say it in the request) and start the study again.")
        ws.brief = {**ws.brief, "ready": False, "questions": upload_qs, "declined_reason": reason}
        ws.status = "declined"
        ws.say(ROLE, reason, kind="declined")
        ws.event(ROLE, "declined", {"reason": reason})
        return ws
    if ready:
        ws.say(ROLE, f"Brief: {pb.get('title')}. " + (" ".join(f"{a}." for a in assumed) if assumed else ""),
               kind="text", payload={"brief": ws.brief})
    else:
        ws.status = "intake"
        ws.say(ROLE, "Before planning, a few questions: " + " ".join(q["question"] + "?" for q in questions),
               kind="questions", payload={"questions": questions})
    ws.event(ROLE, "brief", {"playbook": playbook_id, "ready": ready, "questions": len(ws.brief["questions"])})
    return ws


def _today(ws: Workspace) -> str | None:
    import os

    return (ws.brief or {}).get("today") or ws.request.get("today") or os.environ.get("AQUASCOPE_TODAY") or None


def _decline(ws: Workspace, text: str, reason: str, **extra: Any) -> Workspace:
    ws.brief = {"problem": text, "ready": False, "playbook": None, "source": "keyless", "declined_reason": reason,
                **extra}
    now = reading.now_words(text)
    if now:
        ws.brief.update({"asks_now": True, "now_words": now})
    ws.status = "declined"
    ws.say(ROLE, reason, kind="declined")
    ws.event(ROLE, "declined", {"reason": reason})
    return ws


def scope_decline(limit: Mapping[str, str]) -> str:
    """The sentence declining a question no study answers, naming what would answer it."""
    return (f"The question asks for {limit['topic']} (\"{limit['matched']}\"), which none of the crew's studies "
            f"can give: it works from records and statistics of flows, rainfall, levels and samples. Answering it "
            f"needs {limit['needs']}. The crew can supply an input to that work, for example the design flow "
            "(\"100-year design flow at the site\") or a water-quality status from samples.")


def _lower_first(title: str) -> str:
    return title[:1].lower() + title[1:] if title[1:2].islower() else title


def unread_decline(text: str) -> str:
    """The sentence declining a text the crew could not read as any study, with the studies it can do."""
    examples = {
        "flood_risk": "\"100-year design flood for a culvert\"",
        "drought_status": "\"Is the catchment in drought?\"",
        "groundwater_decline": "\"Is the groundwater level at my well falling?\" (with the well record)",
        "irrigation_feasibility": "\"Irrigation of 50 ha of maize planted in April\"",
        "supply_reliability": "\"Can we take 0.5 m3/s reliably for water supply?\"",
        "ungauged_flow": "\"Mean flow and Q95 at an ungauged site of 250 km2\"",
        "water_quality": "\"Does the river meet the aquatic-life guidelines?\" (with the samples)",
    }
    # each study by its title (the client's words, not the playbook's id), with a question it answers
    listed = "; ".join(f"{_lower_first(p.get('title') or pid.replace('_', ' '))} ({examples[pid]})" if pid in examples
                       else _lower_first(p.get("title") or pid.replace("_", " "))
                       for pid, p in ((p["id"], p) for p in playbooks.list_playbooks()))
    shown = text.strip() if len(text.strip()) <= 80 else text.strip()[:77] + "..."
    return (f"The question \"{shown}\" does not match any study the crew can do, so it was not planned. "
            f"Say which of these it is: {listed}.")


def _quantities(playbook_id: str, intake: Mapping[str, Any]) -> list[str]:
    if intake.get("focus") == "trend":
        return ["trend over the record (Mann-Kendall, Sen's slope)"]
    if playbook_id == "flood_risk" and intake.get("return_period"):
        return [f"{intake['return_period']}-year peak flow"]
    if playbook_id == "ungauged_flow" and intake.get("flows"):
        return [str(f).replace("_", " ") for f in intake["flows"]]
    return []


def _coerce_brief_reply(pb: Mapping[str, Any], obj: Any) -> dict[str, Any]:
    """A model's brief: the intake fields the playbook knows (coerced) and at most three questions."""
    intake = obj.get("intake") if isinstance(obj, Mapping) else None
    if not isinstance(intake, Mapping):
        raise ValueError("the reply needs an 'intake' object")
    known = {q["name"] for q in pb.get("intake", [])}
    cleaned = {k: v for k, v in intake.items() if k in known and v is not None}
    try:
        playbooks.coerce_intake(pb, cleaned)
    except InputError as exc:
        raise ValueError(str(exc)) from None
    qs = obj.get("questions") if isinstance(obj.get("questions"), list) else []
    questions = [{"field": None, "question": str(q).strip().rstrip("?"), "options": None, "default": None}
                 for q in qs if isinstance(q, str) and q.strip()][:3]
    return {"intake": cleaned, "questions": questions}


def _merge_questions(keyless: list[dict[str, Any]], model: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The keyless questions (the fields nothing gave) first, then the model's, at most three in one round."""
    return (list(keyless) + [q for q in model if q["question"] not in {k["question"] for k in keyless}])[:3] \
        if keyless else []


def consultant_payload(ws: Workspace, text: str, pb: Mapping[str, Any]) -> dict[str, Any]:
    """What the Consultant's model reads: the text, the site, the attached tables and a catalogue-only recon."""
    from aquascope_core.recon import assess_site

    nearby: list[dict[str, Any]] = []
    site = ws.site or {}
    if site.get("lat") is not None and site.get("lon") is not None:
        try:
            recon = assess_site(site["lat"], site["lon"], radius_km=float(ws.request.get("radius_km") or 50.0))
        except Exception:  # noqa: BLE001 - the recon is context for the model, never a reason to stop
            recon = {}
        for st in (recon.get("stations") or [])[:8]:
            nearby.append({"name": st.get("name"), "distance_km": st.get("distance_km"),
                           "holds": [v.get("variable") for v in st.get("variables") or [] if v.get("usable")]})
    tables = [{"name": name, "variables": [v.get("variable") for v in entry.get("variables") or []]}
              for name, entry in (ws.tables or {}).items()]
    return {"problem": text, "site": ws.site, "playbook": pb.get("id"), "tables": tables, "nearby": nearby,
            "intake": [{k: q.get(k) for k in ("name", "label", "type", "options", "default")} for q in pb.get("intake", [])]}


def _model_brief(ws: Workspace, model: Any, text: str, pb: Mapping[str, Any]) -> dict[str, Any] | None:
    from roles.prompts import CONSULTANT_SYSTEM

    return model.call_json(ws, ROLE, CONSULTANT_SYSTEM, consultant_payload(ws, text, pb),
                           lambda obj: _coerce_brief_reply(pb, obj))
