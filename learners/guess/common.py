"""Shared by seed 004's heuristics: candidates, state-action features, recorded games.

Training games follow section 5.2: boards with ``p`` from 5 up (we stop at 16 rows for a
2-core machine, the paper at 30), ``q`` from ``p / 2`` to ``p`` and mine ratios from 5 % to
25 %, played by a CSP player; at every guess the candidates are recorded with the truth of
the hidden layout.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass

import numpy as np

from mscsp import Board, Game
from mscsp.players.base import Cell, dilate
from mscsp.players.csp import CspPlayer, edge_heuristic, zero_score
from mscsp.probabilities import Solution

from ..artefacts import episode_seed

#: Section 4.2.1: candidates lie within this of the lowest mine probability.
TOLERANCE = 0.05
#: Random covered cells added to the boundary cells in the training rows (section 4.2.2).
RANDOM_EXTRA = 3
FEATURES = (
    "rows",
    "cols",
    "density",
    "row",
    "col",
    "probability",
    "boundary_size",
    "min_index",
    "is_min",
    "score",
    "density_left",
    "covered_share",
)


@dataclass
class GuessState:
    """What a guess saw: the board, exact probabilities, unknown cells, known mines."""

    board: Board
    probs: np.ndarray
    unknown: np.ndarray
    known_mines: int


def near_minimum(state: GuessState, tolerance: float = TOLERANCE) -> np.ndarray:
    """Flat indices of ``B_s``: unknown cells within ``tolerance`` of the lowest probability."""
    probs = np.where(state.unknown, state.probs, np.inf).ravel()
    return np.flatnonzero(probs <= probs.min() + tolerance)


def training_candidates(state: GuessState, rng: np.random.Generator) -> np.ndarray:
    """Section 4.2.2's rows: the boundary cells plus three random other unknown cells."""
    unknown = state.unknown
    boundary = unknown & dilate(state.board.cells >= 0)
    others = np.flatnonzero(unknown & ~boundary)
    extra = rng.choice(others, min(RANDOM_EXTRA, len(others)), replace=False)
    return np.concatenate([np.flatnonzero(boundary), np.sort(extra)]).astype(np.int64)


def features(state: GuessState, cells: np.ndarray) -> np.ndarray:
    """The state-action features of section 4.2.2 for candidate ``cells`` (flat indices).

    Board size, mine density, candidate coordinates, its exact probability, the size of the
    boundary (the paper's ``M``), the index of the lowest-probability cell and whether this
    is it, equation (4)'s score, the density of the mines left and the covered share, all
    scaled to about [0, 1] (:data:`FEATURES` names the columns).
    """
    board = state.board
    rows, cols = board.shape
    n = rows * cols
    probs = np.where(state.unknown, state.probs, np.inf).ravel()
    lowest = int(np.argmin(probs))
    boundary = int((state.unknown & dilate(board.cells >= 0)).sum())
    covered = int(state.unknown.sum())
    score = zero_score(board, covered, state.known_mines).ravel()
    r, c = np.divmod(cells, cols)
    k = len(cells)
    return np.column_stack(
        [
            np.full(k, rows / 30),
            np.full(k, cols / 30),
            np.full(k, board.mines / n),
            r / max(rows - 1, 1),
            c / max(cols - 1, 1),
            probs[cells],
            np.full(k, boundary / n),
            np.full(k, lowest / n),
            (cells == lowest).astype(float),
            score[cells],
            np.full(k, (board.mines - state.known_mines) / max(covered, 1)),
            np.full(k, covered / n),
        ]
    ).astype(np.float32)


class GuessPlayer(CspPlayer):
    """A CSP player whose guess is :meth:`choose` on the state; the state is kept.

    Attributes:
        last: The :class:`GuessState` of the latest guess (read by the data collectors).
    """

    def __init__(self, backend: str = "dss"):
        super().__init__(backend)
        self.last: GuessState | None = None

    def guess(self, board: Board, solution: Solution, rng: np.random.Generator) -> Cell:
        known = self.memory.known(board)
        self.last = GuessState(
            board, solution.probabilities, self.memory.unknown(board), int(known.sum())
        )
        return divmod(int(self.choose(self.last, rng)), board.cols)

    @abstractmethod
    def choose(self, state: GuessState, rng: np.random.Generator) -> int:
        """The flat index of the cell to try."""


class RankingPlayer(GuessPlayer):
    """Picks the candidate of ``B_s`` that :meth:`rank` scores highest."""

    def choose(self, state: GuessState, rng: np.random.Generator) -> int:
        cells = near_minimum(state)
        return int(cells[int(np.argmax(self.rank(state, cells)))])

    @abstractmethod
    def rank(self, state: GuessState, cells: np.ndarray) -> np.ndarray:
        """A score per candidate; higher is better."""


class EdgePlayer(GuessPlayer):
    """Version 4.0 (``csp-edge``) as a :class:`GuessPlayer`: the base heuristic of 004."""

    name = "csp-edge"

    def choose(self, state: GuessState, rng: np.random.Generator) -> int:
        r, c = edge_heuristic(state.board, state.probs, state.unknown, state.known_mines)
        return r * state.board.cols + c


@dataclass
class Recorded:
    """One guess of a recorded game: its state, the chosen cell, cells revealed before."""

    state: GuessState
    chosen: int
    revealed_before: int


def random_board(rng: np.random.Generator, max_rows: int = 16) -> tuple[int, int, int]:
    """A training board of section 5.2 (``p`` in 5..max_rows, ``q`` in p/2..p, 5-25 % mines)."""
    rows = int(rng.integers(5, max_rows + 1))
    cols = int(rng.integers((rows + 1) // 2, rows + 1))
    mines = max(1, round(rows * cols * rng.uniform(0.05, 0.25)))
    return rows, cols, min(mines, rows * cols - 1)


def play_recorded(
    player: GuessPlayer, rows: int, cols: int, mines: int, seed: int
) -> tuple[Game, list[Recorded]]:
    """Plays one game (first click a corner), recording every guess."""
    rng = np.random.default_rng([seed, 1])
    game = Game(rows, cols, mines, seed=[seed, 0])
    player.new_game()
    game.reveal(0, 0)
    record: list[Recorded] = []
    while not game.over:
        before = game.revealed
        moves = player.next_moves(game.board(), rng)
        if player.turn_guesses:
            r, c = moves[0]
            record.append(Recorded(player.last, r * cols + c, before))
        for r, c in moves:
            game.reveal(r, c)
            if game.over:
                break
    return game, record


def classification_rows(
    player: GuessPlayer, games: int, seed: int, offset: int = 0, progress=None
) -> tuple[np.ndarray, np.ndarray]:
    """Section 4.2.2's data: features of the training candidates at every guess, and labels.

    A label is 1 when the cell holds no mine in the hidden layout. Game ``g`` (counted from
    ``offset``) draws its board and layout from ``episode_seed(seed, g)``.
    """
    xs, ys = [], []
    for g in range(offset, offset + games):
        game_seed = episode_seed(seed, g)
        rng = np.random.default_rng([game_seed, 2])
        game, record = play_recorded(player, *random_board(rng), game_seed)
        for rec in record:
            cells = training_candidates(rec.state, rng)
            xs.append(features(rec.state, cells))
            ys.append(~game.mine.ravel()[cells])
        if progress is not None:
            progress.update(g + 1 - offset)
    if not xs:
        return np.zeros((0, len(FEATURES)), np.float32), np.zeros(0, bool)
    return np.concatenate(xs), np.concatenate(ys)
