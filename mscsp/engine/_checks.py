"""What a guess of ``best`` asks about one position, in one call (numba; run by
:mod:`mscsp.engine.compiled`, compiled or not).

:func:`checks` answers the questions the rules before ``best``'s look-ahead and the
look-ahead's candidates put to a position: its isolated regions, side-by-side pairs and 2x2
boxes (:mod:`mscsp.engine._regions`), its dead cells, a few representatives of its
unconstrained cells and the conditional solves of the pseudo 50/50 rule
(``mscsp.players.fifty.pseudo_fifty``: the position with a cell of a pair or box flagged,
solved exactly by the kernel), which the rule then reads instead of solving.
"""

from __future__ import annotations

import numpy as np

from mscsp.board import COVERED, FLAG

from ._jit import njit
from ._kernel import solve_flat
from ._kernel_status import EXACT
from ._regions import _is_dead, boxes, fewest_covered, isolated_labels, pairs


@njit(cache=True)
def _given_mine(cells, rows, cols, total, cell, scratch):
    """``mscsp.players.fifty.given_mine`` by the kernel: the status of the exact solve of
    the position with ``cell`` flagged (its map in ``scratch`` where :data:`DONE`)."""
    out, probs, free, odds = scratch
    code = cells[cell]
    cells[cell] = FLAG
    status = solve_flat(cells, rows, cols, total, out, probs, free, odds, False, EXACT)
    cells[cell] = code
    return status


@njit(cache=True)
def checks(cells, total, mines, free, rows, cols, asked, found, given, scratch):
    """Every question ``best``'s guess asks about one position (proven mines flagged).

    Args:
        cells: The board's flat cell codes (written on and restored).
        total: The board's mines.
        mines: The cells known to be mines (flat).
        free: The cells to choose the unconstrained representatives from (flat).
        asked: Whether to find the patterns of the rules before the look-ahead (isolated
            regions, pairs, boxes), and whether to make the pseudo 50/50 rule's conditional
            solves too (else only what the look-ahead asks: dead cells, representatives).
        found: Written: the regions' labels (:func:`isolated_labels`), the pairs with no
            soft outer cell and with one (:func:`pairs`), the boxes' top-left cells
            (:func:`boxes`), whether each unknown cell (covered, not in ``mines``) is dead
            (:func:`_is_dead`; False for the other cells) and the representatives
            (:func:`fewest_covered`, as many as the array is long).
        given: Written where asked: for each pair, the kernel's status of the solve with
            its first cell flagged and the second cell's probability then (where
            :data:`DONE`); for each cell of each box (top-left, top-right, bottom-left,
            bottom-right), the status of the solve with it flagged and the four cells'
            probabilities then.
        scratch: The kernel's arrays for this board (:func:`mscsp.engine.compiled.scratch`).

    Returns:
        How many isolated regions, pairs, loose pairs, boxes and representatives were
        written.
    """
    rules, pseudo = asked
    labels, found_pairs, loose, tops, dead, few = found
    pair_status, pair_after, box_status, box_after = given
    n_regions = n_pairs = n_loose = n_boxes = np.int64(0)
    if rules:
        n_regions = isolated_labels(cells, rows, cols, labels)
        n_pairs = pairs(cells, rows, cols, 0, found_pairs)
        n_loose = pairs(cells, rows, cols, 1, loose)
        n_boxes = boxes(cells, rows, cols, tops)
    for k in range(rows * cols):
        dead[k] = cells[k] == COVERED and not mines[k] and _is_dead(cells, mines, rows, cols, k)
    n_few = fewest_covered(cells, free, rows, cols, few)
    if rules and pseudo:
        after = scratch[1].reshape(-1)
        for j in range(n_pairs):
            a, b = found_pairs[j, 0], found_pairs[j, 1]
            pair_status[j] = _given_mine(cells, rows, cols, total, a, scratch)
            pair_after[j] = after[b]
        box = np.empty(4, dtype=np.int64)
        for i in range(n_boxes):
            box[0], box[1] = tops[i], tops[i] + 1
            box[2], box[3] = tops[i] + cols, tops[i] + cols + 1
            for k in range(4):
                box_status[i, k] = _given_mine(cells, rows, cols, total, box[k], scratch)
                for j in range(4):
                    box_after[i, k, j] = after[box[j]]
    return n_regions, n_pairs, n_loose, n_boxes, n_few
