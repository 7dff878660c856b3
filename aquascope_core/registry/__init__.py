"""The method registry: what each method needs before its number can be defended at a site.

``METHODS[id]`` is a :class:`MethodPrecondition`. The rows are declared once, one module per
family of methods (``registry/flood.py``, ``registry/drought.py``, ...), beside nothing else: the
numerics live in ``aquascope_core.methods`` and never consult the registry.

``assess_method(id, ctx)`` says whether the method is defensible, marginal or not defensible at a
site described by a :class:`SiteContext`, with the reason; ``sufficiency_table(ctx, problem=...)``
lists every relevant method, defensible first.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Iterable, Literal, Mapping

from aquascope_core.errors import InputError
from aquascope_core.verify import sig_text
from aquascope_core.families import collect

__all__ = [
    "label_of",
    "MethodPrecondition",
    "SiteContext",
    "METHODS",
    "FAMILIES",
    "assess_method",
    "sufficiency_table",
    "method",
    "SERIES",
]

Status = Literal["defensible", "marginal", "not_defensible"]

# The variable of a method that runs on whatever series a step gives it (trend tests).
SERIES = "series"
Resolution = Literal["instantaneous", "hourly", "daily", "monthly", "annual", "sample", "any"]

_RESOLUTION_RANK = {"instantaneous": 0, "hourly": 1, "daily": 2, "monthly": 3, "annual": 4}


@dataclass(frozen=True)
class MethodPrecondition:
    """What a method needs at a site.

    Attributes
    ----------
    id : the registry id; equals the function or tool name it stands for.
    label : the hydrologist's name for it, as a report prints it.
    variable : the variable whose record the method runs on (``discharge``, ``precipitation``,
        ``groundwater_level``, ...) or ``None`` when it runs on no site record (a regional method).
    min_years : record length at or above which the method is defensible.
    marginal_years : record length at or above which it is marginal (below: not defensible).
    resolution : the finest-grained resolution the method needs (``daily`` means daily or finer).
    max_area_km2 : catchment area above which the method is not defensible (``None``: no ceiling).
    max_return_period_factor : how far beyond the record length a return level may be quoted.
    min_donors : donor catchments needed (regional methods).
    needs : further variables that must be available at the site.
    tool : the catalogue tool that applies the method.
    problems : the problem kinds (playbook ids) the method serves.
    function : dotted path of the function in ``aquascope_core.methods`` that computes it.
    citation : where the method comes from.
    """

    id: str
    label: str
    variable: str | None
    citation: str
    function: str
    tool: str | None = None
    min_years: float | None = None
    marginal_years: float | None = None
    resolution: Resolution = "any"
    max_area_km2: float | None = None
    max_return_period_factor: float | None = None
    min_donors: int | None = None
    needs: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    notes: str = ""

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["needs"] = list(self.needs)
        out["problems"] = list(self.problems)
        return out


@dataclass
class SiteContext:
    """What the reconnaissance found at a site, in the terms the registry asks about.

    ``None`` means "not found out" (left to the run-time gates), which differs from 0 or an
    empty set ("looked, and there is none").
    """

    years_by_variable: dict[str, float] = field(default_factory=dict)
    resolution_by_variable: dict[str, str] = field(default_factory=dict)
    area_km2: float | None = None
    donors: int | None = None
    available: set[str] | None = None
    return_period: float | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "SiteContext":
        avail = data.get("available")
        return cls(
            years_by_variable={k: float(v) for k, v in (data.get("years_by_variable") or {}).items() if v is not None},
            resolution_by_variable=dict(data.get("resolution_by_variable") or {}),
            area_km2=data.get("area_km2"),
            donors=data.get("donors"),
            available=set(avail) if avail is not None else None,
            return_period=data.get("return_period"),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "years_by_variable": dict(self.years_by_variable),
            "resolution_by_variable": dict(self.resolution_by_variable),
            "area_km2": self.area_km2,
            "donors": self.donors,
            "available": sorted(self.available) if self.available is not None else None,
            "return_period": self.return_period,
        }


# Families whose rows make up the registry, each a module in this package with METHODS = [...].
FAMILIES = (
    "flood",
    "flows",
    "trends",
    "drought",
    "climate",
    "rainfall_runoff",
    "regionalisation",
    "supply",
    "water_quality",
    "regression",  # U.S. regional peak flows: NSS regression, weighting, transfer, daily-to-peak
)




METHODS: dict[str, MethodPrecondition] = collect(__name__, FAMILIES, "METHODS", "registry: method id")


def method(method_id: str) -> MethodPrecondition:
    """The registry row for ``method_id``; an :class:`InputError` naming the known ids otherwise."""
    try:
        return METHODS[method_id]
    except KeyError:
        raise InputError.bad_value("method", method_id, "a registry id, one of " + ", ".join(sorted(METHODS))) from None


def label_of(name: str) -> str:
    """The hydrologist's name of a registered method for client text (``gev_lmoments`` -> "Generalised extreme
    value distribution fitted by L-moments"); a name the registry does not hold reads with spaces for '_'."""
    row = METHODS.get(str(name))
    return row.label if row is not None else str(name).replace("_", " ")


def _as_context(ctx: SiteContext | Mapping[str, Any]) -> SiteContext:
    return ctx if isinstance(ctx, SiteContext) else SiteContext.from_dict(ctx)


def assess_method(method_id: str, ctx: SiteContext | Mapping[str, Any], *, variable: str | None = None) -> dict[str, Any]:
    """Whether ``method_id`` can be defended at the site ``ctx`` describes.

    Returns ``{"method", "label", "status", "reason", "tool"}`` with status ``defensible``,
    ``marginal`` or ``not_defensible``. What the context does not know (``None``) is not held
    against the method: the run-time gates decide it. A method declared on ``variable="series"``
    (a trend test, say) is judged on the record the step reads (``variable``), or on the site's
    longest record when the step names none.
    """
    row = method(method_id)
    ctx = _as_context(ctx)
    if row.variable == SERIES:
        chosen = variable or (max(ctx.years_by_variable, key=ctx.years_by_variable.get) if ctx.years_by_variable else None)
        row = replace(row, variable=chosen or "any record")
    out = {"method": row.id, "label": row.label, "tool": row.tool, "variable": row.variable}

    def verdict(status: Status, reason: str) -> dict[str, Any]:
        return {**out, "status": status, "reason": reason}

    if row.max_area_km2 is not None and ctx.area_km2 is not None and ctx.area_km2 > row.max_area_km2:
        return verdict("not_defensible", f"catchment area {ctx.area_km2:,.0f} km2 exceeds the method's ceiling of {row.max_area_km2:,.0f} km2")
    if ctx.available is not None:
        missing = [v for v in row.needs if v not in ctx.available]
        if missing:
            return verdict("not_defensible", "needs " + ", ".join(missing) + " at the site, which the inventory does not hold")
    if row.min_donors is not None and ctx.donors is not None and ctx.donors < row.min_donors:
        return verdict("not_defensible", f"{ctx.donors} donor catchment(s) found; the method needs at least {row.min_donors}")
    if row.variable is None:
        return verdict("defensible", "runs on no site record")
    years = ctx.years_by_variable.get(row.variable)
    if not years:
        return verdict("not_defensible", f"no {row.variable} record at the site")
    have = ctx.resolution_by_variable.get(row.variable)
    if row.resolution in _RESOLUTION_RANK and have in _RESOLUTION_RANK and _RESOLUTION_RANK[have] > _RESOLUTION_RANK[row.resolution]:
        return verdict("not_defensible", f"needs {row.resolution} {row.variable}; the record is {have}")
    lo = row.marginal_years if row.marginal_years is not None else row.min_years
    # the record's length as the inventory and the report's tables state it (2.67 years, not "3"), the variable in words
    held = f"{sig_text(years) if not float(years).is_integer() else int(years)} years of {row.variable.replace('_', ' ')}"
    if lo is not None and years < lo:
        return verdict("not_defensible", f"{held}; the method needs at least {lo:g} (defensible from {row.min_years:g})")
    if row.min_years is not None and years < row.min_years:
        return verdict("marginal", f"{held}: marginal (defensible from {row.min_years:g} years)")
    return verdict("defensible", held + (f" (at least {row.min_years:g} needed)" if row.min_years else ""))


_ORDER = {"defensible": 0, "marginal": 1, "not_defensible": 2}


def sufficiency_table(ctx: SiteContext | Mapping[str, Any], problem: str | None = None,
                      methods: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Every method that depends on the site (for ``problem`` when given) assessed there, defensible first.

    Methods that only apply to other methods' results (drought classes, return periods of a fit)
    are left out unless ``methods`` names them."""
    ctx = _as_context(ctx)
    # methods that apply to other methods' results (no site record, no donors) say nothing about the site
    ids = list(methods) if methods is not None else [
        m.id for m in METHODS.values()
        if (problem is None or not m.problems or problem in m.problems)
        and (m.variable is not None or m.min_donors is not None or m.needs)
    ]
    rows = [assess_method(i, ctx) for i in ids]
    return sorted(rows, key=lambda r: (_ORDER[r["status"]], ids.index(r["method"])))
