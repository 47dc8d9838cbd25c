"""Native counts that cannot be interrupted, run in a child process killed at the deadline.

Ganak, ApproxMC/UniGen and the SDD library run each call to its end: a time limit checked
between their calls can be overrun by minutes. With a deadline, :func:`run_native` forks a
child that runs the count on the data already built here and sends the result back through
a pipe (big integers pickle as they are); at the deadline the child is killed (``SIGKILL``)
and :class:`~mscsp.errors.SolverLimitError` is raised. Without a deadline the count runs
in this process, with no overhead.

Why a bare ``os.fork`` rather than :mod:`multiprocessing`: it starts in a few milliseconds
(nothing is imported or pickled on the way in), and it also works in the web API's
workers, which are daemonic processes that :mod:`multiprocessing` forbids to have
children. The child touches nothing of the parent's: it closes every inherited descriptor
but its end of the pipe (a server's sockets, a worker's pipe), dies with its parent
(``PR_SET_PDEATHSIG`` on Linux: a killed worker leaves no count running), sees no deadline
of the parent's (the parent enforces it), and leaves with ``os._exit``, so no buffer is
flushed twice and no ``atexit`` handler of the parent runs.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
import pickle
import select
import signal
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from functools import cache
from typing import TypeVar

from ..errors import MemoryLimitError, MscspError, SolverLimitError
from ..runtime.memlimit import MEMORY_SIGNALS

T = TypeVar("T")

#: ``prctl`` option: the signal the child gets when its parent dies (Linux).
_PR_SET_PDEATHSIG = 1
#: Bytes read from the pipe at a time.
_CHUNK = 1 << 20


@contextlib.contextmanager
def quiet_stdout() -> Iterator[None]:
    """Silences file descriptor 1: Ganak and ApproxMC print progress lines there from C++."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def run_native(
    function: Callable[..., T],
    *args: object,
    end: float | None,
    on_limit: Callable[[], MscspError],
) -> T:
    """``function(*args)`` with its output on descriptor 1 silenced, stopped at ``end``.

    Args:
        function: A module-level function (it runs in the child as it is, not pickled).
        *args: Its arguments.
        end: A :func:`time.perf_counter` time to stop at (``None``: run here, no limit).
        on_limit: Makes the error raised when ``end`` comes first.

    Raises:
        MscspError: ``on_limit()`` at the deadline; a :class:`~mscsp.errors.SolverLimitError`
            when the child dies (killed for memory, most likely).
        Exception: Whatever ``function`` raised, raised here again.
    """
    if end is not None and time.perf_counter() >= end:
        raise on_limit()
    if end is None or not hasattr(os, "fork"):  # no fork (Windows): no limit within a call
        with quiet_stdout():
            return function(*args)
    _prctl()  # loaded here, once: the child only calls it
    # JAX warns at every fork that its threads may deadlock the child; ours never runs JAX
    # code (nor any of the parent's threads' locks). The filter matches this module only.
    warnings.filterwarnings("ignore", r"os\.fork\(\) was called", RuntimeWarning, __name__)
    read, write = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        _child(parent, write, function, args)
    os.close(write)
    try:
        data = _read_until(read, end)
    finally:
        os.close(read)
        status = _reap(pid)
    if data is None:
        raise on_limit()
    if not data:
        # Not killed by us (that is the deadline, above): a native allocation that failed,
        # or the kernel's out-of-memory killer.
        memory = os.WIFSIGNALED(status) and os.WTERMSIG(status) in MEMORY_SIGNALS
        raise (MemoryLimitError if memory else SolverLimitError)(
            f"the process counting with {function.__name__} stopped without an answer "
            f"({_death(status)}): it may have needed more memory than allowed"
        )
    done, value = pickle.loads(data)
    if not done:
        raise value
    return value


def _child(parent: int, write: int, function: Callable[..., object], args: tuple) -> None:
    """Runs in the forked child: the count, its result down the pipe, then ``os._exit``."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C stops it at once, mid-count
        _die_with_parent()
        if os.getppid() != parent:  # the parent died before the line above took effect
            os._exit(1)
        os.closerange(3, write)
        os.closerange(write + 1, os.sysconf("SC_OPEN_MAX"))
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
        try:
            # A fresh context: the parent's applied deadline is the parent's to enforce.
            result = (True, contextvars.Context().run(function, *args))
            data = pickle.dumps(result, pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:  # every failure goes back to the parent
            try:
                data = pickle.dumps((False, exc), pickle.HIGHEST_PROTOCOL)
            except Exception:  # an exception that does not pickle: its text does
                error = MscspError(f"{type(exc).__name__}: {exc}")
                data = pickle.dumps((False, error), pickle.HIGHEST_PROTOCOL)
        view = memoryview(data)
        while view:
            view = view[os.write(write, view) :]
    finally:
        os._exit(0)


def _read_until(fd: int, end: float) -> bytes | None:
    """Everything written to ``fd`` until its writer closes it (``None``: ``end`` came first)."""
    chunks = []
    ready = select.poll()  # not select.select: a server's descriptors can pass 1024
    ready.register(fd, select.POLLIN)
    while True:
        left = end - time.perf_counter()
        if left <= 0 or not ready.poll(math.ceil(left * 1000)):
            return None
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _reap(pid: int) -> int:
    """Kills the child if it still runs and collects it (no zombie is left); its status."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)  # a child that has exited is a zombie: no effect
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:  # collected elsewhere (SIGCHLD ignored by the application)
        return 0


def _death(status: int) -> str:
    """How a child ended, in words, from its wait status."""
    if os.WIFSIGNALED(status):
        return f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit code {os.waitstatus_to_exitcode(status)}"


def _die_with_parent() -> None:
    """Asks the kernel to kill this process when its parent dies (Linux only)."""
    prctl = _prctl()
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


@cache
def _prctl() -> Callable[..., int] | None:
    """libc's ``prctl`` (``None`` off Linux); ctypes is imported only when a count forks."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    return ctypes.CDLL(None, use_errno=True).prctl
