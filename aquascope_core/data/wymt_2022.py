"""The USGS Wyoming-Montana 2022 flood-frequency study as package data (source ``wymt_2022``).

24 analyses of 21 streamgages in the Missouri and Powder River basins of Montana and Wyoming, with annual peaks to
water year 2022 (WATSTORE cards), the study's PeakFQ specification (its regional skews, perception thresholds and
intervals) and PeakFQ 7.4's published output, as the USGS R package peakfqr 8.1.0 ships them in its test data
(provenance in ``README.md``). Analysis ids keep the study's suffix (``06324500.00``, ``06324500.01``: one gauge,
two periods or settings); the catalogue holds each gauge once, under its site number, with the study's first
analysis of it (the lowest suffix), read exactly as an upload of the same cards and specification would be
(:func:`aquascope_core.data.peakfq_files.peak_series`), so the embedded record and an upload give one answer.

:func:`published_skew` is the study's regional skew for a gauge (GenSkew and SkewSE of its ``.psf``): the
published skew at these gauges, which the Bulletin 17C tool uses by default for the embedded record and an
upload alike.
"""

from __future__ import annotations

import functools
import gzip
from typing import Any

import pandas as pd

from aquascope_core.data import store
from aquascope_core.data.peakfq_files import peak_series, read_peaks, read_psf
from aquascope_core.data.provenance import CITATIONS

__all__ = ["FILES", "analyses", "specification", "peakfq74", "record_analysis", "published_skew", "station_specs",
           "specification_for",
           "STUDY"]

FILES = {"peaks": "usgs_wymt_ffa_2022A_watstore.txt.gz", "psf": "usgs_wymt_ffa_2022A_psf.txt.gz",
         "info74": "usgs_wymt_ffa_2022A_peakfq74_expinfo.csv.gz",
         "data74": "usgs_wymt_ffa_2022A_peakfq74_expdata.csv.gz"}
STUDY = "USGS Wyoming-Montana 2022 flood-frequency study (wymt_ffa_2022A)"
_SQMI_KM2 = 2.589988


@functools.cache
def _text(key: str) -> str:
    return gzip.decompress(store.embedded_path(FILES[key]).read_bytes()).decode("latin-1")


@functools.cache
def analyses() -> dict[str, dict[str, Any]]:
    """The study's 24 analyses by id (``06324500.00``): the station dicts of :func:`read_peaks`, plus
    ``huc8`` and ``drainage_area_sqmi`` from the H cards."""
    out = {s["site_no"]: s for s in read_peaks(_text("peaks"))}
    for line in _text("peaks").splitlines():
        if line.startswith("H") and len(line) >= 56:
            sid = line[1:16].strip()
            huc, area = line[40:48].strip(), line[48:56].strip()
            if sid in out:
                out[sid]["huc8"] = huc if huc.isdigit() and len(huc) == 8 else None
                try:
                    out[sid]["drainage_area_sqmi"] = float(area) if area else None
                except ValueError:
                    out[sid]["drainage_area_sqmi"] = None
    return out


@functools.cache
def specification() -> dict[str, Any]:
    """The study's PeakFQ specification file, read by :func:`read_psf`."""
    return read_psf(_text("psf"))


@functools.cache
def peakfq74() -> dict[str, dict[str, Any]]:
    """PeakFQ 7.4's published output by analysis: ``{"info": {column: text}, "quantiles": {aep: {column: text}}}``
    (the values as printed, strings)."""
    import csv
    import io

    out: dict[str, dict[str, Any]] = {}
    for row in csv.DictReader(io.StringIO(_text("info74"))):
        out.setdefault(row["site_no"], {"quantiles": {}})["info"] = row
    for row in csv.DictReader(io.StringIO(_text("data74"))):
        out.setdefault(row["site_no"], {"quantiles": {}})["quantiles"][row["EXC_Prob"]] = row
    return out


def record_analysis(gauge: str) -> str | None:
    """The analysis the catalogue holds for a gauge (the study's lowest suffix), None when not in the study."""
    ids = sorted(a for a in analyses() if a.split(".")[0] == str(gauge).split(".")[0])
    return ids[0] if ids else None


def published_skew(site_no: str) -> dict[str, Any] | None:
    """The study's regional skew for a gauge of the study: ``{skew, se, mse, source, citation, analysis}``."""
    aid = record_analysis(str(site_no).strip())
    spec = (specification()["stations"].get(aid) or {}) if aid else {}
    if spec.get("genskew") is None or not spec.get("skewse"):
        return None
    se = float(spec["skewse"])
    return {"skew": float(spec["genskew"]), "se": se, "mse": se * se, "analysis": aid,
            "source": f"the regional skew of the {STUDY}, its PeakFQ specification for {aid}",
            "citation": CITATIONS["wymt_2022_skew"]}


def specification_for(site_no: str) -> dict[str, Any] | None:
    """The study's PeakFQ specification of a gauge of the study, for a record of it uploaded without a ``.psf``:
    ``{"specs": {"stations": {site_no: block}}, "analysis", "source", "citation"}`` (the block of the analysis the
    catalogue holds, keyed by the upload's own site number), None when the gauge is not one of the study's."""
    aid = record_analysis(str(site_no).strip().split(".")[0])
    block = specification()["stations"].get(aid) if aid else None
    if not block:
        return None
    return {"specs": {"stations": {str(site_no).strip(): dict(block)}}, "analysis": aid,
            "source": f"the PeakFQ specification of the {STUDY} for {aid}", "citation": CITATIONS["wymt_2022"]}


def _record(aid: str) -> pd.Series:
    return peak_series(analyses()[aid], [specification()], name=aid, provenance={})


def station_specs() -> list:
    """One :class:`StationSpec` per gauge of the study (its first analysis), placed at its H card's position."""
    from aquascope_core.data.stations import StationSpec, VariableSpec
    from aquascope_core.data.usgs import usgs_url

    cat = store.usgs_catalogue()
    specs = []
    for aid in sorted(analyses()):
        gauge = aid.split(".")[0]
        if record_analysis(gauge) != aid:
            continue
        st = analyses()[aid]
        s = _record(aid)
        attrs = {k: v for k, v in s.attrs.items() if k in ("historical_years", "perception_thresholds",
                                                          "regional_skew", "regional_skew_sd", "peakfq")}
        attrs["regional_skew_origin"] = "published_study"
        attrs["analysis"] = aid
        others = [a for a in sorted(analyses()) if a.split(".")[0] == gauge and a != aid]
        years = [int(y) for y in s.index.year]
        note = (f"annual peaks, water years {min(years)} to {max(years)}, as analysed by the {STUDY} ({aid}"
                + (f"; the study's other analyses of this gauge: {', '.join(others)}" if others else "") + ")")
        load = functools.partial(lambda a: _record(a).copy(), aid)
        area_sqmi = st.get("drainage_area_sqmi")
        row = cat.loc[gauge] if gauge in cat.index else None
        attributes = {"state": row["state"] if row is not None else None, "huc8": st.get("huc8"),
                      "drainage_area_sqmi": area_sqmi, "place_from": "the study's WATSTORE H card",
                      "study": STUDY}
        specs.append(StationSpec(
            gauge, st.get("name") or gauge,
            [VariableSpec("peak_discharge", "ft3/s", "annual", note, load, FILES["peaks"], extra_attrs=attrs)],
            lat=st.get("lat"), lon=st.get("lon"),
            area_km2=round(area_sqmi * _SQMI_KM2, 3) if area_sqmi else None,
            regulation=row["regulation_class"] if row is not None else None, url=usgs_url(gauge),
            citation=CITATIONS["wymt_2022"], attributes=attributes))
    return specs
