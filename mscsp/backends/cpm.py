"""``cpmpy:SOLVER``: one CPMpy model per component, enumerated by any solver CPMpy drives.

CPMpy (a modelling layer of the CP community) states a component once and hands it to
whichever solver is named: OR-Tools, Exact, Z3, Choco, SCIP, PySAT, PySDD, and others where
installed. The count is an enumeration (``Model.solveAll``) of *group-level* solutions,
weighted by binomials (:class:`~mscsp.backends.tally.GroupTally`), as ``cpsat`` does:

* solvers with integer variables get one variable ``0..s`` per group of ``s`` cells and one
  linear equality per number;
* Boolean-only solvers (:data:`BOOLEAN_ONLY`) get the order encoding of ``sat``
  (``u[g][j]``: "at least ``j + 1`` mines in group ``g``", so a model is one group-level
  solution) and each number as clauses without auxiliary variables
  (:func:`~mscsp.formats.cnf.exactly`): CPMpy's PySDD interface takes no sums, and an
  auxiliary variable would become a "user" variable whose values multiply the models.

Only OR-Tools stops at ``solveAll``'s ``time_limit`` (:data:`STOPS_AT_TIME_LIMIT`): it
counts in this process. The others enumerate with CPMpy's generic loop (a solve and a
nogood per solution, the limit checked between solves) or run a call to its end, and overran
a 1 s limit on a 14x14 lattice by 0.4 s (SCIP) to 34 s (PySAT), PySAT's CaDiCaL refusing a
limited solve outright, and PySDD compiles without one: they count in a child process killed
at the deadline (:func:`~mscsp.backends.native.run_native`), at the cost of a fork per
component when a limit is set.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from functools import cache
from typing import Any

from ..constraints import Component, ComponentCount
from ..errors import BackendUnavailableError, InvalidInputError, SolverLimitError
from ..formats.cnf import exactly
from .base import Backend
from .native import run_native
from .sat import order_variables
from .tally import GroupTally

#: CPMpy's own default solver.
DEFAULT_SOLVER = "ortools"
#: Solvers whose CPMpy interface takes Boolean variables only.
BOOLEAN_ONLY = frozenset({"pysat", "pysdd"})
#: Solvers that only optimise (MaxSAT): they refuse a model without an objective.
OPTIMISERS = frozenset({"rc2"})
#: Solvers checked to end ``solveAll`` at its ``time_limit`` (``tests/test_backend_cpmpy.py``).
STOPS_AT_TIME_LIMIT = frozenset({"ortools"})


@cache
def solver_names() -> tuple[str, ...]:
    """Every CPMpy solver name usable here, sub-solvers included (``pysat:cadical195``)."""
    from cpmpy import SolverLookup

    # Asking MiniZinc's interface whether it runs warns when its binary is missing.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        names = SolverLookup.solvernames()
    return tuple(name for name in names if name.partition(":")[0] not in OPTIMISERS)


def solvers_summary() -> str:
    """The usable solvers on one line, ``NAME[:SUB]`` where a solver takes sub-solvers."""
    names = solver_names()
    bases = dict.fromkeys(name.partition(":")[0] for name in names)
    return ", ".join(
        f"{base}[:SUB]" if any(n.startswith(f"{base}:") for n in names) else base for base in bases
    )


class CpmpyBackend(Backend):
    """Enumeration through CPMpy with any solver it supports here (``cpmpy:NAME``).

    Options:
        solver: A CPMpy solver name (:func:`solver_names`), default ``ortools``.
    """

    name = "cpmpy"
    extra = "cpmpy"
    description = "CPMpy model of group counts, solveAll enumeration by any CPMpy solver"
    requires = ("cpmpy",)
    distribution = "cpmpy"
    options_allowed = ("solver",)
    spec_arg = "SOLVER"

    def __init__(
        self, time_limit: float | None = None, max_solutions: int | None = None, **options: Any
    ):
        super().__init__(time_limit, max_solutions, **options)
        from cpmpy import SolverLookup

        self.solver_name = options.get("solver", DEFAULT_SOLVER)
        names = solver_names()
        if self.solver_name not in names:
            base = self.solver_name.partition(":")[0]
            known = {name for name, _ in SolverLookup.base_solvers()} - OPTIMISERS
            usable = {name.partition(":")[0] for name in names}
            here = f"available here: {solvers_summary()}"
            if base in known - usable:
                raise BackendUnavailableError(
                    f"CPMpy solver {self.solver_name!r} is not installed here ({here})"
                )
            raise InvalidInputError(f"unknown CPMpy solver {self.solver_name!r}; {here}")
        self.base_solver = self.solver_name.partition(":")[0]

    def count(self, component: Component) -> ComponentCount:
        deadline = self._deadline()
        self._check_deadline(deadline)
        if self.base_solver not in STOPS_AT_TIME_LIMIT:
            complete, result = run_native(
                enumerate_component,
                self.solver_name,
                component,
                self.max_solutions,
                None,
                end=deadline,
                on_limit=self._limit_error,
            )
        else:
            left = None if deadline is None else max(deadline - time.perf_counter(), 0.0)
            complete, result = enumerate_component(
                self.solver_name, component, self.max_solutions, left
            )
        if not complete:
            raise self._limit_error()
        return result


def enumerate_component(
    solver: str, component: Component, max_solutions: int | None, time_limit: float | None
) -> tuple[bool, ComponentCount]:
    """Every group-level solution of ``component`` by the CPMpy solver ``solver``.

    Module level, so that :func:`~mscsp.backends.native.run_native` can run it in a child.

    Returns:
        Whether the enumeration finished (``False``: stopped at ``time_limit``), and the
        counts of the solutions found.

    Raises:
        SolverLimitError: More than ``max_solutions`` group-level solutions.
    """
    import cpmpy as cp
    from cpmpy.solvers.solver_interface import ExitStatus

    build = _boolean_model if solver.partition(":")[0] in BOOLEAN_ONLY else _integer_model
    constraints, mines = build(component)
    tally = GroupTally(component.sizes, max_solutions, f"cpmpy:{solver}")
    errors: list[SolverLimitError] = []

    def add() -> None:
        if errors:  # a solver that collects its solutions first calls back once per solution
            return
        try:
            tally.add([group() for group in mines])
        except SolverLimitError as exc:
            # Solvers call back from C++ or Java, where an exception is lost: keep it, and
            # let the solution limit below (one more than the cap) stop the search.
            errors.append(exc)

    model = cp.Model(constraints)
    with warnings.catch_warnings():
        # Generic enumeration warns that it is generic (SCIP), and Exact about options.
        warnings.filterwarnings("ignore", module=r"cpmpy\.")
        model.solveAll(
            solver=solver,
            display=add,
            time_limit=time_limit,
            solution_limit=None if max_solutions is None else max_solutions + 1,
        )
    if errors:
        raise errors[0]
    # Without a time limit the enumeration ran to its end (PySDD leaves no status when a
    # component has no solution); with one, the status says whether it got there.
    status = model.status().exitstatus
    done = time_limit is None or status in (ExitStatus.OPTIMAL, ExitStatus.UNSATISFIABLE)
    return done, tally.result()


def _integer_model(component: Component) -> tuple[list, list[Callable[[], int]]]:
    """One integer variable per group, one linear equality per number."""
    import cpmpy as cp

    groups = [cp.intvar(0, s, name=f"g{g}") for g, s in enumerate(component.sizes)]
    constraints = [cp.sum([groups[g] for g in gs]) == t for gs, t in component.constraints]
    return constraints, [lambda x=x: int(x.value()) for x in groups]


def _boolean_model(component: Component) -> tuple[list, list[Callable[[], int]]]:
    """Order-encoded group counts (``u[j + 1] -> u[j]``), each number as clauses."""
    import cpmpy as cp

    order = order_variables(component.sizes)  # DIMACS ids, 1..n_cells
    top = component.n_cells
    var = {i: cp.boolvar(name=f"u{i}") for u in order for i in u}

    def literal(i: int) -> Any:
        return var[i] if i > 0 else ~var[-i]

    constraints = [var[u[j + 1]].implies(var[u[j]]) for u in order for j in range(len(u) - 1)]
    for gs, t in component.constraints:
        ids = [i for g in gs for i in order[g]]
        clauses, new_top = exactly(ids, t, top)
        if new_top == top:
            constraints += [cp.any([literal(i) for i in clause]) for clause in clauses]
        else:
            # Never on a board (a number has at most 8 cells). Auxiliary variables would be
            # enumerated as solutions of their own: the solver's own sum hides them.
            constraints.append(cp.sum([var[i] for i in ids]) == t)
    return constraints, [lambda u=u: sum(bool(var[i].value()) for i in u) for u in order]
