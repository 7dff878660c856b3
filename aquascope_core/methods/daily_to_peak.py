"""An indicative instantaneous peak from a maximum daily mean flow (Fuller 1914).

    Q_peak / Q_daily = 1 + 2 A^-0.3        (A in mi2; 1 + 2.66 A^-0.3 with A in km2)

Fuller's ratio is an average over many rivers: it says how much higher a peak is on average, not at this
catchment, so every number from it is ``indicative: true`` and graded C at most. The daily-mean values stay what
they are, "maximum daily mean flow"; only the converted ones are peaks.

References
----------
Fuller, W.E. (1914) Flood flows. Transactions of the American Society of Civil Engineers 77, 564-617.
Fill, H.D. and Steiner, A.A. (2003) Estimating instantaneous peak flow from mean daily flow data. Journal of
Hydrologic Engineering 8(6), 365-369 (the km2 form).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from aquascope_core.errors import InputError
from aquascope_core.result import finish, resolved_parameters, source

__all__ = ["fuller_ratio", "indicative_peaks", "GRADE_CAP"]

GRADE_CAP = "C"
_MI2_PER_KM2 = 1.0 / 2.589988110336
FULLER = "Fuller, W.E. (1914) Flood flows. Transactions of the American Society of Civil Engineers 77, 564-617."
_FILL = ("Fill, H.D. and Steiner, A.A. (2003) Estimating instantaneous peak flow from mean daily flow data. "
         "Journal of Hydrologic Engineering 8(6), 365-369.")


def fuller_ratio(area_km2: float) -> float:
    """Fuller's (1914) ratio of the instantaneous peak to the maximum daily mean, ``1 + 2 A_mi2^-0.3``."""
    try:
        a = float(area_km2)
    except (TypeError, ValueError):
        raise InputError.bad_value("area_km2", area_km2, "the catchment area in km2 (a positive number)") from None
    if not (math.isfinite(a) and a > 0):
        raise InputError.bad_value("area_km2", area_km2, "the catchment area in km2 (a positive number)")
    return 1.0 + 2.0 * (a * _MI2_PER_KM2) ** -0.3


def indicative_peaks(values: Sequence[float], area_km2: float, unit: str | None = None,
                     return_periods: Sequence[float] | None = None) -> dict[str, Any]:
    """Maximum daily mean flows (quantiles, or a year's maxima) as indicative instantaneous peaks by Fuller."""
    params = resolved_parameters(indicative_peaks, (list(values), area_km2),
                                 {"unit": unit, "return_periods": None if return_periods is None else list(return_periods)})
    vals = []
    for v in values:
        try:
            x = float(v)
        except (TypeError, ValueError):
            raise InputError.bad_value("values", v, "maximum daily mean flows (numbers)") from None
        if not (math.isfinite(x) and x >= 0):
            raise InputError.bad_value("values", v, "maximum daily mean flows (finite, not negative)")
        vals.append(x)
    if return_periods is not None and len(return_periods) != len(vals):
        raise InputError.bad_value("return_periods", list(return_periods), "one return period per value")
    r = fuller_ratio(area_km2)
    payload = {"method": "fuller_peak_ratio", "ok": True, "indicative": True, "grade_cap": GRADE_CAP,
               "flag_reason": ("the peak is indicative: Fuller's (1914) average peak-to-daily ratio on the maximum "
                               "daily mean flow"),
               "ratio": r, "area_km2": float(area_km2), "area_mi2": float(area_km2) * _MI2_PER_KM2, "unit": unit,
               "daily_mean_values": vals, "values": [v * r for v in vals],
               "return_periods": None if return_periods is None else [float(t) for t in return_periods],
               "basis": "indicative instantaneous peak (Fuller 1914) from the maximum daily mean flow",
               "summary": f"Fuller (1914) peak / daily-mean ratio {r:.3f} for {float(area_km2):.4g} km2 "
                          "(indicative)"}
    return finish(payload, "fuller_peak_ratio", params,
                  [source("Fuller (1914)", citation=FULLER), source("Fill and Steiner (2003)", citation=_FILL)])
