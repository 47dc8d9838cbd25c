"""``cpsat``: OR-Tools CP-SAT enumerating group-level solutions.

Each group of ``s`` interchangeable cells is one integer variable ``0..s``, each number a
linear equality; ``enumerate_all_solutions`` with a single worker visits every group-level
solution exactly once and a callback weights it by binomials
(:class:`~mscsp.backends.tally.GroupTally`).
"""

from __future__ import annotations

import time
from functools import cache
from typing import Any

from ..constraints import Component, ComponentCount
from ..errors import SolverLimitError
from .base import Backend
from .decision import Condition, Finder
from .tally import GroupTally


@cache
def _collector_class() -> type:
    """The solution callback class (built once: it subclasses an ortools class)."""
    from ortools.sat.python import cp_model

    class Collector(cp_model.CpSolverSolutionCallback):
        """Adds every solution to a :class:`GroupTally`."""

        def __init__(self, mines: list, tally: GroupTally) -> None:
            super().__init__()
            self.mines = mines
            self.tally = tally
            self.error: SolverLimitError | None = None

        def on_solution_callback(self) -> None:
            try:
                self.tally.add([self.value(x) for x in self.mines])
            except SolverLimitError as exc:
                # Exceptions cannot cross the C++ boundary: stop, re-raise after the solve.
                self.error = exc
                self.stop_search()

    return Collector


class CpSatBackend(Backend):
    """Exhaustive enumeration with CP-SAT (one worker, so nothing is counted twice)."""

    name = "cpsat"
    extra = "cpsat"
    description = "OR-Tools CP-SAT enumerate_all_solutions over integer group counts"
    requires = ("ortools.sat.python.cp_model",)
    distribution = "ortools"
    decides = True

    def __init__(
        self, time_limit: float | None = None, max_solutions: int | None = None, **options: Any
    ):
        super().__init__(time_limit, max_solutions, **options)
        from ortools.sat.python import cp_model

        # One solver for every component. Presolve and LP relaxations cost more set-up than
        # they save on these tiny models (about a quarter of the time on the bench corpus).
        self.solver = cp_model.CpSolver()
        params = self.solver.parameters
        params.enumerate_all_solutions = True
        params.num_workers = 1
        params.cp_model_presolve = False
        params.linearization_level = 0

    def count(self, component: Component) -> ComponentCount:
        from ortools.sat.python import cp_model

        deadline = self._deadline()
        model = cp_model.CpModel()
        mines = [model.new_int_var(0, s, f"g{g}") for g, s in enumerate(component.sizes)]
        for groups, t in component.constraints:
            model.add(sum(mines[g] for g in groups) == t)
        tally = GroupTally(component.sizes, self.max_solutions, self.name)

        collector = _collector_class()(mines, tally)
        # What is left of the deadline (building the model took some); CP-SAT stops there.
        self._check_deadline(deadline)
        left = float("inf") if deadline is None else deadline - time.perf_counter()
        self.solver.parameters.max_time_in_seconds = max(left, 0.0)
        status = self.solver.solve(model, collector)
        if collector.error is not None:
            raise collector.error
        if status not in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
            raise self._limit_error()
        return tally.result()

    def _finder(self, component: Component, lo: int, hi: int | None) -> Finder:
        """One model; each question is a solve with one enforcement literal assumed."""
        from ortools.sat.python import cp_model

        model = cp_model.CpModel()
        mines = [model.new_int_var(0, s, f"g{g}") for g, s in enumerate(component.sizes)]
        for groups, t in component.constraints:
            model.add(sum(mines[g] for g in groups) == t)
        total = sum(mines)
        model.add(total >= lo)
        if hi is not None:
            model.add(total <= hi)
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        deadline = self._deadline()
        asked: dict[Condition, object] = {}

        def find(condition: Condition) -> list[int] | None:
            self._check_deadline(deadline)
            model.clear_assumptions()
            if condition is not None:
                if condition not in asked:
                    kind, value = condition
                    flag = model.new_bool_var(f"{kind}{value}")
                    if kind == "mine":
                        model.add(mines[value] >= 1).only_enforce_if(flag)
                    elif kind == "safe":
                        model.add(mines[value] <= component.sizes[value] - 1).only_enforce_if(flag)
                    elif kind == "at_most":
                        model.add(total <= value).only_enforce_if(flag)
                    else:
                        model.add(total >= value).only_enforce_if(flag)
                    asked[condition] = flag
                model.add_assumptions([asked[condition]])
            if deadline is not None:
                solver.parameters.max_time_in_seconds = max(deadline - time.perf_counter(), 0)
            status = solver.solve(model)
            if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                return [solver.value(x) for x in mines]
            if status == cp_model.INFEASIBLE:
                return None
            raise self._limit_error()

        return find
