"""The workbook's sheet of an upload: an upload held by reference (over INLINE_MAX_BYTES, kept by digest in the
upload store) gets its data sheet as an inline one does, read back from the store; a table longer than the
workbook's row cap is cut there and the README says so; stored bytes gone leave the sheet out, not the workbook."""

from __future__ import annotations

import datetime as dt
import io

import pytest

from aquascope_core.data import upload_store
from aquascope_core.deliverables import workbook
from aquascope_core.deliverables.workbook import render_workbook


@pytest.fixture()
def _small_inline(monkeypatch):
    monkeypatch.setattr(upload_store, "INLINE_MAX_BYTES", 40_000)  # the mechanism, without a megabyte file


def _csv(n: int) -> bytes:
    day = dt.date(1900, 1, 1)
    return ("date,Q (m3/s)\n" + "".join(f"{day + dt.timedelta(days=i)},{1 + i % 17}\n" for i in range(n))).encode()


def _xlsx(n: int) -> bytes:
    import openpyxl

    wb = openpyxl.Workbook(write_only=True)
    sh = wb.create_sheet("flows")
    sh.append(["date", "Q (m3/s)"])
    for i in range(n):
        sh.append([(dt.date(1950, 1, 1) + dt.timedelta(days=i)).isoformat(), float(i % 23)])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _sheets(entries: dict) -> dict:
    import openpyxl

    wb = openpyxl.load_workbook(io.BytesIO(render_workbook({"id": "st-uploads", "tables": entries}, {})))
    return {name: wb[name] for name in wb.sheetnames}


@pytest.mark.slow
def test_an_upload_held_by_reference_gets_its_data_sheet(_isolated_home, _small_inline):
    from aquascope_core.tools.context import table_entry

    csv, xlsx = _csv(4000), _xlsx(6000)
    entries = {"q.csv": table_entry("q.csv", csv), "flows.xlsx": table_entry("flows.xlsx", xlsx)}
    assert all(e["original"]["encoding"] == "ref" and "data" not in e["original"] for e in entries.values())
    sheets = _sheets(entries)
    q, flows = sheets["upload q.csv"], sheets["upload flows.xlsx"]
    assert [c.value for c in q[1]] == ["date", "Q (m3/s)"] and q.max_row == 4001
    assert q["A2"].value == "1900-01-01" and q["B2"].value == 1 and q[f"B{q.max_row}"].value == 1 + 3999 % 17
    assert flows.max_row == 6001 and flows["B3"].value == 1 and flows[f"B{flows.max_row}"].value == 5999 % 23
    readme = {r[0].value: r[1].value for r in sheets["README"].iter_rows() if r[0].value}
    assert readme["upload q.csv"].split("; ")[0] == "your table q.csv, as uploaded"


def test_a_long_upload_is_cut_at_the_row_cap_and_a_missing_one_left_out(_isolated_home, _small_inline, monkeypatch):
    from aquascope_core.tools.context import table_entry

    monkeypatch.setattr(workbook, "MAX_DATA_ROWS", 3000)
    entry = table_entry("q.csv", _csv(4000))
    sheets = _sheets({"q.csv": entry})
    assert sheets["upload q.csv"].max_row == 3001
    readme = {r[0].value: r[1].value for r in sheets["README"].iter_rows() if r[0].value}
    assert readme["upload q.csv"].split("; ")[0] == "your table q.csv, as uploaded (its first 3,000 rows)"
    for p in (_isolated_home / "uploads").rglob("*"):
        if p.is_file():
            p.unlink()
    assert "upload q.csv" not in _sheets({"q.csv": entry})  # the workbook is still written
