"""Registry rows for the supply methods (see aquascope_core.registry)."""

from aquascope_core.registry import MethodPrecondition

_HASHIMOTO = ("Hashimoto, Stedinger & Loucks (1982) Reliability, resiliency, and vulnerability criteria for water "
              "resource system performance evaluation, Water Resour. Res. 18(1) 14-20; McMahon, Adeloye & Zhou (2006) "
              "Understanding performance measures of reservoirs, J. Hydrol. 324 359-382")
# A storage-yield answer is only as good as the worst drought in the record: a short record
# usually misses the critical period, hence the long-record thresholds.
_RECORD = dict(min_years=20.0, marginal_years=10.0, resolution="monthly")

METHODS: list[MethodPrecondition] = [
    MethodPrecondition(
        id="simulate_reservoir",
        label="Reservoir behaviour simulation (mass balance, meet demand when possible)",
        variable="discharge",
        citation=_HASHIMOTO,
        function="aquascope_core.methods.supply.simulate_reservoir",
        tool="simulate_reservoir",
        problems=("supply_reliability",),
        notes="Inflow as volumes per period (monthly or finer); evaporation as a fixed volume per period.",
        **_RECORD,
    ),
    MethodPrecondition(
        id="sequent_peak_storage",
        label="Storage needed to meet a demand (sequent peak, double cycle)",
        variable="discharge",
        citation=("Thomas & Burden (1963) Operations Research in Water Quality Management, Harvard University; "
                  "Loucks & van Beek (2017) Water Resource Systems Planning and Management, Springer, ch. 11"),
        function="aquascope_core.methods.supply.sequent_peak_storage",
        tool="sequent_peak_storage",
        problems=("supply_reliability",),
        notes="Refused when demand exceeds the mean inflow of the record.",
        **_RECORD,
    ),
    MethodPrecondition(
        id="supply_reliability",
        label="Reliability, resilience and vulnerability of a supply",
        variable="discharge",
        citation=_HASHIMOTO,
        function="aquascope_core.methods.supply.supply_reliability",
        tool="run_of_river_reliability",
        problems=("supply_reliability",),
        notes="Runs on a supplied series against its demand (from a simulation or records).",
        **_RECORD,
    ),
]
