"""One resumable log under every long run: a header with the run's settings, one record a line.

``play --out``, ``bench --out`` (its ``runs.jsonl``) and ``replay --out`` write logs that
``--resume`` reads back and appends to; each is a :class:`ResumableLog` of its own
:class:`LogFormat`, which names what the log is, its header and its records.

The file (JSON Lines):

- the header, the first line: ``{"type": KIND, "version": N, SETTINGS: {...}, ...}``, the
  log's kind, the version of its format, the run's settings (under the format's key) and
  any fields of the log's own (a play log's game count). A setting at its default
  (:attr:`LogFormat.optional`) is left out, and read back as that default. A log whose
  records say everything themselves has no header (:attr:`LogFormat.kind` ``None``): its
  first line is a record;
- then one record a line, each written whole, flushed and synced as it comes, through
  :func:`~mscsp.trust.files.open_output` (never through a link, never onto anything but a
  regular file) under the output's lock (:func:`~mscsp.runtime.outlock.output_lock`: a
  no-op where the caller holds it for the run, as every command does).

Reading it back (:func:`read_log`): the first line must be the log's header (or, without
one, a record of the log), else the file is refused untouched: a resume never appends to,
truncates or replaces a file that is not its command's log. After it, each line is read
with :func:`~mscsp.trust.jsonl.loads_bounded` (bounded in length, nesting and digits) and
checked by the format's record parser; a line that fails either is reported (file and
line number) and skipped, and the lines after it are kept. A resumed run may write the
header again with the same settings (a play run resumed for more games); a later header
with other settings makes the log two runs' mix, refused. A resume
(:meth:`ResumableLog.resume`) refuses a header with other settings, in one line naming
each setting that differs. The file is never rewritten: only a last line without its
newline, cut short by a kill, is dropped (:meth:`ResumableLog.repair`), and a whole last
line missing its newline gets one.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, Generic, TypeVar

from ..errors import InvalidInputError, MscspError
from ..trust.files import open_output, open_regular
from ..trust.jsonl import loads_bounded
from ..trust.jsonlog import Damaged, typed
from .outlock import output_lock

#: Longest line read (bytes): a bench run's line holds its whole answer, a few MB at most.
MAX_LINE_BYTES = 64 * 1024 * 1024
#: Damaged lines reported one by one; the rest are counted in one line.
MAX_WARNINGS = 10

H = TypeVar("H")
R = TypeVar("R")


def warn(message: str) -> None:
    """Reports a damaged line on standard error (the default of :func:`read_log`)."""
    print(f"mscsp: warning: {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Header:
    """A log's header, read back and checked.

    Attributes:
        settings: The run's settings, every one (those left out at their defaults).
        fields: The log's own fields, as :attr:`LogFormat.fields` read them.
    """

    settings: dict[str, Any]
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LogFormat(Generic[R]):
    """What a resumable log is: its name, its header and its records.

    Attributes:
        what: What the log is, for messages (``"play log"``).
        record: Parses a record line's JSON value; raises :class:`Damaged` (or a
            ``KeyError``, ``TypeError``, ``ValueError``) for a line that is not a record
            of this log. A :class:`~mscsp.errors.MscspError` it raises is no damage: it
            carries on to the caller.
        kind: The header's ``type`` (``None``: a log without a header).
        settings: The run's settings, in order, and the JSON types each may have.
        optional: Settings a header may leave out, with the value they then have (a
            header leaves them out at that value).
        fields: Reads the log's own fields from a header line's value (a play log's game
            count), raising :class:`Damaged` for a wrong one; none by default.
        settings_key: The header's key holding the settings.
        version: The format's version, written in every header; a header of a later
            version is refused (one of an earlier version, or without one, is read).
        noun: What a resume's messages call the file (``"cannot resume: no log at ..."``).
        where: How a difference names the file (``"time_limit: 10.0 in the file, ..."``).
    """

    what: str
    record: Callable[[Any], R]
    kind: str | None = None
    settings: Mapping[str, tuple[type, ...]] = field(default_factory=dict)
    optional: Mapping[str, Any] = field(default_factory=dict)
    fields: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    settings_key: str = "settings"
    version: int = 1
    noun: str = "log"
    where: str = "log"

    def header(self, settings: Mapping[str, Any], **fields: Any) -> dict[str, Any]:
        """The header line's value for ``settings`` (and the log's own ``fields``)."""
        kept = {
            name: value
            for name, value in settings.items()
            if not (name in self.optional and value == self.optional[name])
        }
        return {"type": self.kind, "version": self.version, self.settings_key: kept, **fields}

    def parse_header(self, value: Any) -> Header:
        """The header of a line's JSON value.

        Raises:
            Damaged: It is not a header of this log: another ``type``, a setting missing,
                unknown or of another type, or a wrong field of the log's own.
            InvalidInputError: A header of a later version of the format.
        """
        if typed(value, "type", str) != self.kind:
            raise Damaged(f"a {value['type']!r} record, not a {self.kind} header")
        version = typed(value, "version", int) if "version" in value else 1
        if version < 1:
            raise Damaged(f"a version {version}")
        if version > self.version:
            raise InvalidInputError(
                f"the {self.what} is of version {version}, written by a later mscsp (this one "
                f"reads version {self.version}); resume it with that mscsp"
            )
        given = typed(value, self.settings_key, dict)
        unknown = sorted(set(given) - set(self.settings))
        if unknown:
            raise Damaged(f"unknown settings {unknown}")
        settings = {
            name: typed(given, name, *kinds)
            if name in given or name not in self.optional
            # (a setting left out has its default)
            else self.optional[name]
            for name, kinds in self.settings.items()
        }
        return Header(settings, self.fields(value) if self.fields is not None else {})

    def difference(self, logged: Mapping[str, Any], given: Mapping[str, Any]) -> str:
        """``"seed: 1 in the log, 2 here; ..."``: every setting the two disagree on, in the
        order of :attr:`settings` (empty if none)."""
        return "; ".join(
            f"{name}: {logged.get(name)!r} in the {self.where}, {given.get(name)!r} here"
            for name in self.settings
            if logged.get(name) != given.get(name)
        )


@dataclass
class LogContents(Generic[H, R]):
    """What :func:`read_log` found.

    Attributes:
        path: The log.
        header: The first line (blank lines aside) as the header parser gave it
            (``None``: an empty file, or a log without a header); read by
            :meth:`ResumableLog.read`, the last header of the log (see there).
        records: ``(line number, record)`` of every good record line, in order.
        damaged: Line numbers of the lines skipped.
        tail: Where a last line without its newline starts (bytes), if there is one.
        tail_cut: That last line is damaged (cut short by a kill): a repair drops it.
    """

    path: Path
    header: H | None = None
    records: list[tuple[int, R]] = field(default_factory=list)
    damaged: list[int] = field(default_factory=list)
    tail: int | None = None
    tail_cut: bool = False


class ResumableLog(Generic[R]):
    """A resumable log of one :class:`LogFormat` (see the module docstring).

    Args:
        path: The file.
        format: What the log is.
        lock: The output whose lock covers the log (default: the log itself; a bench's
            ``runs.jsonl`` lies in its results folder, the bench's output).
    """

    def __init__(self, path: str | Path, format: LogFormat[R], *, lock: str | Path | None = None):
        self.path = Path(path)
        self.format = format
        self.lock = Path(lock) if lock is not None else self.path

    def exists(self) -> bool:
        """Whether the log holds anything (an empty file counts as no log)."""
        return self.path.is_file() and self.path.stat().st_size > 0

    def read(self) -> LogContents[Header, R]:
        """The header and records of the log, damaged lines reported and skipped.

        A resumed run may start the log again (:meth:`start` without ``new``: a play run
        resumed for more games): each later header must hold the first one's settings,
        and the header read is the last (its own fields the latest).

        Raises:
            InvalidInputError: The file cannot be read, is not a regular file (a link
                included), its first line is not this log's, or a later header holds
                other settings (the log mixes two runs).
        """
        fmt = self.format
        if fmt.kind is None:
            return read_log(self.path, fmt.what, None, fmt.record)
        contents: LogContents[Header, Header | R] = read_log(
            self.path, fmt.what, fmt.parse_header, self._line
        )
        first, records = contents.header, []
        for number, line in contents.records:
            if not isinstance(line, Header):
                records.append((number, line))
            elif first is not None and (differs := fmt.difference(first.settings, line.settings)):
                raise InvalidInputError(
                    f"{self.path} mixes two runs (line {number}: {differs}); split it or "
                    "start a new log"
                )
            else:
                contents.header = line
        return replace(contents, records=records)

    def _line(self, value: Any) -> Header | R:
        """A line after the first: a header again, or a record."""
        if isinstance(value, dict) and value.get("type") == self.format.kind:
            return self.format.parse_header(value)
        return self.format.record(value)

    def resume(self, settings: Mapping[str, Any], remedy: str) -> LogContents[Header, R]:
        """The log read for a resumed run of ``settings``, readied for appending.

        Args:
            settings: The resumed run's settings: the header's must be the same.
            remedy: What else to do, closing the refusal (``"drop --resume"``).

        Raises:
            InvalidInputError: No log, no header, or a header with other settings (one
                line naming each that differs); the file is left as it is.
        """
        fmt = self.format
        if not self.path.is_file():
            raise InvalidInputError(f"cannot resume: no {fmt.noun} at {self.path}")
        contents = self.read()
        if contents.header is None:
            raise InvalidInputError(f"cannot resume: {self.path} holds no {fmt.kind} header")
        differs = fmt.difference(contents.header.settings, settings)
        if differs:
            raise InvalidInputError(
                f"{self.path} records a different {fmt.kind} ({differs}); resume with the "
                f"{fmt.noun}'s settings, or {remedy}"
            )
        self.repair(contents)
        return contents

    def repair(self, contents: LogContents[Any, Any]) -> None:
        """Readies the log for appending: a cut last line is dropped (only the bytes after
        the last newline), a whole last line missing its newline gets one."""
        if contents.tail is None:
            return
        with self._opened(append=True, binary=True) as handle:
            if contents.tail_cut:
                os.ftruncate(handle.fileno(), contents.tail)
            else:
                handle.write(b"\n")

    def start(self, settings: Mapping[str, Any], *, new: bool = False, **fields: Any) -> None:
        """Writes the header line for ``settings`` (and the log's own ``fields``); ``new``:
        as the whole file, replacing what was there."""
        self._write(self.format.header(settings, **fields), append=not new)

    def append(self, record: Mapping[str, Any]) -> None:
        """Writes one record as a line, flushed and synced at once (a kill loses at most
        the line being written)."""
        self._write(record, append=True)

    def _write(self, value: Mapping[str, Any], *, append: bool) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._opened(append=append) as handle:
            handle.write(json.dumps(value, separators=(",", ":")) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    @contextmanager
    def _opened(self, *, append: bool, binary: bool = False) -> Iterator[IO]:
        """The log opened for writing, under its output's lock."""
        with (
            output_lock(self.lock, self.format.what),
            open_output(self.path, self.format.what, append=append, binary=binary) as handle,
        ):
            yield handle


def read_log(
    path: str | Path,
    what: str,
    header: Callable[[Any], H] | None,
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
            ``None``: the log has no header, its first line must be a record.
        record: Parses each later line's JSON value, raising as ``header`` does for a line
            that is not a record of this log. A :class:`~mscsp.errors.MscspError` it
            raises is no damage: it carries on to the caller.
        report: Where each damaged line is reported (one line each, naming the file and
            the line; standard error by default).

    Raises:
        InvalidInputError: The file cannot be read, is not a regular file, or its first
            line is not this log's (the file is left as it is).
    """
    contents: LogContents[H, R] = LogContents(Path(path))
    shown = f"{str(path)!r}"
    first = True  # (the first line that is not blank: the header, or the first record)
    with open_regular(path, what, follow=False) as handle:
        for number, offset, line, ended in _lines(handle):
            if line is not None and not line.strip() and ended:
                continue  # a blank line holds no record: nothing lost
            is_header = first and header is not None
            try:
                parsed = _parse(
                    line, f"{shown} line {number}", header if is_header else record, what
                )
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
            first = False
            if is_header:
                contents.header = parsed
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
