"""Replay files written by ms_toollib's own recorder, for the replay tests.

A game is scripted as actions (``("click" | "flag" | "chord", row, col)``) on a known mine
layout and fed to ``ms_toollib.BaseVideo`` as the mouse events a player would make; the
recorder then writes the Metasweeper ``.evf`` bytes. The recorder aborts the process when
asked for a file of an unfinished game, so :func:`record` refuses those first.
"""

from __future__ import annotations

import numpy as np

from mscsp.board import neighbour_sum
from mscsp.game import Game
from mscsp.players import get_player

PIX = 16
#: BaseVideo's game states once a game is over.
_OVER = {3, 4}


def record(layout: np.ndarray, actions: list[tuple[str, int, int]]) -> bytes:
    """The ``.evf`` bytes of ``actions`` played on ``layout`` (which must end the game)."""
    import ms_toollib

    numbers = neighbour_sum(layout).astype(int)
    numbers[layout] = -1
    video = ms_toollib.BaseVideo(numbers.tolist(), PIX)
    events = {
        "click": ("lc", "lr"),
        "flag": ("rc", "rr"),
        "chord": ("lc", "rc", "lr", "rr"),
    }
    for kind, r, c in actions:
        for event in events[kind]:
            video.step(event, (r * PIX + PIX // 2, c * PIX + PIX // 2))
    if video.game_board_state not in _OVER:
        raise ValueError("the scripted game does not end: ms_toollib cannot save it")
    video.generate_evf_v4_raw_data()
    return bytes(video.raw_data)


def played_game(
    rows: int, cols: int, mines: int, seed: int, player: str = "csp-minprob"
) -> tuple[Game, list[tuple[str, int, int]]]:
    """A seeded game played to its end by a built-in player, with its clicks."""
    game = Game(rows, cols, mines, seed=seed)
    bot = get_player(player)
    bot.new_game()
    rng = np.random.default_rng(seed)
    game.reveal(rows // 2, cols // 2)
    while not game.over:
        for r, c in bot.next_moves(game.board(), rng):
            game.reveal(r, c)
            if game.over:
                break
    clicks = [("click", r, c) for kind, r, c in game.moves if kind == "reveal"]
    return game, clicks


def random_game(rows: int, cols: int, mines: int, seed: int) -> tuple[Game, list]:
    """A seeded game of a careless player who clicks covered cells at random."""
    game = Game(rows, cols, mines, seed=seed)
    rng = np.random.default_rng(seed)
    while not game.over:
        covered = np.argwhere(game.view == -1)
        r, c = covered[rng.integers(len(covered))]
        game.reveal(int(r), int(c))
    return game, [("click", r, c) for kind, r, c in game.moves if kind == "reveal"]
