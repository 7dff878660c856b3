"""Registry rows for the drought methods (see aquascope_core.registry).

The standardised indices are fitted per calendar month, so their record length is the number of
years behind each calendar month: defensible from 30 (WMO 2012), marginal from 15. The functions
themselves refuse fewer than 10 values per calendar month and flag anything under 30 as marginal.
"""

from aquascope_core.registry import MethodPrecondition

_M = "aquascope_core.methods.drought."

METHODS: list[MethodPrecondition] = [
    MethodPrecondition(
        id="standardized_precipitation_index",
        label="Standardized Precipitation Index (SPI, gamma)",
        variable="precipitation",
        citation="McKee, Doesken & Kleist (1993) 8th Conf. Applied Climatology, AMS, 179-184; "
                 "WMO (2012) Standardized Precipitation Index User Guide, WMO-No. 1090",
        function=_M + "standardized_precipitation_index",
        tool="standardized_precipitation_index",
        min_years=30,
        marginal_years=15,
        resolution="monthly",
        needs=("precipitation",),
        problems=("drought_status", "irrigation_feasibility", "groundwater_decline"),
        notes="Gamma fitted per calendar month by maximum likelihood with the probability of zero as a mixture; "
              "time scales 1, 3, 6, 12, 24 months. A gap stays a gap, with every window that contains it.",
    ),
    MethodPrecondition(
        id="standardized_precipitation_evapotranspiration_index",
        label="Standardized Precipitation Evapotranspiration Index (SPEI, log-logistic)",
        variable="precipitation",
        citation="Vicente-Serrano, Begueria & Lopez-Moreno (2010) J. Climate 23, 1696-1718; "
                 "Begueria et al. (2014) Int. J. Climatol. 34, 3001-3023",
        function=_M + "standardized_precipitation_evapotranspiration_index",
        tool="standardized_precipitation_evapotranspiration_index",
        min_years=30,
        marginal_years=15,
        resolution="monthly",
        needs=("precipitation", "potential_evapotranspiration"),
        problems=("drought_status", "irrigation_feasibility"),
        notes="Three-parameter log-logistic on the accumulated P - PET, fitted per calendar month by "
              "probability-weighted moments. PET may be Penman-Monteith, Hargreaves or Oudin (say which).",
    ),
    MethodPrecondition(
        id="standardized_groundwater_index",
        label="Standardised Groundwater level Index (SGI)",
        variable="groundwater_level",
        citation="Bloomfield & Marchant (2013) Hydrol. Earth Syst. Sci. 17, 4769-4787",
        function=_M + "standardized_groundwater_index",
        tool="standardized_groundwater_index",
        min_years=30,
        marginal_years=15,
        resolution="monthly",
        needs=("groundwater_level",),
        problems=("groundwater_decline", "drought_status"),
        notes="Normal scores transform per calendar month; needs regular monthly (or daily) levels, not sparse dips.",
    ),
    MethodPrecondition(
        id="standardized_streamflow_index",
        label="Standardised Streamflow Index (SSI, normal scores)",
        variable="discharge",
        citation="Farahmand & AghaKouchak (2015) Adv. Water Resour. 76, 140-145; "
                 "Vicente-Serrano et al. (2012) J. Hydrol. Eng. 17, 318-332",
        function=_M + "standardized_streamflow_index",
        tool="standardized_streamflow_index",
        min_years=30,
        marginal_years=15,
        resolution="monthly",
        needs=("discharge",),
        problems=("drought_status",),
        notes="Non-parametric (Gringorten plotting positions) per calendar month; no value more extreme than the record.",
    ),
    MethodPrecondition(
        id="drought_events",
        label="Drought events by run theory (onset, duration, severity, peak)",
        variable=None,
        citation="Yevjevich (1967) Hydrology Papers 23, Colorado State University",
        function=_M + "drought_events",
        tool="drought_events",
        problems=("drought_status", "groundwater_decline"),
        notes="Runs on a standardised index (SPI, SPEI, SSI, SGI); threshold -1 by default. Its record-length "
              "requirement is that of the index it runs on.",
    ),
    MethodPrecondition(
        id="drought_classes",
        label="Drought classes (McKee et al. 1993)",
        variable=None,
        citation="McKee, Doesken & Kleist (1993) 8th Conf. Applied Climatology, AMS, 179-184",
        function=_M + "drought_classes",
        tool="drought_classes",
        problems=("drought_status",),
        notes="Classifies a standardised index; inherits the index's record-length requirement.",
    ),
    MethodPrecondition(
        id="drought_propagation",
        label="Drought propagation (SPI-n against SSI or SGI, best time scale and lag)",
        variable="precipitation",
        citation="Barker et al. (2016) Hydrol. Earth Syst. Sci. 20, 2483-2505; "
                 "Bloomfield & Marchant (2013) Hydrol. Earth Syst. Sci. 17, 4769-4787",
        function=_M + "drought_propagation",
        tool="drought_propagation",
        min_years=30,
        marginal_years=15,
        resolution="monthly",
        needs=("precipitation",),
        problems=("drought_status", "groundwater_decline"),
        notes="Also needs a concurrent discharge or groundwater record of at least 10 years (120 paired months).",
    ),
]
