"""``mscsp replay`` on an archive: many replay files rated in parallel, to a resumable log."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from ..errors import InvalidInputError
from ..runtime.outlock import output_lock
from ..trust.escape import terminal_text
from ..trust.files import open_output, refuse_link
from .progress import Progress


def is_archive(paths: tuple[str, ...], **options: Any) -> bool:
    """Whether ``replay`` rates an archive (a folder, a glob pattern, a ``.evfs`` set, or an
    archive option) rather than printing each file's clicks."""
    if any(options.values()) or any(p.lower().endswith(".evfs") for p in paths):
        return True  # a .evfs set holds many games: an archive too
    return any(os.path.isdir(p) or (not os.path.exists(p) and set("*?[") & set(p)) for p in paths)


def run_archive(
    paths: tuple[str, ...],
    *,
    backend: str,
    time_limit: float | None,
    workers: int,
    executor: str,
    endgame_layouts: int,
    pluck: bool,
    out: str | None,
    resume: bool,
    as_json: bool,
    summary: bool,
    csv_file: str | None,
    summary_json: str | None,
    report: str | None,
    show_progress: bool,
) -> None:
    """Rates every replay under ``paths`` and writes what was asked (see ``replay --help``)."""
    from ..replay.archive import ResultLog, collect

    if resume and not out:
        raise InvalidInputError("--resume continues the log of --out: give --out FILE too")
    if out:
        refuse_link(out, "--out")  # (the log is appended to without following a link)
    for option, path in (
        ("--csv", csv_file),
        ("--summary-json", summary_json),
        ("--report", report),
    ):
        _check_writable(option, path)  # before the run: not after an hour of rating
    files, missing = collect(paths)
    if not files:
        # Nothing to rate at all is a usage error, not an empty archive.
        named = "; ".join(f"{r['file']}: {r['reason']}" for r in missing)
        raise InvalidInputError(named or "no replay files found")
    with output_lock(out, "replay log"):
        log = ResultLog(out) if out else None
        done: dict = {}
        if log is not None:
            if log.path.exists() and log.path.stat().st_size and not resume:
                raise InvalidInputError(
                    f"{out} already holds results: --resume to carry on, or choose another file"
                )
            done = log.read()
        records = _rate_all(
            files,
            done,
            log,
            backend,
            time_limit,
            workers,
            executor,
            endgame_layouts,
            pluck,
            as_json,
            show_progress,
        )
    records = missing + records
    for record in missing:
        click.echo(terminal_text(f"mscsp: error: {record['file']}: {record['reason']}"), err=True)
    _write_outputs(records, summary, as_json, csv_file, summary_json, report)


def _rate_all(
    files: list[str],
    done: dict,
    log: Any,
    backend: str,
    time_limit: float | None,
    workers: int,
    executor: str,
    endgame_layouts: int,
    pluck: bool,
    as_json: bool,
    show_progress: bool,
) -> list[dict[str, Any]]:
    """The records of ``files`` (one per game: a ``.evfs`` set gives one per game in it):
    those in ``done`` kept, the others rated (and logged)."""
    from itertools import chain

    from ..replay.archive import analyse_task, plan
    from ..runtime.executors import parallel_map

    records, ready, units = plan(files, done)
    todo = [(unit, backend, time_limit, endgame_layouts, pluck) for unit in units]
    with Progress(len(records) + len(ready) + len(todo), "games", "rating", show_progress) as bar:
        bar.skip(len(records))
        # ``ready``: the error records of sets that break off, known without rating.
        for record in chain(ready, parallel_map(analyse_task, todo, workers, executor)):
            if log is not None:
                log.append(record)
            records.append(record)
            if record["status"] != "ok":
                click.echo(
                    terminal_text(f"mscsp: error: {record['file']}: {record['reason']}"), err=True
                )
            elif as_json:
                bar.echo(json.dumps(record))
            bar.advance()
    return records


def _write_outputs(
    records: list[dict[str, Any]],
    summary: bool,
    as_json: bool,
    csv_file: str | None,
    summary_json: str | None,
    report: str | None,
) -> None:
    from ..replay.report import games_csv, html_report, summarise, summary_text

    result = summarise(records)
    for option, path, make in (
        ("--csv", csv_file, lambda: games_csv(records)),
        ("--summary-json", summary_json, lambda: json.dumps(result, indent=1)),
        ("--report", report, lambda: html_report(result, records)),
    ):
        if path:
            text = make()  # (made first: a failure leaves the file as it was)
            try:
                # Never through a link planted at the name, never onto a FIFO or device.
                with open_output(path, option) as handle:
                    handle.write(text)
            except OSError as exc:
                raise InvalidInputError(f"{option} {path}: {exc.strerror}") from None
    if summary or not as_json:
        click.echo(
            json.dumps({"summary": result}) if as_json else terminal_text(summary_text(result))
        )


def _check_writable(option: str, path: str | None) -> None:
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
