"""From a board to its constraint system: frontier, groups, components.

Cells touching exactly the same set of revealed numbers are interchangeable, so the system is
stated over *groups* of cells: a group of ``n`` cells holds ``x`` mines in ``C(n, x)`` ways.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .board import COVERED, FLAG, Board, neighbour_sum
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

    One constraint per revealed number next to covered cells: ``matrix[c] @ x == targets[c]``
    where ``x[g]`` is the number of mines in group ``g``.

    Attributes:
        sizes: Cells per frontier group.
        cells: Board cells of each group, row-major.
        matrix: 0/1 array (constraints x groups): which groups each number touches.
        targets: Mines each number still needs (flags subtracted).
        numbers: ``(row, col)`` of each constraint's number.
        unconstrained: Mask of covered cells next to no revealed number.
        remaining: Mines not yet flagged.
    """

    sizes: np.ndarray
    cells: list[tuple[Cell, ...]]
    matrix: np.ndarray
    targets: np.ndarray
    numbers: np.ndarray
    unconstrained: np.ndarray
    remaining: int

    @property
    def constraints(self) -> list[tuple[tuple[int, ...], int]]:
        """``(group indices, mines)`` per constraint."""
        return [
            (tuple(np.flatnonzero(row).tolist()), int(t))
            for row, t in zip(self.matrix, self.targets, strict=True)
        ]

    @property
    def frontier(self) -> list[Cell]:
        """Covered cells next to at least one revealed number."""
        return [cell for group in self.cells for cell in group]

    @property
    def n_unconstrained(self) -> int:
        return int(np.count_nonzero(self.unconstrained))


# The 8 neighbour directions in row-major order, so the first one present in a mask is the
# top-most, left-most neighbour.
_DIRS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def _signature_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per 8-bit mask of neighbouring numbers: the anchor direction and the set's shape.

    A cell's group is the set of numbers around it. That set is named exactly by its anchor
    (its first number in row-major order) and the 15-bit pattern of the others relative to
    the anchor in the 3x5 window they must lie in.
    """
    anchor_dr = np.zeros(256, dtype=np.int64)
    anchor_dc = np.zeros(256, dtype=np.int64)
    shape = np.zeros(256, dtype=np.int64)
    for mask in range(1, 256):
        present = [d for d in range(8) if mask >> d & 1]
        dr0, dc0 = _DIRS[present[0]]
        anchor_dr[mask], anchor_dc[mask] = dr0, dc0
        for d in present:
            dr, dc = _DIRS[d]
            shape[mask] |= 1 << ((dr - dr0) * 5 + (dc - dc0 + 2))
    return anchor_dr, anchor_dc, shape


_ANCHOR_DR, _ANCHOR_DC, _SHAPE = _signature_tables()


def build_system(board: Board) -> System:
    """States the board's constraints over groups of interchangeable frontier cells.

    Raises:
        InconsistentBoardError: A number has more flags around it than its value, or fewer
            covered cells than it still needs.
    """
    cells = board.cells
    rows, cols = cells.shape
    covered = cells == COVERED
    flags = cells == FLAG
    # One neighbour sum gives both counts: covered cells in the low byte, flags above it.
    both = neighbour_sum(covered.view(np.int8) + (flags.view(np.int8) << 4))
    covered_nb = both & 15
    need = cells - (both >> 4)
    numbers = cells >= 0
    bad = numbers & ((need < 0) | (need > covered_nb))
    if bad.any():
        r, c = (int(v) for v in np.argwhere(bad)[0])
        raise InconsistentBoardError(
            f"the {int(cells[r, c])} cannot be satisfied ({int(cells[r, c]) - int(need[r, c])} "
            f"flags and {int(covered_nb[r, c])} covered neighbours)",
            (r, c),
        )
    remaining = board.mines - int(flags.sum())
    if remaining < 0:
        raise InconsistentBoardError(f"{int(flags.sum())} flags but only {board.mines} mines")

    # Work on a padded board so every neighbour index is valid.
    width = cols + 2
    active = np.zeros((rows + 2, width), dtype=bool)
    active[1:-1, 1:-1] = numbers & (covered_nb > 0)
    pad_covered = np.zeros((rows + 2, width), dtype=bool)
    pad_covered[1:-1, 1:-1] = covered
    offsets = np.array([dr * width + dc for dr, dc in _DIRS])
    numbers_at = np.flatnonzero(active)
    around = numbers_at[:, None] + offsets
    number_idx, direction = np.nonzero(pad_covered.ravel()[around])
    pair_cell = around[number_idx, direction]

    # Mask of neighbouring numbers per frontier cell (a number in direction d from the cell
    # sees the cell from direction 7 - d), then an exact group signature from it.
    frontier, cell_of_pair = np.unique(pair_cell, return_inverse=True)
    mask = np.zeros(len(frontier), dtype=np.int64)
    np.bitwise_or.at(mask, cell_of_pair, 1 << (7 - direction))
    anchor = frontier + _ANCHOR_DR[mask] * width + _ANCHOR_DC[mask]
    signature = anchor * 32768 + _SHAPE[mask]
    _, group_of_cell = np.unique(signature, return_inverse=True)
    n_groups = int(group_of_cell.max()) + 1 if len(frontier) else 0

    fr = (frontier // width - 1).tolist()
    fc = (frontier % width - 1).tolist()
    group_cells: list[list[Cell]] = [[] for _ in range(n_groups)]
    for i, g in enumerate(group_of_cell.tolist()):  # frontier is sorted: cells stay row-major
        group_cells[g].append((fr[i], fc[i]))

    matrix = np.zeros((len(numbers_at), n_groups), dtype=np.int64)
    matrix[number_idx, group_of_cell[cell_of_pair]] = 1
    ar, ac = np.nonzero(active[1:-1, 1:-1])
    unconstrained = covered.copy()
    unconstrained[fr, fc] = False
    return System(
        sizes=np.bincount(group_of_cell, minlength=n_groups),
        cells=[tuple(g) for g in group_cells],
        matrix=matrix,
        targets=need[ar, ac].astype(np.int64),
        numbers=np.stack([ar, ac], axis=1),
        unconstrained=unconstrained,
        remaining=remaining,
    )
