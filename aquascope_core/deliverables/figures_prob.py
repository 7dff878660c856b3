"""The normal-probability axis of frequency and duration plots, and the fitted curves drawn densely on it.

PeakFQ and Bulletin 17C draw a flood frequency curve against annual exceedance probability (AEP) on a normal
probability scale (a straight line is a log-normal), labelled in percent, with the return periods as a second
axis, and the discharge on a log scale. :class:`NormalProbabilityScale` is that scale as a matplotlib scale
(``ax.set_xscale("normal_probability")``; the data are probabilities in (0, 1), larger to the left), so the axes
object itself says what it is. :func:`dense_quantiles` evaluates a fitted distribution from its parameters at
many probabilities (a curve with no kinks between the table's quantiles); where the payload holds only a table
(a band's limits), :func:`smooth_through` joins the table's points monotonically in (normal score, log value),
never beyond the table's own probabilities.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

__all__ = ["NormalProbabilityScale", "SCALE", "AEP_RANGE", "dense_aeps", "dense_quantiles", "smooth_through",
           "aep_axis", "AEP_TICKS", "RETURN_PERIOD_TICKS"]

SCALE = "normal_probability"
AEP_RANGE = (0.995, 0.002)
AEP_TICKS = (0.995, 0.99, 0.95, 0.9, 0.8, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002)
RETURN_PERIOD_TICKS = (1.01, 1.25, 2, 5, 10, 25, 50, 100, 200, 500)
_EPS = 1e-9


def _z(p: Any) -> Any:
    """The normal score of the probability (the axis is then inverted: larger AEP to the left)."""
    import numpy as np
    from scipy.special import ndtri

    p = np.clip(np.asarray(p, dtype=float), _EPS, 1 - _EPS)
    return ndtri(p)


def _p(z: Any) -> Any:
    import numpy as np
    from scipy.special import ndtr

    return ndtr(np.asarray(z, dtype=float))


def _register() -> None:
    from matplotlib import scale as mscale
    from matplotlib.transforms import Transform

    class _Forward(Transform):
        input_dims = output_dims = 1

        def transform_non_affine(self, values: Any) -> Any:
            return _z(values)

        def inverted(self) -> Any:
            return _Inverse()

    class _Inverse(Transform):
        input_dims = output_dims = 1

        def transform_non_affine(self, values: Any) -> Any:
            return _p(values)

        def inverted(self) -> Any:
            return _Forward()

    class NormalProbability(mscale.ScaleBase):
        """Probabilities in (0, 1) on a normal-probability scale (exceedance: larger to the left)."""

        name = SCALE

        def __init__(self, *args: Any, **kwargs: Any) -> None:  # with or without the axis, by matplotlib version
            pass

        def get_transform(self) -> Any:
            return _Forward()

        def set_default_locators_and_formatters(self, axis: Any) -> None:
            from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

            axis.set_major_locator(FixedLocator(list(AEP_TICKS)))
            axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{100 * v:g}"))
            axis.set_minor_locator(NullLocator())

        def limit_range_for_scale(self, vmin: float, vmax: float, minpos: float) -> tuple[float, float]:
            return max(vmin, _EPS), min(vmax, 1 - _EPS)

    mscale.register_scale(NormalProbability)
    globals()["NormalProbabilityScale"] = NormalProbability


NormalProbabilityScale: Any = None


def ensure_scale() -> None:
    """Register the scale with matplotlib once per process."""
    if NormalProbabilityScale is None:
        _register()


def dense_aeps(hi: float = AEP_RANGE[0], lo: float = AEP_RANGE[1], n: int = 120) -> list[float]:
    """``n`` probabilities from ``hi`` down to ``lo``, evenly spaced in normal score (even on the drawn axis)."""
    import numpy as np

    return [float(p) for p in _p(np.linspace(float(_z(hi)), float(_z(lo)), n))]


def dense_quantiles(fit: Mapping[str, Any], aeps: Sequence[float]) -> list[float] | None:
    """The fitted distribution's quantiles at ``aeps`` from its parameters (LP3, GEV, Gumbel, log-normal), or None
    when the fit's parameters are not of a family known here (the caller then joins its table)."""
    import numpy as np
    from scipy.special import ndtri  # scipy.stats is not imported: it costs more than the figure

    from aquascope_core.methods.lmoments import pearson3_frequency_factor

    par = fit.get("parameters") or {}
    dist = str(fit.get("distribution") or "").lower()
    q = 1.0 - np.asarray(aeps, dtype=float)  # non-exceedance
    try:
        if dist == "lp3" and {"mean_log", "sd_log", "skew_log"} <= set(par):
            base = float(par.get("log_base") or 10.0)
            k = pearson3_frequency_factor(float(par["skew_log"]), q)
            out = base ** (float(par["mean_log"]) + float(par["sd_log"]) * k)
        elif dist == "gev" and {"xi", "alpha", "k"} <= set(par):
            xi, a, k = float(par["xi"]), float(par["alpha"]), float(par["k"])
            y = -np.log(q)
            out = xi - a * np.log(y) if abs(k) < 1e-9 else xi + a / k * (1 - y ** k)
        elif dist == "gumbel" and {"xi", "alpha"} <= set(par):
            out = float(par["xi"]) - float(par["alpha"]) * np.log(-np.log(q))
        elif dist in ("gumbel",) and {"loc", "scale"} <= set(par):
            out = float(par["loc"]) - float(par["scale"]) * np.log(-np.log(q))
        elif dist in ("lognormal", "ln2") and {"mu", "sigma"} <= set(par):
            out = np.exp(float(par["mu"]) + float(par["sigma"]) * ndtri(q))
        else:
            return None
    except (TypeError, ValueError):
        return None
    vals = [float(v) for v in np.asarray(out, dtype=float)]
    return vals if all(math.isfinite(v) for v in vals) else None


def smooth_through(aeps: Sequence[float], values: Sequence[float], n: int = 120) -> tuple[list[float], list[float]]:
    """(aeps, values) at ``n`` points joining the table's points monotonically in (normal score, log value), over the
    table's own range of probabilities only (nothing extrapolated). Non-positive or missing values are left out."""
    import numpy as np

    pts = sorted((float(_z(p)), math.log(v)) for p, v in zip(aeps, values)
                 if isinstance(v, (int, float)) and math.isfinite(v) and v > 0 and 0 < p < 1)
    if len(pts) < 2:
        return [], []
    zs, ls = zip(*pts)
    if len(set(zs)) < len(zs):
        return [float(_p(z)) for z in zs], [math.exp(v) for v in ls]
    grid = np.linspace(zs[0], zs[-1], n)
    vals = np.exp(pchip(zs, ls, grid))
    return [float(p) for p in _p(grid)], [float(v) for v in vals]


def pchip(x: Sequence[float], y: Sequence[float], at: Any) -> Any:
    """The monotone piecewise cubic Hermite interpolant through (x, y) (x increasing) at ``at`` within [x0, xn].

    Fritsch & Carlson (1980, SIAM J. Numer. Anal. 17(2)) with Fritsch & Butland's (1984) weighted harmonic mean of
    the neighbouring slopes at interior points (zero where they change sign) and the shape-preserving three-point
    formula at the ends; the same interpolant as scipy's PchipInterpolator, without importing scipy.interpolate
    (about a third of a CPU second, more than the figure it is for)."""
    import numpy as np

    x, y, at = np.asarray(x, dtype=float), np.asarray(y, dtype=float), np.asarray(at, dtype=float)
    h = np.diff(x)
    m = np.diff(y) / h
    d = np.empty_like(y)
    if len(x) == 2:
        d[:] = m[0]
    else:
        w1, w2 = 2 * h[1:] + h[:-1], h[1:] + 2 * h[:-1]
        same = m[:-1] * m[1:] > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            d[1:-1] = np.where(same, (w1 + w2) / (w1 / m[:-1] + w2 / m[1:]), 0.0)
        d[0] = _pchip_end(h[0], h[1], m[0], m[1])
        d[-1] = _pchip_end(h[-1], h[-2], m[-1], m[-2])
    k = np.clip(np.searchsorted(x, at, side="right") - 1, 0, len(x) - 2)
    t = (at - x[k]) / h[k]
    t2, t3 = t * t, t * t * t
    return ((2 * t3 - 3 * t2 + 1) * y[k] + (t3 - 2 * t2 + t) * h[k] * d[k] + (-2 * t3 + 3 * t2) * y[k + 1]
            + (t3 - t2) * h[k] * d[k + 1])


def _pchip_end(h0: float, h1: float, m0: float, m1: float) -> float:
    d = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1)
    if math.copysign(1.0, d) != math.copysign(1.0, m0) or m0 == 0:
        return 0.0
    if math.copysign(1.0, m0) != math.copysign(1.0, m1) and abs(d) > abs(3 * m0):
        return 3 * m0
    return d


def aep_axis(ax: Any, hi: float = AEP_RANGE[0], lo: float = AEP_RANGE[1], *, return_periods: bool = True,
             label: str = "Annual exceedance probability (%)") -> None:
    """The x axis as PeakFQ draws it: AEP on a normal-probability scale from ``hi`` to ``lo`` (percent labels) and,
    on top, the return periods in years."""
    ensure_scale()
    ax.set_xscale(SCALE)
    ax.set_xlim(hi, lo)
    ticks = [t for t in AEP_TICKS if lo <= t <= hi]
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{100 * t:g}" for t in ticks])
    ax.set_xlabel(label + ", normal-probability scale")
    ax.grid(True, axis="x", which="major")
    if return_periods:
        # a twin on the same scale (a secondary axis assumes a linear or log parent)
        top = ax.twiny()
        top.set_xscale(SCALE)
        top.set_xlim(hi, lo)
        rps = [t for t in RETURN_PERIOD_TICKS if lo <= 1.0 / t <= hi]
        top.set_xticks([1.0 / t for t in rps])
        top.set_xticklabels([f"{t:g}" for t in rps])
        top.set_xlabel("Return period (years)")
        top.tick_params(labelsize=7)
        top.grid(False)
        for side in ("left", "right", "bottom"):
            top.spines[side].set_visible(False)
        top.set_zorder(ax.get_zorder() - 1)
        ax.patch.set_visible(False)
