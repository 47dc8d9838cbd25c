"""mscsp: Minesweeper as a constraint problem.

Exact mine probabilities (``parse_board`` + ``solve``), a seeded game engine, interchangeable
counting backends, players and learners. Importing this package stays light: optional
packages (SAT, CP-SAT, JAX) load only when a backend or learner that needs them is used.
"""

from __future__ import annotations

__version__ = "0.1.0"

from .board import COVERED, FLAG, Board, parse_board  # noqa: E402
from .errors import (  # noqa: E402
    BackendUnavailableError,
    BoardParseError,
    InconsistentBoardError,
    InvalidInputError,
    InvalidTypeError,
    MemoryLimitError,
    MscspError,
    OutputLockedError,
    SolverLimitError,
)
from .game import PRESETS, FirstClick, Game  # noqa: E402
from .probabilities import Solution  # noqa: E402
from .solver import CountCache, solve  # noqa: E402

__all__ = [
    "COVERED",
    "FLAG",
    "PRESETS",
    "BackendUnavailableError",
    "Board",
    "BoardParseError",
    "CountCache",
    "FirstClick",
    "Game",
    "InconsistentBoardError",
    "InvalidInputError",
    "InvalidTypeError",
    "MemoryLimitError",
    "MscspError",
    "OutputLockedError",
    "Solution",
    "SolverLimitError",
    "parse_board",
    "solve",
]
