"""The page's Fallback menu and ``/api/solve``'s ``fallback``: where the exact count stops
at the request's limit, an estimator answers, flagged approximate, with why the count
stopped and the estimator's measured error (as ``mscsp probs --fallback``). The browser half
runs in a real headless Chromium (the fixtures are :mod:`test_web_browser`'s, skipped where
a piece is missing)."""

from __future__ import annotations

import json

import pytest
import test_web_browser as browser
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from mscsp.errors import InvalidInputError, SolverLimitError
from mscsp.evaluation.families import lattice
from mscsp.web.service import ApiError, Limits, solve_request


@pytest.fixture(scope="module")
def base_url():
    """The analyser with a 3 s limit per request: the count of :data:`HARD` stops (it took
    dss 9 s alone here), and the estimate has the second half."""
    with browser.served(browser.analyser(Limits(time_limit=3))) as url:
        yield url


#: A 16x30 lattice of numbers (one cell in four): dss took 9 s alone here, no counter of
#: ours finishes it in the count's half of a 3 s limit.
HARD = lattice(16, 30, 0.4, seed=0).to_text()
EASY = "3x3x1\n1??\n???\n???\n"


def test_the_api_falls_back_where_the_count_stops():
    # (3 s, not 1: the estimate gets the second half, and BP's half a second was once
    # too little beside a loaded suite.)
    limits = Limits(time_limit=3.0)
    with pytest.raises(SolverLimitError):
        solve_request({"board": HARD, "time_limit": 3.0}, limits)
    out = solve_request({"board": HARD, "time_limit": 3.0, "fallback": "bp"}, limits)
    out = json.loads(json.dumps(out, allow_nan=False))
    assert out["approximate"] and out["backend"] == "bp" and out["exact"] is False
    assert out["solutions"] is None and out["cells"] == [] and out["safe"] == []
    assert "half" in out["fallback"]["exact_stopped"]
    assert out["fallback"]["measured_mean_abs_error"]["lattice"] > 0
    probs = [p for row in out["probabilities"] for p in row if p is not None]
    assert probs and all(0.0 <= p <= 1.0 for p in probs)
    assert out["seconds"] <= 3.0  # the estimate had the second half of the limit
    easy = solve_request({"board": EASY, "fallback": "bp"}, limits)
    assert not easy["approximate"] and "fallback" not in easy


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"fallback": "dss"}, "does not count"),
        ({"backend": "bp", "fallback": "mcmc"}, "stands in for an exact count"),
        ({"fallback": "nonesuch"}, "fallback asked for is not a built-in name"),
    ],
)
def test_the_api_refuses_what_cannot_stand_in(fields, words):
    with pytest.raises(InvalidInputError, match=words):
        solve_request({"board": EASY, **fields}, Limits(time_limit=5))


def test_the_api_refuses_a_fallback_that_is_not_a_name():
    with pytest.raises(ApiError, match="'fallback' must be str"):
        solve_request({"board": EASY, "fallback": 3}, Limits(time_limit=5))


def test_the_page_falls_back_and_says_why(driver, base_url):
    browser.open_page(driver, base_url)
    Select(driver.find_element(By.ID, "fallback")).select_by_value("bp")
    browser.paste(driver, HARD)
    panel = driver.find_element(By.ID, "estimate-panel")
    WebDriverWait(driver, 60).until(lambda d: panel.is_displayed())
    assert "APPROXIMATE: bp" in panel.text
    why = panel.find_element(By.CLASS_NAME, "estimate-fallback").text
    assert why.startswith("The exact count stopped") and "lattice" in why
    assert "uncounted" in driver.find_element(By.ID, "summary").text
