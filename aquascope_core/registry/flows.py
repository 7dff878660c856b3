"""Registry rows for the flows methods (see aquascope_core.registry).

Flow duration, low flows, baseflow and the hydrological signatures of a daily discharge record.
Record lengths follow common practice: a duration curve or a signature from fewer than about ten
years describes those years rather than the river; a 7Q10 is quoted from at least ten complete
climatic years, and is defensible from twenty.
"""

from aquascope_core.registry import MethodPrecondition

_M = "aquascope_core.methods."
_LOW = ("drought_status", "supply_reliability", "water_quality")
_ALL = ("flood_risk", "drought_status", "supply_reliability", "water_quality", "groundwater_decline")

METHODS: list[MethodPrecondition] = [
    MethodPrecondition(
        id="flow_duration_curve",
        label="Flow duration curve (Weibull plotting position) with Q5, Q50, Q95",
        variable="discharge",
        citation="Vogel & Fennessey (1994) J. Water Resour. Plann. Manage. 120(4), 485-504; "
                 "Sawicz et al. (2011) Hydrol. Earth Syst. Sci. 15, 2895-2911 (FDC slope)",
        function=_M + "flows.flow_duration_curve",
        tool="flow_duration_curve",
        min_years=10, marginal_years=3, resolution="daily",
        problems=("drought_status", "supply_reliability", "water_quality", "flood_risk"),
        notes="Period-of-record curve: it describes the years it was drawn from; quote the period.",
    ),
    MethodPrecondition(
        id="annual_minimum_flows",
        label="Annual 7-day minimum flow by climatic year (April-March)",
        variable="discharge",
        citation="Riggs (1972) USGS TWRI book 4 ch. B1; Smakhtin (2001) J. Hydrol. 240, 147-186",
        function=_M + "flows.annual_minimum_flows",
        tool="annual_minimum_flows",
        min_years=10, marginal_years=5, resolution="daily",
        problems=_LOW,
        notes="Complete climatic years only by default; years named by the year they start in.",
    ),
    MethodPrecondition(
        id="low_flow_frequency",
        label="7Q10 low flow (log-Pearson III or Weibull on annual 7-day minima)",
        variable="discharge",
        citation="Riggs (1972) USGS TWRI book 4 ch. B1; Smakhtin (2001) J. Hydrol. 240, 147-186; "
                 "US EPA (1986) Technical guidance manual for performing wasteload allocations, book VI",
        function=_M + "flows.low_flow_frequency",
        tool="low_flow_frequency",
        min_years=20, marginal_years=10, max_return_period_factor=2.0, resolution="daily",
        problems=_LOW,
        notes="Needs at least 10 complete climatic years; zero annual minima (intermittent streams) "
              "are not fitted (no conditional-probability adjustment).",
    ),
    MethodPrecondition(
        id="lyne_hollick_baseflow",
        label="Baseflow index by the Lyne-Hollick filter (alpha 0.925, 3 passes, Ladson et al. 2013)",
        variable="discharge",
        citation="Lyne & Hollick (1979); Nathan & McMahon (1990) Water Resour. Res. 26, 1465-1473; "
                 "Ladson et al. (2013) Australasian J. Water Resour. 17(1), 25-34",
        function=_M + "baseflow.lyne_hollick_baseflow",
        tool="lyne_hollick_baseflow",
        min_years=5, marginal_years=1, resolution="daily",
        problems=("drought_status", "supply_reliability", "groundwater_decline"),
        notes="Gap-free daily record; a filter index, not a tracer-based separation.",
    ),
    MethodPrecondition(
        id="eckhardt_baseflow",
        label="Baseflow index by the Eckhardt two-parameter filter",
        variable="discharge",
        citation="Eckhardt (2005) Hydrol. Process. 19, 507-515",
        function=_M + "baseflow.eckhardt_baseflow",
        tool="eckhardt_baseflow",
        min_years=5, marginal_years=1, resolution="daily",
        problems=("drought_status", "supply_reliability", "groundwater_decline"),
        notes="BFImax (0.80 / 0.50 / 0.25 by aquifer and regime) and the recession constant must be "
              "stated; the index follows BFImax closely.",
    ),
    MethodPrecondition(
        id="mean_annual_flow",
        label="Mean annual flow (mean of complete years) and mean annual runoff",
        variable="discharge",
        citation="Addor et al. (2017) Hydrol. Earth Syst. Sci. 21, 5293-5313 (q_mean)",
        function=_M + "signatures.mean_annual_flow",
        tool="mean_annual_flow",
        min_years=10, marginal_years=5, resolution="daily",
        problems=_ALL,
    ),
    MethodPrecondition(
        id="runoff_ratio",
        label="Runoff ratio (streamflow depth over precipitation depth)",
        variable="discharge",
        citation="Addor et al. (2017) Hydrol. Earth Syst. Sci. 21, 5293-5313 (runoff_ratio)",
        function=_M + "signatures.runoff_ratio",
        tool="runoff_ratio",
        min_years=5, marginal_years=1, resolution="daily",
        needs=("precipitation",),
        problems=("drought_status", "supply_reliability", "groundwater_decline"),
        notes="Needs the catchment area when the flow is volumetric.",
    ),
    MethodPrecondition(
        id="richards_baker_flashiness",
        label="Richards-Baker flashiness index",
        variable="discharge",
        citation="Baker et al. (2004) J. Am. Water Resour. Assoc. 40(2), 503-522",
        function=_M + "signatures.richards_baker_flashiness",
        tool="richards_baker_flashiness",
        min_years=5, marginal_years=1, resolution="daily",
        problems=("flood_risk", "water_quality"),
    ),
    MethodPrecondition(
        id="flow_seasonality",
        label="Flow regime: monthly means, seasonality index, half-flow date",
        variable="discharge",
        citation="Walsh & Lawler (1981) Weather 36(7), 201-208; Court (1962) J. Geophys. Res. 67, 4335-4339",
        function=_M + "signatures.flow_seasonality",
        tool="flow_seasonality",
        min_years=10, marginal_years=3, resolution="daily",
        problems=_ALL,
    ),
    MethodPrecondition(
        id="high_low_flow_events",
        label="High- and low-flow frequency and duration (CAMELS: Q > 9 x median, Q < 0.2 x mean)",
        variable="discharge",
        citation="Addor et al. (2017) Hydrol. Earth Syst. Sci. 21, 5293-5313; Addor et al. (2018) "
                 "Water Resour. Res. 54, 8792-8812",
        function=_M + "signatures.high_low_flow_events",
        tool="high_low_flow_events",
        min_years=10, marginal_years=3, resolution="daily",
        problems=("flood_risk", "drought_status", "supply_reliability"),
    ),
]
