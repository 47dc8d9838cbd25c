"""``sampler:N``: the exact uniform sampler's probabilities from ``N`` layouts.

See :mod:`mscsp.layouts`: every consistent layout is equally likely, so the only error is
statistical (within ``sqrt(ln(2 / delta) / (2 N))`` with probability ``1 - delta``).
"""

from __future__ import annotations

import numpy as np

from ..board import Board
from ..layouts import sample_layouts
from .base import Estimator, EstimatorKind, on_board, whole_arg

#: Layouts drawn when the spec gives no ``N``.
DEFAULT_SAMPLES = 1000
#: Most layouts a spec may ask for: the draws are held at once, one row of group counts
#: per layout (100 times the default).
MAX_SAMPLES = 100_000


class SamplerEstimator(Estimator):
    """Mean over ``samples`` uniform layouts (seeded: the same board, the same estimate)."""

    def __init__(self, kind: EstimatorKind, samples: int, time_limit: float | None = None):
        super().__init__(kind, f"{kind.name}:{samples}")
        self.samples = samples
        self.time_limit = time_limit

    def estimate(self, board: Board) -> np.ndarray:
        sample = sample_layouts(board, self.samples, seed=0, time_limit=self.time_limit)
        return on_board(board, sample.probabilities)


def build(kind: EstimatorKind, arg: str, time_limit: float | None) -> SamplerEstimator:
    """``sampler`` or ``sampler:N``."""
    return SamplerEstimator(kind, whole_arg(kind, arg, DEFAULT_SAMPLES, MAX_SAMPLES), time_limit)


KIND = EstimatorKind(
    name="sampler",
    family="approximate",
    exact=False,
    extra=None,
    description="mean of N exactly uniform layouts "
    f"(sampler:N, default {DEFAULT_SAMPLES}, at most {MAX_SAMPLES})",
    arg="N",
    batches=False,
    available=lambda: True,
    build=build,
)
