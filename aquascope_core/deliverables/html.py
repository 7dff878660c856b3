"""The report as one self-contained HTML file: figures inline, print-friendly.

Sections in the order the report dict lists them (the Author's contract order); each figure is
embedded as a data URI (PNG, or SVG when no PNG is at hand) so the file travels alone; the CSS
is written for the screen and for a browser's print-to-PDF (A4 margins, no figure or table row
split across pages, table headers repeated, a caption or a run-in heading kept with what follows, a table too
wide for the portrait page on a landscape page of its own). Every piece of text goes through ``html.escape``:
what a user typed never becomes markup.
"""

from __future__ import annotations

import base64
import html
import re
from typing import Any, Callable, Mapping, Sequence

from aquascope_core.deliverables.blocks import blocks, is_lead

__all__ = ["render_html", "figure_label", "table_label"]

_PORTRAIT_WIDTH = 6_120_000  # EMU: the table width the print sets by (17 cm: the page's 18 cm of text less a margin)
_LANDSCAPE_WIDTH = 9_600_000  # EMU: the text width of a landscape A4 page (297 mm less 2 x 16 mm margins, 26.5 cm)

CSS = """
:root { --ink: #1a1a1a; --rule: #b8b8b8; --soft: #f3f3f3; --accent: #0b5394; }
html, body, h1, h2, h3, h4, p, li, td, th, caption, .caption {
  font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: var(--ink); }
html { font-size: 10.5pt; }
body { line-height: 1.42; }
@media screen {
  body { max-width: 180mm; margin: 12mm auto; padding: 0 4mm; }
  /* a table too wide for the column scrolls sideways at a readable size rather than shrinking its text */
  div.wide { overflow-x: auto; }
  div.wide table { width: auto; min-width: 100%; }
  div.wide th, div.wide td { font-size: 9pt !important; min-width: 14mm; }
}
h1 { font-size: 20pt; margin: 0 0 2mm; color: var(--accent); }
.subtitle { font-size: 11pt; color: #444; margin: 0 0 6mm; }
h2 { font-size: 14pt; border-bottom: 1px solid var(--rule); padding-bottom: 1mm; margin: 8mm 0 3mm; color: var(--accent); }
h3 { font-size: 12pt; margin: 6mm 0 2mm; }
h4 { font-size: 11pt; margin: 4mm 0 2mm; }
p, li { margin: 0 0 2mm; }
code, pre { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 9pt; }
pre { background: var(--soft); padding: 2mm 3mm; white-space: pre-wrap; word-break: break-word; }
table { border-collapse: collapse; width: 100%; margin: 2mm 0 4mm; font-size: 9pt; }
caption { caption-side: top; text-align: left; font-weight: bold; padding: 0 0 1mm; }
th, td { border: 1px solid var(--rule); padding: 1mm 1.5mm; text-align: left; vertical-align: top; }
th { background: var(--soft); hyphens: manual; overflow-wrap: normal; word-break: normal; }
td.num { text-align: right; white-space: nowrap; }
div.figure { margin: 4mm 0 5mm; }
div.figure img { max-width: 100%; height: auto; display: block; margin: 0 auto; }
p.caption { font-size: 9pt; margin-top: 1mm; }
.notice { border-left: 3px solid #b45f06; padding-left: 3mm; }
footer { margin-top: 10mm; border-top: 1px solid var(--rule); padding-top: 2mm; font-size: 8.5pt; color: #555; }
@page { size: A4; margin: 16mm 15mm 18mm; }
@page wide { size: A4 landscape; margin: 15mm 16mm 15mm; }
@media print {
  div.wide { page: wide; }
  h2, h3, h4, caption, p.lead { break-after: avoid; page-break-after: avoid; }
  div.figure, tr, pre { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; break-after: avoid; page-break-after: avoid; }
  a { color: inherit; text-decoration: none; }
}
"""


def figure_label(ref: Mapping[str, Any]) -> str:
    """'Figure N. caption' (the caption as the maker gave it when it already says its number)."""
    cap = str(ref.get("caption") or "").strip()
    num = ref.get("number")
    if num is None or cap.lower().startswith("figure"):
        return cap
    return f"Figure {num}. {cap}"


def table_label(number: int | None, caption: str | None) -> str:
    cap = str(caption or "").strip()
    return f"Table {number}. {cap}" if number else cap


def _runs_html(runs: Sequence[tuple[str, frozenset]]) -> str:
    out = []
    for text, style in runs:
        t = html.escape(text)
        if "code" in style:
            t = f"<code>{t}</code>"
        if "bold" in style:
            t = f"<strong>{t}</strong>"
        if "italic" in style:
            t = f"<em>{t}</em>"
        out.append(t)
    return "".join(out)


def text_html(text: str | None) -> str:
    parts = []
    for kind, content in blocks(text):
        if kind == "p":
            inner = _runs_html(content)
            cls = ' class="notice"' if inner.startswith("<strong>Notice") else \
                (' class="lead"' if is_lead(content) else "")
            parts.append(f"<p{cls}>{inner}</p>")
        elif kind in ("ul", "ol"):
            items = "".join(f"<li>{_runs_html(item)}</li>" for item in content)
            parts.append(f"<{kind}>{items}</{kind}>")
        elif kind == "code":
            parts.append(f"<pre>{html.escape(content)}</pre>")
    return "\n".join(parts)


def _is_number(x: Any) -> bool:
    if isinstance(x, bool):
        return False
    if isinstance(x, (int, float)):
        return True
    s = str(x).replace(",", "").replace(" %", "").strip()
    try:
        float(s)
        return True
    except ValueError:
        return False


_DATE = re.compile(r"\b\d{4}-\d\d-\d\d\b")


def _unbroken(m: re.Match) -> str:
    """An ISO date kept on one line (a browser breaks a line after a hyphen: '2025-05-' / '05')."""
    return f'<span style="white-space: nowrap">{m.group(0)}</span>'


def table_html(table: Mapping[str, Any], number: int | None = None) -> str:
    from aquascope_core.deliverables.blocks import plain

    cap = table_label(number, table.get("caption"))
    from aquascope_core.deliverables.table_layout import column_widths, fits, table_font, turned

    # a short table too wide to read on the portrait page turned, as the Word report prints it
    table = turned(table, [plain(str(c)) for c in table.get("columns") or []], _PORTRAIT_WIDTH, len(table.get("rows") or []))
    cols = [plain(str(c)) for c in table.get("columns") or []]
    rows = list(table.get("rows") or [])
    # widths from the content and, for many columns, a smaller size, so no header word breaks (17 cm of text);
    # given as attributes and inline styles, which an office suite's HTML import reads where it ignores a class
    size = table_font(cols, _PORTRAIT_WIDTH, size=9.0)
    widths = column_widths(cols, rows, _PORTRAIT_WIDTH, size / 8.5)
    pct = [f"{100 * w / max(1, sum(widths)):.0f}%" for w in widths]
    # the size and a compact line inline on every cell: an office suite's HTML import reads neither from the sheet
    font = f' style="font-size: {size:g}pt; line-height: 1.25"'
    head = "".join(f'<th width="{p}"{font}>{html.escape(c)}</th>' for c, p in zip(cols, pct))
    body = []
    for row in rows:
        cells = []
        for x in row:
            text = "" if x is None else plain(str(x))
            cls = ' class="num" align="right"' if _is_number(x) else ""
            cells.append(f"<td{cls}{font}>{_DATE.sub(_unbroken, html.escape(text))}</td>")
        tall = f' style="height: {float(table["row_height_mm"]):g}mm"' if table.get("row_height_mm") else ""
        body.append(f"<tr{tall}>" + "".join(cells) + "</tr>")
    caption = f"<caption>{html.escape(cap)}</caption>" if cap else ""
    # the border attributes are for readers that ignore CSS (an office suite's HTML import); CSS wins elsewhere
    out = f'<table border="1" cellspacing="0" cellpadding="3"{font}>{caption}<thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
    if fits(cols, _PORTRAIT_WIDTH, rows=rows):
        return out
    # too wide for the portrait page even in small text: printed on a landscape page of its own (a named page, as the
    # Word report gives it a landscape section) at the size that fits there; a reader without named pages (an
    # office suite's HTML import) keeps it at the portrait width in the small text
    big = table_font(cols, _LANDSCAPE_WIDTH, size=9.0)
    key = f"wide-{number or id(table)}"
    style = (f"<style>@media print {{ #{key} caption, #{key} th, #{key} td {{ font-size: {big:g}pt !important; }} }}</style>"
             if big > size else "")
    return f'{style}<div class="wide" id="{key}">{out}</div>'


def figure_html(ref: Mapping[str, Any], images: Callable[[str], bytes | None]) -> str:
    png, svg = images(ref.get("name") or ""), images(ref.get("svg") or "") if ref.get("svg") else None
    if png is not None and str(ref.get("media_type", "image/png")) == "image/png":
        src = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    elif svg is not None:
        src = "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")
    elif png is not None:
        src = f"data:{ref.get('media_type')};base64," + base64.b64encode(png).decode("ascii")
    else:
        return f"<p><em>{html.escape(figure_label(ref))} (the image is not available)</em></p>"
    label = figure_label(ref)
    # plain div and p rather than figure/figcaption, and the width as an attribute, so an office
    # suite's HTML import lays it out as a browser does
    return (f'<div class="figure"><img src="{src}" width="100%" alt="{html.escape(label, quote=True)}">'
            f'<p class="caption">{html.escape(label)}</p></div>')


def render_html(report: Mapping[str, Any], images: Callable[[str], bytes | None] | Mapping[str, bytes]) -> str:
    """The report as one HTML document; ``images`` gives a figure's bytes by its file name."""
    get = images.get if isinstance(images, Mapping) else images
    counter = {"table": 0}

    def section(sec: Mapping[str, Any], level: int) -> str:
        out = [f'<section id="{html.escape(str(sec.get("id", "")), quote=True)}">',
               f"<h{level}>{html.escape(str(sec.get('title', '')))}</h{level}>", text_html(sec.get("text"))]
        for fig in sec.get("figures") or []:
            out.append(figure_html(fig, get))
        for note in sec.get("figure_notes") or []:
            out.append(f"<p><em>{html.escape(str(note))}</em></p>")
        for t in sec.get("tables") or []:
            counter["table"] += 1
            out.append(table_html(t, counter["table"]))
        for sub in sec.get("subsections") or []:
            out.append(section(sub, min(level + 1, 4)))
        out.append("</section>")
        return "\n".join(out)

    title = html.escape(str(report.get("title") or "Study report"))
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">', f"<title>{title}</title>",
             f"<style>{CSS}</style></head><body>", f"<header><h1>{title}</h1>"]
    if report.get("subtitle"):
        parts.append(f'<p class="subtitle">{html.escape(str(report["subtitle"]))}</p>')
    parts.append("</header><main>")
    parts += [section(s, 2) for s in report.get("sections") or []]
    parts.append("</main>")
    footer = (report.get("footer") or {}).get("text")
    if footer:
        parts.append(f"<footer>{html.escape(str(footer))}</footer>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
