"""Exact game-tree search over the few mine layouts left at the end of a game.

Every layout consistent with the board is equally likely. A click partitions the layouts
in which it is safe by what it shows (its number, and the cells a zero opens); the value of
a position is the best click's average value over those parts, and a position with one
layout left (or only mines left to find) is won. Layouts are bitmasks over the unknown
cells, so the search is small integer work, memoised on (layouts, revealed cells).
"""

from __future__ import annotations

from functools import cache

from ..board import COVERED, FLAG, Board
from .base import Cell

_OFFSETS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


class _Abort(Exception):
    """The search outgrew its budget."""


def enumerate_layouts(board: Board, limit: int) -> tuple[list[Cell], list[int]] | None:
    """All mine layouts of the unknown cells consistent with the board, as bitmasks.

    Returns:
        ``(cells, layouts)``, or ``None`` when there are more than ``limit`` layouts.
    """
    cells_arr = board.cells
    rows, cols = cells_arr.shape
    unknown = [(r, c) for r in range(rows) for c in range(cols) if cells_arr[r, c] == COVERED]
    index = {cell: i for i, cell in enumerate(unknown)}
    remaining = board.mines - int((cells_arr == FLAG).sum())
    needs: list[int] = []
    members: list[list[int]] = []
    for r in range(rows):
        for c in range(cols):
            if cells_arr[r, c] < 0:
                continue
            nb = [
                (r + dr, c + dc) for dr, dc in _OFFSETS if 0 <= r + dr < rows and 0 <= c + dc < cols
            ]
            mine_nb = [index[n] for n in nb if n in index]
            if mine_nb:
                needs.append(int(cells_arr[r, c]) - sum(cells_arr[n] == FLAG for n in nb))
                members.append(mine_nb)
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
        if used > remaining or used + len(order) - k < remaining:
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


def solve_endgame(board: Board, limit: int = 30, budget: int = 20000) -> tuple[Cell, float] | None:
    """The click with the highest exact chance of winning, and that chance.

    Args:
        board: The position (proven mines may be flagged).
        limit: Give up (``None``) with more layouts than this.
        budget: Give up after evaluating this many (position, click) pairs.
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
    base: list[int] = []
    for r, c in unknown:
        nb = [(r + dr, c + dc) for dr, dc in _OFFSETS if 0 <= r + dr < rows and 0 <= c + dc < cols]
        nbr_idx.append([index[x] for x in nb if x in index])
        base.append(sum(cells_arr[x] == FLAG for x in nb))
    full = (1 << n) - 1
    spent = [0]

    def shown(i: int, layout: int, revealed: int) -> tuple[int, tuple]:
        """Cells a safe click on ``i`` opens under ``layout``, and what they show."""
        opened, seen, stack = revealed, [], [i]
        opened |= 1 << i
        while stack:
            x = stack.pop()
            value = base[x] + sum((layout >> y) & 1 for y in nbr_idx[x])
            seen.append((x, value))
            if value == 0:
                for y in nbr_idx[x]:
                    if not (opened >> y) & 1:
                        opened |= 1 << y
                        stack.append(y)
        return opened, tuple(sorted(seen))

    @cache
    def value(states: tuple[int, ...], revealed: int) -> tuple[float, int]:
        all_mine = full
        any_mine = 0
        for layout in states:
            all_mine &= layout
            any_mine |= layout
        todo = full & ~revealed & ~all_mine
        if len(states) == 1 or not todo:
            return 1.0, -1
        certain = todo & ~any_mine
        choices = (
            [(certain & -certain).bit_length() - 1]
            if certain
            else [i for i in range(n) if (todo >> i) & 1]
        )
        best, best_i = -1.0, choices[0]
        for i in choices:
            spent[0] += 1
            if spent[0] > budget:
                raise _Abort
            parts: dict[tuple, list[int]] = {}
            opened_of: dict[tuple, int] = {}
            for layout in states:
                if (layout >> i) & 1:
                    continue
                opened, seen = shown(i, layout, revealed)
                parts.setdefault(seen, []).append(layout)
                opened_of[seen] = opened
            total = sum(
                len(part) * value(tuple(part), opened_of[key])[0] for key, part in parts.items()
            )
            if total / len(states) > best:
                best, best_i = total / len(states), i
        return best, best_i

    try:
        win, i = value(tuple(layouts), 0)
    except _Abort:
        return None
    return (unknown[i], win) if i >= 0 else None
