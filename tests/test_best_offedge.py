"""``best``'s unconstrained candidates beyond the representatives (``offedge``)."""

from __future__ import annotations

import numpy as np
from test_players import guess_positions

from mscsp import parse_board, solve
from mscsp.board import COVERED, neighbour_sum
from mscsp.players.base import neighbours
from mscsp.players.best import BestPlayer, off_frontier_cells


def expert_with_corner(number: str):
    """An expert board whose only revealed cell is the top-left corner."""
    rows = ["?" * 30 for _ in range(16)]
    rows[0] = number + "?" * 29
    return parse_board("\n".join(rows) + "\n", mines=99)


def unconstrained(board):
    """The solution and the mask of unconstrained cells (empty when there are none)."""
    solution = solve(board)
    masks = [odd.cells for odd in solution.odds if isinstance(odd.cells, np.ndarray)]
    return solution, masks[0] if masks else np.zeros(board.shape, dtype=bool)


def test_corner_number_gives_the_cells_two_away_and_the_pockets():
    board = expert_with_corner("1")
    _, mask = unconstrained(board)
    cells = off_frontier_cells(board, mask)
    # Two cells straight away from the corner number, and the other three corners (three
    # covered neighbours each); no cell in the middle of the board.
    assert cells == [(0, 2), (0, 29), (2, 0), (15, 0), (15, 29)]


def test_every_cell_is_near_a_witness_or_a_pocket_on_real_positions():
    seen = 0
    for board, _ in guess_positions(seeds=range(6), preset="expert"):
        solution, mask = unconstrained(board)
        if int(mask.sum()) < 30:
            continue
        covered = board.cells == COVERED
        open_nb = neighbour_sum(covered)
        rows, cols = board.shape
        for r, c in off_frontier_cells(board, mask):
            seen += 1
            assert mask[r, c]
            witnesses = [
                (r + dr, c + dc)
                for dr, dc in ((2, 0), (-2, 0), (0, 2), (0, -2))
                if 0 <= r + dr < rows and 0 <= c + dc < cols
            ]
            near = any(
                board.cells[w] >= 0 and any(covered[n] for n in neighbours(w, rows, cols))
                for w in witnesses
            )
            assert near or 2 <= open_nb[r, c] <= 3
    assert seen > 0


def test_few_unconstrained_cells_are_all_weighed():
    board = parse_board("?????\n?????\n1????\n", mines=3)
    _, mask = unconstrained(board)
    assert int(mask.sum()) < 30
    assert off_frontier_cells(board, mask) == [tuple(map(int, x)) for x in np.argwhere(mask)]


def test_best_weighs_them_only_with_the_option():
    board = expert_with_corner("1")
    solution = solve(board)
    plain, wide = BestPlayer(), BestPlayer(offedge=True)
    plain.new_game()
    wide.new_game()
    narrow = plain.candidates(board, solution)
    more = wide.candidates(board, solution)
    assert set(narrow) < set(more)
    assert {(0, 2), (2, 0)} <= set(more) - set(narrow)
