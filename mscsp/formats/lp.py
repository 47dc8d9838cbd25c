"""CPLEX LP format for integer-programming solvers: one binary ``x<i>`` per cell.

The objective is 0 (a feasibility problem: count its solutions); rows are split every
:data:`PER_LINE` terms, since some readers limit the line length.
"""

from __future__ import annotations

from ..trust.escape import comment_line
from .dimacs import Written
from .instances import CellSystem

SUFFIX = ".lp"
KIND = "lp"
#: Terms per line.
PER_LINE = 16


def _row(name: str, cells: tuple[int, ...], t: int) -> list[str]:
    terms = [f"x{v}" for v in cells]
    chunks = [" + ".join(terms[i : i + PER_LINE]) for i in range(0, len(terms), PER_LINE)]
    lines = [f" {name}: {chunks[0]}"] + [f"   + {chunk}" for chunk in chunks[1:]]
    lines[-1] += f" = {t}"
    return lines


def write(system: CellSystem, mines: int, title: str = "") -> Written:
    """The LP text of ``system`` with exactly ``mines`` mines."""
    cells = tuple(range(1, system.cells + 1))
    lines = [
        f"\\ mscsp export: {comment_line(title)}, exactly {mines} mines; "
        "x<i> is a cell, 1 for a mine",
        "Minimize",
        " obj: 0 x1",
        "Subject To",
    ]
    for i, (members, t) in enumerate(system.constraints, start=1):
        lines += _row(f"c{i}", members, t)
    lines += _row("mines", cells, mines)
    lines += ["Binary"] + [
        " " + " ".join(f"x{v}" for v in cells[i : i + PER_LINE])
        for i in range(0, len(cells), PER_LINE)
    ]
    lines.append("End")
    return Written("\n".join(lines) + "\n", system.cells, len(system.constraints) + 1)
