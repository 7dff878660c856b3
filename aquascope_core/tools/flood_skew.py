"""Which regional skew a Bulletin 17C analysis weights in, as practice has it, and the skews kept for sensitivity.

One gauge, one skew, whatever path its record took (embedded or uploaded, with or without a PeakFQ file):

1. a skew the analyst gives (``regional_skew`` and ``regional_skew_mse``), said to be the analyst's;
2. a skew in the user's PeakFQ specification (``GENSKEW``/``SKEWSE`` of an uploaded ``.psf``): the user's, used
   and stated (named as the published one when it equals it);
3. the current published regional skew for the gauge: the study that published the gauge's analysis (the
   Wyoming-Montana 2022 study for its gauges), else the USGS table's verified value for the gauge's state and
   region (looked up by its site number when the record itself gives neither);
4. none published: the at-site skew alone, with a warning.

Any other skew (the manual's example skew that came with a teaching record, a table value beside the study's, the
at-site skew alone) is a sensitivity row, never a choice handed to the client.
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["gauge_number", "published_skew_for", "skew_for_record", "sensitivity_skews"]

_SAME = 1e-9


def gauge_number(desc: Mapping[str, Any], attrs: Mapping[str, Any]) -> str | None:
    """The USGS site number of a record (an upload's from its peak file), without a PeakFQ analysis suffix."""
    pk = attrs.get("peakfq") or {}
    for cand in (pk.get("site_no"), desc.get("station_id"), attrs.get("station_id")):
        sid = str(cand or "").strip().removeprefix("USGS-").split(".")[0]
        if sid.isdigit() and 8 <= len(sid) <= 15:
            return sid
    return None


def _place(desc: Mapping[str, Any], site: str | None) -> tuple[str | None, str | None]:
    state = desc.get("state") or (desc.get("attributes") or {}).get("state")
    huc8 = desc.get("huc8") or (desc.get("attributes") or {}).get("huc8")
    if (not state or not huc8) and site:
        from aquascope_core.data import store

        cat = store.usgs_catalogue()
        if site in cat.index:
            state = state or cat.loc[site, "state"]
            huc8 = huc8 or cat.loc[site, "huc8"]
    return (str(state) if state else None), (str(huc8) if huc8 else None)


def published_skew_for(desc: Mapping[str, Any], attrs: Mapping[str, Any]) -> dict[str, Any]:
    """The current published regional skew for the record's gauge, or ``skew: None`` with the reason."""
    from aquascope_core.data.wymt_2022 import published_skew
    from aquascope_core.errors import InputError
    from aquascope_core.methods.bulletin17c import regional_skew as lookup

    site = gauge_number(desc, attrs)
    study = published_skew(site) if site else None
    if study:
        return {"skew": study["skew"], "mse": study["mse"], "se": study["se"], "origin": "published_study",
                "source": study["source"], "citation": study["citation"]}
    state, huc8 = _place(desc, site)
    if not state and not huc8:
        return {"skew": None, "mse": None, "origin": "none",
                "source": "none: the station has no state or HUC to look a regional skew up"}
    try:
        got = lookup(state=state, huc8=huc8)
    except InputError as exc:
        return {"skew": None, "mse": None, "origin": "none", "source": f"none: {exc.message}"}
    if not got.get("ok"):
        return {"skew": None, "mse": None, "origin": "none", "source": f"none: {got.get('reason')}"}
    return {"skew": got["skew"], "mse": got["skew_mse"], "se": got["skew_se"], "origin": "usgs_table",
            "source": f"the published regional skew for {got.get('skew_region')} ({state}), USGS regional skew table",
            "region": got.get("skew_region"), "citation": got.get("citation")}


def _record_skew(attrs: Mapping[str, Any]) -> dict[str, Any] | None:
    if attrs.get("regional_skew") is None or not attrs.get("regional_skew_sd"):
        return None
    sd = float(attrs["regional_skew_sd"])
    return {"skew": float(attrs["regional_skew"]), "mse": sd * sd, "se": sd,
            "origin": attrs.get("regional_skew_origin") or "user_spec",
            "citation": attrs.get("regional_skew_citation")}


def skew_for_record(desc: Mapping[str, Any], attrs: Mapping[str, Any], regional_skew: float | None,
                    regional_skew_mse: float | None, skew_from: str) -> dict[str, Any]:
    """The regional skew to weight with: ``{skew, mse, se, origin, source, citation}`` (``skew`` None: at-site only).

    ``skew_from``: ``"record"`` (the default order of the module docstring), ``"usgs_table"`` (the published skew
    for the gauge, ignoring a specification file), ``"station"`` (none, at-site skew only).
    """
    from aquascope_core.errors import InputError

    if regional_skew is not None:
        if regional_skew_mse is None or not float(regional_skew_mse) > 0:
            raise InputError.bad_value("regional_skew_mse", regional_skew_mse,
                                       "the regional skew's mean square error (> 0) beside regional_skew")
        return {"skew": float(regional_skew), "mse": float(regional_skew_mse), "origin": "analyst",
                "source": "given by the analyst"}
    if skew_from == "station":
        return {"skew": None, "mse": None, "origin": "station", "source": "none (at-site skew only, as asked)"}
    published = published_skew_for(desc, attrs)
    own = _record_skew(attrs) if skew_from == "record" else None
    if own and own["origin"] == "user_spec":
        if published["skew"] is not None and abs(own["skew"] - published["skew"]) < _SAME \
                and abs(own["mse"] - published["mse"]) < _SAME:
            return published  # the user's file holds the published skew: one gauge, one sentence
        return {**own, "source": "the regional skew of your PeakFQ specification file (GENSKEW "
                                 f"{own['skew']:g}, SKEWSE {own['se']:g})"}
    return published


def sensitivity_skews(desc: Mapping[str, Any], attrs: Mapping[str, Any], used: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The other skews worth a sensitivity row: the at-site skew alone, the record's own (a manual's example
    skew, the user's file) and the published one, each once and only when it differs from the skew used."""
    rows: list[dict[str, Any]] = []
    if used.get("skew") is not None:
        rows.append({"label": "at-site skew alone", "skew": None, "mse": None, "origin": "station",
                     "source": "no regional skew weighted in"})
    own = _record_skew(attrs)
    published = published_skew_for(desc, attrs)
    labels = {"manual_example": "the example's regional skew (not a current published value)",
              "user_spec": "your specification file's regional skew", "published_study": "the study's regional skew"}
    for cand in (own, published):
        if not cand or cand.get("skew") is None:
            continue
        if used.get("skew") is not None and abs(cand["skew"] - used["skew"]) < _SAME \
                and abs(cand["mse"] - (used.get("mse") or 0)) < _SAME:
            continue
        if any(r["skew"] is not None and abs(r["skew"] - cand["skew"]) < _SAME for r in rows):
            continue
        label = labels.get(cand["origin"], "the published regional skew")
        rows.append({"label": label, "skew": cand["skew"], "mse": cand["mse"], "origin": cand["origin"],
                     "source": cand.get("source") or attrs.get("regional_skew_note") or label,
                     "citation": cand.get("citation")})
    return rows
