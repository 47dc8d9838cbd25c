"""Every backend against the brute force, against each other, and at its limits."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from itertools import islice

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mscsp import Game, solve
from mscsp.backends import BACKENDS, get_backend
from mscsp.backends.brute import BruteBackend
from mscsp.backends.cpsat import CpSatBackend
from mscsp.backends.d4 import D4Backend
from mscsp.backends.external import ExternalBackend
from mscsp.backends.ganak import GanakBackend
from mscsp.backends.ilp import IlpBackend
from mscsp.backends.sat import SatBackend
from mscsp.backends.sdd import VTREES, SddBackend
from mscsp.constraints import Component
from mscsp.errors import BackendUnavailableError, InvalidInputError, SolverLimitError
from mscsp.evaluation.families import band, lattice
from mscsp.evaluation.played_positions import game_positions
from mscsp.reference import brute_force

#: Largest component (cells) compared with the brute force, and across backends.
BRUTE_CELLS = 14
LARGE_CELLS = 24

# Four constraints around a ring of groups: several solutions at group and cell level.
WIDE = Component(
    sizes=(2, 1, 2, 1, 2, 1, 2, 1),
    constraints=(((0, 1, 2), 2), ((2, 3, 4), 2), ((4, 5, 6), 2), ((6, 7, 0), 2)),
)


def position(rows: int, cols: int, mines: int, seed: int, step: int):
    """The board after ``step`` decisions of a solver-driven player (or its last one).

    Games their first click decides have no position; the next seed is taken, so every
    example checks a real position instead of returning early.
    """
    for game_seed in itertools.count(seed):
        boards = list(islice(game_positions(Game(rows, cols, mines, seed=game_seed)), step + 1))
        if boards:
            return boards[-1]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), step=st.integers(0, 40))
def test_components_match_brute_force(backend_name: str, seed: int, step: int) -> None:
    board = position(9, 9, 10, seed, step)
    backend, brute = get_backend(backend_name), BruteBackend()
    for component, _ in solve(board).components:
        if component.n_cells <= BRUTE_CELLS:
            assert backend.count(component) == brute.count(component)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), step=st.integers(0, 10))
def test_probabilities_match_board_brute_force(backend_name: str, seed: int, step: int) -> None:
    board = position(5, 5, 4, seed, step)
    assert solve(board, backend=backend_name).exact == brute_force(board)


def test_backends_agree_on_expert_positions(backend_name: str, expert_positions) -> None:
    backend, reference = get_backend(backend_name), get_backend("dss")
    compared = 0
    for board in expert_positions:
        for component, count in solve(board, backend=reference).components:
            if component.n_cells <= (BRUTE_CELLS if backend_name == "brute" else LARGE_CELLS):
                assert backend.count(component) == count
                compared += 1
    assert compared >= 10


@pytest.mark.parametrize(
    "make, rows, cols",
    [(lattice, 4, 4), (lattice, 4, 6), (lattice, 5, 5), (band, 5, 5), (band, 5, 6)],
)
def test_lattices_and_bands_match_brute_force(backend_name: str, make, rows, cols) -> None:
    # Wide components from the hard generators: brute force where it is small enough,
    # otherwise dss (itself checked against the brute force above).
    backend, brute, dss = get_backend(backend_name), BruteBackend(), get_backend("dss")
    compared = 0
    for seed in range(4):
        for density in (0.2, 0.5):
            board = make(rows, cols, density, seed)
            for component, count in solve(board).components:
                if component.n_cells <= BRUTE_CELLS:
                    assert backend.count(component) == brute.count(component) == count
                    compared += 1
                elif backend_name not in ("brute", "ganak") and component.n_cells <= 30:
                    # Ganak's Kronecker count takes minutes on 20-cell lattices.
                    assert backend.count(component) == dss.count(component)
                    compared += 1
    assert compared


def test_wide_component(backend_name: str) -> None:
    assert get_backend(backend_name).count(WIDE) == get_backend("dss").count(WIDE)


@pytest.mark.parametrize("cls", [SatBackend, CpSatBackend, IlpBackend])
def test_solution_cap(cls) -> None:
    if not cls.supported():
        pytest.skip(f"{cls.name} not installed")
    with pytest.raises(SolverLimitError, match="more than 2 solutions"):
        cls(max_solutions=2).count(WIDE)
    assert cls(max_solutions=10_000).count(WIDE).exact


def test_time_limit(backend_name: str) -> None:
    with pytest.raises(SolverLimitError, match="time limit"):
        get_backend(backend_name, time_limit=0).count(WIDE)


def test_sub_solvers_agree() -> None:
    if not SatBackend.supported():
        pytest.skip("python-sat not installed")
    expected = get_backend("dss").count(WIDE)
    for spec in ("sat:minicard", "sat:cadical195", "sat:glucose4", "sat:gluecard4"):
        assert get_backend(spec).count(WIDE) == expected
    assert get_backend("sat:glucose4", encoding="totalizer").count(WIDE) == expected


def test_unknown_names() -> None:
    with pytest.raises(InvalidInputError, match="choose from dss, brute"):
        get_backend("nope")
    if SatBackend.supported():
        with pytest.raises(InvalidInputError, match="cadical195"):
            get_backend("sat:nope")
        with pytest.raises(InvalidInputError, match="encoding"):
            get_backend("sat", encoding="nope")
        with pytest.raises(InvalidInputError, match=r"no option colour \(it takes: solver"):
            get_backend("sat", colour="red")
    for cls in (CpSatBackend, GanakBackend):
        if cls.supported():
            with pytest.raises(InvalidInputError, match=r"no option solver \(it takes: none\)"):
                get_backend(f"{cls.name}:anything")


def test_sdd_vtrees_agree() -> None:
    if not SddBackend.supported():
        pytest.skip("pysdd not installed")
    expected = get_backend("dss").count(WIDE)
    for vtree in VTREES:
        assert get_backend(f"sdd:{vtree}").count(WIDE) == expected
    with pytest.raises(InvalidInputError, match="balanced"):
        get_backend("sdd:nope")


@pytest.mark.parametrize(
    "cls",
    [SatBackend, GanakBackend, CpSatBackend, SddBackend, IlpBackend, D4Backend, ExternalBackend],
)
def test_missing_package_names_extra(cls, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cls, "supported", classmethod(lambda c: False))
    with pytest.raises(BackendUnavailableError, match=rf"mscsp\[{cls.extra}\]"):
        get_backend(cls.name)


def test_registry_lists_every_backend() -> None:
    assert list(BACKENDS)[0] == "dss"
    assert {"dss", "brute", "sat", "ganak", "cpsat", "sdd", "ilp", "mdd", "d4", "external"} <= set(
        BACKENDS
    )
    for name, cls in BACKENDS.items():
        assert cls.name == name and cls.description


def test_ganak_keeps_stdout_clean() -> None:
    # Ganak prints progress lines from C++ on file descriptor 1; JSON output must survive.
    if not GanakBackend.supported():
        pytest.skip("pyganak not installed")
    out = subprocess.run(
        [sys.executable, "-m", "mscsp", "probs", "--backend", "ganak", "--json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert json.loads(out)["backend"] == "ganak"


def test_import_stays_light() -> None:
    code = (
        "import sys, mscsp, mscsp.backends, mscsp.cli; "
        "heavy = [m for m in sys.modules if m.split('.')[0] in "
        "('pysat', 'pyganak', 'ortools', 'matplotlib', 'pysdd', 'pyscipopt', 'pyapproxmc', "
        "'rich', 'ms_toollib', 'py_d4')]; print(heavy); assert not heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
