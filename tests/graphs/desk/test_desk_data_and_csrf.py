"""The desk's data-request form read into the ``provide_data`` answer the sdk sends (no server): a file or a
pasted table through the upload's own checks (limits, dates, values) with the refusal in words, the value in
words, continue without it, end the study; and the forms' check value (CSRF): every POST form of a page carries
it, a POST without it or with another session's is refused in words before anything is done."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from graphs.desk import session  # noqa: E402
from graphs.desk.data_request import data_answer, data_section, upload_name  # noqa: E402
from graphs.desk.forms import FormError  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
PEAKS = (ROOT / "examples" / "uploads" / "annual_peaks.csv").read_bytes()  # 44 annual peaks (its README: USGS)
REQUEST = {"why": "The 1000-year flood lies beyond what 80 years of record support",
           "what": "a longer flood record: the gauge's annual peaks", "effect": "the return period asked for could "
           "be estimated from the record", "continue_without": {"return_period": 240}, "grade_without": "B",
           "without": "estimate the largest return period the record supports instead", "playbook": "flood_risk"}


def _intr(req=REQUEST, allow_accept=True):
    return {"action_request": {"action": "provide_data", "args": {"request": req}},
            "config": {"allow_accept": allow_accept, "allow_edit": True, "allow_respond": True, "allow_ignore": True},
            "description": ""}


def test_a_file_or_a_pasted_table_joins_the_tables_as_studio_add_table_reads_it():
    resp, tables = data_answer({"do": "send"}, {"old.csv": {"name": "old.csv"}}, ("C:\\data\\my peaks.csv", PEAKS))
    assert resp == {"type": "response", "args": "table added: my_peaks.csv"}
    assert set(tables) == {"old.csv", "my_peaks.csv"}  # the study's earlier tables kept
    entry = tables["my_peaks.csv"]
    from aquascope_core.tools.context import table_entry

    assert entry == table_entry("my_peaks.csv", PEAKS)  # the same entry the Studio keeps
    assert entry["variables"][0]["n_values"] == PEAKS.count(b"\n") - 1  # every data row read
    resp, tables = data_answer({"data_text": PEAKS.decode()}, None)
    assert resp["args"] == "table added: pasted.csv" and tables["pasted.csv"]["variables"] == entry["variables"]


def test_a_table_the_upload_checks_refuse_is_an_error_in_words_and_nothing_is_sent(monkeypatch):
    formula = b"water_year,peak_cfs\n1930,9100\n1931,=HYPERLINK(\"http://x\")\n1932,7820\n"
    said = r"The table peaks.csv was not added: column .peak_cfs. has text where numbers belong at line\(s\) 3"
    with pytest.raises(FormError, match=said):
        data_answer({}, {}, ("peaks.csv", formula))
    with pytest.raises(FormError, match=r"not added: .*date"):
        data_answer({"data_text": "a,b\nx,y\n"}, {})
    import aquascope_core.limits as limits

    monkeypatch.setattr(limits, "MAX_UPLOAD_BYTES", 100)
    with pytest.raises(FormError, match=r"not added: the table pasted.csv size in bytes is .* MAX_UPLOAD_BYTES is 100"):
        data_answer({"data_text": PEAKS.decode()}, {})


def test_words_continue_and_end_and_what_is_not_an_answer():
    assert data_answer({"data_words": " the catchment area is 120 km2 "}, {}) == (
        {"type": "response", "args": "the catchment area is 120 km2"}, None)
    assert data_answer({"do": "continue", "data_words": "ignored"}, {}) == ({"type": "accept", "args": None}, None)
    assert data_answer({"do": "decline"}, {}) == ({"type": "ignore", "args": None}, None)
    with pytest.raises(FormError, match="Nothing was sent: choose the file, paste the table"):
        data_answer({"data_text": "  ", "data_words": ""}, {}, ("empty.csv", b""))
    with pytest.raises(FormError, match="one answer at a time: the form holds the file and the value in words"):
        data_answer({"data_words": "area 120 km2"}, {}, ("p.csv", PEAKS))
    assert upload_name("../../etc/passwd") == "passwd" and upload_name("<b>.csv") == "b_.csv"
    assert upload_name("...") == "pasted.csv"


def test_the_form_is_labelled_and_offers_continue_only_where_the_request_allows_it():
    html = data_section(_intr(), "t1")
    assert 'enctype="multipart/form-data"' in html and 'action="/desk/studies/t1/data"' in html
    for fid in ("data-file", "data-text", "data-words"):
        assert re.search(rf'<label for="{fid}">[^<]+</label>', html) and f'id="{fid}"' in html
    assert "longer flood record" in html and 'value="continue"' in html and "graded at most B" in html
    html = data_section(_intr({**REQUEST, "continue_without": None}, allow_accept=False), "t1")
    assert 'value="continue"' not in html and 'value="decline"' in html and "cannot go on without it" in html


def test_every_post_form_of_a_page_carries_the_sessions_check_value():
    from graphs.desk.pages import studies_page

    html = session.with_csrf(studies_page([], user="ana"), "session:tok-a")
    posts = re.findall(r'<form\b[^>]*method="post"[^>]*>(<input[^>]*>)?', html)
    assert len(posts) == 2  # sign out and start a study
    value = session.csrf_value("session:tok-a")
    assert all(f'name="csrf" value="{value}"' in field for field in posts)
    assert value != session.csrf_value("session:tok-b") and len(value) == 64
    assert session.with_csrf("<form method=\"post\">", None) == "<form method=\"post\">"


def test_a_post_without_the_check_value_or_with_another_sessions_is_refused_in_words():
    from starlette.testclient import TestClient

    from graphs.desk.app import app

    with TestClient(app, base_url="http://desk.test") as client:
        page = client.get("/desk/login")
        assert page.status_code == 200 and session.PRE_COOKIE in client.cookies
        value = re.search(r'name="csrf" value="([0-9a-f]+)"', page.text).group(1)
        assert value == session.csrf_value("pre:" + client.cookies[session.PRE_COOKIE])
        r = client.post("/desk/login", data={"token": "", "next": "/desk"}, follow_redirects=False)
        assert r.status_code == 403 and "came without its check value" in r.text
        r = client.post("/desk/login", data={"token": "", "csrf": "0" * 64}, follow_redirects=False)
        assert r.status_code == 403 and "does not belong to your session" in r.text
        r = client.post("/desk/login", data={"token": "", "csrf": value}, follow_redirects=False)
        assert r.status_code == 400 and "Enter your access token" in r.text  # past the check, the form's own error
        client.cookies.set(session.COOKIE, "tok-a", path="/desk")  # signed in: the value moves to the session
        for path in ("/desk/studies", "/desk/studies/t1/plan", "/desk/studies/t1/data", "/desk/logout"):
            r = client.post(path, data={"csrf": value, "question": "x"}, follow_redirects=False)
            assert r.status_code == 403 and "does not belong to your session" in r.text, path
        r = client.post("/desk/logout", data={"csrf": session.csrf_value("session:tok-a")}, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/desk/login"


def test_the_standard_variants_not_forked_yet():
    from graphs.desk.forks import fork_choices, forks_section, standard_forks

    study = {"plan": {"approved": True}, "steps": [
        {"id": "s3", "tool": "flood_frequency", "arguments": {"values": "{{ result.s2.values }}", "confidence": 0.9,
                                                               "return_periods": [2, 100],
                                                               "distributions": ["gev_lmoments", "lp3_moments"]}}]}
    values = {"status": "done", "brief": {"playbook": "flood_risk", "intake": {"return_period": 100}}, "study": study}
    every = standard_forks(values, [])
    assert every and len(every) == len([c for c in fork_choices(values) if not c.get("skip")])
    assert {c["choice"] for c in every} >= {"return period", "distribution", "confidence level"}
    first = {"thread_id": "f1", "metadata": {"parent": "t", "choice": every[0]["choice"],
                                             "variant": every[0]["variant"]}, "values": {}, "status": "busy"}
    assert standard_forks(values, [first]) == every[1:]  # one forked already: the others left
    html = forks_section("t", values, [first])
    assert 'action="/desk/studies/t/variants"' in html and f"not forked yet ({len(every) - 1})" in html
    forked = [{**first, "metadata": {"choice": c["choice"], "variant": c["variant"]}} for c in every]
    assert standard_forks(values, forked) == [] and "/variants" not in forks_section("t", values, forked)
    assert standard_forks({**values, "status": "declined"}, []) == []


def test_an_upload_form_larger_than_an_upload_is_refused_before_it_is_read(monkeypatch):
    from starlette.testclient import TestClient

    import aquascope_core.limits as limits
    from graphs.desk.app import app

    monkeypatch.setattr(limits, "MAX_UPLOAD_BYTES", 1000)
    with TestClient(app, base_url="http://desk.test") as client:
        client.cookies.set(session.COOKIE, "tok-a", path="/desk")
        csrf = session.csrf_value("session:tok-a")
        r = client.post("/desk/studies/t1/data", data={"csrf": csrf}, files={"data_file": ("p.csv", b"1" * 70_000)},
                        follow_redirects=False)
        assert r.status_code == 413 and "the limit MAX_UPLOAD_BYTES is 1,000 bytes" in r.text


def test_the_characteristics_asked_for_are_tabled_with_what_each_is():
    from aquascope_core.methods.basin_characteristics import characteristic_entry

    req = {**REQUEST, "characteristics": [characteristic_entry("DRNAREA", "mi^2"), characteristic_entry("XYZ", "%")],
           "regions": "Valley and Ridge (GC1259)", "where": "StreamStats"}
    html = data_section(_intr(req), "t1")
    assert '<th scope="col">What it is</th>' in html
    assert "<td><code>DRNAREA</code></td><td>mi^2</td><td>drainage area, the area of the basin upstream" in html
    assert "<td><code>XYZ</code></td><td>%</td><td>as the region&#x27;s report defines it</td>" in html or (
        "<td><code>XYZ</code></td><td>%</td><td>as the region's report defines it</td>" in html)
