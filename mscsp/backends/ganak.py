"""``ganak``: exact #SAT model counting with Ganak (``pyganak``), no enumeration.

The component becomes a cell-level CNF (one variable per cell, each number "exactly ``t``"
through :func:`~mscsp.formats.cnf.exactly`), counted projected on the cell variables so
auxiliary encoding variables never multiply the count.

Ganak counts a formula once, with no assumptions, so each count is a fresh counter over the
same clauses plus a few extra ones:

1. a plain count ``T``;
2. one count with Kronecker variables: each cell gets ``B = T.bit_length()`` extra
   variables forced false unless the cell is a mine, so a solution with ``k`` mines is
   counted ``2**(B*k)`` times and the count's ``B``-bit digits are ``counts[k]`` (as in
   ``dss``; every ``counts[k] <= T`` fits);
3. per group but the last, a count with the group's first cell forced to be a mine, split
   by mine total with one more count per total but one, each with "exactly ``k`` mines"
   added. Plain and cardinality counts are far cheaper for Ganak than Kronecker ones,
   whose extra variables slow it down several times. The last group follows from the
   others: every solution with ``k`` mines has them somewhere, so
   ``sum_g s_g cell_counts[g][k] = k counts[k]``.
"""

from __future__ import annotations

from ..constraints import Component, ComponentCount
from ..formats.cnf import cell_cnf
from .base import Backend
from .native import run_native


class GanakBackend(Backend):
    """Exact projected model counting; with a time limit, in a child process killed at it
    (Ganak cannot be interrupted mid-count, see :mod:`~mscsp.backends.native`)."""

    name = "ganak"
    extra = "sat"
    description = "Ganak #SAT on a cell-level CNF, projected counts (no enumeration)"
    requires = ("pyganak", "pysat.card")
    distribution = "pyganak"

    def count(self, component: Component) -> ComponentCount:
        return run_native(ganak_counts, component, end=self._deadline(), on_limit=self._limit_error)


def ganak_counts(component: Component) -> ComponentCount:
    """The component's counts by mine total and per group, by Ganak (see module doc)."""
    from pyganak import Counter
    from pysat.card import CardEnc, EncType

    n = component.n_cells
    clauses, top, first = cell_cnf(component)
    cells = list(range(1, n + 1))

    def count(extra: list[list[int]], sampling: list[int]) -> int:
        counter = Counter()
        counter.add_clauses(clauses)
        counter.add_clauses(extra)
        counter.set_sampling_set(sampling)
        return counter.count()

    total = count([], cells)
    length = n + 1
    if total == 0:
        zeros = (0,) * length
        return ComponentCount(zeros, tuple(zeros for _ in first))
    bits = total.bit_length()
    # Cell i's extra variables are free only when i is a mine.
    weights = range(top + 1, top + 1 + n * bits)
    packed = count([[i // bits + 1, -v] for i, v in enumerate(weights)], [*cells, *weights])
    mask = (1 << bits) - 1
    counts = tuple((packed >> (bits * k)) & mask for k in range(length))
    totals = [k for k in range(length) if counts[k]]
    # Per group but the last: a plain count with its first cell forced sums over all mine
    # totals; "exactly k" counts split it, the last total by difference.
    split = {
        k: CardEnc.equals(cells, bound=k, top_id=top, encoding=EncType.seqcounter).clauses
        for k in totals[:-1]
    }
    cell_counts = []
    for f in first[:-1]:
        row = [0] * length
        row[totals[-1]] = count([[f]], cells)
        for k, clauses_k in split.items():
            row[k] = count([*clauses_k, [f]], cells)
            row[totals[-1]] -= row[k]
        cell_counts.append(row)
    # The last group: every solution with k mines has them somewhere.
    sizes = component.sizes
    last = [0] * length
    for k in totals:
        placed = sum(s * row[k] for s, row in zip(sizes, cell_counts, strict=False))
        last[k] = (k * counts[k] - placed) // sizes[-1]
    cell_counts.append(last)
    return ComponentCount(counts, tuple(tuple(row) for row in cell_counts))
