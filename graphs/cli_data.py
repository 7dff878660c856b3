"""`aquascope fetch` and `aquascope data`: a gauge's records pulled once from the live services, and what is held.

    AQUASCOPE_LIVE=1 aquascope fetch --lat 38.96 --lon -76.69 [--station 01594440] [--what daily,peaks]
    aquascope data [--json]

Live access needs two switches, on purpose: the caller's (this command, or ``--live`` on ``studio``) and the
environment's, ``AQUASCOPE_LIVE=1`` (so a server's operator can keep every study offline whatever its users ask).
Records fetched are held under ``$AQUASCOPE_HOME/data``; later studies at the place read them offline.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

__all__ = ["add_parsers"]


def cmd_fetch(args: argparse.Namespace) -> int:
    from aquascope_core.data.fetch import fetch_gauge
    from aquascope_core.data.live import LIVE_ENV, live_enabled
    from aquascope_core.errors import InputError

    if not live_enabled(True):
        raise InputError("aquascope fetch reads the live services, which are off in this environment.",
                         argument=LIVE_ENV, recovery=f"Set {LIVE_ENV}=1 (e.g. {LIVE_ENV}=1 aquascope fetch ...), or "
                         "upload the record instead (for annual peaks: the USGS peak file, WATSTORE or RDB).")
    out = fetch_gauge(args.lat, args.lon, station=args.station, what=args.what, source=args.source,
                      radius_km=args.radius)
    if args.json:
        print(json.dumps(out, indent=1, default=str))
        return 0
    st = out["station"]
    print(f"{args.source} {st['station_id']} {st.get('name') or ''}".rstrip())
    for r in out["records"]:
        prov = f", {r['provisional']} provisional (subject to revision)" if r["provisional"] else ""
        print(f"  held {r['variable']} ({r['unit']}): {r['n_values']} values {r['period_start']} to {r['period_end']}"
              f"{prov}; retrieved {str(r['fetched'])[:19]}Z")
    for f in out["failed"]:
        print(f"  not held {f['variable']}: {f['reason']}")
    print(f"  in {out['root']}; studies at this place now read them offline")
    return 0 if out["records"] else 2


def cmd_data(args: argparse.Namespace) -> int:
    from aquascope_core.data.held import held_records

    rows = held_records()
    if args.json:
        print(json.dumps(rows, indent=1, default=str))
        return 0
    if not rows:
        print("no records are held; fetch a gauge's with: AQUASCOPE_LIVE=1 aquascope fetch --lat .. --lon ..")
        return 0
    for r in rows:
        prov = f"  {r['provisional']} provisional" if r["provisional"] else ""
        print(f"{r['source']:<10} {r['station_id']:<16} {r['variable']:<15} {r['n_values']:>6} values "
              f"{r['period_start']} to {r['period_end']}  retrieved {str(r['fetched'])[:10]}{prov}  {r['name'] or ''}")
    return 0


def add_parsers(sub: Any) -> None:
    f = sub.add_parser("fetch", help="pull a gauge's records once from the live services into the local store "
                                     "(needs AQUASCOPE_LIVE=1); later studies there run offline")
    f.add_argument("--lat", type=float, required=True, help="latitude of the place (decimal degrees)")
    f.add_argument("--lon", type=float, required=True, help="longitude of the place (decimal degrees)")
    f.add_argument("--station", help="the gauge's id (e.g. 01594440); default: the stream gauge nearest the place")
    f.add_argument("--what", default="daily,peaks", help="daily, peaks or both (default daily,peaks)")
    f.add_argument("--radius", type=float, default=50.0, help="search radius for the nearest gauge, km (default 50)")
    f.add_argument("--source", default="usgs_live", help="the live source (default usgs_live)")
    f.add_argument("--json", action="store_true")
    f.set_defaults(func=cmd_fetch)
    d = sub.add_parser("data", help="list the records held locally (fetched with aquascope fetch)")
    d.add_argument("--json", action="store_true")
    d.set_defaults(func=cmd_data)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(1)
