"""The site map: the site, the stations within reach and what each holds, a distance scale and a north arrow.

Drawn on a local equirectangular plane (kilometres east and north of the site), which is true to a fraction of a
percent within the tens of kilometres a reconnaissance searches. No basemap: none can be drawn offline.
"""

from __future__ import annotations

import math
import textwrap
from typing import Any, Mapping, Sequence

from aquascope_core.deliverables.figures_base import FigureDataMissing, FigureMaker, counted
from aquascope_core.deliverables.style import colour

__all__ = ["MAKERS", "local_km", "holds", "MAX_LISTED"]

MAX_LISTED = 8  # stations numbered and described beside the map; the rest are dots


def local_km(lat: float, lon: float, lat0: float, lon0: float) -> tuple[float, float]:
    """(east, north) in km of (lat, lon) from (lat0, lon0)."""
    k = math.pi / 180 * 6371.0
    return (lon - lon0) * k * math.cos(math.radians(lat0)), (lat - lat0) * k


_SHORT = {"peak_discharge": "peaks", "annual_max_discharge": "annual maxima", "potential_evapotranspiration": "PET",
          "groundwater_level": "groundwater level", "air_temperature": "air temperature"}


def holds(station: Mapping[str, Any]) -> str:
    """What a station holds for the study, in a few words: 'daily discharge 80 y; annual peaks (metadata only)'."""
    parts = []
    for v in station.get("variables") or []:
        if not isinstance(v, Mapping):
            continue
        name = str(v.get("variable") or "")
        res = v.get("resolution") or ""
        name = _SHORT.get(name, name.replace("_", " "))
        txt = name if res in ("annual", "") or name == "peaks" else f"{res} {name}"
        yrs = v.get("years")
        if isinstance(yrs, (int, float)) and not isinstance(yrs, bool):
            # the record's length as the report's tables print it (2.67 years, not "3 y"; 80.3, not 80)
            from aquascope_core.verify import sig_text

            txt += f" {int(yrs) if float(yrs).is_integer() else sig_text(float(yrs))} y"
        if not (v.get("offline") or v.get("usable")):
            txt += ", not held"
        parts.append(txt)
    return "; ".join(parts) or "no record listed"


def _held(station: Mapping[str, Any]) -> bool:
    return any(isinstance(v, Mapping) and (v.get("usable") or v.get("offline"))
               for v in station.get("variables") or [])


def _stations(inventory: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    out = []
    for s in inventory.get("stations") or []:
        if isinstance(s, Mapping) and isinstance(s.get("lat"), (int, float)) and isinstance(s.get("lon"), (int, float)):
            out.append(s)
    return out


def _nice_scale(span_km: float) -> float:
    target = span_km / 3
    for step in (0.5, 1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500):
        if step >= target:
            return float(step)
    return 1000.0


def site_map(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from matplotlib.patches import Circle, FancyArrow

    from aquascope_core.deliverables.style import new_figure

    # a workspace's inventory holds the reconnaissance under "recon"; a bare reconnaissance is taken as it is
    if isinstance(payload.get("recon"), Mapping) and payload["recon"].get("stations") is not None:
        payload = payload["recon"]
    point = payload.get("point") or payload.get("site") or {}
    lat0, lon0 = point.get("lat"), point.get("lon")
    if not isinstance(lat0, (int, float)) or not isinstance(lon0, (int, float)):
        raise FigureDataMissing("the site map needs the site's position ('point' with 'lat' and 'lon' in the "
                                "inventory)", argument="point")
    stations = sorted(_stations(payload), key=lambda s: (not _held(s), s.get("distance_km") or 0.0))
    radius = payload.get("radius_km")
    listed = stations[:MAX_LISTED]
    fig, (ax, side) = new_figure(1, 2, height=3.9, gridspec_kw={"width_ratios": [1.0, 1.05]})
    xy = [local_km(s["lat"], s["lon"], lat0, lon0) for s in stations]
    extent = max([abs(c) for p in xy for c in p] + [float(radius or 0), 1.0])
    extent *= 1.08
    if isinstance(radius, (int, float)) and radius > 0:
        ax.add_patch(Circle((0, 0), radius, fill=False, linestyle="--", linewidth=0.8, edgecolor=colour("grey")))
        ax.annotate(f"{radius:g} km search radius", xy=(0, radius), xytext=(0, -9), textcoords="offset points",
                    ha="center", fontsize=7, color="#555555")
    others = [p for s, p in zip(stations, xy) if s not in listed]
    if others:
        ax.plot([p[0] for p in others], [p[1] for p in others], ".", color=colour("grey"), markersize=4,
                label="other stations (not described)")
    for i, (s, (x, y)) in enumerate(zip(listed, xy[:len(listed)]), start=1):
        held = _held(s)
        ax.plot([x], [y], "o", markersize=7, color=colour("blue") if held else "white",
                markeredgecolor=colour("blue") if held else colour("grey"), markeredgewidth=1.0, zorder=4)
        ax.annotate(str(i), xy=(x, y), xytext=(4, 3), textcoords="offset points", fontsize=7.5, zorder=5,
                    fontweight="bold" if held else "normal")
    ax.plot([0], [0], "*", color=colour("vermilion"), markersize=14, markeredgecolor="black", markeredgewidth=0.6,
            zorder=6, label="the site")
    ax.plot([], [], "o", color=colour("blue"), label="record held")
    ax.plot([], [], "o", color="white", markeredgecolor=colour("grey"), label="listed only")
    ax.set_xlim(-extent, extent)
    ax.set_ylim(-extent, extent)
    ax.set_aspect("equal")
    ax.set_xlabel("km east of the site")
    ax.set_ylabel("km north of the site")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize=7)
    # distance scale (bottom right) and north arrow (top right)
    bar = _nice_scale(extent)
    x1, yb = extent * 0.92, -extent * 0.9
    ax.plot([x1 - bar, x1], [yb, yb], color="black", linewidth=2.5, solid_capstyle="butt")
    ax.text(x1 - bar / 2, yb + extent * 0.03, f"{bar:g} km", ha="center", va="bottom", fontsize=7.5)
    ax.add_patch(FancyArrow(extent * 0.85, extent * 0.68, 0, extent * 0.18, width=extent * 0.012,
                            head_width=extent * 0.07, head_length=extent * 0.07, color="black",
                            length_includes_head=True))
    ax.text(extent * 0.85, extent * 0.9, "N", ha="center", va="bottom", fontsize=9, fontweight="bold")
    # what each station holds
    side.axis("off")
    lines = []
    for i, s in enumerate(listed, start=1):
        name = str(s.get("name") or s.get("station_id") or "")
        if len(name) > 34:
            name = name[:33] + "…"
        dist = s.get("distance_km")
        head = f"{i}. {s.get('station_id') or ''} {name}".strip()
        sub = (f"{dist:.1f} km; " if isinstance(dist, (int, float)) else "") + holds(s)
        lines.append((head, textwrap.wrap(sub, 56)[:2], _held(s)))
    if not lines:
        side.text(0, 1, "No station within reach.", va="top", fontsize=8.5, transform=side.transAxes)
    y = 1.0
    rows = sum(1 + len(sub) for _h, sub, _held_ in lines)
    row = min(0.055, 1.0 / max(rows, 1))
    for head, sub, held in lines:
        side.text(0, y, head, va="top", fontsize=7.5, fontweight="bold" if held else "normal",
                  transform=side.transAxes)
        y -= row
        for part in sub:
            side.text(0.04, y, part, va="top", fontsize=6.8, color="#404040", transform=side.transAxes)
            y -= row * 0.9
        y -= row * 0.25
    n_all = len(stations)
    note = f"the site ({lat0:.4f}, {lon0:.4f}) and {counted(n_all, 'station')} within reach"
    if n_all > len(listed):
        note += ", the most useful of them numbered and described"
    note += "; local plane in km, no basemap"
    return fig, note


MAKERS = [FigureMaker("site_map", "The site and the stations within reach", site_map, "site")]
