"""``best``: exact inference plus a look-ahead guess, the strongest built-in player.

When no cell is certainly safe, in order:

1. **Forced 50/50s first.** Two cells holding exactly one mine between them, with no other
   unknown neighbour, can never be told apart by later clicks: the coin must be tossed
   anyway, and tossing it now wastes no other risk.
2. **Exact game-tree search** when few mine layouts remain (``tree_layouts``): the layouts
   are enumerated and the click that maximises the exact probability of winning is chosen.
3. **Look-ahead.** Candidates are the cells whose safety is within ``tolerance`` (relative)
   of the safest (plus a few unconstrained representatives). Each candidate is probed: for
   every number it could show, the position is solved again, which gives how likely that
   number is, whether some cell then becomes certain (*progress*; a zero always does), and
   the safety of the best next click. The score is the chance of surviving this click and
   the next (*secondary safety*) plus ``progress_weight`` times the progress probability.
   A *dead* cell (one whose number is already determined) teaches nothing, so it is taken
   only when every candidate is dead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..board import COVERED, FLAG, Board, neighbour_sum
from ..errors import InconsistentBoardError
from ..probabilities import Solution
from ..solver import solve
from .base import Cell, cells_of
from .csp import CspPlayer
from .endgame import solve_endgame

_OFFSETS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def neighbours(cell: Cell, rows: int, cols: int) -> list[Cell]:
    r, c = cell
    return [(r + dr, c + dc) for dr, dc in _OFFSETS if 0 <= r + dr < rows and 0 <= c + dc < cols]


@dataclass(frozen=True)
class Probe:
    """What clicking a cell may lead to.

    Attributes:
        cell: The probed cell.
        safety: Probability the cell is safe.
        survive2: Probability of surviving this click and the safest next one.
        progress: Probability the click is safe and makes some cell certain.
        dead: The cell's number is already determined (it would teach nothing).
    """

    cell: Cell
    safety: float
    survive2: float
    progress: float
    dead: bool


class BestPlayer(CspPlayer):
    """Exact inference, forced 50/50s early, endgame search, look-ahead guesses.

    Args:
        backend: Counting backend name.
        tolerance: Candidates have safety at least ``(1 - tolerance)`` times the best.
        max_candidates: Most cells probed per guess.
        progress_weight: Weight of the progress probability in the score.
        tree_layouts: Run the exact game-tree search when at most this many layouts remain.
    """

    name = "best"

    def __init__(
        self,
        backend: str = "dss",
        tolerance: float = 0.05,
        max_candidates: int = 8,
        progress_weight: float = 0.1,
        tree_layouts: int = 30,
    ):
        super().__init__(backend)
        self.tolerance = tolerance
        self.max_candidates = max_candidates
        self.progress_weight = progress_weight
        self.tree_layouts = tree_layouts

    def guess(self, board: Board, solution: Solution, rng: np.random.Generator) -> Cell:
        flagged = self.memory.flagged(board)
        pair = forced_pair(flagged, solution)
        if pair is not None:
            return pair
        if solution.weight <= self.tree_layouts:
            move = solve_endgame(flagged, self.tree_layouts)
            if move is not None:
                return move[0]
        probes = [
            self.probe(flagged, solution, cell) for cell in self.candidates(flagged, solution)
        ]
        live = [p for p in probes if not p.dead] or probes
        best = max(
            live,
            key=lambda p: (
                p.survive2 + self.progress_weight * p.progress,
                p.safety,
                (-p.cell[0], -p.cell[1]),
            ),
        )
        return best.cell

    def candidates(self, board: Board, solution: Solution) -> list[Cell]:
        """Near-safest cells, safest first; unconstrained cells by a few representatives."""
        safety = 1.0 - solution.probabilities
        unknown = self.memory.unknown(board)
        bound = (1.0 - self.tolerance) * np.nanmax(np.where(unknown, safety, np.nan))
        frontier: list[tuple[float, Cell]] = []
        free: list[Cell] = []
        for odd in solution.odds:
            value = 1.0 - odd.num / odd.den
            if value < bound:
                continue
            if isinstance(odd.cells, np.ndarray):
                free = representatives(board, odd.cells & unknown)
            else:
                frontier.extend((value, cell) for cell in odd.cells if unknown[cell])
        frontier.sort(key=lambda vc: (-vc[0], vc[1]))
        cells = [cell for _, cell in frontier[: self.max_candidates]] + free
        return cells or cells_of(unknown)[:1]

    def probe(self, board: Board, solution: Solution, cell: Cell) -> Probe:
        """Solves the position once per number ``cell`` could show."""
        rows, cols = board.shape
        nbrs = neighbours(cell, rows, cols)
        known = sum(1 for n in nbrs if board.cells[n] == FLAG)
        open_ = sum(1 for n in nbrs if board.cells[n] == COVERED)
        total = solution.weight
        safe_weight = survive = progress = 0
        outcomes = 0
        for value in range(known, known + open_ + 1):
            cells = board.cells.copy()
            cells[cell] = value
            try:
                after = solve(Board(cells, board.mines), self.backend)
            except InconsistentBoardError:
                continue
            weight = after.weight
            if not weight:
                continue
            outcomes += 1
            safe_weight += weight
            if after.safe:
                progress += weight
                survive += weight
            else:
                survive += weight * max(1 - o.num / o.den for o in after.odds)
        return Probe(cell, safe_weight / total, survive / total, progress / total, outcomes <= 1)


def representatives(board: Board, mask: np.ndarray, count: int = 3) -> list[Cell]:
    """A few unconstrained cells: those with the fewest unknown neighbours (corners first)."""
    unknown_nb = neighbour_sum(board.cells == COVERED)
    idx = np.argwhere(mask)
    if not len(idx):
        return []
    order = np.lexsort((idx[:, 1], idx[:, 0], unknown_nb[mask]))
    return [(int(r), int(c)) for r, c in idx[order[:count]]]


def forced_pair(board: Board, solution: Solution) -> Cell | None:
    """A cell of a forced 50/50: two cells, one mine, no other unknown neighbour.

    Isolated cells are touched only by numbers whose other neighbours are known, so two of
    them at probability 1/2 share their numbers: they form one group (one ``CellOdds``) whose
    mine count is fixed at one, and no later click can tell them apart.
    """
    rows, cols = board.shape
    for odd in solution.odds:
        cells = odd.cells
        if isinstance(cells, np.ndarray) or len(cells) != 2 or 2 * odd.num != odd.den:
            continue
        isolated = all(
            board.cells[n] != COVERED or n in cells
            for cell in cells
            for n in neighbours(cell, rows, cols)
        )
        if isolated:
            return cells[0]
    return None
