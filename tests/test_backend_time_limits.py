"""Every backend stops at its time limit; the limit bounds the whole solve; a count run in a
child process (:mod:`mscsp.backends.native`) gives the same answer and leaves nothing behind.

Bounds are the issue's ``T + 1`` seconds plus :data:`SLACK`: the suite runs on shared
two-core machines, where a process can wait a few hundred milliseconds for a core.
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from mscsp import solve
from mscsp.backends import BACKENDS, get_backend
from mscsp.backends.dss import DssBackend
from mscsp.backends.native import run_native
from mscsp.board import COVERED, Board
from mscsp.constraints import Component, ComponentCount, build_system
from mscsp.errors import InvalidInputError, SolverLimitError
from mscsp.evaluation.families import lattice
from mscsp.reduce import reduce_system
from mscsp.runtime.deadline import Deadline, StepBudget, current

#: Scheduling slack on top of the issue's ``T + 1`` s.
SLACK = 0.5
#: One wide component of 133 cells (``lattice 14x14 d0.4 s0`` of ``bench/corpora/hard.jsonl``):
#: ``mdd`` counts it in about 0.5 s, ``dss`` in about 2 s; every other backend needs far
#: more (``ganak`` overran a 1 s limit by 9 s before counts ran in a child process).
HARD = lattice(14, 14, 0.4, 0)


@functools.cache
def exact_probabilities() -> np.ndarray:
    """``HARD``'s exact probabilities, by ``dss`` with no limit (only when needed)."""
    return solve(HARD).probabilities


def timed_solve(board: Board, backend: object, limit: float) -> tuple[float, object]:
    """Seconds of ``solve`` under ``limit`` and its solution (``None`` at the limit)."""
    start = time.perf_counter()
    try:
        solution = solve(board, backend=backend, time_limit=limit)
    except SolverLimitError:
        solution = None
    return time.perf_counter() - start, solution


@pytest.mark.parametrize("name", list(BACKENDS))
def test_every_backend_stops_at_its_time_limit(name: str) -> None:
    if not BACKENDS[name].supported():
        pytest.skip(f"backend {name!r} is not installed")
    seconds, solution = timed_solve(HARD, name, 1.0)
    assert seconds < 1.0 + 1.0 + SLACK, f"{name} took {seconds:.2f} s at a 1 s limit"
    if solution is not None and not solution.approximate:
        assert np.array_equal(solution.probabilities, exact_probabilities(), equal_nan=True)


def side_by_side(*blocks: Board) -> Board:
    """The boards next to each other, two columns apart: one component each (the column
    next to a block touches its numbers, the one after touches nothing)."""
    rows = max(b.rows for b in blocks)
    width = sum(b.cols for b in blocks) + 2 * (len(blocks) - 1)
    cells = np.full((rows, width), COVERED, dtype=np.int8)
    col = 0
    for b in blocks:
        cells[: b.rows, col : col + b.cols] = b.cells
        col += b.cols + 2
    return Board(cells, sum(b.mines for b in blocks))


class Patient(DssBackend):
    """``dss`` that first thinks for ``pause`` seconds, as long as its deadline allows: a
    component that takes most of the time limit on its own."""

    name = "patient"

    def __init__(self, pause: float, **options: object):
        super().__init__(**options)
        self.pause = pause

    def count(self, component: Component) -> ComponentCount:
        end = self._deadline()
        stop = time.perf_counter() + self.pause
        time.sleep(max(min(stop, end or stop) - time.perf_counter(), 0.0))
        self._check_deadline(end)
        return super().count(component)


def test_the_limit_bounds_the_whole_solve_not_each_component() -> None:
    # Each component takes 0.9 T: with a limit per component the second would start at
    # 0.9 T and end at 1.8 T. Sharing the solve's limit, it is stopped at T.
    board = side_by_side(*(lattice(8, 8, 0.4, seed) for seed in range(3)))
    assert len(reduce_system(build_system(board)).components) == 3
    limit = 2.0
    seconds, solution = timed_solve(board, Patient(0.9 * limit, time_limit=limit), limit)
    assert solution is None
    assert seconds < limit + 0.2 + SLACK


def test_several_hard_components_stop_within_the_limit() -> None:
    # Three components of about 2 s each for dss: a limit per component let the solve run
    # on to about two limits.
    board = side_by_side(HARD, HARD, HARD)
    assert len(reduce_system(build_system(board)).components) == 3
    limit = 2.0
    seconds, _ = timed_solve(board, "dss", limit)
    assert seconds < limit + 1.0 + SLACK


def test_a_backend_limit_names_the_backend_and_the_limit() -> None:
    if not BACKENDS["ganak"].supported():
        pytest.skip("ganak is not installed")
    with pytest.raises(SolverLimitError, match=r"backend 'ganak' hit its time limit of 0\.5 s"):
        solve(HARD, backend="ganak", time_limit=0.5)


@pytest.mark.parametrize("name", ["ganak", "approxmc", "sdd"])
def test_counts_in_a_child_process_equal_counts_in_this_one(name: str) -> None:
    if not BACKENDS[name].supported():
        pytest.skip(f"backend {name!r} is not installed")
    # A ring of four numbers, and a lattice's component of 30 cells: past the 24 cells that
    # sdd counts in-process even with a limit, and counted by ganak in about a second.
    ring = Component(
        sizes=(2, 1, 2, 1, 2, 1, 2, 1),
        constraints=(((0, 1, 2), 2), ((2, 3, 4), 2), ((4, 5, 6), 2), ((6, 7, 0), 2)),
    )
    (wide,) = reduce_system(build_system(lattice(8, 8, 0.2, 0))).components
    assert wide.n_cells > 24
    here, child = get_backend(name), get_backend(name, time_limit=120)
    for component in (ring, wide):
        assert child.count(component) == here.count(component)


def sleeper(seconds: float, pid_file: str) -> None:
    """Writes its process id to ``pid_file``, then sleeps."""
    Path(pid_file).write_text(str(os.getpid()))
    time.sleep(seconds)


def gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie counts: it runs no more)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def test_a_child_past_its_deadline_is_killed_and_collected(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    start = time.perf_counter()
    with pytest.raises(SolverLimitError, match="stopped"):
        run_native(
            sleeper,
            30.0,
            str(pid_file),
            end=start + 0.5,
            on_limit=lambda: SolverLimitError("stopped"),
        )
    assert time.perf_counter() - start < 0.5 + SLACK
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):  # collected: not even a zombie is left
        os.kill(pid, 0)


def failing(text: str) -> None:
    """Raises the project's error with ``text``."""
    raise InvalidInputError(text)


def applied_seconds() -> float | None:
    """The applied deadline's budget seen where this runs."""
    applied = current()
    return None if applied is None else applied.seconds


def test_a_child_sends_back_errors_and_sees_no_deadline_of_ours() -> None:
    end = time.perf_counter() + 60
    with pytest.raises(InvalidInputError, match="bad value 7"):
        run_native(failing, "bad value 7", end=end, on_limit=SolverLimitError)
    with Deadline(60).applied():
        assert applied_seconds() == 60
        assert run_native(applied_seconds, end=end, on_limit=SolverLimitError) is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_child_dies_with_its_parent(tmp_path: Path) -> None:
    # A web worker killed at its limit must not leave its count running.
    pid_file = tmp_path / "pid"
    script = (
        "import os, pathlib, time\n"
        "from mscsp.backends.native import run_native\n"
        "def sleeper():\n"
        f"    pathlib.Path({str(pid_file)!r}).write_text(str(os.getpid()))\n"
        "    time.sleep(60)\n"
        "run_native(sleeper, end=time.perf_counter() + 60, on_limit=RuntimeError)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script])
    try:
        for _ in range(200):
            if pid_file.exists() and pid_file.read_text():
                break
            time.sleep(0.05)
        child = int(pid_file.read_text())
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    for _ in range(40):
        if gone(child):
            break
        time.sleep(0.05)
    assert gone(child)


def test_a_step_budget_stops_a_search_at_the_same_step_whatever_the_clock() -> None:
    budget = StepBudget(2)
    budget.check()
    time.sleep(0.01)  # (time does not count)
    budget.check()
    with pytest.raises(SolverLimitError, match="budget of steps"):
        budget.check()


def test_applied_deadlines_nest_to_the_sooner() -> None:
    outer, inner = Deadline(1), Deadline(60)
    with outer.applied():
        with inner.applied() as applied:
            assert applied is outer
        with Deadline(None).applied() as applied:
            assert applied is outer
        with Deadline(0.5).applied() as applied:
            assert applied.seconds == 0.5
    assert current() is None
    with Deadline(None).applied(), Deadline(2).applied() as applied:
        assert applied.seconds == 2
