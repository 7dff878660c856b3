"""The report as a Word document (python-docx, imported inside :func:`render_docx`).

Layout: a title page (title, site, the study id and date, the answer), then the sections in the
report dict's order under real ``Heading 1`` / ``Heading 2`` / ``Heading 3`` styles (so Word or
LibreOffice can generate a table of contents); the Summary opens with the answer and the
key-numbers table. Figures sit at the text width with a numbered caption; tables have a bold
header row that repeats on every page and rows never broken across pages (a table whose header words, or
cells' words, do not fit the portrait width even in small text on a landscape page of its own; one of a few rows
kept on one page), and a table longer than ``max_rows`` shows its first rows
and points to the workbook sheet holding all of them. The study file travels
in the bundle (study.yaml, named in the appendix), never pasted. The footer holds the study id and a PAGE field.
"""

from __future__ import annotations

import io
from typing import Any, Callable, Mapping, Sequence

from aquascope_core.deliverables.blocks import blocks, is_lead, plain
from aquascope_core.deliverables.html import _is_number, figure_label, table_label
from aquascope_core.deliverables.table_layout import column_widths, fits, table_font, turned

__all__ = ["render_docx", "MAX_ROWS"]

MAX_ROWS = 40
_SMALL = 8  # rows of a table that is never split across pages


def _styled(doc: Any, name: str, text: str = "") -> Any:
    """A paragraph of the named style. python-docx looks a style name up across every style (and the default
    style) on each assignment; the id is looked up once per document here and set directly."""
    ids = doc.__dict__.setdefault("_aquascope_style_ids", {})
    if name not in ids:
        ids[name] = doc.styles[name].style_id
    par = doc.add_paragraph(text)
    par._p.get_or_add_pPr().style = ids[name]
    return par


def _add_runs(par: Any, runs: Sequence[tuple[str, frozenset]]) -> None:
    for text, style in runs:
        r = par.add_run(text)
        r.bold = "bold" in style or None
        r.italic = "italic" in style or None
        if "code" in style:
            r.font.name = "DejaVu Sans Mono"


def _text(doc: Any, text: str | None) -> None:
    from docx.shared import Pt

    for kind, content in blocks(text):
        if kind == "p":
            par = doc.add_paragraph()
            _add_runs(par, content)
            if is_lead(content):  # a run-in heading ("Caveats.") never ends a page
                par.paragraph_format.keep_with_next = True
        elif kind in ("ul", "ol"):
            style = "List Bullet" if kind == "ul" else "List Number"
            for item in content:
                _add_runs(_styled(doc, style), item)
        elif kind == "code":
            par = doc.add_paragraph()
            run = par.add_run(content)
            run.font.name = "DejaVu Sans Mono"
            run.font.size = Pt(8)


def _field(run: Any, instr: str) -> None:
    """A Word field (PAGE, NUMPAGES) in ``run``: begin, instruction, separate, a placeholder, end."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    def fld(kind: str) -> Any:
        el = OxmlElement("w:fldChar")
        el.set(qn("w:fldCharType"), kind)
        return el

    instr_el = OxmlElement("w:instrText")
    instr_el.set(qn("xml:space"), "preserve")
    instr_el.text = f" {instr} "
    placeholder = OxmlElement("w:t")
    placeholder.text = "1"
    for el in (fld("begin"), instr_el, fld("separate"), placeholder, fld("end")):
        run._r.append(el)


def _repeat_header(row: Any) -> None:
    _row_flag(row, "w:tblHeader")


def _row_flag(row: Any, tag: str) -> None:
    """A row property that is on or off: ``w:tblHeader`` (repeated on every page), ``w:cantSplit`` (never broken
    across a page: LibreOffice printed a station's name half at a page's foot, half on the next)."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    tr_pr = row._tr.get_or_add_trPr()
    el = OxmlElement(tag)
    el.set(qn("w:val"), "true")
    tr_pr.append(el)


def _widths(t: Any, cols: Sequence[str], rows: Sequence[Sequence[Any]], width: int,
            grid_cells: Sequence[Sequence[Any]], scale: float = 1.0) -> None:
    """Column widths from the content (table_layout.column_widths): no header word broken."""
    from docx.oxml.ns import qn

    t.autofit = False
    grid = t._tbl.tblGrid.findall(qn("w:gridCol"))
    for j, emu in enumerate(column_widths(cols, rows, int(width), scale)):
        if j < len(grid):  # the grid is what LibreOffice lays out by; the cells' widths are Word's
            grid[j].set(qn("w:w"), str(emu // 635))
        for row_cells in grid_cells:  # (t.columns[j].cells walks the whole table for every column)
            if j < len(row_cells):
                row_cells[j].width = emu


def _table(doc: Any, table: Mapping[str, Any], number: int, pointer: str | None, max_rows: int, width: int) -> None:
    from docx.enum.text import WD_ALIGN_PARAGRAPH
    from docx.shared import Pt

    cols = [plain(str(c)) for c in table.get("columns") or []]
    rows = list(table.get("rows") or [])
    if not cols:
        return
    cap = _styled(doc, "Caption", table_label(number, plain(str(table.get("caption") or ""))))
    cap.paragraph_format.keep_with_next = True
    shown = rows[:max_rows]
    size = table_font(cols, int(width), rows=shown)
    t = doc.add_table(rows=1 + len(shown), cols=len(cols))
    t.style = "Table Grid"
    grid_cells = [r.cells for r in t.rows]
    for j, c in enumerate(cols):
        cell = grid_cells[0][j]
        cell.text = ""
        run = cell.paragraphs[0].add_run(c)
        run.bold = True
        run.font.size = Pt(size)
    _repeat_header(t.rows[0])
    for row in t.rows:
        _row_flag(row, "w:cantSplit")
    for i, row in enumerate(shown, 1):
        cells = grid_cells[i]
        for j in range(len(cols)):
            x = row[j] if j < len(row) else ""
            par = cells[j].paragraphs[0]
            run = par.add_run("" if x is None else plain(str(x)))
            run.font.size = Pt(size)
            if _is_number(x):
                par.alignment = WD_ALIGN_PARAGRAPH.RIGHT
    _widths(t, cols, shown, width, grid_cells, size / 8.5)
    if table.get("row_height_mm"):  # room to sign in (the sign-off block)
        from docx.shared import Mm

        for row in t.rows[1:]:
            row.height = Mm(float(table["row_height_mm"]))
    if len(shown) <= _SMALL:  # a small table on one page: each row kept with the next
        for cells in grid_cells[:-1]:
            for cell in cells:
                for par in cell.paragraphs:
                    par.paragraph_format.keep_with_next = True
    if len(rows) > max_rows:
        where = f" ({pointer})" if pointer else ""
        doc.add_paragraph(f"The first {max_rows} of {len(rows)} rows; all of them are in the workbook{where}.")
    else:
        doc.add_paragraph()


def _figure(doc: Any, ref: Mapping[str, Any], images: Callable[[str], bytes | None], width: Any) -> None:
    from docx.enum.text import WD_ALIGN_PARAGRAPH

    data = images(ref.get("name") or "")
    label = figure_label(ref)
    if data is None or str(ref.get("media_type", "image/png")) != "image/png":
        _styled(doc, "Caption", f"{label} (the image is not available)")
        return
    par = doc.add_paragraph()
    par.add_run().add_picture(io.BytesIO(data), width=width)
    par.alignment = WD_ALIGN_PARAGRAPH.CENTER
    par.paragraph_format.keep_with_next = True
    _styled(doc, "Caption", label)


def render_docx(report: Mapping[str, Any], images: Callable[[str], bytes | None] | Mapping[str, bytes], *,
                study_id: str = "", study_yaml: str | None = None, created: str = "",
                table_sheets: Mapping[int, str] | None = None, workbook_name: str = "workbook.xlsx",
                max_rows: int = MAX_ROWS) -> bytes:
    """The report as .docx bytes; ``images`` gives a figure's PNG by its file name.

    ``table_sheets`` maps a table's running number to the workbook sheet holding it in full (the
    pointer printed under a capped table).
    """
    import docx
    from docx.enum.text import WD_ALIGN_PARAGRAPH
    from docx.shared import Cm, Pt

    get = images.get if isinstance(images, Mapping) else images
    doc = docx.Document()
    sec = doc.sections[0]
    sec.page_height, sec.page_width = Cm(29.7), Cm(21.0)
    sec.left_margin = sec.right_margin = Cm(2.0)
    sec.top_margin, sec.bottom_margin = Cm(2.0), Cm(2.0)
    width = sec.page_width - sec.left_margin - sec.right_margin
    normal = doc.styles["Normal"]
    normal.font.name = "Liberation Sans"
    normal.font.size = Pt(10)

    # the title page
    title = str(report.get("title") or "Study report")
    doc.core_properties.title = title
    doc.core_properties.subject = plain(str(report.get("answer") or ""))[:250]
    doc.core_properties.author = "aquascope"
    for _ in range(6):
        doc.add_paragraph()
    _styled(doc, "Title", title)
    if report.get("subtitle"):
        _styled(doc, "Subtitle", str(report["subtitle"]))
    meta = doc.add_paragraph()
    meta.add_run(" · ".join(x for x in (f"Study {study_id}" if study_id else "", created[:10]) if x)).italic = True
    answer = report.get("answer")
    if answer:
        doc.add_paragraph()
        par = doc.add_paragraph()
        _add_runs(par, [(t, s | {"bold"}) if not s else (t, s) for t, s in
                        next((c for k, c in blocks(str(answer)) if k == "p"), [(str(answer), frozenset())])])

    footer = sec.footer.paragraphs[0]
    footer.alignment = WD_ALIGN_PARAGRAPH.CENTER
    footer.add_run(f"{title} · study {study_id} · page " if study_id else f"{title} · page ")
    _field(footer.add_run(), "PAGE")
    footer.add_run(" of ")
    _field(footer.add_run(), "NUMPAGES")
    for r in footer.runs:
        r.font.size = Pt(8)

    counter = {"table": 0, "sections": 0}
    portrait = (sec.page_width, sec.page_height)
    page = {"landscape": False}

    def orient(landscape: bool) -> bool:
        """A section break to a landscape page for a table too wide for the portrait text width, and back to
        portrait for what follows it (True when a break was made: a new page has begun)."""
        from docx.enum.section import WD_ORIENT, WD_SECTION

        if page["landscape"] == landscape:
            return False
        new = doc.add_section(WD_SECTION.NEW_PAGE)
        new.orientation = WD_ORIENT.LANDSCAPE if landscape else WD_ORIENT.PORTRAIT
        new.page_width, new.page_height = (portrait[1], portrait[0]) if landscape else portrait
        page["landscape"] = landscape
        return True

    def section(s: Mapping[str, Any], level: int) -> None:
        broke = orient(False)
        head = _styled(doc, f"Heading {level}", plain(str(s.get("title") or "")))
        # a new page by the heading's own property, never an empty paragraph that may fall on a page of its own
        # (nor after a section break, which has begun one): after the title page and before the appendix only. The
        # results follow the methodology on its page (a break before them left the methodology's last page a
        # quarter full when its gates table ended near the top)
        if level == 1 and not broke and (not counter["sections"] or s.get("id") == "appendix"):
            head.paragraph_format.page_break_before = True
        counter["sections"] += 1
        _text(doc, s.get("text"))
        if s.get("tables") and not s.get("figures") and doc.paragraphs:
            # the sentence that introduces a section's table stays on its page (the sign-off's text was printed at
            # one page's foot, its table on the next)
            doc.paragraphs[-1].paragraph_format.keep_with_next = True
        for fig in s.get("figures") or []:
            orient(False)
            _figure(doc, fig, get, width)
        for note in s.get("figure_notes") or []:
            doc.add_paragraph().add_run(str(note)).italic = True
        for t in s.get("tables") or []:
            counter["table"] += 1
            sheet = (table_sheets or {}).get(counter["table"])
            cols = [plain(str(c)) for c in t.get("columns") or []]
            t = turned(t, cols, int(width), max_rows)
            cols = [plain(str(c)) for c in t.get("columns") or []]
            orient(not fits(cols, int(width), rows=list(t.get("rows") or [])[:max_rows]))
            wide = doc.sections[-1]
            _table(doc, t, counter["table"], f"{workbook_name}, sheet {sheet}" if sheet else workbook_name, max_rows,
                   wide.page_width - wide.left_margin - wide.right_margin)
        for sub in s.get("subsections") or []:
            section(sub, min(level + 1, 3))

    for s in report.get("sections") or []:
        section(s, 1)
    foot = (report.get("footer") or {}).get("text")
    if foot:
        orient(False)
        p = doc.add_paragraph()
        p.add_run(str(foot)).italic = True
    buf = io.BytesIO()
    doc.save(buf)
    return buf.getvalue()

