"""Flood tools: frequency fits on annual maxima, trend tests, published annual-maximum series and
Bulletin 17C on an annual peak record with its historical information."""

from __future__ import annotations

import math
from typing import Any, Literal, Sequence

from aquascope_core.errors import InputError
from aquascope_core.result import finish
from aquascope_core.result import source as source_row
from aquascope_core.toolspec import ToolSpec
from aquascope_core.tools.context import DataContext, provenance_rows, resolve, station_fields, summary_number

__all__ = ["flood_frequency", "trend_test", "annual_maximum_series", "bulletin17c_ema", "SPECS"]

DEFAULT_RETURN_PERIODS = (2, 5, 10, 25, 50, 100, 200, 500, 1000)


def flood_frequency(values: Sequence[float], unit: str | None = None,
                    return_periods: Sequence[int] = DEFAULT_RETURN_PERIODS,
                    distributions: Sequence[str] = ("gev_lmoments", "lp3_moments"), n_bootstrap: int = 1000,
                    confidence: float = 0.90, seed: int = 20240601,
                    station: dict[str, Any] | None = None, basis: str | None = None) -> dict[str, Any]:
    """Fit the named distributions to annual maxima; return levels with parametric bootstrap bands.

    ``station`` (the ``station`` block of the step that gave the maxima) is carried into the payload, so the
    result says whose maxima it fitted (and the report states its flows in the units of the gauge's country).
    ``basis`` says what the maxima are (for example "water-year maximum of the daily mean flow"); it travels
    with the payload so the figures name the quantity (a daily-mean maximum is not a peak)."""
    from aquascope_core.methods import flood_frequency as ffa

    out = ffa.flood_frequency(list(values), return_periods=tuple(return_periods), distributions=tuple(distributions),
                              n_bootstrap=n_bootstrap, confidence=confidence, seed=seed, unit=unit)
    payload = {k: v for k, v in out.items() if k != "meta"}
    payload.setdefault("n_years", payload.get("n"))
    if station:
        payload["station"] = dict(station)
    if basis:
        payload["basis"] = str(basis)
    fits = payload.get("fits", {})
    good = [k for k, f in fits.items() if f.get("ok")]
    from aquascope_core.registry import label_of

    payload["summary"] = (f"{len(good)} of {len(fits)} fits succeeded ({'; '.join(map(label_of, good)) or 'none'}) "
                          f"on {payload.get('n')} annual maxima")
    params = {"values": values, "unit": unit, "return_periods": list(return_periods),
              "distributions": list(distributions), "n_bootstrap": n_bootstrap, "confidence": confidence, "seed": seed,
              "station": station, "basis": basis}
    from aquascope_core.result import resolved_parameters

    return finish(payload, "flood_frequency", resolved_parameters(flood_frequency, kwargs=params),
                  [r for r in out.get("meta", {}).get("sources", []) if r.get("name") != "aquascope"])


def trend_test(values: Sequence[float], times: Sequence[float] | None = None, unit: str | None = None, alpha: float = 0.05,
               variant: str = "original") -> dict[str, Any]:
    """Mann-Kendall trend test with Sen's slope on a series; the result sits under ``trend``.

    ``variant="auto"`` tests the lag-1 autocorrelation of the detrended series first and applies trend-free
    pre-whitening (Yue et al. 2002) only when it is significant at ``alpha``; what was found and done is
    under ``serial_correlation``. A series with missing years cannot be tested by lag, which is said there.
    """
    from aquascope_core.methods.trends import mann_kendall
    from aquascope_core.result import resolved_parameters

    vals, ts = list(values), (list(times) if times is not None else None)
    serial: dict[str, Any] | None = None
    if variant == "auto":
        try:
            check = mann_kendall(vals, times=ts, alpha=alpha, variant="prewhitened", unit=unit)
        except InputError as exc:
            out = mann_kendall(vals, times=ts, alpha=alpha, variant="original", unit=unit)
            serial = {"checked": False, "handled_by": None,
                      "reason": f"serial correlation was not tested: {exc.message.split(':')[0]}"}
        else:
            applied = bool(check.get("prewhitening_applied"))
            out = check if applied else mann_kendall(vals, times=ts, alpha=alpha, variant="original", unit=unit)
            serial = {"checked": True, "lag1_autocorrelation": check.get("lag1_autocorrelation"),
                      "significant": applied,
                      "handled_by": "trend-free pre-whitening (Yue et al. 2002)" if applied else None}
    else:
        out = mann_kendall(vals, times=ts, alpha=alpha, variant=variant, unit=unit)
    trend = {k: v for k, v in out.items() if k != "meta"}
    payload: dict[str, Any] = {"ok": trend.get("ok", True), "trend": trend, "n": trend.get("n"), "unit": unit}
    if serial is not None:
        payload["serial_correlation"] = serial
    if not payload["ok"]:
        payload["reason"] = trend.get("reason")
    else:
        payload["summary"] = (f"Mann-Kendall on {trend.get('n')} values: {trend.get('trend')} "
                              f"(p = {trend.get('p_value'):.3g}), Sen's slope {summary_number(trend.get('sen_slope'))} "
                              f"{trend.get('slope_unit') or ''}").rstrip()
    params = {"values": values, "times": times, "unit": unit, "alpha": alpha, "variant": variant}
    return finish(payload, "trend_test", resolved_parameters(trend_test, kwargs=params),
                  [r for r in out.get("meta", {}).get("sources", []) if r.get("name") != "aquascope"])






def annual_maximum_series(source: str, station_id: str, variable: str = "annual_max_discharge", *,
                          data: DataContext | None = None) -> dict[str, Any]:
    """A published annual-maximum series as it stands: values, years, unit (and what the unit means).

    For annual records only (a daily record's maxima come from ``annual_maxima``). Returns ``values``,
    ``years``, ``n_years``, ``unit``, ``unit_meaning``, ``period``, ``largest`` {value, year},
    ``station``, ``note`` (the source's description) and ``summary``.
    """
    from aquascope_core.errors import InputError

    ctx = resolve(data)
    desc = ctx.describe_station(source, station_id)
    s = ctx.fetch_series(source, station_id, variable).dropna()
    if s.attrs.get("resolution") != "annual":
        raise InputError.bad_value("variable", variable, f"an annual series; {station_id}'s {variable} is "
                                   f"{s.attrs.get('resolution')} (use annual_maxima for a daily record)")
    values = [float(v) for v in s.to_numpy()]
    years = [int(y) for y in s.index.year]
    k = max(range(len(values)), key=lambda i: values[i]) if values else None
    unit = s.attrs.get("unit")
    meaning = s.attrs.get("unit_meaning")
    payload = {
        "ok": bool(values),
        "station": station_fields(desc, source, station_id),
        "variable": variable,
        "values": values,
        "years": years,
        "n_years": len(values),
        "unit": unit,
        "unit_meaning": meaning,
        "resolution": "annual",
        "period": {"start": min(years), "end": max(years)} if years else None,
        "largest": {"value": values[k], "year": years[k]} if k is not None else None,
        "note": s.attrs.get("note"),
        # the years whose peak is historical information (outside the systematic record), when the record says so
        "historical_years": sorted(int(y) for y in s.attrs.get("historical_years") or [] if int(y) in set(years)),
    }
    if values:
        hist = payload["historical_years"]
        sysm = [y for y in years if y not in set(hist)]
        what = (f"{len(values)} annual maxima of {desc.get('name') or station_id}, {min(years)}-{max(years)}"
                if not hist or not sysm else  # a historical peak is no year of the gauge's record: said apart
                f"{len(sysm)} systematic annual peaks of {desc.get('name') or station_id}, {min(sysm)}-{max(sysm)}, and "
                f"{len(hist)} historical peak{'s' if len(hist) != 1 else ''} ({', '.join(str(y) for y in hist)})")
        payload["summary"] = (f"{what}, in {unit}" + (f" ({meaning})" if meaning else "")
                              + f"; largest {summary_number(values[k])} in {years[k]}")
    else:
        payload["reason"] = "the series holds no value"
    return finish(payload, "annual_maximum_series", {"source": source, "station_id": station_id, "variable": variable},
                  provenance_rows(s))


def _codes_clause(pk: dict[str, Any]) -> str:
    """'; qualification codes: 12 peaks maximum daily average (code 1), ...; 2 peaks left out (...)': what a reviewer
    checks in a peak record before trusting its fit, as the peak file codes them ('' when it codes nothing)."""
    from collections import Counter

    from aquascope_core.data.peakfq_files import CODE_MEANINGS

    n = Counter(str(f.get("code")) for f in pk.get("flags") or [])
    parts = [f"{k} peak{'s' if k != 1 else ''} {CODE_MEANINGS.get(c, c)} (code {c})" for c, k in sorted(n.items())]
    out = f"; qualification codes, used as the peak file codes them: {', '.join(parts)}" if parts else ""
    gone = pk.get("excluded") or []
    if gone:
        out += f"; {len(gone)} peak{'s' if len(gone) != 1 else ''} left out (" + "; ".join(
            f"{g.get('water_year')}: {g.get('why')}" for g in gone[:5]) + (", ..." if len(gone) > 5 else "") + ")"
    return out


def _regional_skew_for(desc: dict[str, Any], attrs: dict[str, Any], regional_skew: float | None,
                       regional_skew_mse: float | None, skew_from: str) -> dict[str, Any]:
    """The regional skew to weight with, and where it came from (``skew`` None: at-site skew only); the order is
    :mod:`aquascope_core.tools.flood_skew`'s."""
    from aquascope_core.tools.flood_skew import skew_for_record

    return skew_for_record(desc, attrs, regional_skew, regional_skew_mse, skew_from)


def bulletin17c_ema(source: str, station_id: str, variable: str = "peak_discharge",
                    return_periods: Sequence[float] = DEFAULT_RETURN_PERIODS, confidence: float = 0.90,
                    regional_skew: float | None = None, regional_skew_mse: float | None = None,
                    skew_from: Literal["record", "usgs_table", "station"] = "record",
                    skew_weighting: Literal["HWN", "INV", "ERL"] | None = None, *,
                    data: DataContext | None = None) -> dict[str, Any]:
    """Bulletin 17C on a station's annual peak record: log-Pearson III by EMA with its historical
    information, the multiple Grubbs-Beck test and a weighted regional skew, with EMA confidence limits.

    The record's ``historical_years`` and ``perception_thresholds`` (series attributes) make the
    historical peaks and the censored years; the regional skew is, in the order of
    :mod:`aquascope_core.tools.flood_skew`: the one given, the user's PeakFQ specification's, the gauge's current
    published skew (its study's, else the USGS table's for its state and region); with none, the at-site skew
    alone (and a warning). Every other skew is a row of ``skew_sensitivity`` with its return levels.

    The payload has the shape of ``flood_frequency``'s: ``return_periods``, ``fits.lp3_ema``
    (parameters, return_levels, ci {lower, upper, confidence}, at-site and weighted skew, low
    outliers, ...), ``record_max`` {value, year, return_period {lp3_ema}}, plus ``record_years``
    (systematic and historical period), ``n_systematic``, ``historical``, ``regional_skew_used``,
    ``skew_sensitivity``, ``unit`` and ``summary``.
    """
    from aquascope_core.methods import flood_frequency as ffa
    from aquascope_core.methods.bulletin17c import ema_confidence_band, fit_lp3_ema

    ctx = resolve(data)
    desc = ctx.describe_station(source, station_id)
    s = ctx.fetch_series(source, station_id, variable).dropna()
    attrs = dict(s.attrs)
    unit = attrs.get("unit")
    hist_years = {int(y) for y in attrs.get("historical_years") or []}
    years = [int(y) for y in s.index.year]
    values = [float(v) for v in s.to_numpy()]
    sys_years = [y for y in years if y not in hist_years]
    sys_peaks = [v for y, v in zip(years, values) if y not in hist_years]
    historical = {y: v for y, v in zip(years, values) if y in hist_years}
    thresholds = attrs.get("perception_thresholds") or None
    skew = _regional_skew_for(desc, attrs, regional_skew, regional_skew_mse, skew_from)
    option = "weighted" if skew["skew"] is not None else "station"
    pk = attrs.get("peakfq") or {}  # options of a PeakFQ .psf uploaded with the record
    if pk.get("spec_given") and pk.get("skew_option") in ("station", "regional") and regional_skew is None \
            and skew_from == "record":
        option = pk["skew_option"] if skew["skew"] is not None else "station"
    extra = {"skew_weighting": skew_weighting or pk.get("skew_weighting") or "HWN",
             "low_outlier_test": pk.get("low_outlier_test") or "mgbt",
             "low_outlier_threshold": pk.get("low_outlier_threshold"),
             "interval_peaks": {int(y): tuple(v) for y, v in (pk.get("interval_peaks") or {}).items()} or None}
    T = [float(t) for t in return_periods]
    fit = fit_lp3_ema(sys_peaks, years=sys_years, historical_peaks=historical or None,
                      perception_thresholds=thresholds, regional_skew=skew["skew"], regional_skew_mse=skew["mse"],
                      skew_option=option, unit=unit, **extra)
    f = {k: v for k, v in fit.items() if k not in ("meta", "censoring_pattern")}
    f["return_levels"] = ffa.return_levels(fit, T)
    f["ci"] = None
    record_max = max(values)
    max_year = years[values.index(record_max)]
    record_T = None
    if fit.get("ok"):
        band = ema_confidence_band(fit, T, confidence=confidence)
        f["ci"] = {k: band.get(k) for k in ("ok", "lower", "upper", "confidence", "reason") if k in band}
        f["ci"]["method"] = "peakfq_ema_quadrature"
        t = ffa.return_period_of(fit, record_max)
        record_T = None if t is None or t == math.inf else t
    warnings = list(fit.get("warnings") or [])
    if option == "station" and skew["skew"] is None:
        warnings.append(f"no regional skew was available ({skew['source']}): the at-site skew alone, which Bulletin "
                        "17C advises against for records this short")
    elif option == "station":
        warnings.append(f"the specification asks for the at-site skew alone (SKEWOPT STATION); the regional skew "
                        f"{skew['skew']:g} ({skew['source']}) is not weighted in")
    sensitivity = []
    if fit.get("ok") and regional_skew is None:
        from aquascope_core.tools.flood_skew import sensitivity_skews

        for row in sensitivity_skews(desc, attrs, skew):
            alt = fit_lp3_ema(sys_peaks, years=sys_years, historical_peaks=historical or None,
                              perception_thresholds=thresholds, regional_skew=row["skew"], regional_skew_mse=row["mse"],
                              skew_option="weighted" if row["skew"] is not None else "station", unit=unit, **extra)
            if alt.get("ok"):
                sensitivity.append({**row, "weighted_skew": alt["parameters"]["skew_log"],
                                    "return_levels": ffa.return_levels(alt, T)})
    payload: dict[str, Any] = {
        "ok": bool(fit.get("ok")),
        "method": "bulletin17c_ema",
        "station": station_fields(desc, source, station_id),
        "variable": variable,
        "unit": unit,
        "basis": "annual instantaneous peaks (water years)",
        "n": fit.get("n_systematic"),
        "n_systematic": fit.get("n_systematic"),
        "record_years": fit.get("record_years"),
        "historical": {"peaks": [{"year": y, "value": v} for y, v in sorted(historical.items())],
                       "perception_thresholds": thresholds, "n_censored_years": fit.get("n_censored_years")},
        "systematic": {"years": sys_years, "values": sys_peaks},
        "return_periods": T,
        "fits": {"lp3_ema": f},
        "record_max": {"value": record_max, "year": max_year, "return_period": {"lp3_ema": record_T}},
        "regional_skew_used": skew,
        "skew_sensitivity": sensitivity,
        "warnings": warnings,
    }
    if fit.get("ok"):
        from aquascope_core.methods.bulletin17c import peakfq_quantile_table, peakfq_statistics

        payload["peakfq"] = {"statistics": peakfq_statistics(fit), "table": peakfq_quantile_table(fit, confidence=confidence),
                             "excluded": pk.get("excluded") or [], "flags": pk.get("flags") or [],
                             "notes": pk.get("notes") or [], "site_no": pk.get("site_no"), "format": pk.get("format"),
                             **({"spec_from": pk["spec_from"]} if pk.get("spec_from") else {})}
    if not payload["ok"]:
        payload["reason"] = fit.get("reason")
    else:
        i = T.index(100.0) if 100.0 in T else len(T) // 2
        payload["summary"] = (f"Bulletin 17C EMA on {fit.get('n_systematic')} systematic and {len(historical)} historical "
                              f"peaks over {fit.get('record_years')} years; weighted skew "
                              f"{summary_number(fit['parameters']['skew_log'])}; {T[i]:g}-year flood {summary_number(f['return_levels'][i])} {unit}"
                              + _codes_clause(pk))
    params = {"source": source, "station_id": station_id, "variable": variable, "return_periods": T,
              "confidence": confidence, "regional_skew": regional_skew, "regional_skew_mse": regional_skew_mse,
              "skew_from": skew_from, "skew_weighting": extra["skew_weighting"]}
    return finish(payload, "bulletin17c_ema", params,
                  provenance_rows(s) + [r for r in fit.get("meta", {}).get("sources", []) if r.get("name") != "aquascope"]
                  + ([source_row("regional skew", citation=skew["citation"])] if skew.get("citation") else [])
                  + ([source_row("PeakFQ specification", citation=pk["spec_citation"])] if pk.get("spec_citation")
                     else []))


SPECS = [
    ToolSpec(
        id="flood_frequency",
        purpose="Fit flood-frequency distributions to annual maxima; return levels with bootstrap bands.",
        kind="frame",
        function="aquascope_core.tools.flood:flood_frequency",
        yields=("ffa",),
        methods=("gev_lmoments", "lp3_moments", "gumbel_lmoments", "glo_lmoments", "pe3_lmoments", "gev_ml",
                 "gumbel_ml"),
        gates=({"check": "ci_finite", "path": "fits.gev_lmoments.ci", "return_period": 100},
               {"check": "spread_within", "value": 0.25,
                "paths": ["fits.gev_lmoments.return_levels", "fits.lp3_moments.return_levels"], "return_period": 100},
               {"check": "max_return_period_factor", "value": 3, "return_period": 100, "path": "n"},
               {"check": "fit_envelopes_max", "path": "record_max.return_period.gev_lmoments"}),
        figures=("frequency_curve", "lmoment_diagram"),
        tables=("return_levels",),
        citation="Hosking & Wallis (1997) Regional Frequency Analysis; England et al. (2019) Bulletin 17C, USGS TM 4-B5.",
        arguments={"values": "the annual maxima (a list of numbers, or a {{ result.sN.values }} reference)",
                   "unit": "the unit of the values", "return_periods": "return periods in years",
                   "distributions": "fits to make (registry ids)", "n_bootstrap": "parametric bootstrap resamples",
                   "confidence": "confidence level of the bands", "seed": "random seed of the bootstrap",
                   "station": "the station block of the maxima's step ({{ result.sN.station }}), optional",
                   "basis": "what the maxima are (e.g. the annual_maxima result's label); named on the figures"},
    ),
    ToolSpec(
        id="trend_test",
        purpose="Mann-Kendall test and Sen's slope on a series (annual maxima, annual means, a user's series).",
        kind="frame",
        function="aquascope_core.tools.flood:trend_test",
        yields=("trend",),
        methods=("mann_kendall", "sens_slope"),
        gates=({"check": "trend_on_series", "path": "trend", "value": 0.05},),
        figures=("trend",),
        citation="Mann (1945); Kendall (1975); Sen (1968).",
        arguments={"values": "the series values", "times": "the times of the values (years)",
                   "unit": "the unit of the values", "alpha": "significance level",
                   "variant": "original, hamed_rao, prewhitened, or auto (pre-whitened only when the lag-1 "
                              "autocorrelation is significant)"},
    ),
    ToolSpec(
        id="annual_maximum_series",
        purpose="Read a published annual-maximum series as it stands (values, years, unit and what it means).",
        kind="station",
        function="aquascope_core.tools.flood:annual_maximum_series",
        yields=("annual_maxima",),
        gates=({"check": "min_years", "value": 10, "path": "n_years"}, {"check": "not_empty", "path": "values"},
               {"check": "unit_present"}),
        figures=("annual_maxima",),
        tables=("annual_maxima",),
        citation="The source's own citation (see meta.sources).",
        arguments={"source": "the data source of the station (e.g. published, catalogue)",
                   "station_id": "the station's id as its source spells it",
                   "variable": "the annual variable to read (annual_max_discharge, peak_discharge)"},
    ),
    ToolSpec(
        id="bulletin17c_ema",
        purpose="Bulletin 17C on an annual peak record: LP3 by EMA with historical peaks and perception thresholds, "
                "the multiple Grubbs-Beck test, weighted regional skew and EMA confidence limits.",
        kind="station",
        function="aquascope_core.tools.flood:bulletin17c_ema",
        yields=("ffa",),
        methods=("lp3_ema", "multiple_grubbs_beck", "regional_skew"),
        gates=({"check": "ci_finite", "path": "fits.lp3_ema.ci", "return_period": 100},
               {"check": "max_return_period_factor", "value": 3, "return_period": 100, "path": "record_years"},
               {"check": "fit_envelopes_max", "path": "record_max.return_period.lp3_ema", "n_path": "record_years"}),
        figures=("frequency_curve",),
        tables=("return_levels",),
        citation="England et al. (2019) Bulletin 17C, USGS TM 4-B5; Cohn et al. (1997, 2001, 2013).",
        arguments={"source": "the data source of the station", "station_id": "the station's id",
                   "variable": "the annual peak variable (peak_discharge)",
                   "return_periods": "return periods in years", "confidence": "confidence level of the EMA limits",
                   "regional_skew": "a regional skew to weight with (overrides the lookup)",
                   "regional_skew_mse": "its mean square error",
                   "skew_from": "record (the skew published with the record, else the USGS table), usgs_table, or "
                                "station (at-site skew only)",
                   "skew_weighting": "HWN (PeakFQ 8.1.0's default), INV (the older inverse-MSE weighting) or ERL; "
                                     "default: the uploaded .psf's WEIGHTOPT, else HWN"},
    ),
]
