"""Files written for the user: never through a link we did not make, never one we did not write.

A path the user names is theirs to name; but the last step of it may be a link that someone
else planted (``out.jsonl.lock -> ~/.bashrc``), or a name we would clobber. These open files
for writing with ``O_NOFOLLOW`` (a link at the last step is refused, not followed) and
remove only regular files, never links, directories or devices. Files read back (a log to
resume, a game in a replay set) are opened only if they are regular files: a FIFO would
wait forever for a writer, a device (``/dev/zero``) never ends.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import IO

from mscsp.errors import InvalidInputError

#: Flags of every open for writing: no link followed at the last step, not inherited by
#: programs a run starts.
_WRITE_FLAGS = os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC


def refuse_link(path: str | Path, what: str) -> None:
    """Raises :class:`InvalidInputError` if ``path`` is a symbolic link (followed or not)."""
    if os.path.islink(path):
        raise InvalidInputError(f"{what} {str(path)!r} is a symbolic link; refusing to follow it")


def open_output(
    path: str | Path,
    what: str,
    *,
    append: bool = False,
    exclusive: bool = False,
    binary: bool = False,
) -> IO:
    """``path`` opened for writing (truncated, appended, or created only if new), never
    through a symbolic link at its last step and never onto anything but a regular file.

    Args:
        path: The file.
        what: What it is, for the error (``"play log"``).
        append: Append to it rather than truncate it.
        exclusive: Create it; refuse if anything is there already.
        binary: Bytes rather than UTF-8 text.

    Raises:
        InvalidInputError: A link, a directory, a FIFO or a device is at ``path``, or it
            exists and ``exclusive`` was asked.
    """
    flags = _WRITE_FLAGS | os.O_CREAT
    flags |= os.O_EXCL if exclusive else 0
    flags |= os.O_APPEND if append else 0
    # (O_NONBLOCK: opening a FIFO for writing would otherwise wait for a reader forever.)
    try:
        fd = os.open(path, flags | os.O_NONBLOCK, 0o666)
    except FileExistsError:
        raise InvalidInputError(f"{what} {str(path)!r} exists already") from None
    except OSError as exc:
        if os.path.islink(path):
            raise InvalidInputError(
                f"{what} {str(path)!r} is a symbolic link; refusing to follow it"
            ) from None
        if os.path.isdir(path):
            raise InvalidInputError(f"{what} {str(path)!r} is a directory") from None
        raise InvalidInputError(f"cannot write {what} {str(path)!r}: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InvalidInputError(f"{what} {str(path)!r} is not a regular file")
        os.set_blocking(fd, True)
        if not append:
            os.ftruncate(fd, 0)
    except BaseException:
        os.close(fd)
        raise
    if binary:
        return os.fdopen(fd, "ab" if append else "wb")
    return os.fdopen(fd, "a" if append else "w", encoding="utf-8", newline="")


def remove_regular(path: str | Path) -> bool:
    """Removes ``path`` if it is a regular file (not a link, directory or device).

    Returns:
        Whether a file was removed.
    """
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(mode):
        return False
    os.unlink(path)
    return True


def open_regular(path: str | Path, what: str, *, follow: bool = True) -> IO[bytes]:
    """``path`` opened for reading (bytes), only if it is a regular file.

    Checked before the open (a FIFO's open would wait for a writer, a device's may act)
    and again on the open file (the path may have changed in between); the open never
    waits (``O_NONBLOCK``, then blocking again for the reads).

    Args:
        path: The file.
        what: What it is, for the error (``"run log"``).
        follow: Follow a link at the last step (a file the user points at); without it a
            link is refused (an output of ours read back).

    Raises:
        InvalidInputError: Missing, unreadable, a link (without ``follow``), or not a
            regular file.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        mode = (os.stat if follow else os.lstat)(path).st_mode
        if stat.S_ISLNK(mode):
            raise InvalidInputError(
                f"{what} {str(path)!r} is a symbolic link; refusing to follow it"
            )
        if not stat.S_ISREG(mode):
            raise InvalidInputError(f"{what} {str(path)!r} is not a regular file")
        fd = os.open(path, flags)
    except OSError as exc:
        raise InvalidInputError(f"cannot read {what} {str(path)!r}: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InvalidInputError(f"{what} {str(path)!r} is not a regular file")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")
