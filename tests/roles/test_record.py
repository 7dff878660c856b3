"""roles.specialists.record (time, the record period and the grade ceilings), roles.citations and roles.naming,
on hand-made decisions, runs and inventories whose answers are known."""

from __future__ import annotations

import copy

from roles.citations import cite_key, references, split_citations
from roles.naming import name_uploads
from roles.specialists.record import annotate, asks_now, cap_grade, listed_beyond, record_period

RUN = {"results": {"s1": {"status": "ok", "tool": "station_record",
                          "payload": {"period": {"start": "1957-01-01", "end": "1987-12-31"}, "variable": "precipitation",
                                      "station": {"station_id": "02472000"}}},
                   "s2": {"status": "ok", "tool": "standardized_precipitation_index", "payload": {}}}}
INVENTORY = {"datasets": [{"kind": "station", "station_id": "02472000", "name": "LEAF RIVER NR COLLINS, MS",
                           "distance_km": 0.006, "usable": True,
                           "variables": [{"variable": "precipitation", "period_start": "1957-01-01",
                                          "period_end": "1987-12-31", "years": 31.0, "usable": True}]}]}


def _decision(**extra):
    return {"answer": "In 1987-12 the site was in meteorological drought.", "value": -1.99, "grade": "A",
            "grade_reason": "every step passed its gates", **extra}


def test_the_record_period_and_a_stale_record_with_its_dates():
    assert record_period(RUN)["start"] == "1957-01-01" and record_period(RUN)["end"] == "1987-12-31"
    d = annotate(_decision(), {"today": "2026-12-01"}, {"plan": {}}, RUN, INVENTORY)
    assert "runs from 1957-01-01 to 1987-12-31" in d["answer"]
    assert d["time_notes"] == ["The record ends on 1987-12-31, 38 years before today (2026-12-01); whatever has "
                               "happened since is not in it."]
    assert d["grade"] == "A" and d["record"]["years_before_today"] == 38  # stale, but the question is not about now


def test_a_question_about_now_on_an_old_record_cannot_tell_today():
    assert asks_now("Is the river in drought right now?") and asks_now("how dry was it last summer")
    assert not asks_now("Is the Leaf River catchment in drought?")
    d = annotate(_decision(), {"today": "2026-12-01", "asks_now": True}, {"plan": {}}, RUN, INVENTORY)
    assert d["answer"].startswith("This record cannot tell today's state: it ends on 1987-12-31, 38 years before "
                                  "today. The latest state it shows: In 1987-12")
    assert d["grade"] == "C" and d["cannot_tell_now"]


def test_a_recent_record_is_not_stale_but_a_now_question_names_its_end():
    run = copy.deepcopy(RUN)
    run["results"]["s1"]["payload"]["period"] = {"start": "1945-01-01", "end": "2025-05-05"}
    d = annotate(_decision(), {"today": "2026-12-01"}, {"plan": {}}, run, {"datasets": []})
    assert d["time_notes"] == [] and d["grade"] == "A" and "cannot tell" not in d["answer"]
    # asked about now (issue 25): the headline names the record's last date and what it means, graded at most B
    d = annotate(_decision(), {"today": "2026-12-01", "asks_now": True}, {"plan": {}}, run, {"datasets": []})
    assert d["answer"].startswith("The record ends on 2025-05-05, 19 months before today (2026-12-01): the status "
                                  "below is the state at the record's end, not today's")
    assert d["grade"] == "B" and "cannot tell" not in d["answer"]
    run["results"]["s1"]["payload"]["period"] = {"start": "1945-01-01", "end": "2026-11-20"}
    d = annotate(_decision(), {"today": "2026-12-01", "asks_now": True}, {"plan": {}}, run, {"datasets": []})
    assert d["grade"] == "A" and not d["answer"].startswith("The record ends")  # within a month: current


def test_newer_data_listed_in_the_catalogue_is_said_with_dates_and_caps_the_grade():
    inv = {"datasets": [{"kind": "station", "station_id": "03606500", "name": "BIG SANDY", "distance_km": 4.9,
                         "usable": True, "variables": [
                             {"variable": "peak_discharge", "period_start": "1896-10-01", "period_end": "2025-09-30",
                              "years": 84.0, "usable": False},
                             {"variable": "peak_discharge", "period_start": "1897-01-01", "period_end": "1973-01-01",
                              "years": 47.0, "usable": True}]}]}
    run = {"results": {"s1": {"status": "ok", "payload": {"period": {"start": 1897, "end": 1973},
                                                          "variable": "peak_discharge",
                                                          "station": {"station_id": "03606500"}}}}}
    assert listed_beyond(inv, "03606500", "peak_discharge", 1973)["end_year"] == 2025
    assert listed_beyond(inv, "03606500", "peak_discharge", 2025) is None
    d = annotate(_decision(), {"today": "2026-12-01"}, {"plan": {}}, run, inv)
    assert "the years 1974 to 2025 are not in this answer" in d["time_notes"][0]
    assert d["grade"] == "B" and d["record"]["missing_from"] == 1974 and d["record"]["listed_end"] == 2025


def test_grade_ceilings_lower_never_raise():
    d = {"grade": "C", "grade_reason": "a fallback"}
    cap_grade(d, "B", "x")
    assert d == {"grade": "C", "grade_reason": "a fallback"}
    d = {"grade": "A", "grade_reason": "every step passed its gates"}
    cap_grade(d, "B", "the estimate is a maximum daily-mean flow")
    assert d["grade"] == "B" and d["grade_reason"].startswith("the estimate is a maximum daily-mean flow; ")
    # a step the plan judged marginal that ran never yields A
    study = {"plan": {"notes": ["step s2: GEV (L-moments) is marginal here (15 years of discharge)"]}}
    d = annotate(_decision(), {"today": "1988-02-01"}, study, RUN, INVENTORY)
    assert d["grade"] == "B" and "marginal" in d["grade_reason"]


def test_a_gauge_at_the_site_with_no_data_held_and_donors_on_one_regulated_main_stem():
    inv = {"datasets": [{"kind": "station", "source": "usgs", "station_id": "01446500",
                         "name": "Delaware River at Belvidere NJ", "distance_km": 0.0, "usable": False,
                         "variables": [{"variable": "peak_discharge", "period_start": "1903-10-01",
                                        "period_end": "2024-09-30", "usable": False}]}]}
    run = {"results": {"s1": {"status": "ok", "payload": {"candidates": [
        {"id": "01438500", "regulation": "regulated", "period": ["1945-01-01", "2025-05-05"]},
        {"id": "01463500", "regulation": "unknown", "period": ["1945-01-01", "2025-05-05"]}]}},
        "s2": {"status": "ok", "payload": {"donors": [{"id": "01438500", "name": "Delaware River at Montague NJ"},
                                                      {"id": "01463500", "name": "Delaware River at Trenton NJ"}]}}}}
    d = annotate({"answer": "Mean flow 223 m3/s.", "value": 223.0, "grade": "A"}, {"today": "2026-12-01"},
                 {"plan": {}}, run, inv)
    assert "a gauge at or very near the site, Delaware River at Belvidere NJ (usgs 01446500, 0 km away), with " \
           "records listed from 1903 to 2024" in d["answer"] and "before any transfer" in d["answer"]
    assert "lie on the same main stem (Delaware River)" in d["answer"] and d["grade"] == "B"
    assert "The donors' records run from 1945-01-01 to 2025-05-05." in d["answer"]


def test_citations_split_whole_and_once():
    joined = ("McKee, T.B. (1993) The relationship of drought frequency. 8th Conf.; Eqs. 58, 62, 65, 66; "
              "WMO (2012) Standardized Precipitation Index User Guide, WMO-No. 1090")
    assert split_citations(joined) == ["McKee, T.B. (1993) The relationship of drought frequency. 8th Conf; Eqs. 58, "
                                       "62, 65, 66.", "WMO (2012) Standardized Precipitation Index User Guide, "
                                       "WMO-No. 1090."]
    assert cite_key("England, J.F. Jr. et al. (2019) Guidelines for Determining Flood Flow Frequency") == \
        cite_key("England, J.F. Jr. et al. (2018, v1.1 2019) Guidelines for determining flood flow frequency")
    plan = {"methodology": ["Screen the peaks with the multiple Grubbs-Beck test (Cohn et al. 2013)."],
            "citations": ["Cohn, T.A. et al. (2013) A generalized Grubbs-Beck test statistic. WRR 49(8).",
                          "Dalrymple, T. (1960) Flood-frequency analyses. USGS Water-Supply Paper 1543-A."]}
    results = {"s1": {"status": "ok", "payload": {"meta": {"sources": [
        {"name": "x", "citation": "Cohn, T.A., England, J.F. (2013) A generalized Grubbs-Beck test statistic for "
                                  "detecting low outliers. WRR 49(8), 5047-5058."},
        {"name": "upload", "dataset": "levels.csv (uploaded csv; sha256 0123)"}]}}},
        "s2": {"status": "skipped", "payload": {"meta": {"sources": [{"name": "y", "citation": "Z, A. (2000) Never ran."}]}}}}
    refs = references(plan, results)
    assert refs == ["Cohn, T.A. et al. (2013) A generalized Grubbs-Beck test statistic. WRR 49(8)."]


def test_uploads_are_named_after_the_place():
    recon = {"point": {"lat": 44.5, "lon": -100.5},
             "stations": [{"source": "upload", "station_id": "rain.csv", "name": "rain.csv", "distance_km": 0.0}]}
    name_uploads(recon)
    assert recon["stations"][0]["name"] == "the site at latitude 44.5, longitude -100.5 (the user's record)"
    assert recon["stations"][0]["station_id"] == "rain.csv" == recon["stations"][0]["file"]
    recon = {"point": {"lat": 41.1, "lon": -74.96},
             "stations": [{"source": "usgs", "station_id": "01440000", "name": "Flat Brook", "distance_km": 0.9},
                          {"source": "upload", "station_id": "q.csv", "name": "q.csv", "distance_km": 0.0}]}
    assert name_uploads(recon)["stations"][1]["name"] == "Flat Brook (the user's record)"


def test_a_work_in_its_short_and_its_titled_wording_is_listed_once():
    """Supply's playbook names Hashimoto, Stedinger and Loucks (1982) in full and its tools in the short form."""
    full = ("Hashimoto, T., Stedinger, J.R. and Loucks, D.P. (1982) Reliability, resiliency, and vulnerability criteria "
            "for water resource system performance evaluation. Water Resources Research 18(1), 14-20.")
    short = "Hashimoto, Stedinger & Loucks (1982) Water Resour. Res. 18(1) 14-20."
    other = "McMahon, Adeloye & Zhou (2006) J. Hydrol. 324 359-382."
    plan = {"methodology": ["Resilience (Hashimoto, Stedinger and Loucks 1982)."], "citations": [full]}
    results = {"s1": {"status": "ok", "payload": {"meta": {"sources": [{"name": "x", "citation": f"{short}; {other}"}]}}}}
    assert references(plan, results) == [full, other]
    # the short form first: the titled wording takes its place
    assert references({}, {"s1": {"status": "ok", "payload": {"meta": {"sources": [
        {"name": "x", "citation": short}, {"name": "y", "citation": full}]}}}}) == [full]
    # two titled works of the same authors and year are two works
    a = "Smith, J. and Jones, K. (2001) Floods of the upper basin and their seasons. WRR 37, 1-10."
    b = "Smith, J. and Jones, K. (2001) Droughts of the lower basin and their spells. WRR 37, 11-20."
    assert references({}, {"s1": {"status": "ok", "payload": {"meta": {"sources": [
        {"name": "x", "citation": f"{a}; {b}"}]}}}}) == [a, b]
