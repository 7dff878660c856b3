"""The water_quality playbook: sites x expected branch, each planned and run keyless on the user's samples.

No water-quality data is embedded, so every row brings its samples as an upload placed at the site:

- the worked example of the CCME Water Quality Index 1.0 User's Manual (CCME 2001), North Saskatchewan River at
  Devon, Alberta, 1997 (ten parameters sampled monthly, with the manual's objectives), at Devon (53.36, -113.73),
  in the long layout of its transcription in the R package wqbc (data-raw/ccme.csv) or as a wide table;
- real monthly readings from the embedded catalogue for the long-record branches (no long water-quality record is
  embedded): the daily air temperature, precipitation, runoff and PET of the Au Saumon catchment (HOLMES, Quebec)
  on the 15th of each month, 1975-2003, placed at 45.48, -71.50 (the catchment's latitude; a longitude in its
  region). None of these has a water-quality guideline, which the rows use to show what is then not established.

The Devon index through the whole crew is checked against the manual's published 88 ("Good").
"""

from __future__ import annotations

import pandas as pd
import pytest

from aquascope_core.data import get_source
from aquascope_core.methods.trends import seasonal_mann_kendall
from roles.consultant import choose_playbook, read_intake

from .harness import plan_and_run

DEVON = (53.36, -113.73)
AU_SAUMON = (45.48, -71.50)
FLAT_BROOK = (41.10, -74.96)
DATES = ["1997-01-07", "1997-02-04", "1997-03-04", "1997-04-08", "1997-05-06", "1997-06-03",
         "1997-07-08", "1997-08-05", "1997-09-02", "1997-10-07", "1997-11-04", "1997-12-01"]
_ = None
# CCME (2001) User's Manual, Devon 1997 (via wqbc data-raw/ccme.csv; "Mg/L" written mg/L, "g/L" as ug/L)
DEVON_1997 = {
    "DO": ([11.4, 11, 11.5, 12.5, 10.4, 8.9, 8.5, 7.5, 9.2, 11, 12.1, 13.3], 5, None, "mg/L"),
    "pH": ([8, 7.9, 7.9, 7.9, 8.1, 8.2, 8.3, 8.2, 8.2, 8.1, 8, 8], 6.5, 9, "pH"),
    "TP": ([0.006, 0.005, 0.006, 0.058, 0.042, 0.108, 0.017, 0.008, 0.006, 0.008, 0.006, 0.004], None, 0.05, "mg/L"),
    "TN": ([0.16, 0.17, 0.132, 0.428, 0.25, 0.707, 0.153, 0.153, 0.13, 0.093, 0.296, 0.054], None, 1, "mg/L"),
    "FC": ([4, 0, 4, 0, 0, 26, 9, 8, 12, 12, 8, 4], None, 400, "#/dL"),
    "As": ([0.0002, 0, 0, 0, 0.0002, 0.0006, 0.0002, 0, 0.0003, 0, 0, 0], None, 0.05, "mg/L"),
    "Pb": ([0.0004, 0.0094, 0, 0.0008, 0.0008, 0.0013, 0.0004, 0, 0.0018, 0.0011, 0.0051, 0], None, 0.004, "mg/L"),
    "Hg": ([0, 0, 0, 0, 0, 0, _, 0, 0, 0, 0, 0], None, 0.1, "µg/L"),
    "2,4-D": ([0, _, _, 0.004, _, _, _, 0, _, 0, _, _], None, 4, "µg/L"),
    "Lindane": ([0, _, _, 0, _, _, _, 0, _, 0, _, _], None, 0.01, "µg/L"),
}


def _c(x) -> str:
    return "" if x is None else f"{x:g}"


def devon_long(*, objectives: bool = True, months: int = 12) -> str:
    lines = ["Date,Variable,Value" + (",LowerLimit,UpperLimit" if objectives else "") + ",Units"]
    for p, (values, lo, hi, unit) in DEVON_1997.items():
        for d, v in list(zip(DATES, values))[:months]:
            lines.append(f'{d},"{p}",{_c(v)}' + (f",{_c(lo)},{_c(hi)}" if objectives else "") + f",{unit}")
    return "\n".join(lines) + "\n"


def devon_wide(months: int = 12) -> str:
    cols = list(DEVON_1997)
    head = "date," + ",".join(f'"{p} ({DEVON_1997[p][3]})"' if p != "pH" else "pH" for p in cols)
    rows = [d + "," + ",".join(_c(DEVON_1997[p][0][i]) for p in cols) for i, d in enumerate(DATES[:months])]
    return "\n".join([head, *rows]) + "\n"


_HOLMES = {"air temperature": ("air_temperature", "degC"), "precipitation": ("precipitation", "mm/d"),
           "runoff": ("discharge", "mm/d"), "potential evapotranspiration": ("potential_evapotranspiration", "mm/d")}


def au_saumon_readings(*names: str) -> str:
    """The Au Saumon daily values on the 15th of each month, as a long table of readings."""
    src = get_source("holmes")
    lines = ["date,parameter,value,unit"]
    for name in names:
        var, unit = _HOLMES[name]
        s = src.fetch_series("au_saumon", var)
        s = s[s.index.day == 15]
        lines += [f"{d.date()},{name},{v:g},{unit}" for d, v in s.items()]
    return "\n".join(lines) + "\n"


def _monthly(name: str) -> pd.Series:
    var, _unit = _HOLMES[name]
    s = get_source("holmes").fetch_series("au_saumon", var)
    s = s[s.index.day == 15]
    return pd.Series(s.to_numpy(), index=s.index.to_period("M").to_timestamp())


ROWS = [
    # (id, (lat, lon), intake, tables, expected branch or "declined")
    ("devon_manual_objectives", DEVON, {}, {"devon_1997.csv": devon_long()}, "index"),
    ("devon_shipped_guidelines", DEVON, {}, {"devon_1997.csv": devon_long(objectives=False)}, "exceedances"),
    ("devon_first_quarter", DEVON, {}, {"devon_q1.csv": devon_long(months=3)}, "exceedances"),
    ("devon_wide_drinking_water", DEVON, {"use": "drinking water"}, {"devon_wide.csv": devon_wide(months=3)},
     "exceedances"),
    ("au_saumon_air_temperature", AU_SAUMON, {}, {"au_saumon_t.csv": au_saumon_readings("air temperature")}, "trend"),
    ("au_saumon_four_readings", AU_SAUMON, {},
     {"au_saumon_4.csv": au_saumon_readings("air temperature", "precipitation", "runoff", "potential evapotranspiration")},
     "trend"),
    ("devon_no_samples", DEVON, {}, {}, "declined"),
    ("flat_brook_gauge_no_samples", FLAT_BROOK, {}, {}, "declined"),
]


@pytest.fixture(scope="module")
def outcomes():
    return {rid: plan_and_run("water_quality", *site, intake=intake, tables=tables)
            for rid, site, intake, tables, _expected in ROWS}


@pytest.mark.parametrize("rid,site,intake,tables,expected", ROWS, ids=[r[0] for r in ROWS])
def test_sites_by_branch(outcomes, rid, site, intake, tables, expected):
    o = outcomes[rid]
    if expected == "declined":
        assert o.branch is None and o.run is None
        assert o.declined.startswith("No water-quality samples were given for this site")
        assert "Bring a table of samples: date, parameter, value, unit" in o.declined
        return
    assert o.declined is None and o.branch == expected
    assert o.study.plan["station"]["source"] == "upload"
    assert o.study.plan["station"]["station_id"] == next(iter(tables))
    res = o.run.results
    assert res["s1"].status == "ok"
    if expected == "index":
        assert [s.tool for s in o.study.steps] == ["water_quality_samples", "water_quality_exceedances",
                                                  "ccme_water_quality_index"]


def test_devon_index_is_the_published_88_good(outcomes):
    run = outcomes["devon_manual_objectives"].run
    assert run.ok and all(r.status == "ok" for r in run.results.values())
    ix = run.results["s3"].payload
    assert (ix["wqi_rounded"], ix["category"], ix["n_tests"]) == (88, "Good", 103)
    assert ix["wqi"] == pytest.approx(88.128, abs=1e-3) and ix["f1_scope"] == pytest.approx(20.0)
    ex = run.results["s2"].payload
    assert ex["exceeding_parameters"] == ["TP", "Pb"] and ex["n_exceeding_samples"] == 4


def test_devon_without_objectives_has_no_index_and_says_why(outcomes):
    """The shipped CCME table gives DO, pH and arsenic only (lead is hardness-dependent, phosphorus a trigger
    range): fewer than four parameters have an objective, so no index is planned (the plan says why); the
    exceedances are established."""
    out = outcomes["devon_shipped_guidelines"]
    assert [s.tool for s in out.study.steps] == ["water_quality_samples", "water_quality_exceedances"]
    assert "fewer than four of them with an objective for aquatic life" in " ".join(out.study.plan.get("rationale", "").split())
    ex = out.run.results["s2"]
    assert ex.status == "ok" and ex.payload["n_with_objective"] == 3 and ex.payload["n_exceeding_parameters"] == 0


def test_devon_first_quarter_exceedances(outcomes):
    """January-March 1997 (26 samples: 3 of eight parameters, 1 of each pesticide): lead 0.0094 mg/L on 4 February
    exceeds the manual's 0.004 (1 of 3 samples)."""
    run = outcomes["devon_first_quarter"].run
    assert run.ok
    ex = run.results["s2"].payload
    assert ex["exceeding_parameters"] == ["Pb"] and ex["n_exceeding_samples"] == 1 and ex["n_samples"] == 26
    pb = next(r for r in ex["by_parameter"] if r["parameter"] == "Pb")
    assert (pb["worst_value"], pb["worst_date"], pb["n_samples"]) == (0.0094, "1997-02-04", 3)


def test_devon_wide_table_against_who(outcomes):
    """The same samples as a wide table, against WHO drinking water: arsenic and lead (0.01 mg/L) only, none exceeded."""
    run = outcomes["devon_wide_drinking_water"].run
    assert run.ok
    ex = run.results["s2"].payload
    assert ex["guideline_set"] == "who_drinking_water"
    assert {r["parameter"]: r["upper"] for r in ex["by_parameter"]} == {"As": 0.01, "Pb": 0.01}
    assert ex["n_exceeding_parameters"] == 0
    caveats = " ".join(outcomes["devon_wide_drinking_water"].study.plan["caveats"])
    assert "WHO guideline values apply to water as it is drunk" in caveats


def test_au_saumon_trend_equals_the_seasonal_kendall(outcomes):
    o = outcomes["au_saumon_air_temperature"]
    run = o.run
    assert run.ok and run.results["s2"].status == "ok"
    t = run.results["s2"].payload["trends"][0]
    direct = seasonal_mann_kendall(_monthly("air temperature"), period=12, unit="degC")
    assert t["test"] == "seasonal_kendall" and t["n_years"] == 29
    assert (t["S"], t["p_value"], t["sen_slope"]) == (direct["S"], pytest.approx(direct["p_value"]),
                                                       pytest.approx(direct["sen_slope"]))
    # the optional exceedance step has nothing to compare air temperature with
    s3 = run.results["s3"]
    assert s3.status == "failed" and s3.optional and "no sampled parameter has an objective" in s3.failed_reason


def test_au_saumon_four_readings_reach_the_trend_but_no_index(outcomes):
    """Four parameters read monthly for 29 years meet the trend's minimum, but none has a water-quality
    guideline: no index is planned, the exceedances are not established with the reason; the trends are."""
    run = outcomes["au_saumon_four_readings"].run
    assert [(r.tool, r.status) for r in run.results.values()] == [
        ("water_quality_samples", "ok"), ("water_quality_trend", "ok"), ("water_quality_exceedances", "failed")]
    assert "no sampled parameter has an objective" in run.results["s3"].failed_reason
    tr = run.results["s2"].payload
    assert tr["tested_parameters"] == ["air temperature", "precipitation", "runoff", "potential evapotranspiration"]
    p = next(t for t in tr["trends"] if t["parameter"] == "precipitation")
    direct = seasonal_mann_kendall(_monthly("precipitation"), period=12, unit="mm/d")
    assert p["S"] == direct["S"] and p["p_value"] == pytest.approx(direct["p_value"])


def test_plain_questions_route_to_the_playbook_and_name_the_use():
    assert choose_playbook("Is the North Saskatchewan River fit for aquatic life? We have water quality samples.")[0] \
        == "water_quality"
    assert choose_playbook("Nitrate exceedances in our well samples: is the water safe to drink?")[0] == "water_quality"
    got = read_intake("water_quality", "Does the river meet drinking water guidelines for nitrate?")
    assert got.get("use") == "drinking water"


def test_the_whole_crew_reports_the_devon_index(tmp_path):
    """Keyless crew through the Studio: say the problem with the Devon table, approve, and the report's answer
    states the published index, 88 ("Good"), from the index step's result; the critique is clean."""
    from graphs.studio import Studio

    with Studio(*DEVON, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}",
                data={"devon_1997.csv": devon_long()}) as s:
        r = s.say("Is the North Saskatchewan River at Devon fit for aquatic life? Our 1997 water quality samples "
                  "are attached.")
        assert r.kind == "plan" and s.to_dict()["brief"]["playbook"] == "water_quality"
        r = s.approve()
        assert r.kind == "report" and r.payload["critique_ok"] is True
        assert 'is 88, "Good"' in r.text and "2 of 10 parameters failed" in r.text
        ws = s.to_dict()
        assert ws["run"]["results"]["s3"]["payload"]["wqi_rounded"] == 88
        assert ws["findings"]["decision"]["basis"] == "s3.wqi"
        inv = ws["inventory"]["datasets"][0]
        assert inv["kind"] == "upload" and inv["variables"][0]["variable"] == "water_quality"
        assert inv["variables"][0]["resolution"] == "sample"
        paths = s.export(tmp_path / "out")
        report = next(p for p in paths if p.name == "report.md").read_text()
        assert "CCME Water Quality Index 1.0" in report and "Tests and failures by parameter" in report
