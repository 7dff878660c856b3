"""Headless Debian chromium driven by selenium for the review desk's tests: a driver that downloads into a
folder, full-page screenshots at 1280 px wide, and the page checks every desk page must pass (labelled fields,
no error box unless one is expected)."""

from __future__ import annotations

import shutil
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

WIDTH = 1280


def chromium_paths() -> tuple[str, str]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not browser or not driver:
        pytest.skip("Debian's chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)")
    return browser, driver


@contextmanager
def chromium(downloads: Path) -> Iterator[Any]:
    """A headless chromium at 1280 px wide whose downloads land in ``downloads`` (quit on exit)."""
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    browser, driver_path = chromium_paths()
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", f"--window-size={WIDTH},900",
                "--no-first-run", "--disable-extensions", "--disable-background-networking", "--lang=en-US"):
        opts.add_argument(arg)
    opts.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                           "download.prompt_for_download": False, "safebrowsing.enabled": False})
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=opts)
    try:
        driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
        driver.set_page_load_timeout(60)
        yield driver
    finally:
        driver.quit()


def wait_for(driver: Any, what: Callable[[Any], Any], timeout: float, why: str, *, reload: bool = True) -> Any:
    """``what(driver)``'s first truthy value within ``timeout`` seconds (reloading between tries unless not
    ``reload``)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            got = what(driver)
        except Exception:  # the element is not there yet
            got = None
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:.0f} s waiting for {why}; the page says: "
                                 + driver.find_element("tag name", "body").text[:1500])
        time.sleep(1.0)
        if reload:
            driver.refresh()


def screenshot(driver: Any, folder: Path, name: str) -> Path:
    """The whole page at 1280 px wide (the window grown to the page's height for the shot)."""
    height = driver.execute_script("return Math.max(document.documentElement.scrollHeight, document.body.scrollHeight)")
    driver.set_window_size(WIDTH, min(max(int(height) + 140, 700), 7000))
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    driver.set_window_size(WIDTH, 900)
    return path


UNLABELLED = """
return Array.from(document.querySelectorAll('input, select, textarea'))
  .filter(e => e.type !== 'hidden')
  .filter(e => !(e.id && document.querySelector('label[for="' + e.id + '"]')) && !e.getAttribute('aria-label'))
  .map(e => e.name || e.outerHTML.slice(0, 80));
"""


def check_page(driver: Any, *, error_expected: bool = False) -> None:
    """Every form field has a label; an error box shows only where one is expected."""
    assert driver.execute_script(UNLABELLED) == [], "form fields without a label"
    errors = driver.find_elements("css selector", "[role=alert]")
    if not error_expected:
        assert not errors, "unexpected error: " + " | ".join(e.text for e in errors)
    assert driver.find_element("css selector", "main#main")


def alert_text(driver: Any, timeout: float = 60, *, unlike: str | None = None) -> str:
    """The page's error message once the page answering a form shows it (the answer may take a while under load).
    ``unlike``: a message the page showed before the form was sent again, which does not count (until the answer
    arrives the browser still shows the page before it, with its old message)."""
    def fresh(d: Any) -> str:
        text = d.find_element("css selector", "[role=alert]").text
        return "" if unlike is not None and unlike in text else text

    return wait_for(driver, fresh, timeout, "the page's error message", reload=False)
