"""The Studio conversation over what the crew reads: an upload's open question asked and answered in words."""

from __future__ import annotations

from pathlib import Path

from graphs.studio import Studio
from tests.answers import past_request

CASES = Path(__file__).resolve().parents[1] / "roles" / "cases" / "uploads"


def test_an_uploads_unit_is_asked_then_taken_from_the_reply(tmp_path):
    with Studio(45.0, -100.0, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}",
                data={"peaks.csv": CASES / "big_sandy_peaks_no_unit.csv"}) as s:
        r = past_request(s, s.say("100-year flood from my annual peaks"))
        assert r.kind == "questions" and "unit of column 'peak'" in r.text and "peak_cfs" in r.text
        r = past_request(s, s.say("the peaks are in cfs"))
        assert r.kind == "plan" and "Bulletin 17C" in r.text
        assert s.to_dict()["tables"]["peaks.csv"]["variables"][0]["unit"] == "ft3/s"


def test_a_question_no_study_answers_is_declined_in_the_conversation(tmp_path):
    with Studio(41.10, -74.96, checkpointer=f"sqlite:///{tmp_path / 'cp.sqlite'}") as s:
        r = past_request(s, s.say("How deep will the water be in my basement in the 100-year flood?"))
        assert s.status == "declined" and "flood depth" in r.text and "hydraulic model" in r.text
