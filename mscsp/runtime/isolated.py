"""One isolated run: a Python function in a forked child, or a program, stopped at a limit.

Both run in a child process that leads its own process group, under a wall-clock limit
(the whole group is killed there: whatever the child started goes with it) and, if asked,
a memory limit on what the child and its descendants hold resident, sampled here every few
milliseconds (:mod:`mscsp.runtime.resident`; the group is killed past it, a :data:`MEMORY`
outcome) with a data-segment backstop far above it
(:func:`~mscsp.runtime.memlimit.set_ceiling`); both give back one
:class:`~mscsp.runtime.child.Outcome` with the child's CPU time and peak resident memory
(the larger of ``os.wait4``'s and the sampler's).

:func:`run_function` forks: it starts in a few milliseconds (nothing is imported or pickled
on the way in), and works in daemonic processes, which :mod:`multiprocessing` forbids to
have children (the web API's workers, a pool's). The child touches nothing of the parent's:
it closes every inherited descriptor but its end of the pipe (a server's sockets, a
worker's pipe), writes nothing to the parent's standard output (its descriptor 1 is
``/dev/null``), dies with its parent (``PR_SET_PDEATHSIG`` on Linux), sees no deadline of
the parent's (a fresh :mod:`contextvars` context: the parent enforces the limit), and leaves
with ``os._exit``, so no buffer is flushed twice and no ``atexit`` handler of the parent runs.

:func:`run_program` starts a program (its own session, its standard input from bytes),
caps what it may write (``RLIMIT_FSIZE``: its output is read back whole), and gives back
its output, exit code and last error line.
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
    MEMORY,
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
from .memlimit import MEMORY_EXIT, backstop_mb, set_ceiling
from .resident import INTERVAL, LATE, OVER, READY, Resident, Waited, resident_mb, wait_for

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
        memory_mb: MiB the child and its descendants may hold resident beyond what the
            child holds when it starts (``None``: no limit of its own, the parent's
            backstop).

    Returns:
        :data:`OK` with the answer, :data:`RAISED` with the exception (one that does not
        pickle comes back as an :class:`~mscsp.errors.MscspError` with its text),
        :data:`LIMIT`, :data:`MEMORY` (killed past its memory limit; or, with the child's
        exit code, died as a failed allocation does), or :data:`CRASH` with its exit code.

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
    # With a memory limit, the child waits on ``go`` until its budget is taken.
    go = os.pipe() if memory_mb is not None else None
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        if go is not None:
            os.close(go[1])
        _child(parent, write, go and go[0], function, args, memory_mb)
    os.close(write)
    with contextlib.suppress(OSError):  # (the child does it too: whichever runs first)
        os.setpgid(pid, pid)
    watch = None if go is None else _budget(pid, go, memory_mb)
    try:
        waited, data = _read_until(read, end, watch)
    finally:
        os.close(read)
        kill_group(pid)  # a child that has exited is a zombie: no effect on it
        status, usage = _collect(pid)
        if watch is not None:
            watch.close()
    seconds = time.perf_counter() - start
    cpu, peak = _costs(usage, watch)
    if waited != READY:
        return Outcome(LIMIT if waited == LATE else MEMORY, None, seconds, cpu, peak)
    if not data:  # stopped without an answer: a native crash, or out of memory
        code = os.waitstatus_to_exitcode(status)
        return Outcome(died(code), None, seconds, cpu, peak, code)
    done, value = pickle.loads(data)
    return Outcome(OK if done else RAISED, value, seconds, cpu, peak)


def _budget(pid: int, go: tuple[int, int], memory_mb: int) -> Resident | None:
    """The sampler of a forked child held at its start, under a budget of ``memory_mb`` MiB
    above what it holds there; then lets it go.

    Its start is measured, not this process's: a fork copies only the page table entries
    of this process's anonymous memory, so the child starts out holding those pages (shared
    until written) but none of the file pages this process holds (its libraries: hundreds
    of MiB once JAX is loaded), which it faults in as it touches them."""
    read, write = go
    os.close(read)
    try:
        start = resident_mb(pid)
        return None if start is None else Resident.start(pid, start + memory_mb)
    finally:
        with contextlib.suppress(OSError):  # (a child that died early reads no go)
            os.write(write, b"g")
        os.close(write)


def _child(
    parent: int,
    write: int,
    go: int | None,
    function: Callable[..., Any],
    args: tuple,
    memory_mb: int | None,
) -> None:
    """Runs in the forked child: waits for ``go`` (where given), the call, its result down
    the pipe, then ``os._exit``."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # stopped at once if signalled
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)
        die_with_parent(parent)
        if go is not None:
            os.read(go, 1)  # (the parent has taken the budget; EOF: it died, and so do we)
            os.close(go)
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


def _read_until(fd: int, end: float | None, watch: Resident | None) -> tuple[Waited, bytes]:
    """Everything written to ``fd`` until its writer closes it (:data:`READY`), or what
    came before ``end`` (:data:`LATE`) or before the child passed its memory limit
    (:data:`OVER`)."""
    chunks = []
    ready = select.poll()  # not select.select: a server's descriptors can pass 1024
    ready.register(fd, select.POLLIN)
    while True:
        if end is not None or watch is not None:
            left = None if end is None else max(end - time.perf_counter(), 0.0)
            waited = wait_for(_polled(ready), left, watch)
            if waited != READY:
                return waited, b"".join(chunks)
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            return READY, b"".join(chunks)
        chunks.append(chunk)


def _polled(ready: select.poll) -> Callable[[float | None], bool]:
    """A wait of at most the seconds given (``None``: for ever) for ``ready``'s event."""
    return lambda seconds: bool(ready.poll(None if seconds is None else math.ceil(seconds * 1000)))


def _costs(usage: Any, watch: Resident | None) -> tuple[float | None, float | None]:
    """``(CPU seconds, peak MiB)`` of a collected child: its peak the larger of
    ``os.wait4``'s (its largest process) and the sampler's (all its processes at once)."""
    cpu, peak = cost(usage)
    if watch is not None:
        peak = watch.peak_mb if peak is None else max(peak, watch.peak_mb)
    return cpu, peak


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
        memory_mb: MiB it and its descendants may hold resident (``None``: no limit of its
            own, the inherited backstop). A program starts empty, so this is all it may
            hold, unlike a forked function's budget; its data segment may reserve
            :func:`~mscsp.runtime.memlimit.backstop_mb` (``RLIMIT_DATA``, soft, never above
            the inherited hard limit).
        max_output: Most bytes it may write to any file.

    Returns:
        :data:`OK` where it exited by itself (whatever its exit code), :data:`LIMIT`,
        :data:`MEMORY` where it was killed past its memory limit (no exit code), or
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
        # Sampled even without a limit: the program's peak is what the sampler sees, not
        # os.wait4's, which counts the resident pages of the forked copy of this process
        # that the program's exec replaced (Linux keeps that copy's high-water mark).
        watch = Resident.start(process.pid, math.inf if memory_mb is None else memory_mb)
        try:
            waited, found = _wait(process.pid, end, watch)
        finally:
            if found is None:  # a limit (or an interrupt) came first: the group goes
                kill_group(process.pid)
            status, usage = found if found is not None else _collect(process.pid)
            process.returncode = os.waitstatus_to_exitcode(status)  # (collected here)
            if watch is not None:
                watch.close()
        seconds = time.perf_counter() - start
        cpu = cost(usage)[0]
        peak = None if watch is None else watch.peak_mb
        if waited == LATE:
            return Outcome(LIMIT, None, seconds, cpu, peak)
        out.seek(0)
        err.seek(0)
        output, errors = out.read(max_output), tail(err.read(max_output).decode(errors="replace"))
        if waited == OVER:
            return Outcome(MEMORY, output, seconds, cpu, peak, stderr=errors)
        code = process.returncode
        kind = OK if os.WIFEXITED(status) else died(code)
        return Outcome(kind, output, seconds, cpu, peak, code, errors)


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


def _wait(
    pid: int, end: float | None, watch: Resident | None
) -> tuple[Waited, tuple[int, Any] | None]:
    """Collects child ``pid`` once it exits, and kills what it left running in its group:
    :data:`READY` with its wait status and usage; or :data:`LATE` (``end`` came first) or
    :data:`OVER` (it passed its memory limit first), and it runs on."""
    try:
        handle = os.pidfd_open(pid)
    except (AttributeError, OSError):  # no pidfd (not Linux 5.3+): look every few ms
        handle = None
    if handle is not None:
        try:
            ready = select.poll()
            ready.register(handle, select.POLLIN)
            left = None if end is None else max(end - time.perf_counter(), 0.0)
            waited = wait_for(_polled(ready), left, watch)
            if waited != READY:
                return waited, None
        finally:
            os.close(handle)
        kill_group(pid)  # before collecting it: until then no other process takes its id
        _, status, usage = os.wait4(pid, 0)
        return READY, (status, usage)
    pause = 0.001
    while True:
        found, status, usage = os.wait4(pid, os.WNOHANG)
        if found:
            kill_group(pid)
            return READY, (status, usage)
        if watch is not None and watch.over():
            return OVER, None
        if end is not None and time.perf_counter() >= end:
            return LATE, None
        time.sleep(pause if end is None else min(pause, max(end - time.perf_counter(), 0)))
        pause = min(2 * pause, 0.05 if watch is None else INTERVAL)


def _caps(memory_mb: int | None, max_output: int) -> Callable[[], None]:
    """What runs in a program's process before it starts: killed when this process dies,
    its files capped at ``max_output`` bytes, its data segment at the backstop of a
    ``memory_mb`` MiB limit."""
    # (computed here: the function below runs between fork and exec, where it must not read
    # files or allocate much)
    data = None if memory_mb is None else backstop_mb(memory_mb) * 2**20
    parent = os.getpid()
    load_prctl()  # (loaded here: the child only calls it)

    def apply() -> None:
        import resource

        # Killed if this process dies (a Ctrl-C'd or killed run leaves no counter behind:
        # the program leads a session of its own, out of reach of this one's group).
        die_with_parent(parent)

        caps = [(resource.RLIMIT_FSIZE, max_output)]
        if data is not None:
            caps.append((resource.RLIMIT_DATA, data))
        for which, cap in caps:  # soft limits only, never above the inherited hard one
            _, hard = resource.getrlimit(which)
            resource.setrlimit(
                which, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard)
            )

    return apply
