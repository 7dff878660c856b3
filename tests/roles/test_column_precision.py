"""One precision per quantity in a report table (roles.report_parts.column_precision): fmt writes a float that is
exactly whole without its trailing zeros (93.0 -> "93"), so a column of quantiles at three significant figures read
"70.1, 93, 113" (Flat Brook's 25-year GEV quantile, 93.0 m3/s). The column now reads "93.0"; counts, return
periods and tables whose rows are different quantities (a Unit column, the key numbers, the gates) are left as
they are."""

from __future__ import annotations

from roles.report_parts import column_precision


def _run(table):
    column_precision([{"id": "results", "subsections": [{"tables": [table]}]}])
    return table["rows"]


def test_a_whole_value_in_a_column_of_three_figures_keeps_its_zeros():
    rows = _run({"columns": ["Return period (years)", "GEV (ft3/s)", "GEV band", "GEV (m3/s)"],
                 "rows": [["10", "2,470", "2,120 to 2,830", "70.1"], ["25", "3,280", "2,660 to 3,980", "93"],
                          ["50", "4,000", "3,060 to 5,180", "113"], ["100", "4,820", "3,440 to 6,660", "5"]]})
    assert [r[3] for r in rows] == ["70.1", "93.0", "113", "5.00"]
    assert [r[0] for r in rows] == ["10", "25", "50", "100"]  # return periods are not measured values
    assert rows[2][1] == "4,000"  # a thousand-scale value's zeros are already its figures


def test_tables_of_many_quantities_and_columns_of_counts_are_left_alone():
    key = {"caption": "Key numbers", "columns": ["Quantity", "Value", "Unit"],
           "rows": [["water years", "79", "years"], ["100-year flow", "4.82", "m3/s"]]}
    assert _run(key)[0][1] == "79"
    per_row_unit = {"columns": ["Parameter", "Median", "Unit"], "rows": [["pH", "7", ""], ["nitrate", "0.157", "mg/L"]]}
    assert _run(per_row_unit)[0][1] == "7"
    counts = {"columns": ["From", "Days", "Shortfall (hm3)"], "rows": [["1964", "93", "5.59"], ["1999", "96", "3.46"]]}
    assert [r[1] for r in _run(counts)] == ["93", "96"]
    mixed = {"columns": ["Statistic", "Estimate"], "rows": [["a", "12.25"], ["b", "3"]]}  # not three figures
    assert _run(mixed)[1][1] == "3"


def test_rows_keyed_by_a_label_are_a_quantity_each():
    """A statistics table (label | value) holds a count in one row and a mean in the next: 'Failure spells 23' is a
    count, not 23.0; a column whose header names its unit is one quantity whatever keys its rows."""
    stats = {"columns": ["Statistic", "Value"], "rows": [["Failure spells", "23"], ["Mean spell (days)", "6.78"]]}
    assert _run(stats)[0][1] == "23"
    stations = {"columns": ["Station", "Distance (km)"], "rows": [["Bushkill Creek", "17"], ["Yards Creek", "17.3"]]}
    assert _run(stations)[0][1] == "17.0"
