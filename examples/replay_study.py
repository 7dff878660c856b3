"""Replay a study written by the crew, with no model and no graph, and compare its gates.

    python examples/replay_study.py flood-study/study.yaml
"""

from __future__ import annotations

import sys
from pathlib import Path

from aquascope_core import run_study
from aquascope_core.study import Study


def main(path: str) -> None:
    study = Study.from_yaml(Path(path).read_text())
    run = run_study(study)
    for sid, res in run.results.items():
        gates = ", ".join(f"{g['check']} {'ok' if g['passed'] else 'FAILED'}" for g in res.gates)
        print(f"{sid} {res.tool:<16} {res.status:<8} {gates}")


if __name__ == "__main__":
    main(*sys.argv[1:])
