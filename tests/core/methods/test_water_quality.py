"""Tests for aquascope_core.methods.water_quality (CCME Water Quality Index 1.0 and the guideline tables)."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pandas as pd
import pytest

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods.water_quality import (
    GUIDELINE_SETS,
    _guideline_table,
    _wqi_category,
    ccme_water_quality_index,
    water_quality_guidelines,
)

NAN = float("nan")
DATES = ["1997-01-07", "1997-02-04", "1997-03-04", "1997-04-08", "1997-05-06", "1997-06-03",
         "1997-07-08", "1997-08-05", "1997-09-02", "1997-10-07", "1997-11-04", "1997-12-01"]

# The worked example of the CCME Water Quality Index 1.0 User's Manual (CCME 2001): North Saskatchewan
# River at Devon, 1997, ten variables sampled monthly, with the objectives used there. Values as
# transcribed in the R package wqbc (British Columbia government), data-raw/ccme.csv; values below
# detection are entered as 0 and NaN means "not sampled" (Hg in July, most pesticide months).
DEVON_1997 = {
    "DO": [11.4, 11, 11.5, 12.5, 10.4, 8.9, 8.5, 7.5, 9.2, 11, 12.1, 13.3],
    "pH": [8, 7.9, 7.9, 7.9, 8.1, 8.2, 8.3, 8.2, 8.2, 8.1, 8, 8],
    "TP": [0.006, 0.005, 0.006, 0.058, 0.042, 0.108, 0.017, 0.008, 0.006, 0.008, 0.006, 0.004],
    "TN": [0.16, 0.17, 0.132, 0.428, 0.25, 0.707, 0.153, 0.153, 0.13, 0.093, 0.296, 0.054],
    "FC": [4, 0, 4, 0, 0, 26, 9, 8, 12, 12, 8, 4],
    "As": [0.0002, 0, 0, 0, 0.0002, 0.0006, 0.0002, 0, 0.0003, 0, 0, 0],
    "Pb": [0.0004, 0.0094, 0, 0.0008, 0.0008, 0.0013, 0.0004, 0, 0.0018, 0.0011, 0.0051, 0],
    "Hg": [0, 0, 0, 0, 0, 0, NAN, 0, 0, 0, 0, 0],
    "2,4-D": [0, NAN, NAN, 0.004, NAN, NAN, NAN, 0, NAN, 0, NAN, NAN],
    "Lindane": [0, NAN, NAN, 0, NAN, NAN, NAN, 0, NAN, 0, NAN, NAN],
}
DEVON_OBJECTIVES = {
    "DO": {"lower": 5, "unit": "mg/L"}, "pH": {"lower": 6.5, "upper": 9.0}, "TP": {"upper": 0.05},
    "TN": {"upper": 1.0}, "FC": {"upper": 400}, "As": {"upper": 0.05}, "Pb": {"upper": 0.004},
    "Hg": {"upper": 0.1}, "2,4-D": {"upper": 4}, "Lindane": {"upper": 0.01},
}


def test_ccme_users_manual_example_north_saskatchewan_devon_1997():
    """CCME (2001) WQI 1.0 User's Manual example: North Saskatchewan River at Devon, 1997 -> 88, "Good".

    The R package wqbc reproduces it (tests/testthat/test-calc-wqis.R: WQI 88, Good). By hand:
    103 tests (Hg 11, the two pesticides 4 each, the rest 12); failures TP 0.058 and 0.108 against
    0.05, Pb 0.0094 and 0.0051 against 0.004. F1 = 100 x 2/10 = 20; F2 = 100 x 4/103 = 3.8835;
    excursions 0.16 + 1.16 + 1.35 + 0.275 = 2.945, nse = 2.945/103 = 0.028592,
    F3 = nse / (0.01 nse + 0.01) = 2.7797; WQI = 100 - sqrt(20^2 + 3.8835^2 + 2.7797^2)/1.732 = 88.128.
    """
    samples = copy.deepcopy(DEVON_1997)
    objectives = copy.deepcopy(DEVON_OBJECTIVES)
    res = ccme_water_quality_index(samples, guidelines=objectives, guideline_set=None)
    assert samples.keys() == DEVON_1997.keys()
    for k in DEVON_1997:  # NaN != NaN: compare element-wise
        assert np.array_equal(np.array(samples[k]), np.array(DEVON_1997[k]), equal_nan=True)
    assert objectives == DEVON_OBJECTIVES
    json.dumps(res)
    assert res["ok"] is True
    assert res["n_parameters"] == 10 and res["n_tests"] == 103
    assert res["n_failed_parameters"] == 2 and res["n_failed_tests"] == 4
    assert res["f1_scope"] == pytest.approx(20.0)
    assert res["f2_frequency"] == pytest.approx(400 / 103)
    assert res["sum_of_excursions"] == pytest.approx(2.945)
    assert res["nse"] == pytest.approx(2.945 / 103)
    assert res["f3_amplitude"] == pytest.approx(2.7797, abs=1e-4)
    assert res["wqi"] == pytest.approx(88.128, abs=1e-3)
    assert round(res["wqi"]) == 88 and res["category"] == "Good"
    by = {r["parameter"]: r for r in res["by_parameter"]}
    assert by["TP"]["n_failed"] == 2 and by["Pb"]["n_failed"] == 2
    assert by["Pb"]["max_excursion"] == pytest.approx(1.35)
    assert by["TP"]["max_excursion"] == pytest.approx(1.16)
    assert by["Hg"]["n_tests"] == 11 and by["Hg"]["n_missing"] == 1
    assert by["Lindane"]["n_tests"] == 4
    assert by["DO"]["objective_source"] == "caller" and by["DO"]["unit"] == "mg/L"


def test_ccme_example_variants_match_wqbc():
    """The variants wqbc tests: without the DO sample of 4 March -> 102 tests, WQI 88.1; without
    arsenic as well -> 9 variables, 90 tests, WQI 86.8 (F1 = 22.2, F2 = 4.44, F3 = 3.17)."""
    s = copy.deepcopy(DEVON_1997)
    s["DO"][2] = NAN
    res = ccme_water_quality_index(s, guidelines=DEVON_OBJECTIVES, guideline_set=None)
    assert res["n_tests"] == 102 and round(res["wqi"], 1) == 88.1
    del s["As"]
    res = ccme_water_quality_index(s, guidelines=DEVON_OBJECTIVES, guideline_set=None)
    assert res["n_parameters"] == 9 and res["n_tests"] == 90 and round(res["wqi"], 1) == 86.8


def test_long_and_wide_frames_give_the_same_index():
    wide = pd.DataFrame(DEVON_1997, index=pd.to_datetime(DATES))
    long = wide.reset_index(names="date").melt(id_vars="date", var_name="parameter", value_name="value")
    before_w, before_l = wide.copy(deep=True), long.copy(deep=True)
    a = ccme_water_quality_index(wide, guidelines=DEVON_OBJECTIVES, guideline_set=None)
    b = ccme_water_quality_index(long, guidelines=DEVON_OBJECTIVES, guideline_set=None)
    pd.testing.assert_frame_equal(wide, before_w)
    pd.testing.assert_frame_equal(long, before_l)
    assert a["wqi"] == pytest.approx(b["wqi"]) == pytest.approx(88.128, abs=1e-3)
    assert a["n_tests"] == b["n_tests"] == 103


def test_range_and_lower_limits_with_the_shipped_ccme_table():
    """Hand-derived case against the CCME aquatic-life table.

    pH (6.5-9.0): 7, 6.0, 9.9, 7.5 -> 6.0 fails low (6.5/6.0 - 1 = 0.083333), 9.9 high (9.9/9 - 1 = 0.1);
    arsenic (<= 0.005 mg/L): 0.001, 0.01, 0.002, 0.003 -> 0.01 fails (0.01/0.005 - 1 = 1.0);
    chloride (<= 120 mg/L): 50, 60, 70, 80 -> none;
    dissolved_oxygen_cold_water (>= 6.5 mg/L): 8, 5.2, 7, 9 -> 5.2 fails (6.5/5.2 - 1 = 0.25).
    F1 = 100 x 3/4 = 75; F2 = 100 x 4/16 = 25; nse = 1.433333/16 = 0.0895833,
    F3 = 0.0895833/0.01089583 = 8.22180; WQI = 100 - sqrt(75^2 + 25^2 + 8.2218^2)/1.732 = 54.109: Marginal.
    """
    samples = {"ph": [7, 6.0, 9.9, 7.5], "arsenic": [0.001, 0.01, 0.002, 0.003], "chloride": [50, 60, 70, 80],
               "dissolved_oxygen_cold_water": [8, 5.2, 7, 9]}
    res = ccme_water_quality_index(samples)
    assert res["f1_scope"] == pytest.approx(75.0)
    assert res["f2_frequency"] == pytest.approx(25.0)
    assert res["sum_of_excursions"] == pytest.approx(6.5 / 6 - 1 + 0.1 + 1.0 + 0.25)
    assert res["f3_amplitude"] == pytest.approx(8.22180, abs=1e-5)
    assert res["wqi"] == pytest.approx(54.109, abs=1e-3)
    assert res["category"] == "Marginal"
    by = {r["parameter"]: r for r in res["by_parameter"]}
    assert by["ph"]["lower"] == 6.5 and by["ph"]["upper"] == 9.0 and by["ph"]["n_failed"] == 2
    assert by["arsenic"]["objective_source"] == "ccme_freshwater_aquatic_life"
    assert any(s.get("dataset", "").endswith("water_quality_guidelines.csv") for s in res["meta"]["sources"])
    # a site-specific objective overrides the table
    loose = ccme_water_quality_index(samples, guidelines={"arsenic": {"upper": 0.05}})
    assert {r["parameter"]: r for r in loose["by_parameter"]}["arsenic"]["n_failed"] == 0


def test_all_tests_pass_gives_100_and_the_worst_case_stays_at_zero():
    ok = ccme_water_quality_index({"ph": [7] * 4, "chloride": [10] * 4, "arsenic": [0.001] * 4, "iron": [0.1] * 4})
    assert ok["wqi"] == 100.0 and ok["category"] == "Excellent" and ok["f3_amplitude"] == 0.0
    bad = ccme_water_quality_index({"chloride": [1e9] * 4, "arsenic": [1e6] * 4, "iron": [1e7] * 4, "boron": [1e8] * 4})
    assert bad["f1_scope"] == 100.0 and bad["f2_frequency"] == 100.0
    assert 0.0 <= bad["wqi"] < 0.01 and bad["category"] == "Poor"


def test_categories_at_their_boundaries():
    assert [_wqi_category(v) for v in (100, 95, 94.99, 80, 79.99, 65, 64.99, 45, 44.99, 0)] == [
        "Excellent", "Excellent", "Good", "Good", "Fair", "Fair", "Marginal", "Marginal", "Poor", "Poor"]


def test_zero_value_below_a_lower_limit_is_an_honest_null():
    res = ccme_water_quality_index({"dissolved_oxygen_warm_water": [7, 0.0, 6, 8], "ph": [7] * 4,
                                    "chloride": [10] * 4, "iron": [0.1] * 4})
    assert res["ok"] is False and res["wqi"] is None and res["category"] is None
    assert "dissolved_oxygen_warm_water" in res["reason"] and "undefined" in res["reason"]


def test_refusals_and_bad_input():
    four = {"ph": [7] * 4, "chloride": [10] * 4, "arsenic": [0.001] * 4, "iron": [0.1] * 4}
    with pytest.raises(InsufficientDataError, match="at least 4"):
        ccme_water_quality_index({k: four[k] for k in ("ph", "chloride", "arsenic")})
    short = dict(four, iron=[0.1, 0.2, NAN, NAN, NAN])
    with pytest.raises(InsufficientDataError, match=r"iron \(2\)"):
        ccme_water_quality_index(short)
    with pytest.raises(InputError, match="no objective for the parameter.*'turbidity'"):
        ccme_water_quality_index(dict(four, turbidity=[1, 2, 3, 4]))
    with pytest.raises(InputError, match="negative"):
        ccme_water_quality_index(dict(four, chloride=[10, -1, 10, 10]))
    with pytest.raises(InputError, match="greater than 0"):
        ccme_water_quality_index(four, guidelines={"iron": {"upper": 0}})
    with pytest.raises(InputError, match="lower 9 >= upper 6.5"):
        ccme_water_quality_index(four, guidelines={"ph": {"lower": 9, "upper": 6.5}})
    with pytest.raises(InputError, match="neither a lower nor an upper"):
        ccme_water_quality_index(four, guidelines={"ph": {"unit": "pH"}})
    with pytest.raises(InputError, match="guideline_set"):
        ccme_water_quality_index(four, guideline_set="epa")
    with pytest.raises(InputError, match="no objective"):
        ccme_water_quality_index(four, guideline_set=None)
    with pytest.raises(InsufficientDataError, match="empty"):
        ccme_water_quality_index({})
    with pytest.raises(InsufficientDataError, match="empty"):
        ccme_water_quality_index(pd.DataFrame())
    with pytest.raises(InputError, match="not numbers"):
        ccme_water_quality_index(dict(four, iron=["<0.1", 0.1, 0.1, 0.1]))


def test_shipped_guideline_tables_are_complete_and_cited():
    table = _guideline_table()
    assert set(table.guideline_set) == set(GUIDELINE_SETS)
    assert not table.duplicated(["guideline_set", "parameter"]).any()
    assert table.reference.notna().all() and table.unit.notna().all()
    assert (table.lower.notna() | table.upper.notna()).all()
    both = table.lower.notna() & table.upper.notna()
    assert (table.lower[both] < table.upper[both]).all()
    assert ((table.lower.fillna(1) > 0) & (table.upper.fillna(1) > 0)).all()
    ccme = {r["parameter"]: r for r in water_quality_guidelines("ccme_freshwater_aquatic_life")["guidelines"]}
    assert (ccme["ph"]["lower"], ccme["ph"]["upper"]) == (6.5, 9.0)
    assert ccme["arsenic"]["upper"] == 0.005 and ccme["chloride"]["upper"] == 120
    who = water_quality_guidelines("who_drinking_water")
    json.dumps(who)
    w = {r["parameter"]: r for r in who["guidelines"]}
    assert w["arsenic"]["upper"] == 0.01 and w["nitrate_as_no3"]["upper"] == 50 and w["fluoride"]["upper"] == 1.5
    assert not math.isnan(w["lead"]["upper"])
