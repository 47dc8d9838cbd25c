"""One isolated run: a Python function in a forked child, or a program, stopped at a limit.

Both run in a child process that leads its own process group, under a wall-clock limit
(the whole group is killed there: whatever the child started goes with it) and, if asked,
a memory ceiling; both give back one :class:`~mscsp.runtime.child.Outcome` with the child's
CPU time and peak memory (from ``os.wait4``).

:func:`run_function` forks: it starts in a few milliseconds (nothing is imported or pickled
on the way in), and works in daemonic processes, which :mod:`multiprocessing` forbids to
have children (the web API's workers, a pool's). The child touches nothing of the parent's:
it closes every inherited descriptor but its end of the pipe (a server's sockets, a
worker's pipe), writes nothing to the parent's standard output (its descriptor 1 is
``/dev/null``), dies with its parent (``PR_SET_PDEATHSIG`` on Linux), sees no deadline of
the parent's (a fresh :mod:`contextvars` context: the parent enforces the limit), and leaves
with ``os._exit``, so no buffer is flushed twice and no ``atexit`` handler of the parent runs.

:func:`run_program` starts a program (its own session, its standard input from bytes),
caps what it may write (``RLIMIT_FSIZE``: its output is read back whole) and its data
segment, and gives back its output, exit code and last error line.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
import pickle
import select
import signal
import subprocess
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from typing import IO, Any

from .child import (
    LIMIT,
    OK,
    RAISED,
    Outcome,
    cost,
    die_with_parent,
    died,
    kill_group,
    load_prctl,
    sendable,
    tail,
)
from .memlimit import MEMORY_EXIT, set_ceiling

#: Bytes read from a pipe at a time.
_CHUNK = 1 << 20
#: Most bytes a program may write to a file, its output included (``RLIMIT_FSIZE``).
MAX_OUTPUT = 16 * 2**20


def run_function(
    function: Callable[..., Any],
    *args: Any,
    timeout: float | None,
    memory_mb: int | None = None,
) -> Outcome:
    """``function(*args)`` in a forked child, killed with its group after ``timeout`` seconds.

    Args:
        function: Runs in the child as it is (not pickled); its answer must pickle.
        *args: Its arguments.
        timeout: Wall-clock seconds (``None``: no limit).
        memory_mb: MiB the child may allocate beyond what it holds when forked
            (:func:`~mscsp.runtime.memlimit.set_ceiling`; ``None``: the parent's ceiling).

    Returns:
        :data:`OK` with the answer, :data:`RAISED` with the exception (one that does not
        pickle comes back as an :class:`~mscsp.errors.MscspError` with its text),
        :data:`LIMIT`, or :data:`MEMORY` / :data:`CRASH` with the child's exit code.

    Raises:
        OSError: No ``os.fork`` here (Windows), or the fork failed.
    """
    start = time.perf_counter()
    end = None if timeout is None else start + timeout
    load_prctl()  # loaded here, once: the child only calls it
    # JAX warns at every fork that its threads may deadlock the child; ours never runs JAX
    # code (nor any of the parent's threads' locks). The filter matches this module only.
    warnings.filterwarnings("ignore", r"os\.fork\(\) was called", RuntimeWarning, __name__)
    read, write = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        _child(parent, write, function, args, memory_mb)
    os.close(write)
    with contextlib.suppress(OSError):  # (the child does it too: whichever runs first)
        os.setpgid(pid, pid)
    try:
        data = _read_until(read, end)
    finally:
        os.close(read)
        kill_group(pid)  # a child that has exited is a zombie: no effect on it
        status, usage = _collect(pid)
    seconds = time.perf_counter() - start
    cpu, peak = cost(usage)
    if data is None:
        return Outcome(LIMIT, None, seconds, cpu, peak)
    if not data:  # stopped without an answer: a native crash, or out of memory
        code = os.waitstatus_to_exitcode(status)
        return Outcome(died(code), None, seconds, cpu, peak, code)
    done, value = pickle.loads(data)
    return Outcome(OK if done else RAISED, value, seconds, cpu, peak)


def _child(
    parent: int, write: int, function: Callable[..., Any], args: tuple, memory_mb: int | None
) -> None:
    """Runs in the forked child: the call, its result down the pipe, then ``os._exit``."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # stopped at once if signalled
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)
        die_with_parent(parent)
        os.closerange(3, write)
        os.closerange(write + 1, os.sysconf("SC_OPEN_MAX"))
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
        set_ceiling(memory_mb)
        try:
            # A fresh context: the parent's applied deadline is the parent's to enforce.
            data = pickle.dumps(
                (True, contextvars.Context().run(function, *args)), pickle.HIGHEST_PROTOCOL
            )
        except BaseException as exc:  # every failure goes back to the parent
            data = pickle.dumps((False, sendable(exc)), pickle.HIGHEST_PROTOCOL)
        view = memoryview(data)
        while view:
            view = view[os.write(write, view) :]
    except MemoryError:  # not even the answer could be sent
        os._exit(MEMORY_EXIT)
    finally:
        os._exit(0)


def _read_until(fd: int, end: float | None) -> bytes | None:
    """Everything written to ``fd`` until its writer closes it (``None``: ``end`` came first)."""
    chunks = []
    ready = select.poll()  # not select.select: a server's descriptors can pass 1024
    ready.register(fd, select.POLLIN)
    while True:
        if end is not None:
            left = end - time.perf_counter()
            if left <= 0 or not ready.poll(math.ceil(left * 1000)):
                return None
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _collect(pid: int) -> tuple[int, Any]:
    """Waits for child ``pid`` and collects it (no zombie is left): its wait status and
    resource usage (``None`` where it was collected elsewhere: ``SIGCHLD`` ignored)."""
    try:
        _, status, usage = os.wait4(pid, 0)
    except ChildProcessError:
        return 0, None
    return status, usage


def run_program(
    argv: list[str],
    *,
    stdin: bytes = b"",
    timeout: float | None = None,
    memory_mb: int | None = None,
    max_output: int = MAX_OUTPUT,
) -> Outcome:
    """Runs the program ``argv`` in its own session, killed with its group after ``timeout``.

    Its standard output and error go to unnamed files (no pipe to fill, no thread to drain
    it), capped at ``max_output`` bytes each (``RLIMIT_FSIZE``: a program writing past it
    dies of ``SIGXFSZ``). Its process group is killed when it ends too, so nothing it
    started in the background outlives it.

    Args:
        argv: The program (a path or a name on ``PATH``) and its arguments.
        stdin: Its standard input (empty: ``/dev/null``).
        timeout: Wall-clock seconds (``None``: no limit).
        memory_mb: Ceiling on its data segment in MiB (``RLIMIT_DATA``, soft, never above
            the inherited hard limit; ``None``: inherited). A program starts empty, so this
            is all it may hold, unlike a forked function's budget.
        max_output: Most bytes it may write to any file.

    Returns:
        :data:`OK` where it exited by itself (whatever its exit code), :data:`LIMIT`, or
        :data:`MEMORY` / :data:`CRASH` where a signal killed it; every one but the limit's
        with its standard output as :attr:`~mscsp.runtime.child.Outcome.value`, its exit
        code and its last error line.

    Raises:
        OSError: The program could not be started.
    """
    start = time.perf_counter()
    end = None if timeout is None else start + timeout
    with (
        _input(stdin) as source,
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
    ):
        process = subprocess.Popen(
            argv,
            stdin=source,
            stdout=out,
            stderr=err,
            start_new_session=True,  # its own process group: killed with its children
            preexec_fn=_caps(memory_mb, max_output),
        )
        found = None
        try:
            found = _wait(process.pid, end)
        finally:
            if found is None:  # the limit (or an interrupt) came first: the group goes
                kill_group(process.pid)
            status, usage = found if found is not None else _collect(process.pid)
            process.returncode = os.waitstatus_to_exitcode(status)  # (collected here)
        seconds = time.perf_counter() - start
        cpu, peak = cost(usage)
        if found is None:
            return Outcome(LIMIT, None, seconds, cpu, peak)
        code = process.returncode
        out.seek(0)
        err.seek(0)
        errors = err.read(max_output).decode("utf-8", errors="replace")
        kind = OK if os.WIFEXITED(status) else died(code)
        return Outcome(kind, out.read(max_output), seconds, cpu, peak, code, tail(errors))


@contextlib.contextmanager
def _input(data: bytes) -> Iterator[IO[bytes] | int]:
    """A program's standard input: ``/dev/null``, or an unnamed file holding ``data``."""
    if not data:
        yield subprocess.DEVNULL
        return
    with tempfile.TemporaryFile() as source:
        source.write(data)
        source.seek(0)
        yield source


def _wait(pid: int, end: float | None) -> tuple[int, Any] | None:
    """Collects child ``pid`` once it exits, and kills what it left running in its group:
    its wait status and usage (``None``: ``end`` came first, and it runs on)."""
    try:
        handle = os.pidfd_open(pid)
    except (AttributeError, OSError):  # no pidfd (not Linux 5.3+): look every few ms
        handle = None
    if handle is not None:
        try:
            ready = select.poll()
            ready.register(handle, select.POLLIN)
            left = None if end is None else max(end - time.perf_counter(), 0.0)
            if not ready.poll(None if left is None else math.ceil(left * 1000)):
                return None
        finally:
            os.close(handle)
        kill_group(pid)  # before collecting it: until then no other process takes its id
        _, status, usage = os.wait4(pid, 0)
        return status, usage
    pause = 0.001
    while True:
        found, status, usage = os.wait4(pid, os.WNOHANG)
        if found:
            kill_group(pid)
            return status, usage
        if end is not None and time.perf_counter() >= end:
            return None
        time.sleep(pause if end is None else min(pause, max(end - time.perf_counter(), 0)))
        pause = min(2 * pause, 0.05)


def _caps(memory_mb: int | None, max_output: int) -> Callable[[], None]:
    """What runs in a program's process before it starts: its files capped at
    ``max_output`` bytes, its data segment at ``memory_mb`` MiB."""

    def apply() -> None:
        import resource

        caps = [(resource.RLIMIT_FSIZE, max_output)]
        if memory_mb is not None:
            caps.append((resource.RLIMIT_DATA, memory_mb * 2**20))
        for which, cap in caps:  # soft limits only, never above the inherited hard one
            _, hard = resource.getrlimit(which)
            resource.setrlimit(
                which, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard)
            )

    return apply
