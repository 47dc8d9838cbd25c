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

    Attributes:
        sizes: Cells per frontier group.
        cells: Board cells of each group.
        constraints: ``(group indices, mines)`` per revealed number next to covered cells.
        unconstrained: Mask of covered cells next to no revealed number.
        remaining: Mines not yet flagged.
    """

    sizes: list[int]
    cells: list[tuple[Cell, ...]]
    constraints: list[tuple[tuple[int, ...], int]]
    unconstrained: np.ndarray
    remaining: int

    @property
    def frontier(self) -> list[Cell]:
        """Covered cells next to at least one revealed number."""
        return [cell for group in self.cells for cell in group]

    @property
    def n_unconstrained(self) -> int:
        return int(np.count_nonzero(self.unconstrained))


_OFFSETS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


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
    covered_nb = neighbour_sum(covered)
    need = cells.astype(np.int16) - neighbour_sum(flags)
    numbers = cells >= 0
    bad = numbers & ((need < 0) | (need > covered_nb))
    if bad.any():
        r, c = (int(v) for v in np.argwhere(bad)[0])
        raise InconsistentBoardError(
            f"the {int(cells[r, c])} at row {r + 1}, column {c + 1} cannot be satisfied "
            f"({int(cells[r, c]) - int(need[r, c])} flags and {int(covered_nb[r, c])} covered "
            "neighbours)"
        )
    remaining = board.mines - int(flags.sum())
    if remaining < 0:
        raise InconsistentBoardError(f"{int(flags.sum())} flags but only {board.mines} mines")

    active = np.argwhere(numbers & (covered_nb > 0)).tolist()
    touching: dict[Cell, list[int]] = {}
    targets: list[int] = []
    for ci, (r, c) in enumerate(active):
        targets.append(int(need[r, c]))
        for dr, dc in _OFFSETS:
            rr, cc = r + dr, c + dc
            if 0 <= rr < rows and 0 <= cc < cols and covered[rr, cc]:
                touching.setdefault((rr, cc), []).append(ci)

    group_of: dict[tuple[int, ...], int] = {}
    group_cells: list[list[Cell]] = []
    members: list[list[int]] = [[] for _ in targets]
    for cell, cons in touching.items():
        key = tuple(cons)
        g = group_of.get(key)
        if g is None:
            g = group_of[key] = len(group_cells)
            group_cells.append([])
            for ci in cons:
                members[ci].append(g)
        group_cells[g].append(cell)

    frontier = np.zeros_like(covered)
    if touching:
        idx = np.array(list(touching))
        frontier[idx[:, 0], idx[:, 1]] = True
    return System(
        sizes=[len(g) for g in group_cells],
        cells=[tuple(g) for g in group_cells],
        constraints=[(tuple(m), t) for m, t in zip(members, targets, strict=True)],
        unconstrained=covered & ~frontier,
        remaining=remaining,
    )
