"""Turning group-level solutions into cell-level counts (shared by enumerating backends).

A solution that puts ``x_g`` mines in each group ``g`` of ``s_g`` cells stands for
``prod C(s_g, x_g)`` cell-level solutions; in ``C(s_g - 1, x_g - 1) = C(s_g, x_g) x_g / s_g``
of them one given cell of ``g`` is a mine. Enumerating groups instead of cells is what keeps
these backends' solution counts small; the binomial weights keep the counts exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

from ..constraints import ComponentCount
from ..errors import SolverLimitError


class GroupTally:
    """Accumulates group-level solutions into exact :class:`ComponentCount` arrays.

    Args:
        sizes: Cells per group.
        max_solutions: Raise once more group-level solutions than this are added.
        backend: Backend name, for the error message.
    """

    def __init__(self, sizes: Sequence[int], max_solutions: int | None = None, backend: str = ""):
        self.sizes = tuple(sizes)
        length = sum(self.sizes) + 1
        self.counts = [0] * length
        self.cell_counts = [[0] * length for _ in self.sizes]
        self.binomials = [[comb(s, x) for x in range(s + 1)] for s in self.sizes]
        self.solutions = 0
        self.max_solutions = max_solutions
        self.backend = backend

    def add(self, mines: Sequence[int]) -> None:
        """Adds one group-level solution: ``mines[g]`` mines in group ``g``.

        Raises:
            SolverLimitError: The solution cap was exceeded.
        """
        self.solutions += 1
        if self.max_solutions is not None and self.solutions > self.max_solutions:
            raise SolverLimitError(
                f"backend {self.backend!r} found more than {self.max_solutions} solutions "
                "on a component"
            )
        weight = 1
        k = 0
        for row, x in zip(self.binomials, mines, strict=True):
            weight *= row[x]
            k += x
        self.counts[k] += weight
        for g, x in enumerate(mines):
            if x:
                self.cell_counts[g][k] += weight * x // self.sizes[g]

    def result(self) -> ComponentCount:
        """The exact counts of every solution added so far."""
        return ComponentCount(tuple(self.counts), tuple(tuple(c) for c in self.cell_counts))
