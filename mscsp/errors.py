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
            probability map, when known: the number that fails where one does. The message
            then names it (in its own words, or as ``(cell (r, c))`` at its end).
    """

    exit_code = 3

    def __init__(self, message: str, cell: tuple[int, int] | None = None):
        self.cell = cell
        named = cell is None or format_cell(cell) in message
        super().__init__(message if named else f"{message} (cell {format_cell(cell)})")


def format_cell(cell: tuple[int, int]) -> str:
    """``(row, col)`` as every message writes a cell: counted from 0, like the map."""
    return f"({int(cell[0])}, {int(cell[1])})"


_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")


def in_words(n: int) -> str:
    """A small count in words ("no", "one", ... "eight"), a larger one in digits."""
    return _WORDS[n] if 0 <= n < len(_WORDS) else str(n)


def counted(n: int, noun: str, words: bool = False) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1 ("1 flag", "2 covered cells"); with
    ``words``, small counts in words ("one flag", "no covered cell")."""
    amount = in_words(n) if words else str(n)
    return f"{amount} {noun}" if n == 1 or (words and n == 0) else f"{amount} {noun}s"


def unmet_number(
    value: int, cell: tuple[int, int], flags: int, forced: int, covered: int, undecided: int
) -> InconsistentBoardError:
    """The error of a number that cannot be satisfied, in its own terms: never a negative
    count, and "covered" for covered cells.

    Args:
        value: The number.
        cell: Where it is.
        flags: Flags around it.
        forced: Covered cells around it that other numbers make mines (the single-point
            rules; 0 where they have not run).
        covered: Covered cells around it.
        undecided: Covered cells around it that may still hold a mine or not.
    """
    where = f"the {value} at {format_cell(cell)}"
    if flags + forced > value:
        held = [counted(flags, "flag")] if flags else []
        if forced:
            held.append(f"{counted(forced, 'covered cell')} that other numbers make mines")
        extra = in_words(flags + forced - value)
        return InconsistentBoardError(
            f"{where} touches {' and '.join(held)}: {extra} too many", cell
        )
    held = [counted(n, noun) for n, noun in ((flags, "flag"), (forced, "forced mine")) if n]
    wanted = counted(value - flags - forced, "more mine" if held else "mine")
    besides = f" besides its {' and '.join(held)}" if held else ""
    safe = covered - forced - undecided
    if safe:  # (without this, the count of covered cells would read as a miscount)
        left = str(undecided) if undecided else "none"
        room = f"other numbers make {counted(safe, 'covered cell')} around it safe, leaving {left}"
    elif forced:
        room = f"{_only(undecided, 'other covered cell')} {'are' if undecided > 1 else 'is'} left"
    else:
        room = f"it touches {_only(covered, 'covered cell')}"
    return InconsistentBoardError(f"{where} needs {wanted}{besides}, but {room}", cell)


def _only(n: int, noun: str) -> str:
    """ "only 2 covered cells", "only 1 covered cell", "no covered cell"."""
    return f"only {counted(n, noun)}" if n else f"no {noun}"


class WrongCountError(InvalidInputError):
    """A backend that is not ours (a counter program) gave counts that fail a check: a
    bound, an identity that every true count meets, or a recount by our own counter.

    Never a number to pass on: ``probs`` refuses it, ``bench`` names the run ``wrong``.
    """


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
