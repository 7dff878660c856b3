"""The XLSX refusals at the sizes that used to take minutes (an 18 MB workbook of 1,000,000 x 6 cells was refused
after reading every row, 155 s and 483 MB; a 1.5-million-row one after 109 s), with the real bounds: refused from
the sheet's declared extent, or, when it declares none, from its rows or cells counted in the XML, in seconds and
before openpyxl parses a row (not even to size the sheet, as its read-only mode does when no extent is declared).
The workbooks are written directly as XML (openpyxl takes minutes to write them)."""

from __future__ import annotations

import datetime
import io
import time
import zipfile

import pytest

from aquascope_core import limits
from aquascope_core.data.ingest import ingest
from aquascope_core.limits import LimitError

STATED_S = 10.0  # measured 0.07-1.4 s at load 5 (the workbook's writing not counted); before the XML was counted
# ahead of openpyxl, whose read-only sheet parses every row to size a sheet declaring no extent, 29 s and 64 s


def _template() -> bytes:
    import openpyxl

    wb = openpyxl.Workbook(write_only=True)
    wb.create_sheet("flows").append(["date", "Q"])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def big_xlsx(rows: int, cols: int, *, declare: bool) -> bytes:
    """A workbook whose first sheet holds a header and ``rows`` rows: a daily ISO date and ``cols - 1`` numbers."""
    out = io.BytesIO()
    last = "ABCDEFGHIJ"[cols - 1]
    with zipfile.ZipFile(io.BytesIO(_template())) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED,
                                                                          compresslevel=1) as dst:
        for item in src.namelist():
            if not item.startswith("xl/worksheets/sheet"):
                dst.writestr(item, src.read(item))
                continue
            with dst.open(item, "w") as f:
                f.write(b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns='
                        b'"http://schemas.openxmlformats.org/spreadsheetml/2006/main">')
                if declare:
                    f.write(f'<dimension ref="A1:{last}{rows + 1}"/>'.encode())
                names = [b"date", b"Q (m3/s)"] + [b"c%d" % i for i in range(2, cols)]
                f.write(b"<sheetData><row>" + b"".join(b'<c t="inlineStr"><is><t>%s</t></is></c>' % n
                                                       for n in names) + b"</row>")
                day = datetime.date(1800, 1, 1)
                step = 50_000
                for start in range(0, rows, step):
                    f.write(b"".join(b'<row><c t="inlineStr"><is><t>%s</t></is></c>%s</row>'
                                     % ((day + datetime.timedelta(days=r)).isoformat().encode(),
                                        b"".join(b"<c><v>%d</v></c>" % ((r * (7 + i)) % 997) for i in range(cols - 1)))
                                     for r in range(start, min(rows, start + step))))
                f.write(b"</sheetData></worksheet>")
    return out.getvalue()


def _refused_in_time(raw: bytes, words: str, monkeypatch) -> float:
    import openpyxl

    opened = []
    real = openpyxl.load_workbook
    monkeypatch.setattr(openpyxl, "load_workbook", lambda *a, **k: opened.append(1) or real(*a, **k))
    t0 = time.monotonic()
    with pytest.raises(LimitError, match=words):
        ingest("big.xlsx", raw)
    took = time.monotonic() - t0
    assert opened == [], "openpyxl opened the workbook (and sized its sheets) before the refusal"
    assert took < STATED_S, f"refused after {took:.1f} s"
    return took


@pytest.mark.slow
def test_a_million_rows_of_six_cells_declared_is_refused_from_the_extent(monkeypatch):
    raw = big_xlsx(1_000_000, 6, declare=True)
    assert 1_000_000 * 6 > limits.MAX_CELLS
    _refused_in_time(raw, r"declared extent A1:F1000001.*MAX_CELLS", monkeypatch)


@pytest.mark.slow
def test_a_million_rows_of_six_cells_declaring_nothing_is_refused_from_its_counted_cells(monkeypatch):
    _refused_in_time(big_xlsx(1_000_000, 6, declare=False), r"cells .*counted so far.*MAX_CELLS", monkeypatch)


@pytest.mark.slow
def test_one_and_a_half_million_rows_declaring_nothing_are_refused_from_their_counted_rows(monkeypatch):
    _refused_in_time(big_xlsx(1_500_000, 2, declare=False), r"rows counted so far.*MAX_ROWS", monkeypatch)


@pytest.mark.parametrize("declare", [True, False])
def test_the_written_workbook_is_one_the_reader_takes(declare):
    ds = ingest("small.xlsx", big_xlsx(400, 2, declare=declare))
    assert ds["variables"][0]["n_values"] == 400


def _with_shared_strings(raw: bytes, size: int) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.namelist():
            dst.writestr(item, src.read(item))
        body = b"<si><t>a</t></si>" * (size // 17)
        dst.writestr("xl/sharedStrings.xml", b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
                     + body + b"</sst>")
    return out.getvalue()


def test_a_workbook_that_unpacks_to_more_than_the_bounds_is_refused_before_it_is_opened(monkeypatch):
    """A zip of a few kilobytes can unpack to gigabytes (deflate packs a repeated part 1,000 to 1); the sizes its
    directory declares are where Python's reader stops, so they bound what is unpacked. The bounds lowered here
    so the test needs no gigabyte."""
    import openpyxl

    monkeypatch.setattr(limits, "MAX_UNPACKED_WHOLE_BYTES", 1_000_000)
    monkeypatch.setattr(limits, "MAX_UNPACKED_BYTES", 2_000_000)
    opened = []
    real = openpyxl.load_workbook
    monkeypatch.setattr(openpyxl, "load_workbook", lambda *a, **k: opened.append(1) or real(*a, **k))
    bomb = _with_shared_strings(big_xlsx(10, 2, declare=True), 1_500_000)
    assert len(bomb) < 50_000
    with pytest.raises(LimitError, match=r"other parts \(shared strings, styles\) unpacked size.*MAX_UNPACKED_WHOLE"):
        ingest("bomb.xlsx", bomb)
    with pytest.raises(LimitError, match=r"sheets unpacked size.*MAX_UNPACKED_BYTES"):
        ingest("long.xlsx", big_xlsx(60_000, 2, declare=False))
    assert opened == []
    assert ingest("fits.xlsx", _with_shared_strings(big_xlsx(10, 2, declare=True), 500_000))["variables"]
