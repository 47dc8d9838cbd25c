"""The analyser's learned estimators in a real headless Chromium: the Backend menu offers
``learner:default``, its odds are flagged approximate, and the "difference from exact" view
colours each covered cell by the estimate minus the exact probability.

The server and browser fixtures are :mod:`test_web_browser`'s (skipped where Chromium,
selenium or the web extra is missing); this module also needs the ml extra.
"""

from __future__ import annotations

import numpy as np
import pytest

from mscsp import COVERED, parse_board, solve
from mscsp.estimators import estimator_kinds, get_estimator

if not estimator_kinds()["learner"].available():
    pytest.skip("learned estimators need pip install 'mscsp[ml]'", allow_module_level=True)

import test_web_browser as browser  # noqa: E402 - its server and browser fixtures
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

base_url = browser.base_url

#: A beginner position: a frontier with several components and free cells.
BOARD = (
    "9x9x10\n"
    "?????????\n"
    "?????????\n"
    "??2111???\n"
    "??1..1???\n"
    "??1..1???\n"
    "??211????\n"
    "?????????\n"
    "?????????\n"
    "?????????\n"
)


def test_learner_in_the_menu_flagged_approximate_with_the_difference_view(
    driver, base_url, tmp_path
):
    browser.open_page(driver, base_url)
    menu = Select(driver.find_element(By.ID, "backend"))
    assert "learner:default" in [o.get_attribute("value") for o in menu.options]
    before = browser.solved(driver)
    driver.execute_script(
        "const a = document.getElementById('board-text'); a.value = arguments[0];"
        "a.dispatchEvent(new Event('input', {bubbles: true}));",
        BOARD,
    )
    browser.wait_solved(driver, before)
    before = browser.solved(driver)
    menu.select_by_value("learner:default")
    browser.wait_solved(driver, before)
    panel = driver.find_element(By.ID, "estimate-panel")
    WebDriverWait(driver, browser.WAIT).until(lambda d: panel.is_displayed())
    assert "APPROXIMATE: learner:default" in panel.text
    driver.find_element(By.ID, "estimate-diff").click()
    WebDriverWait(driver, browser.WAIT).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#board.estimate-diff .diff-cell")
    )
    driver.save_screenshot(str(tmp_path / "learner-difference.png"))
    shown = driver.execute_script(
        "return Array.from(document.querySelectorAll('#board .cell')).map((el) => "
        "[Number(el.dataset.r), Number(el.dataset.c), el.textContent, "
        "el.classList.contains('diff-cell')]);"
    )
    # What the page shows is the estimate minus the exact odds, in percentage points.
    board = parse_board(BOARD)
    difference = get_estimator("learner:default").estimate(board) - solve(board).probabilities
    diff_cells = [(r, c, text) for r, c, text, is_diff in shown if is_diff]
    assert len(diff_cells) == int((board.cells == COVERED).sum())
    for r, c, text in diff_cells:
        points = round(float(difference[r, c]) * 100)
        if points:
            assert int(text.replace("\u2212", "-")) == points, (r, c, text)
    assert np.isfinite(difference[board.cells == COVERED]).all()
    assert (tmp_path / "learner-difference.png").stat().st_size > 0
