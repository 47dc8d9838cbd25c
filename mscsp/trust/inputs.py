"""Bounded reading of user files and standard input: refused past a limit, never read whole.

A path is checked with ``os.stat`` (which follows links) before it is opened: only a regular
file is read. A directory, a character device such as ``/dev/zero``, a FIFO or a socket is
refused, since a stream has no size to check and may never end; a regular file larger than
the limit is refused unread, so a 10 GB file costs one ``stat``. Standard input (``-``) is
read in chunks and refused as soon as it passes the limit, so ``cat /dev/zero | mscsp probs
-`` stops at once with memory bounded by the limit.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import BinaryIO

from ..errors import InvalidInputError

#: Bytes read at a time: memory past the limit is at most one chunk.
CHUNK = 64 * 1024
#: What a path that is not a regular file is, for the message that refuses it.
_KINDS = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)
_STREAM_HINT = "; to read a stream, pipe it to standard input with -"


def read_bounded(
    source: str | os.PathLike[str], limit: int, what: str, allow_stdin: bool = True
) -> bytes:
    """Reads a regular file, or standard input for ``-``, refusing more than ``limit`` bytes.

    Args:
        source: A path, or ``"-"`` for standard input (read as bytes).
        limit: The most bytes accepted.
        what: What is read, for messages: ``"board text"``, ``"replay file"``.
        allow_stdin: Whether ``"-"`` means standard input; else it is a path like any other
            (and messages do not suggest piping).

    Returns:
        The bytes read.

    Raises:
        InvalidInputError: The source cannot be opened, is not a regular file (a directory,
            a device, a FIFO, a socket), or holds more than ``limit`` bytes. Nothing past
            ``limit`` plus one chunk is ever read.
    """
    if allow_stdin and source == "-":
        label = f"{what} from standard input"
        try:
            return _read_chunks(sys.stdin.buffer, limit, label)
        except OSError as exc:
            raise InvalidInputError(f"cannot read {label}: {exc.strerror}") from None
    name = os.fsdecode(source)
    label = f"{what} {name!r}"
    hint = _STREAM_HINT if allow_stdin else ""
    try:
        _check_regular(os.stat(name), limit, label, hint)
        # O_NONBLOCK: should the path become a FIFO after the stat, opening it must not wait
        # for a writer; the fstat then refuses it (no effect on reading a regular file).
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as handle:
            _check_regular(os.fstat(fd), limit, label, hint)
            return _read_chunks(handle, limit, label)
    except OSError as exc:
        raise InvalidInputError(f"cannot read {label}: {exc.strerror}") from None


def _check_regular(info: os.stat_result, limit: int, label: str, hint: str) -> None:
    """Refuses anything but a regular file of at most ``limit`` bytes."""
    if stat.S_ISDIR(info.st_mode):
        raise InvalidInputError(f"cannot read {label}: it is a directory")
    if not stat.S_ISREG(info.st_mode):
        kind = next((name for test, name in _KINDS if test(info.st_mode)), "a special file")
        raise InvalidInputError(f"cannot read {label}: it is {kind}, not a regular file{hint}")
    if info.st_size > limit:
        raise InvalidInputError(f"{label} is too large: {info.st_size} bytes, the limit is {limit}")


def _read_chunks(handle: BinaryIO, limit: int, label: str) -> bytes:
    """Reads ``handle`` to its end in chunks, refusing it once past ``limit`` bytes."""
    data = bytearray()
    # Files whose size stat cannot tell (/proc, a file still growing) are bounded here too.
    while chunk := handle.read(CHUNK):
        data += chunk
        if len(data) > limit:
            raise InvalidInputError(f"{label} is too large: over the limit of {limit} bytes")
    return bytes(data)
