"""Write the example upload tables in examples/uploads/ from the package's embedded and reference data.

    python scripts/make_upload_examples.py

Each file is a cut of real records (sources in examples/uploads/README.md), written in one of the header forms
the upload reader accepts, so that a person can see what a table of each kind looks like and try it with
``aquascope studio "..." --data examples/uploads/FILE --yes``. Values are copied as held, never filled.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "examples" / "uploads"
REF = ROOT / "tests" / "reference"


def daily_flows() -> None:
    """Flat Brook near Flatbrookville NJ (USGS 01440000), daily mean discharge, 1999-10-01 to 2020-03-31."""
    with gzip.open(REF / "usgs_01440000_flat_brook_daily_1990_2020_m3s.csv.gz", "rt") as fh:
        df = pd.read_csv(fh)
    date, value = df.columns[0], df.columns[1]
    df[date] = pd.to_datetime(df[date])
    cut = df[(df[date] >= "1999-10-01") & (df[date] <= "2020-03-31")]
    out = pd.DataFrame({"date": cut[date].dt.strftime("%Y-%m-%d"), "discharge (m3/s)": cut[value]})
    out.to_csv(OUT / "daily_flows.csv", index=False)


def annual_peaks() -> None:
    """Big Sandy River at Bruceton TN (USGS 03606500), systematic annual instantaneous peaks, 1930-1973."""
    case = json.loads((REF / "usgs_03606500_big_sandy_b17c_case.json").read_text())
    peaks = case["systematic_peaks"]
    years = sorted(peaks, key=int)
    pd.DataFrame({"water_year": [int(y) for y in years], "peak_cfs": [peaks[y] for y in years]}).to_csv(
        OUT / "annual_peaks.csv", index=False)


def well_levels() -> None:
    """Schwingbach site 24 (Hesse), daily groundwater head, 2014-2016 (SPOTPY's example data)."""
    with gzip.open(REF / "spotpy_schwingbach_site24_daily_gwhead_2014_2016.csv.gz", "rt") as fh:
        df = pd.read_csv(fh)
    pd.DataFrame({"date": df["time"], "level_m": df["gwhead_m"]}).to_csv(OUT / "well_levels.csv", index=False)


def climate() -> None:
    """Leaf River near Collins MS (USGS 02472000), daily precipitation and PET (mm), 1978-1987 (HOOPLA/MOPEX)."""
    with gzip.open(REF / "holmes_leaf_river_daily_1957_1987.csv.gz", "rt") as fh:
        df = pd.read_csv(fh)
    date = df.columns[0]
    df[date] = pd.to_datetime(df[date])
    cut = df[df[date] >= "1978-01-01"]
    pd.DataFrame({"date": cut[date].dt.strftime("%Y-%m-%d"), "precipitation (mm/d)": cut["P"],
                  "pet (mm/d)": cut["E0"]}).to_csv(OUT / "climate.csv", index=False)


# CCME (2001) Water Quality Index 1.0 User's Manual, worked example: North Saskatchewan River at Devon,
# Alberta, 1997 (as transcribed in the R package wqbc, data-raw/ccme.csv); None where not sampled.
_N = None
DEVON_1997 = {
    "dissolved oxygen": ([11.4, 11, 11.5, 12.5, 10.4, 8.9, 8.5, 7.5, 9.2, 11, 12.1, 13.3], "mg/L"),
    "pH": ([8, 7.9, 7.9, 7.9, 8.1, 8.2, 8.3, 8.2, 8.2, 8.1, 8, 8], "pH"),
    "total phosphorus": ([0.006, 0.005, 0.006, 0.058, 0.042, 0.108, 0.017, 0.008, 0.006, 0.008, 0.006, 0.004], "mg/L"),
    "total nitrogen": ([0.16, 0.17, 0.132, 0.428, 0.25, 0.707, 0.153, 0.153, 0.13, 0.093, 0.296, 0.054], "mg/L"),
    "arsenic": ([0.0002, 0, 0, 0, 0.0002, 0.0006, 0.0002, 0, 0.0003, 0, 0, 0], "mg/L"),
    "lead": ([0.0004, 0.0094, 0, 0.0008, 0.0008, 0.0013, 0.0004, 0, 0.0018, 0.0011, 0.0051, 0], "mg/L"),
    "mercury": ([0, 0, 0, 0, 0, 0, _N, 0, 0, 0, 0, 0], "ug/L"),
}
DATES = ["1997-01-07", "1997-02-04", "1997-03-04", "1997-04-08", "1997-05-06", "1997-06-03",
         "1997-07-08", "1997-08-05", "1997-09-02", "1997-10-07", "1997-11-04", "1997-12-01"]


def samples() -> None:
    lines = ["date,parameter,value,unit"]
    for name, (values, unit) in DEVON_1997.items():
        lines += [f"{d},{name},{v:g},{unit}" for d, v in zip(DATES, values) if v is not None]
    (OUT / "samples.csv").write_text("\n".join(lines) + "\n")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for make in (daily_flows, annual_peaks, well_levels, climate, samples):
        make()
        print("wrote", make.__name__)


if __name__ == "__main__":
    main()
