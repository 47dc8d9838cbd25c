"""From a board to its constraint system: frontier, groups, components.

Cells touching exactly the same set of revealed numbers are interchangeable, so the system is
stated over *groups* of cells: a group of ``n`` cells holds ``x`` mines in ``C(n, x)`` ways.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .board import COVERED, FLAG, Board
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
#: Code of the padding around the board: neither a number nor covered nor a flag.
_OUTSIDE = -3


def build_system(board: Board, deadline: Deadline | None = None) -> System:
    """States the board's constraints over groups of interchangeable frontier cells.

    The array work looks only at revealed numbers and their 8 neighbours (gathered from a
    padded copy of the board): it counts covered cells and flags around every number and
    applies the single-point rules once, which settles most of a real game's frontier
    (known mines a player never flags, cells next to satisfied numbers). What follows loops
    over the rest of the frontier only, so it costs little on small boards and grows
    linearly with the frontier on large ones.

    Args:
        board: The position.
        deadline: Stops the work with :class:`~mscsp.errors.SolverLimitError` when passed.

    Raises:
        InconsistentBoardError: A number has more flags around it than its value, or fewer
            covered cells than it still needs, or the rules make a cell both safe and a mine.
    """
    if board.cells.size <= SMALL_BOARD:
        system = _build_small(board)
        if system is not None:
            return system
    cells = board.cells
    rows, cols = cells.shape
    covered = cells == COVERED
    n_flags = int(np.count_nonzero(cells == FLAG))
    remaining = board.mines - n_flags
    if remaining < 0:
        raise InconsistentBoardError(f"{n_flags} flags but only {board.mines} mines")
    # Flat indices into the board padded by one cell of "outside" (so every number has 8
    # neighbour indices); row-major, like the board.
    width = cols + 2
    padded = np.full((rows + 2, width), _OUTSIDE, dtype=np.int8)
    padded[1:-1, 1:-1] = cells
    flat = padded.ravel()
    numbers = np.flatnonzero(flat >= 0)
    if not len(numbers):  # an untouched board: every covered cell is alike
        return System([], [], [], [], covered, remaining)
    # 32-bit indices: a million-cell board gathers millions of them.
    numbers = numbers.astype(np.int32)
    around = numbers[:, None] + np.array([dr * width + dc for dr, dc in _DIRS], dtype=np.int32)
    seen = flat[around]
    open_ = seen == COVERED
    open_nb = open_.sum(axis=1)
    need = flat[numbers] - (seen == FLAG).sum(axis=1)
    _check(flat, numbers, need, open_nb, width)

    # The single-point rules, once: a number needing all of its covered neighbours makes
    # them mines, one needing none makes them safe.
    live = open_nb > 0
    mark = np.zeros(len(flat), dtype=np.int8)  # 1: settled mine, 2: settled safe
    mark[around[open_ & (live & (need == open_nb))[:, None]]] = 1
    mark[around[open_ & (live & (need == 0))[:, None]]] |= 2
    if (mark == 3).any():
        r, c = divmod(int(np.flatnonzero(mark == 3)[0]), width)
        raise InconsistentBoardError("a cell must be both a mine and safe", (r - 1, c - 1))
    settled_groups = [(np.flatnonzero(mark == m), m % 2) for m in (2, 1)]
    settled_groups = [(where, mine) for where, mine in settled_groups if len(where)]
    if settled_groups:
        marks = mark[around]
        need = need - (marks == 1).sum(axis=1)
        open_ &= marks == 0
        open_nb = open_.sum(axis=1)
        _check(flat, numbers, need, open_nb, width)
    active = open_nb > 0
    number_idx, direction = np.nonzero(open_[active])
    pair_cell = around[active][number_idx, direction]
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

    numbers = numbers[active]
    members: list[list[int]] = [[] for _ in range(len(numbers))]
    for key, g in group_of.items():
        for number in key:
            members[number].append(g)
    sizes = [len(group) for group in group_cells]
    group_tuples = [tuple(group) for group in group_cells]
    settled = []
    for where, mine in settled_groups:
        settled.append((len(sizes), mine * len(where)))
        sizes.append(len(where))
        rs, cs = np.divmod(where, width)
        group_tuples.append(tuple(zip((rs - 1).tolist(), (cs - 1).tolist(), strict=True)))
    unconstrained = covered.copy()
    near = np.array(frontier + [int(i) for where, _ in settled_groups for i in where])
    if len(near):
        unconstrained[near // width - 1, near % width - 1] = False
    nr, nc = np.divmod(numbers, width)
    return System(
        sizes=sizes,
        cells=group_tuples,
        constraints=[(tuple(m), t) for m, t in zip(members, need[active].tolist(), strict=True)],
        numbers=list(zip((nr - 1).tolist(), (nc - 1).tolist(), strict=True)),
        unconstrained=unconstrained,
        remaining=remaining,
        settled=settled,
    )


#: Boards up to this many cells with at most :data:`FEW_NUMBERS` revealed numbers are built
#: by :func:`_build_small` (plain Python lists): there the array code's fixed cost (some
#: thirty numpy calls) dominates, beyond it the per-number Python loop.
SMALL_BOARD = 1024
FEW_NUMBERS = 128


def _build_small(board: Board) -> System | None:
    """:func:`build_system` on plain Python lists: the same system, the same errors.

    Visits the numbers in row-major order and their neighbours in the order of ``_DIRS``,
    as the array code does, so groups, constraints and the first number an error names
    come out identical (``tests/test_fast_paths.py`` checks this on real-game positions).
    Returns ``None`` where the array code is the faster one (more than
    :data:`FEW_NUMBERS` revealed numbers) and at a nonzero number with nothing hidden
    around it (the array code names the first number that cannot be met).
    """
    cells = board.cells
    rows, cols = cells.shape
    numbers = np.flatnonzero(cells >= 0)
    if len(numbers) > FEW_NUMBERS:
        return None
    numbers = numbers.tolist()
    flags = np.flatnonzero(cells == FLAG).tolist()
    remaining = board.mines - len(flags)
    if remaining < 0:
        raise InconsistentBoardError(f"{len(flags)} flags but only {board.mines} mines")
    covered = cells == COVERED
    if not numbers:  # an untouched board: every covered cell is alike
        return System([], [], [], [], covered, remaining)
    flat = cells.ravel().tolist()
    around, coords = _neighbours(rows, cols)
    flags_near = [0] * len(flat)  # flags around each cell
    for f in flags:
        for j in around[f]:
            flags_near[j] += 1
    # Each number with its still-needed mines and covered neighbours, checked as we go, and
    # the single-point rules (see build_system) applied once.
    live: list[tuple[int, int, list[int]]] = []  # (cell, need, covered neighbours)
    mines: set[int] = set()
    safe: set[int] = set()
    look = flat.__getitem__
    for i in numbers:
        if min(map(look, around[i]), default=0) >= 0:  # nothing hidden around: must be 0
            if flat[i]:
                return None  # (the array code names the first number that cannot be met)
            continue
        open_ = [j for j in around[i] if flat[j] == COVERED]
        need = flat[i] - flags_near[i]
        if need < 0 or need > len(open_):
            _fail(flat[i], coords[i], need, len(open_))
        if open_:
            live.append((i, need, open_))
            if need == len(open_):
                mines.update(open_)
            elif need == 0:
                safe.update(open_)
    if mines & safe:
        raise InconsistentBoardError(
            "a cell must be both a mine and safe", coords[min(mines & safe)]
        )
    if mines or safe:
        rest = []
        for i, need, open_ in live:
            left = []
            for j in open_:
                if j in mines:
                    need -= 1
                elif j not in safe:
                    left.append(j)
            if need < 0 or need > len(left):
                _fail(flat[i], coords[i], need, len(left))
            if left:
                rest.append((i, need, left))
        live = rest

    # A cell's group is the set of numbers around it; groups are numbered by first cell.
    seen_by: dict[int, list[int]] = {}
    for k, (_, _, open_) in enumerate(live):
        for j in open_:
            seen_by.setdefault(j, []).append(k)
    frontier = sorted(seen_by)
    group_tuples, members = frontier_groups(seen_by, len(live), coords)
    sizes = [len(group) for group in group_tuples]
    settled = []
    for where, mine in ((safe, 0), (mines, 1)):
        if where:
            settled.append((len(sizes), mine * len(where)))
            sizes.append(len(where))
            group_tuples.append(tuple(coords[j] for j in sorted(where)))
    unconstrained = covered.copy()
    unconstrained.reshape(-1)[[*frontier, *mines, *safe]] = False
    return System(
        sizes=sizes,
        cells=group_tuples,
        constraints=[(tuple(m), need) for m, (_, need, _) in zip(members, live, strict=True)],
        numbers=[coords[i] for i, _, _ in live],
        unconstrained=unconstrained,
        remaining=remaining,
        settled=settled,
    )


@lru_cache(maxsize=16)
def _neighbours(rows: int, cols: int) -> tuple[list[tuple[int, ...]], list[Cell]]:
    """Row-major index of each cell's neighbours (in the order of ``_DIRS``), and each
    index's ``(row, col)``."""
    around = []
    for r in range(rows):
        for c in range(cols):
            around.append(
                tuple(
                    (r + dr) * cols + c + dc
                    for dr, dc in _DIRS
                    if 0 <= r + dr < rows and 0 <= c + dc < cols
                )
            )
    return around, [divmod(i, cols) for i in range(rows * cols)]


def _fail(value: int, cell: Cell, need: int, open_nb: int) -> None:
    raise InconsistentBoardError(
        f"the {value} cannot be satisfied (it still needs {need} mines among {open_nb} open "
        "neighbours)",
        cell,
    )


def _check(
    flat: np.ndarray, numbers: np.ndarray, need: np.ndarray, open_nb: np.ndarray, width: int
) -> None:
    """Raises on the first number that needs more mines than it has open cells, or fewer
    than zero (the error names its cell)."""
    bad = (need < 0) | (need > open_nb)
    if bad.any():
        i = int(np.argmax(bad))
        r, c = divmod(int(numbers[i]), width)
        _fail(int(flat[numbers[i]]), (r - 1, c - 1), int(need[i]), int(open_nb[i]))


def frontier_groups(
    seen_by: dict[int, list[int]], n_numbers: int, coords: Sequence[Cell]
) -> tuple[list[tuple[Cell, ...]], list[list[int]]]:
    """Frontier cells grouped by the numbers around them (a group per set of numbers).

    Args:
        seen_by: For each frontier cell (a row-major index), its numbers in ascending order.
        n_numbers: How many numbers there are.
        coords: The ``(row, col)`` of each row-major index.

    Returns:
        The cells of each group, groups numbered by their first cell (row-major), and each
        number's groups in ascending order.
    """
    group_of: dict[tuple[int, ...], int] = {}
    groups: list[list[Cell]] = []
    members: list[list[int]] = [[] for _ in range(n_numbers)]
    for k in sorted(seen_by):
        key = tuple(seen_by[k])
        g = group_of.get(key)
        if g is None:
            g = group_of[key] = len(groups)
            groups.append([])
            for number in key:
                members[number].append(g)
        groups[g].append(coords[k])
    return [tuple(group) for group in groups], members
