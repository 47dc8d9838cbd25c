"""A time budget shared by every stage of one solve (building, reducing, counting, combining).

While a solve counts, its deadline is *applied* (:meth:`Deadline.applied`): every backend
reads it through :func:`current` and stops there, so each component gets only what is left
of the solve's time, whatever wrappers (caches, the web API's) sit between the solve and
the backend. It is a context variable: each thread, and each task, sees its own.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from ..errors import SolverLimitError
from ..validate import check_int

#: The deadline of the solve counting in this context (``None``: none applied).
_APPLIED: ContextVar[Deadline | None] = ContextVar("mscsp_deadline", default=None)


class Deadline:
    """Raises :class:`~mscsp.errors.SolverLimitError` from :meth:`check` once time is up.

    Args:
        seconds: The budget from now (``None``: no limit, :meth:`check` never raises).
    """

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self.end = None if seconds is None else time.perf_counter() + seconds

    def remaining(self) -> float | None:
        """Seconds left, never below 0 (``None``: no limit)."""
        return None if self.end is None else max(self.end - time.perf_counter(), 0.0)

    def check(self, ahead: float = 0.0) -> None:
        """Raises if the budget is spent, or would be ``ahead`` seconds from now (a step
        of about that length is then not started: it would end past the limit).

        Raises:
            SolverLimitError: The time limit has passed, or will during the next step.
        """
        if self.end is not None and time.perf_counter() + ahead > self.end:
            raise SolverLimitError(f"the solve hit its time limit of {self.seconds} s")

    @contextmanager
    def applied(self) -> Iterator[Deadline]:
        """Makes this the deadline backends stop at (see :func:`current`) inside the block.

        Within an already applied deadline that ends sooner, that one stays: a solve inside
        another never outlives it.
        """
        outer = _APPLIED.get()
        bounded = outer is not None and outer.end is not None
        keep = outer is not None and (self.end is None or (bounded and outer.end < self.end))
        token = _APPLIED.set(outer if keep else self)
        try:
            yield _APPLIED.get()
        finally:
            _APPLIED.reset(token)


class StepBudget(Deadline):
    """A budget counted in checks, not seconds: a search that calls :meth:`check` once per
    so many steps stops after ``checks`` calls, at the same point on any machine and under
    any load (a seeded generator then gives the same output everywhere).

    Args:
        checks: How many calls of :meth:`check` pass; the next one raises.

    Raises:
        InvalidTypeError: ``checks`` is not an integer.
        InvalidInputError: ``checks`` is negative.
    """

    def __init__(self, checks: int):
        super().__init__(None)
        self.checks = check_int(checks, "checks")

    def check(self, ahead: float = 0.0) -> None:
        """Counts one call; raises once the budget is spent.

        Raises:
            SolverLimitError: ``checks`` calls have passed already.
        """
        self.checks -= 1
        if self.checks < 0:
            raise SolverLimitError("the search used up its budget of steps")


def current() -> Deadline | None:
    """The deadline applied by the solve in progress in this context, if any."""
    return _APPLIED.get()
