"""Registry rows for the trends methods (see aquascope_core.registry)."""

from aquascope_core.registry import MethodPrecondition

_TREND_PROBLEMS = ("flood_risk", "groundwater_decline", "drought_status", "water_quality", "supply_reliability")

METHODS: list[MethodPrecondition] = [
    MethodPrecondition(
        id="mann_kendall",
        label="Mann-Kendall trend test with Sen's slope",
        variable="series",
        citation="Mann (1945) Econometrica 13, 245-259; Kendall (1975) Rank Correlation Methods; "
                 "Sen (1968) J. Am. Stat. Assoc. 63, 1379-1389",
        function="aquascope_core.methods.trends.mann_kendall",
        tool="trend_test",
        min_years=10,
        marginal_years=8,
        resolution="any",
        problems=_TREND_PROBLEMS,
        notes="Runs on any series (annual maxima, annual means, a user's series); one value per year or season. "
              "The original test assumes serially independent values: use variant='hamed_rao' or 'prewhitened' "
              "for autocorrelated series.",
    ),
    MethodPrecondition(
        id="sens_slope",
        label="Sen's slope with its rank-based confidence interval",
        variable="series",
        citation="Sen (1968) J. Am. Stat. Assoc. 63, 1379-1389; Gilbert (1987) Statistical Methods for "
                 "Environmental Pollution Monitoring, sec. 16.5",
        function="aquascope_core.methods.trends.sens_slope",
        tool="trend_test",
        min_years=10,
        marginal_years=8,
        resolution="any",
        problems=_TREND_PROBLEMS,
        notes="Magnitude of a monotonic trend; quote it with the Mann-Kendall test's verdict.",
    ),
    MethodPrecondition(
        id="seasonal_mann_kendall",
        label="Seasonal Kendall trend test with the seasonal Kendall slope",
        variable="series",
        citation="Hirsch, Slack & Smith (1982) Water Resour. Res. 18(1), 107-121; Sen (1968); "
                 "Gilbert (1987) ch. 17",
        function="aquascope_core.methods.trends.seasonal_mann_kendall",
        tool="water_quality_trend",
        min_years=10,
        marginal_years=8,
        resolution="monthly",
        problems=_TREND_PROBLEMS,
        notes="Monthly or quarterly values (one per season and year). Seasons are treated as independent "
              "(no Hirsch-Slack covariance term).",
    ),
    MethodPrecondition(
        id="groundwater_level_trend",
        label="Groundwater level trend (Sen's slope with Mann-Kendall on annual means; seasonal Kendall on monthly means)",
        variable="groundwater_level",
        citation="Mann (1945) Econometrica 13, 245-259; Sen (1968) J. Am. Stat. Assoc. 63, 1379-1389; "
                 "Hirsch, Slack & Smith (1982) Water Resour. Res. 18(1), 107-121",
        function="aquascope_core.methods.trends.mann_kendall",
        tool="groundwater_level_trend",
        min_years=10,
        marginal_years=2,
        resolution="monthly",
        needs=("groundwater_level",),
        problems=("groundwater_decline",),
        notes="A decade of annual means is wanted before a decline rate is quoted for a licensing or management "
              "decision; from two to ten years only the seasonal Kendall test on monthly means can be made, and "
              "its slope is a screening figure. Annual heads are serially correlated: the p-value of the original "
              "test is optimistic.",
    ),
]
