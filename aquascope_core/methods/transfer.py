"""From a gauge to a site on the same stream: the drainage-area-ratio transfer.

    Q_site = Q_gauge (A_site / A_gauge)^b

with ``b`` the drainage-area exponent of the state's regression equation for the region and AEP where the
package holds one (see :func:`aquascope_core.methods.regression.area_exponent`), else 1. Practice accepts the
transfer only for a site whose area is 0.5 to 1.5 times the gauge's (Bulletin 17C, chapter 8; Ries 2007); beyond
that range the regression at the site is the estimate, and this function says so and gives no number.

References
----------
England, J.F. Jr. et al. (2019) Bulletin 17C, USGS TM 4-B5, chapter 8 (estimates at ungaged sites on gaged
streams). Ries, K.G. III (2007) USGS TM 4-A6.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from aquascope_core.errors import InputError
from aquascope_core.result import finish, resolved_parameters, source

__all__ = ["drainage_area_transfer", "RATIO_RANGE"]

RATIO_RANGE = (0.5, 1.5)
_B17C = ("England, J.F. Jr. et al. (2019) Guidelines for Determining Flood Flow Frequency, Bulletin 17C. "
         "U.S. Geological Survey Techniques and Methods 4-B5, chapter 8.")


def _positive(name: str, v: Any) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise InputError.bad_value(name, v, "a positive number") from None
    if not (math.isfinite(x) and x > 0):
        raise InputError.bad_value(name, v, "a positive, finite number")
    return x


def drainage_area_transfer(values: Sequence[float], gauge_area: float, site_area: float,
                           exponent: float | None = None, exponent_source: str | None = None,
                           unit: str | None = None, area_unit: str = "mi2",
                           ratio_range: Sequence[float] = RATIO_RANGE) -> dict[str, Any]:
    """The gauge's flows at the site by the drainage-area ratio, within ``ratio_range`` of areas.

    ``values`` are the gauge's quantiles (any unit, ``unit`` names it); ``exponent`` None means 1 (said in
    ``exponent_source``). Outside the ratio range the payload has ``ok: False``, ``values: None`` and
    ``use_regression: True``.
    """
    params = resolved_parameters(drainage_area_transfer, (list(values), gauge_area, site_area),
                                 {"exponent": exponent, "exponent_source": exponent_source, "unit": unit,
                                  "area_unit": area_unit, "ratio_range": list(ratio_range)})
    ag, asite = _positive("gauge_area", gauge_area), _positive("site_area", site_area)
    lo, hi = (float(x) for x in ratio_range)
    if not (0 < lo < 1 < hi):
        raise InputError.bad_value("ratio_range", list(ratio_range), "(low, high) with 0 < low < 1 < high")
    vals = [_positive("values", v) for v in values]
    b = 1.0 if exponent is None else float(exponent)
    b_src = exponent_source or ("none held for the state: 1 (direct proportion)" if exponent is None else "given")
    ratio = asite / ag
    payload: dict[str, Any] = {"method": "drainage_area_transfer", "ratio": ratio, "ratio_range": [lo, hi],
                               "exponent": b, "exponent_source": b_src, "gauge_area": ag, "site_area": asite,
                               "area_unit": area_unit, "unit": unit, "gauge_values": vals}
    if not (lo <= ratio <= hi):
        payload.update(ok=False, values=None, factor=None, use_regression=True,
                       reason=f"the site's area is {ratio:.3g} times the gauge's, outside the {lo:g}-{hi:g} range "
                              "in which the drainage-area ratio is accepted: the regression at the site is the "
                              "estimate")
    else:
        factor = ratio ** b
        payload.update(ok=True, factor=factor, values=[v * factor for v in vals], use_regression=False,
                       summary=f"area ratio {ratio:.3g} (within {lo:g}-{hi:g}), exponent {b:.3g} ({b_src}): "
                               f"factor {factor:.4g}")
    return finish(payload, "drainage_area_transfer", params, [source("Drainage-area ratio", citation=_B17C)])
