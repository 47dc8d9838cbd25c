"""The ``learner:PATH`` player: a trained model's probabilities drive the moves.

Each turn it reveals every covered cell the model is confident is safe (predicted mine
probability below ``safe_below``), safest first; when there is none it reveals the single
cell with the lowest predicted probability. Inference is jit-compiled once per board size
and works on batches (:meth:`LearnerPlayer.probabilities_batch`), which the batched
evaluation loop uses to play many games in lockstep.

With ``symmetric`` (the default of ``learner``) every prediction is the mean over the board's
symmetries: the 4 flips of a rectangular board, 8 views of a square one. Minesweeper's exact
probabilities are invariant under them; a net's errors are not, so averaging the views cancels
part of them (on held-out expert positions it cut v3's mean loss per guess against the exact
minimum by a fifth, docs/learners.md). Covered cells next to the same revealed numbers are
exchangeable, so ``learner`` gives each such set its mean prediction; equal predictions then
go to ``csp-minprob``'s tie-break (fewest neighbours), which a net's noisy outputs never
reached before. Together they closed most of v3's gap to the exact player.

Before a guess (no cell predicted below ``safe_below``), ``learner`` checks itself the way a
person does: the sound rules of :mod:`mscsp.deduce` (propagation, subset and overlap rules,
mine counting; by default also one assumption per group) settle cells the net left open, and
a proven cell gets its exact value, 0 or 1. The net never learned the mine total at this
size, so end games were where it missed certain cells (docs/learners.md).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from mscsp.board import COVERED, FLAG, Board, neighbour_counts, neighbour_sum
from mscsp.deduce import deduce as deduce_cells
from mscsp.errors import InconsistentBoardError, InvalidInputError, SolverLimitError
from mscsp.players.base import Cell, Player
from mscsp.runtime.deadline import Deadline

from ..artefacts import DEFAULT_MODEL, model_path
from ..classic.data import perimeter
from .data import encode

#: Predicted probability under which a cell counts as safe and is revealed without a re-think.
SAFE_BELOW = 0.02
#: What ``learner`` checks before a guess: nothing, the rules of :mod:`mscsp.deduce`, or the
#: rules with one assumption per group.
DEDUCE_CHOICES = ("none", "rules", "cases")
#: Seconds the check may take per position (an expert one takes at most about 0.05): on a
#: huge board the assumptions stop there, and rules that do not finish leave the net's answer.
CHECK_SECONDS = 1.0


def symmetric_views(x: np.ndarray) -> np.ndarray:
    """``x`` (batch, rows, cols, ...) stacked with its flips (and transposes when square).

    Returns an array of ``views * batch`` positions, view-major: identity, rows flipped,
    columns flipped, both; then, for a square board, the same four of the transpose.
    """
    flips = [x, x[:, ::-1], x[:, :, ::-1], x[:, ::-1, ::-1]]
    if x.shape[1] == x.shape[2]:
        t = np.swapaxes(x, 1, 2)
        flips += [t, t[:, ::-1], t[:, :, ::-1], t[:, ::-1, ::-1]]
    return np.concatenate(flips)


def mean_of_views(y: np.ndarray, batch: int) -> np.ndarray:
    """The mean of per-view predictions ``y`` (views * batch, rows, cols), each view undone.

    The inverse of :func:`symmetric_views`: a flip is its own inverse, and a flipped
    transpose is undone by flipping first, then transposing back.
    """
    views = y.reshape(-1, batch, *y.shape[1:])
    out = views[0] + views[1][:, ::-1] + views[2][:, :, ::-1] + views[3][:, ::-1, ::-1]
    if len(views) == 8:
        back = views[4] + views[5][:, ::-1] + views[6][:, :, ::-1] + views[7][:, ::-1, ::-1]
        out = out + np.swapaxes(back, 1, 2)
    return out / len(views)


def exchangeable_mean(probs: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """``probs`` (batch, rows, cols) with each set of exchangeable covered cells averaged.

    Two covered cells next to the same revealed numbers (every covered cell next to none is
    one such set) appear in the same constraints, so their exact probabilities are equal; a
    net's are not. The mean keeps the net's total over the set and makes the exact player's
    tie-break between them (:func:`choose_moves`) possible. Other cells are returned as they are.
    """
    batch, rows, cols = cells.shape
    index = np.arange(rows * cols).reshape(rows, cols)
    revealed = np.pad(cells >= 0, ((0, 0), (1, 1), (1, 1)))
    padded_index = np.pad(index, 1, constant_values=-1)
    around = [
        np.where(
            revealed[:, 1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols],
            padded_index[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols],
            -1,
        )
        for dr in (-1, 0, 1)
        for dc in (-1, 0, 1)
        if dr or dc
    ]
    # A cell's key: its position in the batch and the sorted indices of its revealed
    # neighbours (-1 padding), so equal keys are exactly the exchangeable sets.
    keys = np.sort(np.stack(around, axis=-1), axis=-1).reshape(batch * rows * cols, 8)
    which = np.repeat(np.arange(batch), rows * cols)[:, None]
    covered = (cells == COVERED).reshape(-1)
    flat = probs.reshape(-1).astype(np.float64)
    _, group = np.unique(
        np.concatenate([which, keys], axis=1)[covered], axis=0, return_inverse=True
    )
    group = group.reshape(-1)
    total = np.bincount(group, weights=flat[covered])
    flat[covered] = (total / np.bincount(group))[group]
    return flat.reshape(probs.shape).astype(probs.dtype)


def choose_moves(
    probs: np.ndarray, cells: np.ndarray, safe_below: float = SAFE_BELOW
) -> list[tuple[int, int]]:
    """Cells to reveal given predicted probabilities: confident-safe ones, else the lowest.

    Equal probabilities go to the cell with the fewest neighbours (a corner or edge cell
    opens more often), then to the first in row-major order: ``csp-minprob``'s tie-break,
    which on beginner is worth 2.2 points over a random one (docs/learners.md).

    Args:
        probs: Predicted mine probability per cell (rows x cols).
        cells: The board's cell codes; only covered cells (-1) are candidates.
        safe_below: Threshold for a confident-safe cell.
    """
    covered = cells == -1
    if not covered.any():
        return []
    p = np.where(covered, probs, np.inf)
    order = np.lexsort((neighbour_counts(*cells.shape).reshape(-1), p.reshape(-1)))
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
        symmetric: Average each prediction over the board's symmetric views (4 or 8 forward
            passes in one batch: about 2.7x the time per expert game); ``None``: the
            class's :attr:`SYMMETRIC`.
        deduce: What to check before a guess (:data:`DEDUCE_CHOICES`): ``"rules"`` proves
            cells with the rules of :mod:`mscsp.deduce`, ``"cases"`` adds one assumption per
            group; ``None``: the class's :attr:`DEDUCE`.

    Raises:
        InvalidInputError: ``iterations`` for a model that does not iterate, or below 1; a
            ``symmetric`` or ``deduce`` value that is not one of its choices.

    Attributes:
        predict: Jit-compiled ``encoded batch -> probabilities`` (see
            :func:`learners.nets.train.make_predict`).
        inputs: Extra inputs the model reads (:mod:`learners.nets.channels`): never the solver's
            counting, only cheap exact facts such as the deterministic reductions.
    """

    name: ClassVar[str] = "learner"
    #: Whether predictions average the board's symmetric views unless told otherwise.
    SYMMETRIC: ClassVar[bool] = True
    #: Whether each set of exchangeable cells gets one probability (:func:`exchangeable_mean`).
    #: The seed systems (:class:`LowestCellPlayer`) play as their papers did: neither.
    POOLED: ClassVar[bool] = True
    #: What the player checks before a guess unless told otherwise (:data:`DEDUCE_CHOICES`).
    DEDUCE: ClassVar[str] = "cases"

    def __init__(
        self,
        path: str = DEFAULT_MODEL,
        safe_below: float = SAFE_BELOW,
        iterations: int | None = None,
        symmetric: bool | None = None,
        deduce: str | None = None,
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
        if symmetric is not None and not isinstance(symmetric, bool):
            raise InvalidInputError(f"symmetric must be true or false, got {symmetric!r}")
        self.symmetric = self.SYMMETRIC if symmetric is None else symmetric
        self.deduce = self.deduce_choice(deduce)

    @classmethod
    def deduce_choice(cls, deduce: str | None) -> str:
        """``deduce``, checked against :data:`DEDUCE_CHOICES` (``None``: :attr:`DEDUCE`)."""
        if deduce is not None and deduce not in DEDUCE_CHOICES:
            raise InvalidInputError(
                f"deduce must be one of {', '.join(DEDUCE_CHOICES)}, got {deduce!r}"
            )
        return cls.DEDUCE if deduce is None else deduce

    def probabilities_batch(self, cells: np.ndarray, mines: np.ndarray | int) -> np.ndarray:
        """Predicted mine probabilities for a batch of same-size positions."""
        x = encode(cells, mines, self.inputs)
        if self.symmetric:
            # Every input channel is per cell (the density is the same everywhere), so a view
            # of the encoding is the encoding of the view: the extra inputs are computed once.
            probs = mean_of_views(np.asarray(self.predict(symmetric_views(x))), len(x))
        else:
            probs = np.asarray(self.predict(x))
        if self.POOLED:
            probs = exchangeable_mean(probs, np.broadcast_to(cells, probs.shape))
        if self.deduce != "none":
            probs = self.check_before_guess(probs, cells, mines)
        return probs

    def check_before_guess(
        self, probs: np.ndarray, cells: np.ndarray, mines: np.ndarray | int
    ) -> np.ndarray:
        """``probs`` with the cells :func:`mscsp.deduce.deduce` proves set to 0 or 1.

        Only positions where the net would guess (no covered cell below ``safe_below``) are
        checked: elsewhere the net already has a move, and the check would cost a turn's time
        for nothing. A position the rules find contradictory keeps the net's answer.
        """
        cells = np.broadcast_to(cells, probs.shape)
        totals = np.broadcast_to(mines, (len(probs),))
        lowest = np.where(cells == COVERED, probs, np.inf).min(axis=(1, 2))
        probs = np.array(probs)
        for k in np.flatnonzero((lowest >= self.safe_below) & np.isfinite(lowest)):
            board = Board(np.ascontiguousarray(cells[k]), int(totals[k]))
            try:
                found = deduce_cells(
                    board,
                    cases=self.deduce == "cases",
                    first_safe=True,
                    deadline=Deadline(CHECK_SECONDS),
                )
            except (InconsistentBoardError, SolverLimitError):
                continue
            for value, settled in ((0.0, found.safe), (1.0, found.mines)):
                if settled:
                    probs[k][tuple(np.array(settled).T)] = value
        return probs

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


def local_estimate(cells: np.ndarray, mines: int) -> np.ndarray:
    """A mine probability per cell from each cell's own neighbourhood, no counting: a
    covered cell next to numbers takes the highest of their ratios (mines still needed over
    covered neighbours), any other the density of the mines left; flags are 1.

    Raises:
        InvalidTypeError, InvalidInputError, InconsistentBoardError: ``cells`` and ``mines``
            are not a board (checked as :class:`mscsp.Board` checks them).
    """
    cells = Board(cells, mines).cells  # the public entry checks what it is given
    covered = cells == COVERED
    flags = cells == FLAG
    left = mines - int(flags.sum())
    density = min(max(left / max(int(covered.sum()), 1), 0.0), 1.0)
    numbers = cells >= 0
    unknown = neighbour_sum(covered)
    need = np.where(numbers, cells - neighbour_sum(flags), 0)
    ratio = np.where(numbers & (unknown > 0), need / np.maximum(unknown, 1), -1.0)
    # The highest ratio among each cell's neighbours (-1 where none has a number).
    padded = np.pad(ratio, 1, constant_values=-1.0)
    rows, cols = cells.shape
    highest = np.max(
        [padded[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols] for dr, dc in _AROUND], axis=0
    )
    probs = np.where(highest >= 0, np.clip(highest, 0.0, 1.0), density)
    return np.where(flags, 1.0, np.where(covered, probs, 0.0))


_AROUND = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]


class RulesLocalPlayer(LearnerPlayer):
    """``rules-local``: the learner's play with no net, to show what the net is worth.

    Everything of ``learner`` but the model: the same move rule, the same pooling of
    exchangeable cells and tie-break, the same check before a guess (:mod:`mscsp.deduce`),
    on :func:`local_estimate`'s probabilities instead of the net's. The points
    ``learner:default`` wins over it are what the net earns by ranking guesses.

    Args:
        safe_below: Probability under which cells are revealed in bulk.
        deduce: What to check before a guess (:data:`DEDUCE_CHOICES`; default ``cases``).
    """

    name: ClassVar[str] = "rules-local"

    def __init__(self, safe_below: float = SAFE_BELOW, deduce: str | None = None):
        self.safe_below = safe_below
        self.symmetric = False  # (the estimate is symmetric already)
        self.deduce = self.deduce_choice(deduce)

    def probabilities_batch(self, cells: np.ndarray, mines: np.ndarray | int) -> np.ndarray:
        cells = np.asarray(cells)
        batch = cells if cells.ndim == 3 else cells[None]
        totals = np.broadcast_to(mines, (len(batch),))
        probs = np.stack([local_estimate(c, int(m)) for c, m in zip(batch, totals, strict=True)])
        probs = exchangeable_mean(probs, batch)
        if self.deduce != "none":
            probs = self.check_before_guess(probs, batch, totals)
        return probs


class LowestCellPlayer(LearnerPlayer):
    """The seed papers' move rule: one cell per turn, the one the model finds least likely a mine.

    The candidates are the perimeter (covered cells next to a revealed one: seed 000's
    bordering cells, seed 002's perimeter) when :attr:`perimeter_first` and it is not empty,
    else every covered cell. No bulk reveal of confident-safe cells: the papers click one.
    """

    #: Whether the candidates are the perimeter (else every covered cell).
    perimeter_first: ClassVar[bool] = True
    SYMMETRIC: ClassVar[bool] = False
    POOLED: ClassVar[bool] = False
    DEDUCE: ClassVar[str] = "none"

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
