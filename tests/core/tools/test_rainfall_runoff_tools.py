"""The GR4J tools: calibration with a split-sample test on the Leaf River, the unit conversion of a discharge
recorded as a volume, and a simulation checked day by day against airGR's reference run."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from aquascope_core.data import get_source
from aquascope_core.errors import InputError, UnitError
from aquascope_core.methods.rainfall_runoff import gr4j_split_sample_validation
from aquascope_core.tools.context import DataContext, table_entry
from aquascope_core.tools.rainfall_runoff import gr4j_calibration, gr4j_simulation

LEAF_AREA = 1924.4  # km2, USGS catalogue (743 sq mi)


@pytest.fixture(scope="module")
def leaf():
    src = get_source("catalogue")
    return {v: src.fetch_series("02472000", v) for v in ("precipitation", "potential_evapotranspiration", "discharge")}


@pytest.fixture(scope="module")
def leaf_calibration():
    return gr4j_calibration("catalogue", "02472000")


def _upload(name: str, frame: pd.DataFrame) -> DataContext:
    csv = frame.to_csv(index_label="date", lineterminator="\n")
    return DataContext.from_tables({name: table_entry(name, csv)}, {"lat": 31.7, "lon": -89.4})


def test_calibration_is_the_split_sample_method_on_the_gauge(leaf, leaf_calibration):
    c = leaf_calibration
    assert c["ok"] and c["model"] == "GR4J" and c["criterion"] == "nse"
    assert c["conversion"].startswith("none") and c["forcing_period"] == ["1957-01-01", "1987-12-31"]
    # the halves of the days after a one-year warm-up, split at the 1 January nearest the middle (1972-12-31 is the
    # middle day): whole calendar years, 1958-1972 and 1973-1987
    assert [c[k]["period"][e] for k in ("calibration", "validation") for e in ("run_start", "run_end")] == [
        "1958-01-01", "1972-12-31", "1973-01-01", "1987-12-31"]
    direct = gr4j_split_sample_validation(leaf["precipitation"], leaf["potential_evapotranspiration"], leaf["discharge"],
                                          calibration_period=("1958-01-01", "1972-12-31"),
                                          validation_period=("1973-01-01", "1987-12-31"))
    assert c["parameters"] == pytest.approx(direct["parameters"], rel=1e-12)
    assert c["validation"]["nse"] == pytest.approx(direct["validation"]["metrics"]["nse"], rel=1e-12)
    # the Leaf River is GR4J's home ground: NSE near 0.87 on both halves (a test the nse_min gate of 0.5 checks)
    assert 0.8 < c["calibration"]["nse"] < 0.95 and 0.8 < c["validation"]["nse"] < 0.95
    assert c["validation"]["kge"] > 0.7 and abs(c["criterion_drop"]) < 0.05


def test_a_discharge_in_m3s_is_turned_into_depth_by_the_area(leaf, leaf_calibration):
    """The Leaf River's record written as m3/s (depth x area / 86.4) in a user's table: the tool turns it back
    into mm/d by the area it is given and calibrates to the same parameters."""
    frame = pd.DataFrame({"precipitation (mm/d)": leaf["precipitation"],
                          "potential_evapotranspiration (mm/d)": leaf["potential_evapotranspiration"],
                          "discharge (m3/s)": leaf["discharge"] * LEAF_AREA / 86.4})
    frame.index = frame.index.strftime("%Y-%m-%d")
    data = _upload("leaf_m3s.csv", frame)
    got = gr4j_calibration("upload", "leaf_m3s.csv", area_km2=LEAF_AREA, data=data)
    assert got["ok"] and "m3/s x 86.4 / 1,924.4 km2 = mm/d" == got["conversion"]
    for k in ("x1", "x2", "x3", "x4"):
        assert got["parameters"][k] == pytest.approx(leaf_calibration["parameters"][k], rel=1e-4)
    with pytest.raises(UnitError, match="drainage area"):
        gr4j_calibration("upload", "leaf_m3s.csv", data=data)


def test_simulation_reproduces_airgr_month_by_month(reference_dir, reference_cases):
    """airGR 1.7.6 RunModel_GR4J on L0123001 (Blue River at Nourlangie Rock, 360 km2), 1990-1999 after a 1989
    warm-up, X1=257.237556 X2=1.012237 X3=88.234673 X4=2.207958 (airGR vignette V01): the tool's monthly means
    and mean runoff are the reference run's, in m3/s over 360 km2."""
    case = reference_cases["gr4j_model_l0123001"]
    obs = pd.read_csv(reference_dir / "L0123001_BasinObs_airGR.csv")
    obs = obs[(obs["DatesR"] >= "1989-01-01") & (obs["DatesR"] <= "1999-12-31")].set_index("DatesR")
    frame = pd.DataFrame({"precipitation (mm/d)": obs["P"], "potential_evapotranspiration (mm/d)": obs["E"]})
    data = _upload("l0123001.csv", frame)
    params = {"x1": 257.237556, "x2": 1.012237, "x3": 88.234673, "x4": 2.207958}
    assert "X1=257.237556" in case["method"]
    sim = gr4j_simulation("upload", "l0123001.csv", "upload", "l0123001.csv", params, 360.0,
                          flows=["mean_flow", "flow_duration_curve", "baseflow_index"], data=data)
    assert sim["ok"] and sim["period"] == ["1990-01-01", "1999-12-31"] and sim["n_days"] == 3652
    ref = pd.read_csv(reference_dir / "L0123001_gr4j_qsim_airGR.csv", parse_dates=["date"]).set_index("date")["Qsim_mm"]
    assert ref.sum() == pytest.approx(6213.055159, rel=1e-9)
    monthly = ref.groupby(ref.index.month).mean() * 360.0 / 86.4
    assert sim["monthly_mean_flow"] == pytest.approx(monthly.to_list(), rel=1e-6)
    assert sim["mean_runoff_mm_per_year"] == pytest.approx(6213.055159 / 3652 * 365.25, rel=1e-6)
    assert sim["estimates"]["q50"]["unit"] == "m3/s" and sim["estimates"]["bfi"]["unit"] == "dimensionless"
    assert sim["estimates"]["q5"]["estimate"] > sim["estimates"]["q50"]["estimate"] > sim["estimates"]["q95"]["estimate"]


def test_simulated_flows_scale_with_the_site_area(leaf, leaf_calibration):
    p = leaf_calibration["parameters"]
    whole = gr4j_simulation("catalogue", "02472000", "catalogue", "02472000", p, LEAF_AREA, flows=["mean_flow"])
    part = gr4j_simulation("catalogue", "02472000", "catalogue", "02472000", p, 442.9, flows=["mean_flow"])
    assert part["estimates"]["mean_flow"]["estimate"] == pytest.approx(
        whole["estimates"]["mean_flow"]["estimate"] * 442.9 / LEAF_AREA, rel=1e-12)
    # the simulated mean flow of the whole catchment is within 10 % of the recorded one (the model's volume bias)
    wy = leaf["discharge"].index.year + (leaf["discharge"].index.month >= 10)
    recorded = (leaf["discharge"].groupby(wy).mean().loc[1958:1987].mean()) * LEAF_AREA / 86.4
    assert whole["estimates"]["mean_flow"]["estimate"] == pytest.approx(recorded, rel=0.10)
    # the summary the report prints: the area as given and the flow by its label (it read "over 443 km2: mean_flow")
    assert f"over 442.9 km2: mean flow {part['estimates']['mean_flow']['estimate']:.3g} m3/s" in part["summary"]


def test_simulation_refuses_bad_arguments(leaf_calibration):
    p = leaf_calibration["parameters"]
    with pytest.raises(InputError, match="area_km2"):
        gr4j_simulation("catalogue", "02472000", "catalogue", "02472000", p, 0)
    with pytest.raises(InputError, match="parameters"):
        gr4j_simulation("catalogue", "02472000", "catalogue", "02472000", [1, 2], 100.0)
    with pytest.raises(InputError, match="flows"):
        gr4j_simulation("catalogue", "02472000", "catalogue", "02472000", p, 100.0, flows=["floods"])
    with pytest.raises(InputError, match="warmup_days"):
        gr4j_calibration("catalogue", "02472000", warmup_days=30)


def test_a_model_that_misses_the_seasonal_cycle_says_so_and_a_rain_fed_fit_does_not(leaf_calibration):
    """The regime diagnosis: the Leaf River (rain-fed) simulated by calendar month follows the observed (r 0.99), no
    diagnosis; Au Saumon (Quebec, snow-fed: its flows peak in April with the melt) calibrated by the same search
    misses the cycle (r 0.30, the simulated peak in January), and the payload says why GR4J cannot fit it."""
    from aquascope_core.tools.rainfall_runoff import _regime_diagnosis

    regime = leaf_calibration["plot"]["regime"]
    assert len(regime["observed"]) == len(regime["simulated"]) == 12
    assert np.corrcoef(regime["observed"], regime["simulated"])[0, 1] > 0.95
    assert "diagnosis" not in leaf_calibration
    snow = gr4j_calibration("holmes", "au_saumon")
    assert snow["ok"] and snow["validation"]["nse"] < 0.5  # a converged search that still fails the gate
    got = snow["plot"]["regime"]
    assert int(np.argmax(got["observed"])) == 3 and np.corrcoef(got["observed"], got["simulated"])[0, 1] < 0.5
    assert "highest in April, the simulated ones in January" in snow["diagnosis"] and "snow" in snow["diagnosis"]
    assert not re.search(r"\b\d", snow["diagnosis"])  # words only (GR4J aside): no number outside the gated ones
    flat = [1.0] * 12
    assert _regime_diagnosis({"observed": flat, "simulated": flat}) is None
    assert _regime_diagnosis({"observed": [1.0] * 11, "simulated": flat}) is None
