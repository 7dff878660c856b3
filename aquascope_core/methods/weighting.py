"""Bulletin 17C chapter 8: an at-site and a regression estimate weighted by the inverse of their variances.

In log10 space, with V_s the at-site EMA variance of the log quantile and V_r the regression's variance of
prediction:

    log Q_w = (V_r log Q_s + V_s log Q_r) / (V_s + V_r),        V_w = V_s V_r / (V_s + V_r)

Three rows come back for every AEP - at-site, regression, weighted - so the reviewer sees what was weighted.

References
----------
England, J.F. Jr. et al. (2019) Bulletin 17C, USGS TM 4-B5, chapter 8, equations 8-1 and 8-2.
Cohn, T.A., Berenbrock, C., Kiang, J.E. and Mason, R.R. (2012) Calculating weighted estimates of peak streamflow
statistics. USGS Fact Sheet 2012-3038.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from scipy.stats import norm

from aquascope_core.errors import InputError
from aquascope_core.result import finish, resolved_parameters, source
from aquascope_core.verify import sig_text

__all__ = ["weighted_estimates"]

_B17C = ("England, J.F. Jr. et al. (2019) Guidelines for Determining Flood Flow Frequency, Bulletin 17C. "
         "U.S. Geological Survey Techniques and Methods 4-B5, chapter 8.")


def _num(name: str, v: Any, *, positive: bool = True) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise InputError.bad_value(name, v, "a number") from None
    if not math.isfinite(x) or (positive and x <= 0):
        raise InputError.bad_value(name, v, "a positive, finite number")
    return x


def weighted_estimates(aeps: Sequence[float], at_site: Sequence[float], at_site_variance: Sequence[float],
                       regression: Sequence[float], regression_variance: Sequence[float | None],
                       unit: str = "ft3/s", prediction: float = 0.90) -> dict[str, Any]:
    """Inverse-variance weighting of at-site and regression quantiles (flows, not logs) at each AEP.

    Variances are of the log10 quantile. An AEP whose regression variance is missing keeps the at-site row as
    its design value and says why (``weighted`` None). Each row carries its ``lower``/``upper`` at ``prediction``
    from its own variance (normal in log10).
    """
    params = resolved_parameters(weighted_estimates, (list(aeps), list(at_site), list(at_site_variance),
                                                      list(regression), list(regression_variance)),
                                 {"unit": unit, "prediction": prediction})
    n = len(aeps)
    if not (len(at_site) == len(at_site_variance) == len(regression) == len(regression_variance) == n) or n == 0:
        raise InputError.bad_value("aeps", list(aeps), "one at-site value, at-site variance, regression value and "
                                   "regression variance for every AEP (lists of equal, non-zero length)")
    z = float(norm.ppf(0.5 + float(prediction) / 2.0))

    def row(kind: str, logq: float, var: float) -> dict[str, Any]:
        sd = math.sqrt(var)
        return {"estimate": kind, "value": 10.0 ** logq, "log10_value": logq, "variance_log10": var,
                "lower": 10.0 ** (logq - z * sd), "upper": 10.0 ** (logq + z * sd)}

    out = []
    for a, qs, vs, qr, vr in zip(aeps, at_site, at_site_variance, regression, regression_variance):
        a = _num("aeps", a)
        ls, lr = math.log10(_num("at_site", qs)), math.log10(_num("regression", qr))
        vs = _num("at_site_variance", vs)
        entry: dict[str, Any] = {"aep": a, "return_period": 1.0 / a, "at_site": row("at-site", ls, vs)}
        if vr is None:
            entry.update(regression={"estimate": "regression", "value": 10.0 ** lr, "log10_value": lr,
                                     "variance_log10": None, "lower": None, "upper": None},
                         weighted=None, design="at-site",
                         reason="the regression gives no variance of prediction at this AEP: not weighted")
        else:
            vr = _num("regression_variance", vr)
            lw = (vr * ls + vs * lr) / (vs + vr)
            vw = vs * vr / (vs + vr)
            entry.update(regression=row("regression", lr, vr), weighted=row("weighted", lw, vw), design="weighted",
                         weight_at_site=vr / (vs + vr))
        out.append(entry)
    payload = {"method": "weighted_estimates", "ok": True, "unit": unit, "prediction": float(prediction),
               "rows": out, "basis": "Bulletin 17C chapter 8 inverse-variance weighting in log10",
               "summary": "; ".join(f"{e['return_period']:g}-year weighted {sig_text(e['weighted']['value'])} {unit}"
                                    for e in out if e.get("weighted") and e["aep"] in (0.01, 0.1))}
    return finish(payload, "weighted_estimates", params, [source("Bulletin 17C weighting", citation=_B17C)])
