"""Regional figures: the donor catchments on a map of the region, and the signatures (or index flood and growth
factor) transferred to the site with their donor bands."""

from __future__ import annotations

import math
from typing import Any, Mapping

from aquascope_core.deliverables.figures_base import (FigureDataMissing, FigureMaker, counted, figure_legend, numbers, plain_log,
                                                      unit_label)
from aquascope_core.deliverables.figures_site import local_km
from aquascope_core.deliverables.style import colour

__all__ = ["MAKERS", "transferred_quantities"]


def donors_map(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    target = payload.get("target") or {}
    lat0, lon0 = target.get("lat"), target.get("lon")
    cands = [c for c in payload.get("candidates") or [] if isinstance(c, Mapping)
             and isinstance(c.get("lat"), (int, float)) and isinstance(c.get("lon"), (int, float))]
    if not isinstance(lat0, (int, float)) or not isinstance(lon0, (int, float)) or not cands:
        raise FigureDataMissing("the donors map needs the target's position and at least one candidate with a "
                                "position ('target', 'candidates')", argument="candidates")
    window = payload.get("area_window_km2") or []
    lo, hi = (window + [None, None])[:2]

    def inside(c: Mapping[str, Any]) -> bool:
        a = c.get("area_km2")
        return isinstance(a, (int, float)) and (lo is None or a >= lo) and (hi is None or a <= hi)

    fig, ax = new_figure(height=4.2, width=5.8)
    pts = [(c, *local_km(c["lat"], c["lon"], lat0, lon0)) for c in cands]
    extent = max(max(abs(x), abs(y)) for _c, x, y in pts) * 1.3 + 5
    amax = max(float(c.get("area_km2") or 1) for c in cands)
    placed: list[tuple[float, float]] = []
    km_per_pt = 2 * extent / (72 * 4.0)  # the axes are about 4 inches across
    for c, x, y in sorted(pts, key=lambda p: -p[2]):
        use = inside(c)
        size = 30 + 250 * math.sqrt(float(c.get("area_km2") or 1) / amax)
        ax.scatter([x], [y], s=size, color=colour("blue") if use else "white",
                   edgecolor=colour("blue") if use else colour("grey"), linewidth=1.0, alpha=0.85, zorder=4)
        # the first of a few places beside the marker that no earlier label holds
        for dx, dy, ha in ((9, -2, "left"), (9, -28, "left"), (-9, -2, "right"), (-9, -28, "right"), (9, 26, "left"),
                           (-9, 26, "right")):
            lx, ly = x + dx * km_per_pt, y + dy * km_per_pt
            left = lx - (45 if ha == "right" else 0) * km_per_pt
            if all(abs(left - px) > 48 * km_per_pt or abs(ly - py) > 24 * km_per_pt for px, py in placed):
                break
        placed.append((left, ly))
        ax.annotate(f"{c.get('id')}\n{float(c.get('area_km2') or 0):,.0f} km²", xy=(x, y), xytext=(dx, dy),
                    textcoords="offset points", fontsize=6.8, zorder=5, ha=ha, va="center")
    ax.plot([0], [0], "*", color=colour("vermilion"), markersize=15, markeredgecolor="black", markeredgewidth=0.6,
            zorder=6)
    area = target.get("area_km2")
    ax.annotate(f"the site\n{area:,.0f} km²" if isinstance(area, (int, float)) else "the site", xy=(0, 0),
                xytext=(-8, 8), textcoords="offset points", ha="right", fontsize=7.5, fontweight="bold")
    reach = payload.get("reach_km")
    if isinstance(reach, (int, float)) and reach < extent * 1.4:
        from matplotlib.patches import Circle

        ax.add_patch(Circle((0, 0), reach, fill=False, linestyle="--", linewidth=0.8, edgecolor=colour("grey")))
    ax.scatter([], [], s=60, color=colour("blue"), label="donor candidate within the area window")
    ax.scatter([], [], s=60, color="white", edgecolor=colour("grey"), label="outside the area window")
    ax.set_xlim(-extent, extent)
    ax.set_ylim(-extent, extent)
    ax.set_aspect("equal")
    ax.set_xlabel("km east of the site")
    ax.set_ylabel("km north of the site")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1, fontsize=7.5)
    note = f"{counted(len(cands), 'gauged catchment')} with a usable daily record; marker area grows with catchment area"
    if lo is not None and hi is not None:
        note += f"; area window {lo:,.0f}-{hi:,.0f} km²"
    return fig, note


def transferred_quantities(payload: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """(label, estimate entry) of every transferred quantity with an estimate, in the payload's order."""
    out = []
    labels = payload.get("labels") or {}
    est = payload.get("estimates")
    if isinstance(est, Mapping):
        order = list(payload.get("quantities") or list(est))
        # the mean first, then the flow duration quantiles from high flows (Q5) to low (Q95)
        order.sort(key=lambda q: (0, 0) if q == "mean_flow" else
                   ((1, int(q[1:])) if q[:1] == "q" and q[1:].isdigit() else (2, 0)))
        for q in order:
            e = est.get(q)
            if isinstance(e, Mapping) and e.get("ok", True) and isinstance(e.get("estimate"), (int, float)):
                out.append((str(labels.get(q, q)).split(" (")[0], e))
    for key, label in (("index_flood", "index flood"), ("growth_factor", "growth factor")):
        e = payload.get(key)
        if isinstance(e, Mapping) and e.get("ok", True) and isinstance(e.get("estimate"), (int, float)):
            out.append((label, e))
    return out


def signatures_band(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    items = transferred_quantities(payload)
    if not items:
        raise FigureDataMissing("the transferred signatures figure needs at least one estimate with its band "
                                "('estimates' or 'index_flood')", argument="estimates")
    groups: dict[str, list[tuple[str, Mapping[str, Any]]]] = {}
    for label, e in items:
        groups.setdefault(str(e.get("unit") or payload.get("unit") or ""), []).append((label, e))
    ratios = [max(1, len(g)) for g in groups.values()]
    fig, axes = new_figure(1, len(groups), height=3.6, squeeze=False, gridspec_kw={"width_ratios": ratios})
    for ax, (unit, rows) in zip(axes[0], groups.items()):
        for i, (label, e) in enumerate(rows):
            band = e.get("band") or {}
            lo, hi = band.get("low"), band.get("high")
            if isinstance(lo, (int, float)) and isinstance(hi, (int, float)):
                ax.plot([i, i], [lo, hi], color=colour("blue"), linewidth=6, alpha=0.35, solid_capstyle="butt",
                        label="donor band" if i == 0 else None)
            dv = [d.get("scaled_value") for d in e.get("donors") or [] if isinstance(d, Mapping)]
            dv = [v for v in numbers(dv) if math.isfinite(v)]
            if dv:
                ax.plot([i + 0.18] * len(dv), dv, "o", color=colour("grey"), markersize=3.2,
                        label="each donor, scaled to the site" if i == 0 else None)
            ax.plot([i], [e["estimate"]], "D", color=colour("vermilion"), markersize=6, markeredgecolor="black",
                    markeredgewidth=0.5, label="estimate at the site" if i == 0 else None, zorder=5)
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels([lab for lab, _ in rows], rotation=35 if len(rows) > 3 else 0, ha="right" if len(rows) > 3
                           else "center")
        ax.set_xlim(-0.6, len(rows) - 0.4)
        vals = [e["estimate"] for _l, e in rows]
        if unit not in ("dimensionless", "") and min(vals) > 0 and max(vals) / min(vals) > 20:
            plain_log(ax)
        ax.set_ylabel(unit_label(unit, "Flow" if unit not in ("dimensionless", "") else "Factor") if unit
                      not in ("dimensionless", "") else "Value (dimensionless)")
        ax.grid(axis="x", visible=False)
    figure_legend(fig, list(axes[0]))
    band = (items[0][1].get("band") or {}).get("quantiles")
    note = f"{payload.get('n_donors', '?')} donor catchments"
    if isinstance(band, list) and len(band) == 2:
        note += f"; bands span the donors' {band[0] * 100:g} % to {band[1] * 100:g} % quantiles"
    rl = payload.get("return_level")
    env = payload.get("envelope") or {}
    if isinstance(rl, (int, float)):
        note += (f"; the {payload.get('return_period', ''):g}-year flood {rl:,.0f} {unit_label(payload.get('unit'))}"
                 if isinstance(payload.get("return_period"), (int, float)) else "")
        if isinstance(env.get("low"), (int, float)):
            note += f" ({env['low']:,.0f}-{env['high']:,.0f})"
    return fig, note


MAKERS = [
    FigureMaker("donors_map", "Donor catchments", donors_map, "regional"),
    FigureMaker("signatures_band", "Flows transferred to the site with the donors' bands", signatures_band,
                "regional"),
]
