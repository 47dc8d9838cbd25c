"""``cpsat``: OR-Tools CP-SAT enumerating group-level solutions.

Each group of ``s`` interchangeable cells is one integer variable ``0..s``, each number a
linear equality; ``enumerate_all_solutions`` with a single worker visits every group-level
solution exactly once and a callback weights it by binomials
(:class:`~mscsp.backends.tally.GroupTally`).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ..constraints import Component, ComponentCount
from ..errors import SolverLimitError
from .base import Backend
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
        if time_limit is not None:
            params.max_time_in_seconds = time_limit

    def count(self, component: Component) -> ComponentCount:
        from ortools.sat.python import cp_model

        model = cp_model.CpModel()
        mines = [model.new_int_var(0, s, f"g{g}") for g, s in enumerate(component.sizes)]
        for groups, t in component.constraints:
            model.add(sum(mines[g] for g in groups) == t)
        tally = GroupTally(component.sizes, self.max_solutions, self.name)

        collector = _collector_class()(mines, tally)
        status = self.solver.solve(model, collector)
        if collector.error is not None:
            raise collector.error
        if status not in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
            raise SolverLimitError(
                f"backend {self.name!r} hit its time limit of {self.time_limit} s on a component"
            )
        return tally.result()
