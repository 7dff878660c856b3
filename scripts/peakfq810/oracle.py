"""PeakFQ 8.1.0's EMA Fortran as a reference for aquascope's Bulletin 17C: build it, run it on many records at once.

The Fortran (USGS peakfqr 8.1.0 ``emafit.f`` and its helpers, CC0), its build script and its Python driver live in
the shared reference folder ``../shared/reference/peakfq-8.1.0`` beside the checkout (``PEAKFQ810_DIR`` points
elsewhere); they are not part of the project. :func:`build` copies the folder to a temporary directory and
compiles it there (``FC=gfortran sh build.sh``); :class:`Oracle` turns a record (peaks with their qualification
codes and PeakFQ's options, the driver's vocabulary) into the Fortran's arguments with the driver's own data
handling and runs a whole batch in one child process: the Fortran ends its process with ``ERROR STOP`` on some
inputs, so a batch whose child dies is resumed after the record that killed it, which is reported as an error.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterable, Mapping

REPO = Path(__file__).resolve().parents[2]
ENV_DIR = "PEAKFQ810_DIR"
#: The orders the oracle's rows are given in: PeakFQ's own (chronological), the systematic peaks first (the order of
#: the published goldens), reversed, and three seeded permutations. EMA's answer does not depend on the order; the
#: Fortran's moves with it on ill-conditioned records, which measures how far its answer is defined there.
ROW_ORDERS = ("chronological", "systematic_first", "reverse", "shuffle1", "shuffle2", "shuffle3")
#: A call that spends this many seconds of CPU is ended and reported as an error (some permutations of a record
#: with a near-zero skew keep the Fortran's EMA iteration going for minutes).
CALL_TIMEOUT = 60.0
#: Perturbations of PeakFQ's inputs in their last bit: ``ulpK`` is PeakFQ's own (chronological) order with each
#: measured log peak moved by -1, 0 or +1 unit in the last place (seeded by K). Those bits are not data: they come
#: from the log10 routine (the correctly rounded one here; the C library's, which R uses on Linux, is 1 ulp off on
#: some peaks), so the change of PeakFQ's answer under them measures how far its answer is defined. Where EMA's
#: variance is taken at |G| held at 0.0632 its limits move by up to a few 1e-3 under them: the Pearson III moments and
#: their derivatives there are expanded about the gamma's origin 31.6 standard deviations away, which turns its
#: rounding into ~1e-4 of the derivatives in the skew (verified by calling its own d_est and var_mom).
ULP_DRAWS = tuple(f"ulp{k}" for k in range(1, 13))


def order_rows(driver, rows: list, how: str) -> list:
    """The rows in order ``how`` (one of :data:`ROW_ORDERS`)."""
    if how == "reverse":
        return list(reversed(rows))
    if how.startswith("shuffle") and how[7:].isdigit():
        out = list(rows)
        random.Random(int(how[7:])).shuffle(out)
        return out
    return driver.order_rows(rows, how)


def last_bit_perturbed(a: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """The Fortran's arguments with each measured log peak (ql = qu, zero flows left alone) moved by -1, 0 or +1 ulp."""
    rng = random.Random(seed)
    ql, qu = list(a["ql"]), list(a["qu"])
    for i, (lo, hi) in enumerate(zip(ql, qu)):
        step = rng.choice((-1, 0, 1))
        if lo == hi and lo > -19.0 and step:
            ql[i] = qu[i] = math.nextafter(lo, math.inf if step > 0 else -math.inf)
    return {**a, "ql": ql, "qu": qu}


class OracleUnavailable(RuntimeError):
    """The reference folder or a Fortran compiler is missing."""


def source_dir() -> Path:
    """The shared PeakFQ 8.1.0 reference folder."""
    if os.environ.get(ENV_DIR):
        d = Path(os.environ[ENV_DIR])
    else:
        d = REPO.parent / "shared" / "reference" / "peakfq-8.1.0"
    if not (d / "build.sh").is_file() or not (d / "peakfq_oracle.py").is_file():
        raise OracleUnavailable(f"the PeakFQ 8.1.0 reference folder is not at {d} (set {ENV_DIR})")
    return d


def compiler() -> str | None:
    return shutil.which(os.environ.get("FC", "gfortran"))


def _digest(src: Path) -> str:
    h = hashlib.sha256()
    for f in sorted((src / "src").iterdir()):
        h.update(f.name.encode() + f.read_bytes())
    h.update((src / "build.sh").read_bytes() + (src / "peakfq_oracle.py").read_bytes())
    return h.hexdigest()[:16]


def build(dest: Path | None = None) -> Path:
    """Copy the reference folder to ``dest`` (default: a cache folder in the temp directory) and compile it there.

    Returns the copy's folder, whose ``build/libpeakfq.so`` is the library. Reuses an earlier build of the same
    sources in the default folder.
    """
    src = source_dir()
    fc = compiler()
    if fc is None:
        raise OracleUnavailable("gfortran is not installed (Debian: apt-get install gfortran)")
    if dest is None:
        dest = Path(tempfile.gettempdir()) / f"aquascope-peakfq810-{_digest(src)}"
        if (dest / "build" / "libpeakfq.so").is_file():
            return dest
    dest = Path(dest)
    work = dest.with_name(dest.name + f".part{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(src, work, ignore=shutil.ignore_patterns("build", "__pycache__"))
    for p in [work, *work.rglob("*")]:
        p.chmod(p.stat().st_mode | 0o200)
    proc = subprocess.run(["sh", "build.sh"], cwd=work, env={**os.environ, "FC": fc}, capture_output=True, text=True)
    if proc.returncode != 0 or not (work / "build" / "libpeakfq.so").is_file():
        raise OracleUnavailable(f"the PeakFQ 8.1.0 build failed: {proc.stderr.strip()[-2000:]}")
    if dest.exists():
        shutil.rmtree(work, ignore_errors=True)   # another process finished first
    else:
        work.rename(dest)
    return dest


def load_driver(folder: Path):
    """The reference folder's ``peakfq_oracle.py`` as a module."""
    spec = importlib.util.spec_from_file_location("peakfq810_driver", Path(folder) / "peakfq_oracle.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# The child: loads the library once and calls emafitpr for each line of its input, one result line each.
_CHILD = r"""
import json, sys, importlib.util
spec = importlib.util.spec_from_file_location("drv", sys.argv[1])
drv = importlib.util.module_from_spec(spec); spec.loader.exec_module(drv)
lib = sys.argv[2]
out = open(sys.argv[4], "a")
for line in open(sys.argv[3]):
    res = drv._call_emafitpr(lib, json.loads(line))
    out.write(json.dumps(res) + "\n"); out.flush()
"""


class Oracle:
    """PeakFQ 8.1.0 on records ``{"peaks": [{water_year, peak, code}], "options": {...}}`` (driver vocabulary)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.lib = self.folder / "build" / "libpeakfq.so"
        self.driver = load_driver(self.folder)

    def prepare(self, record: Mapping[str, Any], row_order: str = "chronological"):
        """(rows, Fortran arguments, meta) for a record, by the driver's port of PeakFQ's R data handling."""
        d = self.driver
        opts = dict(record["options"])
        warnings: list[str] = []
        log10 = d.make_log10(opts.get("log10", "cr"))
        peaks = [{"water_year": int(p["water_year"]), "peak": p["peak"], "code": p.get("code") or ""}
                 for p in record["peaks"]]
        rows = d.site_qt(peaks, opts, warnings)
        n_exact = sum(1 for r in rows if r["ql"] == r["qu"])
        if len(rows) < 10 or n_exact < 8:
            raise d.OracleError(f"PeakFQ 8.1.0 drops sites with < 10 rows or < 8 exact peaks "
                                f"(rows {len(rows)}, exact {n_exact})")
        rows = order_rows(d, rows, "chronological" if row_order.startswith("ulp") else row_order)
        skew_opt, rg, rgmse = d.skew_settings(opts)
        lo_method, lo_thresh = d.lo_settings(opts)
        a, method = d.emafit_inputs(rows, lo_thresh, log10)
        wopt = (opts.get("weight_opt") or "HWN").upper()
        eps = float(opts.get("conf_interval", 0.90) or 0.90)
        aeps = list(opts.get("aeps") or d.DEFAULT_AEPS)
        if row_order.startswith("ulp"):
            a = last_bit_perturbed(a, int(row_order[3:]))
        a.update({"rG": rg, "rGmse": rgmse, "eps": eps, "weight_code": d.WEIGHT_CODES[wopt], "aeps": aeps})
        meta = {"skew_option": skew_opt, "regional_skew": None if skew_opt == "Station" else rg,
                "regional_skew_mse_passed": rgmse, "lo_method": method, "weight_opt": wopt, "conf_interval": eps,
                "log10": opts.get("log10", "cr"), "row_order": row_order, "warnings": warnings}
        return rows, a, meta

    def call_many(self, args: list[dict], workers: int = 2, timeout: float | None = None) -> list[dict]:
        """emafitpr on each argument set, in ``workers`` child processes at a time: a result dict, or
        ``{"error": ...}`` for an input on which the Fortran stopped or ran longer than ``timeout`` seconds (the
        batch resumes after it)."""
        results: list[dict | None] = [None] * len(args)
        with tempfile.TemporaryDirectory() as td:
            todo = [list(range(k, len(args), workers)) for k in range(workers)]
            todo = [t for t in todo if t]
            while todo:
                procs = []
                for w, idx in enumerate(todo):
                    fin, fout = Path(td) / f"in{w}_{idx[0]}.jsonl", Path(td) / f"out{w}_{idx[0]}.jsonl"
                    fin.write_text("".join(json.dumps(args[i]) + "\n" for i in idx))
                    fout.write_text("")
                    procs.append((idx, fout, subprocess.Popen(
                        [sys.executable, "-c", _CHILD, str(self.folder / "peakfq_oracle.py"), str(self.lib), str(fin),
                         str(fout)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
                todo = []
                for idx, fout, proc in procs:
                    out, err = self._wait(proc, fout, timeout)
                    got = [json.loads(ln) for ln in fout.read_text().splitlines() if ln.strip()]
                    for i, r in zip(idx, got):
                        results[i] = r
                    if len(got) < len(idx):
                        msg = (err.strip() or out.strip() or f"exit status {proc.returncode}")
                        results[idx[len(got)]] = {"error": f"emafitpr failed: {msg[-500:]}"}
                        if idx[len(got) + 1:]:
                            todo.append(idx[len(got) + 1:])
        return results  # type: ignore[return-value]

    @staticmethod
    def _wait(proc, fout: Path, timeout: float | None) -> tuple[str, str]:
        """Wait for a child; with ``timeout``, end it when it has spent that many seconds of CPU without a new
        result line. CPU seconds, not wall seconds, so that which calls are ended does not depend on what else the
        machine runs (a wall-clock budget ended more of PeakFQ's slow row orders under load than on a quiet machine,
        and the measured spreads moved with the load)."""
        if timeout is None:
            return proc.communicate()
        seen, since = 0, _cpu_seconds(proc.pid) or 0.0
        while True:
            try:
                return proc.communicate(timeout=0.5)
            except subprocess.TimeoutExpired:
                n = fout.read_text().count("\n")
                used = _cpu_seconds(proc.pid)
                if used is None:      # ended between the two reads: communicate() collects it
                    continue
                if n != seen:
                    seen, since = n, used
                elif used - since > timeout:
                    proc.kill()
                    out, err = proc.communicate()
                    return out, f"no answer in {timeout:.0f} s of CPU (ended)"

    def run_many(self, records: Iterable[Mapping[str, Any]], row_orders: Iterable[str] = ("chronological",),
                 timeout: float | None = None) -> list[dict[str, dict]]:
        """For each record, ``{row_order: driver result (or {"error"})}``; all calls in one batch."""
        records = list(records)
        orders = list(row_orders)
        jobs, slots, out = [], [], [dict() for _ in records]
        for i, rec in enumerate(records):
            for o in orders:
                try:
                    rows, a, meta = self.prepare(rec, o)
                except self.driver.OracleError as e:
                    out[i][o] = {"error": str(e)}
                    continue
                jobs.append(a)
                slots.append((i, o, rows, a["aeps"], meta))
        for (i, o, rows, aeps, meta), f in zip(slots, self.call_many(jobs, timeout=timeout)):
            out[i][o] = f if "error" in f else self.driver.assemble(f, rows, aeps, meta)
        return out

    def run(self, record: Mapping[str, Any], row_order: str = "chronological") -> dict:
        return self.run_many([record], (row_order,))[0][row_order]


def read_case(folder: Path, case_id: str) -> dict:
    """A shared case (``cases/<id>_options.json`` and its peaks CSV) as a record."""
    folder = Path(folder)
    d = load_driver(folder) if not hasattr(folder, "driver") else folder.driver
    opts = json.loads((folder / "cases" / f"{case_id}_options.json").read_text())
    peaks = d.read_peaks_csv(folder / "cases" / opts["peaks_csv"])
    keep = {k: v for k, v in opts.items() if k not in ("source", "reference", "peaks_csv")}
    return {"id": case_id, "peaks": peaks, "options": keep}


def case_ids(folder: Path) -> list[str]:
    return sorted(p.name[:-len("_options.json")] for p in (Path(folder) / "cases").glob("*_options.json"))


if __name__ == "__main__":   # build and print where: python -m scripts.peakfq810.oracle
    print(build())


def _cpu_seconds(pid: int) -> float | None:
    """User plus system CPU seconds of a running child (Linux /proc; the oracle is built and run on Linux), or None
    once it has gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None
