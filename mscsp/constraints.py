"""From a board to its constraint system: frontier, groups, components.

Cells touching exactly the same set of revealed numbers are interchangeable, so the system is
stated over *groups* of cells: a group of ``n`` cells holds ``x`` mines in ``C(n, x)`` ways.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .board import COVERED, FLAG, Board, neighbour_sum
from .deadline import Deadline
from .errors import InconsistentBoardError

Cell = tuple[int, int]


@dataclass(frozen=True)
class Component:
    """An independent part of the frontier, the unit every backend counts.

    Attributes:
        sizes: Number of cells in each group.
        constraints: ``(group indices, mines)`` pairs: the groups' mines must sum to ``mines``.
        cells: Board cells of each group (for mapping results back; backends ignore it).
    """

    sizes: tuple[int, ...]
    constraints: tuple[tuple[tuple[int, ...], int], ...]
    cells: tuple[tuple[Cell, ...], ...] = ()

    @property
    def n_cells(self) -> int:
        return sum(self.sizes)

    @property
    def n_groups(self) -> int:
        return len(self.sizes)


@dataclass(frozen=True)
class ComponentCount:
    """Exact solution counts of one component, by number of mines ``k`` in the component.

    Attributes:
        counts: ``counts[k]``: cell-level solutions with ``k`` mines.
        cell_counts: ``cell_counts[g][k]``: solutions with ``k`` mines in which one given cell
            of group ``g`` holds a mine (the same for every cell of the group).
        exact: False when a backend hit a limit and sampled instead of counting.
    """

    counts: tuple[int, ...]
    cell_counts: tuple[tuple[int, ...], ...]
    exact: bool = True

    @property
    def total(self) -> int:
        return sum(self.counts)


@dataclass(frozen=True)
class System:
    """The whole board as a group-level constraint system, before reductions.

    One constraint per revealed number next to covered cells: the mines of its groups sum to
    the mines the number still needs. Stored sparsely (each constraint lists its groups), so
    the size grows with the frontier, never with its square. Cells the single-point rules
    settle while building (next to a number that needs all or none of its covered cells)
    form up to two extra groups, listed in :attr:`settled` and in no constraint.

    Attributes:
        sizes: Cells per group.
        cells: Board cells of each group, row-major; frontier groups are numbered by their
            first cell, the settled groups come last.
        constraints: ``(group indices, mines)`` per number, group indices ascending.
        numbers: ``(row, col)`` of each constraint's number.
        unconstrained: Mask of covered cells next to no revealed number.
        remaining: Mines not yet flagged.
        settled: ``(group, mines)`` of the groups settled while building (all safe: 0 mines;
            all mines: their size).
    """

    sizes: list[int]
    cells: list[tuple[Cell, ...]]
    constraints: list[tuple[tuple[int, ...], int]]
    numbers: list[Cell]
    unconstrained: np.ndarray
    remaining: int
    settled: list[tuple[int, int]] = field(default_factory=list)

    @property
    def frontier(self) -> list[Cell]:
        """Covered cells next to at least one revealed number."""
        return [cell for group in self.cells for cell in group]

    @property
    def n_unconstrained(self) -> int:
        return int(np.count_nonzero(self.unconstrained))


# The 8 neighbour directions.
_DIRS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def _pair_sum(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Neighbour counts of two masks in one :func:`neighbour_sum` (one in each nibble)."""
    both = neighbour_sum(low.view(np.int8) + (high.view(np.int8) << 4))
    return both & 15, both >> 4


def _check(numbers: np.ndarray, need: np.ndarray, open_nb: np.ndarray, cells) -> None:
    bad = numbers & ((need < 0) | (need > open_nb))
    if bad.any():
        r, c = (int(v) for v in np.argwhere(bad)[0])
        raise InconsistentBoardError(
            f"the {int(cells[r, c])} at row {r + 1}, column {c + 1} cannot be satisfied "
            f"(it still needs {int(need[r, c])} mines among {int(open_nb[r, c])} open "
            "neighbours)"
        )


def build_system(board: Board, deadline: Deadline | None = None) -> System:
    """States the board's constraints over groups of interchangeable frontier cells.

    The board-wide work is numpy: counting covered cells and flags around every number, and
    one pass of the single-point rules, which settles most of a real game's frontier (known
    mines a player never flags, cells next to satisfied numbers). What follows loops over
    the rest of the frontier only, so it costs little on small boards and grows linearly
    with the frontier on large ones.

    Args:
        board: The position.
        deadline: Stops the work with :class:`~mscsp.errors.SolverLimitError` when passed.

    Raises:
        InconsistentBoardError: A number has more flags around it than its value, or fewer
            covered cells than it still needs.
    """
    cells = board.cells
    rows, cols = cells.shape
    covered = cells == COVERED
    flags = cells == FLAG
    n_flags = int(np.count_nonzero(flags))
    remaining = board.mines - n_flags
    if remaining < 0:
        raise InconsistentBoardError(f"{n_flags} flags but only {board.mines} mines")
    numbers = cells >= 0
    if not numbers.any():  # an untouched board: every covered cell is alike
        return System([], [], [], [], covered, remaining)
    covered_nb, flags_nb = _pair_sum(covered, flags)
    need = cells - flags_nb
    _check(numbers, need, covered_nb, cells)

    # The single-point rules, once: a number needing all of its covered neighbours makes
    # them mines, one needing none makes them safe.
    live = numbers & (covered_nb > 0)
    all_nb, none_nb = _pair_sum(live & (need == covered_nb), live & (need == 0))
    mine_now = covered & (all_nb > 0)
    safe_now = covered & (none_nb > 0)
    if (mine_now & safe_now).any():
        r, c = (int(v) for v in np.argwhere(mine_now & safe_now)[0])
        raise InconsistentBoardError(
            f"the cell at row {r + 1}, column {c + 1} must be both a mine and safe"
        )
    settled_groups = [(mask, mines) for mask, mines in ((safe_now, 0), (mine_now, 1)) if mask.any()]
    if settled_groups:
        mines_nb, safe_nb = _pair_sum(mine_now, safe_now)
        need = need - mines_nb
        open_nb = covered_nb - mines_nb - safe_nb
        _check(numbers, need, open_nb, cells)
        covered = covered & ~(mine_now | safe_now)
    else:
        open_nb = covered_nb
    ar, ac = np.nonzero(numbers & (open_nb > 0))

    # (number, covered neighbour) pairs on a padded board, where every neighbour index is
    # valid; cells are flat indices of the padded board (row-major, like the board's).
    width = cols + 2
    pad_covered = np.zeros((rows + 2, width), dtype=bool)
    pad_covered[1:-1, 1:-1] = covered
    around = ((ar + 1) * width + ac + 1)[:, None] + [dr * width + dc for dr, dc in _DIRS]
    number_idx, direction = np.nonzero(pad_covered.ravel()[around])
    pair_cell = around[number_idx, direction]
    if deadline is not None:
        deadline.check()

    # A cell's group is the set of numbers around it (pairs come number by number, so each
    # set is listed in ascending order). Groups are numbered by their first cell.
    seen_by: dict[int, list[int]] = {}
    for number, cell in zip(number_idx.tolist(), pair_cell.tolist(), strict=True):
        seen_by.setdefault(cell, []).append(number)
    frontier = sorted(seen_by)
    group_of: dict[tuple[int, ...], int] = {}
    group_cells: list[list[Cell]] = []
    for cell in frontier:
        key = tuple(seen_by[cell])
        g = group_of.setdefault(key, len(group_cells))
        if g == len(group_cells):
            group_cells.append([])
        r, c = divmod(cell, width)
        group_cells[g].append((r - 1, c - 1))
    if deadline is not None:
        deadline.check()

    members: list[list[int]] = [[] for _ in range(len(ar))]
    for key, g in group_of.items():
        for number in key:
            members[number].append(g)
    unconstrained = covered.copy()
    if frontier:
        flat = np.array(frontier)
        unconstrained[flat // width - 1, flat % width - 1] = False
    sizes = [len(group) for group in group_cells]
    group_tuples = [tuple(group) for group in group_cells]
    settled = []
    for mask, mines in settled_groups:
        where = np.nonzero(mask)
        settled.append((len(sizes), mines * len(where[0])))
        sizes.append(len(where[0]))
        group_tuples.append(tuple(zip(where[0].tolist(), where[1].tolist(), strict=True)))
    return System(
        sizes=sizes,
        cells=group_tuples,
        constraints=[(tuple(m), t) for m, t in zip(members, need[ar, ac].tolist(), strict=True)],
        numbers=list(zip(ar.tolist(), ac.tolist(), strict=True)),
        unconstrained=unconstrained,
        remaining=remaining,
        settled=settled,
    )
