"""MiniZinc: one generic model (:data:`MODEL`, written once as ``model.mzn``) and one
``.dzn`` data file per instance. ``minizinc --all-solutions model.mzn DATA.dzn`` prints one
solution per mine layout."""

from __future__ import annotations

from ..trust.escape import comment_line
from .dimacs import Written
from .instances import CellSystem

SUFFIX = ".dzn"
KIND = "mzn"
#: The model's file name in the export folder.
MODEL_FILE = "model.mzn"

MODEL = """\
% mscsp export: mine layouts of Minesweeper cells (one instance per .dzn data file).
% mine[i] is cell i (1 for a mine); each constraint holds need[j] mines among scope[j];
% all the cells hold exactly k mines. Count the solutions: minizinc --all-solutions
% prints each solution (the output must show every cell: MiniZinc enumerates the
% solutions that differ in what is output) and a separator line (----------) after it.
int: n;
int: m;
array[1..m] of set of 1..n: scope;
array[1..m] of int: need;
int: k;
array[1..n] of var 0..1: mine;
constraint forall(j in 1..m)(sum(i in scope[j])(mine[i]) = need[j]);
constraint sum(mine) = k;
solve satisfy;
"""


def write(system: CellSystem, mines: int, title: str = "") -> Written:
    """The data file of ``system`` with exactly ``mines`` mines."""
    scopes = ", ".join("{" + ",".join(map(str, cells)) + "}" for cells, _ in system.constraints)
    needs = ", ".join(str(t) for _, t in system.constraints)
    lines = [
        f"% mscsp export: {comment_line(title)}, exactly {mines} mines (model: {MODEL_FILE})",
        f"n = {system.cells};",
        f"m = {len(system.constraints)};",
        f"scope = [{scopes}];",
        f"need = [{needs}];",
        f"k = {mines};",
    ]
    # The model's constraints plus the mine number.
    return Written("\n".join(lines) + "\n", system.cells, len(system.constraints) + 1)
