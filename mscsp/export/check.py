"""Counting exported files with real solvers, each reading the file itself where it can.

* ``ganak`` (``pyganak``, which takes clauses, not files): the file is read by
  :func:`~mscsp.formats.dimacs.read_cnf`, then counted projected on its ``c p show``
  variables (``pmc``) or weighted by its ``c p weight`` lines (``wmc``: Ganak's weighted
  count is a float, exact up to 2**53).
* ``d4`` (``py_d4``, the ``d4solver`` package): reads the CNF file itself, ``c p show``
  lines included; exact counts of ``pmc`` files. Not for ``wmc``: it reads the weights but
  gives the weighted count as a float with 5 significant digits (``3.3986e+06``).
* ``scip`` (``pyscipopt``): reads ``.opb`` and ``.lp`` files, counts the solutions with
  SCIP's counting mode (presolving restricted to steps that keep every solution).
* ``minizinc``: the ``minizinc`` command (with Gecode) on ``model.mzn`` and a ``.dzn``
  file, ``--all-solutions``; one separator line per solution.

Every count runs in a child process killed at the time limit
(:func:`~mscsp.backends.native.run_native`; a subprocess for ``minizinc``).
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from ..backends.native import run_native
from ..errors import BackendUnavailableError, InvalidInputError, SolverLimitError
from ..formats.dimacs import read_cnf
from ..formats.mzn import MODEL_FILE

#: Lines MiniZinc prints after each solution, and once the search is complete.
_SOLUTION, _COMPLETE, _UNSAT = "----------", "==========", "=====UNSATISFIABLE====="


def ganak_count(path: str) -> int:
    """The count Ganak gives of an MCC-format CNF file (see module doc)."""
    cnf = read_cnf(path)
    try:
        from pyganak import Counter, WeightedCounter
    except ImportError:
        raise BackendUnavailableError("ganak needs pyganak: pip install 'mscsp[sat]'") from None
    weighted = cnf.kind in ("wmc", "pwmc")
    counter = WeightedCounter() if weighted else Counter()
    counter.add_clauses(cnf.clauses)
    if cnf.variables > counter.nof_vars():
        counter.new_vars(cnf.variables - counter.nof_vars())
    if cnf.show:
        counter.set_sampling_set(cnf.show)
    for lit, weight in cnf.weights.items():
        counter.set_lit_weight(lit, float(weight))
    value = counter.count()
    if not weighted:
        return int(value)
    if value >= 2**53:  # a double: past 2**53 the integer is no longer exact
        raise SolverLimitError(f"ganak on {path}: weighted count {value:g} is past 2**53, inexact")
    return round(value)


def d4_count(path: str) -> int:
    """The count D4 gives of a CNF file it reads itself."""
    try:
        import py_d4
    except ImportError:
        raise BackendUnavailableError("d4 needs py_d4: pip install d4solver") from None
    result = py_d4.Solver(str(path)).count().getResult()
    try:
        return int(result)
    except ValueError:
        raise InvalidInputError(f"d4 on {path}: not an integer count: {result!r}") from None


def scip_count(path: str) -> int:
    """The number of solutions SCIP counts in an ``.opb`` or ``.lp`` file."""
    try:
        from pyscipopt import Model
    except ImportError:
        raise BackendUnavailableError("scip needs pyscipopt: pip install 'mscsp[ilp]'") from None
    model = Model()
    model.hideOutput()
    try:
        model.readProblem(str(path))
    except Exception as exc:  # SCIP reports a bad file as a generic error
        raise InvalidInputError(f"scip cannot read {path}: {exc}") from None
    model.setParamsCountsols()
    model.count()
    # Counting ends "infeasible" when it found every solution but optimises nothing.
    if model.getStatus() not in ("optimal", "infeasible"):
        raise SolverLimitError(f"scip on {path} stopped: {model.getStatus()}")
    return int(model.getNCountedSols())


def minizinc_count(path: str, time_limit: float | None = None) -> int:
    """The number of solutions ``minizinc --all-solutions`` prints for a ``.dzn`` file
    (with ``model.mzn`` of the same folder)."""
    command = shutil.which("minizinc")
    if command is None:
        raise BackendUnavailableError("the minizinc command is not installed")
    model = Path(path).with_name(MODEL_FILE)
    args = [command, "--solver", "gecode", "--all-solutions", str(model), str(path)]
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=time_limit)
    except subprocess.TimeoutExpired:
        raise SolverLimitError(f"minizinc on {path} ran past {time_limit:g} s") from None
    lines = done.stdout.splitlines()
    if _UNSAT in lines:
        return 0
    if done.returncode or _COMPLETE not in lines:
        why = (done.stderr.strip().splitlines() or ["no complete search"])[-1]
        raise InvalidInputError(f"minizinc on {path}: {why}")
    return lines.count(_SOLUTION)


#: Counter name -> (count function, the index kinds it reads).
COUNTERS: dict[str, tuple[Callable[[str], int], tuple[str, ...]]] = {
    "ganak": (ganak_count, ("pmc", "wmc")),
    "d4": (d4_count, ("pmc",)),
    "scip": (scip_count, ("opb", "lp")),
    "minizinc": (minizinc_count, ("mzn",)),
}


def count_file(path: str | Path, counter: str, time_limit: float | None = None) -> int:
    """The count ``counter`` (one of :data:`COUNTERS`) gives of an exported file.

    Raises:
        InvalidInputError: An unknown counter, or the file is damaged.
        BackendUnavailableError: The counter is not installed.
        SolverLimitError: It ran past ``time_limit`` seconds, or its process died.
    """
    if counter not in COUNTERS:
        raise InvalidInputError(f"unknown counter {counter!r} (one of {', '.join(COUNTERS)})")
    function = COUNTERS[counter][0]
    if function is minizinc_count:
        return minizinc_count(str(path), time_limit)
    end = None if time_limit is None else time.perf_counter() + time_limit
    return run_native(
        function,
        str(path),
        end=end,
        on_limit=lambda: SolverLimitError(f"{counter} on {path} ran past {time_limit:g} s"),
    )
