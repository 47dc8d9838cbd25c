"""Learned models that output a mine probability per cell, found through ``learners``.

``learner:PATH`` (``learner:default`` is the shipped model) loads a checkpoint of the Flax
networks; the seed papers' systems that predict per cell (the registry's entries with
``estimates`` set, e.g. ``alexnet``) are listed by name. Nothing here imports JAX until an
estimator is made; the ``learners`` package and its registry are imported on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..board import Board
from ..errors import InvalidInputError
from ..players import LEARNER_PREFIX, get_player
from .base import Estimator, EstimatorKind, on_board

#: Modules a learned network needs (the ``ml`` extra).
NEEDS = ("jax", "flax", "optax")


class LearnedEstimator(Estimator):
    """The predicted probabilities of a learned player with ``probabilities_batch``.

    Args:
        kind: Its registry entry.
        spec: ``learner:PATH`` or a learned system's name.
        model: The loaded player (``probabilities_batch(cells, mines)``).
    """

    def __init__(self, kind: EstimatorKind, spec: str, model: Any):
        super().__init__(kind, spec)
        self.model = model

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


def _available(requires: Sequence[str]) -> bool:
    try:
        for module in ("learners", *requires):
            importlib.import_module(module)
    except ImportError:
        return False
    return True


def _build_checkpoint(kind: EstimatorKind, arg: str, time_limit: float | None) -> Estimator:
    spec = LEARNER_PREFIX + (arg or "default")
    return LearnedEstimator(kind, spec, get_player(spec))


def _build_system(kind: EstimatorKind, arg: str, time_limit: float | None) -> Estimator:
    options = {"weights": arg} if arg else {}
    model = importlib.import_module("learners.registry").get_learned(kind.name, **options)
    if not hasattr(model, "probabilities_batch"):
        raise InvalidInputError(f"learned system {kind.name!r} gives no per-cell probabilities")
    return LearnedEstimator(kind, f"{kind.name}:{arg}" if arg else kind.name, model)


CHECKPOINT = EstimatorKind(
    name=LEARNER_PREFIX.rstrip(":"),
    family="learned",
    exact=False,
    extra="ml",
    description="a trained network's predicted probabilities (learner:PATH; "
    "learner:default is the shipped model)",
    arg="PATH",
    batches=True,
    available=lambda: _available(NEEDS),
    build=_build_checkpoint,
)


def learned_kinds() -> list[EstimatorKind]:
    """``learner:PATH``, then every registered learned system that estimates per cell."""
    kinds = [CHECKPOINT]
    try:
        systems = importlib.import_module("learners.registry").SYSTEMS.values()
    except ImportError:  # the learners package is not installed
        return kinds
    for system in systems:
        if system.estimates:
            kinds.append(
                EstimatorKind(
                    name=system.name,
                    family="learned",
                    exact=False,
                    extra=system.extra,
                    description=system.summary,
                    arg="WEIGHTS",
                    batches=True,
                    available=system.supported,
                    build=_build_system,
                )
            )
    return kinds
