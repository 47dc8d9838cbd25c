"""The ``search`` player: rollouts at ``best``'s closest guesses, deterministic per seed."""

from __future__ import annotations

import pytest

from mscsp.engine import compiled
from mscsp.errors import InvalidInputError
from mscsp.evaluation.harness import RunConfig, play_game
from mscsp.game import PRESETS
from mscsp.players import get_player


def _games(player, games: int, seed: int) -> list:
    config = RunConfig("search", *PRESETS["expert"], seed=seed)
    results = []
    for index in range(games):
        result = play_game(player, config, index)
        results.append((result.won, result.moves, result.guesses, list(player.searched)))
    return results


def test_search_rolls_out_close_guesses_and_repeats_itself():
    compiled.load()
    player = get_player("search", samples=8)
    first = _games(player, 6, 41)
    again = _games(get_player("search", samples=8), 6, 41)
    assert first == again  # same seed, same games and the same rollouts
    searched = [s for *_, decisions in first for s in decisions]
    assert searched  # some guesses were close enough to roll out
    for cells, values, chosen in searched:
        assert 2 <= len(cells) <= player.width
        assert chosen == cells[values.index(max(values))]
        assert all(0.0 <= v <= 1.0 for v in values)


def test_values_are_the_exact_safety_times_a_win_rate():
    compiled.load()
    player = get_player("search", samples=16)
    config = RunConfig("search", *PRESETS["expert"], seed=43)
    seen = 0
    for index in range(6):
        play_game(player, config, index)
        seen += len(player.searched)
    assert seen
    # A candidate's value never exceeds its chance of being safe.
    original = player.rollouts

    def checked(board, solution, cells, seed):
        values = original(board, solution, cells, seed)
        for cell, value in zip(cells, values, strict=True):
            assert value <= 1.0 - float(solution.probabilities[cell]) + 1e-12
        return values

    player.rollouts = checked
    for index in range(6, 10):
        play_game(player, config, index)


@pytest.mark.parametrize("options", [{"samples": 0}, {"width": 1}, {"gap": -0.1}, {"base": "sps"}])
def test_bad_options_are_refused(options):
    with pytest.raises(InvalidInputError):
        get_player("search", **options)
