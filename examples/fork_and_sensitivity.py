"""The Python API beyond one study: its history, a fork with an edit, and the sensitivity table.

    python examples/fork_and_sensitivity.py [OUT_DIR]

Keyless and offline, on the embedded Flat Brook record (USGS 01440000): the 100-year flood as planned,
a fork of its plan for the 200-year flood, then forks over return period, distribution, confidence level
and a record left out, tabled in the report written to OUT_DIR.
"""

from __future__ import annotations

import sys

from graphs.studio import Studio


def main(out: str = "flood-sensitivity") -> None:
    with Studio(lat=41.10, lon=-74.96) as studio:
        reply = studio.say("Design flow for a road crossing, 100-year")
        if reply.kind == "data_request":  # the site's basin characteristics: gone on without them
            studio.say("continue without")
        print(studio.approve().text)
        for row in studio.history():
            print(f"  checkpoint {row['checkpoint_id'][:8]} step {row['step']:>2} next {row['next']} "
                  f"status {row['status']}" + (f" waits for {row['waiting_for']}" if row["waiting_for"] else ""))
        fork = studio.fork(at="plan", edits={"intake": {"return_period": 200}}, by="reviewer")
        print(f"fork {fork.id} of {studio.id}: {fork.workspace().report['answer']}")
        result = studio.sensitivity()
        table = result["table"]
        print(" | ".join(table["columns"][:7]))
        for row in table["rows"]:
            print(" | ".join(str(x) for x in row[:7]))
        for path in studio.export(out):
            print("wrote", path)


if __name__ == "__main__":
    main(*sys.argv[1:])
