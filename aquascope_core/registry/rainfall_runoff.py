"""Registry rows for the rainfall_runoff methods (see aquascope_core.registry)."""

from aquascope_core.registry import MethodPrecondition

_CITATION = ("Perrin, Michel & Andreassian (2003) J. Hydrol. 279, 275-289; "
             "Coron et al. (2017) Environ. Model. Softw. 94, 166-171 (airGR)")
_PROBLEMS = ("ungauged_flow", "supply_reliability", "drought_status", "irrigation_feasibility")
_NOTES = (
    "Lumped daily model driven by catchment-average precipitation and PET (mm/d). It has no snow "
    "module: where snowmelt matters it is not defensible as is. No area ceiling is set because the "
    "literature gives no firm one, but a lumped model ignores spatial contrasts in rainfall and "
    "regulation by reservoirs or abstractions, which the reviewer must rule out. Calibration needs "
    "at least 365 observed days after a warm-up of at least a year. Perrin et al. (2007, Hydrol. Sci. J. "
    "52, 131-151) found GR4J's performance degrades on calibration records shorter than a few hundred "
    "days; the 5-year (3 marginal) thresholds here are a conventional margin so the record spans wet "
    "and dry years."
)

METHODS: list[MethodPrecondition] = [
    MethodPrecondition(
        id="gr4j_simulation",
        label="GR4J daily rainfall-runoff simulation",
        variable="discharge",
        citation=_CITATION,
        function="aquascope_core.methods.rainfall_runoff.gr4j_simulation",
        tool="gr4j_simulation",
        min_years=5,
        marginal_years=3,
        resolution="daily",
        needs=("precipitation", "potential_evapotranspiration"),
        problems=_PROBLEMS,
        notes=_NOTES + " The discharge record is what calibrates the parameters the simulation runs with.",
    ),
    MethodPrecondition(
        id="gr4j_calibration",
        label="GR4J calibration on observed discharge (grid screen and pattern search)",
        variable="discharge",
        citation=_CITATION + "; Hooke & Jeeves (1961) J. ACM 8, 212-229",
        function="aquascope_core.methods.rainfall_runoff.gr4j_calibration",
        tool="gr4j_calibration",
        min_years=5,
        marginal_years=3,
        resolution="daily",
        needs=("precipitation", "potential_evapotranspiration"),
        problems=_PROBLEMS,
        notes=_NOTES + " Quote split-sample validation scores (gr4j_split_sample_validation) beside the "
                       "calibration scores.",
    ),
]
