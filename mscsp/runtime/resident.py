"""The resident memory of a run and its children, sampled, and a wait that stops at a limit.

A memory limit bounds what a run uses, as the model counting competitions measure it: the
resident memory (RSS) of the run's process and every process it started, not the address
space they reserve (D4 reserves about 2 GB for a formula of two clauses and touches a few
MB of it). A cgroup v2 would count it exactly, but a process may only make one that limits
memory where such a cgroup has been delegated to it (its own cgroup, which holds processes,
cannot take children that limit memory), and the machines this runs on delegate none (here
the v2 hierarchy has no memory controller at all). So the parent samples, as runsolver
does: every :data:`INTERVAL` seconds it adds up the resident size of the run's process and
its descendants (``/proc/PID/statm``, read from a descriptor kept open: about a
microsecond), and looks for new descendants every so often (:data:`FIRST_SCAN`, doubling to
:data:`LAST_SCAN`). The caller kills the run when the sum passes its limit.

Pages a forked child shares with its parent (copy on write) count in each, as in
runsolver's sum: the measure errs on the high side, never the low. An allocation faster
than the sampler is left to the data-segment backstop of :mod:`mscsp.runtime.memlimit`.
Off Linux (no ``/proc``) nothing is sampled: the backstop alone applies.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from typing import Literal

#: Seconds between two samples of a run's resident memory.
INTERVAL = 0.005
#: Seconds before the first look for a run's new descendants; each later look waits twice
#: as long as the one before, up to :data:`LAST_SCAN` (most children start early, and a
#: look reads every process's ``/proc/PID/stat``: about a millisecond per hundred).
FIRST_SCAN = 0.01
#: Most seconds between two looks for new descendants.
LAST_SCAN = 0.5

#: What :func:`wait_for` saw first: the awaited event, the time limit, the memory limit.
READY = "ready"
LATE = "late"
OVER = "over"
Waited = Literal["ready", "late", "over"]

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_mb(pid: int | str = "self") -> float | None:
    """The resident memory of process ``pid`` (``"self"``: this one) in MiB; ``None`` where
    ``/proc`` does not tell (not Linux, or the process is gone)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * _PAGE / 2**20
    except (OSError, IndexError, ValueError):
        return None


class Resident:
    """The summed resident memory of process ``root`` and its descendants, sampled.

    Use :meth:`start` (``None`` where nothing can be sampled), then :meth:`over` at each
    sample, and :meth:`close` when the run has ended.

    Args:
        root: The run's process.
        limit_mb: MiB past which :meth:`over` says so.
        statm: A descriptor open on ``/proc/ROOT/statm``.
    """

    def __init__(self, root: int, limit_mb: float, statm: int):
        self.root = root
        self.limit = limit_mb * 2**20
        #: Most bytes seen at one sample.
        self.peak = 0
        self._statm = {root: statm}
        self._gap = FIRST_SCAN
        self._scan_at = time.monotonic() + self._gap

    @classmethod
    def start(cls, root: int, limit_mb: float | None) -> Resident | None:
        """A sampler of ``root`` under ``limit_mb`` MiB; ``None`` without a limit, or where
        ``/proc`` does not tell (not Linux)."""
        if limit_mb is None:
            return None
        try:
            return cls(root, limit_mb, os.open(f"/proc/{root}/statm", os.O_RDONLY))
        except OSError:
            return None

    @property
    def peak_mb(self) -> float:
        """The most resident memory seen at one sample, in MiB."""
        return self.peak / 2**20

    def over(self) -> bool:
        """Samples now: whether the run and its descendants hold more than the limit."""
        if time.monotonic() >= self._scan_at:
            self._scan()
        total = 0
        for pid, handle in list(self._statm.items()):
            try:
                total += int(os.pread(handle, 64, 0).split()[1]) * _PAGE
            except (OSError, IndexError, ValueError):  # gone (collected): it holds nothing
                os.close(self._statm.pop(pid))
        self.peak = max(self.peak, total)
        return total > self.limit

    def _scan(self) -> None:
        """Starts sampling the descendants of the root not sampled yet."""
        children: dict[int, list[int]] = {}
        with contextlib.suppress(OSError):
            for entry in os.scandir("/proc"):
                if entry.name.isdigit():
                    parent = _parent(entry.name)
                    if parent is not None:
                        children.setdefault(parent, []).append(int(entry.name))
        found, todo = set(), [self.root]
        while todo:
            for child in children.get(todo.pop(), ()):
                if child not in found:
                    found.add(child)
                    todo.append(child)
        for pid in found - self._statm.keys():
            with contextlib.suppress(OSError):  # ended since
                self._statm[pid] = os.open(f"/proc/{pid}/statm", os.O_RDONLY)
        self._gap = min(2 * self._gap, LAST_SCAN)
        self._scan_at = time.monotonic() + self._gap

    def close(self) -> None:
        """Closes the descriptors it samples through."""
        while self._statm:
            os.close(self._statm.popitem()[1])


def _parent(pid: str) -> int | None:
    """The parent of process ``pid`` (``None`` once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return int(handle.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def wait_for(
    ready: Callable[[float | None], bool], timeout: float | None, watch: Resident | None
) -> Waited:
    """Waits for an event, at most ``timeout`` seconds, sampling ``watch`` meanwhile.

    Args:
        ready: Waits at most the seconds it is given (``None``: for ever) for the event,
            and says whether it came.
        timeout: Seconds to wait (``None``: no limit).
        watch: The run's sampler (``None``: none; one plain wait).

    Returns:
        :data:`READY` (the event came), :data:`LATE` (the time ran out first) or
        :data:`OVER` (the run passed its memory limit first).
    """
    if watch is None:
        return READY if ready(timeout) else LATE
    end = None if timeout is None else time.monotonic() + timeout
    while True:
        left = None if end is None else max(end - time.monotonic(), 0.0)
        if ready(INTERVAL if left is None else min(INTERVAL, left)):
            return READY
        if watch.over():
            return OVER
        if end is not None and time.monotonic() >= end:
            return LATE
