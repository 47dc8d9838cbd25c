"""The analyser page's defects of issue 50, each checked gone by measurement in headless
Chromium: the tooltip off the header, its tabs and the Backend menu; the tooltip naming a
50/50 or dead cell; the label of a marked cell inside it; "why this guess"'s score not a
percentage; "What would it do here?" and the Play hint in view at 1400x1000; and the Play
tab's "no guess" boards (their API is in ``test_web_play_noguess.py``).

Screenshots go to the test's temporary directory only (``bench/serving/page_screenshots.py``
makes the user guide's).
"""

from __future__ import annotations

import pytest

import mscsp

pytest.importorskip("selenium", reason="browser tests need selenium")

# The browser tests' module skips this one too where Starlette, uvicorn, Selenium or
# Chromium is missing (its checks run on import).
import test_web_page_issue32  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from test_web_browser import WAIT, expert_position, open_page, solved, wait_solved  # noqa: E402
from test_web_page_issue32 import (  # noqa: E402
    cell_el,
    first_position,
    looked_ahead,
    overlap,
    paste_marked,
    rect,
    shoot,
)

from mscsp.noguess.generate import Generator, Settings  # noqa: E402
from mscsp.web.service import Limits, marks_request, suggest_request  # noqa: E402

#: The analyser served for this module (issue 32's fixture).
base_url = test_web_page_issue32.base_url

#: What the tooltip must leave in view: the header, its tabs and its menus.
HEADER = ("header.topbar", "#tab-analyse", "#tab-play", "#backend", "#fallback")


def has_lone_dead_cell(board: mscsp.Board) -> bool:
    """Whether the position has a 50/50 pair and a dead cell outside every pair."""
    marks = marks_request({"board": board.to_text()}, Limits())
    paired = {tuple(c) for pair in marks["fifty_fifty"] for c in pair}
    return bool(paired) and bool({tuple(c) for c in marks["dead"] or []} - paired)


def hover(driver, r: int, c: int) -> str:
    """Moves the mouse over cell ``(r, c)``; the tooltip's text once it names the cell."""
    ActionChains(driver).move_to_element(cell_el(driver, r, c)).perform()
    tip = driver.find_element(By.ID, "tip")
    WebDriverWait(driver, WAIT).until(
        lambda d: tip.is_displayed() and tip.text.startswith(f"({r}, {c})")
    )
    return tip.text


def assert_header_in_view(driver) -> None:
    tip = rect(driver, driver.find_element(By.ID, "tip"))
    for selector in HEADER:
        element = driver.find_element(By.CSS_SELECTOR, selector)
        assert not overlap(tip, rect(driver, element)), selector


# ---------------------------------------------------------------- the tooltip


@pytest.mark.parametrize("size", [(1400, 1000), (1000, 900), (760, 900)])
def test_the_tooltip_leaves_the_header_tabs_and_menus_in_view(driver, base_url, size):
    # Three windows: room beside the board, none beside it (the edge fallback), narrow.
    driver.set_window_size(*size)
    try:
        for board in (
            expert_position(3),
            mscsp.parse_board("9x9x10\n" + "?????????\n" * 9),
        ):
            open_page(driver, base_url)
            paste_marked(driver, board.to_text())
            corners = {(0, 0), (0, board.cols - 1), (board.rows - 1, 0), (3, board.cols // 2)}
            for r, c in sorted(corners):
                driver.execute_script("window.scrollTo(0, 0)")
                hover(driver, r, c)
                assert_header_in_view(driver)
                tip = rect(driver, driver.find_element(By.ID, "tip"))
                assert not overlap(tip, rect(driver, cell_el(driver, r, c)))
    finally:
        driver.set_window_size(1400, 1000)


def test_the_tooltip_names_fifty_fifties_and_dead_cells(driver, base_url, screenshots):
    board = first_position(range(26, 80), has_lone_dead_cell)
    marks = marks_request({"board": board.to_text()}, Limits())
    solution = mscsp.solve(board)
    open_page(driver, base_url)
    paste_marked(driver, board.to_text())
    (a, b), *_ = marks["fifty_fifty"]
    paired = {tuple(c) for pair in marks["fifty_fifty"] for c in pair}
    text = hover(driver, *a)
    assert "50/50" in text and f"50/50 with ({b[0]}, {b[1]})" in text
    assert_header_in_view(driver)
    shoot(driver, screenshots, "page_issue50_tooltip.png")
    lone = next(tuple(c) for c in marks["dead"] if tuple(c) not in paired)
    text = hover(driver, *lone)
    assert "dead" in text and "50/50" not in text
    live = [
        cell
        for cell, p in solution.exact.items()
        if 0 < p < 1 and cell not in {tuple(c) for c in marks["dead"]}
    ]
    if live:  # an undecided cell that is neither says neither
        text = hover(driver, *live[0])
        assert "dead" not in text and "50/50" not in text


# ---------------------------------------------------------------- labels in marked cells


def test_a_marked_cells_label_fits_inside_it(driver, base_url):
    board = first_position(range(26, 80), has_lone_dead_cell)
    open_page(driver, base_url)
    for width in (1400, 900):  # two cell sizes
        driver.set_window_size(width, 1000)
        try:
            paste_marked(driver, board.to_text())
            cells = driver.execute_script(
                """
                return [...document.querySelectorAll('#board .cell.fifty, #board .cell.dead')]
                  .filter((el) => el.textContent).map((el) => {
                    const range = document.createRange();
                    range.selectNodeContents(el);
                    return {cls: el.className, text: el.textContent, scroll: el.scrollWidth,
                            client: el.clientWidth, clientH: el.clientHeight,
                            width: range.getBoundingClientRect().width,
                            height: range.getBoundingClientRect().height};
                  });
                """
            )
            assert any("fifty" in c["cls"].split() and c["text"] == "50%" for c in cells)
            for cell in cells:
                assert cell["scroll"] <= cell["client"], cell
                assert cell["width"] <= cell["client"], cell  # inside the ring (the border)
                assert cell["height"] <= cell["clientH"], cell
        finally:
            driver.set_window_size(1400, 1000)


# ---------------------------------------------------------------- why this guess


def test_the_why_score_is_no_percentage(driver, base_url):
    board = first_position(range(1, 30), looked_ahead)
    why = suggest_request({"board": board.to_text()}, Limits())["why"]
    open_page(driver, base_url)
    paste_marked(driver, board.to_text())
    driver.find_element(By.ID, "suggest").click()
    WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.ID, "why"))
    panel = driver.find_element(By.ID, "why")
    rows = {
        tr.find_elements(By.CSS_SELECTOR, "th, td")[0].text: [
            td.text for td in tr.find_elements(By.CSS_SELECTOR, "td")[1:]
        ]
        for tr in panel.find_elements(By.TAG_NAME, "tr")
    }
    pick, runner = why["pick"], why["runner_up"]
    assert rows["score"] == [f"{pick['score']:.3f}", f"{runner['score']:.3f}"]
    assert "%" not in "".join(rows["score"])
    assert rows["safe now"][0].endswith("%")  # (the probabilities keep theirs)
    foot = panel.find_element(By.CSS_SELECTOR, ".why-foot").text
    assert "%" not in foot and "points" not in foot


# ---------------------------------------------------------------- above the fold


def in_view(driver, element_id: str) -> bool:
    box = rect(driver, driver.find_element(By.ID, element_id))
    height = driver.execute_script("return window.innerHeight")
    return box["height"] > 0 and box["top"] >= 0 and box["bottom"] <= height


def ask(driver) -> None:
    """Clicks "What would it do here?" and waits for the hint."""
    driver.find_element(By.ID, "suggest").click()
    hint = driver.find_element(By.ID, "hint")
    WebDriverWait(driver, WAIT).until(lambda d: "would reveal" in hint.text)


def test_the_suggestion_and_the_play_hint_are_in_view(driver, base_url, screenshots):
    driver.set_window_size(1400, 1000)  # (the driver's window)
    open_page(driver, base_url)
    paste_marked(driver, expert_position(3).to_text())
    driver.execute_script("window.scrollTo(0, 0)")
    assert driver.execute_script("return window.scrollY") == 0
    assert in_view(driver, "suggest")
    ask(driver)
    assert in_view(driver, "hint")

    before = solved(driver)
    driver.find_element(By.ID, "tab-play").click()
    wait_solved(driver, before)
    before = solved(driver)
    driver.find_element(By.CSS_SELECTOR, "#board .cell[data-r='4'][data-c='4']").click()
    wait_solved(driver, before)
    driver.execute_script("window.scrollTo(0, 0)")
    assert in_view(driver, "suggest")
    ask(driver)
    WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.ID, "play-hint"))
    assert in_view(driver, "hint") and in_view(driver, "play-hint")
    shoot(driver, screenshots, "page_issue50_play_hint.png")


# ---------------------------------------------------------------- no-guess games


def test_the_play_tab_offers_no_guess_boards(driver, base_url, screenshots):
    open_page(driver, base_url)
    before = solved(driver)
    driver.find_element(By.ID, "tab-play").click()
    wait_solved(driver, before)
    preset = driver.find_element(By.ID, "play-preset")
    driver.execute_script("arguments[0].value = 'intermediate'", preset)
    driver.execute_script("document.getElementById('play-seed').value = '8'")
    before = solved(driver)
    driver.find_element(By.ID, "play-noguess").click()  # ticking it starts a new game
    wait_solved(driver, before)
    status = driver.find_element(By.ID, "play-status")
    WebDriverWait(driver, WAIT).until(lambda d: "no guess" in status.text)
    rows, cols, mines = 16, 16, 40
    board = Generator(Settings(rows, cols, mines, first_click="safe"), 8).next_board()
    r, c = board.start
    assert f"({r}, {c}) opened for you" in status.text
    game = mscsp.Game(rows, cols, mines, layout=_mask(board.layout, rows, cols))
    game.reveal(r, c)
    text = driver.find_element(By.ID, "board-text").get_attribute("value")
    shown = driver.execute_script(
        "return [...document.querySelectorAll('#board .cell')].map((e) => e.className)"
    )
    opened = [i for i, cls in enumerate(shown) if "revealed" in cls.split()]
    assert opened == [i for i, v in enumerate(game.view.reshape(-1)) if v >= 0], text
    # The certificate's first step, clicked on the page, opens its cells: the game goes on.
    cells = [divmod(int(i), cols) for i in board.steps[0].safe]
    for rr, cc in cells:
        if "revealed" not in cell_el(driver, rr, cc).get_attribute("class").split():
            before = solved(driver)
            cell_el(driver, rr, cc).click()
            wait_solved(driver, before)
    for rr, cc in cells:
        assert "revealed" in cell_el(driver, rr, cc).get_attribute("class").split()
    assert status.get_attribute("data-state") == "playing"
    shoot(driver, screenshots, "page_issue50_noguess.png")
    driver.find_element(By.ID, "play-noguess").click()  # off again: the plain game
    WebDriverWait(driver, WAIT).until(lambda d: "no guess" not in status.text)


def _mask(layout, rows: int, cols: int):
    import numpy as np

    mask = np.zeros(rows * cols, dtype=bool)
    mask[list(layout)] = True
    return mask.reshape(rows, cols)
