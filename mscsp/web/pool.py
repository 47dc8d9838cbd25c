"""Worker processes for the analyser's requests that may run long.

A long solve is pure-Python big-integer work: in a thread of the server it holds the
interpreter lock for most of its time limit, and every other request waits its turn. Here it
runs in its own process instead, where it cannot hold the server back. Workers are forked
from a clean server process that has already imported the library (``forkserver``: the
server has threads, which a plain ``fork`` would copy mid-state), so one starts in
milliseconds, the first time a request needs one or after one is killed. Each leads its
own process group, so that killing it kills what it started too (a replay reader, a
counting child process), and has a memory ceiling (``RLIMIT_DATA``: what it holds idle plus
a budget). A worker that overruns its job's time, runs out of memory or dies is replaced at
once: the pool never jams.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import queue
import signal
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from ..errors import MemoryLimitError, SolverLimitError
from ..runtime.memlimit import MEMORY_EXIT, died_of_memory, set_ceiling
from .service import ApiError, Handler, Limits, answer, error_answer, naming_board

#: What the ``forkserver`` imports once, so that the workers it forks start with it.
PRELOAD = ["mscsp.web.service", "mscsp.web.replay_api"]

#: How much lower than the server's a long-job worker's scheduling priority is (``nice``).
NICE = 10
#: What a worker sends once it has started (imported the library, set its ceiling).
READY = "ready"


def memory_error(memory_mb: int | None) -> MemoryLimitError:
    """The error of a request that hit its worker's memory ceiling."""
    return MemoryLimitError(f"memory limit of {memory_mb} MB per request was hit")


def _work(conn: Connection, memory_mb: int | None, nice: int) -> None:
    """A worker's loop: take a job, answer it; stop when the server closes the pipe.

    Each answer is ``(status, body, retire)``; ``status`` ``None``: see
    :func:`~mscsp.web.service.answer`. After a memory error the worker retires (answers,
    then exits): the server starts a fresh one, with nothing left over from the failure.
    """
    # Ctrl-C goes to the server, which stops us; our own group, so that we are killed with
    # whatever we start.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.setpgrp()
    # Below the server in the scheduler's eyes: where cores are short, the server's quick
    # answers go first; an idle core still runs the solve at full speed.
    if nice:
        os.nice(nice)
    set_ceiling(memory_mb)
    try:
        conn.send(READY)
        while True:
            handler, body, limits = conn.recv()
            try:
                status, out = answer(handler, body, limits) or (None, b"")
                conn.send((status, out, False))
            except MemoryError:
                error = naming_board(memory_error(memory_mb), body, limits)
                conn.send((*error_answer(error), True))
                return
    except (EOFError, OSError):  # the server closed the pipe, or is gone
        return
    except MemoryError:  # not even the answer could be sent
        os._exit(MEMORY_EXIT)


class Worker:
    """One worker process and its pipe, started on first use and replaced when it fails.

    Args:
        context: The multiprocessing context that starts it.
        memory_mb: Megabytes it may allocate above what it holds idle (``None``: any).
        nice: How much to lower its scheduling priority.
    """

    def __init__(self, context: Any, memory_mb: int | None, nice: int):
        self.context = context
        self.memory_mb = memory_mb
        self.nice = nice
        self.process: multiprocessing.process.BaseProcess | None = None
        self.conn: Connection | None = None
        self.ready = False
        self.lock = threading.Lock()

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
        conn = self.start()
        try:
            if not self.ready:
                if not conn.poll(max(end - time.monotonic(), 0)):
                    return None
                self.ready = conn.recv() == READY
            now = time.monotonic()
            if now >= end:
                return None
            conn.send((handler, body, limits))
            attempt = math.inf if limits.attempt is None else limits.attempt
            if conn.poll(min(end, now + attempt) + grace - time.monotonic()):
                status, out, retire = conn.recv()
                if retire:
                    self.stop()
                return None if status is None else (status, out)
            self.stop()
            return None
        except (EOFError, OSError):  # died (out of memory?) or stopped by close()
            error = naming_board(self._death(), body, limits)
            self.stop()
            return error_answer(error)

    def _death(self) -> SolverLimitError:
        """What to answer for a job whose worker died under it."""
        process = self.process
        if process is not None:
            process.join(1.0)
            if self.memory_mb is not None and died_of_memory(process.exitcode):
                return memory_error(self.memory_mb)
        return SolverLimitError("the worker process solving this request stopped")

    def start(self) -> Connection:
        """Starts the process unless it runs (it imports the library while we go on).

        Returns:
            The pipe to it.
        """
        with self.lock:
            if self.process is None:
                ours, theirs = self.context.Pipe()
                self.process = self.context.Process(
                    target=_work,
                    args=(theirs, self.memory_mb, self.nice),
                    name="mscsp-worker",
                    daemon=True,
                )
                try:
                    self.process.start()
                except BaseException:  # not started: no process to kill or join later
                    self.process = None
                    theirs.close()
                    ours.close()
                    raise
                theirs.close()
                self.conn = ours
                self.ready = False
            return self.conn

    def stop(self) -> None:
        """Kills the process and what it started (its job, if any, is abandoned); the next
        call starts a new one."""
        process = self.kill()
        if process is not None:
            process.join()

    def kill(self) -> multiprocessing.process.BaseProcess | None:
        """Kills the process and what it started, without waiting for it to end.

        Returns:
            The process, to join.
        """
        with self.lock:
            process, self.process, self.conn = self.process, None, None
        # The connection closes when the last reference to it goes: a call still waiting
        # on it sees the end of the pipe, not a reused descriptor.
        if process is not None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):  # not its group's leader yet
                process.kill()
        return process

    @property
    def pid(self) -> int | None:
        """The running process's id, if one is started."""
        process = self.process
        return None if process is None else process.pid


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
                process.join()
