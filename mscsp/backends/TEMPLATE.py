"""``template``: a new counting backend, from this file (as CPMpy ships ``solvers/TEMPLATE.py``).

Copy this file to ``mscsp/backends/<name>.py``, rename the class and :attr:`name`, and
replace :meth:`TemplateBackend.count` with your solver's count; then follow "How to add a
backend" in ``docs/backends.md`` (the registry line, the extra, the tests). As it stands it
is a complete, exact backend, small enough to read in a minute: it enumerates how many
mines each group holds and weighs each assignment by the binomials of its groups
(``tests/test_templates.py`` copies it and checks it against the brute force).

What every backend promises (``mscsp/backends/base.py``):

* ``count(component)`` returns a :class:`ComponentCount` of Python ints: ``counts[k]``, the
  cell-level layouts with ``k`` mines, and ``cell_counts[g][k]``, those with a mine on one
  given cell of group ``g``; each of length ``n_cells + 1``.
* it stops at its time limit (``self._deadline()`` / ``self._check_deadline()``) with a
  :class:`~mscsp.errors.SolverLimitError`, and at ``self.max_solutions`` if it enumerates;
* it imports its optional package only inside its methods (``requires`` names it, so
  ``supported()`` can try), never at ``import mscsp``.
"""

from __future__ import annotations

from math import comb

from ..constraints import Component, ComponentCount
from ..errors import SolverLimitError
from .base import Backend

#: Most groups it takes: one level of recursion a group.
MAX_GROUPS = 200


class TemplateBackend(Backend):
    """Counts by enumerating each group's mine number (exact; for small components)."""

    name = "template"
    description = "group-level enumeration, the template of a new backend"
    extra = None  # the pip extra that installs the solver's package (None: no package)
    requires = ()  # modules the backend imports, tried by supported()
    options_allowed = ()  # keyword options it takes (NAME:SUB arrives as "solver")

    def count(self, component: Component) -> ComponentCount:
        sizes = component.sizes
        if len(sizes) > MAX_GROUPS:
            raise SolverLimitError(f"{self.name} counts components of at most {MAX_GROUPS} groups")
        n = component.n_cells
        counts = [0] * (n + 1)
        cell_counts = [[0] * (n + 1) for _ in sizes]
        deadline = self._deadline()
        # The constraints each group is in, so a partial assignment is cut as soon as one
        # of them can no longer be met.
        member = [
            [i for i, (groups, _) in enumerate(component.constraints) if g in groups]
            for g in range(len(sizes))
        ]
        need = [t for _, t in component.constraints]
        room = [sum(sizes[g] for g in groups) for groups, _ in component.constraints]
        mines = [0] * len(sizes)

        def place(g: int) -> None:
            self._check_deadline(deadline)
            if g == len(sizes):
                if any(need):
                    return
                k = sum(mines)
                ways = 1
                for size, m in zip(sizes, mines, strict=True):
                    ways *= comb(size, m)
                counts[k] += ways
                for h, (size, m) in enumerate(zip(sizes, mines, strict=True)):
                    # A given cell of group h is one of its m mines in m/size of the ways.
                    cell_counts[h][k] += ways * m // size
                return
            for m in range(sizes[g] + 1):
                if all(m <= need[i] and need[i] - m <= room[i] - sizes[g] for i in member[g]):
                    for i in member[g]:
                        need[i] -= m
                        room[i] -= sizes[g]
                    mines[g] = m
                    place(g + 1)
                    for i in member[g]:
                        need[i] += m
                        room[i] += sizes[g]

        place(0)
        return ComponentCount(tuple(counts), tuple(tuple(row) for row in cell_counts))
