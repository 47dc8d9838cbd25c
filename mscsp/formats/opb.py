"""Pseudo-Boolean competition format (OPB): one ``x<i>`` per cell, linear equalities.

Cardinality is native here, so there are no auxiliary variables: the number of solutions
is the number of mine layouts.
"""

from __future__ import annotations

from ..trust.escape import comment_line
from .dimacs import Written
from .instances import CellSystem

SUFFIX = ".opb"
KIND = "opb"


def write(system: CellSystem, mines: int, title: str = "") -> Written:
    """The OPB text of ``system`` with exactly ``mines`` mines."""
    rows = [*system.constraints, (tuple(range(1, system.cells + 1)), mines)]
    lines = [
        f"* #variable= {system.cells} #constraint= {len(rows)}",
        f"* mscsp export: {comment_line(title)}, exactly {mines} mines; "
        "x<i> is a cell, 1 for a mine",
    ]
    lines += [" ".join(f"+1 x{v}" for v in cells) + f" = {t} ;" for cells, t in rows]
    return Written("\n".join(lines) + "\n", system.cells, len(rows))
