"""The playbook engine: load the YAML playbooks, choose a branch, fill a study with no model.

A playbook (``playbooks/<id>.yaml``, shipped in the wheel as ``aquascope_core/_playbooks``) has
an intake (typed questions with defaults), branches (first match wins), declines (what it refuses
and the sentence it prints), caveats (plain, or ``{say, when}``), citations, and per branch the
methodology a report prints and the steps with their gates.

Conditions (``when``) and placeholders (``{{ ... }}``) see the reconnaissance extended with
``intake``, ``station`` (the nearest station holding the branch's variable), ``site`` and
``derived`` (``<variable>_years``, ``donors``, ``area_km2``, ``return_period_cap``,
``return_period_beyond_cap``, ``return_periods``, ``has_<variable>``, ``<variable>_modelled``,
``<variable>_end``, ``<variable>_end_year``, ``months_since_<variable>_end``; for a record that is a
table of samples by parameter, ``<variable>_parameters``, ``<variable>_sample_counts`` and
``<variable>_parameter_years``, lists largest first, so ``[3]`` is the fourth largest; for the site's own
catchment, ``nearest``, ``site_area_km2``, ``donors_for_area``, ``rainfall_runoff_gauge`` and
``flood_record_years``, see :func:`_site_derived`), and, once a branch is chosen, ``branch`` (its id and
label, which conditional caveats may test). Run-time references ``{{ result.sN.path }}`` are left in
the study for the runner.
"""

from __future__ import annotations

import copy
import logging
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

from aquascope_core import methodology
from aquascope_core.errors import DeclinedError, InputError, PlaybookError
from aquascope_core.paths import PathError, get_path
from aquascope_core.result import copy_tree

__all__ = [
    "playbook_dirs",
    "list_playbooks",
    "load",
    "part",
    "describe_playbook",
    "validate",
    "coerce_intake",
    "scope_for",
    "choose_branch",
    "plan",
    "plan_branch",
    "companions",
    "add_companion",
    "render",
    "condition_holds",
    "STANDARD_RETURN_PERIODS",
    "PLAN_KEYS",
]

log = logging.getLogger(__name__)

STANDARD_RETURN_PERIODS = (2, 5, 10, 25, 50, 100, 200, 500, 1000)
OPERATORS = ("==", "!=", ">=", "<=", ">", "<", "in", "not in", "exists", "not exists")
INTAKE_TYPES = ("int", "float", "choice", "list", "text", "bool")


def playbook_dirs() -> list[Path]:
    """Where playbooks are looked for: inside the installed package first, then the source tree."""
    here = Path(__file__).resolve().parent
    return [p for p in (here / "_playbooks", here.parent / "playbooks") if p.is_dir()]


@lru_cache(maxsize=None)
def _index() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for d in playbook_dirs():
        for f in sorted(d.glob("*.yaml")):
            found.setdefault(f.stem, f)
    return found


@lru_cache(maxsize=None)
def _load_cached(playbook_id: str) -> dict[str, Any]:
    import yaml

    path = _index().get(playbook_id)
    if path is None:
        raise PlaybookError(
            f"no playbook {playbook_id!r}; the playbooks are: {', '.join(sorted(_index())) or 'none found'}",
            argument="playbook", value=playbook_id)
    # libyaml's safe loader when the build has it: the same documents at an eighth of the pure-Python loader's
    # cost (the seven playbooks: 0.25 CPU s, a twentieth of a cold study)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)  # noqa: S506 - a safe loader
    errors = validate(data)
    if errors:
        raise PlaybookError(f"playbook {playbook_id} ({path}) does not validate: " + "; ".join(errors))
    return data


def load(playbook_id: str) -> dict[str, Any]:
    """The playbook as a dict (a copy: callers may change it)."""
    if not isinstance(playbook_id, str) or not playbook_id:
        raise InputError.bad_value("playbook", playbook_id, "a playbook id such as 'flood_risk'")
    return copy_tree(_load_cached(playbook_id))


def part(playbook_id: str, key: str, default: Any = None) -> Any:
    """One top-level field of the playbook (a copy of that field only: reading a playbook's keywords or intake
    need not copy its whole tree of branches)."""
    if not isinstance(playbook_id, str) or not playbook_id:
        raise InputError.bad_value("playbook", playbook_id, "a playbook id such as 'flood_risk'")
    return copy_tree(_load_cached(playbook_id).get(key, default))


def list_playbooks() -> list[dict[str, Any]]:
    """Every playbook: id, title, problem, summary, keywords, branch ids."""
    out = []
    for pid in sorted(_index()):
        pb = _load_cached(pid)
        out.append({"id": pid, "title": pb.get("title", pid), "problem": pb.get("problem", pid),
                    "summary": pb.get("summary", ""), "keywords": list(pb.get("keywords", [])),
                    "branches": [b["id"] for b in pb.get("branches", [])]})
    return out


def describe_playbook(playbook_id: str) -> dict[str, Any]:
    """A playbook in full, for a person or a model to read."""
    pb = load(playbook_id)
    return {
        "id": playbook_id,
        "title": pb.get("title"),
        "summary": pb.get("summary", ""),
        "problem": pb.get("problem"),
        "intake": pb.get("intake", []),
        "branches": [{"id": b["id"], "label": b.get("label", b["id"]), "when": b.get("when", []),
                      "variable": b.get("variable"), "steps": [s.get("tool") for s in b.get("steps", [])],
                      "methodology": b.get("methodology", [])} for b in pb.get("branches", [])],
        "declines": pb.get("declines", []),
        "caveats": pb.get("caveats", []),
        "citations": pb.get("citations", []),
        "companions": pb.get("companions", []),
    }


# -- validation -----------------------------------------------------------------------------------

def _validate_conditions(conds: Any, where: str) -> list[str]:
    if not isinstance(conds, list):
        return [f"{where}: 'when' must be a list of conditions"]
    errors = []
    for c in conds:
        if not isinstance(c, Mapping) or "path" not in c or c.get("op") not in OPERATORS:
            errors.append(f"{where}: condition {c!r} needs path and op (one of {', '.join(OPERATORS)})")
        elif c["op"] not in ("exists", "not exists") and "value" not in c:
            errors.append(f"{where}: condition on {c['path']} with op {c['op']} needs a value")
    return errors


def validate(pb: Any) -> list[str]:
    """Problems with a playbook dict (empty when it is well formed)."""
    if not isinstance(pb, Mapping):
        return ["a playbook must be a mapping"]
    errors = [f"missing {k!r}" for k in ("id", "title", "problem", "branches") if k not in pb]
    for q in pb.get("intake", []) or []:
        if not isinstance(q, Mapping) or "name" not in q or q.get("type") not in INTAKE_TYPES:
            errors.append(f"intake item {q!r} needs name and a type among {', '.join(INTAKE_TYPES)}")
        elif q["type"] == "choice" and not q.get("options"):
            errors.append(f"intake {q['name']}: a choice needs options")
    ids = set()
    for b in pb.get("branches", []) or []:
        bid = b.get("id") if isinstance(b, Mapping) else None
        if not bid:
            errors.append(f"a branch has no id: {b!r}")
            continue
        if bid in ids:
            errors.append(f"branch id {bid} is used twice")
        ids.add(bid)
        errors += _validate_conditions(b.get("when", []), f"branch {bid}")
        steps = b.get("steps")
        if not isinstance(steps, list) or not steps:
            errors.append(f"branch {bid}: needs a list of steps")
            continue
        sids = [s.get("id") for s in steps if isinstance(s, Mapping)]
        if len(set(sids)) != len(sids) or None in sids:
            errors.append(f"branch {bid}: every step needs its own id")
        errors += _validate_methodology(b.get("methodology", []) or [], sids, f"branch {bid}")
    for d in pb.get("declines", []) or []:
        if not isinstance(d, Mapping) or "say" not in d:
            errors.append(f"a decline needs 'say': {d!r}")
        else:
            errors += _validate_conditions(d.get("when", []), "decline")
    for c in pb.get("caveats", []) or []:
        if isinstance(c, Mapping):
            if "say" not in c:
                errors.append(f"a conditional caveat needs 'say': {c!r}")
            errors += _validate_conditions(c.get("when", []), "caveat")
        elif not isinstance(c, str):
            errors.append(f"a caveat is a string or {{say, when}}: {c!r}")
    return errors


def _validate_methodology(lines: Any, sids: Sequence[Any], where: str) -> list[str]:
    """Every methodology line names the steps it describes (``steps: []`` for the overall approach), and quotes
    (``{{ steps.<id>.<path> }}``) only the steps it names."""
    from aquascope_core.methodology import STEP_REF

    if not isinstance(lines, list):
        return [f"{where}: methodology must be a list of lines"]
    errors = []
    for i, item in enumerate(lines, 1):
        if not isinstance(item, Mapping) or not isinstance(item.get("say"), str) or not isinstance(item.get("steps"), list):
            errors.append(f"{where}: methodology line {i} must be {{say: <text>, steps: [<ids of the steps it "
                          f"describes>]}} (steps: [] for the overall approach), got {str(item)[:60]!r}")
            continue
        unknown = [s for s in item["steps"] if s not in sids]
        if unknown:
            errors.append(f"{where}: methodology line {i} names steps {unknown}, which the branch does not have "
                          f"({', '.join(map(str, sids))})")
        quoted = {m.group("id") for m in STEP_REF.finditer(item["say"])}
        if quoted - set(item["steps"]):
            errors.append(f"{where}: methodology line {i} quotes steps {sorted(quoted - set(item['steps']))} it does "
                          "not name in its steps")
        elif quoted and len(item["steps"]) > 1:  # the line must go or re-render with the one step it quotes
            errors.append(f"{where}: methodology line {i} quotes a step's values, so it names that step alone "
                          f"(it names {item['steps']})")
    return errors


# -- intake ---------------------------------------------------------------------------------------

def coerce_intake(playbook: str | Mapping[str, Any], raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """The intake typed and completed with defaults; unknown fields dropped; a bad value raises.

    ``int`` and ``float`` accept numbers and numeric strings ("100", "100-year"); ``choice`` accepts
    an option case-insensitively; ``list`` accepts a list or a comma-separated string; ``bool``
    accepts true/false/yes/no. An item marked ``optional: true`` (never asked) is left out when not given.
    """
    pb = load(playbook) if isinstance(playbook, str) else playbook
    raw = dict(raw or {})
    out: dict[str, Any] = {}
    for q in pb.get("intake", []) or []:
        name, kind = q["name"], q["type"]
        value = raw.get(name, q.get("default"))
        if value is None:
            if not q.get("optional"):
                out[name] = None
            continue
        out[name] = _coerce_one(name, kind, value, q)
    return out


def _coerce_one(name: str, kind: str, value: Any, q: Mapping[str, Any]) -> Any:
    if kind in ("int", "float"):
        if isinstance(value, bool):
            raise InputError.bad_value(name, value, f"a number ({q.get('label', name)})")
        if isinstance(value, str):
            m = re.search(r"-?\d+(?:\.\d+)?", value.replace(",", ""))
            if not m:
                raise InputError.bad_value(name, value, f"a number ({q.get('label', name)})")
            value = float(m.group())
        try:
            num = float(value)
        except (TypeError, ValueError):
            raise InputError.bad_value(name, value, f"a number ({q.get('label', name)})") from None
        if kind == "int":
            if num != int(num):
                raise InputError.bad_value(name, value, "a whole number")
            num = int(num)
        lo, hi = q.get("min"), q.get("max")
        if (lo is not None and num < lo) or (hi is not None and num > hi):
            raise InputError.bad_value(name, value, f"between {lo} and {hi}")
        return num
    if kind == "choice":
        options = list(q.get("options") or [])
        for opt in options:
            if str(value).strip().lower() == str(opt).lower():
                return opt
        raise InputError.bad_value(name, value, "one of " + ", ".join(map(str, options)))
    if kind == "list":
        items = [v.strip() for v in value.split(",")] if isinstance(value, str) else list(value)
        item_type = q.get("item_type")
        if item_type in ("int", "float"):
            items = [_coerce_one(name, item_type, v, {}) for v in items]
        allowed = q.get("options")
        if allowed:
            bad = [v for v in items if v not in allowed]
            if bad:
                raise InputError.bad_value(name, bad, "items among " + ", ".join(map(str, allowed)))
        return items
    if kind == "bool":
        if isinstance(value, bool):
            return value
        s = str(value).strip().lower()
        if s in ("true", "yes", "1", "y"):
            return True
        if s in ("false", "no", "0", "n"):
            return False
        raise InputError.bad_value(name, value, "true or false")
    return str(value)


# -- scope, conditions, rendering -----------------------------------------------------------------

def _nearest_station(recon: Mapping[str, Any], variable: str | None) -> dict[str, Any] | None:
    for st in recon.get("stations", []) or []:
        if variable is None:
            return _labelled(st)
        for v in st.get("variables", []) or []:
            if v.get("variable") == variable and v.get("usable", v.get("offline", True)):
                return _labelled(st)
    return None


def _labelled(st: Mapping[str, Any]) -> dict[str, Any]:
    """The station with ``id_label``, its number as its agency writes it ("USGS 06324500" for a USGS gauge held by
    any source, or an uploaded peak file's gauge: ``agency_id``), else the source and the number."""
    out = dict(st)
    usgs = "usgs" in (st.get("sources") or []) or st.get("source") == "usgs" or "usgs.gov" in str(st.get("url") or "")
    out["id_label"] = st.get("agency_id") or (f"USGS {st.get('station_id')}" if usgs
                                              else f"{st.get('source')} {st.get('station_id')}")
    return out


def _record_ends(recon: Mapping[str, Any], ctx: Mapping[str, Any], derived: dict[str, Any]) -> None:
    """``<variable>_end`` (the last date), ``<variable>_end_year`` and ``months_since_<variable>_end``
    (whole months before today's) for the record each variable is read from."""
    import datetime as dt

    today = dt.date.today()
    stations = recon.get("stations", []) or []
    for var, where in (ctx.get("station_by_variable") or {}).items():
        for st in stations:
            if (st.get("source"), st.get("station_id")) != (where.get("source"), where.get("station_id")):
                continue
            end = next((str(v.get("period_end") or "") for v in st.get("variables", []) or []
                        if v.get("variable") == var and v.get("period_end")), "")
            if re.match(r"\d{4}-\d{2}", end):
                year, month = int(end[:4]), int(end[5:7])
                derived[f"{var}_end"] = end[:10]
                derived[f"{var}_end_year"] = year
                derived[f"months_since_{var}_end"] = (today.year - year) * 12 + today.month - month
            break


# A gauge's catchment stands for the site's when their areas are within this ratio (a common working
# window for transfers by drainage-area ratio); a gauge whose catchment is far larger or smaller is not
# the site's record, whatever its distance.
GAUGE_AREA_RATIO = (0.5, 1.5)
# Records the flood branches fit (daily discharge, instantaneous peaks, published annual maxima).
_FLOOD_RECORDS = ("discharge", "peak_discharge", "annual_max_discharge")


def _site_derived(recon: Mapping[str, Any], ctx: Mapping[str, Any], intake: Mapping[str, Any],
                  derived: dict[str, Any]) -> None:
    """What the site's own area, the nearest records and the donor pool tell the branches.

    ``nearest`` ({variable: {source, station_id, name, distance_km, area_km2, unit, area_ratio,
    similar_area}}: ``area_ratio`` is the station's area over the intake's ``area_km2``, and
    ``similar_area`` is True unless both are known and differ beyond :data:`GAUGE_AREA_RATIO`),
    ``site_area_km2`` (the intake's ``area_km2`` when given, else the gauge's), ``rainfall_runoff_gauge``
    (the nearest station holding discharge, precipitation and PET together, at least 5 years each) and
    ``rainfall_runoff_gauges``, ``donors_for_area`` (gauged catchments with a usable daily discharge
    record within the donor reach and 0.2-5 times the site's area; 0 when the area is not given)
    and ``flood_record_years`` (the longest of the flood records).
    """
    stations = recon.get("stations", []) or []
    area = intake.get("area_km2")
    lo, hi = GAUGE_AREA_RATIO
    nearest: dict[str, Any] = {}
    for var, where in (ctx.get("station_by_variable") or {}).items():
        st = next((s for s in stations if (s.get("source"), s.get("station_id")) ==
                   (where.get("source"), where.get("station_id"))), {})
        unit = next((v.get("unit") for v in st.get("variables", []) or [] if v.get("variable") == var), None)
        ratio = st["area_km2"] / float(area) if st.get("area_km2") and area else None
        nearest[var] = {"source": where.get("source"), "station_id": where.get("station_id"), "name": where.get("name"),
                        "distance_km": where.get("distance_km"), "area_km2": st.get("area_km2"), "unit": unit,
                        "area_ratio": None if ratio is None else round(ratio, 3),
                        "similar_area": ratio is None or lo <= ratio <= hi,
                        # a U.S. gauge: its annual peak records are analysed by Bulletin 17C
                        "us_gauge": "usgs" in (st.get("sources") or [st.get("source")]) or st.get("source") == "usgs"}
    derived["nearest"] = nearest
    derived["site_area_km2"] = float(area) if area is not None else ctx.get("area_km2")

    def holds(st: Mapping[str, Any], var: str) -> bool:
        return any(v.get("variable") == var and v.get("usable", v.get("offline")) and (v.get("years") or 0) >= 5
                   for v in st.get("variables", []) or [])

    rr = [s for s in stations if all(holds(s, v) for v in ("discharge", "precipitation", "potential_evapotranspiration"))]
    derived["rainfall_runoff_gauges"] = len(rr)
    derived["rainfall_runoff_gauge"] = ({k: rr[0].get(k) for k in ("source", "station_id", "name", "distance_km",
                                                                   "area_km2")} if rr else None)
    point = recon.get("point") or {}
    donors = 0
    if area is not None and point.get("lat") is not None:
        from aquascope_core.tools.regional import count_donors

        donors = count_donors(point["lat"], point["lon"], float(area))
    derived["donors_for_area"] = donors
    for var in _FLOOD_RECORDS:
        derived.setdefault(f"{var}_years", 0.0)


def _sampled_parameters(recon: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Variable -> the parameters of the nearest station whose record of it is a table of samples."""
    out: dict[str, list[dict[str, Any]]] = {}
    for st in recon.get("stations", []) or []:
        for v in st.get("variables", []) or []:
            name = v.get("variable")
            if name and name not in out and v.get("parameters") and v.get("usable", v.get("offline", True)):
                out[name] = list(v["parameters"])
    return out


def _objective_counts(params: Sequence[Mapping[str, Any]], intake: Mapping[str, Any]) -> list[int]:
    """Sample counts (largest first) of the sampled parameters that have an objective for ``intake.use``
    (stated in the table, or a shipped guideline of that use): what an index for that use can rest on."""
    from aquascope_core.tools.water_quality import USES, resolve_objectives

    use = intake.get("use") if intake.get("use") in USES else "aquatic life"
    habitat = intake.get("habitat") if intake.get("habitat") in ("cold water", "warm water") else "cold water"
    rows = [p for p in params if p.get("parameter")]
    try:
        found, _ = resolve_objectives(rows, use=use, habitat=habitat)
    except InputError:
        return []
    return sorted((int(p.get("n_samples") or 0) for p in rows if p["parameter"] in found), reverse=True)


def scope_for(recon: Mapping[str, Any], intake: Mapping[str, Any], playbook: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The dict conditions and placeholders are evaluated over."""
    from aquascope_core.registry import METHODS

    ctx = recon.get("context", {}) or {}
    years = {k: float(v) for k, v in (ctx.get("years_by_variable") or {}).items() if v is not None}
    available = ctx.get("available")
    # the inventory's years as it states them (two decimals): a sentence prints the number its table prints
    derived: dict[str, Any] = {f"{k}_years": round(v, 2) for k, v in years.items()}
    modelled = set(ctx.get("modelled") or [])
    for var in ("discharge", "precipitation", "pet", "temperature", "groundwater_level", "water_quality",
                "potential_evapotranspiration", *years):
        derived.setdefault(f"{var}_years", 0.0)
        derived[f"has_{var}"] = bool(years.get(var)) or (available is not None and var in available)
        # a reanalysis or model record stands in for this variable (no observation provides it)
        derived[f"{var}_modelled"] = var in modelled
    _record_ends(recon, ctx, derived)
    for var, params in _sampled_parameters(recon).items():  # tables of samples: counts and years by parameter
        derived[f"{var}_parameters"] = len(params)
        derived[f"{var}_sample_counts"] = sorted((int(p.get("n_samples") or 0) for p in params), reverse=True)
        derived[f"{var}_parameter_years"] = sorted((float(p.get("years") or 0) for p in params), reverse=True)
        if var == "water_quality":  # the parameters that have an objective for the use the intake names
            derived[f"{var}_objective_sample_counts"] = _objective_counts(params, intake)
    derived["donors"] = ctx.get("donors") or 0
    derived["area_km2"] = ctx.get("area_km2")
    derived["dams"] = (recon.get("catchment") or {}).get("dams")
    derived["regulated"] = (recon.get("catchment") or {}).get("regulation") == "regulated"
    T = intake.get("return_period")
    factor = (playbook or {}).get("return_period_factor")
    if factor is None and "gev_lmoments" in METHODS:
        factor = METHODS["gev_lmoments"].max_return_period_factor
    factor = float(factor or 3)
    derived["return_period_factor"] = factor
    _site_derived(recon, ctx, intake, derived)
    record = max(years.get(var, 0.0) for var in _FLOOD_RECORDS)
    derived["flood_record_years"] = round(record, 1)
    derived["return_period_cap"] = round(factor * record, 1)
    if T is not None:
        derived["return_period"] = T
        derived["return_period_beyond_cap"] = bool(record) and T > derived["return_period_cap"]
        derived["return_periods"] = sorted(set(STANDARD_RETURN_PERIODS) | {int(T) if float(T).is_integer() else T})
    scope = dict(recon)
    scope.update({"intake": dict(intake), "derived": derived, "site": dict(recon.get("point") or {})})
    scope["station"] = _nearest_station(recon, None)
    derived.update(_nss_wanted(scope))
    if intake.get("basin_characteristics"):
        derived.update(_nss_region(scope))
    return scope


def _nss_wanted(scope: Mapping[str, Any]) -> dict[str, Any]:
    """What a data request for the site's basin characteristics names, where the state has USGS regression
    equations: each characteristic its equations take with its unit, what it measures and where a user finds it
    (``nss_characteristics``, and in words ``nss_characteristics_text``) and the state's regions
    (``nss_state_regions``)."""
    state = (scope.get("catchment") or {}).get("state")
    try:
        from aquascope_core.methods.regression import nss_regions, region_label

        regions = nss_regions(state) if state else []
    except Exception:  # noqa: BLE001 - a state without equations: nothing to ask for
        return {}
    seen: dict[str, str] = {}
    for r in regions:
        for v in r["variables"]:
            seen.setdefault(v["code"], v["unit"])
    if not seen:
        return {}
    from aquascope_core.methods.basin_characteristics import characteristic_entry, characteristics_text

    return {"nss_characteristics": [characteristic_entry(c, u) for c, u in seen.items()],
            "nss_characteristics_text": characteristics_text(seen),
            "nss_state_regions": "; ".join(f"{region_label(r['name'])} ({r['code']})" for r in regions)}


def _nss_region(scope: Mapping[str, Any]) -> dict[str, Any]:
    """The USGS regression region for a site whose basin characteristics are given: the one the request names, the
    state's only one (the state from the site's gauge), else none, with the state's regions named for the question
    (``nss_region``, ``nss_region_names``)."""
    region = (scope.get("intake") or {}).get("nss_region")
    state = (scope.get("catchment") or {}).get("state")
    if region:
        return {"nss_region": region}
    try:
        from aquascope_core.methods.regression import nss_regions, region_label

        regions = nss_regions(state) if state else []
    except Exception:  # noqa: BLE001 - a state without equations: no region
        regions = []
    if len(regions) == 1:
        return {"nss_region": regions[0]["code"]}
    names = "; ".join(f"{region_label(r['name'])} ({r['code']})" for r in regions)
    return {"nss_region_names": names} if regions else {}


def condition_holds(cond: Mapping[str, Any], scope: Mapping[str, Any]) -> bool:
    op = cond["op"]
    try:
        seen = get_path(scope, cond["path"])
    except PathError:
        return op == "not exists"
    if op == "exists":
        return seen is not None
    if op == "not exists":
        return seen is None
    want = cond.get("value")
    if isinstance(want, str) and "{{" in want:
        want = render(want, scope)
    try:
        if op == "==":
            return seen == want
        if op == "!=":
            return seen != want
        if op == "in":
            return seen in want
        if op == "not in":
            return seen not in want
        if seen is None:
            return False
        return {">=": seen >= want, "<=": seen <= want, ">": seen > want, "<": seen < want}[op]
    except TypeError:
        return False


def _holds(conds: Sequence[Mapping[str, Any]] | None, scope: Mapping[str, Any]) -> bool:
    return all(condition_holds(c, scope) for c in (conds or []))


_PLACEHOLDER = re.compile(r"\{\{\s*(?P<expr>[^}]+?)\s*\}\}")


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if value.is_integer():
            return str(int(value))
        return f"{value:.1f}" if abs(value) >= 10 else f"{value:.3g}"
    if isinstance(value, list):
        # a list placed in a sentence: an option's identifier reads as words ("low_flows" -> "low flows")
        return ", ".join(v.replace("_", " ") if isinstance(v, str) and _IDENT.fullmatch(v) else _fmt(v) for v in value)
    return str(value)


_IDENT = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")


def render(obj: Any, scope: Mapping[str, Any], *, keep: tuple[str, ...] = ("result.",)) -> Any:
    """Fill ``{{ path }}`` placeholders from ``scope``; ``{{ result.* }}`` is left for the runner (and any other
    prefix in ``keep``: a methodology line's ``steps.*``, filled from the plan's steps)."""
    if isinstance(obj, str):
        whole = _PLACEHOLDER.fullmatch(obj.strip())
        if whole and not whole.group("expr").startswith(keep):
            return _value(whole.group("expr"), scope)

        def sub(m: re.Match) -> str:
            expr = m.group("expr")
            if expr.startswith(keep):
                return m.group(0)
            return _fmt(_value(expr, scope))

        return _PLACEHOLDER.sub(sub, obj)
    if isinstance(obj, Mapping):
        return {k: render(v, scope, keep=keep) for k, v in obj.items()}
    if isinstance(obj, list):
        return [render(v, scope, keep=keep) for v in obj]
    return obj


def _step_words(raw: Mapping[str, Any]) -> str:
    """A step as a plan note names it to the client: its title, or its method's (or tool's) label, never the id."""
    title = str(raw.get("title") or "")
    if title and "{{" not in title:
        return title
    from aquascope_core.registry import label_of

    return label_of(str(raw.get("method") or raw.get("tool") or ""))


def _value(expr: str, scope: Mapping[str, Any]) -> Any:
    try:
        return get_path(scope, expr)
    except PathError as exc:
        raise PlaybookError(f"placeholder {{{{ {expr} }}}} cannot be filled: {exc}") from None


# -- planning -------------------------------------------------------------------------------------

def choose_branch(pb: Mapping[str, Any], scope: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """(branch, None) for the first branch that holds, or (None, the decline sentence)."""
    for d in pb.get("declines", []) or []:
        if _holds(d.get("when"), scope):
            return None, render(d["say"], scope)
    for b in pb.get("branches", []):
        if not _holds(b.get("when"), scope):
            continue
        station = _nearest_station(scope, b.get("variable")) if b.get("variable") else scope.get("station")
        if b.get("variable") and station is None:
            continue
        scope["station"] = station
        scope["branch"] = {"id": b["id"], "label": b.get("label", b["id"])}  # caveats may depend on it
        return dict(b), None
    return None, pb.get("no_branch_say") and render(pb["no_branch_say"], scope) or (
        f"No branch of the {pb.get('title', pb.get('id'))} playbook applies at this site with the data found.")


# a playbook step's keys that are the plan's, not the step's: when it applies, and the data it asks for
PLAN_KEYS = ("when", "ask", "ask_when", "ask_data")


def _branch_steps(branch: Mapping[str, Any], scope: Mapping[str, Any], ctx: Mapping[str, Any],
                  asks: list[dict[str, Any]] | None = None) -> tuple[list[Any], list[str]]:
    """The branch's steps rendered for the site; optional steps the site cannot support dropped with a note.

    Each step's ``outputs`` are the figures and tables its tool feeds (the catalogue's), after those the playbook
    names with its own captions; so every plan, a fallback branch's and a companion's too, says what it draws."""
    from aquascope_core.catalogue import step_outputs
    from aquascope_core.registry import assess_method
    from aquascope_core.study import Step

    notes: list[str] = []
    steps: list[Step] = []
    dropped: set[str] = set()
    for raw in branch["steps"]:
        if raw.get("when") and not _holds(raw["when"], scope):
            continue  # a step for some sites of the branch only (its own ``when``, like a branch's)
        if raw.get("ask") and _holds(raw.get("ask_when"), scope):  # data the step would do better with: the
            # study waits for it (a data request the plan stands without); ``ask_data`` says what it is, structured
            notes.append(render(raw["ask"], scope))
            if asks is not None:
                asks.append({"step": raw["id"], "text": notes[-1],
                             **({"data": render(dict(raw["ask_data"]), scope)} if raw.get("ask_data") else {})})
        local = dict(scope)
        if raw.get("station_variable"):
            st = _nearest_station(scope, raw["station_variable"])
            if st is None:
                if raw.get("optional"):
                    notes.append(f"step {raw['id']} ({_step_words(raw)}) dropped: no station with "
                                 f"{str(raw['station_variable']).replace('_', ' ')} within reach")
                    dropped.add(raw["id"])
                    continue
                raise DeclinedError(f"The plan needs a station with {raw['station_variable']} and none is within reach.")
            local["station"] = st
        step = Step.from_dict(render({k: v for k, v in raw.items() if k not in PLAN_KEYS}, local))
        step.outputs = step_outputs(step.tool, step.outputs)
        step.depends_on = [d for d in step.depends_on if d not in dropped]
        if any(d in dropped for d in raw.get("depends_on", []) or []):
            dropped.add(step.id)
            notes.append(f"step {step.id} ({_step_words(raw)}) dropped: it depends on a dropped step")
            continue
        if step.method:
            verdict = assess_method(step.method, ctx, variable=raw.get("station_variable") or branch.get("variable"))
            if verdict["status"] == "not_defensible":
                if step.optional:
                    notes.append(f"step {step.id} ({_step_words(raw)}) dropped: {verdict['label']} is not defensible here "
                                 f"({verdict['reason']})")
                    dropped.add(step.id)
                    continue
                raise DeclinedError(f"{verdict['label']} is not defensible at this site: {verdict['reason']}.")
            if verdict["status"] == "marginal":
                notes.append(f"step {step.id}: {verdict['label']} is marginal here ({verdict['reason']})")
        steps.append(step)
    return steps, notes


def _site_context(recon: Mapping[str, Any], intake: Mapping[str, Any]) -> dict[str, Any]:
    """What the registry judges the plan's methods against: the recon's context, with the site's own area
    and the donors for that area when the intake states the area."""
    ctx = dict(recon.get("context") or {})
    ctx["return_period"] = intake.get("return_period")
    if intake.get("area_km2") is not None:
        derived: dict[str, Any] = {}
        _site_derived(recon, ctx, intake, derived)
        ctx["area_km2"] = float(intake["area_km2"])
        ctx["donors"] = derived.get("donors_for_area")
    return ctx


def plan(playbook: str | Mapping[str, Any], recon: Mapping[str, Any], intake: Mapping[str, Any] | None = None, *,
         question: str = "") -> "Any":
    """Fill a version-3 study from the playbook's tree with no model.

    Raises :class:`DeclinedError` with the playbook's sentence when it declines, or when a required
    step's method is not defensible at the site (an optional one is dropped with a note).
    """
    from aquascope_core.catalogue import validate_plan
    from aquascope_core.study import Study

    pb = load(playbook) if isinstance(playbook, str) else copy.deepcopy(dict(playbook))
    intake = coerce_intake(pb, intake)
    scope = scope_for(recon, intake, pb)
    branch, refusal = choose_branch(pb, scope)
    if branch is None:
        raise DeclinedError(refusal, recovery=pb.get("decline_recovery") or DeclinedError.default_recovery)
    ctx = _site_context(recon, intake)
    asks: list[dict[str, Any]] = []
    steps, notes = _branch_steps(branch, scope, ctx, asks)
    caveats = []
    for c in pb.get("caveats", []) or []:
        if isinstance(c, str):
            caveats.append(render(c, scope))
        elif _holds(c.get("when"), scope):
            caveats.append(render(c["say"], scope))
    station = scope.get("station") or {}
    plan_block = {
        "playbook": pb["id"],
        "branch": branch["id"],
        "branch_label": branch.get("label", branch["id"]),
        "rationale": render(branch.get("rationale", ""), scope),
        "notes": notes,
        "asks": asks,  # the data requests the plan makes (its notes too): approving the plan goes on without them
        "recon_notes": list(recon.get("notes", []) or []),
        "objective": render(branch.get("objective") or pb.get("objective", ""), scope),  # a branch may ask another question
        "decision": render(branch["decision"], scope) if branch.get("decision") else (
            intake.get("decision") or render(pb.get("decision", ""), scope)),
        # each line linked to the steps it describes; the lines of a step the site cannot serve are left out
        "methodology": methodology.lines_for(render(list(branch.get("methodology", [])), scope,
                                                    keep=("result.", "steps.")), steps),
        "assumptions": render(list(branch.get("assumptions", [])), scope),
        "alternatives": render(list(branch.get("alternatives", [])), scope),
        "limitations_expected": render(list(branch.get("limitations_expected", [])), scope),
        "caveats": caveats,
        "citations": list(pb.get("citations", [])),
        "author": "playbook",
        "station": {k: station.get(k) for k in ("source", "station_id", "name", "distance_km")} if station else None,
        "site_context": {k: v for k, v in ctx.items() if k in ("years_by_variable", "resolution_by_variable",
                                                               "area_km2", "donors", "available", "return_period")},
    }
    study = Study(
        steps=steps,
        version=3,
        title=render(branch.get("study_title") or pb.get("study_title", pb.get("title", pb["id"])), scope),
        question=question,
        problem={"kind": pb.get("problem", pb["id"]), "site": dict(recon.get("point") or {}), "params": dict(intake)},
        plan=plan_block,
    )
    errors = validate_plan(study, site=ctx)
    if errors:
        raise PlaybookError(f"playbook {pb['id']} branch {branch['id']} produced a plan that does not validate: "
                            + "; ".join(errors))
    return study


def _prefixed(steps: Sequence[Any], prefix: str) -> list[Any]:
    """The steps with ids ``<prefix>_<id>``; their depends_on and ``{{ result.<id>. }}`` references follow."""
    from aquascope_core.study import Step

    ids = {s.id for s in steps}
    pattern = re.compile(r"(\{\{\s*result\.)(" + "|".join(map(re.escape, sorted(ids, key=len, reverse=True))) + r")(\.)")

    def rewrite(obj: Any) -> Any:
        if isinstance(obj, str):
            return pattern.sub(lambda m: f"{m.group(1)}{prefix}_{m.group(2)}{m.group(3)}", obj) if ids else obj
        if isinstance(obj, Mapping):
            return {k: rewrite(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [rewrite(v) for v in obj]
        return obj

    out = []
    for s in steps:
        d = rewrite(s.to_dict())
        d["id"] = f"{prefix}_{s.id}"
        d["depends_on"] = [f"{prefix}_{x}" if x in ids else x for x in s.depends_on]
        out.append(Step.from_dict(d))
    return out


def plan_branch(playbook: str | Mapping[str, Any], recon: Mapping[str, Any], intake: Mapping[str, Any] | None,
                branch_id: str, *, prefix: str | None = None) -> list[Any]:
    """The steps of one named branch at the site (its conditions are not asked: a fallback chose it).

    With ``prefix`` the step ids become ``<prefix>_<id>`` so they can join a study that already has
    steps of the same ids (a branch replan, a companion playbook)."""
    pb = load(playbook) if isinstance(playbook, str) else copy.deepcopy(dict(playbook))
    intake = coerce_intake(pb, intake)
    branch = next((b for b in pb.get("branches", []) if b["id"] == branch_id), None)
    if branch is None:
        raise PlaybookError(f"playbook {pb['id']} has no branch {branch_id!r} "
                            f"(branches: {', '.join(b['id'] for b in pb.get('branches', []))})")
    scope = scope_for(recon, intake, pb)
    if branch.get("variable"):
        station = _nearest_station(scope, branch["variable"])
        if station is None:
            raise DeclinedError(f"the {branch.get('label', branch_id)} branch needs a station with "
                                f"{branch['variable']} and none is within reach")
        scope["station"] = station
    steps, _notes = _branch_steps(branch, scope, _site_context(recon, intake))
    return _prefixed(steps, prefix) if prefix else steps


def companions(text: str, primary: str) -> list[str]:
    """The companion playbooks a compound brief names: those the primary playbook lists as companions whose own
    keywords the text also names (e.g. "irrigate 50 ha of maize from the river" -> supply_reliability)."""
    if not isinstance(text, str) or not text.strip():
        return []
    low = text.lower()
    out = []
    for comp in part(primary, "companions", []) or []:
        cid = comp["playbook"] if isinstance(comp, Mapping) else comp
        words = (comp.get("keywords") if isinstance(comp, Mapping) else None) or part(cid, "keywords", [])
        if any(re.search(r"(?<![a-z])" + re.escape(str(w).lower()) + r"(?![a-z])", low) for w in words):
            out.append(cid)
    return out


def _renamed_refs(step: Any, same: Mapping[str, str]) -> Any:
    """``step`` with its depends_on and ``{{ result.<id>. }}`` references to the ids of ``same`` renamed."""
    from aquascope_core.study import Step

    pattern = re.compile(r"(\{\{\s*result\.)(" + "|".join(map(re.escape, sorted(same, key=len, reverse=True))) + r")(\.)")

    def rewrite(obj: Any) -> Any:
        if isinstance(obj, str):
            return pattern.sub(lambda m: f"{m.group(1)}{same[m.group(2)]}{m.group(3)}", obj)
        if isinstance(obj, Mapping):
            return {k: rewrite(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [rewrite(v) for v in obj]
        return obj

    d = rewrite(step.to_dict())
    d["depends_on"] = [same.get(x, x) for x in step.depends_on]
    return Step.from_dict(d)


def add_companion(study: Any, playbook: str, recon: Mapping[str, Any], intake: Mapping[str, Any] | None) -> Any:
    """Plan the companion ``playbook`` at the same site and append its new steps (ids prefixed with the
    playbook's id); a step the study already has (same tool and arguments) is not added twice. A companion
    that declines leaves a note on the plan, not an error."""
    from aquascope_core.catalogue import validate_plan

    try:
        comp = plan(playbook, recon, intake)
    except DeclinedError as exc:
        study.plan.setdefault("notes", []).append(f"companion {playbook} declined: {exc.message}")
        return study
    existing = {(s.tool, repr(sorted(s.arguments.items()))): s.id for s in study.steps}
    new, same = [], {}
    for s in _prefixed(comp.steps, playbook):
        key = (s.tool, repr(sorted(s.arguments.items())))
        if key in existing:
            same[s.id] = existing[key]  # the study already has this step: the companion's later steps use it
            continue
        if same:
            s = _renamed_refs(s, same)
            key = (s.tool, repr(sorted(s.arguments.items())))
            if key in existing:
                same[s.id] = existing[key]
                continue
        new.append(s)
    study.steps.extend(new)
    p = study.plan
    p.setdefault("companions", []).append({"playbook": playbook, "branch": comp.plan["branch"],
                                           "steps": [s.id for s in new]})
    rename = {**{s.id.removeprefix(f"{playbook}_"): s.id for s in new},
              **{k.removeprefix(f"{playbook}_"): v for k, v in same.items()}}
    comp_lines = methodology.prefixed(comp.plan.get("methodology") or [], rename)
    for key in ("methodology", "assumptions", "limitations_expected", "caveats", "citations", "notes"):
        items = comp_lines if key == "methodology" else comp.plan.get(key) or []
        have = [methodology.text(x) for x in p.get(key) or []] if key == "methodology" else p.get(key) or []
        for item in items:
            if (methodology.text(item) if key == "methodology" else item) not in have:
                p.setdefault(key, []).append(item)
    errors = validate_plan(study, site=_site_context(recon, intake or {}))
    if errors:
        raise PlaybookError(f"companion {playbook} does not fit the plan: " + "; ".join(errors))
    return study
