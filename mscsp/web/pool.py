"""Worker processes for the analyser's requests that may run long.

A long solve is pure-Python big-integer work: in a thread of the server it holds the
interpreter lock for most of its time limit, and every other request waits its turn. Here it
runs in its own process instead, where it cannot hold the server back. Each worker is a
spawned interpreter (the server has threads, which ``fork`` would copy mid-state), started
the first time a request needs it, so a server used only on small boards starts none. A
worker that overruns its time limit, or dies, is killed and a fresh one started in its
place at once: the pool never jams.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import threading
from multiprocessing.connection import Connection
from typing import Any

from ..errors import SolverLimitError
from .service import ApiError, Handler, Limits, answer, error_body

#: Seconds a new worker may take to start (import the library) and take its first job.
BOOT = 60.0
#: How much lower than the server's a worker's scheduling priority is (``nice``).
NICE = 10
#: What a worker sends when it takes a job: the time limit runs from then.
TAKEN = "taken"


def _work(conn: Connection) -> None:
    """A worker's loop: take a job, answer it; stop when the server closes the pipe."""
    # Ctrl-C reaches the whole process group: the server handles it and then stops us.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Below the server in the scheduler's eyes: where cores are short, the server's quick
    # answers go first; an idle core still runs the solve at full speed.
    if hasattr(os, "nice"):
        os.nice(NICE)
    try:
        while True:
            handler, body, limits = conn.recv()
            conn.send(TAKEN)
            conn.send(answer(handler, body, limits))
    except (EOFError, OSError):  # the server closed the pipe, or is gone
        return


class Worker:
    """One worker process and its pipe, started on first use and replaced when it fails."""

    def __init__(self, context: multiprocessing.context.BaseContext):
        self.context = context
        self.process: multiprocessing.process.BaseProcess | None = None
        self.conn: Connection | None = None
        self.lock = threading.Lock()

    def call(
        self, handler: Handler, body: Any, limits: Limits, grace: float
    ) -> tuple[int, dict[str, Any]]:
        """``answer(handler, body, limits)`` in the worker, which gets the time limit plus
        ``grace`` seconds for it from when it takes the job; past that it is killed."""
        conn = self.start()
        try:
            conn.send((handler, body, limits))
            if conn.poll(BOOT) and conn.recv() == TAKEN and conn.poll(limits.time_limit + grace):
                return conn.recv()
            error = SolverLimitError(
                f"the analyser's time limit of {limits.time_limit:g} s per request was hit "
                "(its worker process was stopped)"
            )
        except (EOFError, OSError):  # killed (out of memory?) or stopped by close()
            error = SolverLimitError("the worker process solving this request stopped")
        self.stop()
        return error_body(error)

    def start(self) -> Connection:
        """Starts the process unless it runs (it imports the library while we go on).

        Returns:
            The pipe to it.
        """
        with self.lock:
            if self.process is None:
                ours, theirs = self.context.Pipe()
                self.process = self.context.Process(
                    target=_work, args=(theirs,), name="mscsp-worker", daemon=True
                )
                self.process.start()
                theirs.close()
                self.conn = ours
            return self.conn

    def stop(self) -> None:
        """Kills the process (its job, if any, is abandoned); the next call starts a new one."""
        with self.lock:
            process, self.process, self.conn = self.process, None, None
        # The connection closes when the last reference to it goes: a call still waiting
        # on it sees the end of the pipe, not a reused descriptor.
        if process is not None:
            process.kill()
            process.join()

    @property
    def pid(self) -> int | None:
        """The running process's id, if one is started."""
        process = self.process
        return None if process is None else process.pid


class WorkerPool:
    """``size`` workers; :meth:`call` blocks until one is free (callers bound the wait).

    Args:
        size: Number of worker processes.
    """

    def __init__(self, size: int):
        context = multiprocessing.get_context("spawn")
        self.workers = [Worker(context) for _ in range(size)]
        self.idle: queue.SimpleQueue[Worker] = queue.SimpleQueue()
        for worker in self.workers:
            self.idle.put(worker)
        self.closed = False
        self.lock = threading.Lock()

    def call(
        self, handler: Handler, body: Any, limits: Limits, grace: float
    ) -> tuple[int, dict[str, Any]]:
        """``answer(handler, body, limits)`` in a free worker (see :meth:`Worker.call`)."""
        worker = self.idle.get()
        try:
            result = None if self.closed else worker.call(handler, body, limits, grace)
            with self.lock:
                if not self.closed:  # one it had to kill: its successor starts now, not later
                    worker.start()
        finally:
            self.idle.put(worker)
        if result is None or self.closed:  # closing stops the workers, which ends their calls
            return error_body(ApiError(503, "busy", "the server is stopping"))
        return result

    def pids(self) -> list[int]:
        """The ids of the worker processes running now."""
        return [pid for pid in (w.pid for w in self.workers) if pid is not None]

    def close(self) -> None:
        """Stops every worker; a request still waiting on one is told the server is stopping."""
        with self.lock:
            self.closed = True
        for worker in self.workers:
            worker.stop()
