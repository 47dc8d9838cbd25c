"""A memory ceiling for a worker process, and how a worker that hit one is recognised.

Set by every isolated run (:mod:`mscsp.runtime.isolated`, :mod:`mscsp.runtime.worker`: the
web analyser's workers, the benchmark's): each lets the worker allocate a budget above what
it holds once started, so that a count that blows up stops with a ``MemoryError`` (or, in
native code, the worker dies) instead of taking the machine down.
"""

from __future__ import annotations

import contextlib
import signal
from pathlib import Path

#: Exit status of a worker that ran out of memory outside a job's answer.
MEMORY_EXIT = 75
#: Signals a worker dies of when an allocation fails in native code (or the kernel's
#: out-of-memory killer picks it): with a ceiling set, read as the ceiling hit.
MEMORY_SIGNALS = {signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS, signal.SIGKILL}

_STATUS = Path("/proc/self/status")


def _status_kb(key: str) -> int | None:
    """A ``kB`` line of ``/proc/self/status`` in bytes, ``None`` where there is none."""
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return None


def data_size() -> int | None:
    """This process's private writable memory in bytes (``VmData``: what ``RLIMIT_DATA``
    bounds), or ``None`` where ``/proc`` does not tell (not Linux)."""
    return _status_kb("VmData")


def set_ceiling(budget_mb: int | None) -> None:
    """Lets this process allocate ``budget_mb`` more than it holds now (Linux only).

    ``RLIMIT_DATA`` rather than ``RLIMIT_AS``: numba, numpy and JAX reserve address space
    they never use (a learned model's worker reserves over 1.5 GB, uses 0.4 GB), which
    ``RLIMIT_AS`` would count. A child forked later inherits the same ceiling.
    """
    idle = data_size()
    if budget_mb is None or idle is None:
        return
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    ceiling = idle + budget_mb * 2**20
    if hard != resource.RLIM_INFINITY:
        ceiling = min(ceiling, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (ceiling, hard))


def died_of_memory(exitcode: int | None) -> bool:
    """Whether a worker process with a ceiling that ended with ``exitcode`` (as
    :attr:`multiprocessing.Process.exitcode` gives it) ran out of memory."""
    if exitcode is None:
        return False
    return exitcode == MEMORY_EXIT or (exitcode < 0 and -exitcode in MEMORY_SIGNALS)


def reset_peak() -> None:
    """Starts a new peak for :func:`peak_mb` (Linux: ``clear_refs``; elsewhere nothing)."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def peak_mb() -> float | None:
    """The most resident memory this process held since :func:`reset_peak` (``VmHWM``), in
    MB; ``None`` where ``/proc`` does not tell."""
    peak = _status_kb("VmHWM")
    return None if peak is None else peak / 2**20
