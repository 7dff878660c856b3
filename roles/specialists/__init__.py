"""Specialist knowledge: which numbers of each tool's payload matter, and what each problem's answer is.

``harvest(step, result)`` lists the key numbers of one established step, each anchored at the path
its value sits at (``s3.fits.gev_lmoments.return_levels[5]``), so the Interpreter, the Critic and
the Author quote only numbers a result holds. ``decide(kind, ...)`` makes the decision for a
problem kind from the key numbers and the brief.
"""

from __future__ import annotations

from roles.specialists.harvest import harvest, key_numbers
from roles.specialists.decisions import decide, grade_for_study, recommendations, data_requests

__all__ = ["harvest", "key_numbers", "decide", "grade_for_study", "recommendations", "data_requests"]
