"""``sps``: the single point strategy with random guesses (seed 000, Algorithm 1)."""

from __future__ import annotations

import numpy as np

from ..board import Board
from .base import Cell, MineMemory, Player, cells_of


class SpsPlayer(Player):
    """Single point strategy: each number alone, no global reasoning.

    A number whose remaining mines equal its covered neighbours flags them all; a number
    whose flags already match it clears the rest. When neither applies anywhere, a random
    covered, unflagged cell is revealed (Algorithm 1, line 4).
    """

    name = "sps"

    def __init__(self) -> None:
        self.memory = MineMemory()

    def new_game(self) -> None:
        self.memory.reset()

    def next_moves(self, board: Board, rng: np.random.Generator) -> list[Cell]:
        safe = self.memory.single_point(board)
        self.turn_guesses = 0 if safe else 1
        if safe:
            return safe
        options = cells_of(self.memory.unknown(board))
        return [options[int(rng.integers(len(options)))]]
