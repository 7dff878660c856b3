"""The Bulletin 17C inputs as a reviewer reads them: the perception threshold in force each year is the last one
given that holds it (PeakFQ applies PCPT_Thresh in order), as for Powder River at Moorhead MT (USGS 06324500) in
the WY/MT 2022 study's specification: 1878-2022 at 0, then 1878-1928 at 100,000 and 1973-1974 at 33,000 ft3/s."""

from __future__ import annotations

from aquascope_core.deliverables.flood_inputs import frequency_inputs, input_summary, record_sentence


def _payload() -> dict:
    years = [y for y in range(1929, 1936) if y not in (1932, 1933)]
    return {"systematic": {"years": years, "values": [5000.0, 7000.0, 4000.0, 9000.0, 6000.0]},
            "historical": {"peaks": [{"year": 1923, "value": 100000.0}],
                           "perception_thresholds": [{"start": 1920, "end": 1935, "lower": 0.0, "upper": None},
                                                     {"start": 1920, "end": 1928, "lower": 100000.0, "upper": None},
                                                     {"start": 1932, "end": 1933, "lower": 33000.0, "upper": None}]}}


def test_the_later_threshold_is_the_one_in_force():
    rows = {r[0]: r for r in frequency_inputs(_payload())}
    assert rows[1921][3] == 100000.0 and rows[1921][5:] == [0.0, 100000.0, "censored (below the perception threshold)"]
    assert rows[1923][3] == 100000.0 and rows[1923][7] == "historical"
    assert rows[1932][3] == 33000.0 and rows[1932][6] == 33000.0
    assert rows[1930][3] == 0.0 and rows[1930][7] == "systematic"
    table = input_summary(_payload(), "ft3/s")
    assert table[0][:4] == ["1920-1928", "historical period: 1 historical peak above the threshold, 8 years censored "
                            "below it", "100,000 ft3/s", 1]
    assert table[2][:3] == ["1932-1933", "historical period: 0 historical peaks above the threshold, 2 years censored "
                            "below it", "33,000 ft3/s"]
    assert table[1][2] == "none (every peak recorded)"
    assert record_sentence(_payload()) == "5 systematic peaks 1929-1935 and 1 historical peak, 1920-1935 (16 years)"


def test_the_record_step_says_a_historical_peak_apart_from_the_systematic_years():
    """The embedded record of USGS 06324500: systematic peaks 1929-2022 (1973-1974 missing) and the 1923 flood."""
    from aquascope_core.tools.flood import annual_maximum_series

    got = annual_maximum_series("catalogue", "06324500", "peak_discharge")
    assert got["historical_years"] == [1923] and got["n_years"] == 93
    assert got["summary"].startswith("92 systematic annual peaks of Powder River at Moorhead MT, 1929-2022, and "
                                     "1 historical peak (1923), in ft3/s")


def test_the_bulletin17c_summary_names_the_peaks_qualification_codes():
    """USGS 06324500 in the study's WATSTORE file: peaks coded 1 (maximum daily average), 2 (estimate) and 5
    (regulation or diversion to an unknown degree), counted from the file's own codes."""
    from collections import Counter

    from aquascope_core.data import wymt_2022
    from aquascope_core.tools.flood import bulletin17c_ema

    got = bulletin17c_ema("catalogue", "06324500", return_periods=[100])
    n = Counter(f["code"] for f in got["peakfq"]["flags"])
    assert set(n) == {"1", "2", "5"}
    cards = [ln for ln in wymt_2022._text("peaks").splitlines() if ln[:1] == "3" and ln[1:16].strip() == "06324500.00"]
    assert cards and n["5"] == sum(1 for ln in cards if "5" in ln[31:43])  # the 3 cards' codes, columns 32-43
    assert (f"qualification codes, used as the peak file codes them: {n['1']} peaks maximum daily average (code 1), "
            f"{n['2']} peaks estimate (code 2), {n['5']} peaks regulation or diversion, unknown degree (code 5)") \
        in got["summary"]
