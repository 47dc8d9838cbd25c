"""The learner's symmetries: board views, exchangeable cells, and the exact player's tie-break."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax")

import mscsp  # noqa: E402
from learners.nets import data, player  # noqa: E402
from mscsp.errors import InvalidInputError  # noqa: E402


@pytest.mark.parametrize("shape", [(3, 5, 7), (2, 6, 6)])
def test_mean_of_views_undoes_every_view(shape):
    """Each view is undone exactly: the views of one array average back to that array."""
    y = np.random.default_rng(0).random(shape)
    views = player.symmetric_views(y)
    assert len(views) == shape[0] * (8 if shape[1] == shape[2] else 4)
    np.testing.assert_allclose(player.mean_of_views(views, shape[0]), y)
    # A view that is not undone would leave a different array.
    shifted = views.copy()
    shifted[shape[0] : 2 * shape[0]] = views[: shape[0]]
    assert not np.allclose(player.mean_of_views(shifted, shape[0]), y)


def _groups_by_hand(cells: np.ndarray) -> dict[frozenset, list[tuple[int, int]]]:
    rows, cols = cells.shape
    groups: dict[frozenset, list[tuple[int, int]]] = {}
    for r in range(rows):
        for c in range(cols):
            if cells[r, c] != -1:
                continue
            seen = frozenset(
                (r + dr, c + dc)
                for dr in (-1, 0, 1)
                for dc in (-1, 0, 1)
                if (dr or dc)
                and 0 <= r + dr < rows
                and 0 <= c + dc < cols
                and cells[r + dr, c + dc] >= 0
            )
            groups.setdefault(seen, []).append((r, c))
    return groups


def _positions(games: int = 6) -> list[tuple[np.ndarray, np.ndarray]]:
    """(cells, exact probabilities) of every position of a few real 8x9 games."""
    from mscsp.backends import get_backend

    spec, counter = data.GenSpec(8, 9, 14), get_backend("dss")
    out = []
    for seed in range(games):
        for board, solution, _ in data.play_positions(spec, seed, counter):
            out.append((board.cells.copy(), np.nan_to_num(solution.probabilities, nan=0.0)))
    return out


def test_exchangeable_mean_averages_the_sets_a_brute_force_finds():
    positions = _positions()
    cells = np.stack([c for c, _ in positions])
    noisy = np.random.default_rng(1).random(cells.shape)
    pooled = player.exchangeable_mean(noisy, cells)
    for i, position in enumerate(cells):
        for members in _groups_by_hand(position).values():
            idx = tuple(np.array(members).T)
            np.testing.assert_allclose(pooled[i][idx], noisy[i][idx].mean(), rtol=1e-12)
        # Revealed cells are left alone, and no position's values leak into another's.
        np.testing.assert_array_equal(pooled[i][position >= 0], noisy[i][position >= 0])


def test_exchangeable_cells_have_equal_exact_probabilities():
    """The sets are truly exchangeable: pooling the exact probabilities changes nothing."""
    positions = _positions()
    cells = np.stack([c for c, _ in positions])
    exact = np.stack([p for _, p in positions])
    np.testing.assert_allclose(player.exchangeable_mean(exact, cells), exact, atol=1e-12)


def test_ties_go_to_the_cell_with_fewest_neighbours():
    cells = np.full((4, 5), -1, np.int8)
    cells[1, 1] = 1
    probs = np.full(cells.shape, 0.2)
    assert player.choose_moves(probs, cells) == [(0, 0)]
    probs[0, 0] = probs[0, 4] = probs[3, 0] = probs[3, 4] = 0.25
    assert player.choose_moves(probs, cells) == [(0, 1)]  # an edge cell, first in row-major
    probs[1, 2] = 0.1
    assert player.choose_moves(probs, cells) == [(1, 2)]  # a lower probability still wins


def test_symmetric_predictions_are_equivariant():
    """With views, flipping the board flips the prediction; one view alone is not so."""
    board = mscsp.parse_board("mines=12\n01???????\n12???????\n?????????\n" + "?????????\n" * 6)
    cells = board.cells
    symmetric = player.LearnerPlayer("default")
    for flip in (np.s_[:, ::-1], np.s_[::-1, :], np.s_[::-1, ::-1]):
        np.testing.assert_allclose(
            symmetric.probabilities_batch(cells[flip][None], board.mines)[0],
            symmetric.probabilities_batch(cells[None], board.mines)[0][flip],
            atol=1e-6,
        )
    transposed = np.ascontiguousarray(cells.T)
    np.testing.assert_allclose(
        symmetric.probabilities_batch(transposed[None], board.mines)[0],
        symmetric.probabilities_batch(cells[None], board.mines)[0].T,
        atol=1e-6,
    )
    plain = player.LearnerPlayer("default", symmetric=False)
    flipped = cells[:, ::-1]
    assert not np.allclose(
        plain.probabilities_batch(flipped[None], board.mines)[0],
        plain.probabilities_batch(cells[None], board.mines)[0][:, ::-1],
        atol=1e-6,
    )


def test_seed_systems_keep_their_papers_rule():
    from learners.registry import get_learned

    thesis = get_learned("thesis-mlp")
    assert not thesis.symmetric and not thesis.POOLED


def test_symmetric_must_be_a_boolean():
    with pytest.raises(InvalidInputError, match="symmetric"):
        player.LearnerPlayer("default", symmetric="yes")
