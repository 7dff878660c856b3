"""Every gate: it passes, it fails, it cannot see a missing path, and it refuses a malformed definition."""

from __future__ import annotations

import math

import pytest

from aquascope_core.gates import CHECKS, evaluate, evaluate_one, validate_gate

FFA = {
    "n": 79,
    "n_years": 79,
    "return_periods": [2, 10, 100],
    "fits": {
        "gev": {"return_levels": [36.0, 70.0, 136.5], "ci": {"lower": [33.0, 60.0, 97.5], "upper": [40.0, 80.0, 188.6]}},
        "lp3": {"return_levels": [35.7, 70.8, 138.1], "ci": {"lower": [32.5, 60.6, 100.2], "upper": [39.6, 81.8, None]}},
    },
    "record_max": {"return_period": {"gev": 285.0, "lp3": 5000.0}},
    "trend": {"p_value": 0.52, "trend": "no trend", "sen_slope": 0.05},
    "steep": {"p_value": 0.001, "trend": "increasing"},
    "unit": "m3/s",
    "record": {"n_values": 29345, "years": 80.34, "resolution": "daily"},
    "sparse": {"n_values": 3000, "years": 80.34, "resolution": "daily"},
    "validation": {"nse": 0.81, "kge": 0.62},
    "area_km2": 165.8,
    "n_donors": 4,
    "sufficiency": [{"method": "gev_lmoments", "status": "defensible"}, {"method": "gr4j", "status": "marginal"}],
    "reference_value": 120.0,
    "text": "abc",
    "empty": [],
    "blank_unit": "",
}

# (gate that passes, gate that fails) for every check in the vocabulary
CASES = {
    "min_years": ({"check": "min_years", "value": 20}, {"check": "min_years", "value": 100}),
    "max_return_period_factor": ({"check": "max_return_period_factor", "value": 3, "return_period": 100},
                                 {"check": "max_return_period_factor", "value": 3, "return_period": 500}),
    "ci_finite": ({"check": "ci_finite", "path": "fits.gev.ci", "return_period": 100},
                  {"check": "ci_finite", "path": "fits.lp3.ci", "return_period": 100}),
    "spread_within": ({"check": "spread_within", "value": 0.25, "return_period": 100,
                       "paths": ["fits.gev.return_levels", "fits.lp3.return_levels"]},
                      {"check": "spread_within", "value": 0.001, "return_period": 100,
                       "paths": ["fits.gev.return_levels", "fits.lp3.return_levels"]}),
    "nse_min": ({"check": "nse_min", "value": 0.7}, {"check": "nse_min", "value": 0.9}),
    "kge_min": ({"check": "kge_min", "value": 0.5}, {"check": "kge_min", "value": 0.7}),
    "not_empty": ({"check": "not_empty", "path": "fits"}, {"check": "not_empty", "path": "empty"}),
    "fit_envelopes_max": ({"check": "fit_envelopes_max", "path": "record_max.return_period.gev"},
                          {"check": "fit_envelopes_max", "path": "record_max.return_period.lp3"}),
    "sampling_density": ({"check": "sampling_density", "path": "record", "value": 0.9},
                         {"check": "sampling_density", "path": "sparse", "value": 0.9}),
    "trend_on_series": ({"check": "trend_on_series", "path": "trend"}, {"check": "trend_on_series", "path": "steep"}),
    "cross_check_ratio": ({"check": "cross_check_ratio", "path": "fits.gev.return_levels[2]", "reference": 120.0,
                           "value": 1.5},
                          {"check": "cross_check_ratio", "path": "fits.gev.return_levels[2]", "reference": 20.0,
                           "value": 1.5}),
    "unit_present": ({"check": "unit_present"}, {"check": "unit_present", "path": "blank_unit"}),
    "max_area_km2": ({"check": "max_area_km2", "value": 1000}, {"check": "max_area_km2", "value": 100}),
    "min_donors": ({"check": "min_donors", "value": 3}, {"check": "min_donors", "value": 5}),
    "status_is": ({"check": "status_is", "path": "sufficiency[method=gev_lmoments].status", "value": "defensible"},
                  {"check": "status_is", "path": "sufficiency[method=gr4j].status", "value": ["defensible"]}),
}

# a path that is not in the payload, per check
MISSING = {
    "min_years": {"check": "min_years", "value": 20, "path": "years_nowhere"},
    "max_return_period_factor": {"check": "max_return_period_factor", "value": 3, "return_period": 100, "path": "nope"},
    "ci_finite": {"check": "ci_finite", "path": "fits.gumbel.ci", "return_period": 100},
    "spread_within": {"check": "spread_within", "value": 0.25, "paths": ["fits.gev.return_levels", "fits.glo.return_levels"],
                      "return_period": 100},
    "nse_min": {"check": "nse_min", "value": 0.7, "path": "calibration.nse"},
    "kge_min": {"check": "kge_min", "value": 0.5, "path": "calibration.kge"},
    "not_empty": {"check": "not_empty", "path": "donors"},
    "fit_envelopes_max": {"check": "fit_envelopes_max", "path": "record_max.return_period.gumbel"},
    "sampling_density": {"check": "sampling_density", "path": "nothing_here"},
    "trend_on_series": {"check": "trend_on_series", "path": "trend_of_means"},
    "cross_check_ratio": {"check": "cross_check_ratio", "path": "fits.gev.return_levels[7]", "reference": 120.0},
    "unit_present": {"check": "unit_present", "path": "units"},
    "max_area_km2": {"check": "max_area_km2", "value": 100, "path": "catchment.area_km2"},
    "min_donors": {"check": "min_donors", "value": 3, "path": "donors.count"},
    "status_is": {"check": "status_is", "path": "sufficiency[method=spi].status", "value": "defensible"},
}

# a malformed definition, per check (a missing required field or a value of the wrong type)
MALFORMED = {
    "min_years": {"check": "min_years", "value": "twenty"},
    "max_return_period_factor": {"check": "max_return_period_factor", "value": 3},
    "ci_finite": {"check": "ci_finite"},
    "spread_within": {"check": "spread_within", "value": 0.25, "paths": "fits.gev.return_levels"},
    "nse_min": {"check": "nse_min"},
    "kge_min": {"check": "kge_min", "value": None},
    "not_empty": {"check": "not_empty", "path": ""},
    "fit_envelopes_max": {"check": "fit_envelopes_max", "path": "record_max.return_period.gev", "value": 2.0},
    "sampling_density": {"check": "sampling_density", "value": "most"},
    "trend_on_series": {"check": "trend_on_series", "value": [0.05]},
    "cross_check_ratio": {"check": "cross_check_ratio", "path": "fits.gev.return_levels[2]", "reference": 1.0, "value": 0.5},
    "unit_present": {"check": "unit_present", "threshold": 3},
    "max_area_km2": {"check": "max_area_km2", "value": True},
    "min_donors": {"check": "min_donors", "value": "three"},
    "status_is": {"check": "status_is", "path": "sufficiency[method=gev_lmoments].status"},
}


def test_the_tables_cover_the_whole_vocabulary():
    assert set(CASES) == set(CHECKS) == set(MISSING) == set(MALFORMED)
    assert len(CHECKS) == 15


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_gate_passes(check):
    row = evaluate_one(CASES[check][0], FFA)
    assert row["passed"] is True, row
    assert row["check"] == check and row["detail"] and "error" not in row


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_gate_fails(check):
    row = evaluate_one(CASES[check][1], FFA)
    assert row["passed"] is False, row
    assert row["detail"]


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_gate_with_a_missing_path_does_not_pass(check):
    row = evaluate_one(MISSING[check], FFA)
    assert row["passed"] is False
    assert row["error"] == "missing", row
    assert row["detail"].startswith("cannot be checked")


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_gate_with_a_malformed_definition_is_refused(check):
    gate = MALFORMED[check]
    row = evaluate_one(gate, FFA)
    assert row["passed"] is False
    assert row["error"] == "malformed", row
    assert row["detail"].startswith("malformed gate")


def test_unknown_check_is_named_with_the_vocabulary():
    problems = validate_gate({"check": "looks_fine"})
    assert "unknown check 'looks_fine'" in problems[0] and "min_years" in problems[0]


def test_rows_say_what_they_saw_and_against_what():
    row = evaluate_one({"check": "spread_within", "value": 0.25, "return_period": 100,
                        "paths": ["fits.gev.return_levels", "fits.lp3.return_levels"]}, FFA)
    assert row["seen"] == pytest.approx((138.1 - 136.5) / ((138.1 + 136.5) / 2))
    assert row["threshold"] == 0.25
    row = evaluate_one({"check": "fit_envelopes_max", "path": "record_max.return_period.gev"}, FFA)
    assert row["seen"]["probability"] == pytest.approx(1 - (1 - 1 / 285.0) ** 79)
    assert row["threshold"] == [0.025, 0.975]


def test_return_period_not_in_the_payload_is_reported():
    row = evaluate_one({"check": "ci_finite", "path": "fits.gev.ci", "return_period": 250}, FFA)
    assert row["passed"] is False and "250" in row["detail"]


def test_ci_finite_rejects_nan_and_inverted_intervals():
    p = {"ci": {"lower": [math.nan], "upper": [3.0]}, "return_periods": [100]}
    assert not evaluate_one({"check": "ci_finite", "path": "ci", "return_period": 100}, p)["passed"]
    p = {"ci": [5.0, 3.0]}
    assert not evaluate_one({"check": "ci_finite", "path": "ci"}, p)["passed"]
    assert evaluate_one({"check": "ci_finite", "path": "ci"}, {"ci": [3.0, 5.0]})["passed"]


def test_evaluate_keeps_order_and_handles_none():
    rows = evaluate([CASES["min_years"][0], CASES["unit_present"][1]], FFA)
    assert [r["passed"] for r in rows] == [True, False]
    assert evaluate(None, FFA) == []


def test_unresolved_reference_in_cross_check_fails_honestly():
    row = evaluate_one({"check": "cross_check_ratio", "path": "reference_value", "reference": "{{ result.s9.q }}"}, FFA)
    assert row["passed"] is False and "not resolved" in row["detail"]
