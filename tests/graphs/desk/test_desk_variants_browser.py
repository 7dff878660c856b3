"""The standard sensitivity variants from the desk in a real headless browser against `langgraph dev`: a flood
study at Flat Brook, run to its report through the sdk as its owner (the questions and the plan accepted), is
opened at the desk, "Run the standard variants" forks it once per variant graphs.sensitivity lists for it, and
the sensitivity table fills in with one row per variant, each a finished study of the same user; the action is
then no longer offered."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import anyio
import pytest

pytest.importorskip("selenium")
pytest.importorskip("langgraph_api")

from selenium.webdriver.common.by import By  # noqa: E402

from tests.graphs.desk.browser import check_page, chromium, chromium_paths, screenshot, wait_for  # noqa: E402
from tests.graphs.desk.test_desk_browser import ALICE, _sdk_state, _sign_in  # noqa: E402
from tests.graphs.lg_server import langgraph_dev  # noqa: E402


def _finished_study(url: str, token: str) -> str:
    """A flood study at Flat Brook run to its report by the sdk, every interrupt accepted; its thread id."""
    from langgraph_sdk import get_client

    async def go():
        c = get_client(url=url, headers={"Authorization": f"Bearer {token}"})
        tid = (await c.threads.create())["thread_id"]
        await c.runs.wait(tid, "aquascope", input={"site": {"lat": 41.10, "lon": -74.96},
                                                   "request": {"text": "Design flood for a culvert, 100-year"}})
        for _ in range(4):
            state = await c.threads.get_state(tid)
            if not state.get("interrupts"):
                break
            await c.runs.wait(tid, "aquascope", command={"resume": [{"type": "accept", "args": None, "by": "alice"}]})
        return tid

    return anyio.run(go)


@pytest.mark.slow
@pytest.mark.server
def test_the_standard_variants_are_forked_from_the_desk_and_fill_the_sensitivity_table(tmp_path):
    from graphs.desk.forks import standard_forks

    chromium_paths()
    shots = Path(os.environ.get("AQUASCOPE_DESK_SHOTS") or tempfile.mkdtemp(prefix="desk-shots-", dir=tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(f"alice {ALICE}\n")
    env = {"AQUASCOPE_HOME": str(tmp_path / "home"), "AQUASCOPE_TOKENS_FILE": str(tokens)}
    with langgraph_dev(tmp_path, env=env) as url, chromium(tmp_path) as d:
        tid = _finished_study(url, ALICE)
        values = _sdk_state(url, ALICE, tid)["values"]
        assert values["status"] == "done"
        variants = standard_forks(values, [])
        assert len(variants) >= 3, variants  # return periods either side, a distribution, the band at least
        _sign_in(d, url, ALICE)
        d.get(f"{url}/desk/studies/{tid}")
        offer = d.find_element(By.ID, "variants-form").text
        assert f"not forked yet ({len(variants)})" in offer and all(v["variant"] in offer for v in variants)
        d.find_element(By.CSS_SELECTOR, "#variants-form button[type=submit]").click()
        wait_for(d, lambda d: d.find_element(By.CSS_SELECTOR, "table.sensitivity"), 120, "the forks", reload=False)

        def finished(d):
            rows = d.find_elements(By.CSS_SELECTOR, "table.sensitivity tbody tr")
            return rows if len(rows) == 1 + len(variants) and not any("the fork is" in r.text for r in rows) else None

        rows = wait_for(d, finished, 420, "every variant's fork to finish")
        text = [r.text for r in rows]
        assert "as approved" in text[0]
        for v in variants:
            assert any(v["variant"] in r for r in text[1:]), (v, text)
        assert not d.find_elements(By.ID, "variants-form")  # every variant forked: no second round offered
        assert "Every standard variant has a fork" in d.find_element(By.ID, "forks").text
        check_page(d)
        d.find_element(By.ID, "forks").location_once_scrolled_into_view
        screenshot(d, shots, "15-standard-variants")
