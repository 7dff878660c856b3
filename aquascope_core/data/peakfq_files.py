"""What PeakFQ users exchange: USGS annual peak files (WATSTORE cards or NWIS RDB) and PeakFQ specification files.

:func:`read_peaks` reads either peak format into one record per station (water year, date, peak, the
qualification codes); :func:`read_psf` reads a PeakFQ ``.psf`` file (``I``/``O`` lines, ``STATION`` blocks with
``GENSKEW``, ``SKEWSE``, ``SKEWOPT``, ``WEIGHTOPT``, ``LOTYPE``, ``LOTHRESH``, ``BEGYEAR``/``ENDYEAR``,
``HISTPERIOD``, ``URB/REG``, ``'NO HISTORIC``, ``PCPT_THRESH``, ``INTERVAL`` and ``PEAK`` lines).
:func:`ema_inputs` applies the codes and the specification as PeakFQ 8.1.0 does and returns the arguments of
:func:`aquascope_core.methods.bulletin17c.fit_lp3_ema`, with every peak left out and why.

Qualification codes, as PeakFQ 8.1.0 applies them in an EMA analysis:

- ``3`` dam failure and ``O`` opportunistic peaks are left out;
- ``6`` regulation and ``C`` urbanisation or other change are left out unless ``URB/REG YES``;
- ``7`` historic peaks are historical information (left out with ``'NO HISTORIC`` or ``HISTPERIOD 0``);
- ``4`` less than and ``8`` greater than become the intervals (0, value) and (value, infinity), as PeakFQ 8.1.0's
  own reading forms them (an ``INTERVAL`` line for the year gives the range instead); they are reported;
- ``1`` daily mean, ``2`` estimate, ``5`` unknown regulation, ``9`` snowmelt/hurricane/ice jam, ``A``/``B``
  date uncertain, ``D``, ``E``, ``F``, ``R`` are kept and reported.

Without ``PCPT_THRESH`` lines the perception thresholds are PeakFQ's defaults: the systematic years at the
gauge base (0), and, with historic peaks, the historical period (``HISTPERIOD`` years ending with the
record, before the systematic years) at the smallest historic peak.
"""

from __future__ import annotations

import math
import re
from typing import Any, Mapping

from aquascope_core.errors import InputError

__all__ = ["sniff", "read_peaks", "read_psf", "ema_inputs", "CODE_MEANINGS"]

CODE_MEANINGS = {
    "1": "maximum daily average", "2": "estimate", "3": "dam failure", "4": "less than the value",
    "5": "regulation or diversion, unknown degree", "6": "regulation or diversion", "7": "historic peak",
    "8": "greater than the value", "9": "snowmelt, hurricane, ice jam or debris dam", "A": "year uncertain",
    "B": "month or day uncertain", "C": "urbanisation, mining, agriculture, channelisation or other change",
    "D": "base discharge changed", "E": "only annual peak available", "F": "peak supplied by another agency",
    "O": "opportunistic value", "R": "revised",
}
_WATSTORE_CODES = set("123456789ABCDO")
_CARD = re.compile(r"^[ZHNYI3][0-9 A-Za-z]")
_PSF_KEYS = {"I", "O", "STATION", "UPDATE"}


def _text(content: bytes | str) -> str:
    if isinstance(content, bytes):
        for enc in ("utf-8", "latin-1"):
            try:
                return content.decode(enc)
            except UnicodeDecodeError:
                continue
    return str(content)


def sniff(content: bytes | str, filename: str | None = None) -> str | None:
    """``"rdb"``, ``"watstore"``, ``"psf"`` or None (not a PeakFQ file)."""
    text = _text(content)[:20000]
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return None
    body = [ln for ln in lines if not ln.startswith("#")]
    if body and body[0].split("\t")[:3] == ["agency_cd", "site_no", "peak_dt"]:
        return "rdb"
    if (filename or "").lower().endswith(".psf") or any(ln.split()[0].upper() == "STATION" for ln in lines[:50]):
        if any(ln.split()[0].upper() in _PSF_KEYS for ln in lines):
            return "psf"
    cards = [ln for ln in lines if ln[0] in "ZHNYI3" and len(ln) >= 24]
    if cards and sum(ln[0] == "3" for ln in cards) >= 3 and len(cards) >= 0.8 * len(lines):
        if all(ln[16:20].strip().isdigit() for ln in cards if ln[0] == "3"):
            return "watstore"
    return None


def _water_year(year: int, month: int) -> int:
    return year + 1 if month >= 10 else year


def _station(site: str) -> dict[str, Any]:
    return {"site_no": site, "name": None, "agency": None, "lat": None, "lon": None, "peaks": []}


def _read_watstore(text: str) -> list[dict[str, Any]]:
    stations: dict[str, dict[str, Any]] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line[0] in "24*":
            continue
        kind = line[0]
        if kind not in "ZHNYI3":
            raise InputError(f"line {n} of the WATSTORE peak file starts with {kind!r}: not a Z, H, N, Y, I or 3 card.",
                             argument="content", recovery="Upload the file as PeakFQ reads it (80-column cards).")
        site = line[1:16].strip()
        st = stations.setdefault(site, _station(site))
        if kind == "Z":
            st["agency"] = line[32:37].strip() or None
        elif kind == "N":
            st["name"] = line[16:64].strip() or None
        elif kind == "H":
            try:
                lat = int(line[16:18]) + int(line[18:20]) / 60 + int(line[20:22]) / 3600
                lon = int(line[22:25]) + int(line[25:27]) / 60 + int(line[27:29]) / 3600
                st["lat"], st["lon"] = round(lat, 6), -round(lon, 6)
            except ValueError:
                pass
        elif kind == "3":
            date = line[16:24]
            try:
                year = int(date[:4])
                month = int(date[4:6]) if date[4:6].strip() else 0
            except ValueError:
                raise InputError(f"line {n}: the date {date!r} of a 3 card is not YYYYMMDD.", argument="content") from None
            value = line[24:31].strip()
            try:
                q = float(value) if value else None
            except ValueError:
                raise InputError(f"line {n}: the peak {value!r} of a 3 card is not a number.", argument="content") from None
            codes = "".join(sorted({c for c in line[31:43] if c in _WATSTORE_CODES}))
            st["peaks"].append({"water_year": _water_year(year, month), "date": f"{date[:4]}-{date[4:6]}-{date[6:8]}",
                                "value": q, "codes": codes, "line": n})
    return [s for s in stations.values() if s["peaks"]]


def _read_rdb(text: str) -> list[dict[str, Any]]:
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    header = lines[0].split("\t")
    col = {h: i for i, h in enumerate(header)}
    for need in ("site_no", "peak_dt", "peak_va"):
        if need not in col:
            raise InputError(f"the RDB peak file has no {need!r} column.", argument="content",
                             recovery="Upload the NWIS annual peak file in RDB (tab-separated) format as served.")
    body = lines[2:] if len(lines) > 1 and re.fullmatch(r"(\d+[sdn]\t?)+", lines[1].strip()) else lines[1:]
    names = {}
    for ln in text.splitlines():
        m = re.match(r"#\s+(\w+)\s+(\d{8,15})\s+(.+)$", ln)
        if m:
            names[m.group(2)] = m.group(3).strip()
    stations: dict[str, dict[str, Any]] = {}
    for n, ln in enumerate(body, start=1):
        cells = ln.split("\t")
        cell = lambda k: cells[col[k]].strip() if k in col and col[k] < len(cells) else ""  # noqa: E731
        site = cell("site_no")
        st = stations.setdefault(site, _station(site))
        st["agency"] = cell("agency_cd") or st["agency"]
        st["name"] = names.get(site, st["name"])
        date = cell("peak_dt")
        m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", date)
        if not m:
            raise InputError(f"row {n} of the RDB peak file: the date {date!r} is not YYYY-MM-DD.", argument="content")
        value = cell("peak_va")
        try:
            q = float(value) if value else None
        except ValueError:
            raise InputError(f"row {n} of the RDB peak file: the peak {value!r} is not a number.", argument="content") from None
        codes = "".join(sorted({c.strip()[0] for c in cell("peak_cd").split(",") if c.strip()}))
        st["peaks"].append({"water_year": _water_year(int(m.group(1)), int(m.group(2))), "date": date, "value": q,
                            "codes": codes, "line": n})
    return [s for s in stations.values() if s["peaks"]]


def read_peaks(content: bytes | str) -> list[dict[str, Any]]:
    """The stations of a WATSTORE or RDB annual peak file: ``[{site_no, name, agency, lat, lon, peaks, format}]``,
    each peak ``{water_year, date, value, codes, line}`` (codes: the qualification characters, sorted)."""
    text = _text(content)
    fmt = sniff(text)
    if fmt not in ("rdb", "watstore"):
        raise InputError("the file is neither an NWIS RDB nor a WATSTORE annual peak file.", argument="content",
                         recovery="Upload the peak file as NWIS serves it (RDB or WATSTORE format).")
    out = _read_rdb(text) if fmt == "rdb" else _read_watstore(text)
    for st in out:
        st["format"] = fmt
        years = [p["water_year"] for p in st["peaks"]]
        dup = sorted({y for y in years if years.count(y) > 1})
        if dup:
            raise InputError(f"station {st['site_no']}: water year(s) {dup[:5]} hold more than one annual peak.",
                             argument="content", recovery="Keep one annual peak per water year.")
    return out


# --------------------------------------------------------------------------------------------
# PeakFQ specification (.psf) files
# --------------------------------------------------------------------------------------------

def _num(value: str, what: str, n: int) -> float:
    try:
        return float(value)
    except ValueError:
        raise InputError(f"line {n} of the .psf file: {what} {value!r} is not a number.", argument="content") from None


def _yes(value: str) -> bool:
    return value.strip().upper().startswith("Y")


def read_psf(content: bytes | str) -> dict[str, Any]:
    """A PeakFQ specification file: ``{"input", "output", "stations": {id: spec}}``.

    A station's spec holds what its lines set: ``analyze``, ``genskew``, ``skewse``, ``skewopt``,
    ``weightopt``, ``lotype``, ``lothresh``, ``hithresh``, ``gagebase``, ``begyear``, ``endyear``,
    ``histperiod``, ``urb_reg``, ``no_historic``, ``thresholds`` [{start, end, lower, upper, comment}],
    ``intervals`` [{year, lower, upper, comment}], ``peaks`` [{year, value, codes, comment}].
    """
    out: dict[str, Any] = {"input": None, "output": [], "stations": {}}
    cur: dict[str, Any] | None = None
    for n, raw in enumerate(_text(content).splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        upper = line.upper()
        if upper.startswith("'NO HISTORIC"):
            if cur is not None:
                cur["no_historic"] = True
            continue
        if line.startswith("'") or line.startswith("#"):
            continue
        words = line.split()
        key = words[0].upper()
        rest = line[len(words[0]):].strip()
        if key == "I":
            out["input"] = rest
        elif key == "O":
            out["output"].append(rest)
        elif key == "STATION":
            sid = rest.split()[0] if rest else ""
            if not sid:
                raise InputError(f"line {n} of the .psf file: STATION without a station number.", argument="content")
            cur = {"thresholds": [], "intervals": [], "peaks": [], "no_historic": False}
            out["stations"][sid] = cur
        elif key == "UPDATE":
            continue
        elif cur is None:
            raise InputError(f"line {n} of the .psf file: {key} comes before any STATION line.", argument="content",
                             recovery="Put station options after its STATION line, as PeakFQ writes them.")
        elif key in ("GENSKEW", "SKEWSE", "LOTHRESH", "HITHRESH", "GAGEBASE", "HISTPERIOD", "LATITUDE", "LONGITUDE"):
            cur[key.lower()] = _num(words[1] if len(words) > 1 else "", key, n)
        elif key in ("BEGYEAR", "ENDYEAR"):
            cur[key.lower()] = int(_num(words[1] if len(words) > 1 else "", key, n))
        elif key in ("ANALYZE", "SKEWOPT", "WEIGHTOPT", "LOTYPE"):
            cur[key.lower()] = (words[1] if len(words) > 1 else "").upper()
        elif key == "URB/REG":
            cur["urb_reg"] = _yes(words[1] if len(words) > 1 else "NO")
        elif key == "USESKEWMAP":
            cur["useskewmap"] = _yes(words[1] if len(words) > 1 else "NO")
        elif key == "PCPT_THRESH":
            if len(words) < 5:
                raise InputError(f"line {n}: PCPT_THRESH needs start year, end year, lower and upper threshold.",
                                 argument="content")
            cur["thresholds"].append({"start": int(_num(words[1], "the start year", n)),
                                      "end": int(_num(words[2], "the end year", n)),
                                      "lower": _num(words[3], "the lower threshold", n),
                                      "upper": _num(words[4], "the upper threshold", n),
                                      "comment": " ".join(words[5:]) or None})
        elif key == "INTERVAL":
            if len(words) < 4:
                raise InputError(f"line {n}: INTERVAL needs the year, the lower and the upper bound.", argument="content")
            cur["intervals"].append({"year": int(_num(words[1], "the year", n)), "lower": _num(words[2], "the lower bound", n),
                                     "upper": _num(words[3], "the upper bound", n), "comment": " ".join(words[4:]) or None})
        elif key == "PEAK":
            if len(words) < 3:
                raise InputError(f"line {n}: PEAK needs the year and the value.", argument="content")
            tail = rest.split(None, 2)[2] if len(rest.split(None, 2)) > 2 else ""
            code, _, comment = tail.partition("'")
            cur["peaks"].append({"year": int(_num(words[1], "the year", n)), "value": _num(words[2], "the peak", n),
                                 "codes": "".join(sorted({c for c in code.upper() if c in _WATSTORE_CODES})),
                                 "comment": comment.strip() or None})
        else:
            cur.setdefault("ignored", []).append(line)
    return out


def _spec_for(site: str, specs: Mapping[str, Any] | None) -> dict[str, Any]:
    stations = (specs or {}).get("stations") or {}
    if site in stations:
        return dict(stations[site])
    short = site.lstrip("0")
    for sid, spec in stations.items():
        if sid.lstrip("0") == short:
            return dict(spec)
    return {}


_INF_UPPER = 1e19  # PeakFQ writes an infinite upper threshold as 1E20 (or larger)


def ema_inputs(station: Mapping[str, Any], specs: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The arguments of ``fit_lp3_ema`` for a station's peaks under its ``.psf`` spec, as PeakFQ 8.1.0 forms them.

    Returns ``{"fit_kwargs": {...}, "excluded": [{water_year, value, codes, why}], "flags": [{water_year, value,
    codes, meaning}], "spec": {...}, "notes": [...]}``.
    """
    spec = _spec_for(str(station["site_no"]), specs)
    notes: list[str] = []
    analyze = spec.get("analyze") or "EMA"
    if analyze != "EMA":
        notes.append(f"the .psf asks for ANALYZE {analyze}; the Bulletin 17C EMA analysis is done (Bulletin 17B's "
                     "procedure is superseded)")
    peaks = {p["water_year"]: dict(p) for p in station["peaks"]}
    for p in spec.get("peaks") or []:
        old = peaks.get(p["year"], {})
        peaks[p["year"]] = {"water_year": p["year"], "date": old.get("date"), "value": p["value"], "codes": p["codes"],
                            "line": None}
        notes.append(f"water year {p['year']}: peak {p['value']:g} set by the .psf" +
                     (f" ({p['comment']})" if p.get("comment") else ""))
    beg, end = spec.get("begyear"), spec.get("endyear")
    # a PCPT_THRESH with an infinite lower threshold marks years without record: PeakFQ drops them
    blank = [(t["start"], t["end"]) for t in spec.get("thresholds") or [] if t["lower"] >= _INF_UPPER]
    in_blank = lambda y: any(a <= y <= b for a, b in blank)  # noqa: E731
    hist_ok = not spec.get("no_historic") and not (spec.get("histperiod") is not None and spec["histperiod"] <= 0)
    urb = bool(spec.get("urb_reg"))
    excluded, flags = [], []
    systematic: dict[int, float] = {}
    historical: dict[int, float] = {}
    for wy in sorted(peaks):
        p = peaks[wy]
        codes = p.get("codes") or ""
        why = None
        if p.get("value") is None or p["value"] < 0:
            why = "no peak value"
        elif (beg is not None and wy < beg) or (end is not None and wy > end):
            why = f"outside BEGYEAR/ENDYEAR {beg or ''}-{end or ''}"
        elif in_blank(wy):
            why = "in a PCPT_THRESH period with an infinite threshold (no record)"
        elif "3" in codes:
            why = "code 3: dam failure"
        elif "O" in codes:
            why = "code O: opportunistic value"
        elif ("6" in codes or "C" in codes) and not urb:
            why = "code " + "/".join(c for c in "6C" if c in codes) + ": regulation or urbanisation (URB/REG NO)"
        elif "7" in codes and not hist_ok:
            why = "code 7: historic peak, historical information switched off"
        if why:
            excluded.append({"water_year": wy, "value": p.get("value"), "codes": codes, "why": why})
            continue
        for c in codes:
            if c in "124589ABDEFR" or (c in "6C" and urb):
                flags.append({"water_year": wy, "value": p["value"], "codes": codes, "code": c,
                              "meaning": CODE_MEANINGS.get(c, c)})
        if "7" in codes:
            historical[wy] = float(p["value"])
        else:
            systematic[wy] = float(p["value"])
    if len(systematic) == 0:
        raise InputError(f"station {station['site_no']}: no systematic peak is left after the qualification codes.",
                         argument="content", recovery="Check URB/REG and BEGYEAR/ENDYEAR in the .psf.")
    # "less than" (4) and "greater than" (8) peaks are intervals, (0, value) and (value, infinity), as PeakFQ 8.1.0
    # forms them; an INTERVAL line for the year replaces them
    intervals: dict[int, tuple[float, float | None]] = {}
    for wy in sorted(systematic):
        codes = peaks[wy].get("codes") or ""
        if "4" in codes:
            intervals[wy] = (0.0, systematic[wy])
        elif "8" in codes:
            intervals[wy] = (systematic[wy], None)
    for iv in spec.get("intervals") or []:
        hi = None if iv["upper"] >= _INF_UPPER else iv["upper"]
        intervals[iv["year"]] = (iv["lower"], hi)
    thresholds = []
    for t in spec.get("thresholds") or []:
        if t["lower"] >= _INF_UPPER:
            notes.append(f"water years {t['start']}-{t['end']}: no record (infinite perception threshold)")
            continue
        thresholds.append({"start": t["start"], "end": t["end"], "lower": t["lower"],
                           "upper": None if t["upper"] >= _INF_UPPER else t["upper"]})
    sys_years = sorted(systematic)
    if thresholds:
        covered = lambda y: any(t["start"] <= y <= t["end"] for t in thresholds)  # noqa: E731
        loose = [y for y in sorted(set(sys_years) | set(historical)) if not covered(y)]
        if loose:
            thresholds.append({"start": loose[0], "end": loose[-1], "lower": 0.0, "upper": None})
            notes.append(f"water years {loose[0]}-{loose[-1]} lie in no PCPT_THRESH period: PeakFQ's default "
                         "threshold (0 to infinity) is used there")
    else:
        gage = float(spec.get("gagebase") or 0.0)
        thresholds.append({"start": sys_years[0], "end": sys_years[-1], "lower": gage, "upper": None})
        if historical:
            lo = min(historical.values())
            h_end = max(historical)
            start = min(historical)
            if h_end < sys_years[0]:
                length = spec.get("histperiod")
                start = int(sys_years[-1] - length + 1) if length else start
                h_end = sys_years[0] - 1
            thresholds.insert(0, {"start": min(start, min(historical)), "end": h_end, "lower": lo, "upper": None})
            notes.append(f"historical period {min(start, min(historical))}-{h_end} at PeakFQ's default threshold, "
                         f"the smallest historic peak ({lo:g})")
    # a historic (code 7) peak inside the systematic years stays historical: PeakFQ 8.1.0 fits it as a measured
    # flood but leaves it out of the low-outlier test's sample (USGS 06324500, 1923)
    regional = spec.get("genskew")
    se = spec.get("skewse")
    option = {"STATION": "station", "WEIGHTED": "weighted", "REGIONAL": "regional", "GENERALIZED": "regional"}.get(
        spec.get("skewopt") or ("WEIGHTED" if regional is not None else "STATION"), None)
    if option is None:
        raise InputError.bad_value("SKEWOPT", spec.get("skewopt"), "STATION, WEIGHTED or REGIONAL")
    if option != "station" and regional is None:
        notes.append(f"SKEWOPT {spec.get('skewopt')} without GENSKEW: the station skew is used")
        option = "station"
    if option == "weighted" and not se:
        raise InputError(f"station {station['site_no']}: SKEWOPT WEIGHTED needs SKEWSE (the regional skew's standard "
                         "error).", argument="content", recovery="Add a SKEWSE line to the .psf.")
    lotype = spec.get("lotype") or "MGBT"
    lothresh = spec.get("lothresh")
    kwargs: dict[str, Any] = {
        "peaks": [systematic[y] for y in sorted(systematic)],
        "years": sorted(systematic),
        "historical_peaks": dict(sorted(historical.items())) or None,
        "perception_thresholds": thresholds,
        "interval_peaks": intervals or None,
        "regional_skew": regional if option != "station" else None,
        "regional_skew_mse": (se * se) if (se and option in ("weighted", "regional")) else None,
        "skew_option": option,
        "skew_weighting": spec.get("weightopt") or "HWN",
        "low_outlier_test": "none" if lotype == "NONE" else "mgbt",
        "low_outlier_threshold": lothresh if (lothresh and lothresh > 0 and lotype in ("FIXE", "FIXED")) else None,
        "unit": "ft3/s",
    }
    if lotype not in ("MGBT", "NONE", "FIXE", "FIXED"):
        raise InputError.bad_value("LOTYPE", lotype, "MGBT, NONE or FIXED (Bulletin 17C's tests)")
    if kwargs["skew_weighting"] not in ("HWN", "INV", "ERL"):
        raise InputError.bad_value("WEIGHTOPT", kwargs["skew_weighting"], "HWN, INV or ERL")
    if not math.isfinite(float(regional)) if regional is not None else False:
        raise InputError.bad_value("GENSKEW", regional, "a finite regional skew")
    return {"fit_kwargs": kwargs, "excluded": excluded, "flags": flags, "spec": spec, "notes": notes,
            "site_no": station["site_no"], "name": station.get("name")}


# --------------------------------------------------------------------------------------------
# Uploads: a peak file becomes a dataset of annual peaks; a .psf file a set of station specs
# --------------------------------------------------------------------------------------------

def peak_series(station: Mapping[str, Any], specs: list[Mapping[str, Any]] | None, *, name: str,
                provenance: Mapping[str, Any]) -> Any:
    """The station's annual peaks (systematic and historical, after the codes) as a series of water years
    (``YYYY-01-01``), with what Bulletin 17C needs in ``attrs``: ``historical_years``, ``perception_thresholds``,
    ``regional_skew``/``regional_skew_sd`` (from GENSKEW/SKEWSE) and ``peakfq`` (the other fit arguments, the
    peaks left out and the codes flagged)."""
    import pandas as pd

    merged: dict[str, Any] = {"stations": {}}
    for sp in specs or []:
        merged["stations"].update(sp.get("stations") or {})
    got = ema_inputs(station, merged)
    kw = got["fit_kwargs"]
    values = dict(zip(kw["years"], kw["peaks"]))
    values.update(kw["historical_peaks"] or {})
    years = sorted(values)
    s = pd.Series([values[y] for y in years], index=pd.DatetimeIndex([f"{y}-01-01" for y in years]), dtype=float,
                  name="peak_discharge")
    s.index.name = "date"
    spec = got["spec"]
    s.attrs = {
        "variable": "peak_discharge", "column": "peak_va", "unit": "ft3/s", "resolution": "annual", "source": "upload",
        "station_id": name, "name": station.get("name") or name, "provenance": dict(provenance),
        "historical_years": sorted(kw["historical_peaks"] or {}),
        "perception_thresholds": kw["perception_thresholds"],
        "regional_skew": spec.get("genskew"), "regional_skew_sd": spec.get("skewse"),
        "peakfq": {"site_no": station["site_no"], "format": station.get("format"),
                   "interval_peaks": {str(y): list(v) for y, v in (kw["interval_peaks"] or {}).items()},
                   "skew_option": kw["skew_option"], "skew_weighting": kw["skew_weighting"],
                   "low_outlier_test": kw["low_outlier_test"], "low_outlier_threshold": kw["low_outlier_threshold"],
                   "excluded": got["excluded"], "flags": got["flags"], "notes": got["notes"],
                   "spec_given": bool(spec)},
    }
    return s


def without_spec(station: Mapping[str, Any], series: Any, *, name: str) -> Any:
    """A peak file uploaded without its ``.psf``: the specification of the published study that analysed the gauge
    (the Wyoming-Montana 2022 study for its gauges: its perception thresholds, historical period and skew, so the
    upload gives the embedded record's answer), else the series as read, under PeakFQ's defaults. Either way
    ``attrs["peakfq"]["spec_from"]`` says which, in words."""
    from aquascope_core.data.wymt_2022 import specification_for

    study = specification_for(str(station.get("site_no") or ""))
    if study is None:
        return _embedded_thresholds(station, series)
    out = peak_series(station, [study["specs"]], name=name, provenance=series.attrs.get("provenance") or {})
    out.attrs["peakfq"]["spec_from"] = (f"no PeakFQ specification came with the peak file: {study['source']} is "
                                        "adopted (its perception thresholds, historical period and options)")
    out.attrs["peakfq"]["spec_analysis"] = study["analysis"]
    out.attrs["peakfq"]["spec_citation"] = study.get("citation")  # the study is cited as the embedded record is
    return out


def _embedded_thresholds(station: Mapping[str, Any], series: Any) -> Any:
    """No study's specification: the perception thresholds of the gauge's embedded record when they cover every
    year of the file (the same analysis as the embedded record), else PeakFQ's defaults, with the difference said."""
    from aquascope_core.data.catalogue import embedded_peak_thresholds

    out = series.copy()
    out.attrs = {**series.attrs, "peakfq": dict(series.attrs.get("peakfq") or {})}
    said = ("no PeakFQ specification came with the peak file: PeakFQ's defaults (no perception thresholds or "
            "historical period beyond what the file's codes say)")
    known = embedded_peak_thresholds(str(station.get("site_no") or ""))
    if known:
        th = known["perception_thresholds"]
        years = [int(y) for y in series.index.year]
        covered = all(any(int(t["start"]) <= y <= int(t["end"]) for t in th) for y in years)
        hist = [t for t in th if float(t.get("lower") or 0) > 0]
        words = "; ".join(f"{int(t['start'])}-{int(t['end'])} above {float(t['lower']):,.0f} ft3/s" for t in hist)
        period = known.get("historical_period") or [min(int(t["start"]) for t in th), max(int(t["end"]) for t in th)]
        if covered:
            out.attrs["perception_thresholds"] = [dict(t) for t in th]
            said = (f"no PeakFQ specification came with the peak file: the perception thresholds of the embedded "
                    f"record of this gauge are adopted (historical period {period[0]}-{period[1]}"
                    + (f"; floods known {words}" if words else "") + ")")
        else:
            said += (f"; the embedded record of this gauge takes a historical period {period[0]}-{period[1]}"
                     + (f" (floods known {words})" if words else "") + ", which does not cover every year of the file")
    out.attrs["peakfq"]["spec_from"] = said
    return out


def upload_dataset(name: str, kind: str, raw: bytes, filename: str | None, original: dict[str, Any],
                   ingested: str, provenance: Mapping[str, Any]) -> dict[str, Any]:
    """The dataset ``ingest`` returns for a PeakFQ file: annual peaks (``rdb``/``watstore``) or specs (``psf``)."""
    base = {"name": name, "kind": "upload", "format": kind, "columns": [], "questions": [], "warnings": [],
            "layout": "peakfq", "original": original, "ingested": ingested}
    if kind == "psf":
        spec = read_psf(raw)
        if not spec["stations"]:
            raise InputError("the .psf file holds no STATION block.", argument="content",
                             recovery="Give each station's options after a 'STATION <number>' line.")
        return {**base, "variables": [], "series": {}, "unit": None, "resolution": None, "period": None, "gaps": None,
                "peakfq_spec": spec,
                "warnings": [f"station {sid}: {len(s.get('ignored', []))} line(s) not used: " + "; ".join(s["ignored"][:3])
                             for sid, s in spec["stations"].items() if s.get("ignored")]}
    stations = read_peaks(raw)
    if len(stations) != 1:
        raise InputError(f"the peak file holds {len(stations)} stations ({', '.join(s['site_no'] for s in stations[:5])}); "
                         "one station per upload.", argument="content",
                         recovery="Upload one file per station (PeakFQ's batch files can be split by station number).")
    st = stations[0]
    s = peak_series(st, None, name=name, provenance=provenance)
    from aquascope_core.data.base import list_gaps, record_summary, variable_entry

    gaps = list_gaps(s.index, "annual")
    entry = variable_entry("peak_discharge", "ft3/s", "annual", source="upload", offline=True,
                           note=f"annual peaks of USGS {st['site_no']} ({kind} file {filename or name})",
                           **record_summary(s, "annual"))
    entry.update({"column": "peak_va", "variable_known": True, "unit_known": True, "gaps": gaps})
    warnings = [f"water year {e['water_year']} ({e['value']}) left out: {e['why']}" for e in s.attrs["peakfq"]["excluded"]]
    return {**base, "variables": [entry], "series": {"peak_va": s}, "unit": "ft3/s", "resolution": "annual",
            "period": {"start": s.index[0].isoformat(), "end": s.index[-1].isoformat()}, "gaps": gaps,
            "warnings": warnings, "peakfq_station": st}
