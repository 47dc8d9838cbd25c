"""``best`` on the compiled engine: the engine guesses where none of best's rules before its
look-ahead may apply (``mscsp.engine._lookahead.rules_may_apply``) and hands the others to Python;
the games are those of ``best`` guessing in Python."""

from __future__ import annotations

import numpy as np
import pytest
from game_results import game_rows

from mscsp.board import Board
from mscsp.engine import compiled
from mscsp.errors import InvalidInputError, InvalidTypeError
from mscsp.evaluation.harness import RunConfig, play_game, play_on_engine
from mscsp.game import PRESETS
from mscsp.players import get_player
from mscsp.players.best import BestPlayer

pytestmark = pytest.mark.skipif(compiled.numba_missing(), reason="the compiled engine needs numba")

#: The rules that come before best's look-ahead (see BestPlayer.reason).
RULES = {"pair", "endgame", "region", "pseudo", "looming"}


class PythonBest(BestPlayer):
    """``best`` whose every guess Python makes (the engine plays the rest)."""


class Counted(BestPlayer):
    """``best`` that counts the guesses Python makes, by rule."""

    def __init__(self):
        super().__init__()
        self.by_rule: dict[str, int] = {}

    @property
    def engine_looks_ahead(self) -> bool:
        return True  # (a subclass: the engine guesses only for best's own class otherwise)

    def guess(self, board, solution, rng):
        cell = super().guess(board, solution, rng)
        self.by_rule[self.reason] = self.by_rule.get(self.reason, 0) + 1
        return cell


@pytest.mark.parametrize(
    ("preset", "indices", "first_click", "first_move"),
    [
        ("beginner", range(150), "safe", "corner"),
        ("intermediate", range(60), "opening", "center"),
        ("expert", range(40), "safe", "corner"),
    ],
)
def test_best_on_the_engine_plays_the_games_of_best_guessing_in_python(
    preset, indices, first_click, first_move
):
    config = RunConfig(
        "best", *PRESETS[preset], seed=4, first_click=first_click, first_move=first_move
    )
    compiled.load()
    assert get_player("best").plays_batches(*PRESETS[preset][:2], len(indices))
    batch = play_on_engine(config, list(indices))
    by_python = [play_game(PythonBest(), config, i) for i in indices]
    assert game_rows(batch) == game_rows(by_python)
    assert {r.won for r in batch} == {True, False}
    # The engine made some of the guesses itself, and Python some by every kind of rule.
    counted = Counted()
    for i in indices:
        play_game(counted, config, i)
    guesses = sum(r.guesses for r in batch)
    assert 0 < sum(counted.by_rule.values()) < guesses
    assert RULES & set(counted.by_rule)


def test_a_games_state_does_not_carry_over_to_the_next_game_of_a_batch():
    """With a small search budget, the endgame search outgrows it often, and best then
    skips it for the rest of that game only: on the engine, a batch's games are still each
    played as alone (the state was once carried into the batch's next game)."""
    config = RunConfig("best", *PRESETS["expert"], seed=31, options={"tree_budget": 30})
    compiled.load()
    indices = list(range(120))
    batch = play_on_engine(config, indices)
    by_python = [play_game(PythonBest(tree_budget=30), config, i) for i in indices]
    assert game_rows(batch) == game_rows(by_python)


def test_the_engines_test_says_yes_wherever_a_rule_of_best_applies():
    """At every guess of best in Python, where one of its rules before the look-ahead made
    the guess, ``rules_may_apply`` says so; and it says no at some look-ahead guesses."""
    compiled.load()
    seen: dict[tuple[str, bool], int] = {}

    class Checked(PythonBest):
        def _guess(self, board, solution):
            move, reason = super()._guess(board, solution)
            flagged = self.memory.flagged(board)
            applies = compiled.rules_may_apply(flagged, self.tree_layouts)
            assert applies is not None
            if reason in RULES:
                assert applies, (reason, flagged.cells.tolist())
            seen[(reason, applies)] = seen.get((reason, applies), 0) + 1
            return move, reason

    player = Checked()
    for preset, games in (("beginner", 80), ("intermediate", 30), ("expert", 30)):
        config = RunConfig("best", *PRESETS[preset], seed=9)
        for i in range(games):
            play_game(player, config, i)
    assert {reason for reason, _ in seen} >= {"pair", "endgame", "looming", "lookahead"}
    assert seen.get(("lookahead", False), 0) > 0


def test_few_layouts_are_the_endgame_searchs():
    compiled.load()
    # Two cells, one mine between them: two layouts, and a forced 50/50.
    board = Board(np.array([[-1, -1], [1, 1], [0, 0]], dtype=np.int8), 1)
    assert compiled.rules_may_apply(board, 200) is True
    assert compiled.rules_may_apply(board, 0) is True  # (cells at 1/2 with only 1/2s around)


def test_an_open_position_with_many_layouts_has_no_rule_to_apply():
    compiled.load()
    cells = np.full((16, 30), -1, dtype=np.int8)
    cells[:3, :3] = 0
    cells[3, :4] = 1
    cells[:4, 3] = 1
    board = Board(cells, 99)
    assert compiled.rules_may_apply(board, 200) is False
    assert compiled.rules_may_apply(board, 10**200) is True  # (every position is "few")


@pytest.mark.parametrize(
    ("board", "layouts", "error"),
    [
        ("not a board", 200, InvalidTypeError),
        (Board(np.full((3, 3), -1, dtype=np.int8), 1), -1, InvalidInputError),
        (Board(np.full((3, 3), -1, dtype=np.int8), 1), 2.5, InvalidTypeError),
    ],
)
def test_rules_may_apply_refuses_bad_input(board, layouts, error):
    with pytest.raises(error):
        compiled.rules_may_apply(board, layouts)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"tolerance": 1.5}, "tolerance must be a finite number from 0 to 1"),
        ({"blend": "0.2"}, "blend must be a number"),
        ({"progress_weight": float("nan")}, "progress_weight must be a finite number >= 0"),
        ({"tree_layouts": -1}, "tree_layouts"),
        ({"tree_layouts": 2.5}, "tree_layouts"),
        ({"tree_budget": -5}, "tree_budget"),
    ],
)
def test_bests_settings_that_the_engine_reads_are_checked(options, words):
    with pytest.raises((InvalidInputError, InvalidTypeError), match=words):
        get_player("best", **options)


def test_best_at_depth_two_or_without_implied_keeps_every_guess_in_python():
    assert get_player("best").engine_lookahead(9, 9, 10).settings.tolist() == [
        0.1,
        0.1,
        0.2,
        1.0,
        200.0,
    ]
    assert get_player("best", depth=2).engine_lookahead(9, 9, 10) is None
    assert get_player("best", implied=False).engine_lookahead(9, 9, 10) is None
    assert not get_player("search").engine_looks_ahead
