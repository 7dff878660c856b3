"""A flood study from Python: the brief, the crew's data request, the plan, your approval, the report.

    python examples/flood_study.py [OUT_DIR]

Keyless and offline: it runs on the embedded Flat Brook record (USGS 01440000).
"""

from __future__ import annotations

import sys

from graphs.studio import Studio


def main(out: str = "flood-study") -> None:
    with Studio(lat=41.10, lon=-74.96, on_event=lambda e: None) as studio:
        reply = studio.say("Design flow for a road crossing, 100-year")
        if reply.kind == "data_request":  # the site's basin characteristics, for the USGS regression peak
            print(reply.text)
            # say them ("DRNAREA 64.0, STORAGE 2.9, ...; Valley and Ridge region"), or studio.add_table() a
            # StreamStats report; without them the peak is indicative (Fuller 1914), graded C at most
            reply = studio.say("continue without")
        print(reply.text)  # the plan, with its gates
        reply = studio.approve()  # run it as planned
        print(reply.text)
        ws = studio.to_dict()
        for n in ws["report"]["not_established"]:
            print("not established:", n["title"], "-", n["reason"])
        for path in studio.export(out):
            print("wrote", path)


if __name__ == "__main__":
    main(*sys.argv[1:])
