"""One writer per output: an exclusive lock beside every file or directory a run writes.

``with output_lock(path, "play log"):`` takes an exclusive, non-blocking ``flock`` on the
sidecar ``<path>.lock`` (``L.jsonl.lock`` for a log, ``runs/x.lock`` for a directory
``runs/x``), writes the holder (pid, host, command line, start time) into it, and removes it
on leaving. A second writer is refused at once with :class:`~mscsp.errors.OutputLockedError`
naming the holder; it never waits.

Why a sidecar: ``--overwrite`` replaces the output file itself, and a training starts a run
directory over by deleting what is in it; a lock on either would be lost with it. The same
rule for files and directories, and beside rather than inside, so a folder of shards holds
only shards.

Why no stale-lock cleanup is needed: the kernel drops an ``flock`` when its holder dies,
even by ``kill -9``; the next run finds the leftover file unlocked and takes it over.

Why the file is removed safely: it is unlinked only by its holder, while still locked, and
a new holder checks after locking that the path still names the file it locked (else an
earlier holder removed it in between, and it starts again). So two processes never hold
locks on two different files of one name.

Why no one else's file is touched: the sidecar is opened with ``O_NOFOLLOW`` (a link planted
there, ``out.jsonl.lock -> ~/.bashrc``, is refused, never written through), only a regular
file is taken, a file there that is neither empty nor a holder record is refused rather
than overwritten, and on leaving the name is unlinked only while it still names the file
this process locked.

The lock belongs to the process that takes it: its worker processes (a run's pool or Ray
tasks) write under it without taking it (the file descriptor is not inherited by children
started with ``exec``). A nested ``output_lock`` of the same output in the holding process is
a no-op, so a library function can lock what its caller may already hold.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import socket
import stat
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError, OutputLockedError

#: What a lock file's name adds to its output's name.
LOCK_SUFFIX = ".lock"

#: How a lock file is opened: created if missing, never through a link, never waiting.
_LOCK_FLAGS = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK
#: Most bytes of a holder record read back (a record is a few hundred).
_HOLDER_BYTES = 65536

#: Lock files this process holds, and how many ``output_lock`` blocks hold each.
_held: dict[Path, int] = {}


def lock_path(path: str | Path) -> Path:
    """The lock file of an output: ``<path>.lock`` beside it, links and ``..`` resolved (so
    every spelling of one output shares one lock)."""
    target = Path(path).resolve()
    return target.with_name(target.name + LOCK_SUFFIX)


@contextmanager
def output_lock(path: str | Path | None, what: str = "output") -> Iterator[None]:
    """Holds the exclusive lock of the output ``path`` (a file or a directory) for the block.

    Take it before anything is read to be extended or written (and before slow set-up), so
    a refusal comes first. Missing parent directories of ``path`` are created. ``None``
    locks nothing (a run without an output).

    Args:
        path: The output file or directory.
        what: What it is, for messages (``"play log"``, ``"data directory"``).

    Raises:
        OutputLockedError: Another process holds it (the message names that process).
        InvalidInputError: The lock file cannot be created (its directory is not writable),
            or its name is taken by a link or by anything but a lock file.
    """
    if path is None:
        yield
        return
    sidecar = lock_path(path)
    if sidecar in _held:
        _held[sidecar] += 1
        try:
            yield
        finally:
            _held[sidecar] -= 1
        return
    fd = _acquire(sidecar, path, what)
    _held[sidecar] = 1
    try:
        _write_holder(fd)
        yield
    finally:
        del _held[sidecar]
        # Unlinked while still locked, and only if the name is still the file we locked:
        # see the module's docstring.
        with suppress(FileNotFoundError):
            if os.path.samestat(os.fstat(fd), os.lstat(sidecar)):
                os.unlink(sidecar)
        os.close(fd)


def _acquire(sidecar: Path, output: str | Path, what: str) -> int:
    """An open descriptor of ``sidecar`` with its exclusive lock taken."""
    while True:
        try:
            sidecar.parent.mkdir(parents=True, exist_ok=True)
            _refuse_special(sidecar, output, what)  # before an open that could act on it
            # O_NOFOLLOW: a link planted at the sidecar's name is refused, not written
            # through; O_NONBLOCK: a FIFO there must not wait for a writer (refused below).
            fd = os.open(sidecar, _LOCK_FLAGS, 0o644)
        except OSError as exc:
            if os.path.islink(sidecar):
                raise InvalidInputError(
                    f"cannot lock the {what} {output}: {sidecar} is a symbolic link; "
                    "refusing to follow it (remove it if it is not yours)"
                ) from None
            raise InvalidInputError(
                f"cannot lock the {what} {output}: {sidecar}: {exc.strerror}"
            ) from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO, a device: not ours to lock
            os.close(fd)
            raise InvalidInputError(
                f"cannot lock the {what} {output}: {sidecar} is not a regular file"
            )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise OutputLockedError(
                f"the {what} {output} is being written by another run ({describe(holder)}); "
                "wait for it to finish, or stop it; a different --out runs beside it"
            ) from None
        except OSError as exc:
            os.close(fd)
            raise InvalidInputError(
                f"cannot lock the {what} {output}: {sidecar}: {exc.strerror}"
            ) from None
        try:
            current = os.lstat(sidecar)
        except FileNotFoundError:
            current = None
        if current is not None and os.path.samestat(os.fstat(fd), current):
            if not _is_lock_file(fd):
                os.close(fd)
                raise InvalidInputError(
                    f"cannot lock the {what} {output}: {sidecar} exists and is not a lock "
                    "file; refusing to replace it (move it away)"
                )
            return fd
        os.close(fd)  # its holder removed it after we opened it: lock the one there now


def _refuse_special(sidecar: Path, output: str | Path, what: str) -> None:
    """Refuses a device, FIFO or socket at the sidecar's name (opening a device can act)."""
    with suppress(FileNotFoundError):
        mode = os.lstat(sidecar).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            raise InvalidInputError(
                f"cannot lock the {what} {output}: {sidecar} is not a regular file"
            )


def _is_lock_file(fd: int) -> bool:
    """Whether the locked file is empty or holds a holder record (a lock file a run left,
    killed before or after writing it), rather than a file of the user's."""
    data = os.pread(fd, _HOLDER_BYTES + 1, 0)
    if not data:
        return True
    try:
        record = json.loads(data) if len(data) <= _HOLDER_BYTES else None
    except ValueError:
        return False
    return isinstance(record, dict) and "pid" in record


def _write_holder(fd: int) -> None:
    """Records this process in the lock file (what a refused run's message names)."""
    record = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "command": command_line()[: _HOLDER_BYTES // 4],  # (read back whole: see above)
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    data = (json.dumps(record) + "\n").encode()
    os.ftruncate(fd, 0)  # a killed run's record may be longer
    os.pwrite(fd, data, 0)


def _read_holder(fd: int) -> dict[str, Any]:
    """The holder's record; empty if it has not written it yet (or it is not ours)."""
    try:
        record = json.loads(os.pread(fd, _HOLDER_BYTES, 0))
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def command_line() -> str:
    """This process's command line as a user typed it (``mscsp play ...``,
    ``python -m mscsp play ...``), without the directories of the program."""
    argv = list(sys.argv) or [""]
    program = Path(argv[0])
    if program.name == "__main__.py":
        argv[0] = f"python -m {program.parent.name}"
    elif argv[0] == "-c":
        argv[0] = "python -c"
    else:
        argv[0] = program.name or "python"
    return " ".join([argv[0], *map(shlex.quote, argv[1:])])


def describe(holder: dict[str, Any]) -> str:
    """``pid 123 on host, since 2025-01-01 10:00:00: mscsp play ...`` (one line)."""
    if "pid" not in holder:
        return "pid not recorded yet"
    text = f"pid {holder['pid']} on {holder.get('host', '?')}, since {holder.get('started', '?')}"
    command = " ".join(str(holder.get("command", "")).split())  # one line, whatever it holds
    if len(command) > 200:
        command = command[:197] + "..."
    return f"{text}: {command}" if command else text
