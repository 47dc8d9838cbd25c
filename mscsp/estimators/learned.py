"""Learned models that output a mine probability per cell, found through the learner plugins.

Every registered learned system (:mod:`mscsp.players.plugins`: the ``mscsp.learners`` entry
points) with ``estimates`` set is an estimator under its own name: ``learner``
(``learner:PATH``; ``learner:default`` or plain ``learner`` is the shipped network) and the
seed systems that predict per cell (``alexnet``). Nothing here imports JAX until an estimator
is made; the registered tables (which import nothing heavy) are read on first use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..board import Board
from ..errors import InvalidInputError
from ..players.plugins import learned_systems
from .base import Estimator, EstimatorKind, on_board


class LearnedEstimator(Estimator):
    """The predicted probabilities of a learned player with ``probabilities_batch``.

    Args:
        kind: Its registry entry.
        spec: ``NAME`` or ``NAME:VALUE`` (``learner:PATH``).
        model: The loaded player (``probabilities_batch(cells, mines)``).
    """

    def __init__(self, kind: EstimatorKind, spec: str, model: Any):
        super().__init__(kind, spec)
        self.model = model

    @property
    def measured(self) -> tuple[tuple[str, float], ...]:
        """The model's own measured errors where its checkpoint records them (one registry
        entry, ``learner``, loads different models)."""
        return tuple(getattr(self.model, "measured", ())) or self.kind.measured

    def estimate(self, board: Board) -> np.ndarray:
        return self.estimate_batch([board])[0]

    def estimate_batch(self, boards: Sequence[Board]) -> list[np.ndarray]:
        """One inference per board size for all the boards of that size."""
        out: list[np.ndarray | None] = [None] * len(boards)
        by_shape: dict[tuple[int, int], list[int]] = {}
        for i, board in enumerate(boards):
            by_shape.setdefault(board.shape, []).append(i)
        for indices in by_shape.values():
            cells = np.stack([boards[i].cells for i in indices])
            mines = np.array([boards[i].mines for i in indices])
            predicted = np.asarray(self.model.probabilities_batch(cells, mines))
            for i, p in zip(indices, predicted, strict=True):
                out[i] = on_board(boards[i], p)
        return out  # type: ignore[return-value]


def _build(kind: EstimatorKind, arg: str, time_limit: float | None) -> Estimator:
    spec = f"{kind.name}:{arg}" if arg else kind.name
    model = learned_systems()[kind.name].build(spec)
    if not hasattr(model, "probabilities_batch"):
        raise InvalidInputError(f"learned system {kind.name!r} gives no per-cell probabilities")
    return LearnedEstimator(kind, spec, model)


def learned_kinds() -> list[EstimatorKind]:
    """Every registered learned system that estimates per cell (none when no package
    registers one)."""
    return [
        EstimatorKind(
            name=system.name,
            family="learned",
            exact=False,
            extra=system.extra,
            description=system.summary,
            arg=(system.argument or "").upper(),
            batches=True,
            # Looked up on each call, so the registry's entry is the one that answers.
            available=lambda name=system.name: learned_systems()[name].supported(),
            build=_build,
        )
        for system in learned_systems().values()
        if system.estimates
    ]
