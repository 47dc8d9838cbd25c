"""Exact game-tree search over the few mine layouts left at the end of a game.

Every layout consistent with the board is equally likely. A click partitions the layouts
in which it is safe by what it shows (its number, and the cells a zero opens); the value of
a position is the best click's average value over those parts, and a position with one
layout left (or only mines left to find) is won. Layouts are bitmasks over the unknown
cells, and a set of layouts is a bitmask over their indices: what a click shows is grouped
once per cell over every layout, and a split of a set is a few bitwise ands. The search is
memoised on (layouts, revealed cells), and it tries only living cells with bound pruning
(see :func:`solve_endgame`).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..board import COVERED, FLAG, Board, neighbour_sum
from ..engine import compiled
from .base import Cell, neighbours


class _Abort(Exception):
    """The search outgrew its budget."""


def enumerate_layouts(
    board: Board, limit: int, any_count: bool = False
) -> tuple[list[Cell], list[int]] | None:
    """All mine layouts of the unknown cells consistent with the board, as bitmasks.

    Args:
        board: The position (proven mines may be flagged).
        limit: Give up (``None``) with more layouts than this.
        any_count: Ignore the board's mine count (every number of mines is allowed).

    Returns:
        ``(cells, layouts)``, or ``None`` when there are more than ``limit`` layouts.

    The engine enumerates (:func:`mscsp.engine.compiled.endgame_layouts`, compiled or not)
    where its 62-bit layouts hold the unknown cells and ``limit`` is at most 65536; Python
    enumerates the others, the same way, in Python's unbounded integers.
    """
    found = compiled.endgame_layouts(board, limit, any_count)
    if found is not False:
        return found
    cells_arr = board.cells
    rows, cols = cells_arr.shape
    covered = cells_arr == COVERED
    flags = cells_arr == FLAG
    unknown = [(int(r), int(c)) for r, c in np.argwhere(covered)]
    index = {cell: i for i, cell in enumerate(unknown)}
    remaining = board.mines - int(flags.sum())
    needs: list[int] = []
    members: list[list[int]] = []
    # The numbers next to an unknown cell, row-major.
    flagged_around = neighbour_sum(flags)
    for r, c in np.argwhere((cells_arr >= 0) & (neighbour_sum(covered) > 0)).tolist():
        members.append([index[n] for n in neighbours((r, c), rows, cols) if n in index])
        needs.append(int(cells_arr[r, c]) - int(flagged_around[r, c]))
    cons_of: list[list[int]] = [[] for _ in unknown]
    for j, mem in enumerate(members):
        for i in mem:
            cons_of[i].append(j)
    # Constrained cells first, so the constraints prune early.
    order = sorted(range(len(unknown)), key=lambda i: (not cons_of[i], unknown[i]))
    assigned = [0] * len(needs)
    left = [len(m) for m in members]
    layouts: list[int] = []

    def dfs(k: int, mask: int, used: int) -> None:
        if not any_count and (used > remaining or used + len(order) - k < remaining):
            return
        if k == len(order):
            layouts.append(mask)
            if len(layouts) > limit:
                raise _Abort
            return
        i = order[k]
        for mine in (0, 1):
            ok = True
            for j in cons_of[i]:
                assigned[j] += mine
                left[j] -= 1
                if assigned[j] > needs[j] or assigned[j] + left[j] < needs[j]:
                    ok = False
            if ok:
                dfs(k + 1, mask | (mine << i), used + mine)
            for j in cons_of[i]:
                assigned[j] -= mine
                left[j] += 1

    try:
        dfs(0, 0, 0)
    except _Abort:
        return None
    return unknown, layouts


def region_board(board: Board, region: list[Cell], limit: int) -> Board | None:
    """The position restricted to an isolated region whose mine count is fixed.

    Covered cells outside the region become flags and the numbers away from it are made
    satisfied, so the region's layouts are exactly those of the returned board.

    Returns:
        ``None`` when the region has more than ``limit`` layouts or no fixed mine count.
    """
    cells_arr = board.cells.copy()
    rows, cols = cells_arr.shape
    inside = set(region)
    outside = cells_arr == COVERED
    for cell in region:
        outside[cell] = False
    cells_arr[outside] = FLAG
    flags = cells_arr == FLAG
    for r in range(rows):
        for c in range(cols):
            if cells_arr[r, c] < 0:
                continue
            near = neighbours((r, c), rows, cols)
            if not any(n in inside for n in near):
                cells_arr[r, c] = sum(bool(flags[n]) for n in near)
    free = Board(cells_arr, int(flags.sum()))
    found = enumerate_layouts(free, limit, any_count=True)
    if found is None or not found[1]:
        return None
    counts = {layout.bit_count() for layout in found[1]}
    if len(counts) != 1:
        return None
    return Board(cells_arr, int(flags.sum()) + counts.pop())


def solve_endgame(
    board: Board, limit: int = 30, budget: int = 200_000
) -> tuple[Cell, float] | None:
    """The click with the highest exact chance of winning, and that chance.

    At every node only *living* cells are tried (a cell whose safe layouts all show the
    same thing teaches nothing, and clicking it can wait), safest first; a cell is dropped
    as soon as its chance of being safe, or the part of it still open, cannot beat the best
    click found. Dead cells are tried only when no cell lives.

    Args:
        board: The position (proven mines may be flagged).
        limit: Give up (``None``) with more layouts than this.
        budget: Give up after this many (layout, click) evaluations.
    """
    found = enumerate_layouts(board, limit)
    if found is None or not found[1]:
        return None
    unknown, layouts = found
    cells_arr = board.cells
    rows, cols = cells_arr.shape
    n = len(unknown)
    index = {cell: i for i, cell in enumerate(unknown)}
    nbr_idx: list[list[int]] = []
    nbr_mask: list[int] = []
    base: list[int] = []
    for r, c in unknown:
        nb = neighbours((r, c), rows, cols)
        idx = [index[x] for x in nb if x in index]
        nbr_idx.append(idx)
        nbr_mask.append(sum(1 << y for y in idx))
        base.append(int(sum(cells_arr[x] == FLAG for x in nb)))
    found = compiled.search_endgame(layouts, n, nbr_idx, nbr_mask, base, budget)
    if found is not False:
        return None if found is None or found[1] < 0 else (unknown[found[1]], found[0])
    # Beyond the engine's words: the same search in Python's unbounded integers.
    full = (1 << n) - 1
    # A set of layouts is a bitmask over their indices; layout k's bit is 1 << k, so the
    # layouts of a set, lowest bit first, are in enumeration order.
    mined = [sum(1 << k for k, layout in enumerate(layouts) if (layout >> i) & 1) for i in range(n)]
    spent = [0]

    def opened_by(i: int, layout: int) -> tuple[int, tuple]:
        """Cells a safe click on ``i`` opens under ``layout`` (none revealed yet), and what
        they show. (Once cells are revealed, the click shows the same on the others: a
        revealed zero's neighbours are revealed, so no new cell is reached through one.)"""
        value = base[i] + (layout & nbr_mask[i]).bit_count()
        if value:
            return 1 << i, (i, value)
        opened, seen, stack = 1 << i, [], [i]
        while stack:
            x = stack.pop()
            value = base[x] + (layout & nbr_mask[x]).bit_count()
            seen.append((x, value))
            if value == 0:
                for y in nbr_idx[x]:
                    if not (opened >> y) & 1:
                        opened |= 1 << y
                        stack.append(y)
        return opened, tuple(sorted(seen))

    @cache
    def outcomes(i: int) -> list[tuple[int, int]]:
        """What a click on ``i`` may show: the cells it opens and the layouts where it shows
        that, over every layout where ``i`` is safe."""
        found: dict[tuple, list[int]] = {}
        for k, layout in enumerate(layouts):
            if not (layout >> i) & 1:
                opened, seen = opened_by(i, layout)
                part = found.setdefault(seen, [opened, 0])
                part[1] |= 1 << k
        return [(opened, states) for opened, states in found.values()]

    def split(i: int, states: int, revealed: int) -> list[tuple[int, int]]:
        """The layouts where ``i`` is safe, grouped by what clicking it shows (cells opened,
        layouts), in the order their first layouts come."""
        spent[0] += states.bit_count()
        if spent[0] > budget:
            raise _Abort
        parts = [(revealed | o, states & s) for o, s in outcomes(i) if states & s]
        parts.sort(key=lambda part: part[1] & -part[1])
        return parts

    @cache
    def value(states: int, revealed: int) -> tuple[float, int]:
        all_mine = full
        any_mine = 0
        rest = states
        while rest:
            low = rest & -rest
            layout = layouts[low.bit_length() - 1]
            all_mine &= layout
            any_mine |= layout
            rest ^= low
        todo = full & ~revealed & ~all_mine
        total = states.bit_count()
        if total == 1 or not todo:
            return 1.0, -1
        certain = todo & ~any_mine
        if certain:
            i = (certain & -certain).bit_length() - 1
            parts = split(i, states, revealed)
            won = sum(p.bit_count() * value(p, o)[0] for o, p in parts)
            return won / total, i
        # Safest first; exact ties in cell order.
        safe_counts = []
        while todo:
            low = todo & -todo
            i = low.bit_length() - 1
            safe_counts.append((total - (states & mined[i]).bit_count(), i))
            todo ^= low
        safe_counts.sort(key=lambda ci: (-ci[0], ci[1]))
        splits = []
        for safe, i in safe_counts:
            parts = split(i, states, revealed)
            if len(parts) > 1:
                splits.append((safe, i, parts))
        if not splits:  # every cell is dead: only survival is left to play for
            splits = [(safe, i, split(i, states, revealed)) for safe, i in safe_counts]
        best, best_i = -1, splits[0][1]
        for safe, i, parts in splits:
            if safe <= best:
                break
            won, left = 0.0, safe
            for opened, part in sorted(parts, key=lambda op: -op[1].bit_count()):
                if won + left <= best:
                    break
                size = part.bit_count()
                won += size * value(part, opened)[0]
                left -= size
            else:
                if won > best:
                    best, best_i = won, i
        return best / total, best_i

    try:
        win, i = value((1 << len(layouts)) - 1, 0)
    except _Abort:
        return None
    return (unknown[i], win) if i >= 0 else None
