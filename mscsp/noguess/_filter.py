"""A compiled first pass over a layout: does the one- and two-number reasoning solve it?

Most layouts a no-guess generator draws are stuck a few steps after the opening. This pass
(numba) plays the generator's cheap rules (one number; two numbers by the subset and
overlap rules) without writing any step, in tens of microseconds. Its answer is only a
filter: a layout it solves is played again by the generator in Python, which writes the
certificate (and the checker checks it); one it does not solve goes on to the exact stage
or is drawn again. A wrong answer here could cost time, never a wrong certificate.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _inside(r: int, c: int, rows: int, cols: int) -> bool:
    return 0 <= r < rows and 0 <= c < cols


@njit(cache=True, nogil=True)
def _open(cell, numbers, state, rows, cols, stack):  # pragma: no cover
    """Opens ``cell`` (a zero: its region and border, as the game does); cells opened."""
    if state[cell] != 0:
        return 0
    state[cell] = 1
    opened = 1
    top = 0
    if numbers[cell] == 0:
        stack[top] = cell
        top += 1
    while top:
        top -= 1
        i = stack[top]
        r, c = i // cols, i % cols
        for dr in range(-1, 2):
            for dc in range(-1, 2):
                rr, cc = r + dr, c + dc
                if (dr or dc) and _inside(rr, cc, rows, cols):
                    j = rr * cols + cc
                    if state[j] == 0:
                        state[j] = 1
                        opened += 1
                        if numbers[j] == 0:
                            stack[top] = j
                            top += 1
    return opened


@njit(cache=True, nogil=True)
def _covered_around(i, numbers, state, rows, cols, out):  # pragma: no cover
    """The unknown cells around the number at ``i`` into ``out``: how many, and how many
    mines the number still needs beyond the known ones."""
    r, c = i // cols, i % cols
    m = 0
    need = numbers[i]
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            rr, cc = r + dr, c + dc
            if (dr or dc) and _inside(rr, cc, rows, cols):
                j = rr * cols + cc
                if state[j] == 0:
                    out[m] = j
                    m += 1
                elif state[j] == 2:
                    need -= 1
    return m, need


@njit(cache=True, nogil=True)
def layout_numbers(mine, rows, cols):  # pragma: no cover
    """Each cell's number (its neighbouring mines), -1 on a mine, of the layout ``mine``."""
    n = rows * cols
    numbers = np.zeros(n, np.int64)
    for i in range(n):
        if mine[i]:
            numbers[i] = -1
            continue
        r, c = i // cols, i % cols
        k = 0
        for dr in range(-1, 2):
            for dc in range(-1, 2):
                rr, cc = r + dr, c + dc
                if (dr or dc) and _inside(rr, cc, rows, cols) and mine[rr * cols + cc]:
                    k += 1
        numbers[i] = k
    return numbers


@njit(cache=True, nogil=True)
def settle(safe, mines, numbers, state, rows, cols, stack):  # pragma: no cover
    """Opens the cells ``safe`` (flat indices; a zero opens its region) and marks the cells
    ``mines``; the cells opened."""
    opened = 0
    for cell in safe:
        opened += _open(cell, numbers, state, rows, cols, stack)
    for cell in mines:
        if state[cell] == 0:
            state[cell] = 2
    return opened


@njit(cache=True, nogil=True)
def cheap_solves(mine, rows, cols, start, use_pairs):  # pragma: no cover
    """Whether the one-number rule (and, with ``use_pairs``, the two-number rules) opens
    every safe cell of the layout ``mine`` (flat bools) from ``start`` (a flat index)."""
    numbers = layout_numbers(mine, rows, cols)
    goal = rows * cols - mine.sum()
    state = np.zeros(rows * cols, np.int8)  # 0 unknown, 1 open, 2 known mine
    stack = np.empty(rows * cols, np.int64)
    opened = _open(start, numbers, state, rows, cols, stack)
    return advance(numbers, state, opened, goal, rows, cols, use_pairs, stack) >= goal


@njit(cache=True, nogil=True)
def advance(numbers, state, opened, goal, rows, cols, use_pairs, stack):  # pragma: no cover
    """Plays the one-number rule (and, with ``use_pairs``, the two-number rules) on from
    ``state`` (0 unknown, 1 open, 2 known mine; changed in place) until every safe cell is
    open or no rule settles a cell; the cells open then (``opened``: those open before)."""
    n = rows * cols
    unknown = np.empty(8, np.int64)
    ua = np.empty(8, np.int64)
    ub = np.empty(8, np.int64)
    while opened < goal:
        progress = False
        # One number at a time, over every open number, until a sweep changes nothing.
        for i in range(n):
            if state[i] != 1 or numbers[i] <= 0:
                continue
            m, need = _covered_around(i, numbers, state, rows, cols, unknown)
            if m == 0:
                continue
            if need == 0:
                for t in range(m):
                    opened += _open(unknown[t], numbers, state, rows, cols, stack)
                progress = True
            elif need == m:
                for t in range(m):
                    state[unknown[t]] = 2
                progress = True
        if progress or opened >= goal:
            continue
        if not use_pairs:
            return opened
        # Two numbers: the first pair that settles a cell, then the one-number sweep again.
        for a in range(n):
            if state[a] != 1 or numbers[a] <= 0:
                continue
            ra, ca = a // cols, a % cols
            na, ka = _covered_around(a, numbers, state, rows, cols, ua)
            if na == 0:
                continue
            for dr2 in range(-2, 3):
                for dc2 in range(-2, 3):
                    rb, cb = ra + dr2, ca + dc2
                    if not (dr2 or dc2) or not _inside(rb, cb, rows, cols):
                        continue
                    b = rb * cols + cb
                    if b < a or state[b] != 1 or numbers[b] <= 0:
                        continue
                    nb, kb = _covered_around(b, numbers, state, rows, cols, ub)
                    if nb == 0:
                        continue
                    shared = 0
                    for t in range(na):
                        j = ua[t]
                        if abs(j // cols - rb) <= 1 and abs(j % cols - cb) <= 1:
                            shared += 1
                    if shared == 0:
                        continue
                    only_a, only_b = na - shared, nb - shared
                    low = max(0, ka - only_a, kb - only_b)
                    high = min(shared, ka, kb)
                    # (the same tests as the Python rules, in the same terms)
                    settles = (
                        (only_a > 0 and (ka - low == 0 or ka - high == only_a))
                        or (only_b > 0 and (kb - low == 0 or kb - high == only_b))
                        or (low == high and (low == 0 or low == shared))
                    )
                    if settles:
                        for side in range(2):
                            cells = ua if side == 0 else ub
                            count = na if side == 0 else nb
                            k = ka if side == 0 else kb
                            own = only_a if side == 0 else only_b
                            orow = rb if side == 0 else ra
                            ocol = cb if side == 0 else ca
                            if own == 0:
                                continue
                            safe = k - low == 0
                            mines = (not safe) and k - high == own
                            for t in range(count):
                                j = cells[t]
                                if abs(j // cols - orow) <= 1 and abs(j % cols - ocol) <= 1:
                                    continue  # shared
                                if safe and state[j] == 0:
                                    opened += _open(j, numbers, state, rows, cols, stack)
                                elif mines and state[j] == 0:
                                    state[j] = 2
                        if low == high and (low == 0 or low == shared):
                            for t in range(na):
                                j = ua[t]
                                if abs(j // cols - rb) <= 1 and abs(j % cols - cb) <= 1:
                                    if low == 0 and state[j] == 0:
                                        opened += _open(j, numbers, state, rows, cols, stack)
                                    elif low > 0 and state[j] == 0:
                                        state[j] = 2
                        progress = True
                        break
                if progress:
                    break
            if progress:
                break
        if not progress:
            return opened
    return opened


def warm() -> None:
    """Compiles (or loads) the pass and the dry run's pieces once, on a tiny board."""
    mine = np.zeros(9, np.bool_)
    cheap_solves(mine, 3, 3, 0, True)
    numbers, state, stack = layout_numbers(mine, 3, 3), np.zeros(9, np.int8), np.empty(9, np.int64)
    opened = settle(np.array([0]), np.empty(0, np.int64), numbers, state, 3, 3, stack)
    advance(numbers, state, opened, 9, 3, 3, True, stack)
