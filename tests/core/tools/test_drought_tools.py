"""The drought and groundwater tools on real records: the Leaf River (HOLMES, 31 years of daily P, PET and
runoff), Flat Brook (USGS 01440000, 80 years of daily discharge), the Schwingbach site 24 heads (Hesse, three
years) as an upload, and two published series as uploads: the climate-indices SPI fixture and the Bogra monthly
rainfall of pyMannKendall. Each tool is cross-checked against its method, and figures against published or
independently computed values."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from aquascope_core.catalogue import TOOLS, validate_step
from aquascope_core.data import get_source
from aquascope_core.errors import InputError, InsufficientDataError
from aquascope_core.methods import drought as d
from aquascope_core.methods.trends import seasonal_mann_kendall
from aquascope_core.registry import METHODS
from aquascope_core.registry import drought as drought_rows
from aquascope_core.tools import drought as dt
from aquascope_core.tools.context import DataContext, table_entry

LEAF = ("catalogue", "02472000")
FLAT = ("usgs", "01440000")


def upload(name: str, text: str) -> DataContext:
    return DataContext.from_tables({name: table_entry(name, text)})


def values(entry: dict) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in entry["values"]], dtype=float)


@pytest.fixture(scope="module")
def leaf() -> dict[str, pd.Series]:
    h = get_source("holmes")
    return {v: h.fetch_series("02472000", v) for v in ("precipitation", "potential_evapotranspiration", "discharge")}


@pytest.fixture(scope="module")
def leaf_spi():
    return dt.standardized_precipitation_index(*LEAF, scales=[3, 6, 12])


@pytest.fixture(scope="module")
def schwingbach_csv() -> str:
    s = get_source("spotpy_hesse").fetch_series("schwingbach_site24", "groundwater_level")
    return "date,gwhead (m)\n" + "".join(f"{t.date()},{v}\n" for t, v in s.items())


def test_every_drought_registry_row_has_its_tool_in_the_catalogue():
    for row in drought_rows.METHODS + [METHODS["groundwater_level_trend"]]:
        spec = TOOLS[row.tool]
        assert row.id in spec.methods
    assert not validate_step({"id": "s1", "tool": "standardized_precipitation_index",
                              "method": "standardized_precipitation_index",
                              "arguments": {"source": "catalogue", "station_id": "02472000", "scales": [3, 6]}})


# -- SPI ------------------------------------------------------------------------------------------

def test_spi_reproduces_the_climate_indices_fixture_through_an_upload(reference_dir, reference_cases):
    """Case ``spi_gamma_fixture`` (climate-indices 3.1.0 test fixtures, BSD-3): SPI-1 and SPI-6 of monthly
    precipitation 1895-2017 (gamma, Thom's estimator, clipped at 3.09) within 1e-3, read from a CSV the user
    uploads (the fixture's ten empty months at the end are absent from the upload)."""
    fx = pd.read_csv(reference_dir / "climate_indices_fixture_monthly.csv").dropna(subset=["precip_mm"])
    text = "date,precipitation (mm)\n" + "".join(f"{a},{b}\n" for a, b in zip(fx["date"], fx["precip_mm"]))
    p = dt.standardized_precipitation_index("upload", "fixture.csv", scales=[6, 1], fit="thom",
                                            data=upload("fixture.csv", text))
    assert "1e-3" in reference_cases["spi_gamma_fixture"]["tolerance"]
    assert p["ok"] and p["scales"] == [1, 6] and p["status"] == "defensible" and p["index"] == "SPI"
    for entry, col in zip(p["series"], ("spi1_gamma_fixture", "spi6_gamma_fixture")):
        got, want = values(entry), fx[col].to_numpy(dtype=float)
        assert np.array_equal(np.isfinite(got), np.isfinite(want))
        np.testing.assert_allclose(got[np.isfinite(want)], want[np.isfinite(want)], atol=1e-3)
    assert p["status_month"] == "2017-02" and p["series"][1]["current"]["value"] == pytest.approx(-1.216361, abs=1e-3)
    assert p["series"][1]["current"]["class"] == "moderate drought"


def test_spi_tool_matches_the_method_and_a_scipy_gamma_fit(leaf, leaf_spi):
    """SPI-3 of December 1987 by hand: the October-December totals of the 31 years fitted by scipy's gamma
    maximum likelihood (location 0) and mapped to the normal."""
    p = leaf_spi
    assert p["ok"] and p["status"] == "defensible" and p["record_years"] == 30 and p["status_month"] == "1987-12"
    for entry, k in zip(p["series"], (3, 6, 12)):
        m = d.standardized_precipitation_index(leaf["precipitation"], k)
        assert entry["values"] == m["values"] and entry["index"] == f"SPI-{k}"
    totals = leaf["precipitation"].resample("MS").sum().rolling(3).sum()
    dec = totals[totals.index.month == 12]
    shape, _, scale = stats.gamma.fit(dec.to_numpy(), floc=0)
    hand = stats.norm.ppf(stats.gamma.cdf(dec.iloc[-1], shape, scale=scale))
    assert p["series"][0]["current"]["value"] == pytest.approx(hand, abs=2e-4)
    assert p["series"][0]["current"]["value"] == pytest.approx(-1.57, abs=0.005)
    assert [e["current"]["class"] for e in p["series"]] == ["severe drought", "severe drought", "near normal"]
    assert p["meta"]["tool"] == "standardized_precipitation_index"
    assert any("McKee" in (s.get("citation") or "") for s in p["meta"]["sources"])
    assert len(json.dumps(p)) < 60_000


def test_as_of_reads_the_status_at_a_named_month(leaf_spi):
    p = dt.standardized_precipitation_index(*LEAF, scales=[3, 12], as_of="1980-06")
    i = p["series"][0]["dates"].index("1980-06")
    assert p["status_month"] == "1980-06" and p["series"][0]["current"]["value"] == p["series"][0]["values"][i]
    assert p["series"][0]["values"] == leaf_spi["series"][0]["values"]
    with pytest.raises(InputError, match="inside the record"):
        dt.standardized_precipitation_index(*LEAF, scales=[3], as_of="2030-01")
    with pytest.raises(InputError, match="YYYY-MM"):
        dt.standardized_precipitation_index(*LEAF, scales=[3], as_of="last summer")
    with pytest.raises(InputError, match="scales"):
        dt.standardized_precipitation_index(*LEAF, scales=[0, 3])


# -- SPEI, SSI, SGI ---------------------------------------------------------------------------------

def test_spei_tool_matches_the_method(leaf):
    p = dt.standardized_precipitation_evapotranspiration_index(*LEAF, scales=[3, 12])
    m = d.standardized_precipitation_evapotranspiration_index(leaf["precipitation"], leaf["potential_evapotranspiration"], 3)
    assert p["ok"] and p["series"][0]["values"] == m["values"] and p["pet_station"] == {"source": "catalogue",
                                                                                       "station_id": "02472000"}
    assert p["series"][0]["current"]["value"] == pytest.approx(-1.71, abs=0.005)


def test_ssi_at_flat_brook_matches_the_method_and_gringorten_scores_by_hand():
    """SSI-1 of April 2025: the rank of its mean flow among the 81 Aprils, z = Phi^-1((r - 0.44)/(n + 0.12))."""
    q = get_source("usgs").fetch_series("01440000", "discharge")
    p = dt.standardized_streamflow_index(*FLAT, scales=[1, 12])
    assert p["series"][0]["values"] == d.standardized_streamflow_index(q, 1)["values"]
    assert p["status_month"] == "2025-04" and p["period"]["last_month"] == "2025-05"  # May 2025 is incomplete
    april = q[q.index.month == 4].groupby(q[q.index.month == 4].index.year).mean()
    r = stats.rankdata(april.to_numpy())[-1]
    hand = stats.norm.ppf((r - 0.44) / (april.size + 0.12))
    assert p["series"][0]["current"]["value"] == pytest.approx(hand, rel=1e-12)
    assert p["series"][1]["current"]["class"] == "severe drought" and p["record_years"] == 79


def test_sgi_refuses_three_years_of_heads_and_runs_on_a_long_record(schwingbach_csv, leaf):
    with pytest.raises(InsufficientDataError, match="at least 10"):
        dt.standardized_groundwater_index("upload", "well.csv", data=upload("well.csv", schwingbach_csv))
    # the normal-scores transform does not care what the record is: a long real record exercises the tool's path
    p = dt.standardized_groundwater_index(*LEAF, variable="discharge", max_missing_days=0)
    assert p["series"][0]["values"] == d.standardized_groundwater_index(leaf["discharge"])["values"]
    assert p["series"][0]["index"] == "SGI" and p["ok"]


# -- events, classes, propagation -----------------------------------------------------------------

def test_drought_events_tool_matches_the_method_and_ranks_the_event_at_the_status_month(leaf_spi):
    p = dt.drought_events(leaf_spi["series"])
    assert [b["index"] for b in p["by_index"]] == ["SPI-3", "SPI-6", "SPI-12"]
    for b, entry in zip(p["by_index"], leaf_spi["series"]):
        m = d.drought_events(entry)
        assert b["events"] == m["events"] and b["n_events"] == m["summary"]["n_events"]
    spi6 = p["by_index"][1]
    cur = spi6["current"]
    assert (cur["onset"], cur["end"], cur["duration_months"], cur["months_to_status_month"]) == ("1987-11", "1987-12", 2, 2)
    assert spi6["current_rank_by_severity"] == 1 + sum(e["severity"] > cur["severity"] for e in spi6["events"])
    assert spi6["current_rank_by_severity"] == 7 and spi6["n_events"] == 23
    assert p["by_index"][2]["current"] is None  # SPI-12 is not in drought in 1987-12
    # a named month inside an event: the event holding it, and how far into it the month lies
    mid = dt.standardized_precipitation_index(*LEAF, scales=[6], as_of="1963-06")
    b = dt.drought_events(mid["series"])["by_index"][0]
    assert (b["current"]["onset"], b["current"]["months_to_status_month"]) == ("1963-02", 5)
    assert b["current"]["duration_months"] == 13 and b["current_rank_by_severity"] == 1
    with pytest.raises(InputError, match="index"):
        dt.drought_events([{"values": [1]}])


def test_drought_classes_share_by_hand(leaf_spi):
    p = dt.drought_classes(leaf_spi["series"])
    v = values(leaf_spi["series"][0])
    v = v[np.isfinite(v)]
    assert p["by_index"][0]["fraction_moderate_or_worse"] == pytest.approx(np.mean(v <= -1.0), rel=1e-12)
    assert sum(p["by_index"][0]["counts"].values()) == v.size
    assert p["by_index"][0]["latest"]["class"] == "severe drought"


def test_propagation_tool_at_the_leaf_river(leaf):
    p = dt.drought_propagation(*LEAF, *LEAF, response_variable="discharge")
    m = d.drought_propagation(leaf["precipitation"], d.standardized_streamflow_index(leaf["discharge"], 1))
    assert p["best"] == m["best"] and p["response_index"] == "SSI-1"
    assert p["best"]["scale_months"] == 2 and p["best"]["lag_months"] == 0 and p["best"]["r"] == pytest.approx(0.79, abs=0.005)
    with pytest.raises(InputError, match="response_variable"):
        dt.drought_propagation(*LEAF, *LEAF, response_variable="precipitation")


# -- groundwater level trend ------------------------------------------------------------------------

def test_groundwater_trend_seasonal_kendall_reproduces_pymannkendall_through_an_upload(reference_dir):
    """pyMannKendall's seasonal_test on the Bogra monthly rainfall (period 12): S = -399, Var S = 34702.33,
    z = -2.1365, p = 0.03264, decreasing; slope -2/23 per year (the median within-month pairwise slope). The tool's
    seasonal path is indifferent to what the monthly values measure."""
    b = pd.read_csv(reference_dir / "bogra_monthly_rainfall_pymannkendall.csv")
    text = "date,rain (mm)\n" + "".join(f"{y}-{m:02d},{'' if pd.isna(v) else v}\n"
                                        for y, m, v in zip(b["year"], b["month"], b["bogra_mm"]))
    p = dt.groundwater_level_trend("upload", "bogra.csv", variable="precipitation", basis="seasonal",
                                   data=upload("bogra.csv", text))
    st = p["seasonal_trend"]
    assert (st["S"], st["n"], st["n_missing"]) == (-399, 353, 7)
    assert st["var_S"] == pytest.approx(34702.333333333336, rel=1e-12)
    assert st["p_value"] == pytest.approx(0.03263834596177739, rel=1e-9)
    assert p["ok"] and p["sen_slope"] == pytest.approx(-2 / 23) and p["trend"] == "decreasing"
    assert p["decline_rate"] == pytest.approx(2 / 23) and p["slope_unit"] == "mm per year"


def test_groundwater_trend_at_schwingbach_by_hand(schwingbach_csv):
    """Monthly means where at most 10 days are missing (5 of the 36 months fail), the seasonal Kendall slope as
    the median of the within-month pairwise slopes, computed here with pandas."""
    ctx = upload("well.csv", schwingbach_csv)
    p = dt.groundwater_level_trend("upload", "well.csv", basis="seasonal", data=ctx)
    s = get_source("spotpy_hesse").fetch_series("schwingbach_site24", "groundwater_level")
    full = pd.date_range("2014-01-01", "2016-12-31", freq="D")
    month = full.to_period("M")
    daily = s.reindex(full)
    missing = daily.isna().groupby(month).sum()
    means = daily.groupby(month).mean().where(missing <= 10)
    assert int(means.isna().sum()) == 5 == p["monthly"]["n_missing"]
    slopes = []
    for m in range(1, 13):
        x = means[means.index.month == m].dropna()
        yrs = x.index.year.to_numpy()
        slopes += [(x.iloc[j] - x.iloc[i]) / (yrs[j] - yrs[i]) for i in range(len(x)) for j in range(i + 1, len(x))]
    assert p["sen_slope"] == pytest.approx(float(np.median(slopes)), rel=1e-12)
    assert p["sen_slope"] == pytest.approx(0.105, abs=5e-4) and p["seasonal"]["n_years"] == 3
    m = seasonal_mann_kendall(means.to_timestamp(), unit="m")
    assert (p["seasonal_trend"]["S"], p["seasonal_trend"]["var_S"]) == (m["S"], m["var_S"]) == (15, pytest.approx(32.3333, abs=1e-4))
    assert p["p_value"] == pytest.approx(m["p_value"], rel=1e-12)
    assert p["ok"] and p["significant"] and p["confidence"] == 0.95 and p["unit"] == "m"
    # no calendar year holds twelve monthly means: the annual basis is an honest null with the reason
    a = dt.groundwater_level_trend("upload", "well.csv", basis="annual", data=ctx)
    assert a["ok"] is False and "twelve monthly means" in a["reason"] and a["annual"]["n_years"] == 0
    # a period slices the record (January 2015 has no head at all, so the slice starts in February)
    short = dt.groundwater_level_trend("upload", "well.csv", basis="seasonal", period="2015-2016", data=ctx)
    assert short["period"] == {"first_month": "2015-02", "last_month": "2016-12"}
    with pytest.raises(InputError, match="period"):
        dt.groundwater_level_trend("upload", "well.csv", period="the nineties", data=ctx)
