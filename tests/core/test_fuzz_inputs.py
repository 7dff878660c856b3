"""Fuzzing what users hand in (uploads, study files, briefs) with hypothesis: a fixed seed and a bounded number
of examples. Every input either works or ends in an AquascopeError; none raises anything else, none takes more
than a few seconds, and the user's file is unchanged."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aquascope_core.data.ingest import ingest
from aquascope_core.errors import AquascopeError
from aquascope_core.study import Study

FUZZ = settings(max_examples=150, deadline=5000, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])

_CELLS = st.one_of(
    st.sampled_from(["2020-01-01", "2300-01-01", "1600-12-31", "2262-04-12", "01/02/2020", "31.12.1999", "2021-13-01",
                     "1999", "NA", "", "-9999", "1e308", "nan", "inf", "-1", "3.5", "3,5", "Q (m3/s)", "date", "year",
                     "flow_cfs", "level_m", "\"", "#", "\x00", "é", "\ud800"]),
    st.text(max_size=12),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-10**12, 10**12).map(str),
)
_ROWS = st.lists(st.lists(_CELLS, min_size=1, max_size=6), min_size=0, max_size=40)


def _csv(rows, sep: str) -> bytes:
    return "\n".join(sep.join(r) for r in rows).encode("utf-8", "surrogatepass")


@FUZZ
@given(rows=_ROWS, sep=st.sampled_from([",", ";", "\t"]), header=st.booleans())
def test_any_csv_like_upload_is_read_or_refused_cleanly(rows, sep, header):
    raw = _csv(([["date", "Q (m3/s)"]] if header else []) + rows, sep)
    try:
        ingest("fuzz", raw)
    except AquascopeError:
        pass


@FUZZ
@given(raw=st.binary(max_size=2000), prefix=st.sampled_from([b"", b"PK\x03\x04", b"\xff\xfe", b"\xef\xbb\xbf",
                                                              b"date,q\n"]))
def test_any_bytes_are_read_or_refused_cleanly(raw, prefix, tmp_path_factory):
    path = tmp_path_factory.mktemp("fuzz") / "upload.csv"
    path.write_bytes(prefix + raw)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    try:
        ingest("fuzz", path)
    except AquascopeError:
        pass
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before  # the user's file is never touched


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**9, 10**9), st.floats(allow_nan=False),
                     st.text(max_size=10), st.dates())
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                       max_leaves=20)
_STEP = st.fixed_dictionaries({}, optional={
    "id": _SCALARS, "tool": st.one_of(st.sampled_from(["flood_frequency", "annual_maxima", "station_record"]),
                                      _SCALARS),
    "arguments": _VALUES, "expects": _VALUES, "depends_on": _VALUES, "fallback": _VALUES, "optional": _VALUES,
    "method": _VALUES, "title": _VALUES, "outputs": _VALUES})
_STUDY = st.fixed_dictionaries({}, optional={
    "version": st.one_of(st.sampled_from([1, 2, 3]), _SCALARS), "steps": st.one_of(st.lists(_STEP, max_size=4), _VALUES),
    "problem": _VALUES, "plan": _VALUES, "results": _VALUES, "title": _VALUES, "id": _SCALARS})


@FUZZ
@given(study=_STUDY, noise=st.text(max_size=20), at=st.integers(0, 400))
def test_any_study_file_loads_or_is_refused_cleanly(study, noise, at):
    from aquascope_core.catalogue import validate_plan

    text = yaml.safe_dump(study, allow_unicode=True)
    for candidate in (text, text[:at] + noise + text[at:]):
        try:
            loaded = Study.from_yaml(candidate)
        except AquascopeError:
            continue
        validate_plan(loaded)  # returns the problems as a list; must not raise on what from_yaml accepted
        Study.from_yaml(loaded.to_yaml())  # and what it accepted round-trips


@FUZZ
@given(text=st.text(st.characters(exclude_categories=()), min_size=1, max_size=300))
def test_any_brief_is_read_or_refused_cleanly(text):
    from aquascope_core.workspace import Workspace
    from roles.consultant import consultant

    ws = Workspace(site={"lat": 41.10, "lon": -74.96}, request={"text": text})
    try:
        consultant(ws)
    except AquascopeError:
        return
    ws.to_json()  # what the consultant kept serialises


@pytest.mark.slow
@settings(max_examples=25, deadline=20000, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(text=st.text(st.characters(exclude_categories=()), min_size=1, max_size=200))
def test_any_brief_through_the_studio_is_checkpointed_or_refused_cleanly(text):
    from graphs.studio import Studio

    try:
        with Studio(41.10, -74.96) as s:
            s.say(text)
            assert s.to_dict()["request"]["text"]
    except AquascopeError:
        pass
