"""Where the bench's runs happen: one backend solving positions, timed, in this process or
in an isolated worker, on one worker or several.

A run is one backend solving one position (the fastest of ``repeat`` solves), timed per
component (:class:`TimedBackend`). Isolated, it runs in a persistent worker process
(:class:`mscsp.runtime.worker.Worker`) under a memory limit on what the worker and its
children hold resident, killed past it or when the position runs past the time limit:
backends check their limit cooperatively, but a native counter (Ganak, a knowledge
compiler) may not return for a long time, and killing its process is the only sure stop. A
worker that ran out of memory, died or was killed is replaced for the next position. An
isolated run records its CPU seconds and peak resident memory, and a run that failed what
its process said as it failed (:func:`crash_text`).

:func:`counting_runs` spreads a backend's runs over the executor layer
(:func:`mscsp.runtime.executors.parallel_map`): each of its processes (this one included)
keeps the runner of the backend it ran last, so a worker starts once per backend and
process, not once per run.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from ..backends import Backend, get_backend
from ..backends.position import decide_position
from ..board import Board, parse_board
from ..constraints import Component, ComponentCount
from ..errors import MemoryLimitError, MscspError, SolverLimitError, WrongCountError
from ..runtime.child import LIMIT, MEMORY, OK, RAISED, STDERR_TAIL, Outcome
from ..runtime.executors import parallel_map
from ..runtime.worker import Worker
from ..solver import solve
from ..trust.escape import comment_line

#: A tiny consistent position, solved once untimed by every backend before the timed runs.
WARMUP = "4x2x2\n1?1?\n????\n"


class RunOutcome(NamedTuple):
    """One position solved by one backend: the run's status (see
    :class:`~mscsp.evaluation.benchmark.PositionRecord`), seconds, answer (the probability
    array in count mode, a :class:`~mscsp.backends.position.PositionDecision` in decide
    mode), the count of layouts (counting backends, count mode), the component records
    (``None``: the run stopped before it reached them), and, isolated, the worker's peak
    resident memory (MiB, its children included), the CPU seconds of the call (every
    repeat, its children included) and, for a run that failed, its :func:`crash_text`
    (``None`` where unknown or none)."""

    status: str
    seconds: float
    answer: Any = None
    count: int | None = None
    records: list | None = None
    peak_mb: float | None = None
    cpu_seconds: float | None = None
    crash: str | None = None


class TimedBackend(Backend):
    """Wraps a backend to time each component it counts (so :func:`solve` can be reused)."""

    name = "timed"

    def __init__(self, inner: Backend):
        super().__init__()
        self.inner = inner
        self.records: list[tuple[Component, ComponentCount | None, float, str]] = []

    def count(self, component: Component) -> ComponentCount:
        start = time.perf_counter()
        try:
            result = self.inner.count(component)
        except (MemoryError, SolverLimitError) as exc:
            status = failure(exc)
            self.records.append((component, None, time.perf_counter() - start, status))
            raise
        self.records.append((component, result, time.perf_counter() - start, "ok"))
        return result


def crash_text(outcome: Outcome) -> str | None:
    """What a failed run's worker said as it failed, escaped to one line of printable
    ASCII (:func:`~mscsp.trust.escape.comment_line`): how it died and the last line it (or
    a native child) wrote to standard error (``killed by SIGABRT: double free or corruption
    (out)``), or the exception a bug raised; ``None`` where it said nothing."""
    if outcome.status == RAISED:
        text = f"{type(outcome.value).__name__}: {outcome.value}"
    else:
        text = outcome.crash
    return comment_line(text, STDERR_TAIL) if text else None


def failure(exc: BaseException) -> str:
    """The status of a run that raised ``exc``: ``memout``, ``limit``, or ``wrong`` (a
    foreign program's count failed its checks: :mod:`mscsp.backends.checked`)."""
    if isinstance(exc, WrongCountError):
        return "wrong"
    return "memout" if isinstance(exc, (MemoryError, MemoryLimitError)) else "limit"


def fastest(
    attempt: Callable[[], tuple[Any, int | None]], repeat: int, records: list | None = None
) -> RunOutcome:
    """The fastest of ``repeat`` calls of ``attempt`` (which gives the answer and count)
    that finished (a limit or memory out only if none did), with the component ``records``
    its run left (cleared before each call)."""
    runs = []
    for _ in range(repeat):
        if records is not None:
            records.clear()
        start = time.perf_counter()
        try:
            (answer, count), status = attempt(), "ok"
        except (MemoryError, SolverLimitError, WrongCountError) as exc:
            answer, count, status = None, None, failure(exc)
        seconds = time.perf_counter() - start
        runs.append((status != "ok", seconds, answer, count, status, list(records or [])))
        if status != "ok":
            break
    _, seconds, answer, count, status, kept = min(runs, key=lambda run: run[:2])
    return RunOutcome(status, seconds, answer, count, kept)


def solve_position(timed: TimedBackend, board: Board, repeat: int, decide: bool) -> RunOutcome:
    """The fastest of ``repeat`` solves that finished (a limit only if none did)."""
    if decide:
        return fastest(lambda: (decide_position(board, timed.inner), None), repeat, timed.records)

    def attempt() -> tuple[np.ndarray, int]:
        solution = solve(board, backend=timed)
        return solution.probabilities, solution.weight

    return fastest(attempt, repeat, timed.records)


def timed_backend(spec: str, time_limit: float | None, max_solutions: int | None) -> TimedBackend:
    """The backend ``spec``, timed, after one untimed solve of :data:`WARMUP`."""
    timed = TimedBackend(get_backend(spec, time_limit=time_limit, max_solutions=max_solutions))
    # One untimed solve first: lazy imports and caches are not the backend's latency. (Its
    # answer is not kept, so a wrong one is told by the runs, not here.)
    with contextlib.suppress(SolverLimitError, WrongCountError):
        solve(parse_board(WARMUP), backend=timed)
    return timed


@dataclass(frozen=True)
class RunSpec:
    """How one backend's runs are made: everything a runner needs, the same for each run.

    Attributes:
        backend: The backend's spec (``sat:NAME`` style allowed).
        time_limit: Seconds per position (``None``: no limit).
        max_solutions: Solution cap per component for enumerating backends.
        repeat: Solves per position (the fastest is kept).
        decide: Time :func:`~mscsp.backends.position.decide_position` instead of
            :func:`mscsp.solve`.
        isolate: Solve in an isolated worker (else in the process the run is given to).
        grace: Seconds past ``time_limit * repeat`` before an isolated worker is killed.
        memory_limit: MiB an isolated worker and its children may hold resident above what
            it holds once set up (``None``: any).
    """

    backend: str
    time_limit: float | None
    max_solutions: int | None
    repeat: int
    decide: bool
    isolate: bool
    grace: float
    memory_limit: int | None

    def runner(self) -> _Isolated | _InProcess:
        """A new runner of these runs (:meth:`solve` a board, then :meth:`close`)."""
        return _Isolated(self) if self.isolate else _InProcess(self)


class _InProcess:
    """Solves positions in this process: only the backend's own limits apply."""

    def __init__(self, spec: RunSpec):
        self.spec = spec
        self.timed = timed_backend(spec.backend, spec.time_limit, spec.max_solutions)

    def solve(self, board: Board) -> RunOutcome:
        """The position's outcome."""
        return solve_position(self.timed, board, self.spec.repeat, self.spec.decide)

    def close(self) -> None:
        """Nothing to release."""


def _position_solver(spec: RunSpec) -> Callable[[Board], RunOutcome]:
    """An isolated worker's setup: the backend, imported and warm (so that the memory
    ceiling, set after this, is what the solves may add), solving each board it is sent."""
    timed = timed_backend(spec.backend, spec.time_limit, spec.max_solutions)
    return partial(solve_position, timed, repeat=spec.repeat, decide=spec.decide)


class _Isolated:
    """Solves positions in an isolated worker under a memory ceiling, killed when a position
    runs past the time limit (see the module's docstring)."""

    def __init__(self, spec: RunSpec):
        self.time_limit = spec.time_limit
        self.wait = None if spec.time_limit is None else spec.time_limit * spec.repeat + spec.grace
        self.worker = Worker(partial(_position_solver, spec), memory_mb=spec.memory_limit)

    def solve(self, board: Board) -> RunOutcome:
        """The position's outcome; a ``timeout`` when it ran past the limit (the worker is
        killed), a ``memout`` when it passed the memory limit or died as out of memory, a
        ``crash`` when it died otherwise; with the run's costs, and the crash text of one
        that failed.

        Raises:
            MscspError: The position is malformed or inconsistent.
        """
        outcome = self.worker.call(board, timeout=self.wait)
        costs = {"peak_mb": outcome.peak_mb, "cpu_seconds": outcome.cpu_seconds}
        if outcome.status == OK:
            run = outcome.value._replace(**costs)
            if run.status == "memout":  # a fresh worker for the next position
                self.worker.stop()
            if run.status in ("limit", "memout"):  # (a native child may have died)
                run = run._replace(crash=crash_text(outcome))
            return run
        if outcome.status == LIMIT:
            return RunOutcome("timeout", float(self.time_limit or 0), **costs)
        if outcome.status == RAISED and isinstance(outcome.value, MscspError):
            raise outcome.value
        if outcome.status == RAISED:  # a bug in the backend: its worker starts afresh
            self.worker.stop()
        status = "memout" if outcome.status == MEMORY else "crash"
        return RunOutcome(status, outcome.seconds, crash=crash_text(outcome), **costs)

    def close(self) -> None:
        """Stops the worker."""
        self.worker.close()


#: This process's runner, by the spec it runs: the last backend this process ran.
_RUNNER: dict[RunSpec, _Isolated | _InProcess] = {}


def _runner_for(spec: RunSpec) -> _Isolated | _InProcess:
    """This process's runner of ``spec`` (one of another spec is closed first)."""
    if spec not in _RUNNER:
        close_runner()
        _RUNNER[spec] = spec.runner()
    return _RUNNER[spec]


def close_runner() -> None:
    """Closes this process's runner, if it has one."""
    while _RUNNER:
        _RUNNER.popitem()[1].close()


def _counting_run(item: tuple[RunSpec, int, Board, str]) -> tuple[int, RunOutcome]:
    """One run, a :func:`~mscsp.runtime.executors.parallel_map` job: ``(spec, index,
    board, where)`` to ``(index, outcome)``.

    Raises:
        MscspError: The position is malformed or inconsistent (the message starts with
            ``where``).
    """
    spec, index, board, where = item
    try:
        return index, _runner_for(spec).solve(board)
    except MscspError as exc:
        raise type(exc)(f"{where}: {exc}") from None


def counting_runs(
    spec: RunSpec, positions: list[tuple[int, Board, str]], workers: int, executor: str
) -> Iterator[tuple[int, RunOutcome]]:
    """``(index, outcome)`` of each position, in finishing order, on ``workers`` workers.

    Args:
        spec: The backend's runs.
        positions: ``(index, board, where)`` of each position to solve (``where`` names it
            in an error's message).
        workers: Processes of the executor (1: this one, in the given order).
        executor: ``"process"`` or ``"ray"`` (:func:`~mscsp.runtime.executors.parallel_map`).

    Raises:
        MscspError: A position is malformed or inconsistent (the message names it).
    """
    if not positions:
        return
    items = [(spec, index, board, where) for index, board, where in positions]
    try:
        yield from parallel_map(_counting_run, items, workers, executor)
    finally:
        close_runner()
