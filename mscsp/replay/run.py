"""One run over a player's archive: what to rate, rated in parallel, logged as it goes.

:func:`open_run` checks a run's outputs, collects the replay files
(:func:`~mscsp.replay.archive.collect`), takes the ``--out`` log's lock, reads what the log
already holds and plans what is left (:func:`~mscsp.replay.archive.plan`); the
:class:`ArchiveRun` it yields rates the rest (:meth:`ArchiveRun.rate`), appending each
record to the log as it comes. :func:`write_outputs` then writes the files made from the
records (``--csv``, ``--summary-json``, ``--report``). The command (``mscsp replay`` on an
archive) only parses its options, calls these and prints.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError
from ..runtime.executors import parallel_map
from ..runtime.outlock import output_lock
from ..trust.files import open_output, refuse_link
from .archive import ENDGAME_LAYOUTS, ResultLog, SetGame, analyse_task, collect, plan
from .report import games_csv, html_report, summarise


@dataclass(frozen=True)
class Outputs:
    """The files a run writes from its records besides its log (``None``: not written).

    Attributes:
        csv_file: Every game's row (:func:`~mscsp.replay.report.games_csv`).
        summary_json: The summary as JSON.
        report: The HTML report.
    """

    csv_file: str | None = None
    summary_json: str | None = None
    report: str | None = None

    def named(self) -> tuple[tuple[str, str | None], ...]:
        """Each file with the option that names it in messages, in the order written."""
        return (
            ("--csv", self.csv_file),
            ("--summary-json", self.summary_json),
            ("--report", self.report),
        )


@dataclass
class ArchiveRun:
    """A run over an archive, planned: what it keeps, and what it has left to rate.

    Attributes:
        missing: Error records of the paths that name no replay file (never logged).
        kept: Records already in the log, kept as they are.
        ready: Error records known without rating (``.evfs`` sets that break off).
        todo: What is left to rate: files, and games of ``.evfs`` sets.
        log: The ``--out`` log, ``None`` without one.
        rated: The records :meth:`rate` has given so far (``ready`` first).
    """

    missing: list[dict[str, Any]]
    kept: list[dict[str, Any]]
    ready: list[dict[str, Any]]
    todo: list[str | SetGame]
    log: ResultLog | None
    rated: list[dict[str, Any]] = field(default_factory=list)

    @property
    def total(self) -> int:
        """The games of the run (those kept from the log included)."""
        return len(self.kept) + len(self.ready) + len(self.todo)

    @property
    def records(self) -> list[dict[str, Any]]:
        """Every record of the run: the missing paths', the kept ones, the rated ones."""
        return self.missing + self.kept + self.rated

    def rate(
        self,
        backend: str = "dss",
        time_limit: float | None = None,
        endgame_layouts: int = ENDGAME_LAYOUTS,
        pluck: bool = False,
        workers: int = 1,
        executor: str = "process",
    ) -> Iterator[dict[str, Any]]:
        """Rates what is left (:func:`~mscsp.replay.archive.analyse_file` on ``workers``
        processes of ``executor``), giving each record as it comes, logged first."""
        tasks = [(unit, backend, time_limit, endgame_layouts, pluck) for unit in self.todo]
        for record in chain(self.ready, parallel_map(analyse_task, tasks, workers, executor)):
            if self.log is not None:
                self.log.append(record)
            self.rated.append(record)
            yield record


@contextmanager
def open_run(
    paths: tuple[str, ...],
    *,
    out: str | None = None,
    resume: bool = False,
    outputs: Outputs | None = None,
) -> Iterator[ArchiveRun]:
    """The run over the replay files under ``paths``, planned, with the lock of its log
    ``out`` held for the block (rate it there).

    Args:
        paths: Files, folders and glob patterns (:func:`~mscsp.replay.archive.collect`).
        out: The log every record is appended to (``None``: no log).
        resume: Carry on from the records ``out`` holds; without it a log that holds
            records is refused.
        outputs: The other files the run will write: checked before anything is rated
            (:func:`check_writable`).

    Raises:
        InvalidInputError: ``resume`` without ``out``, an output that cannot be written,
            no replay file at all, or a log that is not a replay log, or that holds
            records without ``resume``.
        OutputLockedError: Another process is writing ``out``.
    """
    if resume and not out:
        raise InvalidInputError("--resume continues the log of --out: give --out FILE too")
    if out:
        refuse_link(out, "--out")  # (the log is appended to without following a link)
    for option, path in (outputs or Outputs()).named():
        check_writable(option, path)  # before the run: not after an hour of rating
    files, missing = collect(paths)
    if not files:
        # Nothing to rate at all is a usage error, not an empty archive.
        named = "; ".join(f"{r['file']}: {r['reason']}" for r in missing)
        raise InvalidInputError(named or "no replay files found")
    with output_lock(out, ResultLog.WHAT):
        log = ResultLog(out) if out else None
        done: dict = {}
        if log is not None:
            if log.path.exists() and log.path.stat().st_size and not resume:
                raise InvalidInputError(
                    f"{out} already holds results: --resume to carry on, or choose another file"
                )
            done = log.read()
        kept, ready, todo = plan(files, done)
        yield ArchiveRun(missing, kept, ready, todo, log)


def write_outputs(records: list[dict[str, Any]], outputs: Outputs) -> dict[str, Any]:
    """Writes the ``outputs`` asked for, each made whole before its file is opened (a
    failure leaves the file as it was); returns the summary of ``records``
    (:func:`~mscsp.replay.report.summarise`)."""
    result = summarise(records)
    makers = {
        "--csv": lambda: games_csv(records),
        "--summary-json": lambda: json.dumps(result, indent=1),
        "--report": lambda: html_report(result, records),
    }
    for option, path in outputs.named():
        if path:
            text = makers[option]()
            try:
                # Never through a link planted at the name, never onto a FIFO or device.
                with open_output(path, option) as handle:
                    handle.write(text)
            except OSError as exc:
                raise InvalidInputError(f"{option} {path}: {exc.strerror}") from None
    return result


def check_writable(option: str, path: str | None) -> None:
    """Refuses, in one line, an output file that cannot be written: a link, a missing
    folder, a folder given as the file, or a folder without write permission."""
    if not path:
        return
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    refuse_link(target, option)  # (written without following it: refused now, not after)
    if target.is_dir():
        raise InvalidInputError(f"{option} {path}: is a folder, not a file")
    if not folder.is_dir():
        raise InvalidInputError(f"{option} {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise InvalidInputError(f"{option} {path}: folder {folder} is not writable")
