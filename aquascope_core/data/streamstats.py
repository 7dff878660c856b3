"""A StreamStats basin-characteristics report (CSV, as the StreamStats application exports it) read as an upload.

The export is not one table but a few blocks of comma-separated lines: a header naming the state ("Region ID"),
the workspace and the clicked point, then a "Basin Characteristics" block (Parameter Code, Parameter Description,
Value, Unit) and, when a scenario was run, one "<statistic group> Parameters [<region name>]" block per region
(Parameter Code, Parameter Name, Value, Units, Min Limit, Max Limit) and its flow report. What is read: the
state, the regions the report names, and every characteristic's code, value and unit, under the NSS variable
codes the regression equations use (StreamStats and NSS share them). Nothing else is taken from it.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from aquascope_core.errors import InputError

__all__ = ["sniff", "read_report", "characteristics_text", "parse_characteristics"]

_CODE = re.compile(r"^[A-Z][A-Z0-9_]{1,15}$")


def _text(raw: bytes | str) -> str:
    if isinstance(raw, bytes):
        for enc in ("utf-8-sig", "cp1252"):
            try:
                return raw.decode(enc)
            except UnicodeDecodeError:
                continue
        return raw.decode("utf-8", "replace")
    return raw


def sniff(raw: bytes | str | None) -> bool:
    """Whether the file is a StreamStats report with a basin-characteristics block."""
    if raw is None:
        return False
    head = _text(raw[:20000] if isinstance(raw, (bytes, str)) else raw).lower()
    return "streamstats" in head and "basin characteristics" in head and "parameter code" in head


def read_report(raw: bytes | str) -> dict[str, Any]:
    """``{"state", "regions", "characteristics": {CODE: {"value", "unit", "description"}}, "point"}``."""
    text = _text(raw)
    state, point, regions = None, None, []
    chars: dict[str, dict[str, Any]] = {}
    block = None
    for row in csv.reader(io.StringIO(text)):
        cells = [c.strip() for c in row]
        if not any(cells):
            block = None
            continue
        first = cells[0]
        low = first.lower()
        if low.startswith("region id"):
            state = (cells[1] if len(cells) > 1 and cells[1] else first.split(":", 1)[-1]).strip().upper() or None
            continue
        joined = ",".join(cells).lower()
        if "latitude" in joined and "longitude" in joined:
            nums = re.findall(r"-?\d+\.\d+", ",".join(cells))
            point = {"lat": float(nums[0]), "lon": float(nums[1])} if len(nums) >= 2 else None
            continue
        if low == "basin characteristics" or re.search(r"parameters\s*\[", low):
            block = "chars"
            m = re.search(r"\[(.+?)\]", first)
            if m and m.group(1) not in regions:
                regions.append(m.group(1).strip())
            continue
        if re.search(r"flow report\s*\[", low) or low.startswith("statistic"):
            block = None
            continue
        if low == "parameter code":
            continue
        if block == "chars" and _CODE.match(first) and len(cells) >= 3:
            if "parameters" in low:
                continue
            value_cell, unit_cell, desc = (cells[2], cells[3] if len(cells) > 3 else "", cells[1])
            try:
                value = float(value_cell.replace(",", ""))
            except ValueError:
                raise InputError(f"the StreamStats report gives {first} = {value_cell!r}, not a number.",
                                 argument="content", value=value_cell,
                                 recovery="Export the report again from StreamStats, or correct the value.") from None
            chars.setdefault(first, {"value": value, "unit": unit_cell, "description": desc})
    if not chars:
        raise InputError("the StreamStats report holds no basin characteristic (no 'Parameter Code' rows).",
                         argument="content", recovery="Export the report with its Basin Characteristics block.")
    return {"state": state, "regions": regions, "characteristics": chars, "point": point}


def characteristics_text(chars: dict[str, Any]) -> str:
    """The characteristics in the one-line form a brief carries: ``CODE=value; CODE=value``."""
    return "; ".join(f"{k}={(v['value'] if isinstance(v, dict) else v):g}" for k, v in chars.items())


def parse_characteristics(given: Any) -> dict[str, float]:
    """``{CODE: value}`` from a mapping or from text such as ``DRNAREA=64.0; STORAGE 2.9, CSL10_85: 21``."""
    if given is None:
        return {}
    if isinstance(given, dict):
        return {str(k).strip().upper(): (v["value"] if isinstance(v, dict) else v) for k, v in given.items()}
    out: dict[str, float] = {}
    for code, num in re.findall(r"\b([A-Za-z][A-Za-z0-9_]{1,15})\s*[=:]?\s*(-?\d+(?:\.\d+)?)", str(given)):
        out.setdefault(code.upper(), float(num))
    if not out:
        raise InputError.bad_value("characteristics", given, "basin characteristics as CODE=value pairs, e.g. "
                                   "\"DRNAREA=64.0; STORAGE=2.9\"")
    return out
