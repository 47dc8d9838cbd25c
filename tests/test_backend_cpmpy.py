"""``cpmpy:SOLVER`` against the brute force and ``dss``, for every CPMpy solver installed here,
and at its limits (solution cap, time limit, unknown or missing solvers, missing CPMpy)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from mscsp import solve
from mscsp.backends import BACKENDS, get_backend
from mscsp.backends.brute import BruteBackend
from mscsp.backends.cpm import CpmpyBackend, solver_names
from mscsp.constraints import Component
from mscsp.errors import BackendUnavailableError, InvalidInputError, SolverLimitError
from mscsp.evaluation.families import band, lattice
from mscsp.evaluation.played_positions import sample_positions

#: Solvers tried; each is skipped where CPMpy cannot use it here.
SOLVERS = [
    "ortools",
    "exact",
    "z3",
    "choco",
    "scip",
    "pysat",
    "pysat:cadical195",
    "pysdd",
    "gcs",
    "minizinc",
]
#: Largest component compared with the brute force, and with ``dss``.
BRUTE_CELLS = 14
DSS_CELLS = 24
#: Scheduling slack on top of ``T + 1`` s (shared two-core machines).
SLACK = 0.5

# A ring of four numbers over groups of one and two cells: 16 cell-level solutions.
WIDE = Component(
    sizes=(2, 1, 2, 1, 2, 1, 2, 1),
    constraints=(((0, 1, 2), 2), ((2, 3, 4), 2), ((4, 5, 6), 2), ((6, 7, 0), 2)),
)


def available(solver: str) -> str:
    if not CpmpyBackend.supported():
        pytest.skip("cpmpy not installed: pip install 'mscsp[cpmpy]'")
    if solver not in solver_names():
        pytest.skip(f"CPMpy solver {solver!r} not usable here")
    return solver


@pytest.fixture(scope="module")
def components() -> list[tuple[Component, object]]:
    """Components of seeded expert and intermediate games and small lattices and bands,
    with their ``dss`` counts."""
    boards = sample_positions(16, 30, 99, 24, seed=3, per_game=3)
    boards += sample_positions(16, 16, 40, 24, seed=4, per_game=3)
    boards += [
        make(5, 5, density, seed)
        for make in (lattice, band)
        for density in (0.2, 0.5)
        for seed in range(2)
    ]
    found = [pair for board in boards for pair in solve(board).components]
    return [(c, n) for c, n in found if c.n_cells <= DSS_CELLS]


@pytest.mark.parametrize("solver", SOLVERS)
def test_counts_match_brute_force_and_dss(solver: str, components) -> None:
    backend, brute = CpmpyBackend(solver=available(solver)), BruteBackend()
    assert len(components) >= 20 and max(c.n_cells for c, _ in components) > BRUTE_CELLS
    for component, count in components:
        got = backend.count(component)
        assert got == count
        if component.n_cells <= BRUTE_CELLS:
            assert got == brute.count(component)
    assert backend.count(WIDE) == get_backend("dss").count(WIDE)


@pytest.mark.parametrize("solver", SOLVERS)
def test_inconsistent_component_counts_nothing(solver: str) -> None:
    # Two mines asked of one cell: no solution, every count zero (as the brute force says).
    component = Component(sizes=(1, 2), constraints=(((0,), 2), ((0, 1), 1)))
    got = CpmpyBackend(solver=available(solver)).count(component)
    assert got == BruteBackend().count(component)
    assert not any(got.counts)


@pytest.mark.parametrize("solver", SOLVERS)
def test_time_limit_is_honoured(solver: str) -> None:
    # lattice 14x14 d0.4 of bench/corpora/hard.jsonl: one 133-cell component, far beyond
    # enumeration.
    backend = CpmpyBackend(solver=available(solver), time_limit=1.0)
    start = time.perf_counter()
    with pytest.raises(SolverLimitError, match="time limit of 1 s"):
        solve(lattice(14, 14, 0.4, 0), backend=backend)
    assert time.perf_counter() - start < 2.0 + SLACK


@pytest.mark.parametrize("solver", ["ortools", "exact"])
def test_solution_cap(solver: str) -> None:
    # ortools counts here; exact in a child process under a deadline (the error crosses over).
    available(solver)
    with pytest.raises(SolverLimitError, match="more than 2 solutions"):
        CpmpyBackend(solver=solver, max_solutions=2, time_limit=30).count(WIDE)
    assert CpmpyBackend(solver=solver, max_solutions=16).count(WIDE) == BruteBackend().count(WIDE)


def test_zero_time_limit() -> None:
    available("ortools")
    with pytest.raises(SolverLimitError, match="time limit"):
        CpmpyBackend(time_limit=0).count(WIDE)


def test_unknown_solver_is_refused_listing_the_usable_ones() -> None:
    available("pysat")
    # rc2 is CPMpy's, but only optimises; pysat is here, its sub-solver "nope" is not.
    for name in ("nope", "rc2", "pysat:nope"):
        with pytest.raises(InvalidInputError) as info:
            CpmpyBackend(solver=name)
        message = str(info.value)
        assert "\n" not in message and repr(name) in message
        assert "available here: ortools" in message and "pysat[:SUB]" in message


def test_known_solver_missing_here() -> None:
    available("ortools")
    from cpmpy import SolverLookup

    missing = [n for n, _ in SolverLookup.base_solvers() if n not in solver_names() and n != "rc2"]
    if not missing:
        pytest.skip("every CPMpy solver is installed here")
    with pytest.raises(BackendUnavailableError, match=f"{missing[0]!r} is not installed"):
        CpmpyBackend(solver=missing[0])


def test_missing_cpmpy_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    # The package made unimportable (None in sys.modules); the real supported() answers.
    monkeypatch.setitem(sys.modules, "cpmpy", None)
    assert not CpmpyBackend.supported()
    with pytest.raises(BackendUnavailableError, match=r"mscsp\[cpmpy\]"):
        CpmpyBackend()


def test_spec_names_a_sub_solver() -> None:
    available("pysat:cadical195")
    if "cpmpy" not in BACKENDS:
        pytest.skip("cpmpy not in the registry yet")
    backend = get_backend("cpmpy:pysat:cadical195")
    assert backend.solver_name == "pysat:cadical195"
    assert backend.count(WIDE) == BruteBackend().count(WIDE)


def test_import_is_lazy() -> None:
    code = "import sys, mscsp.backends.cpm; assert 'cpmpy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
