"""Explanations on the analyser page, in a real headless Chromium: hovering a certain cell
outlines its forcing numbers and shows the steps in words, as ``/api/explain`` gives them.

The server and browser fixtures are :mod:`test_web_browser`'s (skipped where Chromium,
selenium or the web extra is missing).
"""

from __future__ import annotations

import pytest

pytest.importorskip("selenium.webdriver", reason="browser tests need selenium")

import test_web_browser as browser  # noqa: E402 - its server and browser fixtures
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from mscsp import solve  # noqa: E402
from mscsp.explain import explain_certain  # noqa: E402

base_url = browser.base_url


def test_hovering_a_certain_cell_outlines_its_forcing_numbers(driver, base_url, tmp_path):
    board = browser.expert_position(3)
    browser.open_page(driver, base_url)
    browser.paste(driver, board.to_text())
    solution = solve(board)
    target = (solution.safe or solution.mines)[0]
    expected = explain_certain(board, [target], solution)[0]
    cell = driver.find_element(
        By.CSS_SELECTOR, f'#board [data-r="{target[0]}"][data-c="{target[1]}"]'
    )
    ActionChains(driver).move_to_element(cell).perform()
    panel = driver.find_element(By.ID, "explain-panel")
    WebDriverWait(driver, browser.WAIT).until(lambda d: panel.is_displayed())
    outlined = driver.execute_script(
        "return Array.from(document.querySelectorAll('#board .explain-number'))"
        ".map((el) => [Number(el.dataset.r), Number(el.dataset.c)]);"
    )
    assert sorted(map(tuple, outlined)) == sorted(expected.numbers)
    assert "explain-cell" in cell.get_attribute("class")
    assert f"Why ({target[0]}, {target[1]})" in panel.text
    for step in expected.steps:
        assert step in panel.text
    driver.save_screenshot(str(tmp_path / "explain.png"))
    revealed = driver.find_element(By.CSS_SELECTOR, "#board .cell.revealed")
    ActionChains(driver).move_to_element(revealed).perform()
    WebDriverWait(driver, browser.WAIT).until(lambda d: not panel.is_displayed())
