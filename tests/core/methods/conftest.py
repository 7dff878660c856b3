"""The PeakFQ 8.1.0 oracle for the Bulletin 17C differential tests: the USGS Fortran built once per session.

The Fortran, its build script and driver are in the shared reference folder (``../shared/reference/peakfq-8.1.0``
beside the checkout); the folder is copied to a temporary directory and compiled there with gfortran
(``.ci/run`` installs it). Without gfortran the tests that need the oracle are skipped, saying so.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scripts.peakfq810 import oracle as peakfq810  # noqa: E402


@pytest.fixture(scope="session")
def peakfq_oracle(tmp_path_factory) -> "peakfq810.Oracle":
    """PeakFQ 8.1.0's EMA (emafitpr) built from the shared reference folder into a temporary directory."""
    if peakfq810.compiler() is None:
        pytest.skip("gfortran is not installed: the PeakFQ 8.1.0 oracle cannot be built (apt-get install gfortran)")
    folder = peakfq810.build(tmp_path_factory.mktemp("peakfq810") / "peakfq-8.1.0")
    return peakfq810.Oracle(folder)
