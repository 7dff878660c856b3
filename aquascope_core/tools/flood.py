"""Frame tools for flood studies: frequency fits on annual maxima, trend tests on a series."""

from __future__ import annotations

from typing import Any, Sequence

from aquascope_core.result import finish
from aquascope_core.toolspec import ToolSpec

__all__ = ["flood_frequency", "trend_test", "SPECS"]

DEFAULT_RETURN_PERIODS = (2, 5, 10, 25, 50, 100, 200, 500, 1000)


def flood_frequency(values: Sequence[float], unit: str | None = None,
                    return_periods: Sequence[int] = DEFAULT_RETURN_PERIODS,
                    distributions: Sequence[str] = ("gev_lmoments", "lp3_moments"), n_bootstrap: int = 1000,
                    confidence: float = 0.90, seed: int = 20240601) -> dict[str, Any]:
    """Fit the named distributions to annual maxima; return levels with parametric bootstrap bands."""
    from aquascope_core.methods import flood_frequency as ffa

    out = ffa.flood_frequency(list(values), return_periods=tuple(return_periods), distributions=tuple(distributions),
                              n_bootstrap=n_bootstrap, confidence=confidence, seed=seed, unit=unit)
    payload = {k: v for k, v in out.items() if k != "meta"}
    payload.setdefault("n_years", payload.get("n"))
    fits = payload.get("fits", {})
    good = [k for k, f in fits.items() if f.get("ok")]
    payload["summary"] = (f"{len(good)} of {len(fits)} fits succeeded ({', '.join(good) or 'none'}) "
                          f"on {payload.get('n')} annual maxima")
    params = {"values": values, "unit": unit, "return_periods": list(return_periods),
              "distributions": list(distributions), "n_bootstrap": n_bootstrap, "confidence": confidence, "seed": seed}
    from aquascope_core.result import resolved_parameters

    return finish(payload, "flood_frequency", resolved_parameters(flood_frequency, kwargs=params),
                  [r for r in out.get("meta", {}).get("sources", []) if r.get("name") != "aquascope"])


def trend_test(values: Sequence[float], times: Sequence[float] | None = None, unit: str | None = None, alpha: float = 0.05,
               variant: str = "original") -> dict[str, Any]:
    """Mann-Kendall trend test with Sen's slope on a series; the result sits under ``trend``."""
    from aquascope_core.methods.trends import mann_kendall
    from aquascope_core.result import resolved_parameters

    out = mann_kendall(list(values), times=list(times) if times is not None else None, alpha=alpha, variant=variant,
                       unit=unit)
    trend = {k: v for k, v in out.items() if k != "meta"}
    payload: dict[str, Any] = {"ok": trend.get("ok", True), "trend": trend, "n": trend.get("n"), "unit": unit}
    if not payload["ok"]:
        payload["reason"] = trend.get("reason")
    else:
        payload["summary"] = (f"Mann-Kendall on {trend.get('n')} values: {trend.get('trend')} "
                              f"(p = {trend.get('p_value'):.3g}), Sen's slope {trend.get('sen_slope'):.4g} "
                              f"{trend.get('slope_unit') or ''}").rstrip()
    params = {"values": values, "times": times, "unit": unit, "alpha": alpha, "variant": variant}
    return finish(payload, "trend_test", resolved_parameters(trend_test, kwargs=params),
                  [r for r in out.get("meta", {}).get("sources", []) if r.get("name") != "aquascope"])


SPECS = [
    ToolSpec(
        id="flood_frequency",
        purpose="Fit flood-frequency distributions to annual maxima; return levels with bootstrap bands.",
        kind="frame",
        function="aquascope_core.tools.flood:flood_frequency",
        yields=("ffa",),
        methods=("gev_lmoments", "lp3_moments"),
        gates=({"check": "ci_finite", "path": "fits.gev_lmoments.ci", "return_period": 100},
               {"check": "spread_within", "value": 0.25,
                "paths": ["fits.gev_lmoments.return_levels", "fits.lp3_moments.return_levels"], "return_period": 100},
               {"check": "max_return_period_factor", "value": 3, "return_period": 100, "path": "n"},
               {"check": "fit_envelopes_max", "path": "record_max.return_period.gev_lmoments"}),
        figures=("frequency_curve",),
        tables=("return_levels",),
        citation="Hosking & Wallis (1997) Regional Frequency Analysis; England et al. (2019) Bulletin 17C, USGS TM 4-B5.",
        arguments={"values": "the annual maxima (a list of numbers, or a {{ result.sN.values }} reference)",
                   "unit": "the unit of the values", "return_periods": "return periods in years",
                   "distributions": "fits to make (registry ids)", "n_bootstrap": "parametric bootstrap resamples",
                   "confidence": "confidence level of the bands", "seed": "random seed of the bootstrap"},
    ),
    ToolSpec(
        id="trend_test",
        purpose="Mann-Kendall test and Sen's slope on a series (annual maxima, annual means, a user's series).",
        kind="frame",
        function="aquascope_core.tools.flood:trend_test",
        yields=("trend",),
        methods=("mann_kendall",),
        gates=({"check": "trend_on_series", "path": "trend", "value": 0.05},),
        figures=("trend",),
        citation="Mann (1945); Kendall (1975); Sen (1968).",
        arguments={"values": "the series values", "times": "the times of the values (years)",
                   "unit": "the unit of the values", "alpha": "significance level",
                   "variant": "original, hamed_rao or prewhitened"},
    ),
]
