"""What the basin characteristics of the USGS regression equations are, in words.

The NSS equation library names each characteristic by its StreamStats code and unit only (the snapshots it was
built from hold no description). This table says what the common codes measure, written for this package from
the codes' meaning in StreamStats; a code it does not hold is described as its region's report defines it.
Where a user finds the values: a StreamStats basin-characteristics report for the site (its "Parameter Code"
column carries the code), or the measurement the region's report describes.
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["DESCRIPTIONS", "WHERE", "describe", "characteristic_entry", "characteristic_text",
           "characteristics_text", "unit_text"]

WHERE = ("a StreamStats basin-characteristics report for the site (its Parameter Code column), or as the region's "
         "report measures it")

_STORM = "precipitation depth of the {d} storm with a {t} recurrence interval ({p} annual exceedance probability)"


def _storm(d: str, t: int) -> str:
    p = 100.0 / t
    return _STORM.format(d=d, t=f"{t}-year", p=f"{p:g} %")


DESCRIPTIONS: dict[str, str] = {
    "DRNAREA": "drainage area, the area of the basin upstream of the site",
    "CONTDA": "contributing drainage area, the part of the basin whose runoff reaches the site (closed, "
              "non-contributing depressions left out)",
    "DAUNREG": "the part of the drainage area not regulated by upstream dams",
    "CSL10_85": "main-channel slope between the points at 10 % and 85 % of the main channel's length from the site",
    "CSL1085LFP": "main-channel slope between 10 % and 85 % of the length of the longest flow path",
    "CSL10_85fm": "main-channel slope between 10 % and 85 % of the main channel's length, as the state's report "
                  "measures it",
    "CSLBlue": "main-channel slope measured along the mapped (blue-line) stream",
    "PRECIP": "mean annual precipitation over the basin",
    "PRECPRIS00": "mean annual precipitation over the basin, from the PRISM climate normals",
    "PRECPRIS10": "mean annual precipitation over the basin, from the PRISM climate normals",
    "PRECPRIS20": "mean annual precipitation over the basin, from the PRISM climate normals",
    "PRECIPCENT": "mean annual precipitation at the basin's centroid",
    "APRAVPRE": "mean April precipitation over the basin",
    "PMPE": "mean annual precipitation minus potential evapotranspiration",
    "I24H2Y": _storm("24-hour", 2), "I24H5Y": _storm("24-hour", 5), "I24H10Y": _storm("24-hour", 10),
    "I24H25Y": _storm("24-hour", 25), "I24H50Y": _storm("24-hour", 50), "I24H100Y": _storm("24-hour", 100),
    "I24H200Y": _storm("24-hour", 200), "I24H500Y": _storm("24-hour", 500), "I48H500Y": _storm("48-hour", 500),
    "I60M25Y": _storm("60-minute", 25),
    "IMPERV": "impervious area, as a share of the basin",
    "IMPNLCD01": "impervious area, as a share of the basin (National Land Cover Database 2001)",
    "LC06IMP": "impervious area, as a share of the basin (National Land Cover Database 2006)",
    "LC11IMP": "impervious area, as a share of the basin (National Land Cover Database 2011)",
    "LC06DEV": "developed land, as a share of the basin (National Land Cover Database 2006)",
    "LC11DEV": "developed land, as a share of the basin (National Land Cover Database 2011)",
    "LC11DVOPN": "developed open space, as a share of the basin (National Land Cover Database 2011)",
    "LC11PAST": "pasture and hay land, as a share of the basin (National Land Cover Database 2011)",
    "LC01HERB": "herbaceous land cover, as a share of the basin (National Land Cover Database 2001)",
    "LC01WATER": "open water, as a share of the basin (National Land Cover Database 2001)",
    "LC06STOR": "lakes, ponds and wetlands, as a share of the basin (National Land Cover Database 2006)",
    "LC92STOR": "lakes, ponds and wetlands, as a share of the basin (National Land Cover Database 1992)",
    "URBAN": "urban land, as a share of the basin",
    "FOREST": "forest, as a share of the basin",
    "WETLAND": "wetlands, as a share of the basin",
    "STORAGE": "lakes, ponds, reservoirs and wetlands (storage), as a share of the basin",
    "STORNHD": "storage (lakes, ponds and wetlands of the National Hydrography Dataset), as a share of the basin",
    "LAKEAREA": "lakes and ponds, as a share of the basin",
    "CARBON": "carbonate bedrock, as a share of the basin",
    "DESMOIN": "the Des Moines Lobe landform region, as a share of the basin",
    "SOILA": "soils of hydrologic soil group A (high infiltration), as a share of the basin",
    "SSURGOA": "soils of hydrologic soil group A (SSURGO), as a share of the basin",
    "SOILD": "soils of hydrologic soil group D (very low infiltration), as a share of the basin",
    "SOILCorD": "soils of hydrologic soil groups C or D, as a share of the basin",
    "SSURGOKSAT": "mean saturated hydraulic conductivity of the basin's soils (SSURGO)",
    "WATCAP": "mean available water capacity of the basin's soils",
    "ELEV": "mean basin elevation",
    "ELEVMAX": "highest elevation in the basin",
    "EL1200": "the part of the basin above 1,200 ft, as a share of the basin",
    "BSHAPE": "basin shape factor, the square of the main channel's length divided by the drainage area",
    "BSHAPELFP": "basin shape factor, the square of the longest flow path's length divided by the drainage area",
    "COMPRAT": "compactness ratio, the basin's perimeter divided by the circumference of a circle of the same area",
    "LENGTH": "main-channel length",
    "RELRELF": "relative relief, the basin relief divided by the basin's perimeter",
    "STRDEN": "stream density, the total stream length divided by the drainage area",
    "DRNFREQ": "drainage frequency, the number of first-order streams per unit of drainage area",
    "BDF": "basin development factor, an index from 0 to 12 of the channel improvements and storm drainage of an "
           "urban basin",
    "POPDENS": "population density of the basin",
    "HOMEDENS": "housing density of the basin",
    "LAT_GAGE": "latitude of the site",
    "LAT_OUT": "latitude of the basin outlet",
    "LONG_OUT": "longitude of the basin outlet",
    "MAR": "mean annual runoff of the basin",
}


def unit_text(unit: Any) -> str:
    """A unit as the report prints it ("mi^2" -> "mi2"; "dim" -> "dimensionless")."""
    u = str(unit or "").strip()
    return {"dim": "dimensionless", "": "dimensionless"}.get(u, u.replace("^2", "2").replace("^3", "3"))


def describe(code: str) -> str:
    """What the characteristic of this code measures, in words (the region's report when the table holds none)."""
    return DESCRIPTIONS.get(str(code), "as the region's report defines it")


def characteristic_entry(code: str, unit: Any) -> dict[str, str]:
    """The structured form a data request carries: ``{code, unit, description, where}``."""
    return {"code": str(code), "unit": str(unit), "description": describe(code), "where": WHERE}


def characteristic_text(code: str, unit: Any) -> str:
    """``DRNAREA (mi^2): drainage area, the area of the basin upstream of the site``."""
    return f"{code} ({unit}): {describe(code)}"


def characteristics_text(pairs: Mapping[str, Any]) -> str:
    """Each characteristic of ``{code: unit}`` in words, joined by semicolons (the descriptions hold commas)."""
    return "; ".join(characteristic_text(c, u) for c, u in pairs.items())
