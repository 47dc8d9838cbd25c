"""Shared fixtures: every registered backend, positions from real games, subprocess helpers."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import mscsp
from mscsp.backends import BACKENDS
from mscsp.board import FLAG
from mscsp.evaluation.played_positions import sample_positions

# A suite started in the background (``pytest ... &`` in a script) inherits Ctrl-C ignored,
# and Python then leaves it ignored; the tests of Ctrl-C need Python's own handler, as an
# interactive run has.
signal.signal(signal.SIGINT, signal.default_int_handler)

#: Exact backends with their own tests instead: ``external`` runs a counter program per
#: count (``tests/test_backends_d4_external.py``), too slow for every position here.
OWN_TESTS = ("external",)


@pytest.fixture(
    scope="session",
    params=[n for n, cls in BACKENDS.items() if cls.exact and n not in OWN_TESTS],
)
def backend_name(request: pytest.FixtureRequest) -> str:
    """Each registered exact backend by name; skipped where its optional package is missing.

    Approximate backends have their own tests (``tests/test_approx.py``).
    """
    cls = BACKENDS[request.param]
    if not cls.supported():
        pytest.skip(f"backend {request.param!r} needs pip install 'mscsp[{cls.extra}]'")
    return request.param


@pytest.fixture(scope="session")
def expert_positions():
    """A few expert positions met by a solver-driven player (deterministic)."""
    return sample_positions(16, 30, 99, 12, seed=5, per_game=3)


def random_game_position(seed: int, max_side: int = 7) -> tuple[mscsp.Board, np.ndarray] | None:
    """A position from a small real game: random size, density, stage, and flags on mines.

    Returns ``None`` when the game ended before the chosen stage.
    """
    rng = np.random.default_rng(seed)
    rows, cols = (int(v) for v in rng.integers(2, max_side + 1, size=2))
    mines = int(rng.integers(1, max(2, rows * cols // 3)))
    game = mscsp.Game(rows, cols, mines, seed=seed, first_click=rng.choice(["safe", "any"]))
    game.reveal(int(rng.integers(rows)), int(rng.integers(cols)))
    for _ in range(int(rng.integers(0, 6))):
        if game.over:
            return None
        safe = np.argwhere((game.view == mscsp.COVERED) & ~game.mine)
        r, c = safe[rng.integers(len(safe))]
        game.reveal(int(r), int(c))
    if game.over:
        return None
    cells = game.view.copy()
    flagged = game.mine & (rng.random(cells.shape) < 0.3) & (cells == mscsp.COVERED)
    cells[flagged] = FLAG
    return mscsp.Board(cells, mines), game.mine


@pytest.fixture(scope="session")
def positions() -> list[tuple[mscsp.Board, np.ndarray]]:
    """Two hundred small real-game positions, with and without flags."""
    found = []
    seed = 0
    while len(found) < 200:
        item = random_game_position(seed)
        if item is not None:
            found.append(item)
        seed += 1
    return found


def repo_env() -> dict[str, str]:
    """The environment for a subprocess that must import this checkout of mscsp."""
    root = str(Path(__file__).resolve().parents[1])
    return {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}


def interrupt_when(command: list[str], ready: Callable[[], bool]) -> tuple[int, str]:
    """Starts ``command``, sends it SIGINT (Ctrl-C) once ``ready()``; returns (code, stderr)."""
    proc = subprocess.Popen(
        command, env=repo_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None and not ready():
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    """A headless Chromium driven by Selenium (the browser tests skip where it is missing)."""
    import shutil

    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    if binary is None or chromedriver is None:
        # (here, not in each test module, so that every test using a browser skips alike)
        pytest.skip("headless Chromium is not installed (apt-get install chromium chromium-driver)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="the browser tests need selenium")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    profile = tmp_path_factory.mktemp("chromium-profile")
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--window-size=1400,1000",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(arg)
    browser = webdriver.Chrome(service=Service(chromedriver), options=options)
    yield browser
    browser.quit()


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory):
    """A folder for the browser tests' screenshots."""
    return tmp_path_factory.mktemp("screenshots")
