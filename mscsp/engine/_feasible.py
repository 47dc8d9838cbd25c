"""The search behind :func:`mscsp.explain.feasible`: is there a layout of some numbers' cells
(and, with the total, of the mines left) with one cell fixed? Depth first over the cells in
order, 0 before 1, each number checked as its cells are assigned; resumable, so that the
caller can check its deadline every :data:`CHECK_EVERY` nodes, exactly where the recursive
search it replaces checked it.

The state lives in arrays the caller keeps between calls: ``value`` (-1: unassigned),
``placed`` and ``open_`` per number, the frames of the depth-first walk (``cell``,
``mines``, ``stage``) and ``reg`` = ``[depth, nodes, resumed, answer]``.
"""

from __future__ import annotations

from ._jit import njit

#: Nodes between two checks of the caller's deadline (those of the search it replaces).
CHECK_EVERY = 4096
#: What :func:`search` returns: no layout, a layout found, or a check of the deadline due.
EXHAUSTED, FOUND, CHECK = 0, 1, 2


@njit(cache=True, nogil=True)
def _ok(i, value, placed, open_, needs, watch_at, watch):  # pragma: no cover
    """Whether every number that cell ``i`` belongs to can still be met."""
    for t in range(watch_at[i], watch_at[i + 1]):
        k = watch[t]
        if placed[k] > needs[k] or placed[k] + open_[k] < needs[k]:
            return False
    return True


@njit(cache=True, nogil=True)
def _set(i, v, value, placed, open_, watch_at, watch):  # pragma: no cover
    """Assigns ``v`` to cell ``i`` (``v`` -1: takes back its value)."""
    old = value[i]
    for t in range(watch_at[i], watch_at[i + 1]):
        k = watch[t]
        if v >= 0:
            placed[k] += v
            open_[k] -= 1
        else:
            placed[k] -= old
            open_[k] += 1
    value[i] = v


@njit(cache=True, nogil=True)
def search(
    value, placed, open_, needs, watch_at, watch, use_total, left, others, cell, mines, stage, reg
):  # pragma: no cover
    """Walks on from the state in ``reg`` until a layout is found (:data:`FOUND`), none is
    left (:data:`EXHAUSTED`), or a check of the deadline is due (:data:`CHECK`: call again
    once it has passed). A fresh walk has ``reg = [0, 0, 0, 0]`` and frame 0 at cell 0 with
    0 mines, stage 0."""
    n = len(value)
    depth, nodes, resumed, answer = reg[0], reg[1], reg[2], reg[3]
    while depth >= 0:
        i, m, st = cell[depth], mines[depth], stage[depth]
        if st == 0:  # entering cell i with m mines placed
            if resumed == 0:
                nodes += 1
                if nodes % CHECK_EVERY == 0:
                    reg[0], reg[1], reg[2], reg[3] = depth, nodes, 1, answer
                    return CHECK
            resumed = 0
            if use_total and not (0 <= left - m <= others + n - i):
                answer = 0
                depth -= 1
                continue
            if i == n:
                answer = 1 if (not use_total or 0 <= left - m <= others) else 0
                depth -= 1
                continue
            if value[i] >= 0:  # fixed before the walk: on to the next cell
                stage[depth] = 1
                depth += 1
                cell[depth], mines[depth], stage[depth] = i + 1, m + value[i], 0
                continue
            _set(i, 0, value, placed, open_, watch_at, watch)
            if _ok(i, value, placed, open_, needs, watch_at, watch):
                stage[depth] = 2
                depth += 1
                cell[depth], mines[depth], stage[depth] = i + 1, m, 0
                continue
            st = 2  # (0 fails at once: taken back below, and 1 tried)
            answer = 0
        if st == 1:  # the next cell's answer is this one's
            depth -= 1
            continue
        if st == 2:  # 0 tried
            _set(i, -1, value, placed, open_, watch_at, watch)
            if answer == 1:
                depth -= 1
                continue
            _set(i, 1, value, placed, open_, watch_at, watch)
            if _ok(i, value, placed, open_, needs, watch_at, watch):
                stage[depth] = 3
                depth += 1
                cell[depth], mines[depth], stage[depth] = i + 1, m + 1, 0
                continue
            _set(i, -1, value, placed, open_, watch_at, watch)
            answer = 0
            depth -= 1
            continue
        # st == 3: 1 tried; its answer is this cell's
        _set(i, -1, value, placed, open_, watch_at, watch)
        depth -= 1
    reg[0], reg[1], reg[2], reg[3] = depth, nodes, 0, answer
    return FOUND if answer == 1 else EXHAUSTED
