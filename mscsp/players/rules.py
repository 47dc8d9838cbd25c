"""``rules``: two flag/clear rules plus exhaustive search (seed 002, section 2.1.1).

Rule 1 flags the covered neighbours of a number that needs all of them; rule 2 clears the
neighbours of a number whose flags match it. When both are stuck, an exhaustive search of the
frontier (every mine assignment consistent with the numbers, counted exactly by the
backend) gives each frontier tile the fraction of assignments in which it holds a mine. As
in the report, the search is local: it ignores the total mine count, and it only ranks
frontier tiles. The guess is the frontier tile least often a mine; with no frontier, a
random covered tile.
"""

from __future__ import annotations

import numpy as np

from ..backends import get_backend
from ..board import Board
from ..constraints import build_system
from ..reduce import reduce_system
from .base import Cell, MineMemory, Player, cells_of


class RulesPlayer(Player):
    """Seed 002's rule solver.

    Args:
        backend: Counting backend for the exhaustive search.
    """

    name = "rules"

    def __init__(self, backend: str = "dss"):
        self.backend = get_backend(backend)
        self.memory = MineMemory()

    def new_game(self) -> None:
        self.memory.reset()

    def next_moves(self, board: Board, rng: np.random.Generator) -> list[Cell]:
        safe = self.memory.single_point(board)
        self.turn_guesses = 0
        if safe:
            return safe
        frequencies = self.search(board)
        safe = [cell for cell, p in frequencies.items() if p == 0]
        self.memory.add([cell for cell, p in frequencies.items() if p == 1])
        if safe:
            return sorted(safe)
        self.turn_guesses = 1
        if frequencies:
            return [min(frequencies, key=lambda cell: (frequencies[cell], cell))]
        options = cells_of(self.memory.unknown(board))
        return [options[int(rng.integers(len(options)))]]

    def search(self, board: Board) -> dict[Cell, float]:
        """Fraction of frontier assignments with a mine on each frontier cell."""
        system = build_system(self.memory.flagged(board))
        reduction = reduce_system(system)
        frequencies: dict[Cell, float] = {}
        for g, mines in reduction.fixed:
            for cell in system.cells[g]:
                frequencies[cell] = mines / system.sizes[g]
        for component in reduction.components:
            count = self.backend.count(component)
            total = count.total
            for cells, per_k in zip(component.cells, count.cell_counts, strict=True):
                for cell in cells:
                    frequencies[cell] = sum(per_k) / total
        return frequencies
