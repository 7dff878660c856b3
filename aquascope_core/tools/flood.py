"""Frame tools for flood studies: frequency fits on annual maxima, trend tests on a series."""

from __future__ import annotations

from typing import Any, Sequence

from aquascope_core.result import finish

__all__ = ["flood_frequency", "trend_test"]

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
