"""Convert the per-state NSS peak-flow snapshots into aquascope's compact package data.

Input: the ``nss_snapshot/<STATE>.json`` files of the PyPI flowfreq 0.16.0 wheel (USGS National Streamflow
Statistics equations, retrieved 2026-10-25). Output: ``aquascope_core/methods/data/nss_peak_equations.json.gz``:

    {"provenance": str,
     "reports": {report_id: {"citation", "url", "year"}},
     "states": {STATE: {"retrieved": str, "unparsed": int,
                        "regions": {region_code: {"name", "report", "nss_table",
                                                  "variables": {CODE: [unit, minimum, maximum]},
                                                  "equations": [[aep, intercept, sep_log, [term, ...]], ...]}}}}}

A term is ``[CODE, coefficient, transform]`` with an optional fourth element ``{"scale", "offset", "exponent"}``;
an equation of the constant form is ``[aep, null, null, [], constant_cfs]``. log10(Q) = intercept +
sum(coefficient * T(scale * x + offset)).

Run: python scripts/build_nss_equations.py /path/to/flowfreq/data/regression/nss_snapshot
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "aquascope_core" / "methods" / "data" / "nss_peak_equations.json.gz"


def convert(snapshot_dir: Path) -> dict:
    reports: dict[str, dict] = {}
    states: dict[str, dict] = {}
    for path in sorted(snapshot_dir.glob("*.json")):
        snap = json.loads(path.read_text(encoding="utf-8"))
        st = snap["state"]
        regions: dict[str, dict] = {}
        for eq in snap["equations"]:
            cit = eq["citation"]
            cid = cit["table"].rsplit("citation", 1)[-1].strip()
            rid = f"{st}-{cid}"
            reports.setdefault(rid, {"citation": " ".join(cit["publication"].split()), "url": cit["url"].strip(),
                                     "year": cit["year"]})
            reg = regions.setdefault(eq["region_code"], {"name": eq["region_name"], "report": rid,
                                                         "nss_table": cit["table"], "variables": {}, "equations": []})
            terms = []
            for v, c in zip(eq["variables"], eq["coefficients"]):
                rng = [v["units"], v["minimum"], v["maximum"]]
                known = reg["variables"].setdefault(v["code"], rng)
                if known != rng:  # a range that differs by AEP: keep the widest, as NSS reports one per region
                    known[1], known[2] = min(known[1], rng[1]), max(known[2], rng[2])
                term = [v["code"], c, v["transform"]]
                extra = {k: v[k] for k in ("scale", "offset", "exponent") if k in v}
                if extra:
                    term.append(extra)
                terms.append(term)
            if eq.get("form") == "constant":
                reg["equations"].append([eq["aep"], None, None, [], eq["constant_cfs"]])
            else:
                reg["equations"].append([eq["aep"], eq["intercept"], eq.get("sep_log"), terms])
        states[st] = {"retrieved": snap["retrieved_utc"], "unparsed": len(snap.get("unparsed") or []),
                      "regions": regions}
    return {"provenance": "USGS National Streamflow Statistics (NSS) peak-flow equations, per-state snapshots "
                          "retrieved 2026-10-25 as carried by PyPI flowfreq 0.16.0 "
                          "(flowfreq/data/regression/nss_snapshot/*.json; data U.S. public domain), converted by "
                          "scripts/build_nss_equations.py.",
            "reports": reports, "states": states}


if __name__ == "__main__":
    data = convert(Path(sys.argv[1]))
    OUT.write_bytes(gzip.compress(json.dumps(data, separators=(",", ":")).encode("utf-8"), mtime=0))
    n = sum(len(r["equations"]) for s in data["states"].values() for r in s["regions"].values())
    print(f"{len(data['states'])} states, {n} equations -> {OUT} ({OUT.stat().st_size} bytes)")
