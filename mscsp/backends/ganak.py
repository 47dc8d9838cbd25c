"""``ganak``: exact #SAT model counting with Ganak (``pyganak``), no enumeration.

The component becomes a cell-level CNF (one variable per cell, each number "exactly ``t``"
through :class:`pysat.card.CardEnc`), counted projected on the cell variables so the
encoding's auxiliary variables never multiply the count.

Counts by mine total come from one count (Kronecker substitution, as in ``dss``): each cell
gets ``B`` extra variables that are forced false unless the cell is a mine, so a solution
with ``k`` mines is counted ``2**(B*k)`` times and the count is ``sum_k counts[k] 2**(B*k)``.
A first plain count ``T`` bounds every ``counts[k]``, so ``B = T.bit_length()`` bits keep
the digits apart (fewer extra variables: Ganak's time grows quickly with them). One more
count per group, with the group's first cell forced to be a mine, gives ``cell_counts``:
``n_groups + 2`` counts in all, each on a fresh counter (a Ganak counter counts once).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from ..constraints import Component, ComponentCount
from .base import Backend


@contextmanager
def _quiet_stdout() -> Iterator[None]:
    """Silences file descriptor 1: Ganak prints progress lines there from C++."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


class GanakBackend(Backend):
    """Exact projected model counting; the time limit is checked between counts."""

    name = "ganak"
    extra = "sat"
    description = "Ganak #SAT on a cell-level CNF, n_groups+2 projected counts"

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
        cells = range(1, n + 1)

        def count(extra: list[list[int]], sampling: list[int]) -> int:
            self._check_deadline(deadline)
            counter = Counter()
            counter.add_clauses(clauses)
            counter.add_clauses(extra)
            counter.set_sampling_set(sampling)
            with _quiet_stdout():
                return counter.count()

        total = count([], list(cells))
        if total == 0:
            zeros = (0,) * (n + 1)
            return ComponentCount(zeros, tuple(zeros for _ in first))
        bits = total.bit_length()
        # Cell i's extra variables are free only when i is a mine.
        weights = range(top + 1, top + 1 + n * bits)
        kronecker = [[i // bits + 1, -v] for i, v in enumerate(weights)]
        sampling = [*cells, *weights]
        mask = (1 << bits) - 1

        def by_mines(unit: list[list[int]]) -> tuple[int, ...]:
            value = count(kronecker + unit, sampling)
            return tuple((value >> (bits * k)) & mask for k in range(n + 1))

        return ComponentCount(by_mines([]), tuple(by_mines([[f]]) for f in first))
