"""The review desk in a real headless browser (Debian's chromium with selenium) against a `langgraph dev` the test
starts with two users' tokens: alice signs in, opens a flood study at Flat Brook (the embedded record, as the
README's studies), answers its question, changes the return period at the plan, approves, watches it finish,
reads the headline in the embedded report, downloads the Word file (it opens with python-docx), asks a
follow-up, forks it with a changed argument and reads the sensitivity table; bob signs in and sees none of it.
Her decisions are the ones the sdk reads back from the same server. Screenshots of each page at 1280 px are
written to a temp folder (AQUASCOPE_DESK_SHOTS, else the test's own)."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import anyio
import pytest

pytest.importorskip("selenium")
pytest.importorskip("langgraph_api")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

from tests.graphs.desk.browser import alert_text, check_page, chromium, chromium_paths, screenshot, wait_for  # noqa: E402
from tests.graphs.lg_server import langgraph_dev  # noqa: E402

ALICE, BOB = "alice-desk-token-0123456789", "bob-desk-token-9876543210"
SITE = ("41.10", "-74.96")  # Flat Brook near Flatbrookville NJ (README: the flood study)


def _sign_in(d, url: str, token: str) -> None:
    d.get(url + "/desk")
    assert "/desk/login" in d.current_url  # no token: the sign-in page
    field = d.find_element(By.ID, "token")
    field.clear()
    field.send_keys(token + Keys.ENTER)  # by keyboard
    wait_for(d, lambda d: "/desk/login" not in d.current_url and d.find_element(By.CSS_SELECTOR, ".who"), 30, "sign-in")


def _sdk_state(url: str, token: str, tid: str) -> dict:
    from langgraph_sdk import get_client

    async def go():
        c = get_client(url=url, headers={"Authorization": f"Bearer {token}"})
        return await c.threads.get_state(tid)

    return anyio.run(go)


def _alive(element) -> bool:
    try:
        element.is_enabled()
        return True
    except Exception:  # stale: the page it was on has gone
        return False


def _progress_events(url: str, token: str, tid: str) -> list[str]:
    """The desk's progress stream of the running study (server-sent events), read to its end."""
    import json

    import httpx

    seen = []
    with httpx.stream("GET", f"{url}/desk/studies/{tid}/progress", cookies={"aquascope_desk": token},
                      timeout=httpx.Timeout(240, connect=10)) as r:
        event = None
        for line in r.iter_lines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "step":
                seen.append(json.loads(line[6:])["text"])
            elif line.startswith("data: ") and event in ("end", "problem"):
                seen.append(f"<{event}> {line[6:]}")
                if event == "end":
                    break
    return seen


@pytest.mark.slow
@pytest.mark.server
def test_a_reviewer_runs_a_flood_study_at_the_desk_and_another_user_sees_none_of_it(tmp_path):
    chromium_paths()
    shots = Path(os.environ.get("AQUASCOPE_DESK_SHOTS") or tempfile.mkdtemp(prefix="desk-shots-", dir=tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(f"alice {ALICE}\nbob {BOB}\n")
    env = {"AQUASCOPE_HOME": str(tmp_path / "home"), "AQUASCOPE_TOKENS_FILE": str(tokens)}
    with langgraph_dev(tmp_path, env=env) as url, chromium(downloads) as d:
        # -- signing in: the page explains, a wrong token is refused in words, the right one by keyboard
        d.get(url + "/desk")
        assert "/desk/login" in d.current_url
        check_page(d)
        assert d.switch_to.active_element.get_attribute("id") == "token"  # the keyboard starts in the token field
        d.switch_to.active_element.send_keys(Keys.TAB)
        assert d.switch_to.active_element.text == "Sign in"  # and the next stop is the button
        screenshot(d, shots, "01-sign-in")
        d.find_element(By.ID, "token").send_keys("not-a-token" + Keys.ENTER)
        err = alert_text(d)
        assert "does not know that token" in err, err
        screenshot(d, shots, "02-sign-in-refused")
        _sign_in(d, url, ALICE)
        assert "alice" in d.find_element(By.CSS_SELECTOR, ".who").text
        check_page(d)
        assert "no studies yet" in d.find_element(By.TAG_NAME, "main").text

        # -- a new study: a bad latitude is an error in words, then the flood question at Flat Brook
        d.find_element(By.ID, "question").send_keys("Flood risk at the culvert")
        d.find_element(By.ID, "lat").send_keys("north")
        d.find_element(By.ID, "lon").send_keys(SITE[1])
        d.find_element(By.CSS_SELECTOR, "form.grid button[type=submit]").click()
        assert "latitude 'north' is not a number" in alert_text(d)
        check_page(d, error_expected=True)
        lat = d.find_element(By.ID, "lat")
        lat.clear()
        lat.send_keys(SITE[0])
        d.find_element(By.CSS_SELECTOR, "form.grid button[type=submit]").click()
        wait_for(d, lambda d: "/desk/studies/" in d.current_url, 30, "the study page")
        study_url = d.current_url
        tid = study_url.rsplit("/", 1)[1]

        # -- the consultant's question, answered in the form
        wait_for(d, lambda d: d.find_element(By.ID, "answer-return_period"), 90, "the consultant's question")
        check_page(d)
        assert "waiting for answers" in d.find_element(By.CSS_SELECTOR, "dl.facts").text
        assert "has not looked at the site yet" in d.find_element(By.ID, "inventory").text  # questions come first
        screenshot(d, shots, "03-study-questions")
        d.find_element(By.ID, "answer-return_period").send_keys("100")
        d.find_element(By.CSS_SELECTOR, "button[value=answer]").click()

        # -- the crew asks for the site's basin characteristics, each with its unit and where to find them; the
        # reviewer has none and goes on without them
        wait_for(d, lambda d: d.find_element(By.ID, "data-form"), 90, "the data request")
        check_page(d)
        asked = d.find_element(By.ID, "data").text
        assert "DRNAREA" in asked and "mi^2" in asked and "StreamStats" in asked, asked
        d.find_element(By.CSS_SELECTOR, "button[value=continue]").click()

        # -- the plan: objective for 100 years; the return period edited to 50 at the plan, approved
        rp = wait_for(d, lambda d: d.find_element(By.ID, "intake-return_period"), 90, "the plan form")
        check_page(d)
        plan_text = d.find_element(By.ID, "plan").text
        assert "Estimate the 100-year flood" in plan_text and "flood_frequency" in plan_text
        assert d.find_element(By.ID, "arg-s3-n_bootstrap").get_attribute("value") == "1000"
        assert "Flat Brook near Flatbrookville NJ" in d.find_element(By.ID, "inventory").text
        screenshot(d, shots, "04-study-plan")
        boot = d.find_element(By.ID, "arg-s3-n_bootstrap")  # a value that is not a number: refused in words
        boot.clear()
        boot.send_keys("many")
        d.find_element(By.CSS_SELECTOR, "button[value=approve]").click()
        said = alert_text(d)
        assert "argument 'n_bootstrap': 'many' is not a number" in said, said
        check_page(d, error_expected=True)
        assert d.find_element(By.ID, "arg-s3-n_bootstrap").get_attribute("value") == "1000"  # the plan unchanged
        rp = d.find_element(By.ID, "intake-return_period")
        rp.clear()
        rp.send_keys("50")
        d.find_element(By.CSS_SELECTOR, "button[value=approve]").click()
        wait_for(d, lambda d: not _alive(rp), 30, "the approval to be sent", reload=False)
        if d.find_elements(By.CSS_SELECTOR, "p.running"):  # the run is short; caught running, the page offers
            assert not d.find_elements(By.CSS_SELECTOR, "form.action, .callout")  # no second answer
            screenshot(d, shots, "05-study-running")
        streamed = _progress_events(url, d.get_cookie("aquascope_desk")["value"], tid)
        assert sum("analysts start s" in e for e in streamed) >= 3 and "author report" in streamed, streamed

        # -- it finishes; the headline in the embedded report is the 50-year one
        wait_for(d, lambda d: d.find_element(By.ID, "report-frame"), 240, "the report")
        check_page(d)
        assert "done" in d.find_element(By.CSS_SELECTOR, "dl.facts").text
        assert "Estimate the 50-year flood" in d.find_element(By.ID, "plan").text
        d.switch_to.frame(d.find_element(By.ID, "report-frame"))
        report_text = d.find_element(By.TAG_NAME, "body").text
        headline = d.find_element(By.XPATH, "//h2[.='Summary']/following-sibling::p[1]").text  # the report's headline
        figures = [f.get_attribute("src")[:12] for f in d.find_elements(By.CSS_SELECTOR, "div.figure img")]
        d.switch_to.default_content()
        assert "The 50-year" in report_text and "Flat Brook near Flatbrookville NJ" in report_text
        assert len(figures) >= 3 and all(f.startswith("data:image/") for f in figures)
        assert "The 50-year" in headline and "Grade" in d.find_element(By.CSS_SELECTOR, "dl.facts").text
        screenshot(d, shots, "06-study-report")

        # -- the decisions are the sdk's: an answer and an edit by alice, the intake at 50
        state = _sdk_state(url, ALICE, tid)
        values = state["values"]
        decisions = values["study"]["plan"]["decisions"]
        assert [x["kind"] for x in decisions] == ["answer", "edit"] and {x["by"] for x in decisions} == {"alice"}
        assert values["brief"]["intake"]["return_period"] == 50 and values["status"] == "done"
        assert "return_period 100 -> 50" in d.find_element(By.ID, "decisions").text
        assert " ".join(values["report"]["answer"].split())[:300] in " ".join(headline.split())

        # -- the Word file downloads and opens with python-docx
        from docx import Document

        d.find_element(By.PARTIAL_LINK_TEXT, "Word report").click()
        docx = wait_for(d, lambda d: [p for p in downloads.glob("*.docx")
                                      if not p.name.endswith(".crdownload") and p.stat().st_size > 0], 60,
                        "the Word download")[0]
        time.sleep(0.5)
        words = "\n".join(p.text for p in Document(str(docx)).paragraphs)
        assert "50-year" in words and "Flat Brook" in words

        # -- a follow-up question, answered from the results
        box = d.find_element(By.ID, "follow_up")
        box.send_keys("What was the largest annual maximum?")
        box.find_element(By.XPATH, "./ancestor::form//button[@type='submit']").click()
        wait_for(d, lambda d: "largest annual maximum" in d.find_element(By.CSS_SELECTOR, "ol.follow-ups").text,
                 90, "the follow-up's answer")
        answer = d.find_element(By.CSS_SELECTOR, "ol.follow-ups p.a").text
        amax = max(values["run"]["results"]["s2"]["payload"]["values"])
        assert any(abs(float(tok.replace(",", "")) - amax) <= 0.006 * amax
                   for tok in answer.replace("(", " ").replace(")", " ").split()
                   if tok.replace(",", "").replace(".", "", 1).isdigit()), (answer, amax)
        d.find_element(By.ID, "follow-up").location_once_scrolled_into_view
        screenshot(d, shots, "07-study-follow-up")

        # -- a fork with a changed argument (the 95 % band), then the sensitivity table on the parent
        d.find_element(By.ID, "variant-custom").click()
        Select(d.find_element(By.ID, "fork-argument")).select_by_value("arg.s3.confidence")
        d.find_element(By.ID, "fork-value").send_keys("0.95")
        d.find_element(By.CSS_SELECTOR, "#forks button[type=submit]").click()
        wait_for(d, lambda d: d.current_url != study_url and "/desk/studies/" in d.current_url, 60, "the fork")
        wait_for(d, lambda d: d.find_element(By.ID, "report-frame"), 240, "the fork's report")
        assert tid in d.find_element(By.CSS_SELECTOR, "dl.facts").text  # "Fork of" the parent
        d.get(study_url)
        table = d.find_element(By.CSS_SELECTOR, "table.sensitivity")
        rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
        assert len(rows) == 2 and "as approved" in rows[0].text and "confidence 0.95" in rows[1].text, table.text
        cells = [c.text for c in rows[1].find_elements(By.TAG_NAME, "td")]
        assert cells[2] == "50" and "(95 %)" in cells[5] and cells[6].endswith("%"), cells  # the approved plan, forked
        d.find_element(By.ID, "forks").location_once_scrolled_into_view
        screenshot(d, shots, "08-study-fork-sensitivity")

        # -- the list: waiting first (a new study left at its question), then the rest, newest first
        d.get(url + "/desk")
        d.find_element(By.ID, "question").send_keys("Design flood for a bridge")
        d.find_element(By.ID, "lat").send_keys(SITE[0])
        d.find_element(By.ID, "lon").send_keys(SITE[1] + Keys.ENTER)
        wait_for(d, lambda d: d.find_element(By.ID, "answer-return_period"), 90, "the second study's question")
        d.get(url + "/desk")
        listing = d.find_element(By.CSS_SELECTOR, "table.studies")
        assert [h.text for h in listing.find_elements(By.TAG_NAME, "th")] == [
            "Status", "Site", "Question", "Grade", "Last step", "When"]
        rows = [r.text for r in listing.find_elements(By.CSS_SELECTOR, "tbody tr")]
        assert len(rows) == 3 and all("41.1000, -74.9600" in r for r in rows), rows
        assert rows[0].startswith("waiting for answers") and "Design flood for a bridge" in rows[0], rows
        assert "fork: confidence 0.95" in rows[1] and rows[2].startswith("done"), rows
        check_page(d)
        screenshot(d, shots, "09-studies-list")

        # -- printable: the forms and the navigation leave the printed page
        d.get(study_url)
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        assert not d.find_element(By.ID, "follow_up").is_displayed()
        assert d.find_element(By.ID, "report-frame").is_displayed()
        frame_height = wait_for(d, lambda d: d.find_element(By.ID, "report-frame").size["height"] > 2500 and
                                d.find_element(By.ID, "report-frame").size["height"], 10, "the printed report's height",
                                reload=False)
        assert frame_height > 2500  # printed, the frame grows to the whole report
        screenshot(d, shots, "10-study-print")
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})

        # -- bob: signs in, sees none of it; alice's study and its files are not found for him
        d.find_element(By.CSS_SELECTOR, ".who + form button").click()
        _sign_in(d, url, BOB)
        assert "no studies yet" in d.find_element(By.TAG_NAME, "main").text
        assert tid not in d.page_source
        d.get(study_url)
        assert "no such study among yours" in alert_text(d)
        assert "Flat Brook" not in d.page_source
        screenshot(d, shots, "11-other-user-not-found")
        d.get(study_url + "/files/report.docx?download=1")
        assert "no such study among yours" in d.find_element(By.TAG_NAME, "body").text
    print(f"\nscreenshots: {shots}")
    assert len(list(shots.glob("*.png"))) >= 10
