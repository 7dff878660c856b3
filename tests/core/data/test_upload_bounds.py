"""Uploads within bounds, cheaply: the row limit counts data rows (not the header); an XLSX over the bounds is
refused from its declared extent or its counted rows and cells before the reader parses a row; a large upload is
held once, by reference, so the workspace (every checkpoint) keeps its digest, not its bytes."""

from __future__ import annotations

import datetime as dt
import io
import json
import re
import time
import zipfile

import pytest

from aquascope_core import limits
from aquascope_core.data import upload_store
from aquascope_core.data.ingest import ingest, original_bytes
from aquascope_core.limits import LimitError


def _daily_csv(n: int) -> bytes:
    import pandas as pd

    days = pd.date_range("1800-01-01", periods=n, freq="D")
    return ("date,Q (m3/s)\n" + "".join(f"{d:%Y-%m-%d},{1 + i % 17}\n" for i, d in enumerate(days))).encode()


def test_exactly_max_rows_of_data_and_a_header_are_read(monkeypatch):
    monkeypatch.setattr(limits, "MAX_ROWS", 2000)
    ds = ingest("q.csv", _daily_csv(2000))
    assert ds["variables"][0]["n_values"] == 2000
    with pytest.raises(LimitError, match=r"data rows of the file \(after its header\) is 2,001"):
        ingest("q.csv", _daily_csv(2001))


def _xlsx(rows: int, cols: int = 2) -> bytes:
    import openpyxl

    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("flows")
    ws.append(["date", "Q (m3/s)"] + [f"c{i}" for i in range(cols - 2)])
    for i in range(rows):
        ws.append([(dt.date(1950, 1, 1) + dt.timedelta(days=i)).isoformat(), float(i)] + [1.0] * (cols - 2))
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _rewrite_sheet(raw: bytes, fn) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.namelist():
            data = src.read(item)
            dst.writestr(item, fn(data) if item.startswith("xl/worksheets/sheet") else data)
    return out.getvalue()


def test_an_xlsx_declaring_more_than_the_bounds_is_refused_before_a_row_is_read(monkeypatch):
    def claim(data: bytes) -> bytes:
        data = re.sub(rb"<dimension ref=\"[^\"]*\"/>", b"", data)
        return data.replace(b"<sheetData>", b"<dimension ref=\"A1:F1000001\"/><sheetData>", 1)

    raw = _rewrite_sheet(_xlsx(5), claim)
    import openpyxl.worksheet._read_only as ro

    read = []
    monkeypatch.setattr(ro.ReadOnlyWorksheet, "_cells_by_row", lambda *a, **k: read.append(1) or iter(()))
    t0 = time.monotonic()
    with pytest.raises(LimitError, match=r"declared extent A1:F1000001.*MAX_CELLS"):
        ingest("claims.xlsx", raw)
    assert time.monotonic() - t0 < 2 and read == []  # refused before the reader parsed a row


def test_an_xlsx_with_too_many_rows_is_refused_from_its_counted_rows(monkeypatch):
    monkeypatch.setattr(limits, "MAX_ROWS", 3000)
    raw = _rewrite_sheet(_xlsx(3500), lambda d: re.sub(rb"<dimension ref=\"[^\"]*\"/>", b"", d))  # no extent claimed
    with pytest.raises(LimitError, match="rows counted so far"):
        ingest("long.xlsx", raw)
    assert ingest("ok.xlsx", _xlsx(3000))["variables"][0]["n_values"] == 3000  # header + 3,000 rows fit


def test_an_xlsx_with_too_many_cells_is_refused_from_its_counted_cells(monkeypatch):
    monkeypatch.setattr(limits, "MAX_CELLS", 4000)
    with pytest.raises(LimitError, match="MAX_CELLS"):
        ingest("wide.xlsx", _rewrite_sheet(_xlsx(1000, cols=6), lambda d: re.sub(rb"<dimension ref=\"[^\"]*\"/>", b"", d)))


@pytest.fixture()
def _small_inline(monkeypatch):
    monkeypatch.setattr(upload_store, "INLINE_MAX_BYTES", 100_000)  # the mechanism, without a megabyte file


def test_a_large_upload_is_held_once_by_reference(_isolated_home, _small_inline):
    from aquascope_core.tools.context import DataContext, table_entry

    raw = _daily_csv(20_000)  # 270 kB, over the (lowered) INLINE_MAX_BYTES
    assert len(raw) > upload_store.INLINE_MAX_BYTES
    entry = table_entry("q.csv", raw)
    assert entry["original"]["encoding"] == "ref" and "data" not in entry["original"]
    assert len(json.dumps(entry)) < 5_000  # the workspace keeps the digest, not the bytes
    stored = list((_isolated_home / "uploads").rglob("*"))
    assert [p.read_bytes() for p in stored if p.is_file()] == [raw]
    assert original_bytes(entry) == raw
    table_entry("again.csv", raw)  # the same bytes again: still one stored file
    assert len([p for p in (_isolated_home / "uploads").rglob("*") if p.is_file()]) == 1
    ctx = DataContext.from_tables({"q.csv": entry}, {"lat": 41.1, "lon": -74.96})
    assert ctx.extra["upload"]  # the run reads it back from the store
    small = table_entry("small.csv", _daily_csv(100))
    assert small["original"]["encoding"] == "utf-8" and small["original"]["data"]  # small ones stay inline


def test_a_missing_stored_upload_is_a_clear_error(_isolated_home, _small_inline):
    from aquascope_core.errors import DataNotFoundError
    from aquascope_core.tools.context import table_entry

    entry = table_entry("q.csv", _daily_csv(20_000))
    for p in (_isolated_home / "uploads").rglob("*"):
        if p.is_file():
            p.unlink()
    with pytest.raises(DataNotFoundError, match="held by reference .* which is missing") as err:
        original_bytes(entry)
    assert "AQUASCOPE_HOME" in err.value.recovery
