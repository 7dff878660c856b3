"""flood_risk, every branch and decline: sites x expected branch, each planned and run keyless on the embedded
data (or the user's table), with the numbers checked against the methods and the published figures; the new
flood tools on their own; and the whole crew on the Bulletin 17C and regional branches."""

from __future__ import annotations

import pytest

from aquascope_core.data import get_source
from aquascope_core.methods import flood_frequency as ffa
from aquascope_core.tools.flood import annual_maximum_series, bulletin17c_ema
from tests.playbooks.harness import plan_and_run
from tests.answers import past_request

FLAT_BROOK = (41.10, -74.96)
BIG_SANDY = (36.037016, -88.229112)       # USGS 03606500, position from the catalogue
FOX_BERLIN = (43.96875, -88.950306)       # USGS 04073500
OCMULGEE_MACON = (32.838611, -83.620556)  # USGS 02213000
SCHUYLKILL = (39.967791, -75.188501)      # USGS 01474500, 4,902.8 km2; no flows held offline
LEAF_OUTLET = (31.706944, -89.406944)
NEAR_TRENTON = (40.25, -74.80)            # 4 km from the Delaware at Trenton (17,560 km2)
ATLANTIC = (30.0, -40.0)


def _flat_brook_15_years() -> str:
    """Fifteen water years (1991-2005) of Flat Brook's daily record, as a user's table."""
    q = get_source("usgs").fetch_series("01440000", "discharge", start="1990-10-01", end="2005-09-30")
    return "date,discharge (m3/s)\n" + "\n".join(f"{d.date()},{v}" for d, v in q.items())


SHORT = {"flat_brook_1991_2005.csv": _flat_brook_15_years()}

ROWS = [
    pytest.param(*FLAT_BROOK, {"return_period": 100}, None, "at_site", id="flat_brook-at_site"),
    pytest.param(*LEAF_OUTLET, {"return_period": 50}, None, "at_site", id="leaf_river_mm_per_day-at_site"),
    pytest.param(*BIG_SANDY, {"return_period": 100}, None, "bulletin17c", id="big_sandy-bulletin17c"),
    # U.S. gauges: their published annual maxima go to Bulletin 17C, historical floods or not
    pytest.param(*FOX_BERLIN, {"return_period": 50}, None, "bulletin17c_published", id="fox_berlin-published"),
    pytest.param(*OCMULGEE_MACON, {"return_period": 100}, None, "bulletin17c_published", id="ocmulgee_macon-published"),
    pytest.param(*FLAT_BROOK, {"return_period": 25}, SHORT, "short_record", id="upload_15_years-short_record"),
    pytest.param(*SCHUYLKILL, {"return_period": 100, "area_km2": 4902.8}, None, "regional", id="schuylkill-regional"),
    pytest.param(*FOX_BERLIN, {"return_period": 100}, None, "declined", id="fox_100_year-beyond_cap"),
    pytest.param(*FLAT_BROOK, {"return_period": 100}, SHORT, "declined", id="upload_15_years_100_year-beyond_cap"),
    pytest.param(*ATLANTIC, {"return_period": 100}, None, "declined", id="atlantic-no_record"),
    pytest.param(*ATLANTIC, {"return_period": 100, "area_km2": 500}, None, "declined", id="atlantic_with_area-no_donors"),
    pytest.param(*NEAR_TRENTON, {"return_period": 100, "area_km2": 100}, None, "declined", id="near_trenton-gauge_too_big"),
]

DECLINES = {
    "fox_100_year-beyond_cap": "lies beyond 3 times the 33-year record at the nearest gauge (99 years)",
    "upload_15_years_100_year-beyond_cap": "lies beyond 3 times the 15-year record at the nearest gauge (45 years)",
    "atlantic-no_record": "with the catchment area at the site, gauged donor catchments within 250 km could be",
    "atlantic_with_area-no_donors": "only 0 gauged catchment(s) with a usable daily record lie within 250 km",
    "near_trenton-gauge_too_big": "drains 17560.1 km2, 175.6 times the site's 100 km2: it does not stand",
}


@pytest.mark.parametrize("lat,lon,intake,tables,expected", ROWS)
def test_sites_take_their_branch_and_run(request, lat, lon, intake, tables, expected):
    out = plan_and_run("flood_risk", lat, lon, intake=intake, tables=tables)
    row = request.node.callspec.id
    if expected == "declined":
        assert out.study is None and DECLINES[row] in " ".join(out.declined.split())
        return
    assert out.declined is None and out.branch == expected
    run = out.run
    assert run.ok, {k: r.failed_reason for k, r in run.results.items()}
    T = intake["return_period"]
    CHECKS[expected](out, T)


def _at_T(payload, fit, T):
    i = payload["return_periods"].index(T)
    f = payload["fits"][fit]
    return f["return_levels"][i], f["ci"]["lower"][i], f["ci"]["upper"][i]


def _at_site(out, T):
    s3 = out.run.results["s3"].payload
    unit = s3["unit"]
    if unit == "mm/d":  # the Leaf River: a runoff depth, and the caveat says how to turn it into m3/s
        assert any("86.4" in c for c in out.study.plan["caveats"])
        q, lo, hi = _at_T(s3, "gev_lmoments", T)
        assert 50 < q < 120 and lo < q < hi
    else:
        q, lo, hi = _at_T(s3, "gev_lmoments", T)
        assert unit == "m3/s" and 120 < q < 160 and lo < q < hi


def _bulletin17c(out, T):
    """Big Sandy River, the Bulletin 17C worked example of the PeakfqSA manual. The default skew is Tennessee's
    current published one (the USGS table: 0.048, MSE 0.16); the manual's -0.5 is a sensitivity row, where PeakFQ
    8.1.0 gives 22,959 ft3/s for the 1 % AEP flood (flowfreq 0.16.0 validation data)."""
    from aquascope_core.methods.bulletin17c import fit_lp3_ema

    s2 = out.run.results["s2"].payload
    assert s2["unit"] == "ft3/s" and s2["n_systematic"] == 44 and s2["record_years"] == 84
    assert [p["year"] for p in s2["historical"]["peaks"]] == [1897, 1919, 1927]
    used = s2["regional_skew_used"]
    assert used["skew"] == pytest.approx(0.048) and used["mse"] == pytest.approx(0.16) and used["origin"] == "usgs_table"
    assert "Tennessee" in used["citation"] and "10.3133/sir20255110" in used["citation"]
    q, lo, hi = _at_T(s2, "lp3_ema", T)
    series = get_source("published").fetch_series("03606500", "peak_discharge")
    hist = set(series.attrs["historical_years"])
    direct = fit_lp3_ema([v for d, v in series.items() if d.year not in hist],
                         years=[d.year for d in series.index if d.year not in hist],
                         historical_peaks={d.year: v for d, v in series.items() if d.year in hist},
                         perception_thresholds=series.attrs["perception_thresholds"], regional_skew=0.048,
                         regional_skew_mse=0.16)
    assert q == pytest.approx(ffa.return_levels(direct, [T])[0], rel=1e-12) and lo < q < hi
    rows = {r["label"]: r for r in s2["skew_sensitivity"]}
    manual = rows["the example's regional skew (not a current published value)"]
    assert manual["skew"] == -0.5 and manual["mse"] == pytest.approx(0.3025)
    assert manual["return_levels"][s2["return_periods"].index(T)] == pytest.approx(22959.39, rel=1e-4)
    assert rows["at-site skew alone"]["skew"] is None
    assert out.run.results["s3"].payload["n"] == 44  # the trend test sees the systematic peaks only
    assert any("regional skew" in c for c in out.study.plan["caveats"])


def _published(out, T):
    s1, s2 = out.run.results["s1"].payload, out.run.results["s2"].payload
    assert s1["unit"] == s2["unit"] == "kcfs" and s1["unit_meaning"] == "1000 ft3/s"
    series = get_source("published").fetch_series(s1["station"]["station_id"], "annual_max_discharge")
    assert s1["values"] == pytest.approx(series.to_list()) and s1["n_years"] == len(series)
    direct = ffa.return_levels(ffa.fit_gev_lmoments(series.to_numpy()), [T])[0]
    q, lo, hi = _at_T(s2, "gev_lmoments", T)
    assert q == pytest.approx(direct, rel=1e-12) and lo < q < hi
    assert any("kcfs" in c for c in out.study.plan["caveats"])


def _published_b17c(out, T):
    s1, s2 = out.run.results["s1"].payload, out.run.results["s2"].payload
    assert s1["unit"] == s2["unit"] == "kcfs" and s1["unit_meaning"] == "1000 ft3/s"
    sid = s1["station"]["station_id"]
    series = get_source("published").fetch_series(sid, "annual_max_discharge")
    assert s1["values"] == pytest.approx(series.to_list()) and s2["n_systematic"] == len(series)
    assert "lp3_ema" in s2["fits"] and not s2["historical"]["peaks"]  # no historical floods: still Bulletin 17C
    direct = bulletin17c_ema(s1["station"]["source"], sid, "annual_max_discharge", return_periods=[T],
                             skew_from="usgs_table")
    q, lo, hi = _at_T(s2, "lp3_ema", T)
    assert q == pytest.approx(direct["fits"]["lp3_ema"]["return_levels"][0], rel=1e-12) and lo < q < hi
    assert "low_outliers" in s2["fits"]["lp3_ema"]  # the multiple Grubbs-Beck test ran
    assert not any("no historical" in a["why_not"] for a in out.study.plan["alternatives"])


def _short(out, T):
    s2, s3 = out.run.results["s2"].payload, out.run.results["s3"].payload
    assert s2["n_years"] == 15 and set(s3["fits"]) == {"gev_lmoments", "gumbel_lmoments"}
    q, lo, hi = _at_T(s3, "gev_lmoments", T)
    g, glo, ghi = _at_T(s3, "gumbel_lmoments", T)
    direct = ffa.return_levels(ffa.fit_gumbel_lmoments(s2["values"]), [T])[0]
    assert g == pytest.approx(direct, rel=1e-12)
    assert 50 < q < 100 and lo < q < hi and abs(q - g) / ((q + g) / 2) <= 0.25
    assert any("marginal" in n for n in out.study.plan["notes"])  # GEV by L-moments below 20 years
    assert any("Only 15 years of record" in c for c in out.study.plan["caveats"])


def _regional(out, T):
    s2 = out.run.results["s2"].payload
    assert s2["n_donors"] == 3 and s2["min_donor_years"] == 79
    assert s2["return_level"] == pytest.approx(s2["index_flood"]["estimate"] * s2["growth_factor"]["estimate"])
    assert s2["envelope"]["low"] < s2["return_level"] < s2["envelope"]["high"]
    assert 2000 < s2["return_level"] < 3500 and 2.5 < s2["growth_factor"]["estimate"] < 3.5
    gates = {g["check"]: g for g in out.run.results["s2"].gates}
    assert gates["min_donors"]["seen"] == 3 and gates["max_return_period_factor"]["threshold"] == pytest.approx(237)


CHECKS = {"at_site": _at_site, "bulletin17c": _bulletin17c, "published_maxima": _published, "short_record": _short,
          "bulletin17c_published": _published_b17c,
          "regional": _regional}


# --- the flood tools on their own ------------------------------------------------------------------------------

def test_bulletin17c_tool_reads_the_historical_information_from_the_record(reference_dir):
    """The tool's EMA fit equals fit_lp3_ema called with the case file's peaks, thresholds and skew."""
    import json

    from aquascope_core.methods.bulletin17c import fit_lp3_ema

    case = json.loads((reference_dir / "usgs_03606500_big_sandy_b17c_case.json").read_text())
    direct = fit_lp3_ema(list(case["systematic_peaks"].values()), years=[int(y) for y in case["systematic_peaks"]],
                         historical_peaks={int(y): v for y, v in case["historical_peaks"].items()},
                         perception_thresholds=case["thresholds"], regional_skew=-0.5, regional_skew_mse=0.55 ** 2)
    got = bulletin17c_ema("published", "03606500", return_periods=[2, 10, 100], regional_skew=-0.5,
                          regional_skew_mse=0.55 ** 2)
    fit = got["fits"]["lp3_ema"]
    assert fit["parameters"] == pytest.approx(direct["parameters"], rel=1e-12)
    assert fit["at_site_skew"] == pytest.approx(direct["at_site_skew"], rel=1e-12)
    assert got["record_max"] == {"value": 25000.0, "year": 1897, "return_period": {"lp3_ema": pytest.approx(149.7, rel=0.01)}}
    station = bulletin17c_ema("published", "03606500", return_periods=[100], skew_from="station")
    assert station["regional_skew_used"]["skew"] is None and station["fits"]["lp3_ema"]["skew_option"] == "station"
    assert any("at-site skew alone" in w for w in station["warnings"])
    given = bulletin17c_ema("published", "03606500", return_periods=[100], regional_skew=0.1, regional_skew_mse=0.132)
    assert given["regional_skew_used"]["source"] == "given by the analyst"
    with pytest.raises(Exception, match="regional_skew_mse"):
        bulletin17c_ema("published", "03606500", regional_skew=0.1)


def test_annual_maximum_series_reads_as_published_and_refuses_a_daily_record():
    got = annual_maximum_series("published", "02213000")
    assert got["n_years"] == 40 and got["years"][0] == 1910 and got["unit"] == "kcfs"
    assert got["largest"]["value"] == max(got["values"])
    from aquascope_core.errors import InputError

    with pytest.raises(InputError, match="annual_maxima"):
        annual_maximum_series("usgs", "01440000", variable="discharge")


# --- the whole crew ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("site,text,number", [
    # Tennessee's published skew (0.048): 24,607 ft3/s, three figures; the record ends in 1973, so not for design
    (BIG_SANDY, "Design flow for a road crossing, 100-year", "24,600 ft3/s (697 m3/s)"),
    (SCHUYLKILL, "Design flood for a bridge on an ungauged river of 4,902.8 km2, 100-year", "ft3/s (2,740 m3/s)"),
])
def test_the_crew_reports_the_new_branches(tmp_path, site, text, number):
    from graphs.studio import Studio

    with Studio(*site, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}", artifact_root=tmp_path / "art") as s:
        r = past_request(s, s.say(text))
        assert r.kind == "plan"
        r = s.approve()
        ws = s.to_dict()
    assert r.kind == "report" and r.payload["critique_ok"] and ws["report"]["critique_ok"]
    answer = ws["report"]["answer"]
    assert number in answer and (
        answer.startswith("Not for design: the record ends in 1973. The 100-year peak flow at BIG SANDY") or
        answer.startswith("Not for design: the decision needs the instantaneous peak and the estimate is a maximum "
                          "daily-mean flow. The 100-year maximum daily-mean flow at the site (1,890 mi2 (4,900 km2))"))
    dec = ws["findings"]["decision"]
    step, _, path = dec["basis"].partition(".")
    from aquascope_core.paths import get_path

    assert get_path(ws["run"]["results"][step]["payload"], path) == dec["value"]
