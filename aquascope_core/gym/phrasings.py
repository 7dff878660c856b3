"""The questions of the gym: per playbook, scenarios (what the person wants) each asked several ways.

A scenario is ``{"id", "intake", "texts", "sites"?}``: ``intake`` is what every one of its texts states (the
values a careful reader takes from the words, defaults aside), ``texts`` are the ways of asking it (a text
may be ``[text, extra_intake]`` when its wording states one more value, e.g. another unit), and ``sites``,
when given, limits a second scenario to the sites where it tells something new. ``{area_km2}`` in a text is
the site's catchment area (the ungauged-flow and area-stating questions need one).
"""

from __future__ import annotations

from typing import Any

__all__ = ["SCENARIOS"]

_ALL_STATIONS = ("flat_brook", "leaf_river", "big_sandy", "fox_berlin", "montague", "schuylkill", "atlantic")

SCENARIOS: dict[str, list[dict[str, Any]]] = {
    "flood_risk": [
        {"id": "t100", "intake": {"return_period": 100}, "texts": [
            "Design flow for a road crossing, 100-year",
            "What is the 100-year flood here? We need it for a new bridge.",
            "We are sizing a culvert: give me the 1 in 100 year peak flow.",
            "Estimate the 1 % AEP design flood for the crossing.",
        ]},
        {"id": "t25_area", "intake": {"return_period": 25, "area_km2": "{area_km2}"},
         "sites": ("flat_brook", "big_sandy", "fox_berlin", "schuylkill", "atlantic", "hesse_fulda"), "texts": [
            "25-year peak flow for a culvert draining {area_km2} km2",
            "Flood frequency for a catchment of {area_km2} km2: what is the 1 in 25 year flood?",
            "A bridge over a river with {area_km2} km2 upstream: what design flood for a 25-year return period?",
        ]},
    ],
    "drought_status": [
        {"id": "status", "intake": {}, "texts": [
            "Is the catchment in drought right now?",
            "What is the current drought status here?",
            "Are we in a meteorological drought at the moment?",
            "Is there a rainfall deficit: how severe is the drought?",
        ]},
        {"id": "restrictions", "intake": {"timescales": [3, 12], "decision": "water-use restrictions"},
         "sites": ("flat_brook", "leaf_river", "montague", "atlantic", "hesse_fulda"), "texts": [
            "Do we need water-use restrictions? Check the drought at 3 and 12 months.",
            "SPI-3 and SPI-12 please: is a hosepipe ban justified by the drought?",
            "Drought indices at 3 and 12 months to decide on water-use restrictions",
        ]},
    ],
    "ungauged_flow": [
        {"id": "flows", "intake": {"area_km2": "{area_km2}"}, "texts": [
            "Mean flow, low flows and the flow duration curve at an ungauged site of {area_km2} km2",
            "Our stream is not gauged ({area_km2} km2): what are its mean flow, low flows and flow duration curve?",
            "Ungauged catchment of {area_km2} km2: estimate the mean flow, the low flows and the flow duration curve.",
        ]},
    ],
    "supply_reliability": [
        {"id": "reservoir", "intake": {"demand": 0.5, "storage_hm3": 2}, "texts": [
            "Can we take 0.5 m3/s reliably for water supply from a 2 hm3 reservoir?",
            "Water supply check: a demand of 0.5 m3/s with 2 hm3 of storage.",
            "What reliability does a 2 hm3 reservoir give for a supply of 0.5 m3/s?",
        ]},
        {"id": "run_of_river", "intake": {"demand": 0.5, "storage_hm3": 0},
         "sites": ("flat_brook", "leaf_river", "montague", "atlantic", "hesse_fulda"), "texts": [
            "Can the river supply 0.5 m3/s run-of-river, with no storage?",
            ["Is a run-of-river abstraction of 500 l/s reliable for a town's water supply?",
             {"demand": 500, "demand_unit": "l/s"}],
            "Water supply of 0.5 m3/s straight from the river without a reservoir: how reliable is it?",
        ]},
    ],
    "irrigation_feasibility": [
        {"id": "maize", "intake": {"crop": "maize", "area_ha": 50, "planting_month": 4}, "texts": [
            "Irrigation of 50 ha of maize planted in April",
            "Is it feasible to irrigate 50 hectares of corn sown in April?",
            "How much irrigation water do 50 ha of maize need if planted in early April?",
        ]},
        {"id": "winter_wheat", "intake": {"crop": "wheat_winter", "area_ha": 120, "planting_month": 10,
                                          "application_efficiency": 0.9},
         "sites": ("flat_brook", "leaf_river", "atlantic", "hesse_fulda"), "texts": [
            "Irrigation of 120 hectares of winter wheat sown in late October, drip at 90 % efficiency",
            "Crop water demand of 120 ha of winter wheat planted in October, with an application efficiency of 90 %",
        ]},
    ],
    "groundwater_decline": [
        {"id": "trend", "intake": {}, "texts": [
            "Are groundwater levels declining in this well?",
            "Is the water table falling at our borehole?",
            "Trend in the groundwater level of the aquifer: is there a decline?",
        ]},
        {"id": "licensing", "intake": {"decision": "abstraction licensing", "period": "2014-2016"},
         "sites": ("hesse_well", "flat_brook", "atlantic"), "texts": [
            "Before we grant an abstraction licence: did the groundwater level decline from 2014 to 2016?",
            "Groundwater level trend over 2014-2016 at the borehole, for abstraction licensing",
        ]},
    ],
    "water_quality": [
        {"id": "index", "intake": {}, "texts": [
            "Is the water quality good? Compute the CCME water quality index of the samples.",
            "Water quality index for these samples",
            "How does the river's water quality score against the guidelines?",
        ]},
        {"id": "drinking", "intake": {"use": "drinking water"}, "sites": ("devon_samples", "flat_brook", "atlantic"),
         "texts": [
            "Is this water safe to drink? Check the samples against drinking water guidelines.",
            "Do the samples meet the drinking water guidelines?",
        ]},
    ],
}
