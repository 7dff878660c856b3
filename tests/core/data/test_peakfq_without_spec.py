"""A USGS peak file uploaded without its PeakFQ .psf (peakfq_files.without_spec): the specification of the published
study that analysed the gauge (the Wyoming-Montana 2022 study), else the perception thresholds of the gauge's
embedded record when they cover the file's years (the PeakfqSA manual's Big Sandy, 1890-1929 above 18,000 ft3/s),
else PeakFQ's defaults; each said in ``attrs["peakfq"]["spec_from"]``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from aquascope_core.data import peakfq_files, store, wymt_2022

REF = Path(__file__).resolve().parents[2] / "reference"


def _upload(raw: bytes):
    (st,) = peakfq_files.read_peaks(raw)
    return st, peakfq_files.peak_series(st, None, name="upload", provenance={})


def test_a_gauge_of_the_study_takes_the_study_specification():
    cards = [ln for ln in wymt_2022._text("peaks").splitlines() if ln[1:16].strip() == "06324500.00"]
    st, s = _upload(("\n".join(cards) + "\n").encode())
    out = peakfq_files.without_spec(st, s, name="upload")
    embedded = wymt_2022._record("06324500.00")
    assert out.attrs["perception_thresholds"] == embedded.attrs["perception_thresholds"]
    assert out.attrs["perception_thresholds"] != s.attrs["perception_thresholds"]  # PeakFQ's defaults differ
    assert out.attrs["peakfq"]["spec_analysis"] == "06324500.00"
    assert "the PeakFQ specification of the USGS Wyoming-Montana 2022" in out.attrs["peakfq"]["spec_from"]


def test_a_gauge_with_an_embedded_record_takes_its_thresholds():
    st, s = _upload((REF / "usgs_03606500_big_sandy_peaks_watstore.txt").read_bytes())
    out = peakfq_files.without_spec(st, s, name="upload")
    assert out.attrs["perception_thresholds"] == store.big_sandy_case()["thresholds"]
    assert ("the perception thresholds of the embedded record of this gauge are adopted (historical period "
            "1890-1973; floods known 1890-1929 above 18,000 ft3/s)") in out.attrs["peakfq"]["spec_from"]


def test_thresholds_that_miss_the_file_years_are_not_adopted_and_the_difference_is_said():
    st, s = _upload((REF / "usgs_03606500_big_sandy_peaks_watstore.txt").read_bytes())
    longer = pd.concat([s, pd.Series([9000.0], index=pd.DatetimeIndex(["1990-01-01"]))])
    longer.attrs = dict(s.attrs)
    out = peakfq_files.without_spec(st, longer, name="upload")
    assert out.attrs["perception_thresholds"] == s.attrs["perception_thresholds"]
    said = out.attrs["peakfq"]["spec_from"]
    assert said.startswith("no PeakFQ specification came with the peak file: PeakFQ's defaults")
    assert "the embedded record of this gauge takes a historical period 1890-1973" in said


def test_any_other_gauge_runs_under_peakfq_defaults():
    raw = (REF / "usgs_03606500_big_sandy_peaks_watstore.txt").read_text().replace("03606500", "03606999")
    st, s = _upload(raw.encode())
    out = peakfq_files.without_spec(st, s, name="upload")
    assert out.attrs["perception_thresholds"] == s.attrs["perception_thresholds"]
    assert out.attrs["peakfq"]["spec_from"].endswith("beyond what the file's codes say)")
