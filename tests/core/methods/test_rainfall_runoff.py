"""GR4J: the airGR reference run, the compiled loop against plain Python, mass balance, calibration."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods import _gr4j_kernel as kernel
from aquascope_core.methods import metrics
from aquascope_core.methods.rainfall_runoff import (
    gr4j_calibration,
    gr4j_simulation,
    gr4j_split_sample_validation,
)

AIRGR_PARAMETERS = {"x1": 257.237556, "x2": 1.012237, "x3": 88.234673, "x4": 2.207958}


@pytest.fixture(scope="module")
def basin(reference_dir) -> pd.DataFrame:
    """L0123001 (Blue River at Nourlangie Rock) daily P, E, Qmm from airGR 1.7.6, indexed by date."""
    frame = pd.read_csv(reference_dir / "L0123001_BasinObs_airGR.csv")
    return frame.set_index(pd.DatetimeIndex(pd.to_datetime(frame.pop("DatesR")), name="date"))


@pytest.fixture(scope="module")
def airgr_qsim(reference_dir) -> pd.DataFrame:
    return pd.read_csv(reference_dir / "L0123001_gr4j_qsim_airGR.csv", parse_dates=["date"])


@pytest.fixture(scope="module")
def nineties(basin) -> pd.DataFrame:
    """1989 (warm-up) to 1999: the period of the airGR reference run and calibration."""
    return basin.loc["1989-01-01":"1999-12-31"]


# --------------------------------------------------------------------------------------------
# known answers


def test_reference_run_matches_airgr_on_every_day(reference_cases, nineties, airgr_qsim):
    """cases.json gr4j_model_l0123001: airGR 1.7.6 RunModel_GR4J, 1990-1999 after a 1989 warm-up,
    default initial states; 1e-6 relative on every day, sum 6213.055159, first 2.431571, 2.366304, 2.802521."""
    case = reference_cases["gr4j_model_l0123001"]
    assert "X1=257.237556" in case["method"]
    out = gr4j_simulation(nineties, parameters=AIRGR_PARAMETERS, run_start="1990-01-01", warmup_days=365)
    q = np.array(out["qsim"])
    expected = airgr_qsim["Qsim_mm"].to_numpy()
    assert q.size == expected.size == 3652
    np.testing.assert_allclose(q, expected, rtol=1e-6, atol=0)
    assert out["total_mm"] == pytest.approx(6213.055159, rel=1e-6)
    np.testing.assert_allclose(q[:3], [2.431571, 2.366304, 2.802521], rtol=1e-6)
    assert out["period"] == {"warmup_start": "1989-01-01", "run_start": "1990-01-01", "run_end": "1999-12-31"}
    assert out["warmup_days"] == 365 and out["unit"] == "mm/d" and out["ok"] is True
    json.dumps(out)  # the payload is JSON-safe


def test_reference_run_from_the_full_record_with_arrays_and_positions(basin, airgr_qsim):
    """Same airGR case from plain arrays of the whole 1984-2012 record, periods given as positions."""
    start = basin.index.get_loc(pd.Timestamp("1990-01-01"))
    end = basin.index.get_loc(pd.Timestamp("1999-12-31"))
    out = gr4j_simulation(basin["P"].to_numpy(), basin["E"].to_numpy(),
                          parameters=list(AIRGR_PARAMETERS.values()),
                          run_start=start, run_end=end, warmup_days=365)
    np.testing.assert_allclose(out["qsim"], airgr_qsim["Qsim_mm"], rtol=1e-6)
    assert out["period"] == {"warmup_start": start - 365, "run_start": start, "run_end": end}


def test_unit_hydrograph_ordinates_by_hand():
    """x4 = 2: SH1(1) = 0.5^2.5; SH2(1) = 0.5*0.5^2.5, SH2(2) = 0.5, SH2(3) = 1 - 0.5*0.5^2.5 (Perrin et al. 2003)."""
    uh1, uh2 = kernel.unit_hydrographs(2.0)
    a = 0.5**2.5
    np.testing.assert_allclose(uh1, [a, 1 - a], rtol=1e-14)
    np.testing.assert_allclose(uh2, [a / 2, 0.5 - a / 2, 0.5 - a / 2, a / 2], rtol=1e-14)
    for x4 in (0.5, 1.0, 2.207958, 7.3, 20.0):
        uh1, uh2 = kernel.unit_hydrographs(x4)
        assert uh1.size == math.ceil(x4) and uh2.size == math.ceil(2 * x4)
        assert uh1.sum() == pytest.approx(1.0, abs=1e-14) and uh2.sum() == pytest.approx(1.0, abs=1e-14)
        assert (uh1 > 0).all() and (uh2 > 0).all()


@pytest.mark.parametrize("x", [(257.2, 1.01, 88.2, 2.21), (900.0, -3.5, 25.0, 0.5), (60.0, 0.0, 400.0, 19.6),
                               (350.0, -8.0, 5.0, 1.0)])
def test_compiled_loop_matches_the_plain_python_step(nineties, x):
    """The numba loop and the independently written one-day Python step agree to rounding, including
    x4 on its limits and a strong export (x2 < 0) that empties the routing store."""
    p, e = nineties["P"].to_numpy()[:1500], nineties["E"].to_numpy()[:1500]
    out = gr4j_simulation(p, e, parameters=x)
    uh1, uh2 = kernel.unit_hydrographs(x[3])
    state = {"production": 0.3 * x[0], "routing": 0.5 * x[2], "uh1": [0.0] * uh1.size, "uh2": [0.0] * uh2.size}
    ref = [kernel.gr4j_step_python(state, pi, ei, x[0], x[1], x[2], list(uh1), list(uh2)) for pi, ei in zip(p, e)]
    np.testing.assert_allclose(out["qsim"], ref, rtol=1e-10, atol=1e-12)
    assert out["final_state"]["production_store"] == pytest.approx(state["production"], rel=1e-10)
    assert out["final_state"]["routing_store"] == pytest.approx(state["routing"], rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("x", [AIRGR_PARAMETERS, {"x1": 120.0, "x2": -4.0, "x3": 15.0, "x4": 3.4}])
def test_water_balance_closes(nineties, x):
    """P - AET + actual exchange - Q equals the change in the production, routing and UH stores."""
    out = gr4j_simulation(nineties, parameters=x, return_states=True)
    s = {k: np.array(v) for k, v in out["states"].items()}
    start, end = out["initial_state"], out["final_state"]

    def stored(state):
        # slot 0 of a unit-hydrograph store is the day's release, already counted in qsim
        return state["production_store"] + state["routing_store"] + sum(state["uh1"][1:]) + sum(state["uh2"][1:])

    inflow = nineties["P"].sum() - s["actual_et"].sum() + s["actual_exchange"].sum() - np.sum(out["qsim"])
    assert inflow == pytest.approx(stored(end) - stored(start), abs=1e-8 * nineties["P"].sum())
    np.testing.assert_allclose(s["routing_outflow"] + s["direct_outflow"], out["qsim"], rtol=1e-12)
    assert (s["production_store"] <= x["x1"]).all() and (s["production_store"] >= 0).all()


def test_warm_up_then_continue_equals_one_run(nineties):
    """Running the warm-up, then continuing from its final_state, gives the one-call run exactly."""
    whole = gr4j_simulation(nineties, parameters=AIRGR_PARAMETERS, run_start="1990-01-01", warmup_days=365)
    first = gr4j_simulation(nineties.loc[:"1989-12-31"], parameters=AIRGR_PARAMETERS)
    second = gr4j_simulation(nineties.loc["1990-01-01":], parameters=AIRGR_PARAMETERS,
                             initial_state=first["final_state"])
    np.testing.assert_array_equal(second["qsim"], whole["qsim"])
    assert second["warnings"] == []  # explicit states need no warm-up


def test_short_warm_up_is_flagged(nineties):
    out = gr4j_simulation(nineties, parameters=AIRGR_PARAMETERS, run_start="1989-03-01")
    assert out["warmup_days"] == 59 and "under a year" in out["warnings"][0]


def test_importing_the_module_does_not_import_numba():
    code = "import sys, aquascope_core.methods.rainfall_runoff; assert 'numba' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# --------------------------------------------------------------------------------------------
# bad input


def test_missing_forcing_is_refused_with_its_date(nineties):
    frame = nineties.copy()
    frame.loc["1995-03-02", "P"] = np.nan
    frame.loc["1996-01-01", "P"] = np.nan
    with pytest.raises(InputError, match="precipitation is missing on 1995-03-02 and 1 more"):
        gr4j_simulation(frame, parameters=AIRGR_PARAMETERS)
    # a gap outside the modelled window does not matter
    out = gr4j_simulation(frame, parameters=AIRGR_PARAMETERS, run_end="1994-12-31")
    assert out["n_days"] == 6 * 365 + 1


@pytest.mark.parametrize(
    "change, match",
    [
        ({"parameters": {"x1": 0.0, "x2": 0.0, "x3": 50.0, "x4": 2.0}}, "x1=0.0"),
        ({"parameters": {"x1": 200.0, "x2": 0.0, "x3": -1.0, "x4": 2.0}}, "x3=-1.0"),
        ({"parameters": {"x1": 200.0, "x2": 0.0, "x3": 50.0, "x4": 0.3}}, "x4=0.3"),
        ({"parameters": {"x1": 200.0, "x2": 0.0, "x3": 50.0, "x4": 25.0}}, "from 0.5 to 20"),
        ({"parameters": {"x1": 200.0, "x2": float("nan"), "x3": 50.0, "x4": 2.0}}, "finite"),
        ({"parameters": [200.0, 0.0, 50.0]}, "four numbers"),
        ({"parameters": {"x1": 1, "x2": 0, "x3": 1, "X5": 2}}, "exactly the keys"),
        ({"run_start": "2030-01-01"}, "run_start"),
        ({"run_start": "1990-01-01", "warmup_days": 400}, "only 365 days precede"),
        ({"initial_state": {"production_store": 900.0}}, "production_store"),
        ({"initial_state": {"uh1": [0.0, 0.0, 0.0, 1.0]}}, "zero beyond the first 3"),
    ],
)
def test_bad_arguments_are_refused(nineties, change, match):
    kwargs = {"parameters": AIRGR_PARAMETERS, **change}
    with pytest.raises(InputError, match=match):
        gr4j_simulation(nineties, **kwargs)


def test_bad_series_are_refused(nineties):
    p, e = nineties["P"].to_numpy(), nineties["E"].to_numpy()
    with pytest.raises(InputError, match="same days"):
        gr4j_simulation(p, e[:-1], parameters=AIRGR_PARAMETERS)
    with pytest.raises(InputError, match="pet is missing"):
        gr4j_simulation(p, parameters=AIRGR_PARAMETERS)
    negative = e.copy()
    negative[10] = -0.1
    with pytest.raises(InputError, match="negative on 1989-01-11"):
        gr4j_simulation(p, negative, dates=nineties.index, parameters=AIRGR_PARAMETERS)
    shuffled = nineties.index.to_numpy().copy()
    shuffled[[5, 6]] = shuffled[[6, 5]]
    with pytest.raises(InputError, match="without gaps or repeats"):
        gr4j_simulation(p, e, dates=shuffled, parameters=AIRGR_PARAMETERS)
    with pytest.raises(InputError, match="no pet column"):
        gr4j_simulation(nineties[["P"]], parameters=AIRGR_PARAMETERS)
    with pytest.raises(InputError, match="carry no dates"):
        gr4j_simulation(p, e, parameters=AIRGR_PARAMETERS, run_start="1990-01-01")


def test_the_callers_data_are_not_modified(nineties):
    frame = nineties.copy()
    frame.loc["1989-02-01":"1989-02-10", "Qmm"] = np.nan
    before = frame.copy()
    p, e, q = frame["P"].to_numpy().copy(), frame["E"].to_numpy().copy(), frame["Qmm"].to_numpy().copy()
    gr4j_simulation(p, e, parameters=AIRGR_PARAMETERS, return_states=True)
    gr4j_calibration(frame, observed="Qmm", run_start="1990-01-01", run_end="1991-12-31")
    pd.testing.assert_frame_equal(frame, before)
    np.testing.assert_array_equal(p, frame["P"].to_numpy())
    np.testing.assert_array_equal(e, frame["E"].to_numpy())
    np.testing.assert_array_equal(q, frame["Qmm"].to_numpy())


# --------------------------------------------------------------------------------------------
# calibration


def test_calibration_reaches_the_airgr_optimum(nineties, airgr_qsim):
    """airGR's Calibration_Michel on NSE, 1990-1999 after a 1989 warm-up, reaches the cases.json
    parameters; their NSE from the reference simulation is 0.798822. Ours must be within 0.005."""
    keep = airgr_qsim["Qobs_mm"].notna()
    airgr_nse = metrics.nse(airgr_qsim["Qobs_mm"], airgr_qsim["Qsim_mm"])
    assert airgr_nse == pytest.approx(0.798822, abs=1e-6)
    out = gr4j_calibration(nineties, observed="Qmm", run_start="1990-01-01", run_end="1999-12-31",
                           warmup_days=365, criterion="nse")
    assert out["ok"] is True, out.get("reason")
    assert out["criterion_value"] >= airgr_nse - 0.005
    assert out["metrics"]["nse"] == pytest.approx(out["criterion_value"], abs=1e-12)
    assert out["observed_days"] == int(keep.sum()) == 3652 - 57 and out["missing_days"] == 57
    # the optimum is the same one, not another with an equal score
    for k, v in AIRGR_PARAMETERS.items():
        assert out["parameters"][k] == pytest.approx(v, rel=0.05)
    assert all(c["passed"] for c in out["checks"])
    assert out["search"]["converged"] and out["search"]["runs"] < 1000
    json.dumps(out)


def _synthetic(nineties, x):
    sim = gr4j_simulation(nineties, parameters=x, run_start="1990-01-01", warmup_days=365)
    observed = np.full(len(nineties), np.nan)
    observed[365:] = sim["qsim"]
    return observed


@pytest.mark.parametrize("criterion", ["nse", "nse_sqrt", "nse_log"])
def test_calibration_recovers_the_parameters_that_made_the_flows(nineties, criterion):
    """Flows simulated with known parameters are fitted back (criterion ~ 1, parameters within 1%)."""
    truth = {"x1": 420.0, "x2": -1.3, "x3": 55.0, "x4": 1.6}
    out = gr4j_calibration(nineties[["P", "E"]], observed=_synthetic(nineties, truth), dates=nineties.index,
                           run_start="1990-01-01", criterion=criterion)
    assert out["ok"] is True and out["criterion_value"] > 0.999999
    for k, v in truth.items():
        assert out["parameters"][k] == pytest.approx(v, rel=0.01)


def test_kge_calibration_on_a_perfect_fit(nineties):
    """KGE matches three statistics only; near a perfect fit its valley is flat along r, so the
    parameters are weakly identified. The criterion still gets close to 1."""
    truth = {"x1": 420.0, "x2": -1.3, "x3": 55.0, "x4": 1.6}
    out = gr4j_calibration(nineties[["P", "E"]], observed=_synthetic(nineties, truth), dates=nineties.index,
                           run_start="1990-01-01", criterion="kge")
    assert out["ok"] is True and out["criterion_value"] > 0.999
    assert out["metrics"]["kge"] == pytest.approx(out["criterion_value"], abs=1e-9)


@pytest.mark.parametrize("criterion, best", [("kge", 0.8562054), ("nse_sqrt", 0.8608882), ("nse_log", 0.8832359)])
def test_calibration_reaches_a_global_search_optimum(nineties, criterion, best):
    """Regression figures from this package: on L0123001 1990-1999, scipy's differential evolution
    (about 4,000 runs) followed by Nelder-Mead over the same transformed ranges reached these values."""
    out = gr4j_calibration(nineties, observed="Qmm", run_start="1990-01-01", criterion=criterion)
    assert out["ok"] is True and out["criterion_value"] == pytest.approx(best, abs=2e-6)
    assert out["metrics"][criterion] == pytest.approx(out["criterion_value"], abs=1e-9)


def test_missing_observations_are_skipped_not_filled(nineties):
    frame = nineties.copy()
    frame.loc["1993-01-01":"1996-12-31", "Qmm"] = np.nan
    out = gr4j_calibration(frame, observed="Qmm", run_start="1990-01-01")
    assert out["ok"] is True
    assert out["missing_days"] == frame.loc["1990":, "Qmm"].isna().sum() > 4 * 365
    assert out["observed_days"] == frame.loc["1990":, "Qmm"].notna().sum()
    sim = gr4j_simulation(frame, parameters=out["parameters"], run_start="1990-01-01", warmup_days=365)
    assert out["criterion_value"] == pytest.approx(metrics.nse(frame.loc["1990":, "Qmm"], sim["qsim"]), abs=1e-12)


def test_calibration_refuses_too_few_observed_days_or_a_short_warm_up(nineties):
    frame = nineties.copy()
    frame.loc["1990-12-01":, "Qmm"] = np.nan
    with pytest.raises(InsufficientDataError, match="at least 365"):
        gr4j_calibration(frame, observed="Qmm", run_start="1990-01-01")
    with pytest.raises(InsufficientDataError, match="a year"):
        gr4j_calibration(nineties, observed="Qmm", run_start="1989-07-01", warmup_days=181)
    with pytest.raises(InsufficientDataError, match="only 365 days precede"):
        gr4j_calibration(nineties, observed="Qmm", run_start="1990-01-01", warmup_days=730)
    with pytest.raises(InsufficientDataError, match="variance"):
        gr4j_calibration(nineties, observed=np.zeros(len(nineties)), run_start="1990-01-01")
    with pytest.raises(InputError, match="criterion"):
        gr4j_calibration(nineties, observed="Qmm", criterion="rmse")
    with pytest.raises(InputError, match="observed discharge"):
        gr4j_calibration(nineties)
    with pytest.raises(InputError, match="x4"):
        gr4j_calibration(nineties, observed="Qmm", search_ranges={"x4": (0.1, 5.0)})


def test_a_parameter_pinned_on_its_search_bound_fails_the_calibration(nineties):
    """With x1 confined to 10-100 mm the optimum (about 257 mm) sits on the upper bound: no number."""
    out = gr4j_calibration(nineties, observed="Qmm", run_start="1990-01-01", search_ranges={"x1": (10.0, 100.0)})
    assert out["ok"] is False
    assert out["parameters"] is None and out["criterion_value"] is None and out["metrics"] is None
    assert "x1 = 100" in out["reason"]
    failed = [c["check"] for c in out["checks"] if not c["passed"]]
    assert failed == ["inside_search_ranges"]


def test_split_sample_validation(nineties):
    """Calibrate 1990-1994, validate 1995-1999 (each after a one-year warm-up)."""
    out = gr4j_split_sample_validation(nineties, observed="Qmm",
                                       calibration_period=("1990-01-01", "1994-12-31"),
                                       validation_period=("1995-01-01", "1999-12-31"))
    assert out["ok"] is True and out["overlap"] is False
    assert out["calibration"]["period"] == {"warmup_start": "1989-01-01", "run_start": "1990-01-01",
                                            "run_end": "1994-12-31"}
    assert out["validation"]["period"]["warmup_start"] == "1994-01-01"
    sim = gr4j_simulation(nineties, parameters=out["parameters"], run_start="1995-01-01", warmup_days=365)
    expected = metrics.nse(nineties.loc["1995":, "Qmm"], sim["qsim"])
    assert out["validation"]["criterion_value"] == pytest.approx(expected, abs=1e-12)
    assert out["criterion_drop"] == pytest.approx(out["calibration"]["criterion_value"] - expected, abs=1e-12)
    # a sensible model on this catchment: both periods well above the observed-mean benchmark
    assert out["calibration"]["criterion_value"] > 0.75 and expected > 0.6
    json.dumps(out)


def test_split_sample_refuses_a_short_validation_record(nineties):
    frame = nineties.copy()
    frame.loc["1998-06-01":, "Qmm"] = np.nan
    with pytest.raises(InsufficientDataError, match="validate"):
        gr4j_split_sample_validation(frame, observed="Qmm", calibration_period=("1990-01-01", "1996-12-31"),
                                     validation_period=("1998-01-01", "1999-12-31"))


def test_registry_rows():
    from aquascope_core.registry import METHODS, assess_method

    for mid in ("gr4j_simulation", "gr4j_calibration"):
        row = METHODS[mid]
        assert row.variable == "discharge" and row.resolution == "daily"
        assert row.needs == ("precipitation", "potential_evapotranspiration") and "Perrin" in row.citation and "Coron" in row.citation
        assert row.min_years == 5 and row.marginal_years == 3 and "ungauged_flow" in row.problems
        module, name = row.function.rsplit(".", 1)
        assert callable(getattr(__import__(module, fromlist=[name]), name))
    site = {"years_by_variable": {"discharge": 10}, "resolution_by_variable": {"discharge": "daily"},
            "available": {"discharge", "precipitation"}}
    assert assess_method("gr4j_calibration", site)["status"] == "not_defensible"  # no PET


def test_a_calibration_no_better_than_the_mean_flow_fails(nineties):
    """Discharge unrelated to the rainfall (the series reversed in time): NSE cannot beat 0."""
    frame = nineties.copy()
    frame["Qmm"] = frame["Qmm"].to_numpy()[::-1]
    out = gr4j_calibration(frame, observed="Qmm", run_start="1990-01-01")
    assert out["ok"] is False and out["parameters"] is None
    assert "beats_mean_flow" in [c["check"] for c in out["checks"] if not c["passed"]]
