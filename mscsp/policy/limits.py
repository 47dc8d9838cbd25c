"""What a count stopped at a limit says, where an estimate was to stand in for it."""

from __future__ import annotations

from ..errors import SolverLimitError
from .fallback import Door


def why_stopped(exc: SolverLimitError, door: Door, limit: float, share_used: bool) -> str:
    """Why the exact count stopped, for the ``fallback`` record: its own words, or, where
    one clock bounds the answer and the count used its share of it, that share."""
    if door.one_clock and share_used:
        return f"it used its half of the analyser's {limit:g} s limit"
    return str(exc)


def both_stopped(stopped: str, also: SolverLimitError, door: Door) -> SolverLimitError:
    """The error where the estimate standing in stopped too: both reasons, on one line."""
    return SolverLimitError(
        f"the exact count stopped ({stopped}), and so did {door.fallback}: {also}"
    )
