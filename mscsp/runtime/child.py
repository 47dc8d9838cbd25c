"""What an isolated run gives back, and what every isolated child does the same way.

An isolated run (:mod:`mscsp.runtime.isolated`: a function in a forked child, a program;
:mod:`mscsp.runtime.worker`: a persistent worker serving calls) ends in one
:class:`Outcome`: the answer, the exception the function raised, or how the child stopped
(killed at its time limit, out of memory, crashed), with what it cost (CPU seconds, peak
resident memory) wherever the system tells, and the last line it wrote to standard error.
The helpers here are shared by both forms: the words for how a child ended, how it is killed
(its whole process group), its cost, and what a child does before it works (dies with its
parent, sends back only what unpickles).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from ..errors import MscspError
from .memlimit import died_of_memory

#: The run answered: :attr:`Outcome.value` is its answer (a program's: its standard output).
OK = "ok"
#: The function raised: :attr:`Outcome.value` is the exception.
RAISED = "raised"
#: Killed at its wall-clock limit (its whole process group).
LIMIT = "limit"
#: Ran out of memory: killed past its memory limit (what it held resident), a
#: ``MemoryError`` in the child, or it died as an allocation that fails in native code, or
#: the kernel's out-of-memory killer, kills a process (see
#: :data:`~mscsp.runtime.memlimit.MEMORY_SIGNALS`).
MEMORY = "memory"
#: Died of anything else, without an answer (:attr:`Outcome.detail` says how).
CRASH = "crash"

Status = Literal["ok", "raised", "limit", "memory", "crash"]

#: ``prctl`` option: the signal a child gets when its parent dies (Linux).
_PR_SET_PDEATHSIG = 1
#: Longest error line kept from a program (characters).
STDERR_TAIL = 200


@dataclass(frozen=True)
class Outcome:
    """How one isolated run ended.

    Attributes:
        status: :data:`OK`, :data:`RAISED`, :data:`LIMIT`, :data:`MEMORY` or :data:`CRASH`.
        value: The answer (:data:`OK`; a program's standard output, as bytes, whatever its
            status), or the exception raised (:data:`RAISED`); else ``None``.
        seconds: Wall-clock seconds from the start (or the call sent) to its end.
        cpu_seconds: CPU seconds the child (and the children it waited for) used on it;
            ``None`` where the system does not tell.
        peak_mb: Peak resident memory of the child in MiB, with its descendants where a
            memory limit had them sampled (a persistent worker's: since the call began);
            ``None`` where the system does not tell.
        exit_code: How the child ended, as :mod:`subprocess` gives it (``-N``: killed by
            signal ``N``); ``None`` while it runs on (a persistent worker that answered),
            or where it was killed here at a limit.
        stderr: The last line of error output a program, or a persistent worker during
            the call, wrote, at most :data:`STDERR_TAIL` characters (``""`` for a forked
            function, whose error output is its parent's, and for the web's workers).
    """

    status: Status
    value: Any = None
    seconds: float = 0.0
    cpu_seconds: float | None = None
    peak_mb: float | None = None
    exit_code: int | None = None
    stderr: str = ""

    @property
    def detail(self) -> str:
        """How the child ended, in words: ``killed by SIGSEGV``, ``exit code 3`` (``""``
        while it runs on)."""
        return "" if self.exit_code is None else ended(self.exit_code)

    @property
    def crash(self) -> str:
        """How the child died and the last error line it wrote, in words (``killed by
        SIGABRT: double free or corruption (out)``): its :attr:`detail`, its
        :attr:`stderr`, or both; ``""`` where it left neither."""
        return ": ".join(part for part in (self.detail, self.stderr) if part)


def ended(exit_code: int) -> str:
    """A child's exit code (``-N``: signal ``N``) in words."""
    if exit_code < 0:
        try:
            name = signal.Signals(-exit_code).name
        except ValueError:
            name = f"signal {-exit_code}"
        return f"killed by {name}"
    return f"exit code {exit_code}"


def died(exit_code: int | None) -> Status:
    """The status of a child that stopped without an answer: :data:`MEMORY` where its exit
    says so (:func:`~mscsp.runtime.memlimit.died_of_memory`), else :data:`CRASH`."""
    return MEMORY if died_of_memory(exit_code) else CRASH


def tail(text: str) -> str:
    """The last line of ``text``, cut to :data:`STDERR_TAIL` characters."""
    return " ".join(text.strip().splitlines()[-1:])[:STDERR_TAIL]


def kill_group(pid: int) -> None:
    """Kills process ``pid``'s whole group (it leads one), or ``pid`` alone where it does
    not lead one yet; nothing where it has been collected already."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # no group of that id (yet)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def cost(usage: Any) -> tuple[float | None, float | None]:
    """``(CPU seconds, peak MiB)`` of an ``os.wait4`` usage (``None``: unknown)."""
    if usage is None:
        return None, None
    # ru_maxrss is in KiB on Linux, in bytes on macOS.
    peak = usage.ru_maxrss / (2**20 if sys.platform == "darwin" else 2**10)
    return usage.ru_utime + usage.ru_stime, peak


def cpu_so_far() -> float:
    """CPU seconds this process and the children it waited for have used."""
    import resource  # (POSIX only: imported where a child is measured)

    mine = resource.getrusage(resource.RUSAGE_SELF)
    theirs = resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + theirs.ru_utime + theirs.ru_stime


def cpu_of(pid: int) -> float | None:
    """CPU seconds live process ``pid`` and the children it waited for have used (Linux
    ``/proc``; ``None`` elsewhere, or once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = sum(int(fields[i]) for i in range(11, 15))  # utime stime cutime cstime
    except (OSError, IndexError, ValueError):
        return None
    return ticks / os.sysconf("SC_CLK_TCK")


def peak_of(pid: int) -> float | None:
    """The peak resident memory of live process ``pid`` in MiB (``VmHWM``; ``None`` where
    ``/proc`` does not tell)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 2**10
    except (OSError, ValueError):
        pass
    return None


def sendable(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling both ways, else an :class:`MscspError` with its text
    (an exception whose class takes other arguments would fail in the parent instead)."""
    try:
        pickle.loads(pickle.dumps(exc, pickle.HIGHEST_PROTOCOL))
    except Exception:
        return MscspError(f"{type(exc).__name__}: {exc}")
    return exc


def die_with_parent(parent: int) -> None:
    """Asks the kernel to kill this process when its parent dies (Linux), and exits at once
    where the parent ``parent`` died before that took effect."""
    prctl = load_prctl()
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


@cache
def load_prctl() -> Any:
    """libc's ``prctl`` (``None`` off Linux); ctypes is imported only when a child starts.
    Load it in the parent before a fork: the child then only calls it."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    return ctypes.CDLL(None, use_errno=True).prctl
