"""Counts from a program that is not ours, checked rather than trusted.

A model counter program run through ``external:`` may miscount in a way that still looks
plausible: one group's queries off by one, every count doubled. :func:`check_count` holds
its answer for one component to what every true count meets, and recounts small
components with our own counter:

* shapes: ``counts`` has ``cells + 1`` entries, ``cell_counts`` one row of as many per group;
* bounds: ``0 <= counts[k] <= C(cells, k)``; a cell is a mine in at most ``counts[k]``
  layouts of ``k`` mines and in at most ``C(cells - 1, k - 1)``;
* the identity, with every group queried (none derived from it): each layout of ``k``
  mines has them somewhere, so ``sum_g size_g * cell_counts[g][k] = k * counts[k]``;
* a recount by ``dss`` of every component of at most :data:`RECOUNT_CELLS` cells (far
  cheaper than the counter runs that counted it), which catches what no identity can, such
  as every count doubled.

Any failure is a :class:`~mscsp.errors.WrongCountError` naming the counter and what failed.
"""

from __future__ import annotations

from math import comb

from ..constraints import Component, ComponentCount
from ..errors import WrongCountError

#: Components of at most this many cells are recounted by ``dss`` (microseconds to
#: milliseconds each, against one counter run per mine number).
RECOUNT_CELLS = 24


def check_count(
    component: Component, count: ComponentCount, who: str, recount_cells: int = RECOUNT_CELLS
) -> None:
    """Raises :class:`WrongCountError` if ``count`` cannot be ``component``'s true count.

    Args:
        component: The component counted.
        count: The counts the program gave (every group's row queried, none derived).
        who: The program, for the message (``"counter 'd4 --exact'"``).
        recount_cells: Components of at most this many cells are also recounted by
            ``dss``, and must agree to the last digit (0: no recount).
    """
    n = component.n_cells
    rows = count.cell_counts
    if len(count.counts) != n + 1 or len(rows) != component.n_groups:
        raise WrongCountError(f"{who} answered counts of the wrong shape: it miscounts")
    for k, total in enumerate(count.counts):
        if not 0 <= total <= comb(n, k):
            raise WrongCountError(
                f"{who} counted {total} layouts of {k} mines in {n} cells, "
                f"outside 0..{comb(n, k)}: it miscounts"
            )
    for g, row in enumerate(rows):
        if len(row) != n + 1:
            raise WrongCountError(f"{who} answered counts of the wrong shape: it miscounts")
        for k, hits in enumerate(row):
            most = min(count.counts[k], comb(n - 1, k - 1) if k else 0)
            if not 0 <= hits <= most:
                raise WrongCountError(
                    f"{who} counted {hits} layouts of {k} mines with a mine on a cell of group "
                    f"{g}, outside 0..{most}: it miscounts"
                )
    for k, total in enumerate(count.counts):
        placed = sum(size * row[k] for size, row in zip(component.sizes, rows, strict=True))
        if placed != k * total:
            raise WrongCountError(
                f"{who} gave counts that contradict each other ({k} mines: the groups hold "
                f"{placed} mines over all layouts, {k} x {total} = {k * total} needed): "
                "it miscounts"
            )
    if n <= recount_cells:
        from .dss import DssBackend

        expected = DssBackend().count(component)
        if (count.counts, rows) != (expected.counts, expected.cell_counts):
            raise WrongCountError(
                f"{who} disagrees with mscsp's own count of a {n}-cell component "
                f"({sum(count.counts)} layouts against {sum(expected.counts)}): it miscounts"
            )
