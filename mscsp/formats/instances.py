"""Cell-level systems: what an exported instance states, independent of the file format.

A component is stated over *groups* of interchangeable cells; a solver outside mscsp counts
cell layouts, so every group of ``s`` cells becomes ``s`` Boolean variables and each
constraint lists its cells. The counts are those of the default backend (``dss``): exact
Python integers, the number of cell layouts by mine number.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from ..board import Board
from ..constraints import Cell, Component, build_system
from ..probabilities import multiply
from ..reduce import reduce_system
from ..runtime.deadline import Deadline

if TYPE_CHECKING:
    from ..backends.base import Backend

#: How an export splits a position: one system per component, or the whole frontier.
PER = ("component", "position")


class CellSystem(NamedTuple):
    """Constraints over cell variables ``1..cells``, and their exact layout counts.

    Attributes:
        cells: Number of cell variables.
        constraints: ``(cell variables, mines)``: exactly ``mines`` of these cells are mines.
        counts: ``counts[k]``: layouts of the cells with exactly ``k`` mines.
        board_cells: The board cell ``(row, col)`` of variable ``i + 1``.
        component: The component's index in its position (``None``: the whole frontier).
    """

    cells: int
    constraints: tuple[tuple[tuple[int, ...], int], ...]
    counts: tuple[int, ...]
    board_cells: tuple[Cell, ...]
    component: int | None

    def mine_numbers(self) -> range:
        """The mine numbers from the fewest to the most any layout holds (a number in
        between may have no layout: its instance is unsatisfiable, count 0)."""
        held = [k for k, n in enumerate(self.counts) if n]
        return range(held[0], held[-1] + 1) if held else range(0)

    def weighted(self, weight: int) -> int:
        """``sum_k counts[k] * weight**k``: the weighted count with ``weight`` per mine."""
        return sum(n * weight**k for k, n in enumerate(self.counts))


def cell_system(component: Component, counts: tuple[int, ...], index: int | None) -> CellSystem:
    """The component over its cells: cell ``j`` of group ``g`` is variable ``first[g] + j``."""
    first = [1]
    for size in component.sizes[:-1]:
        first.append(first[-1] + size)
    constraints = tuple(
        (tuple(first[g] + j for g in groups for j in range(component.sizes[g])), mines)
        for groups, mines in component.constraints
    )
    board_cells = tuple(cell for group in component.cells for cell in group)
    return CellSystem(component.n_cells, constraints, counts, board_cells, index)


def joined(systems: list[CellSystem]) -> CellSystem:
    """Independent systems as one, variables renumbered in turn; the counts multiply as
    polynomials in the number of mines."""
    offset = 0
    constraints: list[tuple[tuple[int, ...], int]] = []
    counts: list[int] = [1]
    board_cells: list[Cell] = []
    for system in systems:
        constraints += [(tuple(v + offset for v in vs), t) for vs, t in system.constraints]
        counts = multiply(counts, system.counts)
        board_cells += system.board_cells
        offset += system.cells
    return CellSystem(offset, tuple(constraints), tuple(counts), tuple(board_cells), None)


def position_systems(
    board: Board, counter: Backend, per: str, time_limit: float | None = None
) -> Iterator[CellSystem]:
    """The cell systems of a position, built as :func:`mscsp.solve` builds its components.

    Args:
        board: The position.
        counter: The backend that counts each component (exact).
        per: ``component`` (one system each) or ``position`` (the components joined).
            Either way the groups the rules decide (a group of 3 cells holding exactly 1
            mine whatever else holds: ``C(3, 1)`` layouts, no search), the cells next to
            no number and the board's mine total are left out, as :func:`mscsp.solve`
            counts only the components.
        time_limit: Seconds for the position, every stage (``None``: no limit).

    Raises:
        InconsistentBoardError: The numbers admit no layout.
        SolverLimitError: The time limit was hit.
    """
    deadline = Deadline(time_limit)
    reduction = reduce_system(build_system(board, deadline), deadline)
    systems = []
    with deadline.applied():
        for index, component in enumerate(reduction.components):
            deadline.check()
            systems.append(cell_system(component, counter.count(component).counts, index))
    if per == "position":
        yield joined(systems)
    else:
        yield from systems
