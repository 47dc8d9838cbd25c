"""A screenshot pasted on the analyser page (a real paste event in headless Chromium): read
into the board text to be checked, or, on a server that reads none, a note that says how to
start one that does (the fixtures are :mod:`test_web_browser`'s, skipped where a piece is
missing)."""

from __future__ import annotations

import base64

import test_web_browser as browser
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from test_screen import POSITION, draw, png, recogniser_model

from mscsp.web.service import Limits

base_url = browser.base_url


def paste_image(driver, data: bytes) -> None:
    """Dispatches a paste of a PNG file, as a screenshot tool's copy gives the page."""
    driver.execute_script(
        "const bytes = Uint8Array.from(atob(arguments[0]), (c) => c.charCodeAt(0));"
        "const data = new DataTransfer();"
        "data.items.add(new File([bytes], 'shot.png', {type: 'image/png'}));"
        "document.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data}));",
        base64.b64encode(data).decode(),
    )


def note(driver) -> str:
    element = driver.find_element(By.ID, "image-note")
    WebDriverWait(driver, browser.WAIT).until(
        lambda d: element.is_displayed() and not element.text.startswith("Reading")
    )
    return element.text


def test_a_server_without_a_model_says_so_on_paste(driver, base_url) -> None:
    browser.open_page(driver, base_url)
    before = driver.find_element(By.ID, "board-text").get_attribute("value")
    paste_image(driver, png(draw(POSITION)))
    assert "reads no screenshots" in note(driver) and "--obr-model" in note(driver)
    assert driver.find_element(By.ID, "board-text").get_attribute("value") == before


def test_a_pasted_screenshot_becomes_the_board_text(driver) -> None:
    model = recogniser_model()
    with browser.served(browser.analyser(Limits(time_limit=20, obr_model=model))) as url:
        browser.open_page(driver, url)
        mines = driver.find_element(By.ID, "mines")
        mines.clear()
        mines.send_keys("10")
        solved = browser.solved(driver)
        paste_image(driver, png(draw(POSITION, 24, 24)))
        said = note(driver)
        assert said.startswith("Board read from the screenshot: 10x10") and "Check it" in said
        text = driver.find_element(By.ID, "board-text").get_attribute("value")
        assert len(text.split()) == 10
        if "#" not in text:  # read whole: the page solves it, as a pasted board
            browser.wait_solved(driver, solved)
            assert driver.find_element(By.ID, "error").get_attribute("hidden") is not None
