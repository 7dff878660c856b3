"""PeakFQ's files: WATSTORE and RDB annual peak files, .psf specifications, and their upload."""

from __future__ import annotations

import pytest

from aquascope_core.data import UploadSource, ingest
from aquascope_core.data import peakfq_files as pf
from aquascope_core.errors import InputError
from aquascope_core.methods import bulletin17c as b17

WATSTORE = "usgs_03606500_big_sandy_peaks_watstore.txt"
PSF = "usgs_03606500_big_sandy.psf"
RDB = "usgs_03335500_wabash_lafayette_peaks.rdb"


def test_formats_are_recognised(reference_dir):
    assert pf.sniff((reference_dir / WATSTORE).read_bytes()) == "watstore"
    assert pf.sniff((reference_dir / PSF).read_bytes(), PSF) == "psf"
    assert pf.sniff((reference_dir / RDB).read_bytes()) == "rdb"
    assert pf.sniff(b"date,flow\n2020-01-01,3\n") is None


def test_watstore_cards(reference_dir):
    st, = pf.read_peaks((reference_dir / WATSTORE).read_text())
    assert st["site_no"] == "03606500" and st["name"] == "BIG SANDY RIVER AT BRUCETON, TN" and st["agency"] == "USGS"
    assert st["lat"] == pytest.approx(36.036944, abs=1e-5) and st["lon"] == pytest.approx(-88.229167, abs=1e-5)
    assert len(st["peaks"]) == 47
    hist = {p["water_year"]: p["value"] for p in st["peaks"] if "7" in p["codes"]}
    assert hist == {1897: 25000.0, 1919: 21000.0, 1927: 18500.0}


def test_rdb_file_of_nwis(reference_dir):
    """The NWIS annual peak file of USGS 03335500: water years from dates (October onwards is the next year)."""
    st, = pf.read_peaks((reference_dir / RDB).read_bytes())
    assert st["site_no"] == "03335500" and st["name"] == "WABASH RIVER AT LAFAYETTE, IN"
    assert len(st["peaks"]) == 116
    by_year = {p["water_year"]: p for p in st["peaks"]}
    assert by_year[1913]["value"] == 190000.0 and by_year[1913]["codes"] == "2"
    assert by_year[1928]["date"] == "1927-12-02"  # December: water year 1928
    assert by_year[1968]["codes"] == "5"
    inputs = pf.ema_inputs(st)
    kw = inputs["fit_kwargs"]
    assert kw["skew_option"] == "station" and len(kw["peaks"]) == 116 and not inputs["excluded"]
    assert sum(f["code"] == "5" for f in inputs["flags"]) == 52
    fit = b17.fit_lp3_ema(**kw)
    assert fit["ok"] and fit["record_years"] == 116 and fit["gaps"] == [1903, 1905, 1906]


def test_psf_options_and_code_rules(reference_dir):
    spec = pf.read_psf((reference_dir / PSF).read_text())
    s = spec["stations"]["03606500"]
    assert s["genskew"] == -0.5 and s["skewse"] == 0.55 and s["weightopt"] == "HWN" and s["skewopt"] == "WEIGHTED"
    assert [(t["start"], t["end"], t["lower"]) for t in s["thresholds"]] == [(1890, 1929, 18000.0), (1930, 1973, 0.0)]
    st, = pf.read_peaks((reference_dir / WATSTORE).read_text())
    # codes: 3 (dam failure) and 6 (regulation) leave a peak out, 6 comes back with URB/REG YES
    st["peaks"][10]["codes"] = "3"
    st["peaks"][11]["codes"] = "6"
    got = pf.ema_inputs(st, spec)
    assert [e["why"][:6] for e in got["excluded"]] == ["code 3", "code 6"]
    spec["stations"]["03606500"]["urb_reg"] = True
    assert len(pf.ema_inputs(st, spec)["excluded"]) == 1
    bad = pf.read_psf("STATION 03606500\n  SKEWOPT WEIGHTED\n  GENSKEW -0.5\n")
    with pytest.raises(InputError, match="SKEWSE"):
        pf.ema_inputs(st, bad)
    with pytest.raises(InputError, match="before any STATION"):
        pf.read_psf("GENSKEW -0.5\n")
    with pytest.raises(InputError, match="PCPT_THRESH"):
        pf.read_psf("STATION 1\n PCPT_THRESH 1890 1929\n")


def test_default_thresholds_follow_peakfq(reference_dir):
    """Without PCPT_THRESH: the historical period (HISTPERIOD years ending with the record) at the smallest
    historic peak, the systematic years at the gauge base."""
    st, = pf.read_peaks((reference_dir / WATSTORE).read_text())
    spec = pf.read_psf("STATION 03606500\n HISTPERIOD 84\n SKEWOPT WEIGHTED\n GENSKEW -0.5\n SKEWSE 0.55\n")
    kw = pf.ema_inputs(st, spec)["fit_kwargs"]
    assert kw["perception_thresholds"] == [{"start": 1890, "end": 1929, "lower": 18500.0, "upper": None},
                                           {"start": 1930, "end": 1973, "lower": 0.0, "upper": None}]


def test_uploads_combine_the_peak_file_and_its_psf(reference_dir):
    """Ingested separately, the .psf's options reach the peak record it names; the fit is PeakFQ's."""
    peaks = ingest(WATSTORE, reference_dir / WATSTORE)
    spec = ingest(PSF, reference_dir / PSF)
    assert peaks["format"] == "watstore" and peaks["variables"][0]["variable"] == "peak_discharge"
    assert spec["format"] == "psf" and spec["variables"] == []
    src = UploadSource([peaks])
    plain = src.fetch_series(WATSTORE, "peak_discharge")
    assert plain.attrs["regional_skew"] is None and plain.attrs["historical_years"] == [1897, 1919, 1927]
    src.add(spec)
    assert [r["name"] for r in src.find_stations("big")] == ["BIG SANDY RIVER AT BRUCETON, TN"]
    s = src.fetch_series(WATSTORE, "peak_discharge")
    assert s.attrs["regional_skew"] == -0.5 and s.attrs["regional_skew_sd"] == 0.55
    assert s.attrs["perception_thresholds"][0] == {"start": 1890, "end": 1929, "lower": 18000.0, "upper": None}
    assert s.index.year.tolist()[:2] == [1897, 1919] and len(s) == 47
