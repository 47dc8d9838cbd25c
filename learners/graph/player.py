"""``learner:graph``: the factor-graph net as an estimator and as a player.

A board is propagated exactly (:func:`mscsp.estimators.bp.factor_graph`); the net gives each
open group its probability; the free cells share the mines the frontier's expected count
leaves (clipped to ``[0, 1]``). The player is ``learner``'s (same move rule and check before
a guess) on these probabilities. Every board of a batch goes through the net in one call,
padded to powers of two, so a process compiles a handful of shapes.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from mscsp.board import Board
from mscsp.errors import InvalidInputError, InvalidTypeError
from mscsp.estimators.bp import factor_graph
from mscsp.validate import describe

from ..artefacts import GRAPH_MODEL, model_path
from ..nets.player import SAFE_BELOW, LearnerPlayer
from .data import concat, encode
from .train import load_model, make_predict, pack


class GraphPlayer(LearnerPlayer):
    """``learner:graph`` (or ``learner:PATH`` of a graph checkpoint).

    Args:
        path: ``graph`` (the shipped net) or a ``model.msgpack`` of :mod:`learners.graph.train`.
        safe_below: Probability under which cells are revealed in bulk.
        iterations: Rounds of messages (``None``: the rounds it was trained with, or those
            its checkpoint chose on validation positions, see
            :func:`learners.graph.train.choose_rounds`); more rounds carry information
            further on large boards.
        deduce: What to check before a guess (``none``, the default: the board is
            propagated exactly before the net; ``rules``, ``cases``).

    Raises:
        InvalidInputError: A missing or foreign checkpoint, or rounds below 1.
    """

    name: ClassVar[str] = "learner"
    SYMMETRIC: ClassVar[bool] = False  # a factor graph has no orientation to average over
    POOLED: ClassVar[bool] = False  # a group's cells get one probability already
    #: Exact propagation runs before the net already (its settled cells are exact).
    DEDUCE: ClassVar[str] = "none"

    def __init__(
        self,
        path: str = GRAPH_MODEL,
        safe_below: float = SAFE_BELOW,
        iterations: int | None = None,
        deduce: str | None = None,
    ):
        self.path = model_path(path)
        self.model, self.meta = load_model(self.path)
        #: Mean |dp| by family of the hard corpus, where the checkpoint records it.
        self.measured = tuple((family, float(e)) for family, e in self.meta.get("measured", ()))
        # (A net trained at random round counts records the count it plays best with.)
        trained = self.meta.get("play_rounds", self.model.config.rounds)
        rounds = trained if iterations is None else iterations
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
            raise InvalidInputError(f"iterations must be a whole number >= 1, got {rounds!r}")
        self.rounds = rounds
        self.predict = make_predict(self.model)
        self.safe_below = safe_below
        self.symmetric = False
        self.deduce = self.deduce_choice(deduce)

    def estimate(self, boards: list[Board]) -> list[np.ndarray]:
        """Each board's mine probability per cell (``on_board`` form but for revealed cells).

        Raises:
            InvalidTypeError: An item is not a :class:`mscsp.Board`.
            InconsistentBoardError: Propagation finds a board's numbers contradictory.
        """
        for board in boards:
            if not isinstance(board, Board):
                raise InvalidTypeError(f"boards must be mscsp.Board objects, got {describe(board)}")
        graphs = [factor_graph(board) for board in boards]
        live = [i for i, g in enumerate(graphs) if len(g.sizes)]
        group_p: dict[int, np.ndarray] = {}
        if live:
            data = concat(
                [encode(graphs[i]) for i in live],
                [np.zeros(len(graphs[i].sizes), np.float32) for i in live],
                [0.0] * len(live),
                ["board"] * len(live),
            )
            batch, _ = pack(data, range(len(live)))
            p = self.predict(batch, self.rounds)
            for k, i in enumerate(live):
                group_p[i] = p[data.var_ptr[k] : data.var_ptr[k + 1]].astype(np.float64)
        out = []
        for i, (board, graph) in enumerate(zip(boards, graphs, strict=True)):
            p = group_p.get(i, np.zeros(0))
            frontier = float((p * graph.sizes).sum())
            free = graph.left - frontier
            free_p = min(max(free / graph.n_free, 0.0), 1.0) if graph.n_free else 0.0
            out.append(graph.paint(board, p, free_p))
        return out

    def probabilities_batch(self, cells: np.ndarray, mines: np.ndarray | int) -> np.ndarray:
        cells = np.asarray(cells)
        batch = cells if cells.ndim == 3 else cells[None]
        totals = np.broadcast_to(mines, (len(batch),))
        boards = [
            Board(np.ascontiguousarray(c), int(m)) for c, m in zip(batch, totals, strict=True)
        ]
        probs = np.stack([np.nan_to_num(p, nan=0.0) for p in self.estimate(boards)])
        if self.deduce != "none":
            probs = self.check_before_guess(probs, batch, totals)
        return probs
