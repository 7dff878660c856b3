"""A StreamStats basin-characteristics report uploaded as a CSV, read and mapped to the NSS variable codes.

The file below is written here after the layout the StreamStats application's "Download CSV" report uses (a
header with the Region ID, workspace and clicked point, a Basin Characteristics block of Parameter Code,
Parameter Description, Value, Unit, then a Peak-Flow Statistics Parameters block naming the region with Min and
Max Limits and its Flow Report); the values are illustrative for Flat Brook near Flatbrookville NJ
(USGS 01440000, 64.0 mi2), not a StreamStats delineation.
"""

from __future__ import annotations

import pytest

from aquascope_core.data import ingest
from aquascope_core.data.streamstats import parse_characteristics, read_report, sniff
from aquascope_core.errors import InputError
from aquascope_core.tools.regression import nss_peak_regression

REPORT = """StreamStats Report
Region ID:,NJ
Workspace ID:,NJ20261101120000123000
Clicked Point (Latitude, Longitude):,41.10600,-74.95250
Time:,2026-11-01 12:00:05 -0500

Basin Characteristics
Parameter Code,Parameter Description,Value,Unit
DRNAREA,Area that drains to a point on a stream,64.0,square miles
STORAGE,Percentage of area of storage (lakes ponds reservoirs wetlands),2.9,percent
CSL10_85,Change in elevation divided by length between points 10 and 85 percent of distance along main channel,20.0,feet per mi
POPDENS,Population density in the area that drains to a point,40.0,persons per square mile
LC06IMP,Percentage of impervious area determined from NLCD 2006 impervious dataset,0.6,percent

Peak-Flow Statistics Parameters [Peak Valley and Ridge Region 2009 5167]
Parameter Code,Parameter Name,Value,Units,Min Limit,Max Limit
DRNAREA,Drainage Area,64.0,square miles,0.87,763
STORAGE,Percent Storage,2.9,percent,2.36,30.1
CSL10_85,Stream Slope 10 and 85 Longest Flow Path,20.0,feet per mi,2.56,268
POPDENS,Population Density,40.0,persons per square mile,35,1493

Peak-Flow Statistics Flow Report [Peak Valley and Ridge Region 2009 5167]
Statistic,Value,Unit,PIl,PIu,SEp
1 Percent AEP flood,5000,ft^3/s,2020,12400,59.9
"""


def test_a_streamstats_report_is_sniffed_and_read():
    assert sniff(REPORT) and not sniff("date,flow (m3/s)\n2020-01-01,1.0\n")
    got = read_report(REPORT.encode("utf-8"))
    assert got["state"] == "NJ" and got["point"] == {"lat": 41.106, "lon": -74.9525}
    assert got["regions"] == ["Peak Valley and Ridge Region 2009 5167"]
    c = got["characteristics"]
    assert c["DRNAREA"] == {"value": 64.0, "unit": "square miles", "description": "Area that drains to a point on a stream"}
    assert {k: v["value"] for k, v in c.items()} == {"DRNAREA": 64.0, "STORAGE": 2.9, "CSL10_85": 20.0,
                                                    "POPDENS": 40.0, "LC06IMP": 0.6}


def test_an_uploaded_report_feeds_the_regression():
    ds = ingest("flat_brook_streamstats.csv", REPORT.encode("utf-8"))
    assert ds["layout"] == "streamstats" and ds["variables"] == []
    rep = ds["basin_characteristics"]
    out = nss_peak_regression(rep["characteristics"], region=rep["regions"][0], state=rep["state"], return_periods=[100])
    # the report's region name maps to NSS's GC1259; the 100-year peak is the NJ test's hand-worked 5005 ft3/s
    assert out["region"]["code"] == "GC1259"
    assert out["fits"]["nss_regression"]["return_levels"][0] == pytest.approx(5004.8, rel=1e-4)
    assert out["outside_range"] is False and out["unit"] == "ft3/s"


def test_characteristics_in_words_and_bad_values():
    assert parse_characteristics("DRNAREA=64.0; STORAGE 2.9, CSL10_85: 20") == {"DRNAREA": 64.0, "STORAGE": 2.9,
                                                                                "CSL10_85": 20.0}
    with pytest.raises(InputError, match="CODE=value"):
        parse_characteristics("no numbers here")
    with pytest.raises(InputError, match="not a number"):
        read_report(REPORT.replace("64.0,square miles\nSTORAGE", "n/a,square miles\nSTORAGE"))
