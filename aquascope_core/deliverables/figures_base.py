"""What every figure maker shares: the maker record, the "payload lacks it" signal, small readers and axes.

A maker is a function ``make(payload, context) -> (figure, note)`` called inside the house style; it reads
only the payload (and the context: the step's resolved arguments, the study's parameters, the inventory), never
recomputes a method, and raises :class:`FigureDataMissing` naming what is missing before it draws anything.
``note`` (or ``""``) is a sentence the caption carries after the maker's title: the station, the period, the
plotting position.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from aquascope_core.errors import InsufficientDataError

__all__ = ["FigureMaker", "FigureDataMissing", "dependent", "need", "numbers", "finite_pairs", "station_label", "unit_label",
           "year_span", "gumbel_reduced", "plain_log", "set_return_period_axis", "legend_outside",
           "legend_columns", "figure_legend", "date_axis", "month_labels",
           "design_return_period", "column_bars", "MONTHS"]

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

Make = Callable[[Mapping[str, Any], Mapping[str, Any]], tuple[Any, str]]


class FigureDataMissing(InsufficientDataError):
    """The payload lacks what a figure needs: the figure is skipped with this reason, never drawn empty."""

    default_recovery = "Run the step again with a version of its tool that returns this field, or drop the figure."


@dataclass(frozen=True)
class FigureMaker:
    """One figure kind. ``folds`` maps a tool to the figure kind it replaces: the payload of a later step of that
    tool which depends on this figure's step is handed to the maker (``context["dependents"]``) and drawn into
    this figure (a trend test's line on the annual maxima), and that step's own figure of the replaced kind is
    then left out as shown here."""

    kind: str
    title: str          # the caption's first sentence when the plan gives none
    make: Make
    family: str = ""
    folds: Mapping[str, str | None] = field(default_factory=dict)
    # the caption's first sentence from the figure's context, in place of ``title`` (which names only the kind)
    headline: Callable[[Mapping[str, Any]], str] | None = None

    def caption(self, given: str | None, context: Mapping[str, Any]) -> str:
        """The caption's first sentence: the plan's own, else what this figure draws (``headline``), else the
        kind's title."""
        if given and given != self.title:
            return given
        return (self.headline(context) if self.headline else "") or self.title

    def __call__(self, payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
        return self.make(payload, context)


def dependent(context: Mapping[str, Any], tool: str) -> Mapping[str, Any] | None:
    """The payload of the first later step of ``tool`` folded into this figure (see FigureMaker.folds), or None."""
    for d in context.get("dependents") or []:
        if d.get("tool") == tool and isinstance(d.get("payload"), Mapping):
            return d["payload"]
    return None


def need(payload: Mapping[str, Any] | None, *paths: str, kind: str = "figure") -> list[Any]:
    """The values at dotted ``paths`` in ``payload``; :class:`FigureDataMissing` names the first one absent/empty."""
    out = []
    for path in paths:
        cur: Any = payload
        for part in path.split("."):
            if isinstance(cur, Mapping) and part in cur:
                cur = cur[part]
            elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
                cur = cur[int(part)]
            else:
                cur = None
                break
        if cur is None or (isinstance(cur, (list, tuple, dict, str)) and len(cur) == 0):
            raise FigureDataMissing(f"the {kind} figure needs {path!r} in the step's payload, which lacks it",
                                    argument=path, value=None)
        out.append(cur)
    return out


def numbers(values: Sequence[Any]) -> list[float]:
    """Floats, with None and non-numbers as NaN (so gaps stay gaps)."""
    out = []
    for v in values:
        try:
            f = float(v)
        except (TypeError, ValueError):
            f = math.nan
        out.append(f)
    return out


def finite_pairs(xs: Sequence[Any], ys: Sequence[Any]) -> tuple[list[Any], list[float]]:
    px, py = [], []
    for x, y in zip(xs, numbers(ys)):
        if math.isfinite(y):
            px.append(x)
            py.append(y)
    return px, py


def station_label(payload: Mapping[str, Any]) -> str:
    """'Flat Brook near Flatbrookville NJ (USGS 01440000)' from the payload's station block, or ''."""
    st = payload.get("station") if isinstance(payload, Mapping) else None
    if not isinstance(st, Mapping):
        return ""
    name = st.get("name") or st.get("station_id") or ""
    sid = st.get("station_id")
    if sid and sid != name:
        agency = _agency(str(st.get("source") or ""), str(sid))
        if not agency and not re.search(r"\d", str(sid)):  # a word id (au_saumon) is the catalogue's alias, not a number
            return str(name)
        return f"{name} ({agency + ' ' if agency else ''}{sid})"
    return str(name)


_USGS_SOURCES = {"usgs", "usgs_live", "wymt_2022"}


def _agency(source: str, station_id: str) -> str:
    """The agency whose number a station id is ('USGS'), not the key of the source that held its record
    (the catalogue, a published series): a USGS site number is 8 to 15 digits."""
    if source.lower() in _USGS_SOURCES or (re.fullmatch(r"\d{8,15}", station_id) and source.lower() != "upload"):
        return "USGS"
    return ""


def counted(n: int, word: str, plural: str | None = None) -> str:
    """'1 station', '23 stations', '1,070 samples': a count with its noun in the right number."""
    return f"{n:,} {word if n == 1 else (plural or word + 's')}"


def unit_label(unit: Any, quantity: str = "") -> str:
    u = str(unit or "").strip()
    pretty = {"m3/s": "m³/s", "ft3/s": "ft³/s", "km2": "km²", "hm3": "hm³", "m3": "m³", "degC": "°C",
              "mm/d": "mm/day", "ug/L": "µg/L"}.get(u, u)
    if quantity:
        return f"{quantity} ({pretty})" if pretty else quantity
    return pretty


def year_span(years: Sequence[Any]) -> str:
    ys = [int(y) for y in years if y is not None]
    return f"{min(ys)}-{max(ys)}" if ys else ""


def gumbel_reduced(T: Any) -> Any:
    """The Gumbel reduced variate -ln(-ln(1 - 1/T)) of return period(s) T (numpy in, numpy out)."""
    import numpy as np

    T = np.asarray(T, dtype=float)
    return -np.log(-np.log(1.0 - 1.0 / T))


def set_return_period_axis(ax: Any, t_max: float, t_min: float = 1.01) -> None:
    """A Gumbel-scaled x axis labelled in return periods (years) and annual exceedance probability on top."""
    ticks = [t for t in (1.25, 2, 5, 10, 25, 50, 100, 200, 500, 1000, 10000) if t_min <= t <= t_max * 1.05]
    ax.set_xticks(list(gumbel_reduced(ticks)))
    ax.set_xticklabels([f"{t:g}" for t in ticks])
    ax.set_xlim(float(gumbel_reduced(t_min)), float(gumbel_reduced(t_max * 1.1)))
    ax.set_xlabel("Return period (years), Gumbel scale")
    top = ax.secondary_xaxis("top")
    top.set_xticks(list(gumbel_reduced(ticks)))
    top.set_xticklabels([f"{100.0 / t:.3g}" for t in ticks])
    top.set_xlabel("Annual exceedance probability (%)")
    top.tick_params(labelsize=7)


def plain_log(ax: Any, axis: str = "y") -> None:
    """A log scale on ``axis`` labelled 0.1, 1, 10, 200 (not 10^-1, 2 x 10^2)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

    fmt = FuncFormatter(lambda v, _pos: f"{v:,.10g}" if v >= 1 else f"{v:.3g}")
    target = ax.yaxis if axis == "y" else ax.xaxis
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    target.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    target.set_major_formatter(fmt)
    target.set_minor_locator(NullLocator())  # the 1-2-5 majors are enough; minor ticks cost a text object each


def legend_columns(labels: Sequence[str], width_chars: int = 96) -> int:
    """How many legend columns fit across the page for these labels (at the legend's 8-point text)."""
    longest = max((len(str(lab)) for lab in labels), default=1) + 6
    return max(1, min(len(labels), 3, width_chars // longest))


def legend_outside(ax: Any, *, ncol: int | None = None, **kw: Any) -> None:
    """A legend below the axes (never over the data), as many columns as fit; no-op when nothing is labelled."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.2),
              ncol=min(ncol, legend_columns(labels)) if ncol else legend_columns(labels), **kw)


def figure_legend(fig: Any, axes: Sequence[Any]) -> None:
    """One legend below all the panels of a figure (labels gathered from every axes, first one kept)."""
    seen: dict[str, Any] = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(lab, h)
    if seen:
        fig.legend(list(seen.values()), list(seen), loc="outside lower center", ncol=legend_columns(list(seen)))


def date_axis(ax: Any, maxticks: int = 8) -> None:
    """Dates on the x axis labelled concisely (years, or months within a year), never crowded."""
    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter

    locator = AutoDateLocator(minticks=3, maxticks=maxticks)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))


def month_labels(ax: Any, months: Sequence[int] = tuple(range(1, 13))) -> None:
    ax.set_xticks(list(months))
    ax.set_xticklabels([MONTHS[(m - 1) % 12] for m in months])
    ax.set_xlabel("Month")


def design_return_period(context: Mapping[str, Any]) -> float | None:
    """The return period the study asks for (its parameters), if any."""
    params = context.get("params") or {}
    for key in ("return_period", "design_return_period"):
        v = params.get(key)
        if isinstance(v, (int, float)) and v > 1:
            return float(v)
    return None


def column_bars(ax: Any, x: Sequence[float], heights: Sequence[float], colours: Sequence[str], width: float) -> None:
    """Bars from 0 to each height, centred on ``x`` (numbers: date2num for dates), as one compound path per colour.

    ``ax.bar`` makes a Rectangle per bar, each measured for the data limits and drawn on its own: a monthly
    series of 30 years is 360 artists. Here a colour is one path (a handful of elements in the SVG), and the data
    limits take the bars' corners in one call. Non-finite heights are left out."""
    import numpy as np
    from matplotlib.collections import PathCollection
    from matplotlib.path import Path

    xs = np.asarray(x, dtype=float)
    hs = np.asarray(heights, dtype=float)
    keep = np.isfinite(xs) & np.isfinite(hs)
    if not keep.any():
        return
    xs, hs = xs[keep], hs[keep]
    cs = [c for c, k in zip(colours, keep) if k]
    half = width / 2.0
    one = np.array([Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY], dtype=np.uint8)
    paths, faces = [], []
    for c in dict.fromkeys(cs):
        pick = np.array([k == c for k in cs])
        xc, hc = xs[pick], hs[pick]
        zero = np.zeros_like(xc)
        verts = np.stack([np.column_stack([xc - half, zero]), np.column_stack([xc - half, hc]),
                          np.column_stack([xc + half, hc]), np.column_stack([xc + half, zero]),
                          np.column_stack([xc - half, zero])], axis=1).reshape(-1, 2)
        paths.append(Path(verts, np.tile(one, len(xc))))
        faces.append(c)
    ax.add_collection(PathCollection(paths, facecolors=faces, edgecolors="none", linewidths=0), autolim=False)
    ax.update_datalim(np.array([[xs.min() - half, min(0.0, float(hs.min()))],
                                [xs.max() + half, max(0.0, float(hs.max()))]]))
    ax.autoscale_view()
