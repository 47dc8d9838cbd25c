"""Exceptions raised by mscsp, each with the exit code the CLI maps it to."""

from __future__ import annotations


class MscspError(Exception):
    """Base class of every error mscsp reports to users.

    Attributes:
        exit_code: The process exit code the CLI uses for this error.
    """

    exit_code = 1


class BoardParseError(MscspError, ValueError):
    """The board text is malformed; the message names the line and column."""

    exit_code = 2

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        self.line = line
        self.column = column
        where = ""
        if line is not None:
            where = f"line {line}" + (f", column {column}" if column is not None else "") + ": "
        super().__init__(where + message)


class InvalidInputError(MscspError, ValueError):
    """An option or argument is out of range (board size, mine count, cell)."""

    exit_code = 2


class InvalidTypeError(InvalidInputError, TypeError):
    """An argument of the wrong type (a list where a board is meant, a string for a count).

    Also a :class:`TypeError`, which is what Python code expects to catch for a wrong type.
    """


class InconsistentBoardError(MscspError):
    """The revealed numbers admit no placement of the remaining mines.

    Attributes:
        cell: A ``(row, col)`` cell involved in the contradiction, counted from 0 as on the
            probability map, when known (the message then names it).
    """

    exit_code = 3

    def __init__(self, message: str, cell: tuple[int, int] | None = None):
        self.cell = cell
        where = "" if cell is None else f" (cell {format_cell(cell)})"
        super().__init__(message + where)


def format_cell(cell: tuple[int, int]) -> str:
    """``(row, col)`` as every message writes a cell: counted from 0, like the map."""
    return f"({int(cell[0])}, {int(cell[1])})"


class BackendUnavailableError(MscspError):
    """A backend's optional package is not installed (the message names the extra)."""

    exit_code = 4


class SolverLimitError(MscspError):
    """A backend hit its time limit or solution cap and cannot give an exact answer."""

    exit_code = 5


class MemoryLimitError(SolverLimitError):
    """The work needed more memory than its ceiling allows (a worker's or a run's limit)."""


class OutputLockedError(MscspError):
    """Another running process is writing the same output file (the message names it).

    Two writers on one file would mix their records, so the second is refused at once.
    """

    exit_code = 6
