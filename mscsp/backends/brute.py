"""``brute``: enumerates every cell assignment of a small component (the reference)."""

from __future__ import annotations

from itertools import product

from ..constraints import Component, ComponentCount
from ..errors import SolverLimitError
from .base import Backend

#: Largest component (cells) the brute force accepts: 2**22 assignments.
MAX_BRUTE_CELLS = 22


class BruteBackend(Backend):
    """Tries all ``2**cells`` mine assignments of a component; only for tiny components."""

    name = "brute"
    description = "all 2^cells assignments, tiny components only (reference)"

    def count(self, component: Component) -> ComponentCount:
        n_cells = component.n_cells
        if n_cells > MAX_BRUTE_CELLS:
            raise SolverLimitError(
                f"brute force is limited to {MAX_BRUTE_CELLS} cells; this component has {n_cells}"
            )
        # Cell j belongs to group owner[j]; every cell is enumerated separately.
        owner = [g for g, size in enumerate(component.sizes) for _ in range(size)]
        first_cell = [owner.index(g) for g in range(component.n_groups)]
        counts = [0] * (n_cells + 1)
        cell_counts = [[0] * (n_cells + 1) for _ in component.sizes]
        deadline = self._deadline()
        for step, bits in enumerate(product((0, 1), repeat=n_cells)):
            if step % 65536 == 0:
                self._check_deadline(deadline)
            per_group = [0] * component.n_groups
            for j, b in enumerate(bits):
                per_group[owner[j]] += b
            if all(sum(per_group[g] for g in groups) == t for groups, t in component.constraints):
                k = sum(bits)
                counts[k] += 1
                for g, j in enumerate(first_cell):
                    cell_counts[g][k] += bits[j]
        return ComponentCount(tuple(counts), tuple(tuple(c) for c in cell_counts))
