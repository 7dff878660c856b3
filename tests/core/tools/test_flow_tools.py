"""The flow-statistics tools on real records: Flat Brook (USGS 01440000, 80 years of daily discharge), the Leaf
River (HOLMES, 31 years of daily P and runoff) and the Bass River worked example of Ladson et al. (2013) as an
upload. Each tool is cross-checked against its method on the same series, and a figure against a published or
independently computed value."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from aquascope_core.catalogue import TOOLS, schema, validate_step
from aquascope_core.data import get_source
from aquascope_core.errors import DataNotFoundError, InputError
from aquascope_core.methods import baseflow, flows, signatures
from aquascope_core.registry import METHODS
from aquascope_core.registry import flows as flow_rows
from aquascope_core.tools import flows as ft
from aquascope_core.tools.context import DataContext, table_entry

FLAT = ("usgs", "01440000")
LEAF = ("catalogue", "02472000")


@pytest.fixture(scope="module")
def flat_brook() -> pd.Series:
    return get_source("usgs").fetch_series("01440000", "discharge")


def upload(name: str, text: str) -> DataContext:
    return DataContext.from_tables({name: table_entry(name, text)})


def strip(p: dict) -> dict:
    return {k: v for k, v in p.items() if k not in ("meta", "station", "variable", "summary")}


def test_every_flows_registry_row_has_its_tool_in_the_catalogue():
    for row in flow_rows.METHODS:
        spec = TOOLS[row.tool]
        assert row.id in spec.methods and spec.function.startswith("aquascope_core.tools.flows:")
        sch = schema(row.tool)
        assert "data" not in sch and sch["source"]["required"] and sch["station_id"]["required"]
        assert not validate_step({"id": "s1", "tool": row.tool, "method": row.id,
                                  "arguments": {"source": "usgs", "station_id": "01440000"}})


def test_flow_duration_curve_matches_the_method_and_a_hand_quantile(flat_brook):
    """Q95 by hand: the Weibull plotting positions i/(n+1) of the descending record, interpolated at 0.95."""
    p = ft.flow_duration_curve(*FLAT)
    m = flows.flow_duration_curve(flat_brook, unit="m3/s")
    assert strip(p) == strip(m)
    q = np.sort(flat_brook.to_numpy())[::-1]
    pos = np.arange(1, q.size + 1) / (q.size + 1)
    assert p["quantiles"]["Q95"] == pytest.approx(np.interp(0.95, pos, q), rel=1e-12)
    assert p["quantiles"]["Q95"] == pytest.approx(0.3681, abs=5e-5)
    assert p["unit"] == "m3/s" and p["station"]["name"] == "Flat Brook near Flatbrookville NJ"
    assert p["meta"]["tool"] == "flow_duration_curve" and "Q95 0.3681 m3/s" in p["summary"]
    assert p["meta"]["sources"][0]["name"] == "usgs" and "01440000" in p["meta"]["sources"][0]["url"]
    json.dumps(p)


def test_7q10_matches_the_method_and_an_independent_log_pearson_fit(flat_brook):
    """Annual 7-day minima recomputed with pandas by April-March climatic year; log-Pearson III by the moments
    of log10 with the bias-corrected skew (Riggs 1972) and scipy's Pearson III quantile."""
    p = ft.low_flow_frequency(*FLAT)
    m = flows.low_flow_frequency(flat_brook, unit="m3/s")
    assert strip(p) == strip(m) and p["statistic"] == "7Q10" and p["n_years"] == 80
    minima = []
    for y in range(1945, 2025):
        sel = flat_brook[f"{y}-04-01":f"{y + 1}-03-31"]
        minima.append(sel.rolling(7).mean().min())
    y = np.log10(minima)
    n, mean, sd = y.size, y.mean(), y.std(ddof=1)
    skew = n * np.sum((y - mean) ** 3) / ((n - 1) * (n - 2) * sd ** 3)
    hand = 10 ** (mean + stats.pearson3.ppf(0.1, skew) * sd)
    assert p["value"] == pytest.approx(hand, rel=1e-9)
    assert p["value"] == pytest.approx(0.2103, abs=5e-5)
    assert min(p["minima"]) < p["value"] < np.median(p["minima"])


def test_annual_minimum_flows_matches_the_method(flat_brook):
    p = ft.annual_minimum_flows(*FLAT, days=30)
    m = flows.annual_minimum_flows(flat_brook, days=30, unit="m3/s")
    assert strip(p) == strip(m) and p["n_years"] == 80 and p["days"] == 30


def test_lyne_hollick_reproduces_ladson_2013_through_an_upload(reference_dir):
    """Ladson et al. (2013), Bass River at Loch (67 days): BFI = 0.1965759 for alpha 0.98, 3 passes, 30 reflected
    values (their BFI_example.R). The example has no dates: the test gives it 67 consecutive days."""
    d = pd.read_csv(reference_dir / "bass_river_loch_ladson2013.csv")
    days = pd.date_range("2000-01-01", periods=len(d), freq="D")
    text = "date,flow (m3/s)\n" + "".join(f"{t.date()},{v}\n" for t, v in zip(days, d["flow"]))
    p = ft.lyne_hollick_baseflow("upload", "bass.csv", alpha=0.98, data=upload("bass.csv", text))
    assert p["ok"] and p["baseflow_index"] == pytest.approx(0.1965759, abs=5e-8)
    assert p["station"]["source"] == "upload" and p["meta"]["parameters"]["alpha"] == 0.98


def test_baseflow_filters_refuse_a_gap_and_a_slice_makes_them_run(flat_brook):
    days = pd.date_range("2001-01-01", periods=400, freq="D")
    q = flat_brook["2001-01-01":].iloc[:400].to_numpy()
    rows = [f"{t.date()},{v}" for t, v in zip(days, q)]
    del rows[200]  # one day absent
    ctx = upload("gap.csv", "date,flow (m3/s)\n" + "\n".join(rows) + "\n")
    with pytest.raises(InputError, match="missing day"):
        ft.eckhardt_baseflow("upload", "gap.csv", data=ctx)
    p = ft.eckhardt_baseflow("upload", "gap.csv", end="2001-07-19", data=ctx)
    m = baseflow.eckhardt_baseflow(flat_brook["2001-01-01":"2001-07-19"], unit="m3/s")
    assert p["baseflow_index"] == pytest.approx(m["baseflow_index"], rel=1e-12) and p["n"] == 200
    lh = ft.lyne_hollick_baseflow(*FLAT, start="1990-01-01", end="1999-12-31")
    assert 0 < lh["baseflow_index"] < 1 and lh["n"] == 3652


def test_mean_annual_flow_and_runoff_depth_by_hand(flat_brook):
    p = ft.mean_annual_flow(*FLAT, area_km2=165.8)
    years = [y for y in range(1945, 2025)]
    means = [flat_brook[str(y)].mean() for y in years]
    assert p["n_years"] == 80 and p["mean_annual_flow"] == pytest.approx(np.mean(means), rel=1e-12)
    assert p["mean_annual_runoff_mm"] == pytest.approx(np.mean(means) * 86.4 / 165.8 * 365.25, rel=1e-12)


def test_runoff_ratio_at_the_leaf_river_by_hand():
    """Runoff and precipitation are both depths (mm/d): the ratio is their sums over the common days."""
    holmes = get_source("holmes")
    q, rain = holmes.fetch_series("02472000", "discharge"), holmes.fetch_series("02472000", "precipitation")
    p = ft.runoff_ratio(*LEAF)
    assert p["runoff_ratio"] == pytest.approx(q.sum() / rain.sum(), rel=1e-12)
    assert p["runoff_ratio"] == pytest.approx(0.355, abs=5e-4)
    assert p["n_days"] == 11322 and p["precipitation_station"] == {"source": "catalogue", "station_id": "02472000"}


def test_signature_tools_match_their_methods(flat_brook):
    p = ft.richards_baker_flashiness(*FLAT)
    q = flat_brook.to_numpy()
    assert p["flashiness_index"] == pytest.approx(np.abs(np.diff(q)).sum() / q[1:].sum(), rel=1e-12)
    for tool, method in ((ft.flow_seasonality, signatures.flow_seasonality),
                         (ft.high_low_flow_events, signatures.high_low_flow_events)):
        assert strip(tool(*FLAT)) == strip(method(flat_brook, unit="m3/s"))
    season = ft.flow_seasonality(*FLAT)
    assert season["month_of_min"] in (8, 9) and season["month_of_max"] in (3, 4)


def test_unknown_station_and_variable_are_refused_with_the_name():
    with pytest.raises(DataNotFoundError):
        ft.flow_duration_curve("usgs", "99999999")
    with pytest.raises((DataNotFoundError, InputError)):
        ft.flow_duration_curve("usgs", "01440000", variable="groundwater_level")


def test_registry_rows_serve_the_drought_problem():
    for mid in ("flow_duration_curve", "low_flow_frequency"):
        assert "drought_status" in METHODS[mid].problems
