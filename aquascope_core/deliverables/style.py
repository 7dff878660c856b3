"""The house style of every figure: one set of rcParams, a colour-blind-safe palette, A4 sizes.

matplotlib is imported inside the functions only (each figure on an Agg canvas of its own), so that
importing this module (and the whole engine) never loads it.

    with house_style():
        fig, ax = new_figure()
        ax.plot(...)
        png, svg = save(fig)   # PNG at DPI, SVG with text kept as text (save(fig, ("png",)): PNG only)

Sizes are for a figure printed at the text width of an A4 page (16 cm, 6.3 in): 9-point text stays readable
when the picture is not scaled.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

__all__ = ["PALETTE", "COLOURS", "WIDTH_IN", "HEIGHT_IN", "DPI", "RC", "house_style", "new_figure", "save",
           "figure_spec", "FIGURE_FORMATS", "colour", "DROUGHT_CLASSES"]

# Okabe & Ito (2008) "Color Universal Design": distinguishable under the common colour-vision deficiencies.
COLOURS = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermilion": "#D55E00",
    "purple": "#CC79A7",
    "grey": "#8C8C8C",
}
# The order lines take: strong blue first, then the warm and the green, yellow last (weak on white).
PALETTE = ("blue", "vermilion", "green", "orange", "purple", "sky", "black", "yellow")

WIDTH_IN = 6.3    # 16 cm: the text width of an A4 page with 2.5 cm margins
HEIGHT_IN = 3.6
DPI = 200         # PNG resolution (the deliverables promise at least 150)

# The WMO (2012) SPI classes with a diverging brown-to-blue scale (colour-blind safe: it varies in lightness).
DROUGHT_CLASSES = (
    # (lower bound, upper bound, label, colour)
    (2.0, float("inf"), "extremely wet", "#01665E"),
    (1.5, 2.0, "very wet", "#35978F"),
    (1.0, 1.5, "moderately wet", "#80CDC1"),
    (-1.0, 1.0, "near normal", "#E0E0E0"),
    (-1.5, -1.0, "moderately dry", "#DFC27D"),
    (-2.0, -1.5, "severely dry", "#BF812D"),
    (float("-inf"), -2.0, "extremely dry", "#8C510A"),
)

RC: dict[str, Any] = {
    "figure.figsize": (WIDTH_IN, HEIGHT_IN),
    "figure.dpi": DPI,             # the layout is solved at the PNG's resolution, so its text metrics are reused
    "savefig.dpi": DPI,
    "savefig.bbox": None,          # the constrained layout already fits labels and outside legends: no 2nd draw
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 9.5,
    "axes.titleweight": "bold",
    "axes.labelsize": 9,
    "axes.grid": True,
    "axes.axisbelow": True,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "grid.color": "#D9D9D9",
    "grid.linewidth": 0.6,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "legend.frameon": True,
    "legend.framealpha": 0.9,
    "legend.edgecolor": "#BFBFBF",
    "lines.linewidth": 1.4,
    "lines.markersize": 4,
    "svg.fonttype": "none",      # text stays text in the SVG (searchable, small)
    "svg.hashsalt": "aquascope",  # stable ids: the same figure gives the same SVG bytes
    "path.simplify": True,
}


def colour(i: int | str) -> str:
    """The i-th colour of the palette (cycling), or a named one."""
    if isinstance(i, str):
        return COLOURS[i]
    return COLOURS[PALETTE[i % len(PALETTE)]]


@contextlib.contextmanager
def house_style() -> Iterator[Any]:
    """Apply the house rcParams for the figures drawn inside; yields the ``matplotlib`` module.

    Figures are made with :func:`new_figure` on an Agg canvas of their own, never through pyplot, so drawing
    neither switches the backend of a notebook or a GUI nor leaves figures open.
    """
    import matplotlib
    from cycler import cycler

    rc = dict(RC)
    rc["axes.prop_cycle"] = cycler(color=[colour(i) for i in range(len(PALETTE))])
    with matplotlib.rc_context(rc):
        yield matplotlib


def new_figure(nrows: int = 1, ncols: int = 1, *, height: float = HEIGHT_IN, width: float = WIDTH_IN,
               **kw: Any) -> tuple[Any, Any]:
    """A figure at page width in the house style (call inside :func:`house_style`)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout=kw.pop("layout", "constrained"))
    FigureCanvasAgg(fig)
    return fig, fig.subplots(nrows, ncols, squeeze=kw.pop("squeeze", True), **kw)


def _freeze_ticks(fig: Any) -> None:
    """Fix every axis's tick positions and labels at what its locator and formatter give for the final layout.

    Each draw asks every locator and formatter again (date locators walk calendar rules); the PNG and the SVG
    are drawn at the same size, so they show the same ticks: computed once here, after the layout is solved."""
    from matplotlib.ticker import FixedFormatter, FixedLocator, NullLocator

    axes = list(fig.axes)
    for ax in list(axes):
        axes += [c for c in getattr(ax, "child_axes", []) if c not in axes]
    for ax in axes:
        if getattr(ax, "_colorbar", None) is not None:
            continue  # a colorbar keeps its own locator
        for axis in (ax.xaxis, ax.yaxis):
            for which in ("major", "minor"):
                ticker = axis.major if which == "major" else axis.minor
                if isinstance(ticker.locator, (FixedLocator, NullLocator)) and isinstance(ticker.formatter,
                                                                                          FixedFormatter):
                    continue
                try:
                    locs = list(axis.get_majorticklocs() if which == "major" else axis.get_minorticklocs())
                    labels = ticker.formatter.format_ticks(locs)
                    offset = ticker.formatter.get_offset()
                except Exception:  # noqa: BLE001 - an axis that cannot say its ticks keeps its locator
                    continue
                fixed = FixedFormatter(labels)
                fixed.set_offset_string(offset)
                if which == "major":
                    axis.set_major_locator(FixedLocator(locs))
                    axis.set_major_formatter(fixed)
                else:
                    axis.set_minor_locator(FixedLocator(locs))
                    axis.set_minor_formatter(fixed)


FIGURE_FORMATS = ("png", "svg")


def save(fig: Any, formats: Any = FIGURE_FORMATS) -> tuple[bytes | None, bytes | None]:
    """The figure as (PNG at :data:`DPI`, SVG) bytes, each only if ``formats`` asks for it (else None).

    The layout is solved once and then the layout engine is removed (not left as a placeholder, which makes
    every ``savefig`` draw the whole figure once more before printing it), and the ticks are frozen, so each
    format is one rendering of the same laid-out figure.
    """
    import io

    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)
        fig.set_layout_engine(None)  # None, not "none": a placeholder engine still triggers a draw per savefig
        if fig.get_layout_engine() is not None:  # rcParams ask for an automatic layout: keep the solved one
            fig.set_layout_engine("none")
    _freeze_ticks(fig)
    png = svg = None
    if "png" in formats:
        buf = io.BytesIO()
        # zlib level 2: a third of the default's encoding time for files about a fifth larger
        fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": "aquascope"}, pil_kwargs={"compress_level": 2})
        png = buf.getvalue()
    if "svg" in formats:
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": "aquascope"})
        svg = buf.getvalue()
    return png, svg


def figure_spec(fig: Any) -> dict[str, Any]:
    """What a built figure plots, without laying it out or rendering it: per axes its title, axis labels and
    scales, the number of plotted marks (finite line points, collection offsets or vertices, patches, images)
    and the legend's entries. The gym scores a figure by this when it does not pay for the pixels."""
    import numpy as np

    def finite_rows(a: Any) -> int:
        try:
            arr = np.asarray(a, dtype=float)
        except (TypeError, ValueError):
            return len(a)
        if arr.ndim != 2 or not len(arr):
            return 0
        return int(np.isfinite(arr).all(axis=1).sum())

    axes = []
    for ax in fig.axes:
        marks = sum(finite_rows(ln.get_xydata()) for ln in ax.lines)
        for c in ax.collections:
            offsets = c.get_offsets()
            n = finite_rows(offsets) if len(offsets) > 1 else 0
            marks += n or sum(finite_rows(p.vertices) for p in c.get_paths())
        marks += len(ax.patches) + len(ax.images)
        legend = ax.get_legend()
        axes.append({"title": ax.get_title(), "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
                     "xscale": ax.get_xscale(), "yscale": ax.get_yscale(), "lines": len(ax.lines), "marks": marks,
                     "legend": [t.get_text() for t in legend.get_texts()] if legend is not None else []})
    legends = [t.get_text() for lg in getattr(fig, "legends", []) for t in lg.get_texts()]
    return {"axes": axes, "figure_legend": legends, "marks": sum(a["marks"] for a in axes)}
