"""Native counts that cannot be interrupted, run in a child process killed at the deadline.

Ganak, ApproxMC/UniGen and the SDD library run each call to its end: a time limit checked
between their calls can be overrun by minutes. With a deadline, :func:`run_native` runs the
count in a forked child on the data already built here
(:func:`mscsp.runtime.isolated.run_function`: the child's output silenced, its group killed
at the deadline, a fork that also works in the web API's daemonic workers) and raises
:class:`~mscsp.errors.SolverLimitError` when the deadline comes first. Without a deadline the
count runs in this process, with no overhead.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

from ..errors import MemoryLimitError, MscspError, SolverLimitError
from ..runtime.child import LIMIT, MEMORY, OK, RAISED
from ..runtime.isolated import run_function

T = TypeVar("T")


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
    outcome = run_function(function, *args, timeout=end - time.perf_counter())
    if outcome.status == OK:
        return outcome.value
    if outcome.status == RAISED:
        raise outcome.value
    if outcome.status == LIMIT:
        raise on_limit()
    # Not killed by us (that is the deadline, above): a native allocation that failed, or
    # the kernel's out-of-memory killer.
    raise (MemoryLimitError if outcome.status == MEMORY else SolverLimitError)(
        f"the process counting with {function.__name__} stopped without an answer "
        f"({outcome.detail}): it may have needed more memory than allowed"
    )
