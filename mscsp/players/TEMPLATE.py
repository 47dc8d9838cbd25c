"""``template``: a new player, from this file (as CPMpy ships ``solvers/TEMPLATE.py``).

Copy this file to ``mscsp/players/<name>.py``, rename the class and :attr:`name`, write
your strategy in :meth:`TemplatePlayer.next_moves`, and add the class to ``PLAYERS`` in
``mscsp/players/__init__.py``; ``mscsp play -s NAME`` then plays it, and ``docs/players.md``
lists it. As it stands it is a complete player (``tests/test_templates.py`` copies it and
plays it): every certainly safe cell, else the covered cell least likely to be a mine, from
the exact odds.

What the harness expects (``mscsp/players/base.py``):

* :meth:`next_moves` returns the cells to reveal this turn, at least one while the game
  is on, and sets :attr:`turn_guesses` to how many of them are not certainly safe;
* every random choice uses the ``rng`` it is given (the same seed, the same games);
* keyword arguments of ``__init__`` are the player's options (``-o KEY=VALUE``).
"""

from __future__ import annotations

import numpy as np

from ..board import COVERED, Board
from ..solver import solve
from .base import Cell, Player


class TemplatePlayer(Player):
    """Opens every safe cell, else the covered cell with the lowest exact mine probability.

    Args:
        backend: The counting backend (a name of ``mscsp.backends.BACKENDS``).
    """

    name = "template"

    def __init__(self, backend: str = "dss"):
        self.backend = backend

    def next_moves(self, board: Board, rng: np.random.Generator) -> list[Cell]:
        solution = solve(board, backend=self.backend)
        if solution.safe:
            self.turn_guesses = 0
            return sorted(solution.safe)
        odds = np.where(board.cells == COVERED, solution.probabilities, np.inf)
        lowest = np.flatnonzero(odds == odds.min())
        pick = int(rng.choice(lowest))  # ties broken by the game's own random stream
        self.turn_guesses = 1
        return [divmod(pick, board.cols)]
