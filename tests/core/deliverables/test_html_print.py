"""The HTML report as it prints. Looked at in a browser's print and LibreOffice's: a table too wide for the
portrait page printed in 6-point text across the portrait width (the Word report gives it a landscape page), a
period of dates broken after a hyphen, table text at the body's size and line height in an office suite's import
(it reads no style sheet rule for a cell), numbers left-aligned there."""

from __future__ import annotations

import re

from aquascope_core.deliverables.html import render_html, table_html

WIDE = {"caption": "Sensitivity of the return levels to the skew",
        "columns": ["Skew", "Regional skew", "Its MSE", "Weighted skew", *[f"{t}-year (ft3/s)" for t in
                                                                         (2, 5, 10, 25, 50, 100, 200, 500, 1000)]],
        "rows": [[f"skew {k}", "0.048", "0.16", "0.0261", *["5,170"] * 9] for k in range(4)]}  # too many to turn
NARROW = {"caption": "The record", "columns": ["Period", "Values", "Unit"],
          "rows": [["1945-01-01 to 2025-05-05", "29,345", "m3/s"]]}


def test_a_wide_table_prints_on_a_landscape_page():
    page = render_html({"title": "t", "sections": [{"id": "results", "title": "Results", "tables": [NARROW, WIDE]}]},
                       {})
    assert re.search(r"@page wide\s*\{\s*size: A4 landscape", page)
    assert re.search(r"div\.wide\s*\{\s*page: wide", page)
    assert page.count('<div class="wide"') == 1
    wide = page[page.index('<div class="wide"'):]
    assert "Sensitivity" in wide and "The record" not in wide
    # larger text there than the portrait width allows, in print only (the screen and an office suite's import keep
    # the portrait size, which fits their width)
    small = float(re.search(r'<th[^>]*font-size: ([\d.]+)pt', wide).group(1))
    big = float(re.search(r"@media print \{ #wide-2 caption, #wide-2 th, #wide-2 td \{ font-size: ([\d.]+)pt "
                          r"!important", page).group(1))
    assert big > small


def test_cells_carry_their_size_alignment_and_unbroken_dates():
    out = table_html(NARROW, 4)
    assert re.search(r'<td[^>]*font-size: 9pt; line-height: 1.25[^>]*>', out)
    assert re.search(r'<td class="num" align="right"[^>]*>29,345</td>', out)
    assert ('<span style="white-space: nowrap">1945-01-01</span> to '
            '<span style="white-space: nowrap">2025-05-05</span>') in out
    assert "<div" not in out  # a narrow table stays on the portrait page


def test_a_table_caption_stays_with_its_table():
    """A browser's print left 'Table 2. Stations within reach' alone at the foot of a page, its table on the next."""
    page = render_html({"title": "t", "sections": [{"id": "s", "title": "S", "tables": [NARROW]}]}, {})
    rule = re.search(r"@media print \{(.*?)\n\}", page, re.S).group(1)
    assert re.search(r"[^{}]*\bcaption\b[^{}]*\{\s*break-after: avoid", rule), rule


def test_a_run_in_heading_is_kept_with_what_follows():
    """'**Limitations of the method.**' printed alone at the foot of a browser's page; the Word report keeps it with
    its next paragraph too."""
    import io

    import docx

    from aquascope_core.deliverables.report_docx import render_docx

    report = {"title": "t", "sections": [{"id": "limitations", "title": "Limitations",
                                          "text": "**Limitations of the method.**\n\n- one\n\nSome **bold** words."}]}
    page = render_html(report, {})
    assert '<p class="lead"><strong>Limitations of the method.</strong></p>' in page
    assert '<p class="lead">' not in page.split("Limitations of the method.")[1]
    rule = re.search(r"@media print \{(.*?)\n\}", page, re.S).group(1)
    assert re.search(r"p\.lead[^{}]*\{\s*break-after: avoid", rule), rule
    doc = docx.Document(io.BytesIO(render_docx(report, {})))
    pars = {p.text: p for p in doc.paragraphs}
    assert pars["Limitations of the method."].paragraph_format.keep_with_next is True
    assert not pars["Some bold words."].paragraph_format.keep_with_next


def test_a_short_wide_table_is_turned_as_the_word_report_turns_it():
    """Looked at (LibreOffice's print of the Bulletin 17C report): the skews table, one row across ten columns,
    printed in 6-point text, and a browser gave it a landscape page of its own, the rest of it empty. Turned, each
    column a row, it prints on the portrait page at the body's table size."""
    one = {**WIDE, "rows": WIDE["rows"][:1]}
    out = table_html(one, 3)
    assert "<div" not in out and "<th" in out
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", out)
    assert heads == ["Quantity", "skew 0"]
    assert "2-year (ft3/s)" in out and float(re.search(r"font-size: ([\d.]+)pt", out).group(1)) >= 8.0
    values = {**one, "rows": [["0.00675", *one["rows"][0][1:]]]}  # a first cell that is a value, not a name
    assert re.findall(r"<th[^>]*>([^<]*)</th>", table_html(values, 3)) == ["Quantity", "Value"]


def test_on_screen_a_wide_table_scrolls_at_a_readable_size():
    page = render_html({"title": "t", "sections": [{"id": "results", "title": "Results", "tables": [WIDE]}]}, {})
    screen = re.search(r"@media screen \{(.*?)\n\}", page, re.S).group(1)
    assert re.search(r"div\.wide \{ overflow-x: auto; \}", screen)
    assert re.search(r"div\.wide th, div\.wide td \{ font-size: 9pt !important", screen)
