"""Write the European-form upload tables of the reading cases (tests/roles/cases/uploads/) from real records.

Each table is a record the repository holds, rewritten as its owner in Europe might keep it: day-first dates,
semicolons, decimal commas, a units row under the header, abbreviated (German) headers, a legend row. Values
are copied, never changed. Run: python scripts/make_european_uploads.py
"""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "roles" / "cases" / "uploads"
# the Fulda catchment (Hesse) 1979-1988, the example data of SPOTPY (PyPI spotpy 1.6.7, MIT), as the shared data
# folder holds it (tests/reference/spotpy_fulda_daily_1983.csv is its 1983 slice)
FULDA = Path("/work/shared/data/spotpy_hesse/fulda_daily_1979_1988.csv")
SCHWINGBACH = ROOT / "tests" / "reference" / "spotpy_schwingbach_site24_daily_gwhead_2014_2016.csv.gz"
FLAT_BROOK = ROOT / "tests" / "reference" / "usgs_01440000_flat_brook_daily_1990_2020_m3s.csv.gz"
LEAF = ROOT / "tests" / "reference" / "holmes_leaf_river_daily_1957_1987.csv.gz"


def _rows(path: Path) -> list[dict[str, str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _dmy(iso: str, sep: str = ".") -> str:
    y, m, d = iso[:10].split("-")
    return f"{d}{sep}{m}{sep}{y}"


def _comma(x: str) -> str:
    return x.replace(".", ",")


def _write(name: str, header: list[list[str]], rows: list[list[str]]) -> None:
    """Header rows (names, then a legend or units row) and the data rows, separated by semicolons."""
    (OUT / name).write_text("\n".join(";".join(r) for r in [*header, *rows]) + "\n", encoding="utf-8")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    # Schwingbach site 24: German header with a units row, rain, mean temperature and head
    sw = _rows(SCHWINGBACH)
    _write("schwingbach_gw_de.csv", [["Datum", "NS", "TM", "Grundwasserstand"], ["", "mm", "°C", "m NHN"]],
           [[_dmy(r["time"]), _comma(r["rain_mm"]), _comma(r["tmean_c"]), _comma(r["gwhead_m"])] for r in sw])
    # Fulda 1979-1988: Prec/Tmax/Tmin/Q under a legend row and a units row
    fu = _rows(FULDA)
    _write("fulda_1979_1988_legend.csv", [["Date", "Prec", "Tmax", "Tmin", "Q"],
                                           ["Datum", "Niederschlag", "Lufttemperatur Maximum", "Lufttemperatur Minimum",
                                            "Abfluss"],
                                           ["", "mm/d", "degC", "degC", "m3/s"]],
           [[_dmy(r["date"]), _comma(r["prec_mm"]), _comma(r["tmax_c"]), _comma(r["tmin_c"]), _comma(r["q_m3s"])]
            for r in fu])
    # Flat Brook 1991-2005 daily flow: day-first slashes, "Abfluss" with the unit row
    fb = [r for r in _rows(FLAT_BROOK) if "1990-10-01" <= r["date"] <= "2005-09-30"]
    _write("flat_brook_abfluss_de.csv", [["Datum", "Abfluss"], ["", "m³/s"]],
           [[_dmy(r["date"], "/"), _comma(r["discharge_m3s"])] for r in fb])
    # Leaf River 1958-1987 rainfall in mm as "N": the German one-letter abbreviation, units row
    lf = [r for r in _rows(LEAF) if r["Date"] >= "1958-01-01"]
    _write("leaf_river_n_mm.csv", [["Datum", "N"], ["", "mm"]], [[_dmy(r["Date"]), _comma(r["P"])] for r in lf])
    # the same flow with a header that names nothing: the one thing to ask
    _write("flat_brook_wert.csv", [["Datum", "Wert"]],
           [[_dmy(r["date"]), _comma(r["discharge_m3s"])] for r in fb])


if __name__ == "__main__":
    main()
