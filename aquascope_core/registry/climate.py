"""Registry rows for the climate methods: evapotranspiration and crop water demand (see aquascope_core.registry).

These run on the climate record of a period; they have no record-length requirement of their own
(a study that wants a climatology asks the length of the record it averages).
"""

from aquascope_core.registry import MethodPrecondition

_ET = "aquascope_core.methods.evapotranspiration."
_CROPS = "aquascope_core.methods.crops."
_FAO56 = "Allen, Pereira, Raes & Smith (1998) FAO Irrigation and Drainage Paper 56"

METHODS: list[MethodPrecondition] = [
    MethodPrecondition(
        id="fao56_penman_monteith",
        label="FAO-56 Penman-Monteith reference evapotranspiration",
        variable="air_temperature_max",
        citation=_FAO56 + ", Eq. 6",
        function=_ET + "fao56_penman_monteith",
        tool="reference_evapotranspiration",
        resolution="monthly",
        needs=("air_temperature_max", "air_temperature_min"),
        problems=("irrigation_feasibility", "drought_status"),
        notes="Daily or monthly. Needs Tmax and Tmin; humidity, radiation (or sunshine) and wind improve it. "
              "Without them the FAO-56 conventions apply and are stated: Tdew = Tmin, Hargreaves radiation, u2 = 2 m/s.",
    ),
    MethodPrecondition(
        id="hargreaves_samani",
        label="Hargreaves-Samani reference evapotranspiration",
        variable="air_temperature_max",
        citation="Hargreaves & Samani (1985) Appl. Eng. Agric. 1, 96-99; " + _FAO56 + ", Eq. 52",
        function=_ET + "hargreaves_samani",
        tool="reference_evapotranspiration",
        resolution="monthly",
        needs=("air_temperature_max", "air_temperature_min"),
        problems=("irrigation_feasibility", "drought_status"),
        notes="Temperature only; best for periods of five days or more. Check against Penman-Monteith where possible.",
    ),
    MethodPrecondition(
        id="oudin",
        label="Oudin potential evapotranspiration",
        variable="air_temperature",
        citation="Oudin et al. (2005) J. Hydrol. 303, 290-306",
        function=_ET + "oudin",
        tool="potential_evapotranspiration_oudin",
        resolution="monthly",
        needs=("air_temperature",),
        problems=("drought_status",),
        notes="Mean temperature and latitude only; the PET input of lumped rainfall-runoff models, not a crop ET0.",
    ),
    MethodPrecondition(
        id="extraterrestrial_radiation",
        label="Extraterrestrial radiation and daylight hours",
        variable=None,
        citation=_FAO56 + ", Eqs. 21-25, 34",
        function=_ET + "extraterrestrial_radiation",
        tool="reference_evapotranspiration",
        problems=("irrigation_feasibility",),
    ),
    MethodPrecondition(
        id="crop_coefficient_curve",
        label="FAO-56 crop coefficient curve (single Kc)",
        variable=None,
        citation=_FAO56 + ", Tables 11-12, Eqs. 62, 65, 66",
        function=_CROPS + "crop_coefficient_curve",
        tool="crop_water_demand",
        problems=("irrigation_feasibility",),
    ),
    MethodPrecondition(
        id="effective_rainfall",
        label="Effective rainfall (USDA-SCS as in CROPWAT, or a fixed fraction)",
        variable="precipitation",
        citation="Smith (1992) CROPWAT, FAO Irrigation and Drainage Paper 46",
        function=_CROPS + "effective_rainfall",
        tool="crop_water_demand",
        resolution="monthly",
        needs=("precipitation",),
        problems=("irrigation_feasibility",),
    ),
    MethodPrecondition(
        id="crop_water_demand",
        label="Crop water demand and net and gross irrigation requirement (FAO-56 single Kc)",
        variable="precipitation",
        citation=_FAO56 + ", chapter 6; Smith (1992) FAO Irrigation and Drainage Paper 46",
        function=_CROPS + "crop_water_demand",
        tool="crop_water_demand",
        resolution="monthly",
        needs=("precipitation",),
        problems=("irrigation_feasibility",),
        notes="Monthly balance without soil-water carry-over: a planning figure, not an irrigation schedule. "
              "ET0 from a PET record, Penman-Monteith, or Hargreaves when only temperatures exist (said so); "
              "the ET0 step carries its own precondition.",
    ),
]
