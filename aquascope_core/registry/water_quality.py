"""Registry rows for the water_quality methods (see aquascope_core.registry)."""

from aquascope_core.registry import MethodPrecondition

METHODS: list[MethodPrecondition] = [
    MethodPrecondition(
        id="ccme_water_quality_index",
        label="CCME Water Quality Index 1.0",
        variable="water_quality",
        citation=("CCME (2001) Canadian water quality guidelines for the protection of aquatic life: CCME Water "
                  "Quality Index 1.0, Technical Report and User's Manual, Canadian Council of Ministers of the "
                  "Environment"),
        function="aquascope_core.methods.water_quality.ccme_water_quality_index",
        tool="ccme_water_quality_index",
        resolution="sample",
        problems=("water_quality",),
        notes="At least 4 parameters, each sampled at least 4 times (run-time check); objectives site-specific "
              "or from the CCME aquatic-life or WHO drinking-water tables.",
    ),
]
