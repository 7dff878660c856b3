"""Flat Brook (USGS 01440000): a design flood at a U.S. gauge with a daily record only, through the crew (keyless).

With the site's basin characteristics in the request, the headline is the USGS regression peak (ft3/s; New
Jersey's Valley and Ridge equations, Watson & Schopp 2009) and the maximum daily mean flow fit supports it.
Without them the crew asks for them: the study waits (the ``provide_data`` interrupt, as for any data request),
answered with the values (the plan is made again with the regression), a StreamStats report (the same), or
"continue without" (the plan goes on as it stands): the headline is then an indicative peak by Fuller's (1914)
ratio, graded C at most, "Not for design", the characteristics named as what would firm it up. The
characteristics are illustrative values for the test, not a StreamStats delineation.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from graphs.studio import Studio
from tests.core.data.test_streamstats import REPORT

FLAT_BROOK = (41.10, -74.96)
CHARS = ("Design flow for a road crossing, 100-year. Basin characteristics: DRNAREA 64.0, STORAGE 2.9, "
         "CSL10_85 20.0, POPDENS 40.0; Valley and Ridge region.")

pytestmark = pytest.mark.slow


def _run(tmp_path, text, tables=None, without=False):
    s = Studio(*FLAT_BROOK, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}", artifact_root=str(tmp_path / "art"))
    for name, content in (tables or {}).items():
        s.add_table(name, content)
    plan = s.say(text)
    if plan.kind == "data_request" and without:  # the crew asks for the characteristics; nobody brings them
        asked = plan
        plan = s.say("continue without")
        plan.asked = asked
    assert plan.kind == "plan", plan.text
    r = s.approve()
    ws = s.to_dict()
    s.close()
    return plan, r, ws


def test_with_basin_characteristics_the_regression_peak_is_the_headline(tmp_path):
    plan, r, ws = _run(tmp_path, CHARS)
    assert ws["brief"]["intake"]["basin_characteristics"] == "DRNAREA=64.0; STORAGE=2.9; CSL10_85=20.0; POPDENS=40.0"
    d = ws["findings"]["decision"]
    assert d["method"] == "nss_regression" and d["unit"] == "ft3/s" and d["quantity"] == "peak flow"
    assert d["value"] == pytest.approx(5004.8, rel=1e-4)  # the hand-worked NJ case of test_regression
    assert d["indicative"] is False and d["outside_range"] is False
    assert d["grade"] == "B"  # a regional regression estimate: the gauge's peak record, weighted in, would narrow it
    assert "100-year peak flow at Flat Brook near Flatbrookville NJ is 5,000 ft3/s" in d["answer"]
    assert "Watson and Schopp (2009)" in d["answer"] and "90 % prediction interval 2,020 to 12,400 ft3/s" in d["answer"]
    assert "its 100-year maximum daily mean flow is 4,880 ft3/s (138 m3/s)" in d["answer"]  # the daily-mean fit supports it
    assert r.kind == "report"


def test_a_streamstats_upload_gives_the_same_headline(tmp_path):
    _plan, _r, ws = _run(tmp_path, "Design flow for a road crossing, 100-year", {"streamstats.csv": REPORT})
    d = ws["findings"]["decision"]
    assert d["method"] == "nss_regression" and d["value"] == pytest.approx(5004.8, rel=1e-4)


def test_without_them_the_crew_asks_and_continued_without_the_headline_is_an_indicative_peak(tmp_path):
    plan, r, ws = _run(tmp_path, "Design flow for a road crossing, 100-year", without=True)
    asked = plan.asked
    assert asked.payload["request"]["stands_without"] is True and asked.payload["request"]["steps"] == ["s6"]
    assert asked.text.startswith("Data request: the site's basin characteristics") and "continue without" in asked.text
    # each characteristic New Jersey's equations take, with its unit, and where a user finds them
    req = asked.payload["request"]
    assert [(c["code"], c["unit"]) for c in req["characteristics"]] == [
        ("DRNAREA", "mi^2"), ("STORAGE", "%"), ("CSL10_85", "ft/mi"), ("POPDENS", "persons/mi^2")]
    # each said in words, and where a user finds it
    said = {c["code"]: c["description"] for c in req["characteristics"]}
    assert "drainage area" in said["DRNAREA"] and "lakes, ponds" in said["STORAGE"]
    assert "main-channel slope" in said["CSL10_85"] and "population density" in said["POPDENS"]
    assert all("StreamStats basin-characteristics report" in c["where"] for c in req["characteristics"])
    assert ("DRNAREA (mi^2): drainage area, the area of the basin upstream of the site; STORAGE (%): lakes, ponds, "
            "reservoirs and wetlands (storage), as a share of the basin; CSL10_85 (ft/mi): main-channel slope"
            ) in asked.text
    assert "POPDENS (persons/mi^2): population density of the basin" in asked.text
    assert "Valley and Ridge (GC1259)" in req["regions"] and "StreamStats" in req["where"] and "CSV" in req["where"]
    assert req["grade_without"] == "C" and "Not for design" in req["without"]
    assert req["needs"] == ["basin_characteristics"]
    assert [a.get("continued_without") for a in plan.payload["study"]["plan"]["asks"]] == [True]
    assert any(a.startswith("Continued without the data the plan asked for: the site's basin characteristics")
               for a in ws["brief"]["assumptions"])
    d = ws["findings"]["decision"]
    assert d["method"] == "fuller_indicative" and d["indicative"] is True and d["unit"] == "ft3/s"
    assert d["grade"] >= "C"  # C at most ("C" < "D" alphabetically; never A or B)
    assert d["answer"].startswith("Not for design: the peak is indicative")
    assert "indicatively" in d["answer"] and "DRNAREA (mi^2)" in d["answer"] and "StreamStats" in d["answer"]
    ratio = 1 + 2 * 64.0 ** -0.3  # Fuller on 165.8 km2 (64.0 mi2)
    daily = [k for k in ws["findings"]["key_numbers"] if k.get("method") == "gev_lmoments"
             and k.get("return_period") == 100][0]
    assert d["value"] == pytest.approx(daily["value"] * 35.3146667 * ratio, rel=2e-3)


def test_under_yes_the_cli_headline_is_the_indicative_peak(tmp_path):
    env = {**os.environ, "AQUASCOPE_HOME": str(tmp_path / "home"), "AQUASCOPE_DELIVERABLE_WORKERS": "0"}
    env.pop("AQUASCOPE_LIVE", None)
    run = subprocess.run([sys.executable, "-m", "graphs.cli", "studio", "Design flow for a road crossing, 100-year",
                          "--lat", "41.10", "--lon", "-74.96", "--yes", "--out", str(tmp_path / "out")],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Data request: the site's basin characteristics" in run.stdout  # the crew asked before --yes went on
    ws = json.loads((tmp_path / "out" / "workspace.json").read_text())
    d = ws["findings"]["decision"]
    assert d["method"] == "fuller_indicative" and d["grade"] >= "C" and d["indicative"] is True
    report = (tmp_path / "out" / "report.md").read_text()
    from roles.specialists.common import fmt

    assert f"indicatively {fmt(d['value'])} ft3/s" in report and "Fuller, W.E. (1914)" in report
    # nobody is there to bring them: the crew goes on without them, says so, and names them as what would firm it up
    assert ("Going on without the data the plan asks for (--yes): the site's basin characteristics for the USGS "
            "regression equations of NJ; the study will carry out the plan as it stands, which gives an indicative "
            "peak (Fuller 1914), marked \"Not for design\", graded at most C.") in run.stderr
    assert d["answer"].startswith("Not for design")
    firm = report.split("**Data that would firm this up.**", 1)[1].split("\n## ", 1)[0]
    assert ("the site's basin characteristics for the USGS regression equations of NJ (DRNAREA (mi^2): drainage "
            "area, the area of the basin upstream of the site; STORAGE (%): lakes, ponds") in firm
    assert "the gauge's instantaneous annual peak record" in firm  # a ratio on daily means is no peak record


def test_characteristics_said_at_the_plan_review_replan_with_the_regression(tmp_path):
    with Studio(*FLAT_BROOK, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}") as s:
        first = s.say("Design flow for a road crossing, 100-year")
        assert first.kind == "data_request" and s.pending() == "provide_data"
        again = s.say("Basin characteristics: DRNAREA 64.0, STORAGE 2.9, CSL10_85 20.0, POPDENS 40.0; Valley and "
                      "Ridge region.")
        assert again.kind == "plan" and not again.payload["study"]["plan"]["asks"]
        assert [st["tool"] for st in again.payload["study"]["steps"]][-1] == "nss_peak_regression"


def test_a_streamstats_report_brought_to_the_waiting_request_gives_the_regression(tmp_path):
    with Studio(*FLAT_BROOK, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}") as s:
        assert s.say("Design flow for a road crossing, 100-year").kind == "data_request"
        s.add_table("streamstats.csv", REPORT)
        again = s.reply()
        assert again.kind == "plan", again.text
        assert [st["tool"] for st in again.payload["study"]["steps"]][-1] == "nss_peak_regression"


def test_characteristics_without_the_region_the_plan_asks_for_it(tmp_path):
    """New Jersey has five regression regions: the characteristics alone do not pick the equations."""
    with Studio(*FLAT_BROOK, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}") as s:
        first = s.say(CHARS.replace(" Valley and Ridge region.", ""))
        assert first.kind == "data_request"
        assert first.payload["request"]["steps"] == ["s7"]
        assert ("Data request: which of the USGS regression regions of NJ the site lies in (Glaciated Piedmont "
                "(GC1255); Inner Coastal (GC1256); Outer Coastal (GC1257); Unglaciated Piedmont (GC1258); Valley and "
                "Ridge (GC1259))") in first.text
        again = s.say("Valley and Ridge region")
        assert again.kind == "plan" and not again.payload["study"]["plan"]["asks"]
        assert [st["tool"] for st in again.payload["study"]["steps"]][-1] == "nss_peak_regression"


def test_a_characteristic_outside_the_fitted_range_caps_the_grade(tmp_path):
    _plan, _r, ws = _run(tmp_path, CHARS.replace("POPDENS 40.0", "POPDENS 20.0"))  # the region's range is 35-1493
    d = ws["findings"]["decision"]
    assert d["method"] == "nss_regression" and d["outside_range"] is True and d["grade"] >= "C"
    assert "POPDENS lies outside the range the equations were fitted over" in d["answer"]
