"""``sat``: enumerates group-level solutions with a PySAT solver and blocking clauses.

Each group ``g`` of ``s`` interchangeable cells is one order-encoded integer: variables
``u[g][j]`` mean "at least ``j`` mines in ``g``" (``u[g][j+1] -> u[g][j]``), so every model
is one group-level solution and a blocking clause over the ``u`` variables alone removes
exactly that solution: auxiliary cardinality variables never multiply the count. Each
number becomes "exactly ``t`` of these order literals", natively on solvers with cardinality
constraints (minicard, gluecard) and in CNF otherwise (:func:`~mscsp.formats.cnf.exactly`).
Solutions are weighted by binomials (:class:`~mscsp.backends.tally.GroupTally`).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

from ..constraints import Component, ComponentCount
from ..errors import InvalidInputError
from ..formats.cnf import exactly
from .base import Backend
from .decision import Condition, Finder
from .tally import GroupTally

#: Sub-solver used by a plain ``sat``: native cardinality, least set-up per call.
DEFAULT_SOLVER = "minicard"


def order_variables(sizes: tuple[int, ...]) -> list[list[int]]:
    """Consecutive variable ids ``u[g][j-1]`` for "group ``g`` has at least ``j`` mines"."""
    out, top = [], 0
    for s in sizes:
        out.append(list(range(top + 1, top + s + 1)))
        top += s
    return out


class SatBackend(Backend):
    """Model enumeration with any PySAT solver (``sat:NAME`` picks it; default minicard).

    Options:
        solver: A :data:`pysat.solvers.SolverNames` name such as ``cadical195``.
        encoding: A :class:`pysat.card.EncType` name for solvers without native
            cardinality constraints, used for constraints too large to encode directly
            (default ``seqcounter``).
    """

    name = "sat"
    extra = "sat"
    description = "PySAT model enumeration over order-encoded group counts, blocking clauses"
    requires = ("pysat.solvers", "pysat.card")
    distribution = "python-sat"
    options_allowed = ("solver", "encoding")
    spec_arg = "SOLVER"
    decides = True

    def __init__(
        self, time_limit: float | None = None, max_solutions: int | None = None, **options: Any
    ):
        super().__init__(time_limit, max_solutions, **options)
        from pysat.card import EncType
        from pysat.solvers import SolverNames

        self.solver_name = options.get("solver", DEFAULT_SOLVER)
        names = sorted(n for n in vars(SolverNames) if not n.startswith("_"))
        if self.solver_name not in names:
            raise InvalidInputError(
                f"unknown SAT solver {self.solver_name!r}; choose from {', '.join(names)}"
            )
        encoding = options.get("encoding", "seqcounter")
        if not isinstance(getattr(EncType, encoding, None), int):
            raise InvalidInputError(f"unknown cardinality encoding {encoding!r}")
        self.encoding = getattr(EncType, encoding)

    def _load(self, solver: Any, component: Component) -> list[list[int]]:
        """Adds the component's order encoding and numbers to ``solver``; its order variables."""
        order = order_variables(component.sizes)
        top = component.n_cells
        native = bool(solver.supports_atmost())
        for u in order:
            for j in range(len(u) - 1):
                solver.add_clause([-u[j + 1], u[j]])
        for groups, t in component.constraints:
            lits = [v for g in groups for v in order[g]]
            if native:
                solver.add_atmost(lits, t)
                solver.add_atmost([-v for v in lits], len(lits) - t)
            else:
                clauses, top = exactly(lits, t, top, self.encoding)
                solver.append_formula(clauses)
        return order

    def count(self, component: Component) -> ComponentCount:
        from pysat.solvers import Solver

        tally = GroupTally(component.sizes, self.max_solutions, self.name)
        deadline = self._deadline()
        with Solver(name=self.solver_name) as solver, _interrupt_at(solver, deadline):
            order = self._load(solver, component)
            while self._solve(solver, [], deadline):
                mines = _mines(order, solver.get_model())
                tally.add(mines)
                # "Not exactly x_g in some group": -u[x] (fewer) or u[x+1] (more).
                block = []
                for u, x in zip(order, mines, strict=True):
                    if x:
                        block.append(-u[x - 1])
                    if x < len(u):
                        block.append(u[x])
                solver.add_clause(block)
        return tally.result()

    def _finder(self, component: Component, lo: int, hi: int | None) -> Finder:
        """Incremental solving under assumptions; totals through two incremental totalizers
        (one over the order literals for "at most", one over their negations for "at
        least"), so every question is one ``solve(assumptions=...)`` on the same solver."""
        from pysat.card import ITotalizer
        from pysat.solvers import Solver

        deadline = self._deadline()
        solver = Solver(name=self.solver_name)
        order = self._load(solver, component)
        lits = [v for u in order for v in u]
        n = len(lits)
        top = max(n, solver.nof_vars())
        more = ITotalizer(lits, ubound=n, top_id=top)
        fewer = ITotalizer([-v for v in lits], ubound=n, top_id=more.top_id)
        solver.append_formula(more.cnf.clauses)
        solver.append_formula(fewer.cnf.clauses)

        def at_most(k: int) -> list[int]:  # assumptions for "sum <= k" (k in 0..n-1)
            return [-more.rhs[k]]

        def at_least(k: int) -> list[int]:  # "sum >= k" is "negations <= n - k"
            return [-fewer.rhs[n - k]]

        if (hi is not None and hi < 0) or lo > n:
            return lambda condition: None
        base = at_most(hi) if hi is not None and hi < n else []
        base += at_least(lo) if lo > 0 else []

        def find(condition: Condition) -> list[int] | None:
            self._check_deadline(deadline)
            assumptions = list(base)
            if condition is not None:
                kind, value = condition
                if kind == "mine":
                    assumptions.append(order[value][0])
                elif kind == "safe":
                    assumptions.append(-order[value][-1])
                elif kind == "at_most":
                    if value < 0:
                        return None
                    assumptions += at_most(value) if value < n else []
                else:
                    if value > n:
                        return None
                    assumptions += at_least(value) if value > 0 else []
            with _interrupt_at(solver, deadline):
                if not self._solve(solver, assumptions, deadline):
                    return None
            return _mines(order, solver.get_model())

        return find

    def _solve(self, solver: Any, assumptions: list[int], deadline: float | None) -> bool:
        """``solve`` under assumptions; with a deadline, one that :func:`_interrupt_at`
        stops there (a single call can be long).

        Raises:
            SolverLimitError: The deadline came first.
        """
        if deadline is None:
            return solver.solve(assumptions=assumptions)
        try:
            found = solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
        except NotImplementedError:  # CaDiCaL: not interruptible, checked between calls only
            self._check_deadline(deadline)
            return solver.solve(assumptions=assumptions)
        if found is None:
            raise self._limit_error()
        return found


@contextlib.contextmanager
def _interrupt_at(solver: Any, deadline: float | None) -> Iterator[None]:
    """Interrupts ``solver``'s limited solves at ``deadline`` (from a timer thread)."""
    if deadline is None:
        yield
        return
    timer = threading.Timer(max(deadline - time.perf_counter(), 0.0), solver.interrupt)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        timer.join()  # never interrupt a solver that the caller deletes next


def _mines(order: list[list[int]], model: list[int]) -> list[int]:
    """Mines per group in a model of the order encoding."""
    return [sum(model[v - 1] > 0 for v in u) for u in order]
