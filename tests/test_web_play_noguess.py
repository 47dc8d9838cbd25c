"""``POST /api/play`` with ``no_guess`` (issue 50): the seeded no-guess board of a preset,
its certificate's first click made by the server, won by the certificate's cells alone.

Through Starlette's test client (no browser): the page's side is in
``test_web_page_issue50.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web analyser needs pip install 'mscsp[web]'")
pytest.importorskip("httpx", reason="Starlette's test client needs httpx")

import test_web_api  # noqa: E402
from test_web_api import error_of, post  # noqa: E402

import mscsp  # noqa: E402
from mscsp.errors import SolverLimitError  # noqa: E402
from mscsp.game import PRESETS  # noqa: E402
from mscsp.noguess.generate import Generated, Generator, Settings  # noqa: E402
from mscsp.web import service  # noqa: E402
from mscsp.web.service import Limits, error_body, play_request  # noqa: E402

#: The API in-process (the web API tests' fixture).
client = test_web_api.client


def certificate(preset: str, seed: int, first_click: str = "safe") -> Generated:
    """The board ``mscsp generate --no-guess`` lays first for ``seed``, with its steps."""
    rows, cols, mines = PRESETS[preset]
    return Generator(Settings(rows, cols, mines, first_click=first_click), seed).next_board()


def layout_of(board: Generated) -> list[list[int]]:
    return sorted([int(i) // board.cols, int(i) % board.cols] for i in board.layout)


@pytest.mark.parametrize(
    ("preset", "seed", "first_click"),
    [("beginner", 3, "safe"), ("intermediate", 8, "opening"), ("expert", 5, "opening")],
)
def test_a_no_guess_game_is_won_by_the_certificates_cells(client, preset, seed, first_click):
    board = certificate(preset, seed, first_click)
    body = {"preset": preset, "seed": seed, "first_click": first_click, "no_guess": True}
    fresh = post(client, "/api/play", body).json()
    assert fresh["no_guess"] is True and fresh["state"] == "playing"
    assert fresh["start"] == list(board.start)
    # The server made the first click: the start cell is open, nothing else was asked.
    r, c = board.start
    assert fresh["board"].splitlines()[1 + r][c] not in "?F"
    assert post(client, "/api/play", body).json() == fresh  # same seed, same board
    # Reveal only the cells the certificate opens, step by step: the game is won.
    moves: list[list] = []
    for step in board.steps:
        moves.extend(["reveal", *divmod(int(i), board.cols)] for i in step.safe)
    won = post(client, "/api/play", {**body, "moves": moves}).json()
    assert won["state"] == "won" and won["exploded"] is None
    assert sorted(won["layout"]) == layout_of(board)  # the certificate's own board


def test_the_plain_game_is_unchanged(client):
    plain = post(client, "/api/play", {"preset": "beginner", "seed": 3}).json()
    off = post(client, "/api/play", {"preset": "beginner", "seed": 3, "no_guess": False}).json()
    assert plain == off
    assert (plain["no_guess"], plain["start"], plain["covered"]) == (False, None, 81)


@pytest.mark.parametrize("value", [1, 0, "true", "false", None, [], {}, 1.0])
def test_no_guess_takes_json_true_or_false_only(client, value):
    response = post(client, "/api/play", {"preset": "beginner", "no_guess": value})
    assert "'no_guess' must be bool" in error_of(response, 400, "request")["message"]


def test_no_guess_needs_a_safe_first_click(client):
    response = post(client, "/api/play", {"no_guess": True, "first_click": "any"})
    assert "needs a safe first click" in error_of(response, 400, "invalid")["message"]
    response = post(client, "/api/play", {"no_guess": True, "preset": "huge"})
    error_of(response, 400, "invalid")


def test_a_board_too_large_is_refused_before_any_board_is_laid():
    with pytest.raises(service.ApiError) as caught:
        play_request({"preset": "expert", "no_guess": True}, Limits(max_cells=100))
    assert caught.value.status == 413


def test_the_generators_tries_are_bounded(monkeypatch):
    # Expert with a safe first click takes about 22 layouts a board: with a bound of 1,
    # seed 0's first layout does not do (checked below), and the answer is a limit error.
    assert certificate("expert", 0).tries > 1
    monkeypatch.setattr(service, "NO_GUESS_TRIES", 1)
    service.no_guess_board.cache_clear()
    try:
        with pytest.raises(SolverLimitError) as caught:
            play_request({"preset": "expert", "seed": 0, "no_guess": True}, Limits())
        status, body = error_body(caught.value)
        assert (status, body["error"]["kind"]) == (422, "limit")
        assert "in 1 layouts" in body["error"]["message"]
    finally:
        service.no_guess_board.cache_clear()


def test_the_default_bound_leaves_room():
    # The bound is far above what boards take: the most layouts of 40 expert boards.
    most = max(certificate("expert", seed).tries for seed in range(40))
    assert most * 10 < service.NO_GUESS_TRIES


def test_the_cache_gives_back_a_board_no_one_can_change():
    layout, start = service.no_guess_board("beginner", 11, "safe")
    assert not layout.flags.writeable
    game = mscsp.Game.from_preset("beginner", seed=11, layout=layout)
    game.reveal(*start)
    assert np.array_equal(service.no_guess_board("beginner", 11, "safe")[0], game.mine)
