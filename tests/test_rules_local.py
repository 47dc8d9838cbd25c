"""``rules-local``: the learner's play on a local estimate instead of the net (a baseline
that needs no model and no jax)."""

from __future__ import annotations

import numpy as np
import pytest

import mscsp
from learners.nets.player import RulesLocalPlayer, local_estimate
from mscsp.evaluation.harness import RunConfig, run
from mscsp.players import get_player
from mscsp.reference import brute_force


def test_the_local_estimate_reads_each_cells_neighbourhood():
    """A covered cell next to numbers gets the highest of their needed-over-covered ratios;
    one next to none the density of the mines left; flags 1, revealed cells 0."""
    board = mscsp.parse_board("4x4x3\n1???\n????\n??F?\n????\n")
    probs = local_estimate(board.cells, board.mines)
    covered = board.cells == mscsp.COVERED
    by_number = 1 / 3  # the 1 in the corner: one mine among its three covered neighbours
    density = (3 - 1) / int(covered.sum())  # the flag holds one of the three mines
    for r, c in zip(*np.nonzero(covered), strict=True):
        near = max(abs(r - 0), abs(c - 0)) == 1
        assert probs[r, c] == (by_number if near else density)
    assert probs[2, 2] == 1.0 and probs[0, 0] == 0.0


def test_the_local_estimate_refuses_what_is_not_a_board():
    """A float array, an unknown cell code or more mines than covered cells: the project's
    errors, never a map computed from nonsense."""
    covered = np.full((3, 3), mscsp.COVERED, dtype=np.int8)
    for cells, mines, error in (
        (covered.astype(float), 2, mscsp.InvalidTypeError),
        (np.where(np.eye(3, dtype=bool), 9, covered), 2, mscsp.InvalidInputError),
        (covered[0], 2, mscsp.InvalidInputError),
        (covered, 10, mscsp.InconsistentBoardError),
    ):
        with pytest.raises(error):
            local_estimate(cells, mines)


def test_it_proves_what_the_rules_prove_before_a_guess():
    """Where the estimate would guess, the check sets every cell the rules prove to its
    exact value (the brute force's), as the learner's does."""
    board = mscsp.parse_board("6x5x7\n??????\n??211?\n??1.1?\n??113?\n??????\n")
    exact = brute_force(board)
    probs = RulesLocalPlayer().probabilities(board)
    settled = [cell for cell in exact if probs[cell] in (0.0, 1.0) and board.cells[cell] == -1]
    assert settled and all(probs[cell] == exact[cell] for cell in settled)


def test_it_plays_by_name_and_wins_games():
    player = get_player("rules-local")
    assert isinstance(player, RulesLocalPlayer)
    summary = run(RunConfig("rules-local", 9, 9, 10, seed=5), 60)
    assert 0.5 < summary.win_rate < 1.0
