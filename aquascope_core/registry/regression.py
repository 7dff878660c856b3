"""Registry rows for the U.S. regional peak-flow methods: NSS regression, Fuller's daily-to-peak ratio,
Bulletin 17C chapter 8 weighting and the drainage-area-ratio transfer (see aquascope_core.registry)."""

from aquascope_core.registry import MethodPrecondition

_B17C = ("England, J.F. Jr. et al. (2019) Guidelines for Determining Flood Flow Frequency, Bulletin 17C. U.S. "
         "Geological Survey Techniques and Methods 4-B5, chapter 8.")

METHODS: list[MethodPrecondition] = [
    MethodPrecondition(
        id="nss_peak_regression",
        label="USGS regional regression equations for peak flows (National Streamflow Statistics)",
        variable=None,
        citation="Ries, K.G. III (2007) The National Streamflow Statistics Program. USGS Techniques and Methods "
                 "4-A6; each region's report as the result cites it.",
        function="aquascope_core.methods.regression.peak_flow_regression",
        tool="nss_peak_regression",
        problems=("flood_risk",),
        notes="Valid inside the ranges of basin characteristics the equations were fitted over; outside them the "
              "result is flagged outside_range and graded C at most.",
    ),
    MethodPrecondition(
        id="fuller_peak_ratio",
        label="Indicative instantaneous peak from the maximum daily mean flow (Fuller 1914)",
        variable=None,
        citation="Fuller, W.E. (1914) Flood flows. Transactions of the American Society of Civil Engineers 77, 564-617.",
        function="aquascope_core.methods.daily_to_peak.indicative_peaks",
        tool="indicative_peak",
        problems=("flood_risk",),
        notes="An average ratio over many rivers: indicative, graded C at most.",
    ),
    MethodPrecondition(
        id="weighted_estimates",
        label="At-site and regression estimates weighted by the inverse of their variances (Bulletin 17C ch. 8)",
        variable=None,
        citation=_B17C,
        function="aquascope_core.methods.weighting.weighted_estimates",
        tool="weighted_flood_estimate",
        problems=("flood_risk",),
    ),
    MethodPrecondition(
        id="drainage_area_transfer",
        label="Drainage-area-ratio transfer from a gauge to a site on the same stream",
        variable=None,
        citation=_B17C,
        function="aquascope_core.methods.transfer.drainage_area_transfer",
        tool="area_ratio_transfer",
        problems=("flood_risk",),
        notes="Accepted for a site 0.5 to 1.5 times the gauge's drainage area; beyond it the regression.",
    ),
]
