"""How an approximate estimator's run ended, on the page and in ``/api/solve``: ``bp``'s
convergence and ``mcmc``'s R-hat shown beside its APPROXIMATE flag, in a real headless
Chromium (the fixtures are :mod:`test_web_browser`'s, skipped where a piece is missing)."""

from __future__ import annotations

import json

import test_web_browser as browser
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from mscsp.web.service import Limits, solve_request

base_url = browser.base_url

#: A small lattice of numbers: loopy, so bp reports whether it converged.
BOARD = "6x6x8\n??????\n?2?3?1\n??????\n?3?4?2\n??????\n?1?2?1\n"


def test_the_api_gives_the_run_report_in_strict_json():
    for backend, key in (("bp", "converged"), ("mcmc:40", "rhat")):
        out = solve_request({"board": BOARD, "backend": backend}, Limits(time_limit=20))
        text = json.dumps(out, allow_nan=False)  # (an infinite R-hat is written as text)
        assert key in json.loads(text)["report"], backend
    exact = solve_request({"board": BOARD}, Limits(time_limit=20))
    assert "report" not in exact


def test_the_page_shows_bps_run_beside_its_flag(driver, base_url):
    browser.open_page(driver, base_url)
    browser.paste(driver, BOARD)
    before = browser.solved(driver)
    Select(driver.find_element(By.ID, "backend")).select_by_value("bp")
    browser.wait_solved(driver, before)
    panel = driver.find_element(By.ID, "estimate-panel")
    WebDriverWait(driver, browser.WAIT).until(lambda d: panel.is_displayed())
    report = panel.find_element(By.CLASS_NAME, "estimate-report").text
    assert report.startswith("bp") and "run: iterations" in report and "converged" in report
