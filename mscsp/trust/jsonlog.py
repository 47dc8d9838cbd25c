"""Resumable JSONL logs read back: the header names the log, a damaged line is skipped.

``play --out``, ``bench --out`` and ``replay --out`` write logs that ``--resume`` reads back
and appends to. :func:`read_log` is their one reader. The log's first line must say what
the log is (its ``header`` parser accepts it), else the file is refused untouched: a
resume never appends to, truncates or replaces a file that is not its command's log. After
it, each line is read with :func:`~mscsp.trust.jsonl.loads_bounded` (bounded in length,
nesting and digits) and checked by the log's ``record`` parser; a line that fails either
is reported (file and line number) and skipped, and the lines after it are kept. Only a
last line without its newline, cut short by a kill, is dropped from the file, by
:meth:`LogContents.repair`: never a whole line.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Generic, TypeVar

from ..errors import InvalidInputError, MscspError
from .files import open_output, open_regular
from .jsonl import loads_bounded

#: Longest line read (bytes): a bench run's line holds its whole answer, a few MB at most.
MAX_LINE_BYTES = 64 * 1024 * 1024
#: Damaged lines reported one by one; the rest are counted in one line.
MAX_WARNINGS = 10

H = TypeVar("H")
R = TypeVar("R")


class Damaged(ValueError):
    """A log line that is not a record of its log; the message says why (one line)."""


def warn(message: str) -> None:
    """Reports a damaged line on standard error (the default of :func:`read_log`)."""
    print(f"mscsp: warning: {message}", file=sys.stderr, flush=True)


def typed(record: Any, key: Any, *kinds: type) -> Any:
    """``record[key]``, if ``record`` is an object and the value is of one of ``kinds``.

    ``True`` is not an ``int`` here unless ``bool`` is asked for; an ``int`` is a ``float``;
    a float must be finite (JSON's ``NaN`` and ``Infinity``, or ``1e999``, are refused).

    Raises:
        Damaged: Not an object, no such key, or another type.
    """
    if not isinstance(record, dict):
        raise Damaged(f"not a JSON object but {_kind(record)}")
    if key not in record:
        raise Damaged(f"no {key!r}")
    value = record[key]
    if isinstance(value, bool) and bool not in kinds:
        ok = False
    elif isinstance(value, int) and float in kinds:
        ok = True
    else:
        ok = isinstance(value, kinds)
    if ok and isinstance(value, float) and not math.isfinite(value):
        raise Damaged(f"{key!r} is not a finite number")
    if not ok:
        wanted = " or ".join(_kind_name(kind) for kind in kinds)
        raise Damaged(f"{key!r} is {_kind(value)}, not {wanted}")
    return value


#: How a message names each JSON type.
_KIND_NAMES = {
    type(None): "null",
    bool: "true or false",
    int: "an integer",
    float: "a number",
    str: "a string",
    list: "a list",
    dict: "an object",
}


def _kind_name(kind: type) -> str:
    return _KIND_NAMES.get(kind, kind.__name__)


def _kind(value: Any) -> str:
    return "null" if value is None else _kind_name(type(value))


@dataclass
class LogContents(Generic[H, R]):
    """What :func:`read_log` found.

    Attributes:
        path: The log.
        header: The first line (blank lines aside) as the header parser gave it
            (``None``: an empty file).
        records: ``(line number, record)`` of every good line after the first, in order.
        damaged: Line numbers of the lines skipped.
        tail: Where a last line without its newline starts (bytes), if there is one.
        tail_cut: That last line is damaged (cut short by a kill): :meth:`repair` drops it.
    """

    path: Path
    header: H | None = None
    records: list[tuple[int, R]] = field(default_factory=list)
    damaged: list[int] = field(default_factory=list)
    tail: int | None = None
    tail_cut: bool = False

    def repair(self, what: str) -> None:
        """Readies the log for appending: a cut last line is dropped (only the bytes after
        the last newline), a whole last line missing its newline gets one. Never through
        a link (:func:`~mscsp.trust.files.open_output`)."""
        if self.tail is None:
            return
        with open_output(self.path, what, append=True, binary=True) as handle:
            if self.tail_cut:
                os.ftruncate(handle.fileno(), self.tail)
            else:
                handle.write(b"\n")


def read_log(
    path: str | Path,
    what: str,
    header: Callable[[Any], H],
    record: Callable[[Any], R],
    *,
    report: Callable[[str], None] = warn,
) -> LogContents[H, R]:
    """Reads a resumable log: its header, then its records, damaged lines skipped.

    Args:
        path: The log (a regular file; a link is refused: it is an output of ours).
        what: What the log is, for messages (``"play log"``).
        header: Parses the first line's JSON value; raises :class:`Damaged` (or a
            ``KeyError``, ``TypeError``, ``ValueError``) if it is not this log's header.
        record: Parses each later line's JSON value, raising as ``header`` does for a line
            that is not a record of this log. A :class:`~mscsp.errors.MscspError` it
            raises is no damage: it carries on to the caller.
        report: Where each damaged line is reported (one line each, naming the file and
            the line; standard error by default).

    Raises:
        InvalidInputError: The file cannot be read, is not a regular file, or its first
            line is not this log's header (the file is left as it is).
    """
    contents: LogContents[H, R] = LogContents(Path(path))
    shown = f"{str(path)!r}"
    first = True  # (the first line that is not blank: the header)
    with open_regular(path, what, follow=False) as handle:
        for number, offset, line, ended in _lines(handle):
            if line is not None and not line.strip() and ended:
                continue  # a blank line holds no record: nothing lost
            try:
                parsed = _parse(line, f"{shown} line {number}", header if first else record, what)
            except Damaged as exc:
                if first:
                    raise InvalidInputError(
                        f"{shown} is not a {what} ({_one_line(str(exc))}); refusing to use "
                        "it (the file is left as it is)"
                    ) from None
                contents.damaged.append(number)
                if not ended:
                    contents.tail, contents.tail_cut = offset, True
                    message = f"{exc}: the last line, cut short (an interrupted write); dropped"
                else:
                    message = f"{exc}; skipped (the lines after it are kept)"
                if len(contents.damaged) <= MAX_WARNINGS:
                    report(_one_line(message))
                continue
            if first:
                contents.header, first = parsed, False
            else:
                contents.records.append((number, parsed))
            if not ended:
                contents.tail = offset
    if len(contents.damaged) > MAX_WARNINGS:
        more = len(contents.damaged) - MAX_WARNINGS
        report(f"{shown}: {more} more damaged lines skipped")
    return contents


def _parse(line: bytes | None, where: str, parse: Callable[[Any], Any], what: str) -> Any:
    """``parse`` of the line's bounded JSON value; :class:`Damaged` if either fails. An
    :class:`~mscsp.errors.MscspError` of ``parse``'s own carries on (no damage)."""
    if line is None:
        raise Damaged(f"{where}: a line of more than {MAX_LINE_BYTES} bytes")
    try:
        value = loads_bounded(line, where)
    except InvalidInputError as exc:
        raise Damaged(str(exc)) from None
    try:
        return parse(value)
    except MscspError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, OverflowError) as exc:
        reason = f"no {exc}" if isinstance(exc, KeyError) else str(exc) or type(exc).__name__
        raise Damaged(f"{where}: not a {what} record ({_one_line(reason)})") from None


def _lines(handle: IO[bytes]) -> Iterator[tuple[int, int, bytes | None, bool]]:
    """``(line number, offset, bytes, ended by a newline)`` of each line; the bytes are
    ``None`` for a line over :data:`MAX_LINE_BYTES` (the rest of it is skipped, unread)."""
    number = offset = 0
    while line := handle.readline(MAX_LINE_BYTES + 1):
        number += 1
        start, size = offset, len(line)
        if size > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while (more := handle.readline(MAX_LINE_BYTES)) and not more.endswith(b"\n"):
                size += len(more)
            size += len(more)
            offset += size
            yield number, start, None, more.endswith(b"\n")
            continue
        offset += size
        yield number, start, line, line.endswith(b"\n")


def _one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line of at most ``limit`` characters (a reason may quote the file)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
