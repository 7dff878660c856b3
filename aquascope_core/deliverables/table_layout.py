"""Table column widths from their content, shared by the Word and HTML reports: no header word ever broken.

A column gets at least the width of its header's longest word (bold) and, when there is room, of its cells'
longest word; the rest of the text width is shared in proportion to the content. A table whose header words
cannot all fit at the normal size is set smaller (:func:`table_font`); one whose header words do not fit even at
the smallest size (:func:`fits`) goes on a landscape page in the Word report. Widths are in EMU (914,400 an inch).
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from aquascope_core.deliverables.blocks import plain

__all__ = ["table_font", "column_widths", "fits", "turned"]

# widths of the 8.5-point table text (Liberation Sans), in EMU: a character, a bold one, a cell's padding
_CHAR, _BOLD_CHAR, _PADDING = 64000, 76000, 200000
_CELL_WORD = 12  # a cell's word longer than this may break (a path, a long compound)
# what a reader must see on one line however long: a period of two ISO dates (a line may break after a hyphen, which
# splits "1968-09-30" as "1968-09-" and "30") and an identifier written with underscores (a gate's name, as the
# glossary lists it), each up to _KEEP characters
_KEEP = 28
_UNBROKEN = re.compile(r"\d{4}-\d\d(?:-\d\d)? to \d{4}-\d\d(?:-\d\d)?|\b\w*_\w+\b")


def _shares(weights: Sequence[float], floors: Sequence[float], width: int) -> list[int]:
    """Column widths summing to ``width``: in proportion to the content, but none below its floor (its longest word
    fits); a column held at its floor leaves the rest to the others. When the floors alone exceed the width, in
    proportion to the floors."""
    need = sum(floors)
    if need >= width:
        return [int(width * f / need) for f in floors]
    fixed: dict[int, float] = {}
    while True:
        free = [i for i in range(len(weights)) if i not in fixed]
        room = width - sum(fixed.values())
        total = sum(weights[i] for i in free) or 1.0
        share = {i: room * weights[i] / total for i in free}
        low = [i for i in free if share[i] < floors[i]]
        if not low:
            return [int(fixed.get(i, share.get(i, 0.0))) for i in range(len(weights))]
        for i in low:
            fixed[i] = floors[i]


def _header_need(cols: Sequence[str], size: float) -> float:
    """The width (EMU) the longest word of every header takes at ``size`` points (bold), with the cells' padding."""
    return sum(max((len(w) for w in str(c).split()), default=4) * _BOLD_CHAR * size / 8.5 + _PADDING for c in cols)


def fits(cols: Sequence[str], width: int, smallest: float = 6.0, rows: Sequence[Sequence[Any]] | None = None) -> bool:
    """Whether every header word of a table fits its column at ``smallest`` points within ``width`` and, with
    ``rows``, every cell's word too (up to :data:`_CELL_WORD` characters: a site number, a date): a table that does
    not is set on a landscape page rather than broken mid-word ('0144' / '0000' in a donor table)."""
    if _header_need(cols, smallest) > width:
        return False
    return rows is None or sum(_floors(cols, rows, smallest / 8.5, keep=False)[0]) <= width


def table_font(cols: Sequence[str], width: int, size: float = 8.5, smallest: float = 6.0,
               rows: Sequence[Sequence[Any]] | None = None) -> float:
    """The text size (points) at which the longest word of every header fits its column: 8.5, or smaller for a
    table of many columns (never below ``smallest``). With ``rows``, the size at which the cells' words fit their
    columns too (each up to :data:`_CELL_WORD` characters) when that is within ``smallest``."""
    if rows is not None:
        need = sum(f for f in _floors(cols, rows, 1.0, keep=False)[0])
        pad = _PADDING * len(cols)
        if need > width and need > pad:
            fit = round(8.5 * (width - pad) / (need - pad) - 0.1, 1)
            if fit >= smallest:
                return min(size, fit)
        elif need <= width:
            return size
    need = _header_need(cols, 8.5)
    if need <= width:
        return size
    return max(smallest, round(size * (width - _PADDING * len(cols)) / (need - _PADDING * len(cols)) - 0.1, 1))


def _floors(cols: Sequence[str], rows: Sequence[Sequence[Any]], scale: float, keep: bool = True
            ) -> tuple[list[float], list[float], list[float]]:
    """Each column's floor (its header's longest word, bold, and its cells' longest word up to :data:`_CELL_WORD`
    characters, or with ``keep`` a period of dates or an underscored identifier up to :data:`_KEEP`: room when there is
    some, never a reason for a smaller size), its hard floor (the header word alone) and its weight (its content's length)."""
    weights, floors, hard = [], [], []
    for j, c in enumerate(cols):
        cells = [plain(str(r[j])) for r in rows if j < len(r) and r[j] is not None]
        longest = max([len(x) for x in cells] or [0])
        word = max((len(w) for w in str(c).split()), default=4)
        cell_word = max([min(len(w), _CELL_WORD) for x in cells for w in x.split()] or [0])
        kept = max([len(m.group(0)) for x in cells for m in _UNBROKEN.finditer(x) if len(m.group(0)) <= _KEEP] or [0]) \
            if keep else 0
        hard.append(word * _BOLD_CHAR * scale + _PADDING)
        floors.append(max(word * _BOLD_CHAR, max(cell_word, kept) * _CHAR) * scale + _PADDING)
        weights.append(max(min(longest, 28), word, 4) + 4)
    return floors, hard, weights


def column_widths(cols: Sequence[str], rows: Sequence[Sequence[Any]], width: int, scale: float = 1.0) -> list[int]:
    """Each column's width (EMU) for text at ``scale`` times 8.5 points, summing to ``width``."""
    floors, hard, weights = _floors(cols, rows, scale)
    if sum(floors) >= width:  # no room for the periods and identifiers: the cells' words up to _CELL_WORD
        floors = _floors(cols, rows, scale, keep=False)[0]
    # the header's words must fit; the cells' words too when there is room for both
    return _shares(weights, floors if sum(floors) < width else hard, width)


_NUMBER = re.compile(r"[-\u2212]?[\d,]*\.?\d+(?:\s*%)?")
_TURN_ROWS = 3  # a table of at most this many rows too wide for the portrait page is printed turned
_READABLE = 8.0  # points: a short table that would print smaller than this is turned if that lets it print larger


def turned(table: Mapping[str, Any], cols: Sequence[str], width: int, max_rows: int) -> Mapping[str, Any]:
    """A short table too wide for ``width`` at a readable size (a row or three across ten or thirteen columns: the
    skews or the skew sensitivity of a Bulletin 17C study) with its rows and columns exchanged when that fits at the
    readable size, each of its columns a row. Set as it was, it printed in 6-point text, or on a landscape page of
    its own that left the page before it near empty. Any other table is returned as it is."""
    rows = [list(r) for r in table.get("rows") or []]
    if not rows or len(rows) > _TURN_ROWS or len(cols) < 2 or fits(cols, width, _READABLE, rows=rows[:max_rows]):
        return table
    names = [plain(str(r[0])) if r and r[0] not in (None, "") else "" for r in rows]
    if all(n and not _NUMBER.fullmatch(n) for n in names):
        # the first column named what each row was; turned, its cells head the columns
        turned_cols, first = ["Quantity", *names], 1
    elif len(rows) == 1:  # one row of values: each column a row, its value beside it
        turned_cols, first = ["Quantity", "Value"], 0
    else:
        return table
    turned_rows = [[cols[j], *(r[j] if j < len(r) else "" for r in rows)] for j in range(first, len(cols))]
    if not fits(turned_cols, width, _READABLE, rows=turned_rows):
        return table
    return {**table, "columns": turned_cols, "rows": turned_rows}
