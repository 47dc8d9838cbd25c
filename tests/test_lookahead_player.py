"""``csp-lookahead``: the compiled engine's look-ahead guesses (``mscsp.engine._lookahead``) are the
Python player's, game for game, on every preset and on the pure path."""

from __future__ import annotations

import numpy as np
import pytest
from game_results import game_rows

from mscsp.engine import compiled
from mscsp.errors import InvalidInputError
from mscsp.evaluation.harness import RunConfig, play_game, play_on_engine
from mscsp.game import PRESETS
from mscsp.players import PLAYERS, get_player
from mscsp.players.fifty import looming_fifties
from mscsp.players.lookahead import LookaheadPlayer

pytestmark = pytest.mark.skipif(compiled.numba_missing(), reason="the compiled engine needs numba")


class PythonGuesses(LookaheadPlayer):
    """``csp-lookahead`` whose every guess Python makes (the engine plays the rest)."""

    engine_looks_ahead = False


@pytest.mark.parametrize(
    ("preset", "indices", "first_click", "first_move"),
    [
        ("beginner", range(120), "safe", "corner"),
        ("intermediate", range(60), "opening", "center"),
        # (game 274 has a guess whose probe the kernel hands back to Python)
        ("expert", [*range(30), 274], "safe", "corner"),
    ],
)
def test_the_engines_look_ahead_plays_the_python_players_games(
    preset, indices, first_click, first_move
):
    """Batches on the engine, its look-ahead guessing, play the games of the player whose
    every guess is made in Python."""
    config = RunConfig(
        "csp-lookahead", *PRESETS[preset], seed=3, first_click=first_click, first_move=first_move
    )
    compiled.load()
    batch = play_on_engine(config, list(indices))
    player = PythonGuesses()
    by_python = [play_game(player, config, i) for i in indices]
    assert game_rows(batch) == game_rows(by_python)
    assert {r.won for r in batch} == {True, False}
    assert sum(r.guesses for r in batch) >= 20  # (many look-aheads compared)


def test_the_engines_look_ahead_plays_the_pure_players_games():
    """One game at a time on the engine, and on the pure path (numba off), the same games."""
    config = RunConfig("csp-lookahead", *PRESETS["beginner"], seed=8)
    compiled.load()
    player = get_player("csp-lookahead")
    on_engine = [play_game(player, config, i) for i in range(40)]
    saved = compiled.enabled
    compiled.enabled = False
    try:
        pure = [play_game(player, config, i) for i in range(40)]
    finally:
        compiled.enabled = saved
    assert game_rows(on_engine) == game_rows(pure)


def test_it_sits_between_csp_minprob_and_best_in_the_registry():
    names = list(PLAYERS)
    assert names.index("csp-minprob") < names.index("csp-lookahead") < names.index("best")
    looking = get_player("csp-lookahead", tolerance=0.05).engine_lookahead(9, 9, 10)
    assert looking.settings.tolist() == [0.05, 0.1, 0.2, 0.0, 0.0]  # (best's rules off)


def test_a_strategy_that_plays_no_batches_is_refused_by_play_on_engine():
    """``play_on_engine`` once played csp-minprob's games whatever the strategy named."""
    config = RunConfig("csp-edge", *PRESETS["beginner"], seed=1)
    with pytest.raises(InvalidInputError, match="does not play games in batches"):
        play_on_engine(config, [0, 1])


def test_its_guess_is_bests_where_best_guesses_by_its_look_ahead():
    """Where ``best`` guesses by its look-ahead (no 50/50 or endgame rule, no looming
    50/50), ``csp-lookahead`` makes the same guess."""
    config = RunConfig("csp-lookahead", *PRESETS["expert"], seed=5)
    compiled.load()
    best = get_player("best")
    compared = 0

    class Compared(PythonGuesses):
        def guess(self, board, solution, rng):
            nonlocal compared
            cell = super().guess(board, solution, rng)
            known = np.flatnonzero(self.memory.known(board).reshape(-1))
            best.memory.adopt(board, known)
            theirs, reason = best._guess(board, solution)
            looming = looming_fifties(best.memory.flagged(board), solution)
            if reason in ("lookahead", "dominated", "implied") and not looming:
                assert cell == theirs
                compared += 1
            return cell

    player = Compared()
    for index in range(40):
        play_game(player, config, index)
    assert compared >= 20


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"tolerance": -0.1}, "tolerance must be a finite number from 0 to 1"),
        ({"tolerance": float("nan")}, "tolerance must be a finite number from 0 to 1"),
        ({"blend": "0.2"}, "blend must be a number"),
        ({"progress_weight": True}, "progress_weight must be a number"),
        ({"progress_weight": float("inf")}, "progress_weight must be a finite number >= 0"),
    ],
)
def test_bad_settings_are_refused_in_one_line(options, words):
    """Settings the engine would take on trust (it reads them as floats) are refused by
    name, before any game."""
    with pytest.raises(InvalidInputError, match=words):
        get_player("csp-lookahead", **options)


@pytest.mark.parametrize(
    ("rows", "cols", "layouts", "firsts", "words"),
    [
        (9, 9, [[0, 0, 5]], [80], "holds a cell twice"),
        (9, 9, [[0, 1, 81]], [80], "off the 9x9 board"),
        (9, 9, [[0, 1, 2]], [-1], "off the 9x9 board"),
        (9, 9, [[0, 1, 2]], [4, 5], "games x mines"),
        (9, 9, [[0.0, 1.0, 2.0]], [4], "must hold integers"),
        (2, 2, [[0, 1, 2, 3]], [0], "no safe cell"),
        (0, 9, [[0]], [1], "rows"),
        (100, 100, [[0]], [1], "at most 4096 cells"),
    ],
)
@pytest.mark.parametrize("strategy", ["csp-minprob", "csp-lookahead", "best"])
def test_play_layouts_refuses_games_the_engine_cannot_read(
    strategy, rows, cols, layouts, firsts, words
):
    """The engine reads layouts without bounds checks: ``play_layouts`` refuses bad ones
    with the project's error, in one line."""
    compiled.load()
    with pytest.raises(InvalidInputError, match=words):
        get_player(strategy).play_layouts(rows, cols, np.array(layouts), np.array(firsts))


def test_play_layouts_is_refused_by_players_that_play_no_batches():
    with pytest.raises(InvalidInputError, match="does not play games in batches"):
        get_player("csp-edge").play_layouts(9, 9, np.array([[0]]), np.array([1]))
