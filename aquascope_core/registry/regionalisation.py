"""Registry rows for the regionalisation methods (see aquascope_core.registry)."""

from aquascope_core.registry import MethodPrecondition

_DONORS = ("Oudin et al. (2008) Spatial proximity, physical similarity, regression and ungaged catchments, "
           "Water Resour. Res. 44 W03413; Blöschl et al. (2013) Runoff Prediction in Ungauged Basins, "
           "Cambridge University Press")

METHODS: list[MethodPrecondition] = [
    MethodPrecondition(
        id="select_donors",
        label="Donor catchments by similarity (distance, area, climate)",
        variable=None,
        citation=_DONORS,
        function="aquascope_core.methods.regionalisation.select_donors",
        tool="select_donors",
        min_donors=3,
        problems=("ungauged_flow", "flood_risk"),
        notes="Eligible: within 250 km and 0.2-5x the target's area (defaults); refused below min_donors.",
    ),
    MethodPrecondition(
        id="transfer_signature",
        label="Flow signature transferred from donor catchments",
        variable=None,
        citation=_DONORS,
        function="aquascope_core.methods.regionalisation.transfer_signature",
        tool="transfer_signature",
        min_donors=3,
        problems=("ungauged_flow",),
        notes="Geometric mean of the donors' scaled values, 10-90 % band, leave-one-out skill over the donors.",
    ),
    MethodPrecondition(
        id="regional_index_flood",
        label="Mean annual flood (index flood) from donor catchments, scaled by area",
        variable=None,
        citation=("Dalrymple (1960) Flood-frequency analyses, USGS Water-Supply Paper 1543-A; Kjeldsen, Jones & "
                  "Bayliss (2008) Improving the FEH statistical procedures for flood frequency estimation, "
                  "Environment Agency Science Report SC050050"),
        function="aquascope_core.methods.regionalisation.regional_index_flood",
        tool="regional_index_flood",
        min_donors=3,
        problems=("flood_risk", "ungauged_flow"),
        notes="Q ~ A^b; b fitted on at least 8 eligible donors (se <= 0.2, 0.2 <= b <= 1.2), else b = 0.851 (FEH QMED).",
    ),
]
