"""The generator's rules (1) and (2), compiled (numba), writing each use as a step.

A try plays the one-number rule on a work list of the numbers whose neighbourhood changed,
and the two-number rules (subset and overlap) when it is stuck, each use one step of the
certificate; the exact stage, in Python, adds its own steps between calls through
:func:`settle_step`. The same code is the generator's filter: most layouts are stuck a few
steps after the opening, and they are found stuck here, in tens of microseconds. The rules
are sound and monotone (a cell they settle stays settled as more becomes known), so where
they stop does not depend on the order they are tried in; the order is still fixed, as it is
part of the certificate.

The order: the work list is a stack (last queued, first taken); opening a cell queues, in
the order the cells opened, each opened cell and then its open neighbours, row by row; the
two-number rules take the first pair ``a < b`` (``a`` in row-major order, ``b`` among the
cells within two rows and columns of ``a``, row by row) that settles a cell, its mines
marked, then its safe cells opened, each in ascending order.

A try's arrays: ``numbers`` (-1 on a mine), ``state`` (0 unknown, 1 open, 2 known mine),
``queued`` and ``work`` (the work list), ``border`` (open numbers that may still touch an
unknown cell), ``ctl`` (the work list's length, cells open, steps logged, cells logged),
``steps`` (one row per step: first number, second number or -1, safe cells, mines) and
``cells`` (each step's safe cells, then its mines); ``stack`` and ``order`` are scratch.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Fields of ``ctl``.
TOP, OPEN, STEPS, CELLS = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def _inside(r: int, c: int, rows: int, cols: int) -> bool:
    return 0 <= r < rows and 0 <= c < cols


@njit(cache=True, nogil=True)
def _open(cell, numbers, state, rows, cols, stack, order):  # pragma: no cover
    """Opens ``cell`` (a zero: its region and border, as the game does); how many cells it
    opened, written to ``order`` in the order they opened (the order the certificate's
    writer queues their numbers in)."""
    if state[cell] != 0:
        return 0
    state[cell] = 1
    order[0] = cell
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
                        order[opened] = j
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
def _queue(j, state, queued, work, ctl):  # pragma: no cover
    if state[j] == 1 and not queued[j]:
        queued[j] = True
        work[ctl[TOP]] = j
        ctl[TOP] += 1


@njit(cache=True, nogil=True)
def _touch(cell, state, queued, work, ctl, rows, cols):  # pragma: no cover
    """Queues ``cell`` (if open) and its open neighbours: their covered neighbours changed."""
    _queue(cell, state, queued, work, ctl)
    r, c = cell // cols, cell % cols
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            rr, cc = r + dr, c + dc
            if (dr or dc) and _inside(rr, cc, rows, cols):
                _queue(rr * cols + cc, state, queued, work, ctl)


@njit(cache=True, nogil=True)
def reveal(
    cell, numbers, state, queued, work, border, ctl, rows, cols, stack, order
):  # pragma: no cover
    """Opens the safe ``cell`` (a zero: its region and border) and queues what it changed."""
    count = _open(cell, numbers, state, rows, cols, stack, order)
    ctl[OPEN] += count
    for t in range(count):
        j = order[t]
        _touch(j, state, queued, work, ctl, rows, cols)
        if numbers[j] > 0:
            border[j] = True


@njit(cache=True, nogil=True)
def settle_step(
    safe, mines, numbers, state, queued, work, border, ctl, rows, cols, stack, order
):  # pragma: no cover
    """Applies a step: marks its ``mines``, then opens its ``safe`` cells."""
    for j in mines:
        if state[j] == 0:
            state[j] = 2
            _touch(j, state, queued, work, ctl, rows, cols)
    for j in safe:
        reveal(j, numbers, state, queued, work, border, ctl, rows, cols, stack, order)


@njit(cache=True, nogil=True)
def _log(a, b, safe, mines, steps, cells, ctl):  # pragma: no cover
    s = ctl[STEPS]
    steps[s, 0], steps[s, 1], steps[s, 2], steps[s, 3] = a, b, len(safe), len(mines)
    ctl[STEPS] += 1
    p = ctl[CELLS]
    for j in safe:
        cells[p] = j
        p += 1
    for j in mines:
        cells[p] = j
        p += 1
    ctl[CELLS] = p


@njit(cache=True, nogil=True)
def _pair(
    numbers, state, queued, work, border, ctl, rows, cols, stack, order, steps, cells
):  # pragma: no cover
    """One use of the subset or overlap rule on two nearby numbers; whether one applied."""
    ua = np.empty(8, np.int64)
    ub = np.empty(8, np.int64)
    found = np.empty(16, np.int64)
    for a in range(rows * cols):
        if not border[a]:
            continue
        na, ka = _covered_around(a, numbers, state, rows, cols, ua)
        if na == 0:
            border[a] = False  # (for good: an open number never gets a covered cell back)
            continue
        ra, ca = a // cols, a % cols
        for dr in range(-2, 3):
            for dc in range(-2, 3):
                rb, cb = ra + dr, ca + dc
                if not (dr or dc) or not _inside(rb, cb, rows, cols):
                    continue
                b = rb * cols + cb
                if b < a or not border[b]:
                    continue
                nb, kb = _covered_around(b, numbers, state, rows, cols, ub)
                if nb == 0:
                    continue
                shared = 0
                for t in range(na):
                    if abs(ua[t] // cols - rb) <= 1 and abs(ua[t] % cols - cb) <= 1:
                        shared += 1
                if shared == 0:
                    continue
                only_a, only_b = na - shared, nb - shared
                # Mines in the shared cells: at least what each number cannot put in its
                # own cells, at most what either needs.
                low = max(0, ka - only_a, kb - only_b)
                high = min(shared, ka, kb)
                # Each cell of either number: 1 safe, 2 a mine, 0 nothing known.
                n_found = 0
                for side in range(2):
                    own_cells = ua if side == 0 else ub
                    count = na if side == 0 else nb
                    k = ka if side == 0 else kb
                    own = only_a if side == 0 else only_b
                    orow, ocol = (rb, cb) if side == 0 else (ra, ca)
                    for t in range(count):
                        j = own_cells[t]
                        is_shared = abs(j // cols - orow) <= 1 and abs(j % cols - ocol) <= 1
                        verdict = 0
                        if is_shared:
                            if side == 0 and low == high:
                                verdict = 1 if low == 0 else (2 if low == shared else 0)
                        elif own and k - low == 0:
                            verdict = 1
                        elif own and k - high == own:
                            verdict = 2
                        if verdict:
                            found[n_found] = j * 4 + verdict
                            n_found += 1
                if n_found == 0:
                    continue
                settled = np.sort(found[:n_found])  # (by cell: the verdict is the low bits)
                safe = settled[settled % 4 == 1] // 4
                mines = settled[settled % 4 == 2] // 4
                _log(a, b, safe, mines, steps, cells, ctl)
                settle_step(
                    safe, mines, numbers, state, queued, work, border, ctl, rows, cols, stack, order
                )
                return True
    return False


@njit(cache=True, nogil=True)
def play_rules(
    numbers,
    state,
    queued,
    work,
    border,
    ctl,
    goal,
    rows,
    cols,
    use_pairs,
    stack,
    order,
    steps,
    cells,
):  # pragma: no cover
    """Plays the one-number rule (and, with ``use_pairs``, the two-number rules) until every
    safe cell is open (``True``) or no rule settles a cell (``False``), logging each step."""
    unknown = np.empty(8, np.int64)
    none = np.empty(0, np.int64)
    while ctl[OPEN] < goal:
        while ctl[TOP] > 0 and ctl[OPEN] < goal:  # (no step after the last safe cell is open)
            ctl[TOP] -= 1
            i = work[ctl[TOP]]
            queued[i] = False
            if numbers[i] == 0:
                continue
            m, need = _covered_around(i, numbers, state, rows, cols, unknown)
            if m == 0 or (need != 0 and need != m):
                continue
            settled = unknown[:m].copy()
            safe, mines = (settled, none) if need == 0 else (none, settled)
            _log(i, -1, safe, mines, steps, cells, ctl)
            settle_step(
                safe, mines, numbers, state, queued, work, border, ctl, rows, cols, stack, order
            )
        if ctl[OPEN] >= goal:
            break
        if not use_pairs or not _pair(
            numbers, state, queued, work, border, ctl, rows, cols, stack, order, steps, cells
        ):
            return False
    return True


def warm() -> None:
    """Compiles (or loads) the writer once, on a tiny board."""
    numbers = np.array([1, 1, 0, -1, 1, 0, 1, 1, 0], np.int64)
    state = np.zeros(9, np.int8)
    queued, border = np.zeros(9, np.bool_), np.zeros(9, np.bool_)
    work, stack, order, cells = (np.empty(9, np.int64) for _ in range(4))
    ctl, steps = np.zeros(4, np.int64), np.empty((9, 4), np.int64)
    reveal(2, numbers, state, queued, work, border, ctl, 3, 3, stack, order)
    play_rules(numbers, state, queued, work, border, ctl, 8, 3, 3, True, stack, order, steps, cells)
