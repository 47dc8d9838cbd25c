"""A persistent isolated worker: one child process serving calls one at a time.

Where each call would pay a start (imports, a backend's warm-up) the work goes to a worker
that keeps its state between calls, under the same limits as a single isolated run
(:mod:`mscsp.runtime.isolated`): a wall-clock limit per call, past which the worker is killed
with its whole process group; a memory limit on what it and its descendants hold resident
(what it holds once set up, plus a budget), sampled here while a call runs
(:mod:`mscsp.runtime.resident`: the worker is killed past it), with a data-segment backstop
far above it (:func:`~mscsp.runtime.memlimit.set_ceiling`); one
:class:`~mscsp.runtime.child.Outcome` per call. A worker that was killed, died, or ran out
of memory is replaced by the next call.

The child is set up once by ``setup()``, a module-level function (it is pickled by
reference) that returns the function each call's job is given to. It ignores Ctrl-C (its
parent stops it), leads its own process group, and leaves when its parent closes the pipe.
It starts as a fresh interpreter (``python -c``, its own child: ``os.wait4`` gives its
costs, it dies with its parent on Linux, and it may be started from a daemonic process, a
pool's worker), or from a :mod:`multiprocessing` context given (the web analyser's
``forkserver``, which starts one in milliseconds). A fresh interpreter's error output goes
to a file, not to the terminal: what a native library prints as it dies (``double free or
corruption``) comes back as the last line of its call's outcome
(:attr:`~mscsp.runtime.child.Outcome.stderr`), never into the caller's output unlabelled.
"""

from __future__ import annotations

import abc
import atexit
import contextlib
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from multiprocessing.connection import Connection
from typing import Any

from .child import (
    CRASH,
    LIMIT,
    MEMORY,
    OK,
    RAISED,
    Outcome,
    cost,
    cpu_of,
    cpu_so_far,
    die_with_parent,
    died,
    kill_group,
    peak_of,
    sendable,
    tail,
)
from .memlimit import MEMORY_EXIT, peak_mb, reset_peak, set_ceiling
from .resident import LATE, OVER, Resident, Waited, resident_mb, wait_for

#: The environment variable naming the folder workers keep their scratch folders in.
SCRATCH_ROOT = "MSCSP_SCRATCH"
#: What a worker sends once it is set up (with the CPU seconds it has used so far).
READY = "ready"
#: How long a worker that closed its pipe is given to be collected before it is killed.
_EXIT_WAIT = 1.0
#: Most bytes of a call's error output read back for its last line.
_ERRORS_READ = 4096
#: The code a fresh interpreter runs: read the parent's module path, then serve.
_BOOT = (
    "import sys\n"
    "from multiprocessing.connection import Connection\n"
    "conn = Connection(int(sys.argv[1]))\n"
    "sys.path[:] = conn.recv()\n"
    "from mscsp.runtime.worker import serve\n"
    "serve(conn, *conn.recv())\n"
)


def serve(
    conn: Connection,
    setup: Callable[[], Callable[[Any], Any]],
    memory_mb: int | None,
    nice: int,
    parent: int | None,
    scratch: str | None = None,
) -> None:
    """A worker's life: set up, then answer each job until ``None`` or the pipe's end.

    Each answer is ``(status, value, cpu seconds, peak MiB, cpu seconds so far)``. After a
    ``MemoryError`` the worker answers and leaves: its successor starts clean.

    Args:
        conn: The pipe to the parent.
        setup: Makes the function jobs are given to.
        memory_mb: MiB it may allocate beyond what it holds once set up (``None``: any).
        nice: How much to lower its scheduling priority.
        parent: The parent's process id, to die with (``None``: not asked).
        scratch: The folder its temporary files go to (``None``: the system's), its own
            and its programs' (``TMPDIR``): the parent removes it once the worker has
            ended, so that a worker killed at a limit leaves no files behind.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    with contextlib.suppress(AttributeError, OSError):  # (no process groups on Windows)
        os.setpgrp()  # its own group, so that it is killed with whatever it starts
    if parent is not None:
        die_with_parent(parent)
    if nice:
        os.nice(nice)
    if scratch is not None:
        tempfile.tempdir = os.environ["TMPDIR"] = scratch
    try:
        try:
            handle = setup()
        except Exception as exc:
            conn.send((RAISED, sendable(exc), None, None, None))
            return
        set_ceiling(memory_mb)
        conn.send((READY, None, None, None, cpu_so_far()))
        while (job := conn.recv()) is not None:
            reset_peak()
            before = cpu_so_far()
            try:
                status, value = OK, handle(job)
            except MemoryError:
                status, value = MEMORY, None
            except Exception as exc:
                status, value = RAISED, sendable(exc)
            after = cpu_so_far()
            conn.send((status, value, after - before, peak_mb(), after))
            if status == MEMORY:
                return
    except (EOFError, OSError):  # the parent closed the pipe, or is gone
        return
    except MemoryError:  # not even the answer could be sent
        os._exit(MEMORY_EXIT)


class _Child(abc.ABC):
    """A started worker process: its pipe, how it is killed and collected."""

    def __init__(self, conn: Connection, pid: int):
        self.conn = conn
        self.pid = pid
        self.ready = False
        self.busy = False
        #: Its CPU seconds so far, as of its last message (a call's cost is from there).
        self.cpu = 0.0
        #: MiB it and its descendants may hold resident (``None``: no limit), once set up.
        self.limit_mb: float | None = None
        self.lock = threading.Lock()
        self.exit_code: int | None = None
        self.usage: Any = None
        #: Its temporary files' folder (see :func:`serve`), removed once it has ended.
        self.scratch: str | None = None

    def _ended(self) -> None:
        """Removes its scratch folder: made here, written by it alone, and it has ended."""
        scratch, self.scratch = self.scratch, None
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)

    def kill(self) -> None:
        """Kills it and its group, without waiting."""
        kill_group(self.pid)

    def said(self) -> str:
        """The last line it wrote to standard error since this was last asked (``""``
        where its error output is not kept)."""
        return ""

    @abc.abstractmethod
    def collect(self, timeout: float | None = None) -> int | None:
        """Its exit code once it has ended, waiting at most ``timeout`` seconds (``None``:
        until it ends); ``None`` if it still runs."""


class _Spawned(_Child):
    """A fresh interpreter started here (its own process group from the start), its error
    output kept in an unnamed file."""

    def __init__(self, message: tuple):
        import socket

        ours, theirs = socket.socketpair()
        errors = _appended()
        try:
            # (a plain Popen: nothing runs between fork and exec, safe beside threads)
            self.process = subprocess.Popen(
                [sys.executable, "-c", _BOOT, str(theirs.fileno())],
                stdin=subprocess.DEVNULL,
                stderr=errors,
                pass_fds=(theirs.fileno(),),
                process_group=0,
                # glibc writes its fatal errors (a double free) to the terminal, not to
                # standard error, unless told: they are the worker's last words, kept.
                env={**os.environ, "LIBC_FATAL_STDERR_": "1"},
            )
        except BaseException:
            ours.close()
            os.close(errors)
            raise
        finally:
            theirs.close()
        #: The file its error output goes to; closed once it is collected.
        self.errors: int | None = errors
        #: What it wrote there last, read as it was collected.
        self.last_words = b""
        super().__init__(Connection(ours.detach()), self.process.pid)
        with contextlib.suppress(OSError):  # died at once: the first call finds it dead
            self.conn.send(list(sys.path))
            self.conn.send(message)

    def collect(self, timeout: float | None = None) -> int | None:
        with self.lock:
            if self.exit_code is None:
                end = None if timeout is None else time.monotonic() + timeout
                while True:
                    try:
                        pid, status, usage = os.wait4(self.pid, 0 if end is None else os.WNOHANG)
                    except ChildProcessError:  # collected elsewhere (SIGCHLD ignored)
                        pid, status, usage = self.pid, 0, None
                    if pid:
                        self.exit_code = os.waitstatus_to_exitcode(status)
                        self.usage = usage
                        self.process.returncode = self.exit_code  # (collected here)
                        if self.errors is not None:
                            self.last_words = _last_written(self.errors)
                            os.close(self.errors)
                            self.errors = None
                        self._ended()
                        break
                    if time.monotonic() >= end:
                        break
                    time.sleep(0.01)
            return self.exit_code

    def said(self) -> str:
        with self.lock:
            if self.errors is None:
                written, self.last_words = self.last_words, b""
            else:
                written = _last_written(self.errors)
        return tail(written.decode(errors="replace"))


class _Forked(_Child):
    """A worker started by a :mod:`multiprocessing` context (its ``Process``)."""

    def __init__(self, context: Any, message: tuple):
        ours, theirs = context.Pipe()
        self.process = context.Process(
            target=serve, args=(theirs, *message), name="mscsp-worker", daemon=True
        )
        try:
            self.process.start()
        except BaseException:  # not started: no process to kill or collect later
            ours.close()
            raise
        finally:
            theirs.close()
        super().__init__(ours, self.process.pid)

    def kill(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, AttributeError):  # not its group's leader yet
            self.process.kill()

    def collect(self, timeout: float | None = None) -> int | None:
        self.process.join(timeout)
        self.exit_code = self.process.exitcode
        if self.exit_code is not None:
            self._ended()
        return self.exit_code


class Worker:
    """One worker process, started on first use and replaced when it fails.

    Args:
        setup: A module-level function, run once in the worker, that returns the function
            each job is given to (its answer must pickle).
        memory_mb: MiB the worker may allocate beyond what it holds once set up (``None``:
            no ceiling of its own).
        nice: How much to lower its scheduling priority.
        context: A :mod:`multiprocessing` context to start it with (``None``: a fresh
            interpreter; on Windows, ``spawn``).
    """

    def __init__(
        self,
        setup: Callable[[], Callable[[Any], Any]],
        *,
        memory_mb: int | None = None,
        nice: int = 0,
        context: Any = None,
    ):
        self.setup = setup
        self.memory_mb = memory_mb
        self.nice = nice
        if context is None and os.name != "posix":
            import multiprocessing

            context = multiprocessing.get_context("spawn")
        self.context = context
        self.child: _Child | None = None
        self.lock = threading.Lock()

    def start(self) -> _Child:
        """Starts the process unless it runs (it sets up while we go on).

        Returns:
            The process started (or running).
        """
        with self.lock:
            if self.child is None:
                if self.context is None:
                    parent: int | None = os.getpid()
                    start: Callable[[tuple], _Child] = _Spawned
                else:
                    parent, start = None, partial(_Forked, self.context)
                scratch = tempfile.mkdtemp(prefix="worker-", dir=_scratch_root())
                try:
                    self.child = start((self.setup, self.memory_mb, self.nice, parent, scratch))
                except BaseException:
                    shutil.rmtree(scratch, ignore_errors=True)
                    raise
                self.child.scratch = scratch
            return self.child

    def call(
        self,
        job: Any,
        *,
        timeout: float | None = None,
        end: float | None = None,
        start_by: float | None = None,
    ) -> Outcome | None:
        """The worker's answer to ``job``.

        Args:
            job: What the worker's function is given (it must pickle).
            timeout: Seconds the answer may take once the job is sent (``None``: no limit);
                past them, or past ``end``, the worker is killed (a :data:`LIMIT` outcome).
            end: A :func:`time.monotonic` time the answer must come by (``None``: none).
            start_by: A :func:`time.monotonic` time: a worker not set up by then is left
                to start, and the job is not sent (``None``: wait for it).

        Returns:
            The outcome (a worker that raised in its setup: :data:`RAISED`); ``None`` where
            the job was not sent (``start_by`` passed first).
        """
        child = self.start()
        clock = time.perf_counter()
        watch = None
        try:
            if not child.ready:
                wait = None if start_by is None else max(start_by - time.monotonic(), 0.0)
                if not child.conn.poll(wait):
                    return None
                status, value, _, _, cpu = child.conn.recv()
                if status != READY:
                    self._discard(child)
                    return Outcome(status, value, time.perf_counter() - clock)
                child.ready, child.cpu = True, cpu
                held = None if self.memory_mb is None else resident_mb(child.pid)
                child.limit_mb = None if held is None else held + self.memory_mb
            sent = time.monotonic()
            if start_by is not None and sent >= start_by:
                return None
            child.said()  # (what it wrote before this call is not this call's)
            watch = Resident.start(child.pid, child.limit_mb)
            clock = time.perf_counter()
            try:
                child.conn.send(job)
                child.busy = True
                waited = wait_for(child.conn.poll, _wait(sent, timeout, end), watch)
            finally:
                if watch is not None:
                    watch.close()
            if waited in (LATE, OVER):
                return self._stopped(child, waited, time.perf_counter() - clock, watch)
            status, value, cpu, peak, child.cpu = child.conn.recv()
            seconds = time.perf_counter() - clock
            child.busy = False
        except (EOFError, OSError):  # died (out of memory?), or stopped by another thread
            return self._died(child, time.perf_counter() - clock, watch)
        if status == MEMORY:  # it leaves after one: its successor starts clean
            self._discard(child)
        peak = _larger(peak, None if watch is None else watch.peak_mb)
        return Outcome(status, value, seconds, cpu, peak, stderr=child.said())

    def _stopped(
        self, child: _Child, waited: Waited, seconds: float, watch: Resident | None
    ) -> Outcome:
        """The outcome of a call whose worker is killed here: past its time limit
        (:data:`LIMIT`) or its memory limit (:data:`MEMORY`)."""
        used, peak = cpu_of(child.pid), peak_of(child.pid)  # (before it goes)
        self._discard(child)
        cpu = None if used is None else max(used - child.cpu, 0.0)
        if cpu is None:
            cpu, peak = self._late_cost(child, peak)
        peak = _larger(peak, None if watch is None else watch.peak_mb)
        status = LIMIT if waited == LATE else MEMORY
        return Outcome(status, None, seconds, cpu, peak, stderr=child.said())

    def _died(self, child: _Child, seconds: float, watch: Resident | None) -> Outcome:
        """The outcome of a call whose worker died under it (its successor starts next)."""
        code = child.collect(_EXIT_WAIT)
        self._discard(child)
        cpu, peak = self._late_cost(child, None)
        peak = _larger(peak, None if watch is None else watch.peak_mb)
        status = CRASH if code is None else died(code)
        return Outcome(status, None, seconds, cpu, peak, code, child.said())

    @staticmethod
    def _late_cost(child: _Child, peak: float | None) -> tuple[float | None, float | None]:
        """A collected worker's cost of its last call, from ``os.wait4`` where it tells."""
        used, lifetime = cost(child.usage)
        if used is None:
            return None, peak
        return max(used - child.cpu, 0.0), peak if peak is not None else lifetime

    def _discard(self, child: _Child) -> None:
        """Kills ``child`` and its group and collects it; the next call starts a new one."""
        with self.lock:
            if self.child is child:
                self.child = None
        child.kill()
        child.collect()

    def kill(self) -> _Child | None:
        """Kills the worker and what it started, without waiting for it to end.

        Returns:
            The killed process, to :meth:`collect <_Child.collect>`.
        """
        with self.lock:
            child, self.child = self.child, None
        # The pipe closes when the last reference to it goes: a call still waiting on it
        # sees the end of the pipe, not a reused descriptor.
        if child is not None:
            child.kill()
        return child

    def stop(self) -> None:
        """Kills the worker (its job, if any, is abandoned); the next call starts a new one."""
        child = self.kill()
        if child is not None:
            child.collect()

    def close(self) -> None:
        """Lets an idle worker leave (killed if it does not within a second), kills a busy
        one (a call left by an exception)."""
        with self.lock:
            child, self.child = self.child, None
        if child is None:
            return
        if not child.busy:
            with contextlib.suppress(OSError, ValueError):  # it may be gone already
                child.conn.send(None)
            if child.collect(_EXIT_WAIT) is not None:
                return
        child.kill()
        child.collect()

    @property
    def pid(self) -> int | None:
        """The running process's id, if one is started."""
        child = self.child
        return None if child is None else child.pid


def _scratch_root() -> str:
    """The folder the workers of this process tree make their scratch folders in.

    Made by the first process of the tree that starts a worker, named to its descendants
    by :data:`SCRATCH_ROOT` (a pool's processes start workers too), and removed when that
    process exits: a worker whose own process was killed (a pool's, at Ctrl-C) leaves
    nothing behind. A folder named there by the environment is used, never removed.
    """
    root = os.environ.get(SCRATCH_ROOT)
    if root is None or not os.path.isdir(root):
        root = tempfile.mkdtemp(prefix="mscsp-")
        os.environ[SCRATCH_ROOT] = root
        atexit.register(_remove_root, root, os.getpid())
    return root


def _remove_root(root: str, maker: int) -> None:
    """Removes the scratch root ``root`` at exit, in the process that made it only (a
    forked child inherits the exit handler, not the folder)."""
    if os.getpid() == maker:
        shutil.rmtree(root, ignore_errors=True)


def _appended() -> int:
    """An unnamed file for a worker's error output, open for reading here and appending
    there (so that emptying it here never leaves the worker writing past its end)."""
    import fcntl  # (POSIX only: a fresh interpreter is started on POSIX only)

    with tempfile.TemporaryFile() as handle:
        fd = os.dup(handle.fileno())
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
    return fd


def _last_written(fd: int) -> bytes:
    """The end of what the file ``fd`` holds (at most :data:`_ERRORS_READ` bytes), which
    is then emptied."""
    size = os.fstat(fd).st_size
    written = os.pread(fd, min(size, _ERRORS_READ), max(size - _ERRORS_READ, 0))
    os.ftruncate(fd, 0)
    return written


def _larger(one: float | None, other: float | None) -> float | None:
    """The larger of two peaks, either unknown (``None``)."""
    return other if one is None else one if other is None else max(one, other)


def _wait(sent: float, timeout: float | None, end: float | None) -> float | None:
    """Seconds to wait for an answer from ``sent`` (``None``: no limit)."""
    limits = [t for t in (timeout, None if end is None else end - sent) if t is not None]
    if not limits or math.isinf(min(limits)):
        return None
    return max(min(limits) - (time.monotonic() - sent), 0.0)
