"""Where a cold CLI study spends its CPU: cProfile in every thread (LangGraph runs the nodes in worker threads).

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/profile_cli.py [--out DIR] [--top 40] [--save FILE] -- studio
"Design flow for a road crossing, 100-year" --lat 41.10 --lon -74.96 --yes``. Each thread that runs Python gets its
own ``cProfile.Profile`` (started by ``threading.setprofile`` on the thread's first call); at the end the profiles
are merged and printed by cumulative time, with the process's CPU seconds (user + sys) beside the wall clock, and
the CPU of the stretch before the first node ran (imports and setup). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from threadprof import ThreadProfiles, cpu  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--save", default=None, help="write the merged stats here (pstats format)")
    ap.add_argument("--sort", default="cumulative")
    ap.add_argument("cli", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cli = [a for a in args.cli if a != "--"]
    if "--out" not in cli:
        cli += ["--out", tempfile.mkdtemp(prefix="aquascope-prof-")]

    cpu0 = cpu()
    with ThreadProfiles() as tp:
        from graphs.cli import main as cli_main

        cpu_imported = cpu()
        try:
            cli_main(cli)
        except SystemExit:
            pass
    text = tp.report(sort=args.sort, top=args.top, save=args.save)
    print(f"threads profiled: {len(tp.profiles)}")
    print(f"CPU s (user+sys, profiled, so inflated): {tp.cpu_s:.2f}; of which importing graphs.cli: "
          f"{cpu_imported - cpu0:.2f}; wall s: {tp.wall_s:.2f}")
    print(text)


if __name__ == "__main__":
    sys.exit(main())
