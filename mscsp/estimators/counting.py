"""Every counting backend (:mod:`mscsp.backends`) as an estimator, through :func:`mscsp.solve`."""

from __future__ import annotations

import numpy as np

from ..backends import BACKENDS, get_backend
from ..board import Board
from ..probabilities import Solution
from ..solver import solve
from .base import Estimator, EstimatorKind


class CountingEstimator(Estimator):
    """The probabilities :func:`mscsp.solve` gives with one backend (reused between calls).

    Args:
        kind: The backend's registry entry.
        spec: Backend name, ``sat:NAME`` style allowed.
        time_limit: Seconds per board, every stage (``None``: no limit).
    """

    def __init__(self, kind: EstimatorKind, spec: str, time_limit: float | None = None):
        super().__init__(kind, spec)
        self.backend = get_backend(spec, time_limit=time_limit)

    def solve(self, board: Board) -> Solution:
        """The whole :class:`~mscsp.Solution` (counts, certain cells, best move)."""
        return solve(board, backend=self.backend)

    def estimate(self, board: Board) -> np.ndarray:
        return self.solve(board).probabilities


def counting_kinds() -> list[EstimatorKind]:
    """One entry per backend, in the backends' registry order (its default first)."""
    return [
        EstimatorKind(
            name=name,
            family="exact" if cls.exact else "approximate",
            exact=cls.exact,
            extra=cls.extra,
            description=cls.description or f"{name} counting backend",
            arg=cls.spec_arg,
            batches=False,
            # Looked up on each call, so the class's own check is the one that answers.
            available=lambda cls=cls: cls.supported(),
            build=_build,
        )
        for name, cls in BACKENDS.items()
    ]


def _build(kind: EstimatorKind, arg: str, time_limit: float | None) -> CountingEstimator:
    return CountingEstimator(kind, f"{kind.name}:{arg}" if arg else kind.name, time_limit)
