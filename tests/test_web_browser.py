"""The analyser page in a real headless Chromium (Debian's ``chromium`` + ``chromium-driver``).

The server runs in a thread on 127.0.0.1 (an ephemeral port); Selenium drives the system
browser, never a downloaded one. Skipped, with the reason, where any piece is missing.
Screenshots of the analyse and play views are written to the test's temporary directory.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import mscsp
from mscsp.display.heatmap import cell_rgb
from mscsp.display.render import solution_json
from mscsp.players import get_player

pytest.importorskip("starlette", reason="the web analyser needs pip install 'mscsp[web]'")
uvicorn = pytest.importorskip("uvicorn", reason="the web analyser needs pip install 'mscsp[web]'")
webdriver = pytest.importorskip("selenium.webdriver", reason="browser tests need selenium")

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from mscsp.web.app import create_app  # noqa: E402
from mscsp.web.service import Limits  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if CHROMIUM is None or CHROMEDRIVER is None:
    pytest.skip(
        "headless Chromium is not installed (apt-get install chromium chromium-driver)",
        allow_module_level=True,
    )

WAIT = 30  # seconds any one page update may take on a loaded 2-core machine


def analyser(limits: Limits) -> Any:
    """The analyser app under ``limits``, answering requests to 127.0.0.1."""
    return create_app(limits, allowed_hosts=["127.0.0.1"])


@contextlib.contextmanager
def served(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn in a thread on 127.0.0.1 (an ephemeral port): its base
    URL, the server stopped afterwards."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(200):  # up to about 20 s
        if server.started:
            break
        time.sleep(0.1)
    assert server.started, "the server did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        sock.close()


@pytest.fixture(scope="module")
def base_url():
    """The analyser with a 20 s limit per request, stopped after the module."""
    with served(analyser(Limits(time_limit=20))) as url:
        yield url


def solved(driver) -> int:
    return int(driver.find_element(By.ID, "board").get_attribute("data-solved") or 0)


def wait_solved(driver, before: int) -> None:
    """Waits for a solve after the ``before``-th, and for the page to be idle."""

    def done(d):
        board = d.find_element(By.ID, "board")
        return solved(d) > before and board.get_attribute("data-state") != "busy"

    WebDriverWait(driver, WAIT).until(done)


def open_page(driver, base_url) -> None:
    driver.get("about:blank")  # a fresh page: the built-in example, not the last board
    driver.get(base_url + "/")
    wait_solved(driver, 0)


def paste(driver, text: str) -> None:
    """Puts ``text`` in the board text box as a paste does (one input event)."""
    before = solved(driver)
    area = driver.find_element(By.ID, "board-text")
    driver.execute_script(
        "arguments[0].value = arguments[1];"
        "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));",
        area,
        text,
    )
    wait_solved(driver, before)


def dom_cells(driver) -> list[dict]:
    """Every cell of the board as the page shows it."""
    return driver.execute_script(
        """
        return Array.from(document.querySelectorAll('#board .cell')).map((el) => ({
          r: Number(el.dataset.r), c: Number(el.dataset.c), p: el.dataset.p ?? null,
          exact: el.dataset.exact ?? null, cls: el.className, text: el.textContent,
          bg: getComputedStyle(el).backgroundColor,
        }));
        """
    )


def rgb(css: str) -> tuple[int, ...]:
    return tuple(int(v) for v in css[css.index("(") + 1 : css.index(")")].split(","))


def assert_heat_map_is(driver, board: mscsp.Board) -> None:
    """The page's heat map equals ``mscsp.solve``: odds, fractions, colours, suggestion."""
    solution = mscsp.solve(board)
    shown = solution_json(solution, "dss")["probabilities"]  # what probs --json prints
    cells = dom_cells(driver)
    assert len(cells) == board.rows * board.cols
    for cell in cells:
        r, c = cell["r"], cell["c"]
        value = int(board.cells[r, c])
        if value >= 0:
            assert cell["p"] is None and "revealed" in cell["cls"]
            assert cell["text"] == ("" if value == 0 else str(value))
            continue
        assert float(cell["p"]) == shown[r][c], (r, c)
        if value == mscsp.FLAG:
            continue
        assert Fraction(cell["exact"]) == solution.exact[(r, c)]
        assert rgb(cell["bg"]) == cell_rgb(value, shown[r][c]), (r, c)
        # Every probability carries '%' (a bare "2" would read as a revealed number).
        assert cell["text"] in ("✓", "✗") or cell["text"].endswith("%"), (r, c, cell["text"])
        assert ("best" in cell["cls"].split()) == ((r, c) == solution.best_move)


def expert_position(seed: int) -> mscsp.Board:
    game = mscsp.Game.from_preset("expert", seed=seed, first_click="opening")
    game.reveal(8, 15)
    return game.board()


def test_pasted_board_shows_the_exact_odds(driver, base_url, screenshots):
    open_page(driver, base_url)
    assert_heat_map_is(
        driver, mscsp.parse_board(driver.find_element(By.ID, "board-text").get_attribute("value"))
    )
    board = expert_position(3)
    paste(driver, board.to_text())
    assert_heat_map_is(driver, board)
    summary = driver.find_element(By.ID, "summary").text
    assert "mine layouts" in summary and "dss" in summary
    cell = driver.find_element(By.CSS_SELECTOR, "#board .cell.heat")
    ActionChains(driver).move_to_element(cell).perform()
    tip = driver.find_element(By.ID, "tip")
    WebDriverWait(driver, WAIT).until(lambda d: tip.is_displayed())
    assert "mine probability" in tip.text
    driver.save_screenshot(str(screenshots / "analyse.png"))


def test_drawing_cells_resolves_the_board(driver, base_url):
    open_page(driver, base_url)
    before = solved(driver)
    driver.find_element(By.CSS_SELECTOR, "[data-preset='beginner']").click()
    wait_solved(driver, before)
    assert {cell["p"] for cell in dom_cells(driver)} == {str(10 / 81)}

    def cell(r: int, c: int):
        return driver.find_element(By.CSS_SELECTOR, f"#board .cell[data-r='{r}'][data-c='{c}']")

    before = solved(driver)
    cell(0, 0).click()  # covered -> revealed 0
    wait_solved(driver, before)
    before = solved(driver)
    ActionChains(driver).move_to_element(cell(3, 3)).send_keys("1").perform()
    wait_solved(driver, before)
    before = solved(driver)
    ActionChains(driver).context_click(cell(8, 8)).perform()  # flag
    wait_solved(driver, before)
    text = driver.find_element(By.ID, "board-text").get_attribute("value")
    board = mscsp.parse_board(text)
    assert board.cells[0, 0] == 0 and board.cells[3, 3] == 1 and board.cells[8, 8] == mscsp.FLAG
    assert_heat_map_is(driver, board)
    assert float(dom_cells(driver)[1]["p"]) == 0.0  # (0, 1) is next to a zero
    driver.refresh()  # the board lives in the address: a reload shows it again
    wait_solved(driver, 0)
    assert driver.find_element(By.ID, "board-text").get_attribute("value") == text
    assert_heat_map_is(driver, board)


def test_bad_boards_show_an_error_next_to_the_board(driver, base_url):
    open_page(driver, base_url)
    paste(driver, "3x2x1\n1?x\n???\n")
    error = driver.find_element(By.ID, "error")
    assert error.is_displayed()
    assert "Board text" in error.text and "line 2, column 3" in error.text
    area = driver.find_element(By.ID, "board-text")
    assert "bad" in area.get_attribute("class")
    start = driver.execute_script("return arguments[0].selectionStart", area)
    assert area.get_attribute("value")[start] == "x"
    paste(driver, "2x2x1\n2?\n??\n")
    assert "Inconsistent board" in driver.find_element(By.ID, "error").text
    shown = dom_cells(driver)  # the board is drawn as pasted, without odds
    assert [c["text"] for c in shown] == ["2", "", "", ""] and all(c["p"] is None for c in shown)
    assert driver.find_element(By.ID, "board").get_attribute("data-state") == "error"
    drawn = len(dom_cells(driver))
    for name, value in (("width", "1000"), ("height", "1000")):
        box = driver.find_element(By.ID, name)
        box.clear()
        box.send_keys(value)
    driver.find_element(By.ID, "new-board").click()
    assert "Too large" in driver.find_element(By.ID, "error").text
    assert len(dom_cells(driver)) == drawn  # the last board stays, nothing huge is drawn
    paste(driver, "2x2x1\n1?\n??\n")
    assert not driver.find_element(By.ID, "error").is_displayed()
    assert_heat_map_is(driver, mscsp.parse_board("2x2x1\n1?\n??\n"))


def test_play_a_few_moves_with_odds_and_the_best_players_pick(driver, base_url, screenshots):
    open_page(driver, base_url)
    before = solved(driver)
    driver.find_element(By.ID, "tab-play").click()
    wait_solved(driver, before)
    game = mscsp.Game.from_preset("beginner", seed=1, first_click="safe")
    assert_heat_map_is(driver, game.board())

    before = solved(driver)
    driver.find_element(By.CSS_SELECTOR, "#board .cell[data-r='4'][data-c='4']").click()
    wait_solved(driver, before)
    game.reveal(4, 4)
    assert_heat_map_is(driver, game.board())

    for _ in range(3):
        if game.over:
            break
        driver.find_element(By.ID, "suggest").click()
        hint = driver.find_element(By.ID, "hint")
        WebDriverWait(driver, WAIT).until(lambda d, hint=hint: "would reveal" in hint.text)
        move = get_player("best").next_moves(game.board(), np.random.default_rng(1))[0]
        assert f"({move[0]}, {move[1]})" in hint.text
        hinted = driver.find_element(By.CSS_SELECTOR, "#board .cell.hinted")
        assert (int(hinted.get_attribute("data-r")), int(hinted.get_attribute("data-c"))) == move
        if game.over:
            break
        driver.save_screenshot(str(screenshots / "play.png"))
        before = solved(driver)
        driver.find_element(By.ID, "play-hint").click()
        game.reveal(*move)
        if game.over:
            WebDriverWait(driver, WAIT).until(
                lambda d: (
                    d.find_element(By.ID, "play-status").get_attribute("data-state") != "playing"
                )
            )
            break
        wait_solved(driver, before)
        assert_heat_map_is(driver, game.board())
    status = driver.find_element(By.ID, "play-status").get_attribute("data-state")
    assert status == str(game.state)
    overlay = driver.find_element(By.ID, "overlay")
    overlay.click()  # odds off: covered cells back to plain tiles
    assert not driver.find_elements(By.CSS_SELECTOR, "#board .cell.heat")
    overlay.click()


# ---------------------------------------------------------------- replays (replay.js)


def test_replay_file_scrubs_with_the_heat_map_and_verdicts(driver, base_url, screenshots, tmp_path):
    pytest.importorskip("ms_toollib", reason="replays need pip install 'mscsp[replay]'")
    from replay_files import random_game, record

    from mscsp.replay import rate_replay, read_replay

    for seed in range(50):  # a lost game with a few clicks, one of them an avoidable risk
        game, clicks = random_game(9, 9, 10, seed)
        data = record(game.mine, clicks)
        rating = rate_replay(read_replay(data, "game.evf"))
        if rating.result == "lost" and len(clicks) >= 4 and rating.avoidable:
            break
    path = tmp_path / "lost.evf"
    path.write_bytes(data)
    open_page(driver, base_url)
    before = solved(driver)
    driver.find_element(By.ID, "replay-file").send_keys(str(path))
    wait_solved(driver, before)
    verdict = driver.find_element(By.ID, "replay-verdict")
    assert verdict.get_attribute("data-verdict") == "forced"
    assert_heat_map_is(driver, rating.clicks[0].board)
    assert "lost at click" in driver.find_element(By.ID, "replay-summary").text
    risky = rating.avoidable[-1]
    for click in rating.clicks[1:]:
        before = solved(driver)
        driver.find_element(By.ID, "replay-next").click()
        wait_solved(driver, before)
        assert verdict.get_attribute("data-verdict") == click.verdict
        assert_heat_map_is(driver, click.board)
        marked = driver.find_elements(By.CSS_SELECTOR, "#board .cell.replay-click")
        assert [
            (int(m.get_attribute("data-r")), int(m.get_attribute("data-c"))) for m in marked
        ] == [click.cell]
        if click is risky:
            driver.save_screenshot(str(screenshots / "replay.png"))
    assert "hit a mine" in verdict.text
    before = solved(driver)
    driver.find_element(By.ID, "replay-next").click()  # after the last click: the final board
    wait_solved(driver, before)
    assert driver.find_element(By.ID, "board-text").get_attribute("value") == (
        rating.final_board.to_text()
    )
    (tmp_path / "cut.evf").write_bytes(data[:40])
    driver.find_element(By.ID, "replay-file").send_keys(str(tmp_path / "cut.evf"))
    error = driver.find_element(By.ID, "replay-error")
    WebDriverWait(driver, WAIT).until(lambda d: error.is_displayed())
    assert "cut.evf" in error.text and "corrupt" in error.text
