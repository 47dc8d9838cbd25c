"""``ganak``: exact #SAT model counting with Ganak (``pyganak``), no enumeration.

The component becomes a cell-level CNF (one variable per cell, each number "exactly ``t``"
through :class:`pysat.card.CardEnc`), counted projected on the cell variables so the
encoding's auxiliary variables never multiply the count.

All mine totals come from one count (Kronecker substitution, as in ``dss``): each cell gets
``B`` extra variables that are forced false unless the cell is a mine, so a solution with
``k`` mines is counted ``2**(B*k)`` times and the count is ``sum_k counts[k] 2**(B*k)``.
With ``B = n_cells`` bits, more than any ``counts[k] <= C(n, k)`` needs, the digits never
overlap. One more count per group, with the group's first cell forced to be a mine, gives
``cell_counts``: ``n_groups + 1`` counts in all, each on a fresh counter (Ganak counts once).
"""

from __future__ import annotations

from ..constraints import Component, ComponentCount
from .base import Backend


def _digits(value: int, bits: int, length: int) -> tuple[int, ...]:
    mask = (1 << bits) - 1
    return tuple((value >> (bits * k)) & mask for k in range(length))


class GanakBackend(Backend):
    """Exact projected model counting; the time limit is checked between counts."""

    name = "ganak"
    extra = "sat"
    description = "Ganak #SAT on a cell-level CNF, n_groups+1 projected counts"

    @classmethod
    def supported(cls) -> bool:
        try:
            import pyganak  # noqa: F401
            import pysat.card  # noqa: F401
        except ImportError:
            return False
        return True

    @classmethod
    def version(cls) -> str:
        from importlib.metadata import version

        return version("pyganak")

    def count(self, component: Component) -> ComponentCount:
        from pyganak import Counter
        from pysat.card import CardEnc, EncType

        n = component.n_cells
        deadline = self._deadline()
        first = [1]
        for s in component.sizes[:-1]:
            first.append(first[-1] + s)
        clauses: list[list[int]] = []
        top = n
        for groups, t in component.constraints:
            lits = [first[g] + j for g in groups for j in range(component.sizes[g])]
            cnf = CardEnc.equals(lits, bound=t, top_id=top, encoding=EncType.seqcounter)
            top = max(top, cnf.nv)
            clauses.extend(cnf.clauses)
        # Kronecker variables: cell i's B extra variables are free only when i is a mine.
        bits = n
        extra = range(top + 1, top + 1 + n * bits)
        for i, v in enumerate(extra):
            clauses.append([i // bits + 1, -v])
        sampling = [*range(1, n + 1), *extra]

        def count(assume: list[list[int]]) -> tuple[int, ...]:
            self._check_deadline(deadline)
            counter = Counter()
            counter.add_clauses(clauses)
            counter.add_clauses(assume)
            counter.set_sampling_set(sampling)
            return _digits(counter.count(), bits, n + 1)

        counts = count([])
        if not any(counts):
            return ComponentCount(counts, tuple(counts for _ in first))
        return ComponentCount(counts, tuple(count([[f]]) for f in first))
