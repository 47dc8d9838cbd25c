"""CNF for "exactly ``t`` of these literals", shared by the SAT-based backends."""

from __future__ import annotations

from itertools import combinations
from math import comb
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..constraints import Component

#: Most clauses the direct (auxiliary-free) encoding may use before a CardEnc one is used.
DIRECT_LIMIT = 128


def exactly(
    lits: list[int],
    bound: int,
    top: int,
    encoding: int | None = None,
) -> tuple[list[list[int]], int]:
    """Clauses saying exactly ``bound`` of ``lits`` hold, and the new top variable id.

    Small constraints (every Minesweeper number: at most 8 cells) are encoded directly:
    no ``bound + 1`` literals all true, no ``len - bound + 1`` all false. That adds no
    auxiliary variables, which counters and enumerators would otherwise have to project
    away. Larger ones use :class:`pysat.card.CardEnc` with ``encoding`` (default
    sequential counter).
    """
    n = len(lits)
    if comb(n, bound + 1) + comb(n, n - bound + 1) <= DIRECT_LIMIT:
        clauses = [[-v for v in sub] for sub in combinations(lits, bound + 1)]
        clauses += [list(sub) for sub in combinations(lits, n - bound + 1)]
        return clauses, top
    from pysat.card import CardEnc, EncType

    cnf = CardEnc.equals(
        lits, bound=bound, top_id=top, encoding=EncType.seqcounter if encoding is None else encoding
    )
    return cnf.clauses, max(top, cnf.nv)


def cell_cnf(component: Component) -> tuple[list[list[int]], int, list[int]]:
    """Cell-level CNF of a component: variable ``first[g] + j`` is cell ``j`` of group ``g``.

    Returns:
        The clauses, the top variable id (cells are ``1..n_cells``; ids above are
        auxiliary), and ``first``.
    """
    first = [1]
    for s in component.sizes[:-1]:
        first.append(first[-1] + s)
    clauses: list[list[int]] = []
    top = component.n_cells
    for groups, t in component.constraints:
        lits = [first[g] + j for g in groups for j in range(component.sizes[g])]
        more, top = exactly(lits, t, top)
        clauses.extend(more)
    return clauses, top, first
