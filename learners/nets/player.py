"""The ``learner:PATH`` player: a trained model's probabilities drive the moves.

Each turn it reveals every covered cell the model is confident is safe (predicted mine
probability below ``safe_below``), safest first; when there is none it reveals the single
cell with the lowest predicted probability. Inference is jit-compiled once per board size
and works on batches (:meth:`LearnerPlayer.probabilities_batch`), which the batched
evaluation loop uses to play many games in lockstep.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from mscsp.board import COVERED
from mscsp.players.base import Cell, Player

from ..artefacts import DEFAULT_MODEL, model_path
from ..classic.data import perimeter
from .data import encode

#: Predicted probability under which a cell counts as safe and is revealed without a re-think.
SAFE_BELOW = 0.02


def choose_moves(
    probs: np.ndarray, cells: np.ndarray, safe_below: float = SAFE_BELOW
) -> list[tuple[int, int]]:
    """Cells to reveal given predicted probabilities: confident-safe ones, else the lowest.

    Args:
        probs: Predicted mine probability per cell (rows x cols).
        cells: The board's cell codes; only covered cells (-1) are candidates.
        safe_below: Threshold for a confident-safe cell.
    """
    covered = cells == -1
    if not covered.any():
        return []
    p = np.where(covered, probs, np.inf)
    order = np.argsort(p, axis=None, kind="stable")
    n_safe = int((p < safe_below).sum())
    picks = order[: max(n_safe, 1)]
    return [(int(i) // cells.shape[1], int(i) % cells.shape[1]) for i in picks]


class LearnerPlayer(Player):
    """Plays with a trained model's predicted mine probabilities.

    ``mscsp play --strategy learner:PATH`` builds one through :mod:`learners.registry`
    (``PATH`` may be ``default``); ``-o safe_below=X`` sets the option.

    Args:
        path: A ``model.msgpack`` file, a run directory, or ``"default"``.
        safe_below: Predicted probability under which cells are revealed in bulk.
        iterations: For a recurrent model (config ``recur``), how many times its shared
            block runs (``None``: as trained); more reach farther on large boards.

    Raises:
        InvalidInputError: ``iterations`` for a model that does not iterate, or below 1.

    Attributes:
        predict: Jit-compiled ``encoded batch -> probabilities`` (see
            :func:`learners.nets.train.make_predict`).
        inputs: Extra inputs the model reads (:mod:`learners.nets.channels`): never the solver's
            counting, only cheap exact facts such as the deterministic reductions.
    """

    name: ClassVar[str] = "learner"

    def __init__(
        self,
        path: str = DEFAULT_MODEL,
        safe_below: float = SAFE_BELOW,
        iterations: int | None = None,
    ):
        from .models import config_inputs, set_iterations
        from .train import load_model, make_predict

        self.path = model_path(path)
        self.model, self.config, self.meta = load_model(self.path)
        if iterations is not None:
            set_iterations(self.model, iterations)
        self.predict = make_predict(self.model)
        self.inputs = config_inputs(self.config)
        self.safe_below = safe_below

    def probabilities_batch(self, cells: np.ndarray, mines: np.ndarray | int) -> np.ndarray:
        """Predicted mine probabilities for a batch of same-size positions."""
        return np.asarray(self.predict(encode(cells, mines, self.inputs)))

    def probabilities(self, board: Any) -> np.ndarray:
        """Predicted mine probabilities of one :class:`mscsp.Board` (rows x cols)."""
        return self.probabilities_batch(board.cells, board.mines)[0]

    def new_game(self) -> None:
        """Nothing to reset: the player is stateless between turns."""

    def moves_from(self, probs: np.ndarray, cells: np.ndarray) -> list[Cell]:
        """This player's move rule on predicted probabilities: :func:`choose_moves`.

        Batched play (:func:`learners.nets.evaluate.play_lockstep`) and on-policy rounds
        (:mod:`learners.nets.onpolicy`) call it with probabilities they computed for many
        positions at once; :meth:`next_moves` is it on one board.
        """
        return choose_moves(probs, cells, self.safe_below)

    def next_moves(self, board: Any, rng: np.random.Generator | None = None) -> list[Cell]:
        """Cells to reveal this turn, in order (``rng`` is unused: play is deterministic)."""
        probs = self.probabilities(board)
        moves = self.moves_from(probs, board.cells)
        # A turn of confident-safe cells is no guess; a cell above the threshold is one.
        self.turn_guesses = int(bool(moves) and probs[moves[0]] >= self.safe_below)
        return moves


class LowestCellPlayer(LearnerPlayer):
    """The seed papers' move rule: one cell per turn, the one the model finds least likely a mine.

    The candidates are the perimeter (covered cells next to a revealed one: seed 000's
    bordering cells, seed 002's perimeter) when :attr:`perimeter_first` and it is not empty,
    else every covered cell. No bulk reveal of confident-safe cells: the papers click one.
    """

    #: Whether the candidates are the perimeter (else every covered cell).
    perimeter_first: ClassVar[bool] = True

    def moves_from(self, probs: np.ndarray, cells: np.ndarray) -> list[Cell]:
        """The lowest-probability candidate (none on a board without a covered cell)."""
        covered = cells == COVERED
        pool = perimeter(cells) if self.perimeter_first else covered
        if not pool.any():
            pool = covered
        if not pool.any():
            return []
        index = int(np.argmin(np.where(pool, probs, np.inf)))
        return [divmod(index, cells.shape[1])]
