"""Climate figures: the monthly climate of evapotranspiration (ET0 or PET by calendar month) and the crop water
demand by month of the season."""

from __future__ import annotations

from typing import Any, Mapping

from aquascope_core.deliverables.figures_base import (MONTHS, FigureDataMissing, FigureMaker, legend_outside,
                                                      month_labels, need, numbers, station_label)
from aquascope_core.deliverables.style import colour

__all__ = ["MAKERS"]

_LABEL = {"record": "PET of the record", "oudin": "Oudin PET", "hargreaves_samani": "Hargreaves-Samani ET0",
          "fao56_penman_monteith": "FAO-56 Penman-Monteith ET0 (temperature only)"}


def monthly_climate(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    from aquascope_core.deliverables.style import new_figure

    months, per_day = need(payload, "by_month.month", "by_month.mean_mm_per_day", kind="monthly climate")
    vals = numbers(per_day)
    if len(vals) != len(months):
        raise FigureDataMissing("the monthly climate figure needs one mean per month", argument="by_month")
    method = str(payload.get("method") or (payload.get("et0") or {}).get("et0_method") or "")
    label = _LABEL.get(method, method.replace("_", " ") or "evapotranspiration")
    fig, ax = new_figure(height=3.2)
    ax.bar(months, vals, color=colour("orange"), edgecolor=colour("vermilion"), linewidth=0.5,
           label=f"mean daily {label}")
    month_labels(ax)
    ax.set_ylabel("Evapotranspiration (mm/day)")
    legend_outside(ax)
    annual = payload.get("mean_annual_mm")
    period = payload.get("period") or {}
    span = f"{str(period.get('start', ''))[:4]}-{str(period.get('end', ''))[:4]}" if period else ""
    note = ", ".join(p for p in (station_label(payload), span) if p and p != "-")
    if isinstance(annual, (int, float)):
        note += f"; mean annual total {annual:,.0f} mm"
    return fig, note


def crop_demand(payload: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[Any, str]:
    import numpy as np

    from aquascope_core.deliverables.style import new_figure

    bm = need(payload, "by_month", kind="crop demand")[0]
    months = list(bm.get("month") or [])
    if not months:
        raise FigureDataMissing("the crop demand figure needs the season's months ('by_month.month')",
                                argument="by_month.month")
    series = [("etc_mm", "crop evapotranspiration ETc", colour("green")),
              ("effective_rainfall_mm", "effective rainfall", colour("sky")),
              ("net_mm", "net irrigation demand", colour("orange")),
              ("gross_mm", "gross irrigation demand", colour("vermilion"))]
    present = [(k, lab, c) for k, lab, c in series if len(bm.get(k) or []) == len(months)]
    if not present:
        raise FigureDataMissing("the crop demand figure needs ETc, rainfall or demand by month", argument="by_month")
    fig, ax = new_figure(height=3.4)
    x = np.arange(len(months))
    w = 0.8 / len(present)
    for i, (k, lab, c) in enumerate(present):
        ax.bar(x - 0.4 + w * (i + 0.5), numbers(bm[k]), width=w, color=c, label=lab, edgecolor="white", linewidth=0.3)
    if len(bm.get("et0_mm") or []) == len(months):
        ax.plot(x, numbers(bm["et0_mm"]), "o--", color="black", markersize=3.5, linewidth=0.9,
                label="reference evapotranspiration ET0")
    ax.set_xticks(x)
    ax.set_xticklabels([MONTHS[(int(m) - 1) % 12] for m in months])
    ax.set_xlabel("Month of the season")
    ax.set_ylabel("Depth per month (mm)")
    legend_outside(ax, ncol=2)
    crop = payload.get("label") or payload.get("crop") or "the crop"
    note = f"{crop}, planted {payload.get('planting', '')}, mean over {payload.get('n_seasons', '?')} seasons"
    eff = payload.get("application_efficiency")
    if isinstance(eff, (int, float)):
        note += f"; gross demand at an application efficiency of {eff:.0%}"
    return fig, note


MAKERS = [
    FigureMaker("monthly_climate", "Evapotranspiration by month", monthly_climate, "climate"),
    FigureMaker("crop_demand", "Crop water demand by month", crop_demand, "climate"),
]
