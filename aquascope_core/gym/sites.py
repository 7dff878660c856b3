"""The places the gym asks its questions at, one of each kind the crew meets.

Kinds: ``embedded_station`` (a gauge whose record the package holds), ``catalogue_point`` (near gauges the
catalogue lists with metadata only, no record offline), ``nothing_near`` (open ocean: no record of any kind
within reach) and ``upload`` (the user's own table, placed at the site). Uploads name files in
``aquascope_core/gym/uploads/`` (see its README for where each came from). ``area_km2`` is the catchment area
a question at the site states when the playbook needs one (the ungauged-flow tasks).
"""

from __future__ import annotations

from typing import Any

__all__ = ["DEFAULT_SITES", "SITE_KINDS", "site_by_id"]

SITE_KINDS = ("embedded_station", "catalogue_point", "nothing_near", "upload")

DEFAULT_SITES: tuple[dict[str, Any], ...] = (
    {"id": "flat_brook", "kind": "embedded_station", "lat": 41.10, "lon": -74.96, "area_km2": 166.0,
     "label": "Flat Brook near Flatbrookville NJ (USGS 01440000, 80 years of daily flow)"},
    {"id": "leaf_river", "kind": "embedded_station", "lat": 31.7069, "lon": -89.4069, "area_km2": 1924.0,
     "label": "Leaf River near Collins MS (HOLMES: daily rain, PET and runoff)"},
    {"id": "big_sandy", "kind": "embedded_station", "lat": 36.037016, "lon": -88.229112, "area_km2": 531.0,
     "label": "Big Sandy River at Bruceton TN (USGS 03606500, peaks with historical floods)"},
    {"id": "fox_berlin", "kind": "embedded_station", "lat": 43.96875, "lon": -88.950306, "area_km2": 3950.0,
     "label": "Fox River at Berlin WI (USGS 04073500, published annual maxima)"},
    {"id": "montague", "kind": "embedded_station", "lat": 41.309, "lon": -74.795, "area_km2": 9000.0,
     "label": "Delaware River at Montague NJ (USGS 01438500, regulated by reservoirs)"},
    {"id": "delaware_ungauged", "kind": "embedded_station", "lat": 40.83, "lon": -75.09, "area_km2": 11745.0,
     "label": "an ungauged point on the Delaware below the Flat Brook and Montague gauges"},
    {"id": "schuylkill", "kind": "catalogue_point", "lat": 39.967791, "lon": -75.188501, "area_km2": 4902.8,
     "label": "Schuylkill River at Philadelphia PA (USGS 01474500: catalogue metadata, no flows offline)"},
    {"id": "atlantic", "kind": "nothing_near", "lat": 30.0, "lon": -40.0, "area_km2": 500.0,
     "label": "the open Atlantic (nothing within reach)"},
    {"id": "hesse_well", "kind": "upload", "lat": 50.50, "lon": 8.58, "area_km2": 50.0,
     "uploads": {"schwingbach_well.csv": "uploads/schwingbach_site24_gwhead_2014_2016.csv"},
     "label": "Schwingbach site 24, Hesse: the user's well record (2014-2016 daily heads)"},
    {"id": "hesse_fulda", "kind": "upload", "lat": 50.55, "lon": 9.68, "area_km2": 250.0,
     "uploads": {"fulda.csv": "uploads/fulda_daily_1979_1988.csv"},
     "label": "a Fulda catchment, Hesse: the user's daily temperatures, rain and discharge (1979-1988)"},
    {"id": "quebec_au_saumon", "kind": "upload", "lat": 45.48, "lon": -71.65, "area_km2": 738.0,
     "uploads": {"au_saumon.csv": "uploads/au_saumon_daily_p_pet_q.csv"},
     "label": "Au Saumon catchment, Quebec: the user's daily rain, PET and runoff (HOLMES, 1975-2003)"},
    {"id": "devon_samples", "kind": "upload", "lat": 53.36, "lon": -113.73, "area_km2": 27000.0,
     "uploads": {"devon_1997.csv": "uploads/devon_1997_ccme_samples.csv"},
     "label": "North Saskatchewan River at Devon AB: the user's 1997 samples (CCME 2001 worked example)"},
)


def site_by_id(site_id: str) -> dict[str, Any]:
    from aquascope_core.errors import InputError

    for s in DEFAULT_SITES:
        if s["id"] == site_id:
            return dict(s)
    raise InputError.bad_value("site", site_id, "one of " + ", ".join(s["id"] for s in DEFAULT_SITES))
