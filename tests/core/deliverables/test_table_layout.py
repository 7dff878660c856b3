"""Column widths from the content (table_layout): what a reader must see on one line gets the room for it when the
page has it. Looked at in LibreOffice's print of the README's studies: a gate's name broken as
'max_return_period_f' / 'actor' and a period broken after a hyphen ('1940-10-01 to 1968-09-' / '30')."""

from __future__ import annotations

from aquascope_core.deliverables import table_layout as tl

WIDTH = 6_120_000  # the Word report's portrait text width (17 cm) in EMU


def _room(chars: int) -> int:
    return chars * tl._CHAR + tl._PADDING


def test_a_gate_name_and_a_period_of_dates_fit_their_columns():
    cols = ["Step", "Gate", "Result", "Seen", "Threshold", "Detail"]
    rows = [["s3", "max_return_period_factor", "passed", "100", "237",
             "return period 100 years against 3 x 79 years of record = 237 " * 2]]
    widths = tl.column_widths(cols, rows, WIDTH)
    assert widths[1] >= _room(len("max_return_period_factor")), widths
    assert sum(widths) <= WIDTH
    cols = ["Station", "Id", "Distance (km)", "Data held", "Period", "Years"]
    rows = [["Bush Kill at Shoemakers, PA", "usgs 01439500", "6.64", "metadata only", "1908-10-01 to 2025-09-30", "116"]]
    widths = tl.column_widths(cols, rows, WIDTH)
    assert widths[4] >= _room(len("1908-10-01 to 2025-09-30")), widths


def test_no_smaller_text_for_them():
    """The room is taken from the other columns, never by setting the table smaller."""
    cols = ["Station", "Id", "Distance (km)", "Data held", "Period", "Years"]
    rows = [["Flat Brook near Flatbrookville NJ", "usgs 01440000", "0.926", "daily_discharge_and_peaks",
             "1945-01-01 to 2025-05-05", "80.3"]] * 5
    assert tl.table_font(cols, WIDTH, rows=rows) == 8.5


def test_a_narrow_page_falls_back_to_the_header_words():
    """When the long cells cannot all fit, the cells' words up to 12 characters, or else every header word, do."""
    cols = ["Gate", "Seen", "Detail"]
    rows = [["max_return_period_factor", "1940-10-01 to 1968-09-30", "x" * 40]]
    width = 2_000_000
    widths = tl.column_widths(cols, rows, width)
    assert sum(widths) <= width
    assert all(w >= len(c) * tl._BOLD_CHAR + tl._PADDING for w, c in zip(widths, cols)), widths
    wider = tl.column_widths(cols, rows, 4_000_000)  # room for 12-character words, not for the whole identifier
    assert all(w >= _room(12) for w in wider) and wider[0] < _room(24), wider


DONORS = (["Station", "Id", "Distance (km)", "Area (km2)", "Area / site's", "Regulation", "Record", "Mean flow (m3/s)",
           "Q95 (m3/s)", "BFI", "Unit conversion"],
          [["Flat Brook near Flatbrookville NJ", "01440000", "32.8", "166", "0.0141", "reference",
            "1945-01-01 to 2025-05-05", "3.29", "0.368", "0.584", "none (recorded in m3/s)"]])


def _docx(cols, rows):
    import io

    import docx

    from aquascope_core.deliverables.report_docx import render_docx

    return docx.Document(io.BytesIO(render_docx({"title": "t", "sections": [{"id": "s", "title": "S", "tables": [
        {"caption": "Donor candidates", "columns": cols, "rows": rows}]}]}, {})))


def test_a_table_whose_cells_do_not_fit_goes_landscape():
    """The donor table's header words fit the portrait page at 6 points, its cells' words did not: LibreOffice
    printed the site number as '0144' / '0000'. Its cells count in whether it fits; with more rows than a turned
    table takes, in Word it gets a landscape page."""
    from docx.enum.section import WD_ORIENT

    cols, (row,) = DONORS
    rows = [[f"{row[0]} {k}", *row[1:]] for k in range(4)]  # four donors: too many to print turned
    assert tl.fits(cols, WIDTH) and not tl.fits(cols, WIDTH, rows=rows)
    assert tl.fits(cols, 9_600_000, rows=rows)  # a landscape page holds them
    doc = _docx(cols, rows)
    assert [s.orientation for s in doc.sections] == [WD_ORIENT.PORTRAIT, WD_ORIENT.LANDSCAPE]


def test_a_one_row_table_too_wide_is_printed_turned_on_the_portrait_page():
    """One donor across eleven columns: printed with rows and columns exchanged (a row per quantity) on the page it
    belongs to, not alone on a landscape page."""
    from docx.enum.section import WD_ORIENT

    cols, rows = DONORS
    assert not tl.fits(cols, WIDTH, rows=rows)
    doc = _docx(cols, rows)
    assert [s.orientation for s in doc.sections] == [WD_ORIENT.PORTRAIT]
    (table,) = doc.tables
    assert [c.text for c in table.rows[0].cells] == ["Quantity", rows[0][0]]
    assert [r.cells[0].text for r in table.rows[1:]] == cols[1:]
    assert [r.cells[1].text for r in table.rows[1:]] == rows[0][1:]
