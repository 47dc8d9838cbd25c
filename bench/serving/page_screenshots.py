"""Screenshots of the analyser page for the user guide (issue 50), in headless Chromium.

Serves the analyser on 127.0.0.1 (an ephemeral port, in a thread), drives the system's
Chromium (``/usr/bin/chromium`` and ``chromedriver``) with Selenium at 1400x1000, and writes:

* ``page_issue50_tooltip.png``: the tooltip of one cell of a 50/50 pair, below the header;
* ``page_issue50_noguess.png``: a no-guess game of the Play tab, its first click made, a
  few certain cells opened and the player's pick in view.

Run from the repository root: ``python bench/serving/page_screenshots.py --out docs/img``.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import uvicorn
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import mscsp
from mscsp.players import get_player
from mscsp.web.app import create_app
from mscsp.web.service import Limits, marks_request, play_request

WAIT = 60  # seconds one page update may take


@contextmanager
def served() -> Iterator[str]:
    """The analyser served by uvicorn in a thread; its address."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = create_app(Limits(time_limit=20), allowed_hosts=["127.0.0.1"])
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.1)
    if not server.started:
        raise SystemExit("the server did not start")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        sock.close()


def browser() -> webdriver.Chrome:
    """Headless Chromium at 1400x1000."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if binary is None or driver is None:
        raise SystemExit(
            "needs chromium and chromedriver (apt-get install chromium chromium-driver)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(driver), options=options)


def pair_position() -> tuple[mscsp.Board, dict]:
    """A position of ``best``'s expert games with a 50/50 pair, and its marks."""
    for seed in range(26, 200):
        game = mscsp.Game.from_preset("expert", seed=seed, first_click="opening")
        player = get_player("best")
        player.new_game()
        rng = np.random.default_rng(0)
        while not game.over:
            board = game.board()
            marks = marks_request({"board": board.to_text()}, Limits())
            if marks["fifty_fifty"]:
                return board, marks
            for move in player.next_moves(board, rng):
                game.reveal(*move)
                if game.over:
                    break
    raise SystemExit("no 50/50 in these games")


def solved(driver: webdriver.Chrome) -> int:
    return int(driver.find_element(By.ID, "board").get_attribute("data-solved") or 0)


def wait_idle(driver: webdriver.Chrome, before: int) -> None:
    """Waits for a solve after the ``before``-th, and for its dead cells and 50/50s."""

    def done(d: webdriver.Chrome) -> bool:
        board = d.find_element(By.ID, "board")
        return (
            solved(d) > before
            and board.get_attribute("data-state") != "busy"
            and board.get_attribute("data-marks-for") == str(solved(d))
        )

    WebDriverWait(driver, WAIT).until(done)


def tooltip(driver: webdriver.Chrome, url: str, out: Path) -> None:
    board, marks = pair_position()
    driver.get(url + "/")
    wait_idle(driver, 0)
    before = solved(driver)
    driver.execute_script(
        "const a = document.getElementById('board-text'); a.value = arguments[0];"
        "a.dispatchEvent(new Event('input', {bubbles: true}));",
        board.to_text(),
    )
    wait_idle(driver, before)
    r, c = marks["fifty_fifty"][0][0]
    cell = driver.find_element(By.CSS_SELECTOR, f"#board .cell[data-r='{r}'][data-c='{c}']")
    ActionChains(driver).move_to_element(cell).perform()
    WebDriverWait(driver, WAIT).until(lambda d: "50/50" in d.find_element(By.ID, "tip").text)
    driver.save_screenshot(str(out / "page_issue50_tooltip.png"))


def no_guess(driver: webdriver.Chrome, url: str, out: Path) -> None:
    preset, seed = "intermediate", 8
    driver.get(url + "/")
    wait_idle(driver, 0)
    before = solved(driver)
    driver.find_element(By.ID, "tab-play").click()
    wait_idle(driver, before)
    driver.execute_script(
        "document.getElementById('play-preset').value = arguments[0];"
        "document.getElementById('play-seed').value = arguments[1];",
        preset,
        str(seed),
    )
    before = solved(driver)
    driver.find_element(By.ID, "play-noguess").click()  # a new no-guess game
    wait_idle(driver, before)
    # A few certain cells, as a player would open them, then the player's pick.
    answer = play_request({"preset": preset, "seed": seed, "no_guess": True}, Limits())
    safe = mscsp.solve(mscsp.parse_board(answer["board"])).safe
    for r, c in safe[:3]:
        cell = driver.find_element(By.CSS_SELECTOR, f"#board .cell[data-r='{r}'][data-c='{c}']")
        if "covered" not in cell.get_attribute("class").split():
            continue  # (opened with a zero before)
        before = solved(driver)
        cell.click()
        wait_idle(driver, before)
    driver.find_element(By.ID, "suggest").click()
    WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.ID, "play-hint"))
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(out / "page_issue50_noguess.png"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/img"), help="folder for the PNGs")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    driver = browser()
    try:
        with served() as url:
            tooltip(driver, url, args.out)
            no_guess(driver, url, args.out)
    finally:
        driver.quit()
    print(f"wrote page_issue50_tooltip.png and page_issue50_noguess.png to {args.out}")


if __name__ == "__main__":
    main()
