"""Registry rows for the flood methods (see aquascope_core.registry).

Record lengths are in years of annual maxima. ``max_return_period_factor`` bounds how far beyond
the record a return level may be quoted: three times the record length is a common working
limit for at-site estimates; beyond it the number rests on the assumed tail shape, not on data
(the Flood Estimation Handbook turns to pooled, regional estimates well before that).
"""

from aquascope_core.registry import MethodPrecondition

_HW1997 = (
    "Hosking, J.R.M. and Wallis, J.R. (1997) Regional Frequency Analysis: An Approach Based on L-Moments. "
    "Cambridge University Press."
)
_B17B = (
    "Interagency Advisory Committee on Water Data (1982) Guidelines for Determining Flood Flow Frequency, "
    "Bulletin 17B. U.S. Geological Survey, Reston, VA."
)
_FEH = "Robson, A. and Reed, D. (1999) Flood Estimation Handbook, vol. 3: Statistical procedures for flood frequency estimation. Institute of Hydrology, Wallingford."
_COLES = "Coles, S. (2001) An Introduction to Statistical Modeling of Extreme Values. Springer, London, ch. 3."
_B17C = (
    "England, J.F. Jr. et al. (2018, v1.1 2019) Guidelines for determining flood flow frequency, Bulletin 17C. "
    "U.S. Geological Survey Techniques and Methods 4-B5, https://doi.org/10.3133/tm4B5"
)
_FF = "aquascope_core.methods.flood_frequency"
_B17 = "aquascope_core.methods.bulletin17c"

METHODS: list[MethodPrecondition] = [
    MethodPrecondition(
        id="annual_maxima",
        label="Water-year maxima of a daily flow record",
        variable="discharge",
        citation="U.S. Geological Survey water-year convention (October-September, named by the year it ends).",
        function=f"{_FF}.annual_maxima",
        tool="annual_maxima",
        min_years=1,
        marginal_years=1,
        resolution="daily",
        problems=("flood_risk",),
        notes="Maxima of daily means understate the instantaneous peak, most on small, flashy catchments; "
        "the payload's label says which basis the values have.",
    ),
    MethodPrecondition(
        id="gev_lmoments",
        label="Generalised extreme value distribution fitted by L-moments",
        variable="series",  # the flood record the step fits: daily-mean maxima, peaks or published maxima
        citation=_HW1997,
        function=f"{_FF}.fit_gev_lmoments",
        tool="flood_frequency",
        min_years=20,
        marginal_years=10,
        resolution="any",
        max_return_period_factor=3,
        problems=("flood_risk",),
        notes="L-moment estimates stay usable in short records where maximum likelihood is erratic "
        "(Hosking, Wallis and Wood 1985, Technometrics 27, 251-261).",
    ),
    MethodPrecondition(
        id="gumbel_lmoments",
        label="Gumbel (EV1) distribution fitted by L-moments",
        variable="series",  # the flood record the step fits: daily-mean maxima, peaks or published maxima
        citation=_HW1997,
        function=f"{_FF}.fit_gumbel_lmoments",
        tool="flood_frequency",
        min_years=15,
        marginal_years=10,
        resolution="any",
        max_return_period_factor=3,
        problems=("flood_risk",),
        notes="Two parameters: its fixed skew (tau3 = 0.17) understates the tail of heavy-tailed records; "
        "compare with the GEV's shape before relying on it.",
    ),
    MethodPrecondition(
        id="glo_lmoments",
        label="Generalised logistic distribution fitted by L-moments",
        variable="series",  # the flood record the step fits: daily-mean maxima, peaks or published maxima
        citation=f"{_HW1997}; {_FEH}",
        function=f"{_FF}.fit_glo_lmoments",
        tool="flood_frequency",
        min_years=20,
        marginal_years=10,
        resolution="any",
        max_return_period_factor=3,
        problems=("flood_risk",),
        notes="The UK Flood Estimation Handbook's default for annual maxima.",
    ),
    MethodPrecondition(
        id="pe3_lmoments",
        label="Pearson type III distribution fitted by L-moments",
        variable="series",  # the flood record the step fits: daily-mean maxima, peaks or published maxima
        citation=_HW1997,
        function=f"{_FF}.fit_pe3_lmoments",
        tool="flood_frequency",
        min_years=20,
        marginal_years=10,
        resolution="any",
        max_return_period_factor=3,
        problems=("flood_risk",),
    ),
    MethodPrecondition(
        id="lp3_moments",
        label="Log-Pearson type III by moments of the log flows (at-site skew)",
        variable="series",  # the flood record the step fits: daily-mean maxima, peaks or published maxima
        citation=_B17B,
        function=f"{_FF}.fit_lp3_moments",
        tool="flood_frequency",
        min_years=25,
        marginal_years=10,
        resolution="any",
        max_return_period_factor=3,
        problems=("flood_risk",),
        notes="Bulletin 17B asks for at least 10 years; the at-site skew of a short record is so uncertain "
        "that the Bulletin weights it with a regional skew (use lp3_ema for that). Needs flows > 0.",
    ),
    MethodPrecondition(
        id="gev_ml",
        label="Generalised extreme value distribution fitted by maximum likelihood",
        variable="series",  # the flood record the step fits: daily-mean maxima, peaks or published maxima
        citation=_COLES,
        function=f"{_FF}.fit_gev_ml",
        tool="flood_frequency",
        min_years=30,
        marginal_years=20,
        resolution="any",
        max_return_period_factor=3,
        problems=("flood_risk",),
        notes="Gives standard errors and delta-method bands; in records shorter than about 30 years the "
        "shape estimate is erratic (Hosking, Wallis and Wood 1985) and L-moments are preferred.",
    ),
    MethodPrecondition(
        id="gumbel_ml",
        label="Gumbel (EV1) distribution fitted by maximum likelihood",
        variable="series",  # the flood record the step fits: daily-mean maxima, peaks or published maxima
        citation=_COLES,
        function=f"{_FF}.fit_gumbel_ml",
        tool="flood_frequency",
        min_years=15,
        marginal_years=10,
        resolution="any",
        max_return_period_factor=3,
        problems=("flood_risk",),
        notes="Maximum likelihood beside the L-moment Gumbel: standard errors from the observed information; "
        "like every two-parameter Gumbel its fixed skew understates heavy tails.",
    ),
    MethodPrecondition(
        id="lp3_ema",
        label="Log-Pearson type III by the expected moments algorithm (Bulletin 17C)",
        variable="series",  # the flood record the step fits: daily-mean maxima, peaks or published maxima
        citation=_B17C,
        function=f"{_B17}.fit_lp3_ema",
        tool="bulletin17c_ema",
        min_years=25,
        marginal_years=10,
        resolution="any",
        max_return_period_factor=3,
        problems=("flood_risk",),
        notes="The U.S. federal standard: historical floods and perception thresholds, the multiple Grubbs-Beck "
        "low-outlier test and a weighted regional skew. Bulletin 17C asks for at least 10 years of systematic "
        "record; the factor applies to the record length including the historical period.",
    ),
    MethodPrecondition(
        id="multiple_grubbs_beck",
        label="Multiple Grubbs-Beck test for potentially influential low floods",
        variable="series",  # the flood record the step fits: daily-mean maxima, peaks or published maxima
        citation="Cohn, T.A. et al. (2013) Water Resources Research 49(8), 5047-5058; " + _B17C,
        function=f"{_B17}.multiple_grubbs_beck",
        tool="bulletin17c_ema",
        min_years=10,
        marginal_years=10,
        resolution="any",
        problems=("flood_risk",),
    ),
    MethodPrecondition(
        id="regional_skew",
        label="Published USGS regional skew for Bulletin 17C skew weighting",
        variable=None,
        citation="The state's USGS regional skew study, as cited in each row of "
        "aquascope_core/methods/data/usgs_regional_skew.csv",
        function=f"{_B17}.regional_skew",
        tool="bulletin17c_ema",
        problems=("flood_risk",),
        notes="United States only; refuses states whose table row has no published (verified) value.",
    ),
]
