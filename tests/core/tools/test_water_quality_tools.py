"""The water-quality tools on the user's samples, read through the upload path.

The main case is the worked example of the CCME Water Quality Index 1.0 User's Manual (CCME 2001): the North
Saskatchewan River at Devon, Alberta, 1997, ten parameters sampled monthly with the objectives used there, as
transcribed by the R package wqbc (British Columbia government), data-raw/ccme.csv: date, variable, value,
detection limit, lower and upper limit, units. Two units are written as the manual gives them where the
transcription lost a character: "Mg/L" as mg/L, and "g/L" (mercury, 2,4-D, lindane: objectives 0.1, 4 and
0.01) as ug/L, the micro sign having been dropped. The trend tools run on real monthly series (Bogra rainfall,
the published pyMannKendall test series; the Au Saumon air temperature of the embedded HOLMES catalogue), each
cross-checked against the trend method called directly.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from aquascope_core.catalogue import TOOLS, schema, validate_step
from aquascope_core.data import get_source
from aquascope_core.errors import DataNotFoundError, InputError
from aquascope_core.methods.trends import mann_kendall, seasonal_mann_kendall
from aquascope_core.methods.water_quality import ccme_water_quality_index as ccme_method
from aquascope_core.recon import assess_site
from aquascope_core.tools import water_quality as wq
from aquascope_core.tools.context import DataContext, table_entry

DEVON = (53.36, -113.73)
DATES = ["1997-01-07", "1997-02-04", "1997-03-04", "1997-04-08", "1997-05-06", "1997-06-03",
         "1997-07-08", "1997-08-05", "1997-09-02", "1997-10-07", "1997-11-04", "1997-12-01"]
_ = None  # not sampled that month
# parameter: (values by month, detection limit, lower, upper, unit) -- CCME (2001) User's Manual, via wqbc
DEVON_1997 = {
    "DO": ([11.4, 11, 11.5, 12.5, 10.4, 8.9, 8.5, 7.5, 9.2, 11, 12.1, 13.3], None, 5, None, "mg/L"),
    "pH": ([8, 7.9, 7.9, 7.9, 8.1, 8.2, 8.3, 8.2, 8.2, 8.1, 8, 8], None, 6.5, 9, "pH"),
    "TP": ([0.006, 0.005, 0.006, 0.058, 0.042, 0.108, 0.017, 0.008, 0.006, 0.008, 0.006, 0.004], None, None, 0.05, "mg/L"),
    "TN": ([0.16, 0.17, 0.132, 0.428, 0.25, 0.707, 0.153, 0.153, 0.13, 0.093, 0.296, 0.054], None, None, 1, "mg/L"),
    "FC": ([4, 0, 4, 0, 0, 26, 9, 8, 12, 12, 8, 4], 4, None, 400, "#/dL"),
    "As": ([0.0002, 0, 0, 0, 0.0002, 0.0006, 0.0002, 0, 0.0003, 0, 0, 0], 0.0002, None, 0.05, "mg/L"),
    "Pb": ([0.0004, 0.0094, 0, 0.0008, 0.0008, 0.0013, 0.0004, 0, 0.0018, 0.0011, 0.0051, 0], 0.0003, None, 0.004, "mg/L"),
    "Hg": ([0, 0, 0, 0, 0, 0, _, 0, 0, 0, 0, 0], 0.05, None, 0.1, "µg/L"),
    "2,4-D": ([0, _, _, 0.004, _, _, _, 0, _, 0, _, _], 0.005, None, 4, "µg/L"),
    "Lindane": ([0, _, _, 0, _, _, _, 0, _, 0, _, _], 0.005, None, 0.01, "µg/L"),
}


def _cell(x) -> str:
    return "" if x is None else f"{x:g}"


def devon_csv(*, objectives: bool = True, months: int = 12) -> str:
    """The Devon 1997 samples in the wqbc layout (long: one row per date and parameter)."""
    head = "Date,Variable,Value,DetectionLimit" + (",LowerLimit,UpperLimit" if objectives else "") + ",Units"
    lines = [head]
    for p, (values, dl, lo, hi, unit) in DEVON_1997.items():
        for d, v in list(zip(DATES, values))[:months]:
            lim = f",{_cell(lo)},{_cell(hi)}" if objectives else ""
            lines.append(f'{d},"{p}",{_cell(v)},{_cell(dl)}{lim},{unit}')
    return "\n".join(lines) + "\n"


def _context(name: str, content, site=DEVON, **options) -> DataContext:
    entry = table_entry(name, content, **options)
    return DataContext.from_tables({name: entry}, {"lat": site[0], "lon": site[1]})


@pytest.fixture(scope="module")
def devon() -> DataContext:
    return _context("devon_1997.csv", devon_csv())


def test_a_table_of_samples_goes_through_the_upload_path_and_the_reconnaissance(devon):
    entry = table_entry("devon_1997.csv", devon_csv())
    v = entry["variables"][0]
    assert (v["variable"], v["resolution"], v["n_values"], v["n_parameters"]) == ("water_quality", "sample", 103, 10)
    by = {p["parameter"]: p for p in v["parameters"]}
    assert by["Hg"]["n_samples"] == 11 and by["Hg"]["n_empty"] == 1 and by["Lindane"]["n_samples"] == 4
    assert (by["pH"]["lower"], by["pH"]["upper"], by["Pb"]["detection_limit"]) == (6.5, 9.0, 0.0003)
    assert by["Pb"]["n_below_detection"] == 3  # the three months entered as 0
    assert [p["parameter"] for p in v["parameters"]] == list(DEVON_1997)  # the table's order
    json.dumps(entry)
    recon = assess_site(*DEVON, problem="water_quality", extra_sources=[devon.uploads])
    up = recon["stations"][0]
    assert (up["source"], up["station_id"], up["distance_km"]) == ("upload", "devon_1997.csv", 0.0)
    wqv = up["variables"][0]
    assert wqv["variable"] == "water_quality" and wqv["n_parameters"] == 10 and len(wqv["parameters"]) == 10
    assert recon["context"]["years_by_variable"]["water_quality"] == 1.0
    assert recon["context"]["resolution_by_variable"]["water_quality"] == "sample"
    row = next(r for r in recon["sufficiency"] if r["method"] == "ccme_water_quality_index")
    assert row["status"] == "defensible"


def test_samples_tool_describes_the_devon_table(devon):
    p = wq.water_quality_samples("upload", "devon_1997.csv", data=devon)
    json.dumps(p)
    assert p["n_parameters"] == 10 and p["n_samples"] == 103 and p["n_sampling_dates"] == 12
    assert p["period"] == {"start": "1997-01-07", "end": "1997-12-01"} and p["years"] == 1
    assert p["n_parameters_sampled_4_times"] == 10 and p["objectives_in_table"] == 10
    tp = next(r for r in p["parameters"] if r["parameter"] == "TP")
    assert (tp["min"], tp["max"], tp["median"], tp["unit"]) == (0.004, 0.108, 0.007, "mg/L")
    assert p["meta"]["sources"][0]["name"] == "upload"


def test_index_tool_reproduces_the_users_manual_88_good(devon):
    """CCME (2001) WQI 1.0 User's Manual, North Saskatchewan River at Devon, 1997: WQI 88, "Good".
    By hand: F1 = 100 x 2/10 = 20; F2 = 100 x 4/103 = 3.8835; excursions 0.16 + 1.16 + 1.35 + 0.275 = 2.945,
    nse = 2.945/103, F3 = nse/(0.01 nse + 0.01) = 2.7797; WQI = 100 - sqrt(20^2 + 3.8835^2 + 2.7797^2)/1.732 = 88.128."""
    p = wq.ccme_water_quality_index("upload", "devon_1997.csv", data=devon)
    json.dumps(p)
    assert p["ok"] is True and p["category"] == "Good" and p["wqi_rounded"] == 88
    assert p["wqi"] == pytest.approx(88.128, abs=1e-3)
    assert p["f1_scope"] == pytest.approx(20.0) and p["f2_frequency"] == pytest.approx(400 / 103)
    assert p["f3_amplitude"] == pytest.approx(2.7797, abs=1e-4)
    assert (p["n_parameters"], p["n_tests"], p["n_failed_tests"]) == (10, 103, 4)
    assert p["failed_parameters"] == ["TP", "Pb"] and p["left_out"] == []
    assert p["period"] == {"start": "1997-01-07", "end": "1997-12-01", "year": 1997} and p["by_year"] == []
    assert all(r["objective_source"] == "table" for r in p["by_parameter"])
    # the same numbers as the method called directly on the manual's values and objectives
    samples = {k: [np.nan if x is None else x for x in v[0]] for k, v in DEVON_1997.items()}
    objectives = {k: {"lower": v[2], "upper": v[3]} for k, v in DEVON_1997.items()}
    direct = ccme_method(samples, guidelines=objectives, guideline_set=None)
    for key in ("wqi", "f1_scope", "f2_frequency", "f3_amplitude", "nse", "n_tests", "n_failed_tests"):
        assert p[key] == pytest.approx(direct[key], rel=1e-12)
    assert any(s.get("name") == "CCME WQI 1.0" for s in p["meta"]["sources"])


def test_exceedances_tool_agrees_with_the_index_by_parameter(devon):
    ex = wq.water_quality_exceedances("upload", "devon_1997.csv", data=devon)
    ix = wq.ccme_water_quality_index("upload", "devon_1997.csv", data=devon)
    json.dumps(ex)
    assert ex["ok"] and ex["n_with_objective"] == 10 and ex["without_objective"] == []
    assert (ex["n_exceeding_parameters"], ex["n_exceeding_samples"], ex["n_samples"]) == (2, 4, 103)
    by_ix = {r["parameter"]: r for r in ix["by_parameter"]}
    for r in ex["by_parameter"]:
        assert r["n_exceeding"] == by_ix[r["parameter"]]["n_failed"]
        assert r["max_excursion"] == pytest.approx(by_ix[r["parameter"]]["max_excursion"])
    by = {r["parameter"]: r for r in ex["by_parameter"]}
    # TP 0.108 on 3 June (0.108/0.05 - 1 = 1.16); Pb 0.0094 on 4 February (0.0094/0.004 - 1 = 1.35)
    assert (by["TP"]["worst_value"], by["TP"]["worst_date"], by["TP"]["exceeding_dates"]) == (
        0.108, "1997-06-03", ["1997-04-08", "1997-06-03"])
    assert by["TP"]["max_excursion"] == pytest.approx(1.16) and by["Pb"]["max_excursion"] == pytest.approx(1.35)
    assert by["Pb"]["worst_date"] == "1997-02-04" and by["TP"]["fraction_exceeding"] == pytest.approx(2 / 12)
    assert by["DO"]["n_below_lower"] == 0 and by["DO"]["lower"] == 5.0


def test_shipped_guidelines_are_matched_by_name_and_refused_where_the_site_decides():
    """Without the table's objectives, CCME aquatic life gives DO (cold water, 6.5 mg/L), pH (6.5-9) and arsenic
    (0.005 mg/L); lead is hardness-dependent and phosphorus a trigger range, so they get none and the index
    (3 parameters) is refused with the reason. WHO drinking water gives arsenic and lead 0.01 mg/L."""
    data = _context("devon_raw.csv", devon_csv(objectives=False))
    ex = wq.water_quality_exceedances("upload", "devon_raw.csv", data=data)
    by = {r["parameter"]: r for r in ex["by_parameter"]}
    assert set(by) == {"DO", "pH", "As"}
    assert (by["DO"]["lower"], by["DO"]["guideline"]) == (6.5, "dissolved_oxygen_cold_water")
    assert (by["pH"]["lower"], by["pH"]["upper"], by["As"]["upper"]) == (6.5, 9.0, 0.005)
    assert ex["n_exceeding_parameters"] == 0 and ex["guideline_set"] == "ccme_freshwater_aquatic_life"
    why = {r["parameter"]: r["reason"] for r in ex["without_objective"]}
    assert "hardness" in why["Pb"] and "trigger" in why["TP"] and "no guideline of this name" in why["Lindane"]
    warm = wq.water_quality_exceedances("upload", "devon_raw.csv", habitat="warm water", data=data)
    assert {r["parameter"]: r for r in warm["by_parameter"]}["DO"]["lower"] == 5.5
    ix = wq.ccme_water_quality_index("upload", "devon_raw.csv", data=data)
    assert ix["ok"] is False and ix["wqi"] is None and "(the whole table has 3: DO, pH, As)" in ix["reason"]
    who = wq.water_quality_exceedances("upload", "devon_raw.csv", use="drinking water", data=data)
    assert {r["parameter"]: r["upper"] for r in who["by_parameter"]} == {"As": 0.01, "Pb": 0.01}
    # a plan's site-specific objectives come first
    plan = wq.water_quality_exceedances("upload", "devon_raw.csv", data=data, objectives={"TP": {"upper": 0.05}})
    tp = {r["parameter"]: r for r in plan["by_parameter"]}["TP"]
    assert tp["objective_source"] == "plan" and tp["n_exceeding"] == 2


def test_guidelines_are_converted_to_the_samples_unit_and_ambiguous_names_get_none():
    """Hand-computed: arsenic in ug/L against CCME 0.005 mg/L = 5 ug/L: 7 and 12 exceed (12/5 - 1 = 1.4);
    nitrate as N against 3.0 mg/L: 3.5 and 4 exceed (4/3 - 1 = 0.3333); plain "nitrate" could be as N or as NO3."""
    wide = ("date,Arsenic (µg/L),Nitrate (mg/L as N),Nitrate (mg/L),pH\n2020-01-10,2,1,1,7.1\n"
            "2020-02-11,7,2.5,2.5,7.4\n2020-03-09,4,3.5,3.5,6.2\n2020-04-14,12,4,4,7.9\n")
    data = _context("wide.csv", wide)
    ex = wq.water_quality_exceedances("upload", "wide.csv", data=data)
    by = {r["parameter"]: r for r in ex["by_parameter"]}
    assert (by["Arsenic"]["upper"], by["Arsenic"]["n_exceeding"]) == (5.0, 2)
    assert by["Arsenic"]["max_excursion"] == pytest.approx(1.4)
    n = by["Nitrate (mg/L as N)"]
    assert (n["upper"], n["n_exceeding"], n["guideline"]) == (3.0, 2, "nitrate_as_n")
    assert n["max_excursion"] == pytest.approx(4 / 3 - 1)
    assert (by["pH"]["n_exceeding"], by["pH"]["n_below_lower"]) == (1, 1)  # 6.2 below 6.5
    (amb,) = ex["without_objective"]
    assert amb["parameter"] == "Nitrate (mg/L)" and "'as N' or 'as NO3'" in amb["reason"]
    # hydrological tables stay what they were: Tn is a minimum air temperature, a lone nitrate column beside
    # a discharge column does not make a table of samples
    assert table_entry("tn.csv", "date,Tn\n2020-01-01,-2\n2020-01-02,-3\n")["variables"][0]["variable"] == \
        "air_temperature_min"
    mixed = table_entry("qn.csv", "date,Q (m3/s),Nitrate (mg/L as N)\n2020-01-01,1,2\n2020-01-02,1.5,2.2\n")
    assert [v["variable"] for v in mixed["variables"]][0] == "discharge"


@pytest.fixture(scope="module")
def bogra_long(reference_dir) -> str:
    b = pd.read_csv(reference_dir / "bogra_monthly_rainfall_pymannkendall.csv").dropna()
    rows = "".join(f"{int(y)}-{int(m):02d}-01,rainfall,{v:g},mm\n" for y, m, v in zip(b.year, b.month, b.bogra_mm))
    return "date,parameter,value,unit\n" + rows


def test_trend_tool_reproduces_the_published_seasonal_kendall_on_bogra(bogra_long):
    """pyMannKendall's seasonal_test on the Bogra monthly rainfall (30 years, 7 months missing): S = -399,
    var S = 34702.33, p = 0.03264, decreasing. A rainfall table is taken as samples only when asked."""
    assert table_entry("bogra.csv", bogra_long)["variables"][0]["variable"] != "water_quality"
    data = _context("bogra.csv", bogra_long, variable="water_quality")
    p = wq.water_quality_trend("upload", "bogra.csv", data=data)
    json.dumps(p)
    t = p["trends"][0]
    assert p["ok"] and t["test"] == "seasonal_kendall" and t["n_years"] == 30 and t["n"] == 353
    assert t["S"] == -399 and t["var_S"] == pytest.approx(34702.333333333336)
    assert t["p_value"] == pytest.approx(0.03263834596177739, rel=1e-9) and t["trend"] == "decreasing"
    assert t["sen_slope"] == pytest.approx(-2 / 23) and t["slope_unit"] == "mm per year"
    assert p["longest_years"] == 30 and p["tested_parameters"] == ["rainfall"]


@pytest.fixture(scope="module")
def au_saumon_t() -> pd.Series:
    return get_source("holmes").fetch_series("au_saumon", "air_temperature")


def _readings(s: pd.Series, months: tuple[int, ...]) -> str:
    picked = s[(s.index.day == 15) & s.index.month.isin(months)]
    return "date,parameter,value,unit\n" + "".join(f"{d.date()},air temperature,{v:g},degC\n" for d, v in picked.items())


def test_trend_tool_chooses_the_test_by_sampling_frequency_and_matches_the_methods(au_saumon_t):
    """Au Saumon (HOLMES) daily air temperature read on the 15th: monthly readings give the seasonal Kendall
    test, quarterly ones the Mann-Kendall test on the readings at their dates; both equal the methods."""
    monthly = _context("t_monthly.csv", _readings(au_saumon_t, tuple(range(1, 13))))
    p = wq.water_quality_trend("upload", "t_monthly.csv", data=monthly)
    t = p["trends"][0]
    picked = au_saumon_t[au_saumon_t.index.day == 15]
    series = pd.Series(picked.to_numpy(), index=picked.index.to_period("M").to_timestamp())
    direct = seasonal_mann_kendall(series, period=12, unit="degC")
    assert t["test"] == "seasonal_kendall" and t["n_years"] == 29 and t["months_aggregated"] == 0
    for k in ("S", "var_S", "p_value", "sen_slope"):
        assert t[k] == pytest.approx(direct[k], rel=1e-12)
    quarterly = _context("t_quarterly.csv", _readings(au_saumon_t, (1, 4, 7, 10)))
    q = wq.water_quality_trend("upload", "t_quarterly.csv", data=quarterly)["trends"][0]
    sel = au_saumon_t[(au_saumon_t.index.day == 15) & au_saumon_t.index.month.isin((1, 4, 7, 10))]
    mk = mann_kendall(sel.to_numpy(), times=sel.index, unit="degC")
    assert q["test"] == "mann_kendall" and q["n"] == sel.size
    for k in ("S", "var_S", "p_value", "sen_slope"):
        assert q[k] == pytest.approx(mk[k], rel=1e-12)
    assert q["slope_unit"] == "degC per year" and q["sen_slope_confidence"] == pytest.approx(0.95)


def test_honest_nulls_and_refusals(devon):
    short = _context("devon_q1.csv", devon_csv(months=3))
    ix = wq.ccme_water_quality_index("upload", "devon_q1.csv", data=short)
    assert ix["ok"] is False and "sampled at least 4 times" in ix["reason"]
    assert {r["parameter"] for r in ix["left_out"]} >= {"TP", "Pb"}
    tr = wq.water_quality_trend("upload", "devon_1997.csv", data=devon)
    assert tr["ok"] is False and "sampled in 1 calendar year(s); a trend needs 10" in tr["reason"]
    concern = wq.water_quality_trend("upload", "devon_1997.csv", parameters=["nitrate"], data=devon)
    assert {"parameter": "nitrate", "reason": "not in the table"} in concern["skipped"]
    with pytest.raises(InputError, match="below .*detection limit"):
        table_entry("censored.csv", "date,parameter,value,unit\n2020-01-01,As,<0.002,mg/L\n")
    with pytest.raises(InputError, match="given in 'mg/L' and in 'ug/L'"):
        table_entry("mixed.csv", "date,parameter,value,unit\n2020-01-01,As,1,mg/L\n2020-02-01,As,1,ug/L\n")
    with pytest.raises(InputError, match="two values at 2020-01-01"):
        table_entry("dup.csv", "date,parameter,value,unit\n2020-01-01,As,1,mg/L\n2020-01-01,As,2,mg/L\n")
    with pytest.raises(DataNotFoundError, match="table of water-quality samples"):
        devon.fetch_series("upload", "devon_1997.csv", "water_quality")
    assert devon.fetch_series("upload", "devon_1997.csv", "TP").max() == 0.108
    with pytest.raises(InputError, match="use"):
        wq.water_quality_exceedances("upload", "devon_1997.csv", use="swimming", data=devon)
    flows = _context("q.csv", "date,Q (m3/s)\n2020-01-01,1\n2020-01-02,2\n")
    with pytest.raises(DataNotFoundError, match="not a table of samples"):
        wq.water_quality_samples("upload", "q.csv", data=flows)


def test_specs_are_in_the_catalogue_and_steps_validate():
    for tid in ("water_quality_samples", "water_quality_exceedances", "ccme_water_quality_index", "water_quality_trend"):
        assert tid in TOOLS and "data" not in schema(tid)
    assert TOOLS["ccme_water_quality_index"].methods == ("ccme_water_quality_index",)
    step = {"id": "s3", "tool": "ccme_water_quality_index", "method": "ccme_water_quality_index",
            "arguments": {"source": "upload", "station_id": "x.csv", "use": "aquatic life", "period": "latest_year"},
            "expects": list(TOOLS["ccme_water_quality_index"].gates)}
    assert validate_step(step) == []
    assert validate_step({**step, "arguments": {**step["arguments"], "guideline": "x"}})  # unknown argument
