"""A time budget shared by every stage of one solve (building, reducing, counting, combining)."""

from __future__ import annotations

import time

from .errors import SolverLimitError


class Deadline:
    """Raises :class:`~mscsp.errors.SolverLimitError` from :meth:`check` once time is up.

    Args:
        seconds: The budget from now (``None``: no limit, :meth:`check` never raises).
    """

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self.end = None if seconds is None else time.perf_counter() + seconds

    def check(self) -> None:
        """Raises if the budget is spent.

        Raises:
            SolverLimitError: The time limit has passed.
        """
        if self.end is not None and time.perf_counter() > self.end:
            raise SolverLimitError(f"the solve hit its time limit of {self.seconds} s")
