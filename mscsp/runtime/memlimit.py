"""The data-segment backstop under a memory limit, and how a worker that hit one is recognised.

A memory limit bounds what a run holds resident, sampled by its parent
(:mod:`mscsp.runtime.resident`) in every isolated run (:mod:`mscsp.runtime.isolated`,
:mod:`mscsp.runtime.worker`: the benchmark's workers, the web analyser's). Under it each
run also gets a backstop the kernel enforces, for an allocation faster than the sampler:
its data segment (``RLIMIT_DATA``) may grow :func:`backstop_mb` beyond what it holds once
started, far above the limit, so that a reservation it never touches (D4's) is no memory
out, while a runaway still stops with a ``MemoryError`` (or, in native code, the run dies)
instead of taking the machine down.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

#: Exit status of a worker that ran out of memory outside a job's answer.
MEMORY_EXIT = 75
#: Signals a worker dies of when an allocation fails in native code (or the kernel's
#: out-of-memory killer picks it): with a ceiling set, read as the ceiling hit.
MEMORY_SIGNALS = {signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS, signal.SIGKILL}

#: MiB a backstop adds to the limit at least (:func:`backstop_mb`).
BACKSTOP_SLACK_MB = 1024

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


def backstop_mb(limit_mb: int) -> int:
    """The data segment (MiB) a run under a memory limit of ``limit_mb`` may add: the larger
    of 4 times the limit and the limit plus :data:`BACKSTOP_SLACK_MB`, but no more than the
    machine's memory and swap (unless the limit itself is more).

    Four times the limit leaves room for what libraries reserve and never touch (D4's
    2 GB under a limit of 1 GB); the slack does so under small limits. It stays far enough
    below a runaway's size to stop it at once, as an error the run can answer: under a
    limit of 200 MB an allocation of 2 GiB fails with a ``MemoryError``.
    """
    backstop = max(4 * limit_mb, limit_mb + BACKSTOP_SLACK_MB)
    machine = machine_mb()
    return backstop if machine is None else max(limit_mb, min(backstop, machine))


def machine_mb() -> int | None:
    """This machine's memory and swap in MiB (``None`` where the system does not tell)."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        return None
    swap = 0
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("SwapTotal:"):
                swap = int(line.split()[1]) * 1024
    return (memory + swap) // 2**20


def set_ceiling(limit_mb: int | None) -> None:
    """Sets this process's backstop under a memory limit of ``limit_mb``: it may add
    :func:`backstop_mb` to the data segment it holds now (Linux only).

    ``RLIMIT_DATA`` rather than ``RLIMIT_AS``: numba, numpy and JAX reserve address space
    without write access that they never use (a learned model's worker reserves over
    1.5 GB, uses 0.4 GB; every thread's heap reserves 64 MB), which ``RLIMIT_AS`` would
    count. A child forked later inherits the same ceiling.
    """
    idle = data_size()
    if limit_mb is None or idle is None:
        return
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    ceiling = idle + backstop_mb(limit_mb) * 2**20
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
