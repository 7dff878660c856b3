"""The data request at the desk in a real headless browser against `langgraph dev`: a 1000-year spillway flood at
Flat Brook lies beyond what its 80-year record supports, so the crew asks for a longer flood record. The reviewer
sends the form empty (refused in words), chooses a file whose value cell is a formula (refused in words by the
upload's own checks, nothing sent), chooses an annual peak file (examples/uploads/annual_peaks.csv, another
river's record, used here for the mechanism: the table joins the study through the same interrupt and ``tables``
update the Studio sends, and the Scout inventories it), and continues without a longer record where the crew asks
again: the plan then waits at the largest return period the record supports. A form posted without the
session's check value is refused."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("selenium")
pytest.importorskip("langgraph_api")

from selenium.webdriver.common.by import By  # noqa: E402

from tests.graphs.desk.browser import alert_text, check_page, chromium, chromium_paths, screenshot, wait_for  # noqa: E402
from tests.graphs.desk.test_desk_browser import ALICE, SITE, _sdk_state, _sign_in  # noqa: E402
from tests.graphs.lg_server import langgraph_dev  # noqa: E402

PEAKS = Path(__file__).resolve().parents[3] / "examples" / "uploads" / "annual_peaks.csv"  # README there: its source


def _data_or_plan(d):
    if d.find_elements(By.ID, "data-form"):
        return "data"
    if d.find_elements(By.ID, "intake-return_period"):
        return "plan"
    if d.find_elements(By.CSS_SELECTOR, "#questions button[value=answer]"):
        d.find_element(By.CSS_SELECTOR, "#questions button[value=answer]").click()  # the defaults
    return None


@pytest.mark.slow
@pytest.mark.server
def test_the_crew_asks_for_data_and_the_reviewer_brings_a_file_or_goes_on_without(tmp_path):
    chromium_paths()
    shots = Path(os.environ.get("AQUASCOPE_DESK_SHOTS") or tempfile.mkdtemp(prefix="desk-shots-", dir=tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(f"alice {ALICE}\n")
    bad = tmp_path / "peaks with a formula.csv"
    bad.write_text("water_year,peak_cfs\n1930,9100\n1931,=HYPERLINK(\"http://example.invalid\")\n")
    env = {"AQUASCOPE_HOME": str(tmp_path / "home"), "AQUASCOPE_TOKENS_FILE": str(tokens)}
    with langgraph_dev(tmp_path, env=env) as url, chromium(tmp_path) as d:
        _sign_in(d, url, ALICE)
        d.find_element(By.ID, "question").send_keys("Spillway design flood, 1000-year")
        d.find_element(By.ID, "lat").send_keys(SITE[0])
        d.find_element(By.ID, "lon").send_keys(SITE[1])
        d.find_element(By.CSS_SELECTOR, "form.grid button[type=submit]").click()
        wait_for(d, lambda d: "/desk/studies/" in d.current_url, 30, "the study page")
        tid = d.current_url.rstrip("/").rsplit("/", 1)[-1]
        assert wait_for(d, _data_or_plan, 120, "the data request") == "data"
        check_page(d)  # the file input, the paste box and the words are labelled
        section = d.find_element(By.ID, "data").text
        assert "longer flood record" in section and "waiting for data" in d.find_element(By.CSS_SELECTOR, "dl.facts").text
        assert d.find_element(By.CSS_SELECTOR, ".callout a[href='#data']")
        screenshot(d, shots, "11-data-request")

        # -- nothing chosen, then a file the upload's checks refuse: errors in words, nothing sent
        d.find_element(By.CSS_SELECTOR, "#data-form button[value=send]").click()
        nothing = alert_text(d)
        assert "Nothing was sent" in nothing
        d.find_element(By.ID, "data-file").send_keys(str(bad))
        d.find_element(By.CSS_SELECTOR, "#data-form button[value=send]").click()
        err = alert_text(d, unlike=nothing)
        assert "peaks_with_a_formula.csv was not added" in err and "text where numbers belong at line(s) 3" in err, err
        check_page(d, error_expected=True)
        screenshot(d, shots, "12-data-refused")
        assert not (_sdk_state(url, ALICE, tid)["values"].get("tables") or {})

        # -- a real annual peak file: it joins the study's tables and the Scout inventories it
        d.find_element(By.ID, "data-file").send_keys(str(PEAKS))
        d.find_element(By.CSS_SELECTOR, "#data-form button[value=send]").click()
        values = wait_for(d, lambda d: (lambda v: v if v.get("status") != "scouting" and "annual_peaks.csv" in
                                        (v.get("tables") or {}) and _data_or_plan(d) else None)(
                              _sdk_state(url, ALICE, tid)["values"]), 120, "the upload inventoried")
        assert any(ds.get("kind") == "upload" for ds in values["inventory"]["datasets"])
        assert values["tables"]["annual_peaks.csv"]["variables"][0]["n_values"] == 44
        if _data_or_plan(d) == "data":  # still beyond the record: go on without a longer one
            screenshot(d, shots, "13-data-asked-again")
            d.find_element(By.CSS_SELECTOR, "#data-form button[value=continue]").click()
        rp = wait_for(d, lambda d: d.find_element(By.ID, "intake-return_period"), 120, "the plan")
        cap = int(rp.get_attribute("value"))
        assert 100 < cap < 1000  # the largest return period the record supports, not the 1000 years asked
        check_page(d)
        screenshot(d, shots, "14-plan-after-data")

        # -- the plan form without its check value (as another site would post it): refused in words
        d.execute_script("document.querySelector('form[action$=\"/plan\"] input[name=csrf]').remove()")
        d.find_element(By.CSS_SELECTOR, "button[value=decline]").click()
        assert "came without its check value" in alert_text(d)
        assert _sdk_state(url, ALICE, tid)["values"]["status"] != "declined"
