"""The learner's check before a guess: cells the rules prove get their exact value, no other."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax")

import mscsp  # noqa: E402
from learners.nets import player  # noqa: E402
from mscsp.errors import InvalidInputError  # noqa: E402
from mscsp.reference import brute_force  # noqa: E402

# A real position where only an assumption settles a cell (tests/test_deduce.py).
NEEDS_CASES = "6x5x7\n??????\n??211?\n??1.1?\n??113?\n??????\n"


@pytest.fixture(scope="module")
def learner() -> player.LearnerPlayer:
    return player.LearnerPlayer("default", symmetric=False)


@pytest.mark.parametrize("deduce", ["rules", "cases"])
def test_a_guess_is_checked_and_only_proven_cells_change(learner, deduce):
    board = mscsp.parse_board(NEEDS_CASES)
    exact = brute_force(board)
    before = np.full((1, *board.shape), 0.5, np.float32)
    learner.deduce = deduce
    after = learner.check_before_guess(before, board.cells[None], board.mines)[0]
    changed = {cell for cell in exact if after[cell] != 0.5}
    assert all(after[cell] == exact[cell] for cell in changed)  # each is 0 or 1, and right
    if deduce == "cases":
        assert any(after[cell] == 0 for cell in changed)  # the rules alone prove nothing safe


def test_a_confident_net_is_not_checked(learner):
    board = mscsp.parse_board(NEEDS_CASES)
    before = np.full((1, *board.shape), 0.5, np.float32)
    before[0, 0, 0] = player.SAFE_BELOW / 2
    learner.deduce = "cases"
    np.testing.assert_array_equal(
        learner.check_before_guess(before, board.cells[None], board.mines), before
    )


def test_the_check_is_an_option():
    from learners.registry import get_learned

    assert player.LearnerPlayer.DEDUCE == "cases"
    assert get_learned("thesis-mlp").deduce == "none"  # the seed systems play as published
    with pytest.raises(InvalidInputError, match="deduce"):
        player.LearnerPlayer("default", deduce="always")
