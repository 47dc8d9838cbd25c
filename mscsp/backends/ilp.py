"""``ilp``: integer programming with SCIP (``pyscipopt``), enumeration by no-good cuts.

Each group of ``s`` cells is a one-hot choice of its mine count: binaries ``y[g][x]`` for
``x = 0..s`` with ``sum_x y[g][x] = 1``, and each number a linear equality over
``sum_x x * y[g][x]``. Counting solves the feasibility problem, records the group-level
solution (weighted by binomials, :class:`~mscsp.backends.tally.GroupTally`), adds the
no-good cut ``sum_g y[g][x_g] <= groups - 1`` that removes exactly that solution, and solves
again until the problem is infeasible. One-hot binaries make each no-good a single linear
row; general integers would need auxiliary variables per cut.

Deciding (``decides``) is plain feasibility: one solve per question, with the question's
row added and removed again on the same model.
"""

from __future__ import annotations

import time
from typing import Any

from ..constraints import Component, ComponentCount
from .base import Backend
from .decision import Condition, Finder
from .tally import GroupTally


class IlpBackend(Backend):
    """SCIP feasibility solves, one per group-level solution (no-good cuts between them)."""

    name = "ilp"
    extra = "ilp"
    description = "SCIP integer programming (pyscipopt): one-hot groups, no-good cut enumeration"
    requires = ("pyscipopt",)
    distribution = "pyscipopt"
    decides = True

    def _model(self, component: Component) -> tuple[Any, list[list[Any]], Any]:
        """The SCIP model, its one-hot variables ``y[g][x]`` and the mine-total expression."""
        from pyscipopt import Model, quicksum

        model = Model("minesweeper")
        model.hideOutput()
        model.setParam("limits/solutions", 1)  # feasibility: stop at the first solution
        model.setParam("presolving/maxrounds", 0)  # presolve costs more than it saves here
        y = [
            [model.addVar(f"y{g}_{x}", vtype="B") for x in range(s + 1)]
            for g, s in enumerate(component.sizes)
        ]
        for row in y:
            model.addCons(quicksum(row) == 1)
        mines = [quicksum(x * v for x, v in enumerate(row)) for row in y]
        for groups, t in component.constraints:
            model.addCons(quicksum(mines[g] for g in groups) == t)
        return model, y, quicksum(mines)

    def _solve(self, model: Any, y: list[list[Any]], deadline: float | None) -> list[int] | None:
        """Mines per group of one solution, or ``None`` when infeasible."""
        self._check_deadline(deadline)
        if deadline is not None:
            model.setParam("limits/time", max(deadline - time.perf_counter(), 0.001))
        model.optimize()
        status = model.getStatus()
        if status == "infeasible":
            return None
        if model.getNSols() == 0:
            raise self._limit_error()
        sol = model.getBestSol()
        return [max(range(len(row)), key=lambda x: sol[row[x]]) for row in y]

    def count(self, component: Component) -> ComponentCount:
        from pyscipopt import quicksum

        deadline = self._deadline()
        model, y, _ = self._model(component)
        tally = GroupTally(component.sizes, self.max_solutions, self.name)
        while (mines := self._solve(model, y, deadline)) is not None:
            tally.add(mines)
            model.freeTransform()
            chosen = [row[x] for row, x in zip(y, mines, strict=True)]
            model.addCons(quicksum(chosen) <= len(chosen) - 1)
        return tally.result()

    def _finder(self, component: Component, lo: int, hi: int | None) -> Finder:
        deadline = self._deadline()
        model, y, total = self._model(component)
        model.addCons(total >= lo)
        if hi is not None:
            model.addCons(total <= hi)

        def find(condition: Condition) -> list[int] | None:
            model.freeTransform()
            row = None
            if condition is not None:
                kind, value = condition
                if kind == "mine":
                    row = model.addCons(y[value][0] == 0)
                elif kind == "safe":
                    row = model.addCons(y[value][-1] == 0)
                elif kind == "at_most":
                    row = model.addCons(total <= value)
                else:
                    row = model.addCons(total >= value)
            try:
                return self._solve(model, y, deadline)
            finally:
                if row is not None:
                    model.freeTransform()
                    model.delCons(row)

        return find
