"""Worker processes for the analyser's requests that may run long.

A long solve is pure-Python big-integer work: in a thread of the server it holds the
interpreter lock for most of its time limit, and every other request waits its turn. Here it
runs in its own process instead, where it cannot hold the server back. Workers are forked
from a clean server process that has already imported the library (``forkserver``: the
server has threads, which a plain ``fork`` would copy mid-state), so one starts in
milliseconds, the first time a request needs one or after one is killed. Each leads its
own process group, so that killing it kills what it started too (a replay reader, a
counting child process), and has a memory limit (what it holds resident idle plus a
budget, sampled by the runtime: :mod:`mscsp.runtime.resident`). A worker that overruns its
job's time, runs out of memory or dies is replaced at once: the pool never jams.
"""

from __future__ import annotations

import math
import multiprocessing
import queue
import threading
from collections.abc import Callable
from typing import Any

from ..errors import MemoryLimitError, SolverLimitError
from ..runtime.child import LIMIT, MEMORY, OK
from ..runtime.worker import Worker as IsolatedWorker
from .service import ApiError, Handler, Limits, answer, error_answer, naming_board

#: What the ``forkserver`` imports once, so that the workers it forks start with it.
PRELOAD = ["mscsp.web.service", "mscsp.web.replay_api"]

#: How much lower than the server's a long-job worker's scheduling priority is (``nice``).
NICE = 10


def memory_error(memory_mb: int | None) -> MemoryLimitError:
    """The error of a request that hit its worker's memory ceiling."""
    return MemoryLimitError(f"memory limit of {memory_mb} MB per request was hit")


def _answering() -> Callable[[tuple[Handler, Any, Limits]], tuple[int, bytes] | None]:
    """A worker's setup: each job it is given, ``(handler, body, limits)``, is answered
    (:func:`~mscsp.web.service.answer`; a ``MemoryError`` retires the worker)."""
    return _answer


def _answer(job: tuple[Handler, Any, Limits]) -> tuple[int, bytes] | None:
    return answer(*job)


class Worker:
    """One worker process (:class:`mscsp.runtime.worker.Worker`), started on first use and
    replaced when it fails.

    Args:
        context: The multiprocessing context that starts it.
        memory_mb: Megabytes it may hold resident above what it holds idle (``None``: any).
        nice: How much to lower its scheduling priority.
    """

    def __init__(self, context: Any, memory_mb: int | None, nice: int):
        self.memory_mb = memory_mb
        self.isolated = IsolatedWorker(_answering, memory_mb=memory_mb, nice=nice, context=context)

    def call(
        self, handler: Handler, body: Any, limits: Limits, end: float, grace: float
    ) -> tuple[int, bytes] | None:
        """``answer(handler, body, limits)`` in the worker.

        The job goes to the worker only once it has started, and only before ``end`` (a
        ``time.monotonic()``); it gets until ``end``, or :attr:`Limits.attempt` seconds if
        that is sooner, plus ``grace`` seconds; past that the worker is killed.

        Returns:
            The answer; ``None`` where it had none in time (the worker, still starting, is
            left to start; running the job, it is killed), or the handler asked for more
            time than its try (see :func:`~mscsp.web.service.answer`).
        """
        attempt = math.inf if limits.attempt is None else limits.attempt
        outcome = self.isolated.call(
            (handler, body, limits), timeout=attempt + grace, end=end + grace, start_by=end
        )
        if outcome is None or outcome.status == LIMIT:
            return None
        if outcome.status == OK:
            return outcome.value
        # A MemoryError the worker answered (it runs on: no exit code), or a worker that died
        # as one under a ceiling does; else it died (out of memory?) or was stopped by close().
        if outcome.status == MEMORY and (outcome.exit_code is None or self.memory_mb is not None):
            error: SolverLimitError = memory_error(self.memory_mb)
        else:
            error = SolverLimitError("the worker process solving this request stopped")
        return error_answer(naming_board(error, body, limits))

    def start(self) -> None:
        """Starts the process unless it runs (it imports the library while we go on)."""
        self.isolated.start()

    def kill(self) -> Any:
        """Kills the process and what it started, without waiting for it to end.

        Returns:
            The process, to ``collect()``, or ``None``.
        """
        return self.isolated.kill()

    @property
    def pid(self) -> int | None:
        """The running process's id, if one is started."""
        return self.isolated.pid


def _context() -> Any:
    """The multiprocessing context that starts workers: ``forkserver`` with the library
    preloaded, ``spawn`` where there is none (Windows)."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


def prepare() -> None:
    """Starts the ``forkserver`` now (it imports the library, about a second), so that the
    first worker starts at once. Starting a worker waits for it: call this off the event
    loop."""
    if _context().get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


class WorkerPool:
    """``size`` workers; :meth:`call` blocks until one is free (callers bound the wait).

    Args:
        size: Number of worker processes.
        memory_mb: Each worker's memory budget above what it holds idle (``None``: any).
        nice: How much to lower the workers' scheduling priority.
    """

    def __init__(self, size: int, memory_mb: int | None = None, nice: int = NICE):
        context = _context()
        self.workers = [Worker(context, memory_mb, nice) for _ in range(size)]
        # Last in, first out: the worker used last (its imports and models warm) goes first.
        self.idle: queue.LifoQueue[Worker] = queue.LifoQueue()
        for worker in reversed(self.workers):
            self.idle.put(worker)
        self.closed = False
        self.lock = threading.Lock()

    def start(self) -> None:
        """Starts every worker not running (each boots while we go on)."""
        with self.lock:
            if not self.closed:
                for worker in self.workers:
                    worker.start()

    def call(
        self, handler: Handler, body: Any, limits: Limits, end: float, grace: float
    ) -> tuple[int, bytes] | None:
        """``answer(handler, body, limits)`` in a free worker (see :meth:`Worker.call`)."""
        worker = self.idle.get()
        try:
            result = None if self.closed else worker.call(handler, body, limits, end, grace)
            with self.lock:
                if not self.closed:  # one it had to kill: its successor starts now, not later
                    worker.start()
        finally:
            self.idle.put(worker)
        if self.closed:  # closing stops the workers, which ends their calls
            return error_answer(ApiError(503, "busy", "the server is stopping"))
        return result

    def pids(self) -> list[int]:
        """The ids of the worker processes running now."""
        return [pid for pid in (w.pid for w in self.workers) if pid is not None]

    def close(self) -> None:
        """Stops every worker; a request still waiting on one is told the server is stopping."""
        with self.lock:
            self.closed = True
        for process in [worker.kill() for worker in self.workers]:  # all at once, then wait
            if process is not None:
                process.collect()
