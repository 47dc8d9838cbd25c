"""``csp-limited``: limited traversal of the solution tree (seed 004, versions 3.5 and 4.5).

DSS propagation (and the subset rule) still proves every cell it can, exactly. For the rest,
instead of counting all solutions, a randomised depth-first search collects at most
``max_solutions`` solutions of each component and visits at most ``max_nodes`` tree edges
(the paper caps solutions at 100 and depth at 300); the mine probability of a cell is its
frequency in the sample (equation (3)). Smaller caps play faster and guess worse.
"""

from __future__ import annotations

from math import comb

import numpy as np

from ..board import Board
from ..constraints import Component, build_system
from ..reduce import reduce_system
from .base import Cell, MineMemory, Player
from .csp import edge_heuristic


def sample_component(
    component: Component, rng: np.random.Generator, max_solutions: int, max_nodes: int
) -> list[tuple[tuple[int, ...], int]]:
    """Solutions of a component found by a randomised, capped depth-first search.

    Groups are assigned in order; each tries its feasible mine counts in random order.

    Returns:
        ``(mines per group, number of cell-level solutions it stands for)`` pairs.
    """
    sizes = component.sizes
    cons_of: list[list[int]] = [[] for _ in sizes]
    for ci, (groups, _) in enumerate(component.constraints):
        for g in groups:
            cons_of[g].append(ci)
    residual = [t for _, t in component.constraints]
    capacity = [sum(sizes[g] for g in groups) for groups, _ in component.constraints]
    xs = [0] * len(sizes)
    found: list[tuple[tuple[int, ...], int]] = []
    budget = [max_nodes]

    def dfs(g: int, weight: int) -> None:
        if g == len(sizes):
            found.append((tuple(xs), weight))
            return
        size, cons = sizes[g], cons_of[g]
        lo = max([0] + [residual[c] - (capacity[c] - size) for c in cons])
        hi = min([size] + [residual[c] for c in cons])
        for x in rng.permutation(np.arange(lo, hi + 1)).tolist():
            if len(found) >= max_solutions or budget[0] <= 0:
                return
            budget[0] -= 1
            for c in cons:
                residual[c] -= x
                capacity[c] -= size
            xs[g] = x
            dfs(g + 1, weight * comb(size, x))
            for c in cons:
                residual[c] += x
                capacity[c] += size

    dfs(0, 1)
    return found


class CspLimitedPlayer(Player):
    """Exact propagation, sampled probabilities (seed 004 version 3.5; 4.5 with ``edge``).

    Args:
        max_solutions: Solutions sampled per component (100 in the paper).
        max_nodes: Tree edges visited per component (300 in the paper).
        heuristic: ``"minprob"`` (version 3.5) or ``"edge"`` (version 4.5).
    """

    name = "csp-limited"

    def __init__(self, max_solutions: int = 100, max_nodes: int = 300, heuristic: str = "minprob"):
        if heuristic not in ("minprob", "edge"):
            raise ValueError(f"heuristic must be 'minprob' or 'edge', not {heuristic!r}")
        self.max_solutions = max_solutions
        self.max_nodes = max_nodes
        self.heuristic = heuristic
        self.memory = MineMemory()

    def new_game(self) -> None:
        self.memory.reset()

    def next_moves(self, board: Board, rng: np.random.Generator) -> list[Cell]:
        self.turn_guesses = 0
        safe = self.memory.single_point(board)
        if safe:
            return safe
        safe, probabilities = self.estimate(board, rng)
        if safe:
            return safe
        # A cell no sampled solution mines is still a guess: the sample may miss solutions.
        self.turn_guesses = 1
        unknown = self.memory.unknown(board)
        if self.heuristic == "edge":
            return [
                edge_heuristic(board, probabilities, unknown, int(self.memory.known(board).sum()))
            ]
        probs = np.where(unknown, probabilities, np.inf)
        r, c = divmod(int(np.argmin(probs)), board.cols)
        return [(r, c)]

    def estimate(self, board: Board, rng: np.random.Generator) -> tuple[list[Cell], np.ndarray]:
        """Proven-safe cells, and mine probabilities: exact where propagation decides,
        sampled elsewhere.

        Proven mines are remembered. Unconstrained cells share the mines the sample leaves.
        """
        system = build_system(self.memory.flagged(board))
        reduction = reduce_system(system)
        probs = np.full(board.shape, np.nan)
        expected = 0.0
        safe: list[Cell] = []
        for g, mines in reduction.fixed:
            cells = system.cells[g]
            if mines == len(cells):
                self.memory.add(list(cells))
            elif mines == 0:
                safe.extend(cells)
            for r, c in cells:
                probs[r, c] = mines / len(cells)
            expected += mines
        for component in reduction.components:
            sample = sample_component(component, rng, self.max_solutions, self.max_nodes)
            total = sum(w for _, w in sample)
            for g, cells in enumerate(component.cells):
                # Nothing found within the caps means no information: 0.5.
                p = sum(w * xs[g] for xs, w in sample) / (total * len(cells)) if total else 0.5
                for r, c in cells:
                    probs[r, c] = p
                expected += p * len(cells)
        free = system.unconstrained
        if free.any():
            probs[free] = min(max((system.remaining - expected) / free.sum(), 0.0), 1.0)
        return sorted(safe), probs
