"""Counter programs run on a benchmark set's files, one count a file, as competitions run them.

``bench/solvers/count_set.py`` gives every file of a set (``mscsp export --package``) to
every counter program named, each run isolated under a time and a memory limit
(:func:`~mscsp.runtime.isolated.run_program`), and checks each answer against the set's
count (:func:`run_counter`): a count that differs is ``wrong``, never a solve. The runs go
to a resumable log (:data:`COUNTER_RUNS`) whose header names the set by its digest
(:func:`set_digest`), so that ``mscsp export --package --grades`` can grade the set's
files from them (:func:`mscsp.export.grades.read_runs`) beside ``mscsp bench``'s runs of
its positions.

A record: ``instance`` (its line in the set's index), ``file``, ``counter`` (a name),
``command`` (the program's words), ``status`` (``mscsp bench``'s: :data:`STATUSES`),
``seconds``, ``cpu_seconds``, ``peak_mb`` (sampled: a run shorter than the sampling
interval may show none), ``count`` (decimal, or ``null``), ``wrong``, ``detail`` (why it
failed, one line).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import shlex
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..backends.external import ExternalBackend
from ..errors import InvalidInputError, MemoryLimitError
from ..runtime.child import CRASH, LIMIT, MEMORY
from ..runtime.runlog import LogFormat
from ..trust.escape import comment_line
from ..trust.jsonlog import Damaged, typed

#: How a run ended, as ``mscsp bench`` names it.
STATUSES = ("ok", "timeout", "memout", "crash", "error")
#: A count as the log writes it: ASCII decimal digits (``str.isdigit`` takes ``"²"``).
_DECIMAL = re.compile(r"[0-9]+")


def _record(value: Any) -> dict[str, Any]:
    """A run line of the log, checked."""
    for key in ("file", "counter", "command", "status"):
        typed(value, key, str)
    if value["status"] not in STATUSES:
        raise Damaged(f"status {value['status']!r}")
    if typed(value, "instance", int) < 0 or typed(value, "seconds", int, float) < 0:
        raise Damaged("a negative instance or time")
    typed(value, "count", str, type(None))
    typed(value, "wrong", bool)
    if value["status"] == "ok" and not _DECIMAL.fullmatch(value["count"] or ""):
        raise Damaged("an ok run without a decimal count")
    return value


#: The log of counter runs on a set: ``OUT/runs.jsonl`` of ``count_set.py``.
COUNTER_RUNS = LogFormat(
    "counter runs",
    _record,
    kind="counter-runs",
    settings={
        "set": (str,),
        "instances": (int,),
        "time_limit": (int, float),
        "memory_mb": (int,),
    },
    noun="runs file",
    where="file",
)


def set_digest(records: Sequence[dict[str, Any]]) -> str:
    """SHA-256 of a set's files and counts, in order: the same for an export's index and
    its package's (which adds ``instances/`` to each name, and the grades)."""
    pairs = [[Path(r["file"]).name, r["count"]] for r in records]
    return hashlib.sha256(json.dumps(pairs).encode()).hexdigest()


def run_counter(
    argv: Sequence[str], path: Path, expected: int, *, time_limit: float, memory_mb: int
) -> dict[str, Any]:
    """One run of the counter program ``argv`` on the file ``path``, checked.

    Args:
        argv: The program and its arguments (resolved on ``PATH``); the file goes last.
        path: The instance file.
        expected: Its count (the set's): any other is ``wrong``.
        time_limit: Wall-clock seconds before it is killed with its process group.
        memory_mb: MiB it and its children may hold resident.

    Returns:
        The run's record fields: ``status``, ``seconds``, ``cpu_seconds``, ``peak_mb``,
        ``count``, ``wrong``, ``detail``.

    Raises:
        InvalidInputError: ``argv`` names no program found, ``time_limit`` is not a positive
            number of seconds, ``expected`` is not a count, or ``path`` is not a file.
    """
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)):
        raise InvalidInputError(f"time_limit must be seconds, got {time_limit!r}")
    if not (math.isfinite(time_limit) and time_limit > 0):
        raise InvalidInputError(f"time_limit must be positive and finite, got {time_limit!r}")
    if isinstance(expected, bool) or not isinstance(expected, int) or expected < 0:
        raise InvalidInputError(f"expected must be a count (an int >= 0), got {expected!r}")
    if not Path(path).is_file():
        raise InvalidInputError(f"no instance file at {path}")
    reader = ExternalBackend(command=shlex.join(argv), memory_mb=memory_mb)
    # A copy in a folder of its own, removed after the run: whatever the program (or its
    # wrapper) writes beside its input, and leaves when killed at the limit, goes with it,
    # not into the set.
    with tempfile.TemporaryDirectory(prefix="mscsp-count-") as work:
        copy = Path(work, path.name)
        shutil.copyfile(path, copy)
        try:
            outcome = reader.run_on(copy, time_limit)
        except OSError as exc:
            raise InvalidInputError(f"cannot start {reader.who}: {exc}") from None
    row: dict[str, Any] = {
        "seconds": round(outcome.seconds, 4),
        "cpu_seconds": outcome.cpu_seconds,
        "peak_mb": None if outcome.peak_mb is None else round(outcome.peak_mb, 1),
        "count": None,
        "wrong": False,
        "detail": "",
    }
    if outcome.status == LIMIT:
        return {**row, "status": "timeout"}
    if outcome.status in (MEMORY, CRASH):
        status = "memout" if outcome.status == MEMORY else "crash"
        return {**row, "status": status, "detail": comment_line(outcome.crash)}
    try:
        count = reader.answer(path, outcome.exit_code, outcome.value, outcome.stderr)
    except MemoryLimitError as exc:
        return {**row, "status": "memout", "detail": comment_line(str(exc))}
    except InvalidInputError as exc:
        return {**row, "status": "error", "detail": comment_line(str(exc))}
    return {**row, "status": "ok", "count": str(count), "wrong": count != expected}
