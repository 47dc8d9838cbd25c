"""Board patterns ``best`` looks for on every guess (numba; run by
:mod:`mscsp.engine.compiled`, compiled or not).

:func:`isolated_labels` is :func:`mscsp.session.isolated_regions`, :func:`pairs` and
:func:`boxes` are ``mscsp.players.fifty``'s patterns, :func:`fewest_covered` is
``mscsp.players.best.representatives`` and :func:`_is_dead` is
``mscsp.players.best.is_dead``, on the board's flat cell codes
(:func:`mscsp.engine._checks.checks` asks them all of a position at once).
"""

from __future__ import annotations

import numpy as np

from mscsp.board import COVERED, FLAG

from ._jit import njit

_DR = np.array([-1, -1, -1, 0, 0, 1, 1, 1], dtype=np.int64)
_DC = np.array([-1, 0, 1, -1, 1, -1, 0, 1], dtype=np.int64)


@njit(cache=True)
def _root(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(cache=True)
def _join(parent, a, b):
    a, b = _root(parent, a), _root(parent, b)
    if a != b:
        parent[max(a, b)] = min(a, b)


@njit(cache=True)
def isolated_labels(cells, rows, cols, labels):
    """Labels the covered cells of isolated regions (see ``isolated_regions``).

    Covered cells are joined when they touch or share a revealed number; a region with a
    covered cell next to no number is not isolated.

    Args:
        cells: The board's flat cell codes.
        labels: Written: each cell's region (0, 1, ... in order of the regions' first
            cells, row-major), -1 for cells in no isolated region.

    Returns:
        How many isolated regions there are.
    """
    n = rows * cols
    parent = np.arange(n)
    loose = np.zeros(n, dtype=np.bool_)  # a covered cell next to no number
    for k in range(n):
        r, c = k // cols, k % cols
        code = cells[k]
        if code == COVERED:
            touched = False
            for d in range(8):
                rr, cc = r + _DR[d], c + _DC[d]
                if 0 <= rr < rows and 0 <= cc < cols:
                    j = rr * cols + cc
                    if cells[j] == COVERED:
                        if j > k:  # (each touching pair once)
                            _join(parent, k, j)
                    elif cells[j] >= 0:
                        touched = True
            loose[k] = not touched
        elif code >= 0:
            first = -1
            for d in range(8):
                rr, cc = r + _DR[d], c + _DC[d]
                if 0 <= rr < rows and 0 <= cc < cols:
                    j = rr * cols + cc
                    if cells[j] == COVERED:
                        if first < 0:
                            first = j
                        else:
                            _join(parent, first, j)
    open_root = np.zeros(n, dtype=np.bool_)
    for k in range(n):
        if cells[k] == COVERED and loose[k]:
            open_root[_root(parent, k)] = True
    index = np.full(n, -1)
    count = 0
    for k in range(n):
        labels[k] = -1
        if cells[k] == COVERED:
            top = _root(parent, k)
            if not open_root[top]:
                if index[top] < 0:
                    index[top] = count
                    count += 1
                labels[k] = index[top]
    return count


@njit(cache=True)
def _soft(cells, rows, cols, r, c):
    """Whether (r, c) is on the board and not a flag."""
    return 0 <= r < rows and 0 <= c < cols and cells[r * cols + c] != FLAG


@njit(cache=True)
def pairs(cells, rows, cols, missing, out):
    """Covered side-by-side pairs with exactly ``missing`` outer cells that are neither flags
    nor off the board (outer cells touch only one cell of the pair).

    Args:
        cells: The board's flat cell codes.
        out: Written: the pairs' flat cells ``(a, b)`` in row-major order of ``(a, b)``
            (``a`` above or left of ``b``); at least ``2 * rows * cols`` rows.

    Returns:
        How many pairs were written.
    """
    # On the board framed by a row and a column of off-board cells each side (width w):
    # whether a cell is soft (on the board, not a flag), and the soft cells of the three
    # stacked on it (``down``) and of the three side by side (``across``), so that a pair's
    # six outer cells are two lookups.
    w = cols + 2
    soft = np.zeros((rows + 2) * w, dtype=np.int64)
    for r in range(rows):
        for c in range(cols):
            soft[(r + 1) * w + c + 1] = cells[r * cols + c] != FLAG
    down = np.zeros((rows + 2) * w, dtype=np.int64)
    across = np.zeros((rows + 2) * w, dtype=np.int64)
    for k in range(w, (rows + 1) * w):
        down[k] = soft[k - w] + soft[k] + soft[k + w]
    for k in range(1, (rows + 2) * w - 1):
        across[k] = soft[k - 1] + soft[k] + soft[k + 1]
    found = 0
    for r in range(rows):
        for c in range(cols):
            if cells[r * cols + c] != COVERED:
                continue
            at = (r + 1) * w + c + 1  # (r, c) framed
            # (r, c)-(r, c+1): the outer cells are columns c-1 and c+2, rows r-1..r+1.
            right = c + 1 < cols and cells[r * cols + c + 1] == COVERED
            if right and down[at - 1] + down[at + 2] == missing:
                out[found, 0], out[found, 1] = r * cols + c, r * cols + c + 1
                found += 1
            # (r, c)-(r+1, c): rows r-1 and r+2, columns c-1..c+1.
            below = r + 1 < rows and cells[(r + 1) * cols + c] == COVERED
            if below and across[at - w] + across[at + 2 * w] == missing:
                out[found, 0], out[found, 1] = r * cols + c, (r + 1) * cols + c
                found += 1
    return found


@njit(cache=True)
def boxes(cells, rows, cols, out):
    """Covered 2x2 boxes whose four diagonal corner cells are flags or off the board
    (``mscsp.players.fifty.box_patterns``).

    Args:
        cells: The board's flat cell codes.
        out: Written: each box's top-left flat cell, row-major; at least ``rows * cols``.

    Returns:
        How many boxes were written.
    """
    found = 0
    for r in range(rows - 1):
        for c in range(cols - 1):
            k = r * cols + c
            if not (
                cells[k] == COVERED
                and cells[k + 1] == COVERED
                and cells[k + cols] == COVERED
                and cells[k + cols + 1] == COVERED
            ):
                continue
            if (
                _soft(cells, rows, cols, r - 1, c - 1)
                or _soft(cells, rows, cols, r - 1, c + 2)
                or _soft(cells, rows, cols, r + 2, c - 1)
                or _soft(cells, rows, cols, r + 2, c + 2)
            ):
                continue
            out[found] = k
            found += 1
    return found


@njit(cache=True)
def fewest_covered(cells, mask, rows, cols, out):
    """The cells of ``mask`` with the fewest covered neighbours, ties in row-major order
    (``mscsp.players.best.representatives``).

    Args:
        cells: The board's flat cell codes.
        mask: The flat cells to choose from.
        out: Written: the chosen flat cells, fewest first; as many as it is long.

    Returns:
        How many cells were written (fewer than ``len(out)`` when ``mask`` holds fewer).
    """
    n = rows * cols
    keys = np.empty(len(out), dtype=np.int64)
    found = 0
    for k in range(n):
        if not mask[k]:
            continue
        r, c = k // cols, k % cols
        covered = 0
        for d in range(8):
            rr, cc = r + _DR[d], c + _DC[d]
            if 0 <= rr < rows and 0 <= cc < cols and cells[rr * cols + cc] == COVERED:
                covered += 1
        key = covered * n + k
        # (insertion into the few kept so far, smallest key first)
        at = found
        while at > 0 and keys[at - 1] > key:
            at -= 1
        if at >= len(out):
            continue
        last = min(found, len(out) - 1)
        for j in range(last, at, -1):
            keys[j] = keys[j - 1]
        keys[at] = key
        found = min(found + 1, len(out))
    for j in range(found):
        out[j] = keys[j] % n
    return found


@njit(cache=True)
def _is_dead(cells, mines, rows, cols, cell):
    """``mscsp.players.best.is_dead`` on flat arrays."""
    r, c = cell // cols, cell % cols
    around = np.zeros(8, dtype=np.int64)
    n_around = 0
    for d in range(8):
        rr, cc = r + _DR[d], c + _DC[d]
        if 0 <= rr < rows and 0 <= cc < cols:
            k = rr * cols + cc
            if cells[k] == COVERED and not mines[k]:
                around[n_around] = k
                n_around += 1
    if n_around == 0:
        return True
    anchor = around[:n_around].min()
    ar, ac = anchor // cols, anchor % cols
    for d in range(8):
        wr, wc = ar + _DR[d], ac + _DC[d]
        if not (0 <= wr < rows and 0 <= wc < cols) or cells[wr * cols + wc] < 0:
            continue
        # The number's unknown cells besides ``cell`` are exactly ``around``?
        seen = 0
        same = True
        for e in range(8):
            sr, sc = wr + _DR[e], wc + _DC[e]
            if 0 <= sr < rows and 0 <= sc < cols:
                k = sr * cols + sc
                if cells[k] == COVERED and not mines[k] and k != cell:
                    seen += 1
                    found = False
                    for q in range(n_around):
                        found |= around[q] == k
                    same &= found
        if same and seen == n_around:
            return True
    return False


@njit(cache=True)
def dead_cells(cells, mines, rows, cols, which):
    """Whether each of the cells ``which`` (flat indices) is dead (``_is_dead``)."""
    out = np.empty(len(which), dtype=np.bool_)
    for q in range(len(which)):
        out[q] = _is_dead(cells, mines, rows, cols, which[q])
    return out
