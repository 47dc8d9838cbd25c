"""The analyser page as players of Hill's analyser and Metasweeper expect it (issue 32), in
headless Chromium: rulers, one count of certain cells, the Mines box for a board without a
header, the cell an error names, no race at load, the tooltip off the explanation, "why this
guess" for ``best``, and dead cells and 50/50s on the board.

Screenshots go to the test's temporary directory, and also to ``$MSCSP_SCREENSHOTS`` when
set (``MSCSP_SCREENSHOTS=docs/img`` refreshes the user guide's images).
"""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import click
import numpy as np
import pytest
from test_web_insight import BAD, guess_positions, named_cell  # noqa: E402

import mscsp
from mscsp.display.render import probability_map
from mscsp.errors import format_cell
from mscsp.players import get_player

pytest.importorskip("selenium", reason="browser tests need selenium")

# The browser tests' module skips this one too where Starlette, uvicorn, Selenium or
# Chromium is missing (its checks run on import).
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from test_web_browser import (  # noqa: E402
    WAIT,
    analyser,
    assert_heat_map_is,
    dom_cells,
    expert_position,
    open_page,
    paste,
    served,
    solved,
    wait_solved,
)

from mscsp.web.service import Limits, marks_request, suggest_request  # noqa: E402

#: Seconds the slow server holds /api/meta: longer than a replay takes to be rated.
META_DELAY = 6.0


class SlowMeta:
    """The analyser behind a slow line for ``/api/meta`` only: the page's metadata arrives
    after the user has acted (the race of issue 32)."""

    def __init__(self, app, seconds: float):
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["path"] == "/api/meta":
            await asyncio.sleep(self.seconds)
        await self.app(scope, receive, send)


@pytest.fixture(scope="module")
def base_url():
    with served(analyser(Limits(time_limit=20))) as url:
        yield url


def shoot(driver, folder: Path, name: str) -> None:
    """A screenshot of the window, in ``folder`` and in ``$MSCSP_SCREENSHOTS`` if set."""
    driver.save_screenshot(str(folder / name))
    extra = os.environ.get("MSCSP_SCREENSHOTS")
    if extra:
        driver.save_screenshot(str(Path(extra) / name))


def wait_marked(driver) -> None:
    """Waits for the dead cells and 50/50s of the board on show (the last solve's)."""
    WebDriverWait(driver, WAIT).until(
        lambda d: d.find_element(By.ID, "board").get_attribute("data-marks-for") == str(solved(d))
    )


def paste_marked(driver, text: str) -> None:
    paste(driver, text)
    wait_marked(driver)


def cell_el(driver, r: int, c: int):
    return driver.find_element(By.CSS_SELECTOR, f"#board .cell[data-r='{r}'][data-c='{c}']")


def marked_cells(driver, name: str) -> set[tuple[int, int]]:
    return {(c["r"], c["c"]) for c in dom_cells(driver) if name in c["cls"].split()}


def rect(driver, element) -> dict:
    return driver.execute_script("return arguments[0].getBoundingClientRect().toJSON()", element)


def overlap(a: dict, b: dict) -> bool:
    return (
        a["left"] < b["right"]
        and b["left"] < a["right"]
        and a["top"] < b["bottom"]
        and b["top"] < a["bottom"]
    )


def facts(driver) -> dict[str, str]:
    """The Odds panel's facts, name to value."""
    # Read in one script: the panel is redrawn when the dead cells and 50/50s arrive, which
    # would leave elements found one call earlier stale.
    return driver.execute_script(
        "const names = [...document.querySelectorAll('#facts dt')].map(e => e.innerText);"
        "const values = [...document.querySelectorAll('#facts dd')].map(e => e.innerText);"
        "return Object.fromEntries(names.map((n, i) => [n, values[i]]));"
    )


def cli_labels(solution: mscsp.Solution) -> dict[tuple[int, int], str]:
    """What ``mscsp probs`` prints on each covered, unflagged cell of its map."""
    lines = click.unstyle(probability_map(solution, legend=False)).splitlines()[1:]
    board = solution.board
    out = {}
    for r, line in enumerate(lines):
        for c, text in enumerate(line.split()[1:]):
            if board.cells[r, c] == mscsp.COVERED:
                out[(r, c)] = text
    return out


# ---------------------------------------------------------------- rulers and percentages


def test_rulers_and_percentages_read_as_the_cli_map(driver, base_url, screenshots):
    open_page(driver, base_url)
    board = expert_position(3)
    paste(driver, board.to_text())
    solution = mscsp.solve(board)
    top = driver.execute_script(
        "return Array.from(document.querySelectorAll('#ruler-top span')).map((e) => {"
        "const b = e.getBoundingClientRect(); return [e.textContent, (b.left + b.right) / 2];})"
    )
    left = driver.execute_script(
        "return Array.from(document.querySelectorAll('#ruler-left span')).map((e) => {"
        "const b = e.getBoundingClientRect(); return [e.textContent, (b.top + b.bottom) / 2];})"
    )
    # Labelled as the CLI's map labels its columns and rows: from 0.
    header = click.unstyle(probability_map(solution, legend=False)).splitlines()[0].split()
    assert [text for text, _ in top] == header == [str(c) for c in range(board.cols)]
    assert [text for text, _ in left] == [str(r) for r in range(board.rows)]
    for c, (_, x) in enumerate(top):  # each label stands over its column
        box = rect(driver, cell_el(driver, 0, c))
        assert abs(x - (box["left"] + box["right"]) / 2) <= 1.0
    for r, (_, y) in enumerate(left):  # and beside its row
        box = rect(driver, cell_el(driver, r, 0))
        assert abs(y - (box["top"] + box["bottom"]) / 2) <= 1.0

    # Every probability on the heat map carries '%', with the CLI's rounding.
    shown = {(c["r"], c["c"]): c["text"] for c in dom_cells(driver)}
    marks = {"s": "✓", "M": "✗"}
    for cell, text in cli_labels(solution).items():
        want = marks.get(text) or (text if text.endswith("%") else text + "%")
        assert shown[cell] == want, cell

    # Hovering names the cell as (row, col) and lights its row and column on the rulers.
    ActionChains(driver).move_to_element(cell_el(driver, 3, 14)).perform()
    tip = driver.find_element(By.ID, "tip")
    WebDriverWait(driver, WAIT).until(lambda d: tip.is_displayed())
    assert tip.text.startswith("(3, 14)")
    lit = driver.find_elements(By.CSS_SELECTOR, ".ruler span.on")
    assert {(e.get_attribute("data-r"), e.get_attribute("data-c")) for e in lit} == {
        ("3", None),
        (None, "14"),
    }
    shoot(driver, screenshots, "page_rulers.png")


def test_the_tooltip_leaves_the_explanation_in_view(driver, base_url):
    open_page(driver, base_url)
    board = expert_position(3)
    paste(driver, board.to_text())
    r, c = mscsp.solve(board).safe[0]
    target = cell_el(driver, r, c)
    ActionChains(driver).move_to_element(target).perform()
    panel = driver.find_element(By.ID, "explain-panel")
    WebDriverWait(driver, WAIT).until(lambda d: panel.is_displayed())
    numbers = driver.find_elements(By.CSS_SELECTOR, "#board .explain-number")
    assert numbers
    tip = driver.find_element(By.ID, "tip")
    assert tip.is_displayed() and tip.text.startswith(f"({r}, {c})")
    for element in (panel, target, *numbers):
        assert not overlap(rect(driver, tip), rect(driver, element))


# ---------------------------------------------------------------- counts and the hint


def test_certain_safe_cells_are_counted_once(driver, base_url):
    open_page(driver, base_url)
    for seed in range(1, 30):  # a position where best's turn opens only some safe cells
        board = expert_position(seed)
        safe = mscsp.solve(board).safe
        moves = get_player("best").next_moves(board, np.random.default_rng(0))
        if 1 < len(moves) < len(safe):
            break
    paste_marked(driver, board.to_text())
    assert facts(driver)["Certain safe"] == f"{len(safe)} cells"
    driver.find_element(By.ID, "suggest").click()
    hint = driver.find_element(By.ID, "hint")
    WebDriverWait(driver, WAIT).until(lambda d: "would reveal" in hint.text)
    assert f"({moves[0][0]}, {moves[0][1]})" in hint.text
    # The hint states the same count as the panel, and no other count of safe cells.
    assert re.findall(r"(\d+) certain safe", hint.text) == [str(len(safe))]
    assert f"one of {len(moves)} " not in hint.text


# ---------------------------------------------------------------- the Mines box, errors


def set_value(driver, element_id: str, value: str) -> None:
    """Types ``value`` in a box as a user does, then leaves it (one change event)."""
    box = driver.find_element(By.ID, element_id)
    driver.execute_script(
        "arguments[0].value = arguments[1];"
        "arguments[0].dispatchEvent(new Event('change', {bubbles: true}));",
        box,
        value,
    )


def test_a_board_without_a_header_takes_the_mines_box(driver, base_url):
    open_page(driver, base_url)
    game = mscsp.Game.from_preset("beginner", seed=4, first_click="opening")
    game.reveal(4, 4)
    text = game.board().to_text(header=False)
    before = solved(driver)
    set_value(driver, "mines", "10")
    wait_solved(driver, before)
    paste(driver, text)
    assert not driver.find_element(By.ID, "error").is_displayed()
    assert driver.find_element(By.ID, "board-text").get_attribute("value") == text
    assert_heat_map_is(driver, mscsp.parse_board(text, mines=10))
    before = solved(driver)
    set_value(driver, "mines", "")  # no count anywhere: the error names the Mines box
    wait_solved(driver, before)
    error = driver.find_element(By.ID, "error")
    assert error.is_displayed() and "Mines box" in error.text and "--mines" not in error.text
    assert "bad" in driver.find_element(By.ID, "mines").get_attribute("class").split()
    before = solved(driver)
    set_value(driver, "mines", "12")
    wait_solved(driver, before)
    assert not error.is_displayed()
    assert "bad" not in driver.find_element(By.ID, "mines").get_attribute("class").split()
    assert_heat_map_is(driver, mscsp.parse_board(text, mines=12))


def test_an_inconsistent_board_marks_the_cell_it_names(driver, base_url, screenshots):
    open_page(driver, base_url)
    for text in BAD:
        paste(driver, text)
        error = driver.find_element(By.ID, "error")
        assert error.is_displayed() and "Inconsistent board" in error.text
        cell = named_cell(mscsp.parse_board(text))
        assert format_cell(cell) in error.text
        assert marked_cells(driver, "error-cell") == {tuple(cell)}
    shoot(driver, screenshots, "page_error_cell.png")
    paste(driver, "2x2x1\n1?\n??\n")  # fixed: the mark goes with the error
    assert not marked_cells(driver, "error-cell")


# ---------------------------------------------------------------- no race at load


def test_a_replay_opened_before_the_page_has_loaded(driver, tmp_path):
    pytest.importorskip("ms_toollib", reason="replays need pip install 'mscsp[replay]'")
    from replay_files import random_game, record

    from mscsp.replay import rate_replay, read_replay

    game, clicks = random_game(9, 9, 10, 3)
    data = record(game.mine, clicks)
    rating = rate_replay(read_replay(data, "game.evf"))
    path = tmp_path / "game.evf"
    path.write_bytes(data)
    with served(SlowMeta(analyser(Limits(time_limit=20)), META_DELAY)) as url:
        driver.get("about:blank")
        driver.get(url + "/")  # the page is up; its metadata is not
        assert not driver.find_elements(By.CSS_SELECTOR, "#backend option")  # not yet
        driver.find_element(By.ID, "replay-file").send_keys(str(path))
        WebDriverWait(driver, WAIT + META_DELAY).until(
            lambda d: (
                d.find_element(By.ID, "replay-panel").get_attribute("data-step") == "0"
                and d.find_element(By.ID, "board-text").get_attribute("value")
                == rating.clicks[0].board.to_text()
            )
        )
        wait_solved(driver, 0)
        # The replay's board, solved with a backend from the menu; the size boxes its size.
        assert driver.find_element(By.ID, "board-text").get_attribute("value") == (
            rating.clicks[0].board.to_text()
        )
        assert driver.find_elements(By.CSS_SELECTOR, "#backend option")
        assert_heat_map_is(driver, rating.clicks[0].board)
        sizes = [driver.find_element(By.ID, k).get_attribute("value") for k in ("width", "height")]
        assert sizes == ["9", "9"]
        assert driver.find_element(By.ID, "mines").get_attribute("value") == "10"


# ---------------------------------------------------------------- why this guess, marks


def first_position(seeds, wanted):
    """The first guess position of ``best``'s games on ``seeds`` for which ``wanted``."""
    for seed in seeds:
        for board in guess_positions(seed):
            if wanted(board):
                return board
    pytest.skip("no such position in these games")


def looked_ahead(board) -> bool:
    why = suggest_request({"board": board.to_text()}, Limits())["why"]
    marks = marks_request({"board": board.to_text()}, Limits())
    return why["rule"] == "lookahead" and why["runner_up"] is not None and bool(marks["dead"])


def test_why_this_guess_shows_bests_numbers(driver, base_url, screenshots):
    board = first_position(range(1, 30), looked_ahead)
    why = suggest_request({"board": board.to_text()}, Limits())["why"]
    open_page(driver, base_url)
    driver.set_window_size(1400, 1300)  # the side panel's "why" in view for the screenshot
    try:
        paste_marked(driver, board.to_text())
        driver.find_element(By.ID, "suggest").click()
        WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.ID, "why"))
        panel = driver.find_element(By.ID, "why")
        rows = [
            [td.text for td in tr.find_elements(By.CSS_SELECTOR, "th, td")]
            for tr in panel.find_elements(By.TAG_NAME, "tr")
        ]
        pick, runner = why["pick"], why["runner_up"]
        assert rows[0][1].startswith(f"({pick['cell'][0]}, {pick['cell'][1]})")
        assert rows[0][2].startswith(f"({runner['cell'][0]}, {runner['cell'][1]})")
        shown = {row[0]: row[1:] for row in rows[1:]}
        for label, key in (
            ("safe now", "safety"),
            ("survives it and the next click", "survive2"),
            ("progress", "progress"),
        ):
            assert shown[label] == [f"{100 * pick[key]:.1f}%", f"{100 * runner[key]:.1f}%"]
        # The score is no probability (it may pass 1): a plain number (issue 50).
        assert shown["score"] == [f"{pick['score']:.3f}", f"{runner['score']:.3f}"]
        lead = abs(why["lead"])
        assert (f"by {lead:.3f} in score" in panel.text) if lead >= 0.001 else True
        assert marked_cells(driver, "runner-up") == {tuple(runner["cell"])}
        assert marked_cells(driver, "hinted") == {tuple(pick["cell"])}
        driver.execute_script("window.scrollTo(0, 0)")
        shoot(driver, screenshots, "page_rulers_why.png")
    finally:
        driver.set_window_size(1400, 1000)


def has_pair(board) -> bool:
    marks = marks_request({"board": board.to_text()}, Limits())
    return bool(marks["fifty_fifty"]) and bool(marks["dead"])


def test_dead_cells_and_fifty_fifties_are_marked(driver, base_url, screenshots):
    board = first_position(range(26, 60), has_pair)
    marks = marks_request({"board": board.to_text()}, Limits())
    open_page(driver, base_url)
    paste_marked(driver, board.to_text())
    assert marked_cells(driver, "dead") == {tuple(c) for c in marks["dead"]}
    pairs = {tuple(c) for pair in marks["fifty_fifty"] for c in pair}
    assert marked_cells(driver, "fifty") == pairs
    shown = facts(driver)
    dead = len(marks["dead"])
    assert shown["Dead"] == f"{dead} cell{'' if dead == 1 else 's'}"
    assert shown["50/50 pairs"] == str(len(marks["fifty_fifty"]))
    legend = driver.find_element(By.CSS_SELECTOR, ".legend-keys").text
    assert "dead" in legend and "50/50" in legend
    driver.find_element(By.ID, "overlay").click()  # odds off: the marks go with them
    assert not marked_cells(driver, "dead") and not marked_cells(driver, "fifty")
    driver.find_element(By.ID, "overlay").click()
    assert marked_cells(driver, "fifty") == pairs
    shoot(driver, screenshots, "page_dead_fifty.png")
